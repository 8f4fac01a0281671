"""Mutation runner: does every rule have a test that fails when its line changes?

Each mutation in a list (``tools/mutations/<ruleset>.toml``) is a one-line change
that breaks one rule of ``docs/rules.md`` the way a careless edit would.  The
runner applies the mutations one at a time to a temporary copy of the repository
(never to the working tree), runs the tests the mutation names, and counts it

* **killed** when a test fails (or the mutant no longer compiles or hangs), and
* **survived** when every test passes: the rule is not pinned by any test.

Numba caches compiled kernels per source file and does not notice when a module
that a kernel imports has changed.  So before each mutant the runner resets the
cache to the warm baseline *minus* the mutated kernel module and every kernel
module that imports it, directly or not: they recompile from the mutant, the
rest load from the cache.

This is a developer tool, not part of CI (each mutant recompiles a kernel);
CI only checks that every mutation in the lists still applies
(``tests/test_mutation_lists.py``).

Usage::

    python3 tools/mutate.py tools/mutations/coe5.toml
    python3 tools/mutate.py tools/mutations/sf.toml --rule S-4 --jobs 2
    python3 tools/mutate.py tools/mutations/coe5.toml --only C-8.11-clouds-never-clear
    python3 tools/mutate.py tools/mutations/coe5.toml --check   # validate only

A list's header may say ``ruleset = "coe5"`` (default: the file's stem) and
``blind = true`` with an ``author`` line: a list written blind, from
``docs/rules.md`` and the kernels alone, by someone who had not read ``tests/``.
A blind list samples rule sections rather than covering every leaf rule.

A mutation may carry ``also``: further edits of the same rule made in the same
mutant, for a rule written in two places (the two CoE5 battle kernels, or twice
in one file), so that no test comparing the two places can be what catches it;
edits of one file apply in turn::

    [[mutation]]
    id = "C-4.8-no-decay"
    ...
    also = [{ file = "kernels/coe5_battle_ref.py", find = "...", replace = "..." }]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEAF_RULES = Path(__file__).resolve().parent / "mutations" / "leaf_rules.toml"

#: pytest exit codes: 0 all passed, 1 some failed, 2 interrupted, 3 internal
#: error, 4 usage error, 5 no tests collected.
_PYTEST_NO_TESTS = 5


@dataclass(frozen=True)
class Edit:
    """Replace the one occurrence of ``find`` in ``file`` by ``replace``."""

    file: str
    find: str
    replace: str

    def apply(self, text: str) -> str:
        """Return ``text`` with the edit made (``find`` must occur once)."""
        return text.replace(self.find, self.replace, 1)


@dataclass(frozen=True)
class Mutation:
    """One one-line change that should break exactly one rule.

    ``also`` holds the same change where the rule is written a second time.
    """

    id: str
    rule: str
    file: str
    find: str
    replace: str
    tests: tuple[str, ...]
    why: str = ""
    also: tuple[Edit, ...] = ()

    def apply(self, text: str) -> str:
        """Return ``text`` with the main edit made (``find`` must occur once)."""
        return text.replace(self.find, self.replace, 1)

    @property
    def edits(self) -> tuple[Edit, ...]:
        """Every edit of this mutant, the main one first."""
        return (Edit(self.file, self.find, self.replace), *self.also)

    @property
    def section(self) -> str:
        """The rule section: ``C-4`` for ``C-4.8``, ``S-5`` for ``S-5``."""
        return self.rule.split(".")[0]


@dataclass
class MutationList:
    """A ruleset's mutations, the leaf rules it exempts, and its default tests."""

    path: Path
    ruleset: str
    default_tests: tuple[str, ...]
    exempt: dict[str, str]
    mutations: list[Mutation] = field(default_factory=list)
    blind: bool = False
    author: str = ""


@dataclass(frozen=True)
class Outcome:
    """What the tests said about one mutant."""

    mutation: Mutation
    status: str  # killed, killed (error), killed (timeout), survived, invalid
    seconds: float
    detail: str = ""

    @property
    def killed(self) -> bool:
        return self.status.startswith("killed")


