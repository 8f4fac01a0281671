"""The `montecarlo roll` and `montecarlo resist` commands."""

import json
import subprocess
import sys

import pytest

import montecarlo as mc
from montecarlo.cli import main


def test_roll_prints_exact_and_sampled(capsys, tmp_path):
    png = tmp_path / "roll.png"
    assert main(["roll", "1-5(+10)", "--trials", "200000", "--seed", "7", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "OED(15)" in out and "exact" in out and "sampled" in out
    assert "P(T > 15)" in out
    assert png.stat().st_size > 10_000


def test_roll_json(capsys):
    assert main(["roll", "1-5", "--soed", "--dice", "2", "--trials", "50000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["distribution"] == "2×S-OED(5)"
    assert data["stats"]["mean"]["exact"] == pytest.approx(2 * 3.2)


def test_roll_options_of_c1_4_and_c1_7(capsys):
    argv = ["roll", "1-5", "--dice", "2", "--open-ended", "together", "--trials", "20000"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["distribution"] == "2×OED(5) together"
    assert data["stats"]["mean"]["exact"] == pytest.approx(
        mc.oed(5, 2, open_ended="together").mean()
    )
    assert main(["roll", "1-2 (-3)", "--nonpositive", "one", "--trials", "1000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["mean"]["exact"] == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["roll", "1-x"], "not a damage die"),
        (["roll", "5-1"], "below the lower end"),
        (["resist", "--", "-1"], "expected an integer from 0 to 1000, got -1"),
        (["roll", "1-5", "--soed", "--open-ended", "together"], "not with --soed"),
        (["roll", "1-5", "--open-ended", "both"], "--open-ended"),
    ],
)
def test_bad_input_exit_code(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_zero_trials_is_rejected(capsys):
    assert main(["roll", "1-5", "--trials", "0"]) == 2
    assert "positive integer" in capsys.readouterr().err


def test_python_dash_m_reaches_the_cli():
    done = subprocess.run(
        [sys.executable, "-m", "montecarlo", "roll", "1-x"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "not a damage die" in done.stderr
    assert "Traceback" not in done.stderr
