"""Helpers shared by the benchmark scripts: timing, plain-Python baselines, tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"


def best_rate(func: Callable[[], object], size: int, repeats: int = 3) -> float:
    """Items per second of ``func`` (which handles ``size`` items): best of ``repeats``
    timings after one warm-up call."""
    func()
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return size / best


def plain_python_rate(setup: str, call: str, trials: int) -> float:
    """Trials per second of ``call`` (Python source using ``trials``) with Numba disabled.

    Runs in a subprocess with ``NUMBA_DISABLE_JIT=1``, so the very same kernel
    code executes as ordinary Python.  ``setup`` (the imports) is not timed.
    """
    code = (
        "import json, time\n"
        f"{setup}\n"
        f"trials = {trials}\n"
        "t0 = time.perf_counter()\n"
        f"{call}\n"
        "print(json.dumps(trials / (time.perf_counter() - t0)))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def write_table(name: str, lines: list[str]) -> None:
    """Print the markdown lines and save them as ``results/<name>.md``."""
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.md").write_text(text + "\n")
    print(f"\nwritten to {RESULTS / name}.md")
