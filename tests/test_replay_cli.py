"""``montecarlo replay``: the readable account, its pictures, and one-line errors."""

from __future__ import annotations

import pytest

from montecarlo.cli import main


def test_replay_prints_the_account_and_draws_the_grid(capsys, tmp_path):
    png, gif, csv = tmp_path / "f.png", tmp_path / "b.gif", tmp_path / "e.csv"
    argv = ["replay", "pikeman:3", "knight:1", "--seed", "7", "--battle", "5", "--width", "4",
            "--length", "8", "--png", str(png), "--gif", str(gif),
            "--events", str(csv)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Battle 5 of seed 7: Pikeman ×3 (attacker) vs Knight ×1 (defender)")
    assert "Round 1" in out and "End:" in out
    assert png.stat().st_size > 1000 and gif.stat().st_size > 1000
    assert csv.read_text().startswith("kind,round,step,rule,actor,target,weapon")


def test_first_finds_an_upset(capsys):
    argv = ["replay", "pikeman:10", "knight:3", "--seed", "7", "--first", "attacker-wins"]
    assert main(argv) == 0
    assert "End: the attacker wins" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--battle", "1", "--gif", "x.png"], "--gif"),
        (["--battle", "1", "--fort", "2"], "--siege"),
        (["--battle", "1", "--png", "x.png", "--frame", "100000"], "--frame"),
        (["--battle", "1", "--frame", "3"], "--png"),
        (["--first", "attacker"], "--first"),
        ([], "--battle"),
        (["--battle", "-1"], "--battle"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(extra, needle, capsys, tmp_path):
    extra = [str(tmp_path / e) if e.endswith(".png") else e for e in extra]
    assert main(["replay", "pikeman:2", "knight:1", "--seed", "1", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_sf_replay_prints_the_fight(capsys, tmp_path):
    csv = tmp_path / "e.csv"
    argv = ["sf", "replay", "warrior:1,archer:2", "orc:2", "--battlefield", "cliff", "--seed", "2",
            "--fight", "5", "--events", str(csv)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    # S-9: the battlefield and what it means, named once
    assert out.startswith("Fight 5 of seed 2, cliff path: front and back lines, 1 front-liner")
    assert "battlefield battlefield" not in out
    assert "Round 1" in out and "End: party" in out
    assert csv.read_text().startswith("kind,round,rule,actor,target")


@pytest.mark.parametrize(
    ("extra", "needle"),
    [([], "--fight"), (["--first", "a"], "--first"), (["--fight", "1", "--pincer", "a"], "pincer")],
)
def test_sf_replay_bad_input(extra, needle, capsys):
    assert main(["sf", "replay", "warrior:1", "goblin:1", "--seed", "1", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err
