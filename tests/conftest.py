"""Test configuration: headless plots and at least two Numba threads."""

import os

# Thread-count independence is only tested if there are 2+ threads to compare.
os.environ.setdefault("NUMBA_NUM_THREADS", str(max(2, os.cpu_count() or 1)))
os.environ.setdefault("MPLBACKEND", "Agg")
