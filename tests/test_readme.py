"""The README runs: every ``>>>`` example as a doctest, every shell command with few trials.

So the README can never drift from the code again (issue 14).
"""

from __future__ import annotations

import doctest
import re
import shlex
import shutil
from pathlib import Path

import pytest

from montecarlo.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")

#: Commands that are not ours to run in a test, with the reason.
NOT_RUN = {
    "pip": "installs the package",
    "ruff": "the lint step of CI",
    "python3": "the test suite, the benchmarks and the mutation runner: minutes each",
    "dask": "starts a Dask scheduler or worker",
}
#: Commands that sample, so must print their seed.
SAMPLING = ("matchup", "roll", "resist", "damage", "sf fight", "sf attack", "required",
            "round-robin", "sweep", "compare", "sensitivity", "sf compare",
            "sf sensitivity")  # fmt: skip


def fenced_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def shell_commands() -> list[str]:
    """Every command line of the README: ``$`` lines, bash blocks and inline spans."""
    lines = [ln[2:] for block in fenced_blocks("text") for ln in block.splitlines()
             if ln.startswith("$ ")]  # fmt: skip
    lines += [ln.split("#")[0].strip() for block in fenced_blocks("bash")
              for ln in block.splitlines() if ln.strip()]  # fmt: skip
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    lines += re.findall(r"`(montecarlo [^`]+)`", prose)
    commands = []
    for line in lines:
        for part in line.split("&&"):
            part = part.strip()
            if part and part not in commands:
                commands.append(part)
    return commands


#: Commands named (in headings and prose) without their arguments; each is shown
#: in full elsewhere.
NAMES_ONLY = {
    "montecarlo sf attack",
    "montecarlo matchup",
    "montecarlo replay",
    "montecarlo damage",
    "montecarlo roll",
    "montecarlo sf",
    "montecarlo compare",
    "montecarlo sf compare",
    "montecarlo sensitivity",
}


def runnable(command: str) -> bool:
    words = command.split()
    if words[0] in NOT_RUN or command in NAMES_ONLY:
        return False
    assert words[0] == "montecarlo", f"unexpected command in README: {command}"
    # Placeholders in capitals (COMMAND, tcp://SCHEDULER:8786) are not runnable as written.
    return not any(re.search(r"\b[A-Z]{4,}\b", w) for w in words)


def shrink(argv: list[str]) -> list[str]:
    """The same command with few trials: the README must run, not re-measure."""
    out = list(argv)
    for flag, small in (("--trials", "512"), ("--precision", "0.05")):
        if flag in out:
            out[out.index(flag) + 1] = small
    name = " ".join(out[:2]) if out[0] == "sf" else out[0]
    fixed = name in ("matchup", "roll", "resist", "sf fight", "sf attack", "round-robin", "sweep")
    if fixed and "--trials" not in out and "--precision" not in out:
        out += ["--trials", "512"]
    if out[0] == "damage" and "--all" not in out and "--trials" not in out:
        out += ["--trials", "512"]
    return out


def test_readme_points_to_the_shipped_rules():
    assert "../shared" not in README
    assert "docs/rules.md" in README and (ROOT / "docs" / "rules.md").is_file()


def test_python_examples_run_as_doctests():
    source = "\n".join(b for b in fenced_blocks("python") if ">>>" in b)
    assert source.count(">>>") >= 8
    parser = doctest.DocTestParser()
    test = parser.get_doctest(source, {}, "README.md", str(ROOT / "README.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} README doctest(s) failed (see output above)"


COMMANDS = [c for c in shell_commands() if runnable(c)]


def test_every_shell_command_is_accounted_for():
    skipped = [c for c in shell_commands() if not runnable(c)]
    for command in skipped:
        word = command.split()[0]
        assert word in NOT_RUN or command in NAMES_ONLY or re.search(r"[A-Z]{4,}", command)
    assert len(COMMANDS) >= 12


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A working folder with the examples, their trial counts made small."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    spec = tmp_path / "examples" / "report.toml"
    text = re.sub(r"trials = \d+", "trials = 256", spec.read_text())
    spec.write_text(re.sub(r"precision = [\d.]+", "precision = 0.05", text))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", COMMANDS)
def test_shell_command_runs(command, sandbox, capsys):
    argv = shrink(shlex.split(command)[1:])
    assert main(argv) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    name = " ".join(argv[:2]) if argv[0] == "sf" else argv[0]
    if name in SAMPLING and not (name == "damage" and "--all" in argv):
        assert re.search(r"\bseed \d+", out), f"{command!r} does not print its seed"
