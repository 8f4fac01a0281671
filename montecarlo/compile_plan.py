"""Compile plans: which Numba helpers a big kernel compiles, with which types, in what order.

A battle or fight kernel is one top function that calls some seventy helpers.
Numba compiles the helpers one after another while it infers the top
function's types, which is most of a cold start (issue 13).  A plan records
that sequence, as a serial compile with an empty cache finished it, so that a
second process can compile the same helpers from the far end while this one
works from the near end (:mod:`montecarlo.compile_helper`); Numba's on-disk
cache carries each finished helper across.

A plan is a text file in ``montecarlo/data/compile_plans/`` named after its
kernel, with ``@variant`` after the name for a kernel compiled for more than
one signature (the battle kernel without its extras, ``@plain``): comment
lines, then one line per function, ``module.name(type, ...)``, the top kernel
first and then its helpers in completion order.  Types are written in Numba's
signature syntax (``int64``, ``float64[:, ::1]``, ``none``) plus ``literal(7)``
for an integer literal.  A plan is data, not code: a stale one
only makes the second process compile what nobody asks for.
``tests/test_compile_helper.py`` checks that the shipped plans are current;
``python -m montecarlo.compile_plan`` rewrites them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from numba.core import types

#: Where the shipped plans live (package data).
PLAN_DIR = Path(__file__).resolve().parent / "data" / "compile_plans"

#: Only these modules' functions go into a plan: Numba's own overloads
#: (``np.empty`` and the like) are not cached, so another process cannot share them.
KERNEL_PACKAGE = "kernels."

Signature = tuple[types.Type, ...]

#: The comment line that names the Numba, Python and platform a plan was recorded with.
TOOLCHAIN_LINE = "# recorded with numba "


@dataclass(frozen=True)
class Plan:
    """A top kernel's signature and its helpers, in the order a serial compile finished them.

    That order is a post-order of the call tree: the helpers compiled inside a
    helper's compile are the ``nested`` ones just before it.
    """

    top: str
    signature: Signature
    #: ``(name, signature, nested)``: ``nested`` counts the helpers compiled
    #: while this one compiled (its callees that were not compiled yet).
    helpers: tuple[tuple[str, Signature, int], ...]
    #: The plan's file name without ``.txt``: ``top``, or ``top@variant``.
    name: str = ""

    @property
    def path(self) -> Path:
        """Its shipped file."""
        return plan_path(self.name or self.top)


def qualified_name(dispatcher: Any) -> str:
    """``module.function`` of a Numba dispatcher (or of a plain function)."""
    func = getattr(dispatcher, "py_func", dispatcher)
    return f"{func.__module__}.{func.__qualname__}"


def plan_path(name: str) -> Path:
    """The shipped file of the plan ``name``: ``module.function`` or ``module.function@variant``."""
    return PLAN_DIR / f"{name}.txt"


def plan_top(name: str) -> str:
    """The kernel a plan name names: ``module.function``."""
    return name.partition("@")[0]


# --- types as text -------------------------------------------------------------

_ARRAY = re.compile(r"^(\w+)\[([:, 1]+)\]$")
_LITERAL = re.compile(r"^literal\((-?\d+)\)$")


def encode_type(t: types.Type) -> str:
    """One Numba type in the plan's syntax; ValueError for a type a plan cannot hold."""
    if isinstance(t, types.IntegerLiteral):
        return f"literal({t.literal_value})"
    if isinstance(t, types.Boolean):
        return "boolean"
    if isinstance(t, types.NoneType):
        return "none"
    if isinstance(t, types.Integer | types.Float):
        return str(t)
    if isinstance(t, types.Array) and t.mutable and t.aligned and t.layout in "CA":
        dims = [":"] * t.ndim
        if t.layout == "C":
            dims[-1] = "::1"
        return f"{encode_type(t.dtype)}[{', '.join(dims)}]"
    raise ValueError(f"a compile plan cannot hold the Numba type {t!r}")


