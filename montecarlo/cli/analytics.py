"""``montecarlo sweep``, ``round-robin``, ``required`` and ``report``."""

from __future__ import annotations

import argparse

import pandas as pd

from montecarlo.cli.common import (
    add_command,
    add_run_options,
    add_seed_options,
    check_out_file,
    check_out_folder,
    check_plot,
    int_in,
    plot_option,
    positive_int,
    print_json,
)
from montecarlo.driver import stop_requested
from montecarlo.errors import InputError
from montecarlo.plotting import save
from montecarlo.validation import MAX_UNITS_PER_SIDE

OUT_SUFFIXES = (".csv", ".parquet")
#: Seconds to wait for a Dask scheduler before giving up (--dask-timeout).
DASK_TIMEOUT = 10.0
DEFAULT_RR_PLOT = "round_robin.png"


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "sweep",
        "run a grid of matchups, streaming rows to --out",
        "Run every matchup of a grid file and print one row per matchup: rates with 95% "
        "Wilson intervals, counts and rounds.  Each row's stream derives from (seed, its "
        "matchup), so rows do not depend on each other.  With --out, rows are written as "
        "they finish, and running the same command again fills in only the missing rows "
        "(after Ctrl-C, say).",
        [
            "montecarlo sweep examples/grid.csv --trials 2000 --seed 1",
            "montecarlo sweep examples/grid.csv --precision 0.01 --out rows.csv",
            "montecarlo sweep grid.csv --dask tcp://scheduler:8786 --out rows.parquet",
        ],
    )
    p.add_argument("grid", help="a .csv or .toml grid: attacker, defender[, game, options]")
    p.add_argument(
        "--out",
        metavar="FILE",
        help="a .csv file or .parquet folder; rows stream there, reruns resume",
    )
    p.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786")
    p.add_argument(
        "--dask-timeout",
        type=float,
        default=DASK_TIMEOUT,
        metavar="SECONDS",
        help="give up connecting to --dask after this long",
    )
    add_run_options(p, default_trials=None, trials_help="battles per matchup")
    p.set_defaults(run=run_sweep)

    p = add_command(
        sub,
        "round-robin",
        "win-rate matrix of every unit against every other",
        "Every unit's army plays every other's, once from each side, and the matrix "
        "shows the row's win rate against the column.  Armies are equal in count "
        "(--counts) or in gold (--by equal_gold --budget).",
        [
            'montecarlo round-robin militia pikeman "heavy infantry" knight --by equal_gold '
            "--budget 120 --trials 4096 --seed 1 --plot round_robin.png",
            "montecarlo round-robin militia knight --counts 5 --precision 0.02",
        ],
    )
    p.add_argument("units", nargs="+", help="unit names (two or more)")
    p.add_argument(
        "--by",
        choices=["equal_count", "equal_gold"],
        default="equal_count",
        help="how armies are sized",
    )
    p.add_argument(
        "--counts",
        type=int_in(1, MAX_UNITS_PER_SIDE),
        default=1,
        help="army size with --by equal_count",
    )
    p.add_argument(
        "--budget",
        type=positive_int,
        default=None,
        help="gold per army with --by equal_gold (default: the dearest unit's cost)",
    )
    plot_option(p, "the heatmap", default=DEFAULT_RR_PLOT)
    p.add_argument(
        "--out",
        metavar="FILE",
        help="stream the underlying sweep to this .csv/.parquet; reruns resume",
    )
    add_run_options(p, default_trials=None, trials_help="battles per matchup")
    p.set_defaults(run=run_round_robin)

    p = add_command(
        sub,
        "required",
        "fewest units that beat an army often enough",
        "The army-size solver: the smallest count of a unit whose win rate against the "
        "opposing army reaches --target with 95% confidence.  It doubles the count, then "
        "bisects, playing battles at each count until the decision is clear.  Exits with "
        "status 1 when no count up to --max-count is enough.",
        [
            "montecarlo required militia troll:1 --seed 1",
            "montecarlo required pikeman knight:3 --target 0.75 --max-count 60 --json",
        ],
    )
    p.add_argument("unit", help="the unit to count, e.g. 'militia'")
    p.add_argument("versus", help="the opposing army, e.g. 'troll:1'")
    p.add_argument("--target", type=float, default=0.9, help="win rate to reach, in (0, 1)")
    p.add_argument(
        "--max-count",
        type=int_in(1, MAX_UNITS_PER_SIDE),
        default=200,
        help="the largest count tried",
    )
    add_seed_options(p, progress=False)  # the solver's many short runs draw no bar
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run_required)

    p = add_command(
        sub,
        "report",
        "write a self-contained HTML report from a TOML spec",
        "Run the damage tables, matchups, round robins and solver questions of a TOML "
        "spec and write one HTML file with embedded figures, the seed, the trial counts "
        "and the Monte Carlo error of every figure.  The spec is checked in full first.",
        ["montecarlo report examples/report.toml -o report/"],
    )
    p.add_argument("spec", help="report spec (see examples/report.toml)")
    p.add_argument(
        "-o",
        "--out",
        default="report",
        metavar="FOLDER",
        help="output folder; index.html is written there",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show progress bars (default: only when stderr is a terminal)",
    )
    p.set_defaults(run=run_report)


