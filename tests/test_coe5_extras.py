"""The battle kernel without its extras plays plain battles as the whole kernel does (issue 13).

``run_chunks(..., extras=None)`` is compiled without the code of the rules
that only some battles use (:func:`kernels.coe5_battle.needs_extras`), so a
plain matchup such as 10 pikemen against 3 knights compiles in about half
the time.  Two things make that safe, and both are pinned here:

- ``needs_extras`` says True for every battle that could reach the code left
  out: one unit, weapon or option with just that one extra is enough;
- on a battle that needs none, both kernels play the very same battles, bit
  for bit (and ``tests/test_coe5_indexed.py`` compares the plain ones with the
  reference kernel too).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import montecarlo as mc
from kernels.coe5_battle import needs_extras
from montecarlo.coe5.battle import BattleRules, _Battles, matchup
from montecarlo.coe5.battlefield import deploy, parse_army
from montecarlo.coe5.packing import pack
from montecarlo.coe5.units import Unit, Weapon, load_units

ROSTER = load_units()
SPEAR = Weapon("Spear", mc.parse_die("1-6"))


def _needs(*units: Unit, siege: bool = False) -> bool:
    packed = pack([ROSTER["pikeman"], *units])
    return needs_extras(packed.U, packed.W, siege)


def _armed(**weapon) -> Unit:
    return Unit("Test", 10, (Weapon("Test weapon", mc.parse_die("1-6"), **weapon), SPEAR))


# Each battle has one extra and nothing else: a plain pikeman and one such unit.
ONE_EXTRA = {
    "missile weapon (C-5)": _armed(range=3),
    "pre-battle weapon (C-7.1)": _armed(prebattle=True),
    "assassin (C-7.2)": _armed(assassin=True),
    "siege weapon (C-7.3)": _armed(siege=True),
    "cloud (C-8.2)": _armed(cloud=True),
    "fire (C-4.2)": _armed(type="fire"),
    "cold (C-4.3)": _armed(type="cold"),
    "shock (C-4.4)": _armed(type="shock"),
    "poison (C-4.5)": _armed(type="poison"),
    "decay damage (C-4.8)": _armed(type="decay"),
    "paralysis (C-4.9)": _armed(type="paralysis"),
    "regeneration (C-8.9)": Unit("Test", 10, (SPEAR,), regeneration=True),
    "decaying unit (C-4.8)": Unit("Test", 10, (SPEAR,), decay=True),
    "tunneller (C-7.4)": Unit("Test", 10, (SPEAR,), siege_tunneling=True),
    "combat burrower (C-7.5)": Unit("Test", 10, (SPEAR,), combat_burrowing=True),
    "fear (C-8.5)": Unit("Test", 10, (SPEAR,), fear=1),
}

# Rules every battle's kernel keeps: none of these needs the extras.
PLAIN = {
    "shipped melee units": tuple(
        ROSTER[n] for n in ("militia", "pikeman", "heavy infantry", "knight", "skeleton")
    ),
    "physical, acid and magic damage": (
        _armed(type="pierce"),
        _armed(type="slash"),
        _armed(type="acid"),
        _armed(type="magic"),
        _armed(magic=True),
    ),
    "weapon flags of the hit (C-3)": (
        _armed(an=True),
        _armed(shieldneg=True),
        _armed(nostr=True),
        _armed(rangepen=True),
        _armed(wand=True),
        _armed(initiative=9, shots=2),
    ),
    "unit traits of the hit and of movement": (
        Unit(
            "Test",
            10,
            (SPEAR,),
            ethereal=True,
            fast=True,
            vulnerable=("fire",),
            resist={"cold": 50},
            resist_blunt=True,
        ),
        Unit("Test", 10, (SPEAR,), immobile=True, morale=3, mr=18),
    ),
}


@pytest.mark.parametrize("unit", ONE_EXTRA.values(), ids=ONE_EXTRA.keys())
def test_one_extra_is_enough_for_the_whole_kernel(unit):
    assert _needs(unit)


def test_a_siege_needs_the_whole_kernel():
    assert _needs(ROSTER["knight"], siege=True)  # C-6, C-7.3, C-7.4: walls, siege rounds
    assert not _needs(ROSTER["knight"])


@pytest.mark.parametrize("units", PLAIN.values(), ids=PLAIN.keys())
def test_the_rules_every_battle_uses_do_not_need_the_extras(units):
    assert not _needs(*units)


def _kernel_of(att: str, dfd: str, siege: bool = False, whole_kernel: bool = False):
    dep = deploy(parse_army(att), parse_army(dfd), 10, 20, siege=siege)
    return _Battles(dep, siege, 1, 10, 20, BattleRules(), whole_kernel=whole_kernel).extras


def test_a_matchup_picks_the_kernel_of_its_battle():
    assert _kernel_of("pikeman:10", "knight:3") is None  # no extras: the smaller kernel
    assert _kernel_of("pikeman:10", "knight:3", whole_kernel=True) is True  # forced (these tests)
    assert _kernel_of("pikeman:10", "knight:3", siege=True) is True
    assert _kernel_of("pikeman:10", "archer:3") is True


# Initiative 1: only the wand flag puts its attacks first (C-8.7).
WAND = Unit("Wand knight", 14, (Weapon("Wand", mc.parse_die("1-4"), wand=True, initiative=1,
                                      magic=True), SPEAR), armor=2, fast=True)  # fmt: skip
SPECTRE = Unit("Spectre", 9, (Weapon("Touch", mc.parse_die("1-5"), type="acid", an=True),),
               ethereal=True, mr=15, resist={"acid": 50}, vulnerable=("magic",))  # fmt: skip
BRUTE = Unit("Brute", 16, (Weapon("Club", mc.parse_die("1-8"), shieldneg=True, nostr=True,
                                  shots=2), Weapon("Bolt", mc.parse_die("1-6"), type="magic")),
             strength=2, shield=2, resist_blunt=True)  # fmt: skip
POST = Unit("Post", 25, (Weapon("Pike", mc.parse_die("1-6"), rangepen=True),), immobile=True,
            armor=4)  # fmt: skip

# Plain battles of every size and option the kernel without extras plays: fast units
# (two sweeps), the summed-area tables and column bitsets of big battles, grids one
# row wide and wider than the bitsets, both move orders, live positions, the
# first-nearest and no-sidestep options, targets drawn at the attack order, and
# units whose weapons and traits (wands, magic and acid, ethereal, resistances,
# immobile, low fatigue start) stay in the smaller kernel.
PLAIN_CASES = [
    ("1v1", "pikeman:1", "pikeman:1", 256, {}),
    ("10v3-fast", "pikeman:10", "knight:3", 512, {}),
    ("60v60", "militia:40,heavy infantry:20", "knight:15,pikeman:45", 16, {}),
    ("narrow-1x12", "militia:4", "skeleton:3", 128, {"width": 1, "length": 12}),
    ("70-wide", "militia:60", "heavy infantry:40", 8, {"width": 70, "length": 12}),
    (
        "sides-live-order",
        "militia:20,knight:5",
        "pikeman:25",
        64,
        {"rules": BattleRules(move_order="sides", simultaneous_moves=False, target_draw="order")},
    ),
    (
        "first-nearest-no-sidestep",
        "skeleton:20",
        "pikeman:20",
        64,
        {"rules": BattleRules(random_nearest=False, sidestep=False)},
    ),
    (
        "custom-traits",
        [(WAND, 3), (SPECTRE, 4), (ROSTER["militia"], 8)],
        [(BRUTE, 4), (POST, 3), (ROSTER["skeleton"], 8)],
        256,
        {"rules": BattleRules(fatigue_start=4, max_rounds=30, target_draw="order")},
    ),
]


@pytest.mark.parametrize(("att", "dfd", "trials", "options"),
                         [c[1:] for c in PLAIN_CASES], ids=[c[0] for c in PLAIN_CASES])  # fmt: skip
def test_the_whole_kernel_plays_plain_battles_the_same(att, dfd, trials, options):
    types = {u for u, _ in parse_army(att) + parse_army(dfd)}
    packed = pack(sorted(types, key=lambda u: u.name))
    assert not needs_extras(packed.U, packed.W, False)  # so the default is the smaller kernel

    def play(whole_kernel: bool):
        return matchup(att, dfd, trials=trials, seed=29, progress=False, keep_trials=True,
                       _debug=True, _whole_kernel=whole_kernel, **options)  # fmt: skip

    plain, whole = play(False), play(True)
    for f in dataclasses.fields(whole.trials):
        np.testing.assert_array_equal(getattr(plain.trials, f.name), getattr(whole.trials, f.name),
                                      err_msg=f.name)  # fmt: skip
    assert plain.counts == whole.counts
    assert plain.trials.rounds.max() > 1  # real battles, not a first-round rout
