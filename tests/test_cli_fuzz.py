"""Issue 14, property test: random argument lists and random TOML files.

Whatever a user types, the CLI exits with status 0 or 2 (1 only for
``required`` that finds no count), never prints a traceback, and leaves no file
behind when it fails; the loaders raise InputError/DataError or succeed.
Examples are bounded and trial counts small, to keep the suite fast.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from montecarlo.cli import main
from montecarlo.coe5.units import load_units
from montecarlo.errors import InputError
from montecarlo.report import load_spec
from montecarlo.sf.characters import load_characters
from montecarlo.sweeps import read_grid

ARMIES = [
    "pikeman:2",
    "militia:3",
    "knight:1",
    "troll:1",
    "pikeman:0",
    "nobody:1",
    "",
    "pikeman:99999999999",
    "pikeman:2,archer:1",
    "warrior:1",
    "goblin:2",
    ":3",
    "a,b",
]
VALUES = [
    "0",
    "-1",
    "1",
    "3",
    "64",
    "x",
    "1e3",
    "0.2",
    "0.00001",
    "10000000000000",
    "",
    "1-5",
    "1-999999999",
    "5-1",
    "C-4.2",
    "S-99",
    "é",
    "--",
    "nan",
]
PATHS = [
    "/proc/x.png",
    "out.txt",
    "plot.png",
    "noext",
    "rows.csv",
    "rows.parquet",
    "/proc/rows.csv",
    "rep",
    "sub/dir/p.svg",
    ".",
]
#: Subcommand -> its options (a --trials value is always small, see below).
COMMANDS = {
    "roll": ["--soed", "--dice", "--plot", "--seed", "--json", "--threads", "--trials"],
    "matchup": [
        "--siege",
        "--fort",
        "--width",
        "--length",
        "--plot",
        "--seed",
        "--json",
        "--trials",
        "--precision",
        "--roster",
    ],
    "damage": [
        "--all",
        "--wall",
        "--distance",
        "--immobile",
        "--frozen",
        "--plot",
        "--metric",
        "--seed",
        "--json",
        "--trials",
    ],
    "resist": ["--difficulty", "--seed", "--json", "--trials"],
    "units": ["--roster", "--json"],
    "sf fight": [
        "--battlefield",
        "--surprise",
        "--pincer",
        "--plot",
        "--seed",
        "--json",
        "--trials",
        "--characters",
    ],
    "sf attack": [
        "--weapon",
        "--cover",
        "--surprised",
        "--ship",
        "--pincer",
        "--plot",
        "--seed",
        "--json",
        "--trials",
    ],
    "sf characters": ["--characters"],
    "compare": [
        "--variant",
        "--variant",
        "--siege",
        "--fort",
        "--seed",
        "--json",
        "--trials",
        "--precision",
    ],
    "sf compare": ["--variant", "--variant", "--battlefield", "--surprise", "--seed", "--trials"],
    "sensitivity": ["--only", "--plot", "--seed", "--json", "--trials"],
    "round-robin": [
        "--by",
        "--counts",
        "--budget",
        "--plot",
        "--out",
        "--seed",
        "--json",
        "--trials",
    ],
    "sweep": ["--out", "--seed", "--json", "--trials"],
    "rules": ["--json"],
}
POSITIONAL = {
    "roll": ["1-5", "1-5(+10)", "1-x", "0"],
    "resist": ["10", "-1", "x"],
    "units": ["knight", "dragon"],
    "rules": ["C-4.2", "c-1", "X"],
    "sweep": ["grid.csv", "grid.toml", "missing.csv"],
}
#: Values per option: mostly valid, some not.
OPTION_VALUES = {
    "--seed": ["1", "7", "-1", "x"],
    "--dice": ["1", "2", "1000"],
    "--fort": ["1", "3", "5"],
    "--width": ["5", "10", "100000"],
    "--length": ["10", "20", "1"],
    "--wall": ["0", "2", "9"],
    "--distance": ["1", "3", "99"],
    "--metric": ["mean", "hits_to_kill", "x"],
    "--difficulty": ["easy", "hard", "x"],
    "--battlefield": ["open", "corridor", "ship", "x"],
    "--surprise": ["a", "b", "c"],
    "--pincer": ["a", "b", "c"],
    "--weapon": ["Rapier", "x"],
    "--by": ["equal_gold", "equal_count", "x"],
    "--counts": ["1", "3", "0"],
    "--budget": ["120", "1", "0"],
    "--threads": ["1", "2", "0"],
    "--variant": [
        "knight.armor=+1",
        "rules.sidestep=false",
        "x",
        "fort=9",
        "attacker=",
        "pikeman.hp=-100",
        "warrior.hp=+1",
        "policy.cast=false",
        "siege=true",
    ],
    "--only": ["rules.sidestep", "rules.burn_chance", "policy.cast", "x"],
}
UNITS = [
    "militia",
    "pikeman",
    "knight",
    "troll",
    "dragon",
    "knight.lance",
    "fencer",
    "orc",
    "goblin",
    "warrior",
    "knight",
    "militia",
]


@st.composite
def argv_lists(draw):
    name = draw(st.sampled_from(sorted(COMMANDS)))
    argv = name.split()
    if name in POSITIONAL:
        argv.append(draw(st.sampled_from(POSITIONAL[name])))
    elif name in ("matchup", "sf fight", "compare", "sf compare", "sensitivity"):
        argv += draw(
            st.lists(
                st.sampled_from(ARMIES),
                min_size=2 - draw(st.integers(0, 1)),
                max_size=2 + draw(st.integers(0, 1)),
            )
        )
    elif name in ("damage", "sf attack", "round-robin"):
        argv += draw(st.lists(st.sampled_from(UNITS), min_size=1, max_size=3))
    for _ in range(draw(st.integers(0, 4))):
        bogus = draw(st.integers(0, 9)) == 0
        option = "--bogus" if bogus else draw(st.sampled_from(COMMANDS[name]))
        argv.append(option)
        if option in ("--plot", "--out", "--roster", "--characters"):
            argv.append(draw(st.sampled_from([*PATHS, "bad.toml"])))
        elif option == "--trials":
            argv.append(draw(st.sampled_from(["0", "64", "x", "10000000000000"])))
        elif option == "--precision":
            argv.append(draw(st.sampled_from(["0.2", "0", "0.7", "x", "0.00001"])))
        elif option in OPTION_VALUES:
            argv.append(draw(st.sampled_from(OPTION_VALUES[option])))
        elif option not in (
            "--soed",
            "--json",
            "--all",
            "--siege",
            "--immobile",
            "--frozen",
            "--cover",
            "--surprised",
            "--ship",
        ):
            argv.append(draw(st.sampled_from(VALUES)))
    paired = ("compare", "sf compare", "sensitivity")
    if name in ("matchup", "sf fight", "round-robin", "sweep", *paired) and "--trials" not in argv:
        if "--precision" not in argv:
            argv += ["--trials", "64"]
    if name in ("roll", "resist", "damage", "sf attack") and "--trials" not in argv:
        argv += ["--trials", "2000"]
    return argv


@contextlib.contextmanager
def sandbox():
    """A fresh working folder holding a few input files, restored afterwards."""
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        Path("grid.csv").write_text("attacker,defender\npikeman:2,militia:2\n")
        Path("grid.toml").write_text('[[matchup]]\nattacker = "knight:1"\ndefender = "troll:1"\n')
        Path("bad.toml").write_text("[[unit]\nname = ")
        try:
            yield Path(tmp)
        finally:
            os.chdir(old)


def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(argv_lists())
def test_random_argument_lists(argv):
    with sandbox() as folder:
        before = set(folder.rglob("*"))
        code, err = run_cli(argv)
        after = set(folder.rglob("*"))
    allowed = (0, 1, 2) if argv[0] == "required" else (0, 2)
    assert code in allowed, (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert err.count("\n") == 1, (argv, err)
        assert after == before, (argv, "left files behind", after - before)


# -- random TOML files ---------------------------------------------------------
KEYS = [
    "name",
    "hp",
    "armor",
    "shield",
    "mr",
    "morale",
    "strength",
    "gold",
    "description",
    "damage",
    "type",
    "initiative",
    "range",
    "shots",
    "magic",
    "body",
    "tech",
    "combat",
    "position",
    "attacker",
    "defender",
    "trials",
    "precision",
    "units",
    "unit",
    "versus",
    "seed",
    "title",
    "fort",
    "siege",
    "budget",
    "by",
    "target",
    "max_count",
    "bogus",
]
SCALARS = st.one_of(
    st.integers(-5, 30),
    st.booleans(),
    st.floats(-1, 2, allow_nan=False),
    st.sampled_from(
        [
            "Knight",
            "militia:3",
            "troll:1",
            "1-5",
            "2d+1",
            "pierce",
            "front",
            "",
            "x",
            "equal_gold",
            "mean",
        ]
    ),
    st.lists(st.sampled_from(["militia", "knight", "troll", "x"]), max_size=3),
)
TABLES = ["unit", "character", "matchup", "damage", "round_robin", "required", "weapons"]


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return repr(v)


@st.composite
def toml_docs(draw):
    if draw(st.booleans()) and draw(st.booleans()):
        return draw(st.text(max_size=60))  # anything at all, syntax errors included
    lines = [
        f"{k} = {toml_value(draw(SCALARS))}"
        for k in draw(st.lists(st.sampled_from(KEYS), max_size=3, unique=True))
    ]
    for _ in range(draw(st.integers(0, 3))):
        lines.append(f"[[{draw(st.sampled_from(TABLES))}]]")
        for k in draw(st.lists(st.sampled_from(KEYS), max_size=6, unique=True)):
            lines.append(f"{k} = {toml_value(draw(SCALARS))}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(toml_docs(), st.sampled_from(["units", "characters", "spec", "grid"]))
def test_loaders_raise_input_errors_only(text, loader):
    with sandbox() as folder:
        path = folder / "f.toml"
        path.write_text(text, "utf-8")
        load = {
            "units": load_units,
            "characters": load_characters,
            "spec": load_spec,
            "grid": read_grid,
        }[loader]
        try:
            load(str(path))
        except InputError:
            pass  # DataError is an InputError


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(toml_docs(), st.sampled_from(["units", "sf characters", "report"]))
def test_cli_with_random_toml_files(text, command):
    with sandbox() as folder:
        Path("in.toml").write_text(text, "utf-8")
        argv = {
            "units": ["units", "--roster", "in.toml"],
            "sf characters": ["sf", "characters", "--characters", "in.toml"],
            "report": ["report", "in.toml", "-o", "rep"],
        }[command]
        before = set(folder.rglob("*"))
        code, err = run_cli(argv)
        after = set(folder.rglob("*"))
    assert code in (0, 2), (argv, text, err)
    assert "Traceback" not in err
    if code == 2:
        assert after == before, (text, after - before)