def decode_type(text: str) -> types.Type:
    """The inverse of :func:`encode_type`; ValueError for text it did not write."""
    text = text.strip()
    if m := _LITERAL.match(text):
        return types.IntegerLiteral(int(m.group(1)))
    if m := _ARRAY.match(text):
        dtype, dims = decode_type(m.group(1)), [d.strip() for d in m.group(2).split(",")]
        if any(d != ":" for d in dims[:-1]) or dims[-1] not in (":", "::1"):
            raise ValueError(f"not an array type a compile plan writes: {text!r}")
        return types.Array(dtype, len(dims), "C" if dims[-1] == "::1" else "A")
    scalar = getattr(types, text, None)
    if isinstance(scalar, types.Integer | types.Float | types.Boolean | types.NoneType):
        return scalar
    raise ValueError(f"not a type a compile plan writes: {text!r}")


def _split_args(text: str) -> list[str]:
    """Split ``a, b[:, ::1], c`` at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:])
    return parts


def format_line(name: str, signature: Signature, nested: int | None = None) -> str:
    """``module.function(type, ...)``, then `` nested`` if given."""
    line = f"{name}({', '.join(encode_type(t) for t in signature)})"
    return line if nested is None else f"{line} {nested}"


def parse_line(line: str) -> tuple[str, Signature, int | None]:
    """The inverse of :func:`format_line`."""
    name, _, rest = line.strip().partition("(")
    args, closed, nested = rest.rpartition(")")
    if not name or not closed or (nested.strip() and not nested.strip().isdigit()):
        raise ValueError(f"not a compile-plan line: {line!r}")
    signature = tuple(decode_type(a) for a in _split_args(args))
    return name, signature, int(nested) if nested.strip() else None


# --- reading and writing --------------------------------------------------------


def format_plan(plan: Plan) -> str:
    """A plan file's text."""
    lines = [
        f"# Numba compile plan {plan.name or plan.top}: the kernel, then its helpers in the order",
        "# a serial compile with an empty cache finished them, each with the number of",
        "# helpers compiled inside its compile (montecarlo/compile_plan.py).",
        "# Written by `python -m montecarlo.compile_plan`; tests/test_compile_helper.py",
        "# checks that it is current.",
        f"{TOOLCHAIN_LINE}{toolchain()}",
        format_line(plan.top, plan.signature),
        *(format_line(*helper) for helper in plan.helpers),
    ]
    return "\n".join(lines) + "\n"


def toolchain() -> str:
    """What a plan's text depends on besides our code: Numba, Python and the platform.

    The types are Numba's (and NumPy's default integer is the platform's);
    the order in which helpers finish follows CPython's bytecode.
    """
    import numba

    python = ".".join(str(v) for v in sys.version_info[:2])
    return f"{numba.__version__} on Python {python}, {sys.platform}"


def recorded_with(text: str) -> str | None:
    """What a plan's text was recorded with (:func:`toolchain`), or None."""
    for line in text.splitlines():
        if line.startswith(TOOLCHAIN_LINE):
            return line[len(TOOLCHAIN_LINE) :].strip()
    return None


def parse_plan(text: str) -> Plan:
    """The inverse of :func:`format_plan`."""
    entries = [parse_line(x) for x in text.splitlines() if x.strip() and not x.startswith("#")]
    if not entries or entries[0][2] is not None or any(e[2] is None for e in entries[1:]):
        raise ValueError("not a compile plan: the kernel's line, then its helpers' lines")
    (top, signature, _), *helpers = entries
    return Plan(top, signature, tuple(helpers))  # type: ignore[arg-type]


