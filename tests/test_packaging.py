"""The release builds, installs into a fresh virtual environment and answers there.

``python -m build`` makes the sdist and, from the unpacked sdist, the wheel, so a
file the sdist forgets fails here too.  The wheel goes into a new virtual
environment of its own, with its dependencies resolved by pip from
``pyproject.toml`` (nothing of this environment is visible there), and must
answer the README's main command and print a rule, from a folder outside the
checkout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import montecarlo

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (
        f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT)
    return out


def test_the_wheel_carries_the_package_data_and_nothing_of_the_tests(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    assert wheel.name.startswith(f"montecarlo_combat-{montecarlo.__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    data = ("coe5_units.toml", "sf_characters.toml", "sf_battlefields.toml")
    for needed in ("montecarlo/cli/rules.md", *(f"montecarlo/data/{name}" for name in data)):
        assert needed in names
    tops = {n.split("/")[0] for n in names}
    assert not tops & {"tests", "benchmarks", "notebooks", "tools", "docs", "examples"}
    assert (ROOT / "montecarlo" / "cli" / "rules.md").read_text() == (
        ROOT / "docs" / "rules.md"
    ).read_text()
    assert len(list(dist.glob("*.tar.gz"))) == 1


def test_the_wheel_installs_in_a_fresh_environment_and_answers(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    (wheel,) = dist.glob("*.whl")
    _run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    where = _run([str(bin_dir / "python"), "-c", "import montecarlo; print(montecarlo.__file__)"],
                 tmp_path)  # fmt: skip
    assert Path(where.strip()).is_relative_to(venv)
    out = _run([str(bin_dir / "montecarlo"), "matchup", "pikeman:10", "knight:3"], tmp_path)
    assert re.search(r"defender wins\s+\d+\.\d+%", out)
    rule = _run([str(bin_dir / "montecarlo"), "rules", "C-4.2"], tmp_path)
    assert "C-4.2" in rule and "burn" in rule