def load(path: str | Path) -> MutationList:
    """Read a mutation list; raise ``ValueError`` naming the entry that is wrong."""
    path = Path(path)
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    default_tests = tuple(data.get("default_tests", ()))
    exempt = dict(data.get("exempt", {}))
    out = MutationList(
        path,
        data.get("ruleset", path.stem),
        default_tests,
        exempt,
        blind=bool(data.get("blind", False)),
        author=data.get("author", ""),
    )
    for i, entry in enumerate(data.get("mutation", [])):
        missing = [k for k in ("id", "rule", "file", "find", "replace") if k not in entry]
        if missing:
            raise ValueError(f"{path}: mutation #{i + 1} lacks {', '.join(missing)}")
        tests = tuple(entry.get("tests", default_tests))
        if not tests:
            raise ValueError(f"{path}: mutation {entry['id']!r} names no tests")
        also = []
        for extra in entry.get("also", ()):
            lacking = [k for k in ("file", "find", "replace") if k not in extra]
            if lacking:
                raise ValueError(
                    f"{path}: mutation {entry['id']!r}: an `also` edit lacks {', '.join(lacking)}"
                )
            also.append(Edit(extra["file"], extra["find"], extra["replace"]))
        out.mutations.append(
            Mutation(
                id=entry["id"],
                rule=entry["rule"],
                file=entry["file"],
                find=entry["find"],
                replace=entry["replace"],
                tests=tests,
                why=entry.get("why", ""),
                also=tuple(also),
            )
        )
    return out


def leaf_rules(ruleset: str) -> list[str]:
    """The leaf rule ids a ruleset's list must cover (``mutations/leaf_rules.toml``)."""
    with LEAF_RULES.open("rb") as fh:
        return list(tomllib.load(fh)[ruleset])


def problems(mlist: MutationList, root: Path = ROOT, coverage: bool = True) -> list[str]:
    """Everything that makes a list unusable (or, with ``coverage``, incomplete)."""
    out: list[str] = []
    seen: set[str] = set()
    leaves = set(leaf_rules(mlist.ruleset))
    for m in mlist.mutations:
        where = f"{mlist.path.name}: {m.id}"
        if m.id in seen:
            out.append(f"{where}: duplicate id")
        seen.add(m.id)
        if not m.id.startswith(m.rule):
            out.append(f"{where}: id should start with its rule id {m.rule}")
        if m.rule not in leaves and not (mlist.blind and _is_rule_id(m.rule, leaves)):
            out.append(f"{where}: {m.rule} is not a leaf rule id of {mlist.ruleset}")
        for edit in m.edits:
            if edit.find == edit.replace:
                out.append(f"{where}: find and replace are the same in {edit.file}")
            source = root / edit.file
            if not source.is_file():
                out.append(f"{where}: no file {edit.file}")
                continue
            count = source.read_text(encoding="utf-8").count(edit.find)
            if count != 1:
                out.append(
                    f"{where}: `find` occurs {count} times in {edit.file}, expected exactly once"
                )
        for test in m.tests:
            if not (root / test.split("::")[0]).exists():
                out.append(f"{where}: no test file {test.split('::')[0]}")
    if not coverage or mlist.blind:
        return out
    covered = {m.rule for m in mlist.mutations} | set(mlist.exempt)
    out.extend(
        f"{mlist.path.name}: leaf rule {rule} has no mutation and no exemption"
        for rule in sorted(leaves - covered, key=_rule_key)
    )
    out.extend(
        f"{mlist.path.name}: exempt rule {rule} is not a leaf rule id"
        for rule in sorted(set(mlist.exempt) - leaves, key=_rule_key)
    )
    return out


def _is_rule_id(rule: str, leaves: set[str]) -> bool:
    """``rule`` is written like an id of the same ruleset as ``leaves`` (``C-11.8.2``, ``S-5``).

    A blind list may cite rules that no list must cover yet (C-11 to C-13, the
    game's data, have no leaf list of their own).
    """
    prefixes = {leaf.split("-")[0] for leaf in leaves}
    head, _, number = rule.partition("-")
    return head in prefixes and bool(re.fullmatch(r"\d+(\.\d+)*", number))


def _rule_key(rule: str) -> tuple:
    """Sort C-3.10 after C-3.9."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[-.]", rule))


# --------------------------------------------------------------------------- #
# Kernel dependencies, for invalidating Numba's cache


_IMPORT = re.compile(r"^from kernels(?:\.(\w+))? import ([\w ,]+?)(?:\s*#.*)?$", re.M)


def kernel_importers(root: Path) -> dict[str, set[str]]:
    """Map each kernel module to the kernel modules that import it directly."""
    importers: dict[str, set[str]] = defaultdict(set)
    for path in (root / "kernels").glob("*.py"):
        for sub, names in _IMPORT.findall(path.read_text(encoding="utf-8")):
            if sub:
                importers[sub].add(path.stem)
            else:  # ``from kernels import coe5_layout as L, rng``
                for name in names.split(","):
                    importers[name.split(" as ")[0].strip()].add(path.stem)
    return importers


def affected_modules(file: str, importers: dict[str, set[str]]) -> set[str]:
    """The kernel module of ``file`` and every kernel module that imports it."""
    path = Path(file)
    if path.parts[0] != "kernels":
        return set()
    todo, seen = [path.stem], {path.stem}
    while todo:
        for parent in importers.get(todo.pop(), ()):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


# --------------------------------------------------------------------------- #
# Running


def _repo_files(root: Path) -> list[str]:
    """Tracked files and untracked files git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return [f for f in listed.split("\0") if f and (root / f).is_file()]