def read_plan(name: str) -> Plan | None:
    """The shipped plan named ``name`` (see :func:`plan_path`), or None if missing or unreadable."""
    try:
        plan = parse_plan(plan_path(name).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return replace(plan, name=name)


def load_plan(kernel: Any, signature: Signature | None = None) -> Plan | None:
    """The shipped plan of ``kernel`` (a dispatcher) for ``signature``, or None.

    Without a signature, the kernel's main plan (the file named after it).
    None if there is no such plan or it is unreadable.
    """
    top = qualified_name(kernel)
    if signature is None:
        return read_plan(top)
    names = [top, *sorted(p.stem for p in PLAN_DIR.glob(f"{top}@*.txt"))]
    for name in names:
        plan = read_plan(name)
        if plan is not None and plan.signature == tuple(signature):
            return plan
    return None


def resolve(name: str) -> Any:
    """The function ``module.function`` names (imports the module)."""
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


# --- recording ----------------------------------------------------------------


def _compile_coe5_battle() -> None:
    import montecarlo as mc

    mc.matchup("pikeman:2", "knight:1", trials=16, seed=1, progress=False, threads=1,
               _whole_kernel=True)  # fmt: skip


def _compile_coe5_battle_plain() -> None:
    import montecarlo as mc

    mc.matchup("pikeman:2", "knight:1", trials=16, seed=1, progress=False, threads=1)


def _compile_sf_fight() -> None:
    from montecarlo import sf

    sf.fight("warrior:1", "goblin:1", trials=16, seed=1, progress=False, threads=1)


#: The plans, by name (see :func:`plan_top`), each with a small call that compiles its kernel.
TARGETS: dict[str, Callable[[], None]] = {
    "kernels.coe5_battle.run_chunks": _compile_coe5_battle,
    "kernels.coe5_battle.run_chunks@plain": _compile_coe5_battle_plain,  # without extras
    "kernels.sf_fight.run_fights": _compile_sf_fight,
}


def record(top: str, run: Callable[[], None]) -> Plan:
    """Run ``run`` and return the plan of the kernel ``top`` it compiles.

    Call it in a process whose Numba cache is empty (:func:`record_fresh`):
    a helper loaded from the cache is not compiled, so it would be missing.
    """
    from numba.core import event

    finished: list[tuple[str, Signature, int]] = []
    starts: list[int] = []  # len(finished) when each compile now under way began

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            starts.append(len(finished))

        def on_end(self, ev: event.Event) -> None:
            nested = len(finished) - starts.pop()
            name = qualified_name(ev.data["dispatcher"])
            if name.startswith(KERNEL_PACKAGE):
                finished.append((name, tuple(ev.data["args"]), nested))

    with event.install_listener("numba:compile", _Listener()):
        run()
    names = [name for name, _, _ in finished]
    if top not in names:
        raise RuntimeError(f"{top} was not compiled: was the Numba cache empty?")
    end = names.index(top)
    _, signature, nested = finished[end]
    return Plan(top, signature, tuple(finished[end - nested : end]))


def record_fresh(tops: Iterable[str]) -> dict[str, str]:
    """The plan texts of ``tops``, each recorded by a new process with an empty Numba cache.

    The processes run side by side (one cold compile each) and import this
    checkout.  No compile helper runs beside them: a plan is a serial compile's.
    """
    from montecarlo.compile_helper import SWITCH

    checkout = str(Path(__file__).resolve().parents[1])
    texts = {}
    with tempfile.TemporaryDirectory(prefix="montecarlo-plan-") as root:
        runs = {}
        for top in tops:
            env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(root, top), **{SWITCH: "0"})
            runs[top] = subprocess.Popen(
                [sys.executable, "-m", "montecarlo.compile_plan", "--print", top],
                env=env, cwd=checkout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
        for top, run in runs.items():
            out, err = run.communicate()
            if run.returncode != 0:
                raise RuntimeError(f"recording the plan of {top} failed:\n{err}")
            texts[top] = out
    return texts


def main(argv: list[str] | None = None) -> int:
    """Rewrite the shipped plans (each recorded by a fresh process), or print one."""
    p = argparse.ArgumentParser(prog="python -m montecarlo.compile_plan", description=__doc__)
    p.add_argument("--print", metavar="KERNEL", choices=TARGETS, help="record one plan to stdout")
    args = p.parse_args(argv)
    if args.print:
        plan = record(plan_top(args.print), TARGETS[args.print])
        sys.stdout.write(format_plan(replace(plan, name=args.print)))
        return 0
    PLAN_DIR.mkdir(exist_ok=True)
    for top, text in record_fresh(TARGETS).items():
        plan_path(top).write_text(text, encoding="utf-8")
        print(f"wrote {plan_path(top)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
