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
from montecarlo.driver import stop_on_ctrl_c
from montecarlo.errors import DataError, InputError
from montecarlo.roundrobin import round_robin
from montecarlo.seeding import derive, resolve_seed
from montecarlo.solver import required_count
from montecarlo.validation import FieldChecker, writable_folder

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
    except UnicodeDecodeError:
        raise DataError(str(path), "the file", "", "not UTF-8 text") from None
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


def _precheck(spec: Mapping[str, Any], roster: Any, path: str) -> None:
    """Resolve every name and army of the spec before any section runs.

    A typo in the last section must not cost the simulations of the first ones.
    """
    from montecarlo.coe5.battlefield import parse_army
    from montecarlo.coe5.units import resolve_unit

    def where(section: str, i: int) -> FieldChecker:
        return FieldChecker(path, f"[[{section}]] #{i + 1}")

    checks = {
        "damage": lambda e: [
            resolve_unit(u, roster) for k in ("attackers", "defenders") for u in e.get(k) or []
        ],
        "matchup": lambda e: [parse_army(e[k], roster) for k in ("attacker", "defender")],
        "round_robin": lambda e: [resolve_unit(u, roster) for u in e["units"]],
        "required": lambda e: (resolve_unit(e["unit"], roster), parse_army(e["versus"], roster)),
    }
    for section, check in checks.items():
        for i, entry in enumerate(spec.get(section, [])):
            try:
                check(entry)
            except InputError as exc:
                raise where(section, i).fail("", str(exc)) from None
            for key, (ok, expected) in _RANGES.items():
                if key in entry and not ok(entry[key]):
                    raise where(section, i).fail(key, f"expected {expected}, got {entry[key]!r}")
    if "trials" in spec and not spec["trials"] >= 1:
        raise FieldChecker(path, "top level").fail("trials", "expected a positive integer")


#: Value ranges of spec fields, checked before any section runs.
_RANGES = {
    "trials": (lambda v: 1 <= v <= 10**9, "a positive integer up to 10^9"),
    "precision": (lambda v: 1e-4 <= v < 0.5, "a half-width from 0.0001 to 0.5"),
    "fort": (lambda v: 1 <= v <= 3, "a fortification level 1-3"),
    "target": (lambda v: 0 < v < 1, "a win rate between 0 and 1"),
    "max_count": (lambda v: 1 <= v <= 1000, "an integer from 1 to 1000"),
    "counts": (lambda v: 1 <= v <= 1000, "an integer from 1 to 1000"),
    "budget": (lambda v: v >= 1, "a positive number of gold"),
    "metric": (lambda v: v in ("mean", "hits_to_kill"), "'mean' or 'hits_to_kill'"),
    "by": (lambda v: v in ("equal_count", "equal_gold"), "'equal_count' or 'equal_gold'"),
}


def build_report(spec_path: str | Path, out_dir: str | Path, progress: bool | None = None) -> Path:
    """Run every section of the spec and write ``index.html`` into ``out_dir``.

    The spec, its names and the output folder are all checked before any
    section runs.  The report is written to a temporary file and moved into
    place at the end, so an error never leaves a half-written report.  After
    Ctrl-C the sections finished so far are written, under a banner that says
    the report is partial.
    """
    spec = load_spec(spec_path)
    out = writable_folder(out_dir, "report folder")
    roster = load_units(spec.get("roster"))
    _precheck(spec, roster, str(spec_path))
    ss = resolve_seed(spec.get("seed"))
    parts: list[str] = []
    tally = {"battles": 0}
    started = time.perf_counter()
    with stop_on_ctrl_c() as stop:
        try:
            _sections(spec, roster, ss, progress, stop, parts, tally)
        except KeyboardInterrupt:
            stop.requested = True  # Ctrl-C before a section finished its first chunk
    seconds = time.perf_counter() - started
    return _write(spec, roster, ss, parts, tally["battles"], seconds, out, stop.requested)


def _sections(spec, roster, ss, progress, stop, parts: list[str], tally: dict) -> None:
    """Append the HTML of every section, in spec order, until done or Ctrl-C."""
    default_trials = spec.get("trials", 4000)
    total_battles = 0

    def cut(label: str) -> str:
        return f" <em>(partial: {label})</em>" if stop.requested else ""

    for i, entry in enumerate(spec.get("damage", [])):
        table = damage_table(entry.get("attackers"), entry.get("defenders"), roster=roster)
        parts.append(f"<h2>Damage table {i + 1}</h2><p>Exact (no sampling error).</p>")
        parts.append(_table(table))
        parts.append(_figure_html(damage_heatmap(table, entry.get("metric", "mean")), "heatmap"))
    for i, entry in enumerate(spec.get("matchup", [])):
        if stop.requested:
            break
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
        tally["battles"] = total_battles
        parts.append(f"<h2>Matchup: {html.escape(r.title())}{cut('interrupted')}</h2>")
        parts.append(f"<p>{r.n:,} battles; rates with 95% Wilson intervals.</p>")
        parts.append(_table(r.to_frame()))
        mean, se = r.rounds_mean()
        parts.append(f"<p>Rounds: mean {mean:.2f} ± {se:.2f} (standard error).</p>")
        parts.append(_table(r.survivors()))
        parts.append(_figure_html(r.plot(), "matchup"))
    for i, entry in enumerate(spec.get("round_robin", [])):
        if stop.requested:
            break
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
        total_battles += int(rr.rows["trials"].sum()) if not rr.rows.empty else 0
        tally["battles"] = total_battles
        parts.append(
            f"<h2>Round robin {i + 1} ({html.escape(rr.by)}){cut('NaN = not played')}</h2>"
        )
        parts.append(
            "<p>Row's win rate against the column, both sides played; ± is the "
            "95% Wilson half-width.</p>"
        )
        parts.append(_figure_html(rr.plot(), "round robin"))
        parts.append(_table(rr.matrix.round(4).reset_index(names="unit")))
    for i, entry in enumerate(spec.get("required", [])):
        if stop.requested:
            break
        req = required_count(
            entry["unit"],
            entry["versus"],
            entry.get("target", 0.9),
            max_count=entry.get("max_count", 200),
            seed=derive(ss, 3, i),
            roster=roster,
        )
        total_battles += sum(p.trials for p in req.probes)
        tally["battles"] = total_battles
        parts.append(
            f"<h2>Required: {html.escape(req.unit.name)} vs "
            f"{html.escape(req.versus)}</h2><p>{html.escape(req.summary())}</p>"
        )
        parts.append(_table(req.to_frame()))


def _write(spec, roster, ss, parts, total_battles, seconds, out: Path, partial: bool) -> Path:
    """Write the page atomically: a temporary file renamed into place."""
    title = html.escape(spec.get("title", "montecarlo report"))
    banner = (
        "<p class='partial'>PARTIAL REPORT: interrupted (Ctrl-C); only the sections "
        "above the cut are complete.</p>"
        if partial
        else ""
    )
    head = (
        f"<h1>{title}</h1>{banner}<p class='meta'>montecarlo {__version__} · seed {ss.entropy} · "
        f"{total_battles:,} battles simulated · {seconds:.1f} s · roster: "
        f"{html.escape(', '.join(roster.sources))}</p>"
    )
    style = (
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;margin:1em 0;font-size:13px}"
        "td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "img{max-width:100%}.meta{color:#666}.partial{color:#b00;font-weight:bold}"
    )
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{style}</style></head><body>{head}{''.join(parts)}</body></html>"
    )
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out, suffix=".html.tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(page)
    final = out / "index.html"
    os.chmod(tmp, 0o644)
    os.replace(tmp, final)
    return final
