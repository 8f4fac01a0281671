"""The Numba fence: internals only on the tested versions, and a public path that plays the same.

``kernels/numba_fence.py`` holds every use of Numba's internals.  Off the tested
versions (or with ``MONTECARLO_NUMBA_INTERNALS=0``) the kernels compile through
Numba's public API only; here a fresh process does that, with a cache of its
own, and must play the very same battles and fights as this process.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
from numba import njit

from kernels import numba_fence

ROOT = Path(__file__).resolve().parent.parent

#: Battles with and without extras (a siege with archers takes the whole kernel) and an
#: SF fight, reduced to digests of every per-trial record.
PLAY = """
import hashlib, json
import numpy as np
import montecarlo as mc
from kernels import numba_fence

def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return h.hexdigest()

plain = mc.matchup("militia:10", "knight:3", trials=300, seed=5, keep_trials=True,
                   progress=False)
siege = mc.matchup("archer:6,militia:6", "archer:4,pikeman:4", trials=100, seed=6,
                   siege=True, fort=2, keep_trials=True, progress=False)
fight = mc.sf.fight("warrior:1,archer:1", "goblin:2,orc:1", trials=300, seed=7,
                    keep_trials=True, progress=False)
hits = mc.damage("pikeman", "knight").sample(2000, seed=8)
print(json.dumps({
    "internals": numba_fence.INTERNALS,
    "plain": digest(plain.trials.outcome, plain.trials.rounds, plain.trials.dealt),
    "siege": digest(siege.trials.outcome, siege.trials.rounds, siege.trials.dealt),
    "fight": digest(fight.trials["outcome"], fight.trials["rounds"], fight.trials["damage"]),
    "hits": digest(hits),
}))
"""


def _play(env_extra: dict[str, str]) -> dict:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT), **env_extra)
    done = subprocess.run([sys.executable, "-c", PLAY], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_public_path_plays_the_same_battles_and_fights(tmp_path):
    fenced = _play({"MONTECARLO_NUMBA_INTERNALS": "0", "NUMBA_CACHE_DIR": str(tmp_path)})
    usual = _play({})
    assert fenced.pop("internals") is False
    assert usual.pop("internals") is numba_fence.INTERNALS
    assert fenced == usual


def test_the_tested_versions_include_this_numba_and_pyproject_pins_them():
    major, minor = (int(p) for p in numba.__version__.split(".")[:2])
    assert (major, minor) in numba_fence.TESTED_NUMBA
    assert numba_fence.INTERNALS
    text = (ROOT / "pyproject.toml").read_text()
    low, high = min(numba_fence.TESTED_NUMBA), max(numba_fence.TESTED_NUMBA)
    assert f'"numba>={low[0]}.{low[1]},<{high[0]}.{high[1] + 1}"' in text


def test_no_module_but_the_fence_imports_numba_internals():
    internal = ("numba.core", "numba.cpython", "numba.np", "numba.misc", "numba.typed")
    offenders = []
    for path in sorted((ROOT / "kernels").glob("*.py")):
        if path.name == "numba_fence.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(internal):
                offenders.append(f"{path.name}: {node.module}")
            if isinstance(node, ast.Import):
                offenders += [f"{path.name}: {a.name}" for a in node.names
                              if a.name.startswith(internal)]  # fmt: skip
    assert offenders == []


@njit
def _counts(words, out):
    for k in range(words.shape[0]):
        w = words[k]
        out[k, 0] = numba_fence.popcount(w)
        out[k, 1] = numba_fence.popcount_loop(w)
        if w != 0:
            out[k, 2] = numba_fence.trailing_zeros(w)
            out[k, 3] = numba_fence.trailing_zeros_loop(w)


def test_the_public_bit_counts_agree_with_the_intrinsics():
    words = np.array([0, 1, 2, 3, 12, 2**40 + 5, -1, -(2**63), 2**62 - 1, -6], np.int64)
    out = np.zeros((words.size, 4), np.int64)
    _counts(words, out)
    unsigned = [int(w) & ((1 << 64) - 1) for w in words]
    assert out[:, 0].tolist() == out[:, 1].tolist() == [u.bit_count() for u in unsigned]
    zeros = [(u & -u).bit_length() - 1 if u else 0 for u in unsigned]
    assert out[:, 2].tolist() == out[:, 3].tolist() == zeros
