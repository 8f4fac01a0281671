"""Battles per second of the CoE5 battle kernel (issue: CoE5 battles).

For three scenarios, in one run: the kernel compiled at 1 and at all threads,
and the very same kernel as plain Python (``NUMBA_DISABLE_JIT=1`` in a
subprocess, on a small trial count).  Also times ``precision=0.005`` on
10 militia vs 3 knights.  Writes ``benchmarks/results/battle.md``.
Run: ``python benchmarks/bench_battle.py``.

With ``--baseline DIR`` (another checkout, e.g. ``main``'s) it also times that
tree's kernel on one thread, in a subprocess, alternating with this one, and
reports the ratio: a before/after check in the same run on the same machine.

Issue 13 (``--index`` runs only this part and rewrites only its section of
``results/battle.md``): battles per second of the indexed kernel against the
reference kernel (``kernels/coe5_battle_ref.py``, the scan of every unit) in
the same process; time per battle against army size at a fixed density with a
log-log fit of the growth (whole battles, and battles cut at a fixed number of
rounds); the cost of one ``seed_trial`` (the per-battle
stream of issue 12) as a share of a battle; and the cold and warm start of
``montecarlo matchup pikeman:10 knight:3 --trials 2000`` as whole processes,
cold with a fresh ``NUMBA_CACHE_DIR``, for this tree and for ``--baseline``.

``--origin DIR`` (a checkout of the kernel before issue 13, 8478192) also times
that tree's cold and warm start in the same turns.  The issue set its ≤ 10 s
and ≤ 0.8 s targets on a machine where that kernel took 26 s and 1.7 s; the
ratio of the two trees measured here is the same-run form of those targets
(cold ≤ 10/26 of the kernel before, warm ≤ 0.8/1.7), which does not depend on
how fast the machine of the run is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
from _common import RESULTS, plain_python_rate, write_table

from kernels.rng import seed_trial
from montecarlo.coe5.battle import BattleRules, matchup

SCENARIOS = [
    ("pikeman vs pikeman, 1v1", "pikeman:1", "pikeman:1", 400_000, 40),
    ("10 militia vs 3 knights", "militia:10", "knight:3", 100_000, 20),
    (
        "mixed 50 vs 50 with archers",
        "militia:30,archer:20",
        "heavy infantry:30,archer:20",
        8_000,
        2,
    ),
]  # trials: about a second on one thread, so the paced calls reach their size


def rate(att: str, dfd: str, trials: int, threads: int) -> float:
    matchup(att, dfd, trials=256, seed=0, threads=threads, progress=False)  # warm up
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        matchup(att, dfd, trials=trials, seed=1, threads=threads, progress=False)
        best = min(best, time.perf_counter() - t0)
    return trials / best


def baseline_rate(tree: str, att: str, dfd: str, trials: int) -> float:
    """One-thread battles per second of the kernel in checkout ``tree`` (best of 2)."""
    code = (
        "import json, time\n"
        "from montecarlo.coe5.battle import matchup\n"
        f"matchup({att!r}, {dfd!r}, trials=256, seed=0, threads=1, progress=False)\n"
        "best = float('inf')\n"
        "for _ in range(2):\n"
        "    t0 = time.perf_counter()\n"
        f"    matchup({att!r}, {dfd!r}, trials={trials}, seed=1, threads=1, progress=False)\n"
        "    best = min(best, time.perf_counter() - t0)\n"
        f"print(json.dumps({trials} / best))\n"
    )
    env = dict(os.environ, PYTHONPATH=tree, PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def python_rate(att: str, dfd: str, trials: int) -> float:
    call = f"matchup({att!r}, {dfd!r}, trials=trials, seed=1, progress=False)"
    return plain_python_rate("from montecarlo.coe5.battle import matchup", call, trials)


#: (name, attacker, defender, trials, options, target ratio) for issue 13.  Both
#: kernels play the same trials: about 0.4 s of the reference kernel.
INDEX_CASES = [
    ("1v1 pikemen", "pikeman:1", "pikeman:1", 40_000, {}, 2.0),
    ("10 militia v 3 knights", "militia:10", "knight:3", 8_000, {}, None),
    ("50v50 with archers", "militia:30,archer:20", "heavy infantry:30,archer:20", 500, {},
     2.0),
    ("70v70 on 20x30", "militia:50,archer:20", "pikeman:50,archer:20", 256,
     {"width": 20, "length": 30}, None),
    ("200v200 on 30x40", "militia:150,archer:50", "heavy infantry:150,archer:50", 48,
     {"width": 30, "length": 40}, 10.0),
]  # fmt: skip


def _timing(att: str, dfd: str, trials: int, reference: bool, **options) -> Callable[[], float]:
    """One timing of the indexed or the reference kernel, on one thread: seconds a battle.

    Seed 1 for both kernels: the very same battles (``tests/test_coe5_indexed.py``).
    A timing repeats the call until it lasts ``MIN_TIMING`` seconds, so that a
    fast kernel on few battles is not a timer's or a context switch's figure.
    """
    run = lambda n: matchup(att, dfd, trials=n, seed=1, threads=1, progress=False,  # noqa: E731
                            _reference=reference, **options)  # fmt: skip
    run(8)  # compiled, and the page faults of the work arrays taken
    t0 = time.perf_counter()
    run(trials)
    calls = max(1, int(MIN_TIMING / (time.perf_counter() - t0)))

    def timing() -> float:
        t0 = time.perf_counter()
        for _ in range(calls):
            run(trials)
        return (time.perf_counter() - t0) / (calls * trials)

    return timing


def kernel_rates(att: str, dfd: str, trials: int, ref_trials: int | None = None,
                 **options) -> tuple[float, float]:  # fmt: skip
    """One-thread battles per second of the reference and the indexed kernel.

    The two kernels' timings take turns, ``TIMING_TURNS`` of each, and each
    kernel's best counts: a quiet or a busy spell of a shared machine falls on
    both, so their ratio is steadier than that of timings made one kernel
    after the other.  ``ref_trials`` battles a call for the reference (default
    ``trials``).
    """
    ref = _timing(att, dfd, ref_trials or trials, True, **options)
    fast = _timing(att, dfd, trials, False, **options)
    best_ref = best_fast = float("inf")
    for _ in range(TIMING_TURNS):
        best_ref = min(best_ref, ref())
        best_fast = min(best_fast, fast())
    return 1 / best_ref, 1 / best_fast


#: Seconds a timing of :func:`_timing` lasts at least.
MIN_TIMING = 0.25

#: Timings of each kernel in :func:`kernel_rates`, taking turns.
TIMING_TURNS = 7


CLI = ["-m", "montecarlo", "matchup", "pikeman:10", "knight:3", "--trials", "2000"]


def cli_seconds(tree: str, cache_dir: str, helper: bool = True) -> float:
    """Wall time of the matchup command as a whole process, run from checkout ``tree``.

    ``helper=False`` switches off the compile-helper process of the trees that
    still have one (before the one-engine issue); this tree has none, and
    ignores the variable.
    """
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONWARNINGS="ignore", PYTHONPATH=tree)
    env["MONTECARLO_COMPILE_HELPER"] = "1" if helper else "0"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *CLI], env=env, cwd=tree, check=True, capture_output=True)
    return time.perf_counter() - t0


def _commit(tree: str) -> str:
    """The short commit id checked out in ``tree``, or "?" outside git."""
    done = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)  # fmt: skip
    return done.stdout.strip() or "?"


#: The issue's figures for the kernel before it (8478192) on the machine it set its
#: targets on (issue 13): cold and warm start of the matchup command, seconds.
ISSUE_BEFORE = {"cold": 26.0, "warm": 1.7}
#: Its targets for the cold and warm start, seconds, on that machine.
TARGETS = {"cold": 10.0, "warm": 0.8}

#: Cold starts per tree, taken in turns across the trees: the machine's speed
#: drifts by several per cent within minutes, more than some differences measured.
COLD_RUNS = 3


def cold_start(tree: str, helper: bool = True) -> float:
    """One cold start of ``tree``: a fresh Numba cache directory.

    The tree's own ``__pycache__`` Numba files are removed first, so the run
    compiles everything its command needs.  ``helper`` as in :func:`cli_seconds`.
    """
    for pattern in ("*.nbi", "*.nbc"):
        for f in Path(tree).rglob(pattern):
            f.unlink()
    cache = tempfile.mkdtemp(prefix="mc-cold-")
    try:
        return cli_seconds(tree, cache, helper)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def warm_start(tree: str, helper: bool = True) -> float:
    """Best of 3 warm starts of ``tree``, after one run that fills a fresh cache."""
    cache = tempfile.mkdtemp(prefix="mc-warm-")
    try:
        cli_seconds(tree, cache, helper)
        return min(cli_seconds(tree, cache, helper) for _ in range(3))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


@numba.njit(cache=True)
def _seed_loop(key, n, s):
    acc = np.uint64(0)
    for t in range(n):
        seed_trial(key, t, s)
        acc ^= s[0]
    return acc


def seed_trial_seconds() -> float:
    """Seconds per call of ``kernels.rng.seed_trial`` (best of 5 loops of 10⁶)."""
    key = np.array([1, 2, 3, 4], np.uint64)
    s = np.empty(4, np.uint64)
    n = 1_000_000
    _seed_loop(key, 10, s)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        _seed_loop(key, n, s)
        best = min(best, time.perf_counter() - t0)
    return best / n


#: Militia a side for the growth tables; grids of about 3 tiles per unit.
GROWTH_SIZES = (10, 25, 50, 100, 200, 400)
#: Rounds of the fixed-length series (C-8.11 ``max_rounds``): from 25 a side on every
#: battle runs them all; at 10 a side about one in eight ends sooner (mean 9.9 rounds).
FIXED_ROUNDS = 10


def _density_grid(n: int) -> tuple[int, int]:
    """A width × length grid of about 3 tiles per unit for n units a side."""
    width = max(4, round((6 * n / 1.5) ** 0.5))
    return width, max(8, round(6 * n / width))


def _growth_trials(n: int) -> int:
    """Battles of n a side to time: about 0.15 s of the indexed kernel, so that the
    fixed cost of a ``matchup`` call (a few ms) stays out of the per-battle figure."""
    return max(16, round(200_000 / n**1.5))


def _fit(sizes: list[int], values: list[float]) -> float:
    """The exponent k of a least-squares fit values ∝ sizes^k on log-log axes."""
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def _militia_ms(n: int, **rules: object) -> tuple[float, float, dict]:
    """Milliseconds per battle of n militia a side at a fixed density: indexed, reference.

    Also returns the matchup options used (grid, and ``rules`` when given).
    """
    width, length = _density_grid(n)
    trials = _growth_trials(n)
    opts: dict = {"width": width, "length": length, **rules}
    army = f"militia:{n}"
    ref_rate, fast_rate = kernel_rates(army, army, trials, max(4, trials // 2), **opts)
    fast, ref = 1e3 / fast_rate, 1e3 / ref_rate
    return fast, ref, opts


def growth_lines() -> list[str]:
    """Time per battle against army size at a fixed density: whole battles, and fixed rounds.

    Whole battles last longer as the armies grow (the grid's sides grow as √n,
    and the armies must meet), so the cost per unit and round is the kernel's
    own growth.  The second table cuts every battle at ``FIXED_ROUNDS`` rounds
    (from 25 a side on, all of them reach it), which holds the battle's length fixed and shows
    the cost per battle directly.
    """
    lines = [
        "Time per battle against army size, militia against militia at a fixed density "
        "(about 3 tiles per unit), whole battles:",
        "",
        "| units a side | grid | indexed ms/battle | reference ms/battle | ratio | "
        "mean rounds | indexed µs per unit-round | reference µs per unit-round |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    sizes = list(GROWTH_SIZES)
    t_fast, t_ref, u_fast, u_ref, mean_rounds = [], [], [], [], []
    for n in sizes:
        fast, ref, opts = _militia_ms(n)
        army = f"militia:{n}"
        battles = matchup(army, army, trials=_growth_trials(n), seed=1, progress=False, **opts)
        rounds = battles.rounds_mean()[0]
        width, length = opts["width"], opts["length"]
        t_fast.append(fast)
        t_ref.append(ref)
        mean_rounds.append(rounds)
        u_fast.append(fast * 1e3 / (2 * n * rounds))
        u_ref.append(ref * 1e3 / (2 * n * rounds))
        lines.append(f"| {n} | {width}×{length} | {fast:.3f} | {ref:.3f} | {ref / fast:.2f}× | "
                     f"{rounds:.1f} | {u_fast[-1]:.3f} | {u_ref[-1]:.3f} |")  # fmt: skip
        print(lines[-1], flush=True)
    lines += [
        "",
        f"Log-log fit, time per battle ∝ n^k: indexed k = {_fit(sizes, t_fast):.2f}, reference "
        f"k = {_fit(sizes, t_ref):.2f}.  Battles last longer as armies grow (the rounds "
        f"column, ∝ n^{_fit(sizes, mean_rounds):.2f}): per "
        f"unit and round the indexed kernel's time grows as n^{_fit(sizes, u_fast):.2f}, "
        f"the reference's as n^{_fit(sizes, u_ref):.2f}.",
        "",
        f"The same armies and grids, every battle cut at {FIXED_ROUNDS} rounds "
        f"(`BattleRules(max_rounds={FIXED_ROUNDS})`, C-8.11), so a battle's length does not "
        "grow with the armies (target: about linear, k ≈ 1):",
        "",
        "| units a side | grid | indexed ms/battle | reference ms/battle | ratio |",
        "|---:|---|---:|---:|---:|",
    ]
    rules = BattleRules(max_rounds=FIXED_ROUNDS)
    c_fast, c_ref = [], []
    for n in sizes:
        fast, ref, opts = _militia_ms(n, rules=rules)
        c_fast.append(fast)
        c_ref.append(ref)
        lines.append(f"| {n} | {opts['width']}×{opts['length']} | {fast:.3f} | {ref:.3f} | "
                     f"{ref / fast:.2f}× |")  # fmt: skip
        print(lines[-1], flush=True)
    lines += [
        "",
        f"Log-log fit at {FIXED_ROUNDS} rounds: indexed k = {_fit(sizes, c_fast):.2f}, "
        f"reference k = {_fit(sizes, c_ref):.2f}.",
    ]
    return lines


def index_section(baseline: str | None, origin: str | None = None) -> list[str]:
    """Issue 13: indexed against reference, growth, per-battle streams, cold and warm start."""
    lines = [
        INDEX_TITLE,
        "",
        "Indexed kernel against the reference kernel (scan of every unit, "
        "`kernels/coe5_battle_ref.py`), one thread, same process, the same battles (seed 1), "
        f"best of {TIMING_TURNS} timings of at least {MIN_TIMING:g} s each, the two kernels "
        "taking turns:",
        "",
        "| scenario | reference battles/s | indexed battles/s | ratio | target | "
        "seed_trial share |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    per_seed = seed_trial_seconds()
    for name, att, dfd, trials, options, target in INDEX_CASES:
        ref, fast = kernel_rates(att, dfd, trials, **options)
        want = f"≥ {target:g}×" if target else ""
        share = per_seed * fast
        lines.append(f"| {name} | {ref:,.0f} | {fast:,.0f} | {fast / ref:.2f}× | {want} | "
                     f"{share * 100:.2g}% |")  # fmt: skip
        print(lines[-1], flush=True)
    lines += [
        "",
        f"`seed_trial` (each battle's own stream, issue 12) costs {per_seed * 1e9:.0f} ns a "
        "call in a Numba loop; the last column is that as a share of one indexed battle.",
        "",
    ]
    lines += growth_lines()
    lines += [
        "",
        f"`montecarlo {' '.join(CLI[2:])}` as a whole process: cold start with a fresh "
        f"`NUMBA_CACHE_DIR` (target ≤ 10 s; {COLD_RUNS} runs, the trees taking turns), "
        "warm start best of 3 (target ≤ 0.8 s):",
        "",
        "| tree | cold starts | median | warm start |",
        "|---|---:|---:|---:|",
    ]
    here = str(Path(__file__).resolve().parents[1])
    trees = []
    if origin:
        trees.append((f"before issue 13 (`{origin}` at {_commit(origin)})", origin, True))
    if baseline:
        trees.append((f"before (`{baseline}` at {_commit(baseline)})", baseline, True))
    trees.append(("this tree (one process)", here, False))
    colds = [[] for _ in trees]
    for _ in range(COLD_RUNS):
        for runs, (_, tree, helper) in zip(colds, trees, strict=True):
            runs.append(cold_start(tree, helper))
    measured = []  # (cold median, warm) of each tree
    for runs, (label, tree, helper) in zip(colds, trees, strict=True):
        each = ", ".join(f"{c:.1f}" for c in runs)
        measured.append((statistics.median(runs), warm_start(tree, helper)))
        lines.append(f"| {label} | {each} s | {measured[-1][0]:.1f} s | "
                     f"{measured[-1][1]:.2f} s |")  # fmt: skip
        print(lines[-1], flush=True)
    lines.append("")
    if origin:
        lines += scaled_targets(*measured[0], *measured[-1])
        lines.append("")
    lines.append(f"Machine load (1-minute average) at the end: {os.getloadavg()[0]:.1f}.")
    return lines


def scaled_targets(before_cold: float, before_warm: float, cold: float, warm: float) -> list[str]:
    """The cold and warm start targets as ratios to the kernel before issue 13, run alongside.

    The issue set ≤ 10 s and ≤ 0.8 s where the kernel before took 26 s and
    1.7 s (``ISSUE_BEFORE``): as ratios to that kernel measured in the same run,
    they hold on any machine.  The lines say both: the ratios, and the targets
    in this machine's seconds.
    """
    lines = [
        "The same-run form of the cold and warm start targets: the issue set them where the "
        f"kernel before it took {ISSUE_BEFORE['cold']:g} s and {ISSUE_BEFORE['warm']:g} s; "
        f"here it took {before_cold:.1f} s and {before_warm:.2f} s "
        f"(this machine ×{before_cold / ISSUE_BEFORE['cold']:.2f} and "
        f"×{before_warm / ISSUE_BEFORE['warm']:.2f} at this work).",
        "",
        "| start | this tree | kernel before | ratio | target ratio | "
        "target in this machine's seconds | met |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for what, ours, before in (("cold", cold, before_cold), ("warm", warm, before_warm)):
        ratio = TARGETS[what] / ISSUE_BEFORE[what]
        met = "yes" if ours / before <= ratio else "no"
        lines.append(f"| {what} | {ours:.2f} s | {before:.2f} s | {ours / before:.3f} | "
                     f"≤ {ratio:.3f} | ≤ {ratio * before:.2f} s | {met} |")  # fmt: skip
        print(lines[-1], flush=True)
    return lines


INDEX_TITLE = "## Issue 13: indexed battle kernel, growth, cold start"


def write_index_section(lines: list[str]) -> None:
    """Replace the issue 13 section of ``results/battle.md`` and keep the rest."""
    path = RESULTS / "battle.md"
    text = path.read_text() if path.exists() else ""
    head = text.split(INDEX_TITLE)[0].rstrip("\n")
    write_table("battle", [head, "", *lines] if head else lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout to compare with, one thread")
    parser.add_argument("--origin", help="a checkout of the kernel before issue 13 (8478192): "
                        "the cold and warm start targets as same-run ratios")  # fmt: skip
    parser.add_argument("--index", action="store_true",
                        help="only the issue 13 part: indexed against reference")  # fmt: skip
    args = parser.parse_args()
    if args.index:
        write_index_section(index_section(args.baseline, args.origin))
        return
    all_threads = numba.config.NUMBA_NUM_THREADS
    lines = [
        f"CoE5 battles per second (best of 2); {all_threads} threads available.",
        "",
        "| scenario | plain Python | Numba, 1 thread | Numba, all threads | "
        "÷ Python | thread scaling |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    versus = [
        "",
        f"Against the baseline checkout `{args.baseline}`, one thread, alternating runs:",
        "",
        "| scenario | baseline | this tree | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, att, dfd, trials, py_trials in SCENARIOS:
        py = python_rate(att, dfd, py_trials)
        one = rate(att, dfd, trials, 1)
        many = rate(att, dfd, trials, all_threads)
        lines.append(
            f"| {name} | {py:,.1f} | {one:,.0f} | {many:,.0f} | {many / py:,.0f}× | "
            f"{many / one:.2f}× |"
        )
        print(lines[-1], flush=True)
        if args.baseline:
            base = max(baseline_rate(args.baseline, att, dfd, trials) for _ in range(2))
            ours = max(one, rate(att, dfd, trials, 1))
            versus.append(f"| {name} | {base:,.0f} | {ours:,.0f} | {ours / base:.2f}× |")
            print(versus[-1], flush=True)
    t0 = time.perf_counter()
    r = matchup("militia:10", "knight:3", precision=0.005, seed=1, progress=False)
    elapsed = time.perf_counter() - t0
    t0 = time.perf_counter()
    r2 = matchup("pikeman:10", "knight:3", precision=0.005, seed=1, progress=False)
    elapsed2 = time.perf_counter() - t0
    t0 = time.perf_counter()
    r3 = matchup("pikeman:1", "pikeman:1", precision=0.005, seed=1, progress=False)
    elapsed3 = time.perf_counter() - t0
    lines += [
        "",
        f"- `precision=0.005`, pikeman vs pikeman (a coin flip, the costliest case): "
        f"{r3.n:,} battles in {elapsed3:.2f} s.",
        f"- `precision=0.005`, 10 militia vs 3 knights: {r.n:,} battles in {elapsed:.2f} s "
        f"(attacker wins {r.win_rate:.2%}).",
        f"- `precision=0.005`, 10 pikemen vs 3 knights: {r2.n:,} battles in {elapsed2:.2f} s "
        f"(attacker wins {r2.win_rate:.2%}).",
        "- Targets: ≥ 100× plain Python on every scenario; ≥ 1.7× thread scaling.",
    ]
    if args.baseline:
        lines += versus
    write_table("battle", [*lines, "", *index_section(args.baseline, args.origin)])


if __name__ == "__main__":
    main()
