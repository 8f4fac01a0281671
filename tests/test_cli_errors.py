"""Issue 14: every input is checked before any work, and every CLI error is one line, exit 2.

Each case of the issue's list has a test here; ``no_sampling`` makes any
simulation fail the test, so "checked before the work" is what is tested.
"""

from __future__ import annotations

import importlib
import json
import re

import pytest

import montecarlo as mc
from montecarlo import driver
from montecarlo.cli import main
from montecarlo.validation import MAX_DIE_SIZE, MAX_UNITS_PER_SIDE


@pytest.fixture
def no_sampling(monkeypatch):
    """Fail the test if any kernel run starts."""

    def boom(*args, **kwargs):
        raise AssertionError("a simulation started before the input was checked")

    import montecarlo.coe5.battle as battle
    import montecarlo.sf.fights as fights

    monkeypatch.setattr(driver, "_chunk_loop", boom)
    monkeypatch.setattr(battle, "run_batches", boom)
    monkeypatch.setattr(fights, "run_batches", boom)
    # By module: the package's names compare and sensitivity are the functions.
    # Import both before patching: sensitivity takes run_paired from compare on import.
    modules = [importlib.import_module(f"montecarlo.{m}") for m in ("compare", "sensitivity")]
    for module in modules:
        monkeypatch.setattr(module, "run_paired", boom)


