"""``montecarlo warm``: compile every kernel into Numba's cache ahead of use."""

from __future__ import annotations

import argparse
import time

from montecarlo.cli.common import add_command, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "warm",
        "compile every kernel into Numba's cache, so later commands start at once",
        "Compile every kernel variant (the battle kernel with and without its extras, the "
        "replays, the fight kernel, the samplers) into Numba's on-disk cache, and say how "
        "long each took.  Run it once after installing or upgrading; a kernel already "
        "cached loads in a fraction of a second.",
        ["montecarlo warm", "montecarlo warm --json"],
    )
    p.add_argument("--json", action="store_true", help="print the steps and seconds as JSON")
    p.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        default=None,
        help="no progress bar (default: shown on a terminal)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from montecarlo.warm import warm

    start = time.perf_counter()
    steps = warm(progress=args.progress)
    total = time.perf_counter() - start
    if args.json:
        print_json({"steps": steps.to_dict(orient="records"), "seconds": total})
        return 0
    for row in steps.itertuples():
        print(f"{row.step:<28}{row.seconds:>8.1f} s")
    print(f"{'every kernel is compiled':<28}{total:>8.1f} s")
    return 0
