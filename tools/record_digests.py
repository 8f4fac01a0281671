"""Record golden per-battle digests of today's CoE5 battle kernel, or check them.

Before the CoE5 battle kernel is rewritten ("one engine per game"), this script
freezes what today's kernel plays, the way scipy's ``special/_precompute/``
scripts make reference data: for each case below it plays a few seeds of some
hundreds of battles with today's code and writes one SHA-256 per battle to
``tests/data/coe5_digests.json``.  ``tests/test_coe5_digests.py`` replays every
case and compares, so the rewritten kernel must play the very same battles:
same seed, same battles.

The cases are every matchup of ``tests/test_coe5_indexed.py`` (its custom units
copied here, so that later edits of that test cannot move the golden data),
plus a few plain matchups that users run (``FIDELITY``).  All units come from
the frozen roster ``tests/data/legacy_units.toml`` alone, not from the shipped
roster, which the real-units issue replaces.  Every field of ``BattleRules`` and
every grid option is written out for each case, so a later change of a default
cannot change what the digests mean.  In particular today's kernel regenerates
10% of a unit's hit points a round (``regen_fraction=0.1``), where RULES.md
C-8.9 now says 5%: the digests pin 10%.

The digest of one battle is the full SHA-256 (64 hex characters, not
truncated) of a byte string of little-endian int64 values: the battle's
outcome code and its rounds, then for each unit in slot order (the
deployment's slots, attacker's first) its type index and army part in this
battle (C-6 deals units out per battle), its final HP, state, column, row and
status bits: the ``D_TYPE, D_PART, D_HP, D_STATE, D_X, D_Y, D_STATUS`` columns
of the kernel's debug record (``matchup(..., _debug=True)``).

Usage::

    python tools/record_digests.py              # record tests/data/coe5_digests.json
    python tools/record_digests.py --check      # recompute and compare; exit 1 on a difference
    python tools/record_digests.py --check --case 1v1 --case siege
    python tools/record_digests.py --out /tmp/digests.json

Record only from an unchanged main: the file is the reference the rewrite is
held to.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernels.coe5_battle import D_HP, D_PART, D_STATE, D_STATUS, D_TYPE, D_X, D_Y
from montecarlo.coe5.battle import BattleRules, matchup
from montecarlo.coe5.dice import parse_die
from montecarlo.coe5.units import Roster, Unit, Weapon, parse_roster

ROOT = Path(__file__).resolve().parent.parent
LEGACY_UNITS = ROOT / "tests" / "data" / "legacy_units.toml"
DEFAULT_OUT = ROOT / "tests" / "data" / "coe5_digests.json"

#: Seeds of every case; each seed plays the case's battles from the start.
SEEDS = (1, 2, 3)
#: Battles per seed: small armies get more than one 256-battle chunk (the second
#: one partial); mid-size and big battles fewer, to keep the file and the replay small.
SMALL, MEDIUM, BIG = 300, 128, 40

#: The debug columns hashed per unit, in this order.
UNIT_COLUMNS = (D_TYPE, D_PART, D_HP, D_STATE, D_X, D_Y, D_STATUS)

#: Every ``BattleRules`` field with the value today's kernel plays by default.
LEGACY_RULES: dict[str, Any] = {
    "burn_chance": 0.5,
    "burn_stop": 0.3,
    "burn_die": 3,
    "freeze_chance": 0.5,
    "thaw_chance": 0.2,
    "stun_recover": 0.75,
    "paralysis_end": 0.1,
    "poison_divisor": 10,
    "regen_fraction": 0.1,  # today's kernel; RULES.md C-8.9 now says 0.05
    "cloud_clear": 0.5,
    "fatigue_start": None,
    "max_rounds": 10_000,
    "extra_rounds": 75,
    "siege_rounds": 15,
    "siege_bombardment": True,
    "tunnelling": "attacker",
    "burrow_chance": 0.25,
    "wall_range_bonus": 1,
    "high_wall_range_bonus": 2,
    "high_wall_fort": 3,
    "shuffle_deployment": True,
    "siege_deployment": "ranged_first",
    "hold_wall": True,
    "fear_die_base": 6,
    "fear_checks": "each",
    "strength_check": "normal",
    "random_nearest": True,
    "sidestep": True,
    "simultaneous_moves": True,
    "move_order": "paired",
    "target_draw": "attack",
    "long_range_halving": "raw",
}


def legacy_roster(path: Path = LEGACY_UNITS) -> Roster:
    """The frozen roster alone, without the shipped one merged under it."""
    return Roster(parse_roster(path.read_text("utf-8"), str(path)), (str(path),))


ROSTER = legacy_roster()

# The custom units of tests/test_coe5_indexed.py, copied.
SPEAR = Weapon("Spear", parse_die("1-6"))
BURROWER = Unit("Burrower", 12, (SPEAR,), combat_burrowing=True)
TUNNELLER = Unit("Sapper", 10, (SPEAR,), siege_tunneling=True)
WAND_MAGE = Unit(
    "Wand mage",
    9,
    (Weapon("Wand", parse_die("1-6"), type="fire", range=6, wand=True), SPEAR),
)
CLOUD = Unit(
    "Cloud mage",
    8,
    (Weapon("Stink cloud", parse_die("1-4"), type="poison", range=6, cloud=True), SPEAR),
)
DAGGER = Weapon("Dagger", parse_die("1-3"), initiative=4)
SLINGER = Unit(
    "Slinger",
    8,
    (Weapon("Sling", parse_die("1-4"), range=4, shots=3, reload=1, initiative=5), DAGGER),
)
SHARPSHOOTER = Unit(
    "Sharpshooter",
    8,
    (
        Weapon("Arbalest", parse_die("1-6"), range=40, reload=2, initiative=2),
        Weapon("Shortbow", parse_die("1-3"), range=3, shots=2),
        DAGGER,
    ),
)
CUSTOM_UNITS = (BURROWER, TUNNELLER, WAND_MAGE, CLOUD, SLINGER, SHARPSHOOTER)

Army = tuple[tuple[Unit, int], ...]


@dataclass(frozen=True)
class Case:
    """One matchup whose battles are recorded.

    Attributes
    ----------
    name : str
        Its key in the data file; for a matchup of ``tests/test_coe5_indexed.py``
        that test's id.
    attacker, defender : tuple of (Unit, int)
        The armies.
    battles : int
        Battles per seed.
    options : dict
        ``siege``, ``fort``, ``width`` and ``length`` of :func:`matchup`, all given.
    rules : dict
        Every field of :class:`BattleRules`.
    """

    name: str
    attacker: Army
    defender: Army
    battles: int
    options: Mapping[str, Any]
    rules: Mapping[str, Any]

    def describe(self) -> dict[str, Any]:
        """What the data file says about the case, next to its digests."""
        return {
            "attacker": _army_record(self.attacker),
            "defender": _army_record(self.defender),
            "battles": self.battles,
            "options": dict(self.options),
            "rules": dict(self.rules),
        }


def _army_record(army: Army) -> list[list[Any]]:
    return [[unit.name, count] for unit, count in army]


def army(spec: str) -> Army:
    """``"militia:10,archer:5"`` as units of the legacy roster."""
    out = []
    for part in spec.split(","):
        name, count = part.rsplit(":", 1)
        out.append((ROSTER[name], int(count)))
    return tuple(out)


def case(
    name: str,
    attacker: Army | str,
    defender: Army | str,
    battles: int,
    *,
    siege: bool = False,
    fort: int = 1,
    width: int = 10,
    length: int = 20,
    **rule_changes: Any,
) -> Case:
    """A :class:`Case` with every option and rule written out.

    ``rule_changes`` are the fields that differ from :data:`LEGACY_RULES`.
    """
    unknown = set(rule_changes) - set(LEGACY_RULES)
    if unknown:
        raise ValueError(f"{name}: unknown rules {sorted(unknown)}")
    return Case(
        name,
        army(attacker) if isinstance(attacker, str) else tuple(attacker),
        army(defender) if isinstance(defender, str) else tuple(defender),
        battles,
        {"siege": siege, "fort": fort, "width": width, "length": length},
        {**LEGACY_RULES, **rule_changes},
    )


def r(name: str) -> Unit:
    """A unit of the legacy roster."""
    return ROSTER[name]


#: The matchups of tests/test_coe5_indexed.py, on the legacy roster.
INDEXED = [
    case("1v1", "pikeman:1", "pikeman:1", SMALL),
    case("10v3-fast", "militia:10", "knight:3", SMALL),
    case("archers-50v50", "militia:30,archer:20", "heavy infantry:30,archer:20", MEDIUM),
    case(
        "fear-and-effects",
        "wraith:4,abomination:3,fire drake:3",
        "troll:4,ghoul:6,storm spirit:3,giant spider:4",
        SMALL,
    ),
    case(
        "fear-strongest",
        "wraith:5,abomination:5",
        "militia:25",
        SMALL,
        fear_checks="strongest",
    ),
    case(
        "first-nearest",
        "militia:20,archer:5",
        "pikeman:20",
        SMALL,
        random_nearest=False,
        sidestep=False,
    ),
    case(
        "siege",
        [(r("catapult"), 2), (r("heavy infantry"), 15), (TUNNELLER, 3)],
        "archer:8,pikeman:12",
        SMALL,
        siege=True,
        fort=3,
    ),
    case(
        "siege-in-range",
        "archer:10,militia:10",
        "archer:6",
        SMALL,
        siege=True,
        fort=1,
        siege_bombardment=False,
        tunnelling="both",
    ),
    case(
        "burrowers-clouds-assassins",
        [(BURROWER, 6), (r("assassin"), 3), (CLOUD, 2)],
        [(r("skeleton"), 12), (BURROWER, 2)],
        SMALL,
    ),
    case(
        "50v50-live-positions",
        "militia:30,archer:20",
        "pikeman:50",
        BIG,
        simultaneous_moves=False,
    ),
    case(
        "40v40-sides",
        "militia:40",
        "heavy infantry:30,archer:10",
        BIG,
        move_order="sides",
    ),
    case(
        "fast-sides-live",
        [(r("militia"), 10), (BURROWER, 2)],
        "knight:3,wraith:1",
        SMALL,
        move_order="sides",
        simultaneous_moves=False,
    ),
    case(
        "60v60-burrowers-fast-live",
        [(r("militia"), 50), (BURROWER, 10)],
        "knight:20,pikeman:40",
        BIG,
        simultaneous_moves=False,
    ),
    case(
        "60v60-burrowers-fast",
        [(r("militia"), 50), (BURROWER, 10)],
        "knight:20,pikeman:40",
        BIG,
    ),
    case(
        "target-at-order",
        "militia:20,archer:10",
        "pikeman:15,archer:10",
        MEDIUM,
        target_draw="order",
    ),
    case(
        "70v70-20x30",
        "militia:50,archer:20",
        "pikeman:50,archer:20",
        BIG,
        width=20,
        length=30,
    ),
    case(
        "many-archers-wands-60v60",
        [(WAND_MAGE, 8), (r("archer"), 40), (r("knight"), 12)],
        "archer:45,pikeman:15",
        BIG,
    ),
    case("narrow-1x12", "militia:4", "pikeman:3", SMALL, width=1, length=12),
    case(
        "narrow-2x10-archers",
        "militia:5,archer:2",
        "heavy infantry:4,archer:2",
        SMALL,
        width=2,
        length=10,
    ),
    case("archers-62-wide", "archer:70", "militia:40,archer:30", BIG, width=62, length=12),
    case("archers-63-wide", "archer:70", "militia:40,archer:30", BIG, width=63, length=12),
    case(
        "multishot-reloading-shooters",
        [(r("militia"), 15), (SLINGER, 10)],
        [(r("pikeman"), 15), (SHARPSHOOTER, 6)],
        MEDIUM,
    ),
    case(
        "multishot-reloading-shooters-order",
        [(r("militia"), 15), (SLINGER, 10)],
        [(r("pikeman"), 15), (SHARPSHOOTER, 6)],
        MEDIUM,
        target_draw="order",
    ),
    case(
        "siege-shooters-on-the-wall",
        [(r("militia"), 20), (SLINGER, 6)],
        [(SLINGER, 6), (SHARPSHOOTER, 4), (r("pikeman"), 6)],
        MEDIUM,
        siege=True,
        fort=3,
        siege_bombardment=False,
    ),
    case(
        "200v200-30x40",
        "militia:150,archer:50",
        "heavy infantry:150,archer:50",
        BIG,
        width=30,
        length=40,
    ),
]

#: Plain matchups as users run them (the README, the CLI and the benchmarks).
FIDELITY = [
    case("fidelity-pikeman10-v-knight3", "pikeman:10", "knight:3", SMALL),
    case(
        "fidelity-mirror-heavy-infantry-archers",
        "heavy infantry:15,archer:5",
        "heavy infantry:15,archer:5",
        SMALL,
    ),
    # The benchmarks' battles cut at 10 rounds (C-8.11): draws by the round limit.
    case("fidelity-mirror-militia40-cut-at-10", "militia:40", "militia:40", MEDIUM, max_rounds=10),
    case(
        "fidelity-siege-archers-fort2",
        "heavy infantry:20,archer:10",
        "archer:12,pikeman:8",
        SMALL,
        siege=True,
        fort=2,
    ),
    # The README's example of regeneration (C-8.9), at today's 10%.
    case("fidelity-militia5-v-troll1-regen", "militia:5", "troll:1", SMALL),
]

CASES = INDEXED + FIDELITY


def battle_digests(result: Any) -> list[str]:
    """One SHA-256 hex digest per battle of a ``matchup(..., keep_trials=True, _debug=True)``.

    The hashed bytes are little-endian int64: outcome, rounds, then per unit
    in slot order the :data:`UNIT_COLUMNS` of the debug record.
    """
    trials = result.trials
    n = trials.outcome.shape[0]
    units = trials.debug[:, :, list(UNIT_COLUMNS)].reshape(n, -1)
    rows = np.concatenate([trials.outcome[:, None], trials.rounds[:, None], units], axis=1)
    rows = np.ascontiguousarray(rows, dtype="<i8")
    return [hashlib.sha256(row.tobytes()).hexdigest() for row in rows]


def play(case: Case, seed: int, battles: int | None = None) -> list[str]:
    """The digests of ``case``'s battles with ``seed`` (the first ``battles`` of them)."""
    result = matchup(
        list(case.attacker),
        list(case.defender),
        trials=case.battles if battles is None else battles,
        seed=seed,
        rules=BattleRules(**case.rules),
        keep_trials=True,
        progress=False,
        _debug=True,
        **case.options,
    )
    return battle_digests(result)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(cases: Sequence[Case] = CASES) -> dict[str, Any]:
    """Play every case with every seed and return the data file's contents."""
    fields = [f.name for f in dataclasses.fields(BattleRules)]
    if sorted(fields) != sorted(LEGACY_RULES):
        raise SystemExit(
            f"LEGACY_RULES must name every BattleRules field: {sorted(fields)} "
            f"vs {sorted(LEGACY_RULES)}"
        )
    data: dict[str, Any] = {
        "about": [
            "Golden per-battle digests of the CoE5 battle kernel before its rewrite.",
            "Made by tools/record_digests.py (its docstring defines the digest); "
            "checked by tests/test_coe5_digests.py. Do not edit by hand.",
            "digest: full SHA-256 (64 hex characters) of little-endian int64 values: "
            "outcome, rounds, then per unit in slot order: type, part, HP, state, x, y, status.",
            "Units from tests/data/legacy_units.toml alone (its SHA-256 below); custom units "
            "are defined in tools/record_digests.py and written out under custom_units.",
        ],
        "legacy_units_sha256": file_sha256(LEGACY_UNITS),
        "seeds": list(SEEDS),
        "custom_units": {u.name: dataclasses.asdict(u) for u in CUSTOM_UNITS},
        "cases": {},
    }
    for c in cases:
        entry = c.describe()
        entry["seeds"] = {str(seed): play(c, seed) for seed in SEEDS}
        data["cases"][c.name] = entry
    return json.loads(json.dumps(data))  # lists for tuples, as the file reads back


