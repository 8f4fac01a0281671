"""Sweeps, resume, Dask, round robins, the solver, reports and notebooks (issue: analytics)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

import montecarlo as mc
from montecarlo import sweeps as sweep_module
from montecarlo.cli import main
from montecarlo.report import build_report, load_spec
from montecarlo.results_store import ResultStore
from montecarlo.stats import Histogram

GRID = [
    ("pikeman:3", "militia:3"),
    ("knight:1", "pikeman:4"),
    {"attacker": "militia:5", "defender": "troll:1", "width": 6},
    {"attacker": "warrior:2", "defender": "goblin:3", "game": "sf", "battlefield": "corridor"},
]
NUMERIC = ["trials", "n_attacker", "n_defender", "n_draw", "p_attacker", "p_attacker_lo",
           "p_attacker_hi", "rounds_mean", "rounds_se"]  # fmt: skip


def run(grid=GRID, **kw):
    kw.setdefault("trials", 2048)
    kw.setdefault("seed", 11)
    return mc.sweep(grid, progress=False, **kw)


def test_sweep_rows_and_intervals():
    df = run()
    assert list(df["attacker"]) == ["pikeman:3", "knight:1", "militia:5", "warrior:2"]
    assert (df["p_attacker_lo"] <= df["p_attacker"]).all()
    assert (df["p_attacker"] <= df["p_attacker_hi"]).all()
    total = df["n_attacker"] + df["n_defender"] + df["n_draw"]
    assert (total == df["trials"]).all()
    assert not df.attrs["partial"]


def test_rows_depend_only_on_seed_and_key():
    full = run().set_index("key")
    part = run(grid=list(reversed(GRID[1:]))).set_index("key")
    pd.testing.assert_frame_equal(full.loc[part.index, NUMERIC], part[NUMERIC])
    other_seed = run(seed=12).set_index("key")
    assert not full[NUMERIC].equals(other_seed[NUMERIC])


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ([], "empty"),
        ([{"attacker": "pikeman:1"}], "defender"),
        ([{"attacker": "a:1", "defender": "b:1", "speed": 3}], "unknown option"),
        ([{"attacker": "a:1", "defender": "b:1", "width": "wide"}], "must be int"),
        ([("pikeman:1", "militia:1"), ("pikeman:1", "militia:1")], "repeats"),
        ([{"attacker": "a:1", "defender": "b:1", "game": "chess"}], "unknown game"),
    ],
)
def test_grid_errors(grid, message):
    with pytest.raises(mc.InputError, match=message):
        mc.sweep(grid, trials=10, progress=False)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_interrupted_sweep_resumes_without_loss_or_duplicates(tmp_path, monkeypatch, suffix):
    out = tmp_path / f"rows{suffix}"
    real = sweep_module.run_spec
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(sweep_module, "run_spec", flaky)
    first = run(out=str(out))
    assert first.attrs["partial"] and len(first) == 2
    monkeypatch.setattr(sweep_module, "run_spec", real)
    resumed = run(out=str(out))  # same seed: only the two missing rows run
    assert not resumed.attrs["partial"] and len(resumed) == len(GRID)
    stored = ResultStore(out).read()
    assert len(stored) == len(GRID) and stored["key"].is_unique
    fresh = run()
    pd.testing.assert_frame_equal(resumed[NUMERIC], fresh[NUMERIC])


def test_torn_csv_line_is_dropped(tmp_path):
    out = tmp_path / "rows.csv"
    run(grid=GRID[:2], out=str(out))
    with out.open("a") as f:
        f.write('"{""attacker"": ""militia:5""')  # a crash mid-write
    df = run(out=str(out))
    assert len(df) == len(GRID)
    assert len(pd.read_csv(out)) == len(GRID)


def test_resume_refuses_another_seed(tmp_path):
    out = tmp_path / "rows.csv"
    run(grid=GRID[:1], out=str(out))
    with pytest.raises(mc.InputError, match="another seed"):
        run(grid=GRID[:1], out=str(out), seed=99)


def test_resume_refuses_another_trial_count(tmp_path):
    # Rows of a 2,048-battle sweep must not pass for rows of another request.
    out = tmp_path / "rows.csv"
    run(grid=GRID[:1], out=str(out))
    with pytest.raises(mc.InputError, match="trials=2048, not trials=4096"):
        run(grid=GRID[:2], out=str(out), trials=4096)
    with pytest.raises(mc.InputError, match=r"not precision=0\.05"):
        run(grid=GRID[:2], out=str(out), trials=None, precision=0.05)
    assert len(run(grid=GRID[:2], out=str(out))) == 2  # the same request resumes
    assert len(run(grid=GRID[:3], out=str(out), trials=np.int64(2048))) == 3  # same request


def test_resume_of_a_file_without_requests(tmp_path):
    # Rows written before the request column: the new rows leave it out and the
    # sweep resumes, unchecked, instead of failing on the CSV's header.
    out = tmp_path / "rows.csv"
    run(grid=GRID[:1], out=str(out))
    pd.read_csv(out).drop(columns="request").to_csv(out, index=False)
    df = run(grid=GRID[:2], out=str(out))
    assert len(df) == 2 and "request" not in pd.read_csv(out).columns
    assert len(pd.read_csv(out)) == 2


def test_dask_equals_local():
    distributed = pytest.importorskip("dask.distributed")
    local = run(trials=4096)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:  # fmt: skip
        with distributed.Client(cluster) as client:
            # a first sweep with another seed must not leak into the second
            run(trials=512, seed=0, engine=client)
            remote = run(trials=4096, engine=client)
    cols = [c for c in local.columns if c != "seconds"]
    pd.testing.assert_frame_equal(local[cols], remote[cols])


def test_round_robin_symmetry():
    rr = mc.round_robin(["militia", "pikeman", "heavy infantry"], counts=3, trials=2048, seed=5,
                        progress=False)  # fmt: skip
    m = rr.matrix.to_numpy()
    rows = rr.rows.set_index(["attacker", "defender"])
    draws = np.zeros_like(m)
    names = list(rr.matrix.index)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            ab = rows.loc[(f"{a}:3", f"{b}:3")]
            ba = rows.loc[(f"{b}:3", f"{a}:3")]
            draws[i, j] = (ab.p_draw + ba.p_draw) / 2
    np.testing.assert_allclose(m + m.T + draws, 1.0, atol=1e-12)
    np.testing.assert_allclose(np.diag(m), (1 - np.diag(draws)) / 2, atol=1e-12)
    fig = rr.plot()
    assert fig.axes[0].get_title()


def test_round_robin_equal_gold_sizes():
    rr = mc.round_robin(["militia", "knight"], by="equal_gold", budget=40, trials=512, seed=1,
                        progress=False)  # fmt: skip
    assert rr.counts == {"Militia": 8, "Knight": 1}
    with pytest.raises(mc.InputError, match="equal_gold"):
        mc.round_robin(["militia", "knight"], by="fair", trials=10)


def test_solver_confidence_and_monotonicity():
    req = mc.required_count("militia", "troll:1", target=0.9, seed=2)
    probes = {p.count: p for p in req.probes}
    n = req.count
    assert probes[n].low >= 0.9  # confirmed at 95% confidence
    assert probes[n - 1].high < 0.9  # one fewer is confirmed too few
    assert req.gold == n * mc.load_units()["militia"].gold
    # monotone in the target
    assert mc.required_count("militia", "troll:1", target=0.5, seed=2).count <= n
    # an independent check with another seed
    check = mc.matchup(f"militia:{n}", "troll:1", trials=8192, seed=77, progress=False)
    assert check.interval()[1] >= 0.9


def test_report_from_example_spec(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'title = "Test report"\nseed = 5\ntrials = 1024\n'
        '[[matchup]]\nattacker = "militia:5"\ndefender = "troll:1"\n'
        '[[damage]]\nattackers = ["pikeman"]\ndefenders = ["knight"]\n'
        '[[required]]\nunit = "militia"\nversus = "troll:1"\ntarget = 0.5\n'
    )  # fmt: skip
    page = build_report(spec, tmp_path / "out", progress=False)
    text = page.read_text()
    assert "Test report" in text and "seed 5" in text and mc.__version__ in text
    assert text.count("data:image/png;base64,") >= 2 and "Wilson" in text
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["index.html"]


def test_shipped_example_spec_validates():
    spec = load_spec(Path(__file__).parents[1] / "examples" / "report.toml")
    assert {"damage", "matchup", "round_robin", "required"} <= set(spec)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[[matchup]]\nattacker = "a:1"\n', "defender"),
        ('[[matchup]]\nattacker = "a:1"\ndefender = "b:1"\ntrials = "many"\n', "expected int"),
        ("[[dance]]\nx = 1\n", "unknown field"),
        ('title = 3\n[[matchup]]\nattacker = "a:1"\ndefender = "b:1"\n', "expected str"),
        ("", "no sections"),
    ],
)
def test_report_spec_errors(tmp_path, body, message):
    spec = tmp_path / "bad.toml"
    spec.write_text(body)
    with pytest.raises(mc.InputError, match=message) as exc:
        load_spec(spec)
    assert "bad.toml" in str(exc.value)


def test_cli_analytics(capsys, tmp_path):
    grid = tmp_path / "grid.csv"
    grid.write_text("attacker,defender\npikeman:3,militia:3\nknight:1,pikeman:4\n")
    assert main(["sweep", str(grid), "--trials", "1024", "--seed", "1", "--json",
                 "--out", str(tmp_path / "rows.csv")]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert len(data["rows"]) == 2 and not data["partial"]
    assert main(["required", "militia", "troll:1", "--target", "0.5", "--seed", "1",
                 "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["count"] >= 1
    png = tmp_path / "rr.png"
    assert main(["round-robin", "militia", "pikeman", "--counts", "2", "--trials", "512",
                 "--plot", str(png)]) == 0  # fmt: skip
    assert png.stat().st_size > 10_000


NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "strip outputs"
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()  # fmt: skip
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


def test_there_are_five_notebooks():
    assert len(NOTEBOOKS) == 5


def test_shipped_example_grid_parses():
    from montecarlo.sweeps import normalize_grid

    grid = pd.read_csv(Path(__file__).parents[1] / "examples" / "grid.csv")
    specs = normalize_grid(grid)
    assert {s.game for s in specs} == {"coe5", "sf"}
    assert dict(specs[1].options) == {"fort": 2, "siege": True}


def _sd_error(row: np.ndarray) -> float:
    h = Histogram()
    h.add(row)
    return h.std_error_of_std()


def test_std_error_of_std_covers_heavy_tails():
    # OED(5) has a heavy right tail: over 200 runs of 2,000 rolls the spread of the
    # sample sd matches Histogram.std_error_of_std; the normal-theory s/sqrt(2(n-1))
    # (what `roll` printed before) is far too small.
    rolls = mc.oed(5).sample(400_000, seed=11).reshape(200, 2000)
    sds = rolls.std(axis=1, ddof=1)
    predicted = np.mean([_sd_error(row) for row in rolls[:20]])
    assert abs(sds.std(ddof=1) / predicted - 1) < 0.25
    assert predicted > 1.2 * sds.mean() / np.sqrt(2 * 1999)