class Sandbox:
    """A private copy of the repository with its own warm Numba cache."""

    def __init__(self, root: Path, workdir: Path) -> None:
        self.tree = workdir / "tree"
        self.cache_base = workdir / "cache-base"
        self.cache = workdir / "cache"
        for rel in _repo_files(root):
            dest = self.tree / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, dest)
        self.importers = kernel_importers(self.tree)

    def env(self, cache: Path) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            PYTHONPATH=str(self.tree),
            NUMBA_CACHE_DIR=str(cache),
            PYTHONDONTWRITEBYTECODE="1",
            MPLBACKEND="Agg",
        )
        return env

    def pytest(self, tests: tuple[str, ...], cache: Path, timeout: float):
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
        return subprocess.run(
            cmd,
            cwd=self.tree,
            env=self.env(cache),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def warm(self, tests: tuple[str, ...], timeout: float) -> None:
        """Run the unmutated tests once: they must pass, and the cache gets warm."""
        done = self.pytest(tests, self.cache_base, timeout)
        if done.returncode != 0:
            tail = "\n".join(done.stdout.splitlines()[-15:])
            raise SystemExit(f"the unmutated tests fail, so no mutant can be judged:\n{tail}")

    def reset_cache(self, stale: set[str]) -> None:
        """The warm cache without the entries of the ``stale`` kernel modules."""
        shutil.rmtree(self.cache, ignore_errors=True)

        def ignore(directory: str, names: list[str]) -> list[str]:
            # Numba names entries "<module>.<function>-<line>.<python>.nbi/.nbc".
            return [n for n in names if n.split(".")[0] in stale]

        if self.cache_base.exists():
            shutil.copytree(self.cache_base, self.cache, ignore=ignore)

    def run(self, m: Mutation, timeout: float) -> Outcome:
        originals: dict[Path, tuple[str, os.stat_result]] = {}
        mutated: dict[Path, str] = {}
        for edit in m.edits:  # several edits of one file apply in turn
            source = self.tree / edit.file
            if source not in originals:
                originals[source] = (source.read_text(encoding="utf-8"), source.stat())
            text = mutated.get(source, originals[source][0])
            if originals[source][0].count(edit.find) != 1 or text.count(edit.find) != 1:
                return Outcome(m, "invalid", 0.0, f"`find` does not occur once in {edit.file}")
            mutated[source] = edit.apply(text)
        stale = set().union(*(affected_modules(e.file, self.importers) for e in m.edits))
        self.reset_cache(stale)
        start = time.perf_counter()
        try:
            for source, (_, stat) in originals.items():
                source.write_text(mutated[source], encoding="utf-8")
                # A distinct mtime, so nothing keyed on the source stamp sees the original.
                os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
            done = self.pytest(m.tests, self.cache, timeout)
        except subprocess.TimeoutExpired:
            return Outcome(m, "killed (timeout)", time.perf_counter() - start)
        finally:
            for source, (text, stat) in originals.items():
                source.write_text(text, encoding="utf-8")
                os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        seconds = time.perf_counter() - start
        last = (done.stdout.strip().splitlines() or [""])[-1]
        if done.returncode == 0:
            return Outcome(m, "survived", seconds, last)
        if done.returncode == 1:
            return Outcome(m, "killed", seconds, last)
        if done.returncode == _PYTEST_NO_TESTS:
            return Outcome(m, "invalid", seconds, "no tests collected")
        return Outcome(m, "killed (error)", seconds, last)


def run_all(
    mlist: MutationList, mutations: list[Mutation], jobs: int, timeout: float
) -> list[Outcome]:
    """Judge every mutant, ``jobs`` sandboxes side by side; print a line each."""
    union = tuple(dict.fromkeys(t for m in mutations for t in m.tests))
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        jobs = max(1, min(jobs, len(mutations)))
        boxes = [Sandbox(ROOT, Path(tmp) / f"box{i}") for i in range(jobs)]
        print(f"warming {jobs} sandbox(es) on {len(union)} test selection(s) ...", flush=True)
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            list(pool.map(lambda b: b.warm(union, timeout * 4), boxes))
        free = list(boxes)
        outcomes: list[Outcome] = []
        width = len(str(len(mutations)))

        def judge(m: Mutation) -> Outcome:
            box = free.pop()
            try:
                return box.run(m, timeout)
            finally:
                free.append(box)

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for i, out in enumerate(pool.map(judge, mutations), 1):
                outcomes.append(out)
                print(
                    f"[{i:>{width}}/{len(mutations)}] {out.status:<16} {out.mutation.id}"
                    f"  ({out.seconds:.1f} s)",
                    flush=True,
                )
    return outcomes


def section_rates(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    """Killed and run mutants per rule section, sections in rule order."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in outcomes:
        counts[o.mutation.section][0] += o.killed
        counts[o.mutation.section][1] += 1
    return {s: (k, m) for s, (k, m) in sorted(counts.items(), key=lambda kv: _rule_key(kv[0]))}


def report(mlist: MutationList, outcomes: list[Outcome]) -> str:
    """A Markdown summary: kill rate, rules, survivors."""
    killed = sum(o.killed for o in outcomes)
    n = len(outcomes)
    rate = 100.0 * killed / n if n else 0.0
    lines = [f"# Mutation run: {mlist.path.name}", ""]
    if mlist.blind:
        lines += [f"Written blind: {mlist.author or 'without reading tests/'}.", ""]
    lines += [
        f"**{killed} of {n} mutants killed ({rate:.1f}%)**, "
        f"{len({o.mutation.rule for o in outcomes})} rule ids, "
        f"{sum(o.seconds for o in outcomes):.0f} s of tests.",
        "",
        "| section | killed | of | rate |",
        "|---|---:|---:|---:|",
    ]
    for section, (k, m) in section_rates(outcomes).items():
        lines.append(f"| {section} | {k} | {m} | {100.0 * k / m:.0f}% |")
    lines += [
        "",
        "| mutation | rule | status | seconds |",
        "|---|---|---|---:|",
    ]
    lines += [
        f"| {o.mutation.id} | {o.mutation.rule} | {o.status} | {o.seconds:.1f} |" for o in outcomes
    ]
    survivors = [o for o in outcomes if not o.killed]
    if survivors:
        lines += ["", "## Not killed", ""]
        lines += [
            f"- `{o.mutation.id}` ({o.status}): {o.mutation.why or o.detail}" for o in survivors
        ]
    if mlist.exempt:
        lines += ["", "## Exempt leaf rules", ""]
        lines += [f"- {rule}: {why}" for rule, why in sorted(mlist.exempt.items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="+", type=Path, help="mutation list(s), TOML")
    parser.add_argument("--only", nargs="+", default=(), metavar="ID", help="run these ids")
    parser.add_argument("--rule", default="", help="run the mutations of rule ids with this prefix")
    parser.add_argument("--jobs", type=int, default=1, help="sandboxes side by side (default 1)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant")
    parser.add_argument("--check", action="store_true", help="only validate the lists")
    parser.add_argument(
        "--report", type=Path, help="write the Markdown summary here (default: next to the list)"
    )
    args = parser.parse_args(argv)

    status = 0
    for path in args.lists:
        mlist = load(path)
        # A list being written may leave rules uncovered; it can still be run.
        issues = problems(mlist, coverage=args.check)
        for line in issues:
            print(f"problem: {line}", file=sys.stderr)
        if issues:
            status = 2
            continue
        for line in problems(mlist)[len(issues) :] if not args.check else ():
            print(f"note: {line}", file=sys.stderr)
        if args.check:
            scope = "a blind list, sampling sections" if mlist.blind else "every leaf rule covered"
            print(f"{path}: {len(mlist.mutations)} mutations, all apply; {scope}")
            continue
        chosen = [
            m
            for m in mlist.mutations
            if (not args.only or m.id in args.only) and m.rule.startswith(args.rule)
        ]
        if not chosen:
            print(f"{path}: no mutation matches", file=sys.stderr)
            status = 2
            continue
        outcomes = run_all(mlist, chosen, args.jobs, args.timeout)
        text = report(mlist, outcomes)
        target = args.report or path.parent / "results" / f"{mlist.ruleset}.md"
        if len(chosen) == len(mlist.mutations) or args.report:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"report: {target}")
        print(text.splitlines()[2])
        if any(not o.killed for o in outcomes):
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
