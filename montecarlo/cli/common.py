"""Argument helpers shared by the subcommands: parser, help, output checks, run options."""

from __future__ import annotations

import argparse
import json
import math
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from montecarlo.errors import InputError
from montecarlo.validation import MAX_TRIALS, plot_formats, writable_file, writable_folder


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' layout and shows every option's default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (
            "default" not in text
            and action.option_strings
            and action.default not in (None, False, argparse.SUPPRESS)
            and action.nargs != 0
        ):
            text += " (default: %(default)s)"
        return text


def add_command(
    sub: argparse._SubParsersAction, name: str, summary: str, description: str, examples: list[str]
) -> argparse.ArgumentParser:
    """A subcommand with a one-line summary, a description and worked examples."""
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples)
    return sub.add_parser(
        name,
        help=summary,
        description=textwrap.fill(description, 79),
        epilog=epilog,
        formatter_class=HelpFormatter,
    )


def plot_option(parser: argparse.ArgumentParser, what: str, default: str | None = None) -> None:
    """``--plot FILE``; the format follows the suffix."""
    parser.add_argument(
        "--plot",
        metavar="FILE",
        default=default,
        help=f"write {what} to FILE; .png, .pdf, .svg, ... (no suffix: .png)",
    )


def check_plot(path: str | None, option: str = "--plot") -> str | None:
    """Validate a plot path before any work: writable, a format matplotlib writes."""
    if path is None:
        return None
    return str(writable_file(path, option, plot_formats(), default_suffix=".png"))


def check_out_file(path: str | None, option: str, suffixes: tuple[str, ...]) -> str | None:
    """Validate an output file (``--out``) before any work."""
    if path is None:
        return None
    return str(writable_file(path, option, suffixes))


def check_out_folder(path: str, option: str) -> Path:
    """Validate an output folder (``-o``) before any work."""
    return writable_folder(path, option)


def precision_value(text: str) -> float:
    """argparse type: a target 95% Wilson half-width in (0, 0.5)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.01, got {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a half-width between 0 and 0.5, got {text}")
    # Below 1e-4 a run needs ~10^8 battles per outcome rate: hours.
    if value < 1e-4:
        raise argparse.ArgumentTypeError(
            f"expected at least 0.0001, got {text}: finer precision needs ~10^8 trials"
        )
    return value


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """--progress / --no-progress; by default a bar only on a terminal."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: only when stderr is a terminal)",
    )


def fail(message: str) -> InputError:
    """An input error to raise from a subcommand (printed as one line, exit 2)."""
    return InputError(message)


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (rejects '0' with a clear message)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def trial_count(text: str) -> int:
    """argparse type: a trial count from 1 to :data:`~montecarlo.validation.MAX_TRIALS`."""
    value = positive_int(text)
    if value > MAX_TRIALS:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_TRIALS:,} trials, got {value:,}: a run that long takes "
            "hours to days even for single dice"
        )
    return value


def int_in(lo: int, hi: int):
    """argparse type: an integer from ``lo`` to ``hi``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer from {lo} to {hi}, got {text!r}"
            ) from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer from {lo} to {hi}, got {value}")
        return value

    parse.__name__ = f"integer {lo}..{hi}"
    return parse


def seed_int(text: str) -> int:
    """argparse type: a non-negative integer seed."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if not 0 <= value < 2**128:
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to 2**128 - 1, got {value}")
    return value


def add_run_options(
    parser: argparse.ArgumentParser,
    default_trials: int | None,
    trials_help: str = "number of Monte Carlo trials",
    *,
    threads: bool = True,
    progress: bool = True,
) -> None:
    """--trials, --seed, --threads, --progress and --json, as every sampling command has them.

    ``default_trials=None`` adds --trials and --precision as alternatives; a
    command whose sampler takes no thread count or draws no bar leaves those out.
    """
    if default_trials is None:
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            "--trials",
            type=trial_count,
            help=f"{trials_help} (default: 20,000 unless --precision is given)",
        )
        group.add_argument(
            "--precision",
            type=precision_value,
            help="instead of --trials: play until every outcome rate's 95%% Wilson "
            "half-width is at most this, e.g. 0.005 (default: off)",
        )
    else:
        parser.add_argument(
            "--trials",
            type=trial_count,
            default=default_trials,
            help=f"{trials_help} (default: {default_trials:,})",
        )
    add_seed_options(parser, threads=threads, progress=progress)
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def add_seed_options(
    parser: argparse.ArgumentParser, threads: bool = True, progress: bool = True
) -> None:
    """--seed, --threads and (for commands that draw a bar) --progress."""
    parser.add_argument(
        "--seed",
        type=seed_int,
        default=None,
        help="seed for reproducible results (default: fresh entropy, printed)",
    )
    if threads:
        parser.add_argument(
            "--threads",
            type=positive_int,
            default=None,
            help="Numba threads (default: all cores); results do not depend on it",
        )
    if progress:
        add_progress_option(parser)


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
