"""Sampled counterparts of the exact SF pieces, drawn with the fight kernel's own code.

Tests hold them against :mod:`montecarlo.sf.exact`; the CLI prints both.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from kernels.sf_fight import sample_attacks, sample_friendly_fire
from montecarlo.driver import check_trials, run_fill
from montecarlo.seeding import SeedLike, resolve_seed
from montecarlo.sf.characters import Character, CharacterRoster, resolve_character
from montecarlo.sf.fights import BATTLEFIELDS, Policy, SFRules, battlefield_array, pack_party

EVENTS = ("hit", "dramatic", "attacker_fumble", "defender_dramatic", "defender_fumble")


def sample_attack(
    attacker: Character | str,
    defender: Character | str,
    size: int,
    weapon: str | None = None,
    *,
    seed: SeedLike = None,
    rng: SeedLike = None,
    fatigue_attack: bool = False,
    clash: str = "totals",
    cover: bool = False,
    shooter_in_cover: bool = False,
    surprised: bool = False,
    ship: bool = False,
    pincer: bool = False,
    hit_mod: int = 0,
    evade_mod: int = 0,
    roster: CharacterRoster | None = None,
) -> tuple[pd.Series, np.ndarray]:
    """Sample ``size`` attacks; returns event counts and the damage of each attack."""
    size = check_trials(size, "size")
    a = resolve_character(attacker, roster)
    d = resolve_character(defender, roster)
    w = a.weapon(weapon)
    # The chosen weapon is the attacker's only one; modifiers ride on the combat value,
    # and the lines place the characters in or out of cover.
    a = replace(a, weapons=(w,), spells=(), combat=a.combat + hit_mod,
                position="back" if shooter_in_cover else "front")  # fmt: skip
    d = replace(d, combat=d.combat + evade_mod, position="back" if cover else "front")
    C = pack_party([a], [d], surprised=[1] if surprised else [])
    bf = BATTLEFIELDS["field"] if (cover or shooter_in_cover) else BATTLEFIELDS["narrow"]
    B = battlefield_array(replace(bf, ship=ship), 1 if pincer else -1, 1)
    Q = Policy(fatigue_attacks=fatigue_attack).to_array(SFRules(clash=clash))
    ss = resolve_seed(seed, rng)

    def fill(states: np.ndarray, chunk: int, view: np.ndarray) -> None:
        sample_attacks(states, chunk, C, B, Q, 0, 1, w.ranged, view)

    out = run_fill(fill, size, ss, progress=False, columns=6).values
    counts = pd.Series(out[:, :5].sum(axis=0), index=list(EVENTS), name="count")
    return counts, out[:, 5]


def sample_friendly_fire_counts(
    n: int, size: int, *, seed: SeedLike = None, groups: str = "fewest"
) -> np.ndarray:
    """How often each of ``n`` engaged characters is picked in ``size`` shots (S-6);
    ``groups`` as in :func:`montecarlo.sf.friendly_fire`."""
    ss = resolve_seed(seed)

    def fill(states: np.ndarray, chunk: int, view: np.ndarray) -> None:
        sample_friendly_fire(states, chunk, n, groups == "six", view)

    picks = run_fill(fill, size, ss, progress=False).values
    return np.bincount(picks, minlength=n)
