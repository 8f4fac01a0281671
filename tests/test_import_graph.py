"""The module graph has no cycles, and imports go one way: ``montecarlo`` → ``kernels``.

Imports are read from the source (module level and inside functions alike; those
under ``if TYPE_CHECKING:`` only name types and are left out).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> dict[str, Path]:
    found = {}
    for base in ("montecarlo", "kernels"):
        for path in (ROOT / base).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


class _Imports(ast.NodeVisitor):
    def __init__(self, name: str, is_package: bool, known: dict[str, Path]) -> None:
        self.name, self.is_package, self.known = name, is_package, known
        self.found: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            package = self.name if self.is_package else self.name.rsplit(".", 1)[0]
            for _ in range(node.level - 1):
                package = package.rsplit(".", 1)[0]
            module = f"{package}.{module}" if module else package
        for alias in node.names:
            full = f"{module}.{alias.name}"
            if full in self.known:
                self.found.add(full)
            elif module in self.known:
                self.found.add(module)

    def visit_Import(self, node: ast.Import) -> None:
        self.found |= {a.name for a in node.names if a.name in self.known}


def graph() -> dict[str, set[str]]:
    """Each module of ``montecarlo`` and ``kernels`` and the modules it imports."""
    known = _modules()
    edges = {}
    for name, path in known.items():
        visitor = _Imports(name, path.name == "__init__.py", known)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        edges[name] = visitor.found - {name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_kernels_never_import_the_package():
    edges = graph()
    assert [(m, d) for m, ds in edges.items() if m.startswith("kernels") for d in ds
            if d.startswith("montecarlo")] == []  # fmt: skip


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
