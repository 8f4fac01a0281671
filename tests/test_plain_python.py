"""The kernels run as plain Python too (``NUMBA_DISABLE_JIT=1``), battle for battle the same.

The benchmarks time the very same kernel code as plain Python for their
"÷ Python" columns, and a kernel is easiest to debug that way; the Numba-only
pieces (``kernels/borrow.py``, ``kernels/bits.py``) have plain-Python twins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from montecarlo.coe5.battle import matchup
from montecarlo.sf.fights import fight

ROOT = Path(__file__).resolve().parents[1]

# Archers on the default grid: the bitset searches of kernels/coe5_battle.py.
BATTLE = ("militia:30,archer:20", "heavy infantry:30,archer:20", 4)
FIGHT = ("warrior:1,knight:1,archer:1,mage:1", "goblin:2,orc:1,wolf:1", 16)

CODE = f"""
import json
from montecarlo.coe5.battle import matchup
from montecarlo.sf.fights import fight
b = matchup(*{BATTLE[:2]!r}, trials={BATTLE[2]}, seed=3, progress=False, keep_trials=True)
f = fight(*{FIGHT[:2]!r}, trials={FIGHT[2]}, seed=3, progress=False, keep_trials=True)
print(json.dumps([b.trials.outcome.tolist(), b.trials.rounds.tolist(), b.trials.dealt.tolist(),
                  f.trials["outcome"].tolist(), f.trials["rounds"].tolist()]))
"""


def test_plain_python_plays_the_compiled_battles():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", CODE], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    plain = json.loads(out.strip().splitlines()[-1])
    b = matchup(*BATTLE[:2], trials=BATTLE[2], seed=3, progress=False, keep_trials=True)
    f = fight(*FIGHT[:2], trials=FIGHT[2], seed=3, progress=False, keep_trials=True)
    compiled = [b.trials.outcome.tolist(), b.trials.rounds.tolist(), b.trials.dealt.tolist(),
                f.trials["outcome"].tolist(), f.trials["rounds"].tolist()]  # fmt: skip
    assert plain == compiled
    assert max(compiled[1]) > 5  # battles long enough to exercise the searches