def compare_case(case: Case, stored: Mapping[str, Any] | None) -> list[str]:
    """Differences between today's battles of ``case`` and its stored entry."""
    if stored is None:
        return [f"{case.name}: not in the data file"]
    problems = []
    described = json.loads(json.dumps(case.describe()))
    for key, value in described.items():
        if stored.get(key) != value:
            problems.append(
                f"{case.name}: {key} is {value!r}, the data file says {stored.get(key)!r}"
            )
    if sorted(stored.get("seeds", {}), key=int) != [str(s) for s in SEEDS]:
        problems.append(f"{case.name}: seeds {list(stored.get('seeds', {}))}, expected {SEEDS}")
    if problems:
        return problems
    for seed, digests in stored["seeds"].items():
        got = play(case, int(seed))
        if got != digests:
            first = next(
                (k for k, (a, b) in enumerate(zip(got, digests, strict=False)) if a != b),
                min(len(got), len(digests)),
            )
            differ = sum(a != b for a, b in zip(got, digests, strict=False))
            problems.append(
                f"{case.name}: seed {seed}: battle {first} is the first that differs "
                f"({differ} of {len(digests)} battles differ)"
            )
    return problems


def check(data: Mapping[str, Any], cases: Iterable[Case] = CASES) -> list[str]:
    """Every difference between today's battles and the data file, as readable lines."""
    problems = []
    if data.get("legacy_units_sha256") != file_sha256(LEGACY_UNITS):
        problems.append(f"{LEGACY_UNITS.relative_to(ROOT)} changed; it must stay frozen")
    customs = json.loads(json.dumps({u.name: dataclasses.asdict(u) for u in CUSTOM_UNITS}))
    if data.get("custom_units") != customs:
        problems.append("the custom units differ from those the digests were recorded with")
    stale = sorted(set(data.get("cases", {})) - {c.name for c in CASES})
    if stale:
        problems.append(f"the data file has cases this script does not define: {stale}")
    for c in cases:
        problems += compare_case(c, data.get("cases", {}).get(c.name))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: record the digests, or ``--check`` them; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="recompute and compare, write nothing")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the data file")
    parser.add_argument(
        "--case", action="append", default=None, help="with --check: only this case (repeats)"
    )
    args = parser.parse_args(argv)
    cases = CASES
    if args.case:
        if not args.check:
            parser.error("--case only with --check: a recording covers every case")
        known = {c.name: c for c in CASES}
        unknown = [n for n in args.case if n not in known]
        if unknown:
            parser.error(f"unknown case(s) {unknown}; known: {', '.join(known)}")
        cases = [known[n] for n in args.case]
    start = time.perf_counter()
    if args.check:
        data = json.loads(args.out.read_text("utf-8"))
        problems = check(data, cases)
        for line in problems:
            print(line)
        seconds = time.perf_counter() - start
        state = f"{len(problems)} difference(s)" if problems else "all digests agree"
        print(f"{len(cases)} cases checked in {seconds:.1f} s: {state}")
        return 1 if problems else 0
    data = record(cases)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    battles = sum(c.battles * len(SEEDS) for c in cases)
    seconds = time.perf_counter() - start
    print(f"{len(cases)} cases, {battles} battles recorded in {seconds:.1f} s to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
