"""Where a big battle's time goes: the battle kernel's phases timed with the cycle counter.

``python tools/battle_phases.py [--trials 96]`` copies the checkout to a
temporary folder, adds ``llvm.readcyclecounter`` reads around the phases of
``kernels/coe5_battle.py``'s round (movement, attack keys and their sort,
attacks, ongoing effects) and around each attack's target search, and plays
militia:150,archer:50 against heavy infantry:150,archer:50 on 30×40 with one
thread.  It prints each phase's share of the counted cycles and the cycles per
call of the target searches.  The working tree is never changed.

The reads cost some 20–30 cycles each, so the per-call figures are a little
high; the shares are what the README's "where the time goes" quotes.  The
edits find their places by text: if the kernel has moved on, the tool says
which anchor it could not find.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CYCLES = """
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def cycles(typingctx):
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=fnty)
        return builder.call(fn, [])

    return types.int64(), codegen
"""

_I = " " * 12  # the round loop's indentation in run_chunks

#: (anchor, text, before): insert ``text`` before (or after) the one line that starts with anchor.
EDITS = [
    ("from kernels.jit import helper", "from kernels.cycles import cycles\n", False),
    ("    for trial in range(c0 * chunk", "    tm = np.zeros(8, np.int64)\n", True),
    ("            stale[:] = 1  # deaths", "            _t0 = cycles()\n", True),
    ("            # 5. fear", "            tm[0] += cycles() - _t0\n", True),
    ("            # 6-7. attack order", "            _t1 = cycles()\n", True),
    (_I + "# 8. attacks", f"{_I}tm[1] += cycles() - _t1\n{_I}_t2 = cycles()\n", True),
    (_I + "# 9-10. ongoing", f"{_I}tm[2] += cycles() - _t2\n{_I}_t3 = cycles()\n", True),
    ("            a, b = _side_counts(iside, state)\n            rounds = rnd",
     "            tm[3] += cycles() - _t3\n", True),
]  # fmt: skip

PICK = "                    j, far = _pick_target(s, i, w, atk_slot[e], rnd,"
PHASES = ["movement", "attack keys and sort", "attacks", "ongoing effects (steps 9-10)"]


def instrument(source: str) -> str:
    """The battle kernel's source with the cycle counts added (ValueError if an anchor is gone)."""
    for anchor, text, before in EDITS:
        at = source.find("\n" + anchor)
        if at < 0 or source.find("\n" + anchor, at + 1) >= 0:
            raise ValueError(f"kernels/coe5_battle.py: no single line starting {anchor!r}")
        at += 1
        if not before:
            at = source.index("\n", at) + 1
        source = source[:at] + text + source[at:]
    at = source.find(PICK)
    if at < 0:
        raise ValueError(f"kernels/coe5_battle.py: no line starting {PICK.strip()!r}")
    end = source.index("# fmt: skip\n", at) + len("# fmt: skip\n")
    ranged = "(W[L.W_RANGE, w] > 1)"
    source = (source[:at] + "                    _t5 = cycles()\n" + source[at:end]
              + f"                    tm[4 + {ranged}] += cycles() - _t5\n"
              + f"                    tm[6 + {ranged}] += 1\n" + source[end:])  # fmt: skip
    record = "                _copy(t_debug[trial, i], dbg[i])\n"
    at = source.index(record) + len(record)
    return (
        source[:at]
        + "    print(tm[0], tm[1], tm[2], tm[3], tm[4], tm[5], tm[6], tm[7])\n"
        + (source[at:])
    )


PLAY = """
import numba
numba.set_num_threads(1)
from montecarlo.coe5.battle import matchup
matchup("militia:150,archer:50", "heavy infantry:150,archer:50", trials={trials}, seed=1,
        threads=1, progress=False, width=30, length=40)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=96, help="battles to time (default 96)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.nb*"))
        kernel = tree / "kernels" / "coe5_battle.py"
        try:
            kernel.write_text(instrument(kernel.read_text()))
        except ValueError as err:
            print(f"battle_phases: {err}", file=sys.stderr)
            return 2
        (tree / "kernels" / "cycles.py").write_text(CYCLES)
        env = dict(
            os.environ,
            PYTHONPATH=str(tree),
            NUMBA_CACHE_DIR=str(Path(tmp) / "cache"),
        )
        done = subprocess.run([sys.executable, "-c", PLAY.format(trials=args.trials)], env=env,
                              cwd=tree, capture_output=True, text=True, check=True)  # fmt: skip
    counts = [int(v) for v in done.stdout.split()[-8:]]
    total = sum(counts[:4])
    print(f"{args.trials} battles, {total / args.trials / 1e6:.2f} million counted cycles each")
    for name, c in zip(PHASES, counts[:4], strict=True):
        print(f"  {name:30s} {100 * c / total:5.1f}%")
    for name, c, n in (("melee", counts[4], counts[6]), ("ranged", counts[5], counts[7])):
        print(f"  {name} target searches: {n:,} calls, {c / max(n, 1):.0f} cycles each, "
              f"{100 * c / total:.1f}% of the total")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