def assert_usage_error(capsys, argv, *needles):
    """Exit 2, one line on stderr naming what was wrong, nothing on stdout."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("montecarlo"), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


UNWRITABLE = "/proc/montecarlo-test/x.png"
PLOT_COMMANDS = [
    ["roll", "1-5"],
    ["matchup", "pikeman:2", "militia:2"],
    ["damage", "pikeman", "knight"],
    ["damage", "--all"],
    ["sf", "fight", "warrior:1", "goblin:1"],
    ["sf", "attack", "fencer", "orc"],
    ["round-robin", "militia", "knight"],
    ["sensitivity", "pikeman:2", "militia:2"],
    ["sf", "sensitivity", "warrior:1", "goblin:1"],
]


@pytest.mark.parametrize("argv", PLOT_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_unwritable_plot_fails_before_work(argv, capsys, no_sampling):
    assert_usage_error(capsys, [*argv, "--plot", UNWRITABLE], "--plot", UNWRITABLE)


@pytest.mark.parametrize("argv", PLOT_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_unsupported_plot_format(argv, capsys, no_sampling, tmp_path):
    target = tmp_path / "out.txt"
    assert_usage_error(capsys, [*argv, "--plot", str(target)], "--plot", "'.txt'", ".png")
    assert not target.exists()


def test_plot_to_a_folder(capsys, no_sampling, tmp_path):
    assert_usage_error(capsys, ["roll", "1-5", "--plot", str(tmp_path)], "is a folder")


def test_plot_without_suffix_reports_the_file_written(capsys, tmp_path):
    target = tmp_path / "noext"
    assert main(["roll", "1-5", "--trials", "2000", "--seed", "1", "--plot", str(target)]) == 0
    out = capsys.readouterr().out
    assert f"plot written to {target}.png" in out
    assert (tmp_path / "noext.png").is_file() and not target.exists()


def test_sweep_out_unwritable(capsys, no_sampling):
    assert_usage_error(
        capsys, ["sweep", "examples/grid.csv", "--out", "/proc/rows.csv"], "--out", "/proc"
    )


def test_sweep_out_wrong_suffix(capsys, no_sampling, tmp_path):
    target = tmp_path / "rows.txt"
    assert_usage_error(capsys, ["sweep", "examples/grid.csv", "--out", str(target)], ".csv")
    assert not target.exists()


def test_report_folder_unwritable(capsys, no_sampling):
    assert_usage_error(capsys, ["report", "examples/report.toml", "-o", "/proc/rep"], "-o", "/proc")


def test_report_folder_is_a_file(capsys, no_sampling, tmp_path):
    existing = tmp_path / "index.txt"
    existing.write_text("keep me")
    err = assert_usage_error(capsys, ["report", "examples/report.toml", "-o", str(existing)])
    assert "existing file" in err and "folder" in err
    assert existing.read_text() == "keep me"


def test_report_typo_in_last_section_fails_first(capsys, no_sampling, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[[matchup]]\nattacker = "militia:5"\ndefender = "troll:1"\n'
        '[[required]]\nunit = "militai"\nversus = "troll:1"\n'
    )
    assert_usage_error(capsys, ["report", str(spec), "-o", str(tmp_path / "r")], "militai")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("content", ["", "\n", "   "])
def test_sweep_empty_grid_file(content, capsys, no_sampling, tmp_path):
    grid = tmp_path / "empty.csv"
    grid.write_text(content)
    assert_usage_error(capsys, ["sweep", str(grid)], "empty.csv", "empty")


def test_sweep_grid_without_header(capsys, no_sampling, tmp_path):
    grid = tmp_path / "g.csv"
    grid.write_text("pikeman:3,militia:3\n")
    assert_usage_error(capsys, ["sweep", str(grid)], "g.csv", "attacker")


def test_dask_unreachable_is_one_line_and_quick(capsys, no_sampling):
    pytest.importorskip("dask.distributed")
    argv = ["sweep", "examples/grid.csv", "--dask", "tcp://127.0.0.1:1", "--dask-timeout", "1"]
    assert_usage_error(capsys, argv, "--dask", "tcp://127.0.0.1:1", "1 s")


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (
            ["matchup", "pikeman:5", "knight:3", "--width", "100000", "--length", "100000"],
            ["--width", "1000"],
        ),
        (
            ["matchup", "pikeman:5", "knight:3", "--width", "400", "--length", "400"],
            ["grid area", "100,000"],
        ),
        (
            ["matchup", "pikeman:99999999999999999999", "knight:3"],
            ["attacker's unit count", f"{MAX_UNITS_PER_SIDE:,}"],
        ),
        (["roll", "1-999999999"], ["die size", f"{MAX_DIE_SIZE:,}"]),
        (["roll", "1-5", "--trials", "10000000000000"], ["--trials", "at most"]),
        (["roll", "1-5", "--dice", "1000"], ["--dice"]),
        (["matchup", "pikeman:5", "knight:3", "--precision", "0.00001"], ["--precision"]),
        (["sf", "fight", "goblin:40", "warrior:1"], ["party A", "36"]),
        (["matchup", "pikeman:5", "pikeman:5", "--fort", "2"], ["--fort", "--siege"]),
        (
            ["round-robin", "militia", "knight", "--by", "equal_gold", "--budget", "1"],
            ["budget of 1 gold", "Knight (40 gold)"],
        ),
        (["round-robin", "militia", "knight", "--budget", "100"], ["--budget", "equal_gold"]),
        (["damage", "knight", "troll", "--wall", "9"], ["--wall", "0 to 3"]),
        (["damage", "pikeman", "knight", "--all"], ["--all"]),
        (["required", "militia", "troll:1", "--target", "1.5"], ["--target"]),
        (["rules", "C-99"], ["C-99"]),
        (["units", "--roster", "/proc/none.toml"], ["none.toml"]),
        (["roll", "1-5", "--seed", "-3"], ["--seed"]),
        (["matchup", "pikeman:5"], ["defender"]),
        (["nonsense"], ["nonsense"]),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) and v and v[0][0] != "-" else None,
)
def test_limits_and_silent_surprises_are_errors(argv, needles, capsys, no_sampling):
    assert_usage_error(capsys, argv, *needles)


def test_required_says_its_limit_and_exits_1(capsys):
    assert main(["required", "militia", "troll:1", "--max-count", "3", "--seed", "1"]) == 1
    out = capsys.readouterr().out
    assert "max_count = 3" in out and "--max-count" in out and "seed 1" in out


def test_units_json_has_no_python_repr(capsys):
    assert main(["units", "knight", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lance = data["weapons"][0]
    assert lance["damage"] == {"text": "1-6", "base": 6, "bonus": 0}
    assert "{'" not in json.dumps(data)


# -- the Python API: InputError / DataError, never AttributeError ------------------
def test_sweep_accepts_a_grid_file_name(tmp_path):
    grid = tmp_path / "grid.csv"
    grid.write_text("attacker,defender\npikeman:3,militia:3\n")
    df = mc.sweep(str(grid), trials=256, seed=1, progress=False)
    assert list(df["attacker"]) == ["pikeman:3"] and df.attrs["seed"] == 1
    with pytest.raises(mc.InputError, match="not found"):
        mc.sweep(str(tmp_path / "missing.csv"), trials=256)


@pytest.mark.parametrize("grid", [42, {"attacker": "a:1"}, [42], [("a:1",)]])
def test_sweep_rejects_wrong_grid_types(grid):
    with pytest.raises(mc.InputError):
        mc.sweep(grid, trials=256, progress=False)


def test_matchup_rules_as_dict_or_instance():
    kw = {"trials": 2048, "seed": 5, "progress": False}
    as_dict = mc.matchup("militia:5", "troll:1", rules={"regen_fraction": 0.3}, **kw)
    as_obj = mc.matchup("militia:5", "troll:1", rules=mc.BattleRules(regen_fraction=0.3), **kw)
    assert as_dict.counts == as_obj.counts
    with pytest.raises(mc.InputError, match="regen"):
        mc.matchup("militia:5", "troll:1", rules={"regen": 0.3}, **kw)
    with pytest.raises(mc.InputError, match="BattleRules"):
        mc.matchup("militia:5", "troll:1", rules="fast", **kw)


def test_sf_is_reachable_as_the_readme_writes_it():
    odds = mc.sf.check(2, 9)
    assert 0 < odds.success < 1


def test_save_refuses_bad_formats(tmp_path):
    import matplotlib.pyplot as plt

    from montecarlo.plotting import save

    fig = plt.figure()
    with pytest.raises(mc.InputError, match="unsupported file type"):
        save(fig, tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "examples/grid.csv", "--trials", "256"],
        ["round-robin", "militia", "knight", "--trials", "256", "--plot", "{tmp}/rr.png"],
        ["required", "militia", "troll:1", "--max-count", "8"],
        ["damage", "pikeman", "knight", "--trials", "1000"],
        ["resist", "10", "--trials", "1000"],
        ["sf", "attack", "fencer", "orc", "--trials", "1000"],
    ],
    ids=lambda a: a[0] if a[0] != "sf" else "sf attack",
)
def test_fresh_seeds_are_printed(argv, capsys, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) in (0, 1)
    out = capsys.readouterr().out
    assert re.search(r"\bseed \d{6,}", out), out
    assert main([*argv, "--json"]) in (0, 1)
    assert isinstance(json.loads(capsys.readouterr().out)["seed"], int)


def test_kept_samples_have_a_stated_limit():
    with pytest.raises(mc.InputError, match=r"0\.8 GB"):
        mc.oed(5).sample(10**9)


def test_round_robin_title_fits_in_the_figure():
    rr = mc.round_robin(["militia", "knight"], trials=256, seed=1, progress=False)
    fig = rr.plot()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.axes[0].title.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height
