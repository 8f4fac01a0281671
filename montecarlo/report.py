"""Self-contained HTML reports from a TOML spec (``montecarlo report spec.toml -o dir``).

The spec lists damage tables, matchups, round robins and solver questions.
The report embeds its figures as PNG data, and records the seed, the trial
counts, the Monte Carlo error of every figure and the toolkit version.
"""

from __future__ import annotations

import base64
import html
import io
import os
import tempfile
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from montecarlo import __version__
from montecarlo.coe5.battle import matchup
from montecarlo.coe5.reports import damage_heatmap, damage_table
from montecarlo.coe5.units import load_units
from montecarlo.errors import DataError, InputError
from montecarlo.roundrobin import round_robin
from montecarlo.seeding import derive, resolve_seed
from montecarlo.solver import required_count
from montecarlo.validation import FieldChecker

SECTIONS = {
    "damage": {"attackers": list, "defenders": list, "metric": str},
    "matchup": {
        "attacker": str,
        "defender": str,
        "trials": int,
        "precision": float,
        "siege": bool,
        "fort": int,
    },
    "round_robin": {
        "units": list,
        "by": str,
        "counts": int,
        "budget": int,
        "trials": int,
        "precision": float,
    },
    "required": {"unit": str, "versus": str, "target": float, "max_count": int},
}
TOP: dict[str, type] = {
    "title": str,
    "seed": int,
    "trials": int,
    "roster": str,
    **dict.fromkeys(SECTIONS, list),
}


def load_spec(path: str | Path) -> dict[str, Any]:
    """Read and validate a report spec; errors name the file, section and field."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"report spec not found: {path}")
    try:
        spec = tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(path), "TOML syntax", "", str(exc)) from None
    top = FieldChecker(str(path), "top level")
    top.unknown(spec, TOP)
    for key in ("title", "seed", "trials", "roster"):
        value = spec.get(key)
        if value is not None and (not isinstance(value, TOP[key]) or isinstance(value, bool)):
            raise top.fail(key, f"expected {TOP[key].__name__}, got {value!r}")
    if not any(s in spec for s in SECTIONS):
        raise top.fail("", f"the spec has no sections; add any of [[{']], [['.join(SECTIONS)}]]")
    for section, fields in SECTIONS.items():
        entries = spec.get(section, [])
        if not isinstance(entries, list):
            raise top.fail(section, f"expected [[{section}]] tables")
        for i, entry in enumerate(entries):
            check = FieldChecker(str(path), f"[[{section}]] #{i + 1}")
            if not isinstance(entry, Mapping):
                raise check.fail("", "expected a table")
            check.unknown(entry, fields)
            for key, kind in fields.items():
                if key not in entry:
                    continue
                value = entry[key]
                if kind is bool:
                    ok = isinstance(value, bool)
                elif kind is float:
                    ok = isinstance(value, int | float) and not isinstance(value, bool)
                else:
                    ok = isinstance(value, kind) and not isinstance(value, bool)
                if not ok:
                    raise check.fail(key, f"expected {kind.__name__}, got {value!r}")
            required = {
                "matchup": ("attacker", "defender"),
                "round_robin": ("units",),
                "required": ("unit", "versus"),
            }.get(section, ())
            check.require(entry, required)
    return spec


def _figure_html(fig: plt.Figure, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0)


def build_report(spec_path: str | Path, out_dir: str | Path, progress: bool = True) -> Path:
    """Run every section of the spec and write ``index.html`` into ``out_dir``.

    The report is written to a temporary file and moved into place at the
    end, so an error or Ctrl-C never leaves a half-written report.
    """
    spec = load_spec(spec_path)
    roster = load_units(spec.get("roster"))
    ss = resolve_seed(spec.get("seed"))
    default_trials = spec.get("trials", 4000)
    parts: list[str] = []
    started = time.perf_counter()
    total_battles = 0
    for i, entry in enumerate(spec.get("damage", [])):
        table = damage_table(entry.get("attackers"), entry.get("defenders"), roster=roster)
        parts.append(f"<h2>Damage table {i + 1}</h2><p>Exact (no sampling error).</p>")
        parts.append(_table(table))
        parts.append(_figure_html(damage_heatmap(table, entry.get("metric", "mean")), "heatmap"))
    for i, entry in enumerate(spec.get("matchup", [])):
        kw = {k: entry[k] for k in ("siege", "fort") if k in entry}
        amount = (
            {"precision": entry["precision"]}
            if "precision" in entry
            else {"trials": entry.get("trials", default_trials)}
        )
        r = matchup(
            entry["attacker"],
            entry["defender"],
            seed=derive(ss, 1, i),
            roster=roster,
            progress=progress,
            **amount,
            **kw,
        )
        total_battles += r.n
        parts.append(f"<h2>Matchup: {html.escape(r.title())}</h2>")
        parts.append(f"<p>{r.n:,} battles; rates with 95% Wilson intervals.</p>")
        parts.append(_table(r.to_frame()))
        mean, se = r.rounds_mean()
        parts.append(f"<p>Rounds: mean {mean:.2f} ± {se:.2f} (standard error).</p>")
        parts.append(_table(r.survivors()))
        parts.append(_figure_html(r.plot(), "matchup"))
    for i, entry in enumerate(spec.get("round_robin", [])):
        amount = (
            {"precision": entry["precision"]}
            if "precision" in entry
            else {"trials": entry.get("trials", default_trials)}
        )
        rr = round_robin(
            entry["units"],
            by=entry.get("by", "equal_count"),
            counts=entry.get("counts", 1),
            budget=entry.get("budget"),
            seed=derive(ss, 2, i),
            roster=roster,
            progress=progress,
            **amount,
        )
        total_battles += int(rr.rows["trials"].sum())
        parts.append(f"<h2>Round robin {i + 1} ({html.escape(rr.by)})</h2>")
        parts.append(
            "<p>Row's win rate against the column, both sides played; ± is the "
            "95% Wilson half-width.</p>"
        )
        parts.append(_figure_html(rr.plot(), "round robin"))
        parts.append(_table(rr.matrix.round(4).reset_index(names="unit")))
    for i, entry in enumerate(spec.get("required", [])):
        req = required_count(
            entry["unit"],
            entry["versus"],
            entry.get("target", 0.9),
            max_count=entry.get("max_count", 200),
            seed=derive(ss, 3, i),
            roster=roster,
        )
        total_battles += int(req.to_frame()["battles"].sum())
        parts.append(
            f"<h2>Required: {html.escape(req.unit.name)} vs "
            f"{html.escape(req.versus)}</h2><p>{html.escape(req.summary())}</p>"
        )
        parts.append(_table(req.to_frame()))
    title = html.escape(spec.get("title", "montecarlo report"))
    seconds = time.perf_counter() - started
    head = (
        f"<h1>{title}</h1><p class='meta'>montecarlo {__version__} · seed {ss.entropy} · "
        f"{total_battles:,} battles simulated · {seconds:.1f} s · roster: "
        f"{html.escape(', '.join(roster.sources))}</p>"
    )
    style = (
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;margin:1em 0;font-size:13px}"
        "td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "img{max-width:100%}.meta{color:#666}"
    )
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{style}</style></head><body>{head}{''.join(parts)}</body></html>"
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out, suffix=".html.tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(page)
    final = out / "index.html"
    os.chmod(tmp, 0o644)
    os.replace(tmp, final)
    return final
