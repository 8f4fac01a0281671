"""The ``montecarlo`` command line.

Each subcommand lives in its own module with ``register(subparsers)`` and a
``run(args)`` returning an exit code.  Input errors print one clear line on
stderr and exit with status 2; nothing else is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from montecarlo import __version__
from montecarlo.errors import InputError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from montecarlo.cli import analytics, damage, matchup, resist, roll, sf, units

    parser = argparse.ArgumentParser(
        prog="montecarlo",
        description="Monte Carlo analytics for game combat (CoE5 and Shared†Fantasia).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (matchup, roll, resist, units, damage, sf, analytics):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except InputError as exc:
        print(f"montecarlo {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Runs keep their partial results themselves; this is Ctrl-C elsewhere
        # (while compiling, say): stop quietly.
        print(f"montecarlo {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: silence the rest of the output.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