def _connect(address: str, timeout: float):
    """A Dask client, or an InputError naming the address and the wait."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError('--dask needs the dist extra: pip install -e ".[dist]"') from None
    if not timeout > 0:
        raise InputError(f"--dask-timeout must be positive, got {timeout}")
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            f"--dask {address!r}: no Dask scheduler answered within {timeout:g} s ({exc})"
        ) from None


def run_sweep(args: argparse.Namespace) -> int:
    from montecarlo.sweeps import normalize_grid, sweep

    grid = normalize_grid(args.grid)
    out = check_out_file(args.out, "--out", OUT_SUFFIXES) if args.out else None
    engine: object = "local"
    client = None
    if args.dask:
        client = engine = _connect(args.dask, args.dask_timeout)
    try:
        df = sweep(
            grid,
            trials=args.trials,
            precision=args.precision,
            seed=args.seed,
            engine=engine,
            out=out,
            threads=args.threads,
            progress=args.progress,
        )
    finally:
        if client is not None:
            client.close()
    seed, missing = df.attrs["seed"], df.attrs["missing"]
    if args.json:
        print_json(
            {
                "rows": df.to_dict(orient="records"),
                "partial": df.attrs["partial"],
                "missing": missing,
                "seed": seed,
                "out": out,
            }
        )
        return 0
    cols = [
        "game",
        "attacker",
        "defender",
        "trials",
        "p_attacker",
        "p_attacker_lo",
        "p_attacker_hi",
        "p_draw",
        "rounds_mean",
        "options",
    ]
    print(f"sweep of {len(grid)} matchups, seed {seed}")
    if not df.empty:
        shown = df[cols].copy()
        shown["trials"] = [
            f"{t:,}" + (" (cut)" if p else "")
            for t, p in zip(df["trials"], df["partial"], strict=True)
        ]
        with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
            print(shown.to_string(index=False))
    if df.attrs["partial"]:
        print(
            f"interrupted: partial result, {missing} of {len(grid)} matchups not finished"
            + (" (the row marked 'cut' was not saved)" if df["partial"].any() else "")
            + ("; rerun the same command to fill in the rest" if out else "")
        )
    if out:
        print(f"rows written to {out}")
    return 0


def run_round_robin(args: argparse.Namespace) -> int:
    from montecarlo.roundrobin import round_robin

    plot = check_plot(args.plot)
    out = check_out_file(args.out, "--out", OUT_SUFFIXES) if args.out else None
    if args.budget is not None and args.by != "equal_gold":
        raise InputError("--budget sizes armies by gold; add --by equal_gold")
    if args.counts != 1 and args.by == "equal_gold" and args.budget is not None:
        raise InputError("--counts sizes equal_count armies; with --budget drop --counts")
    rr = round_robin(
        args.units,
        counts=args.counts,
        by=args.by,
        budget=args.budget,
        trials=args.trials,
        precision=args.precision,
        seed=args.seed,
        out=out,
        threads=args.threads,
        progress=args.progress,
    )
    plot = str(save(rr.plot(), plot))
    if args.json:
        print_json(
            {
                "matrix": rr.matrix.to_dict(),
                "halfwidth": rr.halfwidth.to_dict(),
                "counts": rr.counts,
                "partial": rr.partial,
                "seed": rr.seed,
                "plot": plot,
            }
        )
        return 0
    print(
        f"Round robin ({args.by}), seed {rr.seed}; army sizes: "
        + ", ".join(f"{k} ×{v}" for k, v in rr.counts.items())
    )
    print("win rate of the row against the column (both sides played):")
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(rr.matrix.to_string())
    if rr.partial:
        print(
            "interrupted: partial result; NaN cells were not played"
            + ("; rerun the same command to fill them in" if out else "")
        )
    if rr.halfwidth.notna().to_numpy().any():
        print(f"largest 95% half-width: {rr.halfwidth.max().max():.4f}")
    print(f"heatmap written to {plot}")
    return 0


def run_required(args: argparse.Namespace) -> int:
    from montecarlo.solver import required_count

    if not 0 < args.target < 1:
        raise InputError(f"--target is a win rate between 0 and 1, got {args.target}")
    req = required_count(
        args.unit,
        args.versus,
        args.target,
        max_count=args.max_count,
        seed=args.seed,
        threads=args.threads,
    )
    if args.json:
        print_json(
            {
                "unit": req.unit.name,
                "versus": req.versus,
                "target": req.target,
                "count": req.count,
                "win_rate": req.rate,
                "ci95": req.interval,
                "gold": req.gold,
                "max_count": req.max_count,
                "partial": req.partial,
                "seed": req.seed,
                "probes": req.to_frame().to_dict(orient="records"),
            }
        )
    else:
        print(req.summary())
        print(f"seed {req.seed}")
        if req.probes:
            with pd.option_context("display.float_format", "{:.4f}".format):
                print(req.to_frame().to_string(index=False))
    # No count up to the limit is an answer, not an error, but scripts should see it.
    return 1 if req.count is None and not req.partial else 0


def run_report(args: argparse.Namespace) -> int:
    from montecarlo.report import build_report

    check_out_folder(args.out, "-o/--out")
    path = build_report(args.spec, args.out, progress=args.progress)
    if stop_requested():
        print(f"interrupted: partial report written to {path}")
    else:
        print(f"report written to {path}")
    return 0
