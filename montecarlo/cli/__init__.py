"""The ``montecarlo`` command line.

Each subcommand lives in its own module with ``register(subparsers)`` and a
``run(args)`` returning an exit code.  Every input is checked before any work
starts (output paths included); an input error prints one line on stderr,
naming the option or file and what was expected, and exits with status 2.
Ctrl-C stops at the next chunk boundary, prints what was finished marked as
partial, and exits with status 130.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from montecarlo import __version__
from montecarlo.cli.common import HelpFormatter, Parser
from montecarlo.errors import InputError

#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: Exit status of an input error.
EXIT_USAGE = 2

EXAMPLES = """examples:
  montecarlo matchup pikeman:10 knight:3 --seed 7
  montecarlo roll "1-5(+10)" --plot roll.png
  montecarlo rules C-4.2
  montecarlo COMMAND --help      (every command explains itself)"""


#: The module (in ``montecarlo.cli``) of each command.  Running a command listed
#: here imports that module alone: the others pulled pandas and matplotlib into
#: every start (issue 13).  A command missing here still works (the parser
#: then registers every module), only its start is slower.
COMMAND_MODULES = {
    "matchup": "matchup",
    "roll": "roll",
    "resist": "resist",
    "units": "units",
    "import-c5m": "import_c5m",
    "damage": "damage",
    "sf": "sf",
    "sweep": "analytics",
    "round-robin": "analytics",
    "required": "analytics",
    "report": "analytics",
    "rules": "rules",
    "compare": "compare",
    "sensitivity": "compare",
    "replay": "replay",
    "warm": "warm",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered, or only ``command``'s module."""

    parser = Parser(
        prog="montecarlo",
        description=textwrap.fill(
            "Monte Carlo analytics for game combat (CoE5 and Shared†Fantasia). "
            "Rule ids such as C-4.2 are explained by 'montecarlo rules'.",
            79,
        ),
        epilog=EXAMPLES,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command in COMMAND_MODULES:
        modules = (importlib.import_module(f"montecarlo.cli.{COMMAND_MODULES[command]}"),)
    else:
        from montecarlo.cli import (
            analytics,
            compare,
            damage,
            import_c5m,
            matchup,
            replay,
            resist,
            roll,
            rules,
            sf,
            units,
            warm,
        )

        modules = (
            matchup, replay, compare, roll, resist, units, import_c5m, damage, sf, analytics,
            rules, warm,
        )  # fmt: skip
    for module in modules:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    from montecarlo.driver import stop_on_ctrl_c  # imports Numba: not for --help

    args_list = sys.argv[1:] if argv is None else list(argv)
    command = args_list[0] if args_list and not args_list[0].startswith("-") else None
    parser = build_parser(command)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    name = getattr(args, "sf_command", None)
    prog = f"montecarlo {args.command}" + (f" {name}" if name else "")
    try:
        with stop_on_ctrl_c() as stop:
            status = int(args.run(args) or 0)
        # The command printed what it finished, marked partial; say how it ended.
        return EXIT_INTERRUPTED if stop.requested else status
    except InputError as exc:
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        # Ctrl-C before anything finished (while compiling, say), or a second one.
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: silence the rest of the output.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (OSError, UnicodeDecodeError) as exc:
        # A file that cannot be read or written after all (a race, a full disk).
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


def console() -> NoReturn:
    """The console script and ``python -m montecarlo``: :func:`main`, then :func:`leave`."""
    leave(main())


def leave(status: int) -> NoReturn:
    """End the process with ``status``, skipping the interpreter's teardown where that is safe.

    A process that compiled the kernels holds a great many objects (Numba's
    types, LLVM's modules); freeing them one by one at exit took 0.4 s of a
    cold ``montecarlo matchup``'s 10 s (issue 13).  Everything the command
    writes is written by the time :func:`main` returns, so this flushes the
    standard streams (those that exist) and logging and leaves with
    ``os._exit``; output that a flush loses (a full disk) makes the status 120,
    as Python's own exit does.  While another
    thread or a child process is still running (a Dask cluster, a pool), it
    exits the usual way instead, so that those are joined as they would be.
    """
    import logging
    import multiprocessing
    import threading

    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others or multiprocessing.active_children():
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # no such stream (pythonw, a service, a descriptor closed at start)
            continue
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader gone away (| head), a closed stream
            pass
        except OSError:  # output lost (a full disk): fail as Python's own exit would
            status = status or 120
    logging.shutdown()
    os._exit(status)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
