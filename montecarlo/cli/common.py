"""Argument helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (rejects '0' with a clear message)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def seed_int(text: str) -> int:
    """argparse type: a non-negative integer seed."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def add_run_options(parser: argparse.ArgumentParser, default_trials: int) -> None:
    """--trials, --seed, --threads and --json, as every sampling command has them."""
    parser.add_argument(
        "--trials", type=positive_int, default=default_trials,
        help=f"number of Monte Carlo trials (default {default_trials:,})",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=seed_int, default=None,
        help="seed for reproducible results (default: fresh entropy, printed)",
    )  # fmt: skip
    parser.add_argument(
        "--threads", type=positive_int, default=None,
        help="Numba threads (default: all); results do not depend on it",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def to_jsonable(obj: Any) -> Any:
    """Recursively turn NumPy scalars and NaN into JSON-friendly values."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating | float):
        value = float(obj)
        return None if math.isnan(value) else value
    return obj


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON."""
    print(json.dumps(to_jsonable(obj), indent=2))
