"""``montecarlo sweep``, ``round-robin``, ``required`` and ``report``."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pandas as pd

from montecarlo.cli.common import positive_int, print_json, seed_int
from montecarlo.errors import InputError
from montecarlo.plotting import save


def _amount(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--trials", type=positive_int, help="battles per matchup")
    group.add_argument("--precision", type=float, help="target 95%% Wilson half-width")
    p.add_argument("--seed", type=seed_int)
    p.add_argument("--threads", type=positive_int)
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a grid of matchups, streaming rows to --out")
    p.add_argument("grid", help="a .csv or .toml grid: attacker, defender[, game, options]")
    p.add_argument("--out", help="a .csv file or .parquet directory; reruns resume")
    p.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786")
    _amount(p)
    p.set_defaults(run=run_sweep)

    p = sub.add_parser("round-robin", help="win-rate matrix of every unit against every other")
    p.add_argument("units", nargs="+", help="unit names")
    p.add_argument("--by", choices=["equal_count", "equal_gold"], default="equal_count")
    p.add_argument("--counts", type=positive_int, default=1, help="army size (equal_count)")
    p.add_argument("--budget", type=positive_int, help="gold per army (equal_gold)")
    p.add_argument("--plot", metavar="PNG", default=None, help="write the heatmap")
    p.add_argument("--out", help="stream the underlying sweep to this .csv/.parquet")
    _amount(p)
    p.set_defaults(run=run_round_robin)

    p = sub.add_parser("required", help="fewest units that beat an army often enough")
    p.add_argument("unit")
    p.add_argument("versus", help="the opposing army, e.g. 'troll:1'")
    p.add_argument("--target", type=float, default=0.9, help="win rate to reach (default 0.9)")
    p.add_argument("--max-count", type=positive_int, default=200)
    p.add_argument("--seed", type=seed_int)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run_required)

    p = sub.add_parser("report", help="write a self-contained HTML report from a TOML spec")
    p.add_argument("spec", help="report spec (see examples/report.toml)")
    p.add_argument("-o", "--out", default="report", help="output folder (default: report/)")
    p.set_defaults(run=run_report)


def _read_grid(path: str) -> pd.DataFrame | list[dict]:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"grid file not found: {p}")
    if p.suffix.lower() == ".csv":
        return pd.read_csv(p)
    if p.suffix.lower() == ".toml":
        doc = tomllib.loads(p.read_text("utf-8"))
        rows = doc.get("matchup")
        if not isinstance(rows, list):
            raise InputError(f"{p}: expected [[matchup]] tables with attacker and defender")
        return rows
    raise InputError(f"{p}: a grid is a .csv or .toml file")


def run_sweep(args: argparse.Namespace) -> int:
    from montecarlo.sweeps import sweep

    grid = _read_grid(args.grid)
    engine: object = "local"
    client = None
    if args.dask:
        try:
            from dask.distributed import Client
        except ImportError:
            raise InputError('--dask needs the dist extra: pip install -e ".[dist]"') from None
        client = engine = Client(args.dask)
    try:
        df = sweep(
            grid,
            trials=args.trials,
            precision=args.precision,
            seed=args.seed,
            engine=engine,
            out=args.out,
            threads=args.threads,
            progress=None,
        )
    finally:
        if client is not None:
            client.close()
    if args.json:
        print_json({"rows": df.to_dict(orient="records"), "partial": df.attrs["partial"]})
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
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(df[cols].to_string(index=False))
    if df.attrs["partial"]:
        print("interrupted: rerun the same command to resume")
    if args.out:
        print(f"rows written to {args.out}")
    return 0


def run_round_robin(args: argparse.Namespace) -> int:
    from montecarlo.roundrobin import round_robin

    rr = round_robin(
        args.units,
        counts=args.counts,
        by=args.by,
        budget=args.budget,
        trials=args.trials,
        precision=args.precision,
        seed=args.seed,
        out=args.out,
        threads=args.threads,
        progress=None,
    )
    plot = args.plot or "round_robin.png"
    save(rr.plot(), plot)
    if args.json:
        print_json(
            {
                "matrix": rr.matrix.to_dict(),
                "halfwidth": rr.halfwidth.to_dict(),
                "counts": rr.counts,
                "plot": plot,
            }
        )
        return 0
    print(
        f"Round robin ({args.by}); army sizes: "
        + ", ".join(f"{k} ×{v}" for k, v in rr.counts.items())
    )
    print("win rate of the row against the column (both sides played):")
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(rr.matrix.to_string())
    print(f"largest 95% half-width: {rr.halfwidth.to_numpy().max():.4f}")
    print(f"heatmap written to {plot}")
    return 0


def run_required(args: argparse.Namespace) -> int:
    from montecarlo.solver import required_count

    req = required_count(
        args.unit, args.versus, args.target, max_count=args.max_count, seed=args.seed
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
                "probes": req.to_frame().to_dict(orient="records"),
            }
        )
        return 0
    print(req.summary())
    with pd.option_context("display.float_format", "{:.4f}".format):
        print(req.to_frame().to_string(index=False))
    return 0


def run_report(args: argparse.Namespace) -> int:
    from montecarlo.report import build_report

    path = build_report(args.spec, args.out, progress=True)
    print(f"report written to {path}")
    return 0
