"""Shared†Fantasia party-vs-party fights (RULES.md S-5 to S-10), many times over.

:func:`fight` packs both parties into the kernel's table, plays the fights in
fixed chunks of :data:`FIGHT_CHUNK`, each on its own stream, and aggregates the
outcomes, rounds, final states and event counts.  The action policy and the
battlefield are parameters (:class:`Policy`, :class:`Battlefield`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from kernels import sf_layout as F
from kernels.sf_fight import N_S, run_fights
from montecarlo.driver import check_trials, run_batches, run_on_threads
from montecarlo.errors import InputError
from montecarlo.outcomes import OutcomeRates
from montecarlo.seeding import SeedLike, chunk_states, resolve_seed
from montecarlo.sf.battlefields import BATTLEFIELDS, DEFAULT_BATTLEFIELD, Battlefield
from montecarlo.sf.characters import (
    AREAS,
    DAMAGE_TYPES,
    SAVES,
    Character,
    CharacterRoster,
    Effect,
    resolve_character,
    roster_note,
)
from montecarlo.validation import check_kept, coerce_rules

FIGHT_CHUNK = 256
BATCH_CHUNKS = 8
DEFAULT_MAX_TRIALS = 5_000_000
STATES = ("standing", "fainted", "dead", "overboard")


@dataclass(frozen=True)
class Policy:
    """How characters choose their one action per round (S-8 [default]).

    Attributes
    ----------
    breath_at : float
        Catch breath (recover 1d fatigue) when fatigue reaches this share of HP.
    fatigue_attacks : bool
        Blunt melee weapons deal fatigue rather than injury (S-3).
    trip_chance : float
        Share of melee attacks that are trips (≪足払い≫) on a cliff or ship deck.
    secure_line_of_fire : bool
        Where a line of fire is needed and allowed (not in the open, the narrow
        room, a corridor or on a cliff), back-line shooters secure one to the
        enemy back line and shoot through it; otherwise they shoot into the
        engage area.  A line secured by either side runs both ways (S-6).
    cast : bool
        Characters with a spell cast it rather than fight.
    take_cover : bool
        Back-liners take cover (S-6, S-8): behind cover, once, where the
        battlefield has it and the enemy has a shooter or a caster; else they
        remove a secured line of fire that only enemy shooters use, while their
        own front line holds an engage area.
    coup_de_grace : bool
        S-4: the enemy never strikes a fainted character during a fight
        [default False]; True: a front-liner with no standing enemy
        front-liner at its end strikes a fainted one there a finishing blow,
        which kills it (its action for the round).
    shoot_into_melee : bool
        S-6: shooters shoot into an engage area where allies stand, and the
        d6 procedure may pick an ally (default True).  False: a shooter whose
        only shot is into such a melee holds its fire.  Outside the melee (the
        back line) it waits for a clear shot: the enemy back line, or an
        engage area without allies.  In the melee itself (the open
        battlefield) it takes up its melee weapon as a shooter without a shot
        does: a back-liner steps up, then strikes.
    """

    breath_at: float = 0.5
    fatigue_attacks: bool = False
    trip_chance: float = 0.0
    secure_line_of_fire: bool = True
    cast: bool = True
    take_cover: bool = True
    coup_de_grace: bool = False
    shoot_into_melee: bool = True

    def to_array(self, rules: SFRules | None = None) -> np.ndarray:
        """The kernel's ``Q`` array: this policy, then the rule defaults."""
        rules = rules or SFRules()
        if not 0 <= self.trip_chance <= 1:
            raise InputError(f"policy.trip_chance is a probability, got {self.trip_chance}")
        q = np.zeros(F.N_Q)
        q[F.Q_BREATH_AT] = self.breath_at
        q[F.Q_FATIGUE_ATTACKS] = float(self.fatigue_attacks)
        q[F.Q_TRIP_CHANCE] = self.trip_chance
        q[F.Q_SECURE_LOF] = float(self.secure_line_of_fire)
        q[F.Q_CAST] = float(self.cast)
        q[F.Q_TAKE_COVER] = float(self.take_cover)
        q[F.Q_CLASH] = 0.0 if rules.clash == "totals" else 1.0
        q[F.Q_BREATH_DICE] = rules.breath_dice
        q[F.Q_FAINT_EVERY_HIT] = float(rules.faint_check_every_hit)
        q[F.Q_SPECIAL_OPP] = rules.special_opportunity_attacks
        q[F.Q_DEATH_AT_HP] = float(rules.death_threshold == ">=")
        q[F.Q_FF_BALANCED] = float(rules.friendly_fire_order == "balanced")
        q[F.Q_SELF_AREA] = float(rules.caster_in_own_area)
        q[F.Q_COUP] = float(self.coup_de_grace)
        q[F.Q_INIT_DICE] = rules.initiative_dice
        q[F.Q_FF_SIX] = float(rules.friendly_fire_groups == "six")
        q[F.Q_CHAIN_OPP] = float(rules.chain_opportunity_attacks)
        q[F.Q_SHOOT_MELEE] = float(self.shoot_into_melee)
        return q


@dataclass(frozen=True)
class SFRules:
    """The [default]s of RULES.md part 2 that a fight uses, by name.

    Attributes
    ----------
    clash : "totals" or "defender"
        S-1.2: when both sides roll a special that would decide the roll and
        they disagree, compare the totals [default], or let the passive side win.
    breath_dice : int
        S-4: catching breath recovers this many d6 of fatigue [default 1].
    faint_check_every_hit : bool
        S-4: make the faint check on every hit while the condition holds
        [default], or only when the condition first becomes true.
    special_opportunity_attacks : int
        S-5: attacks the opponent gets after a fumble or a dramatic melee evade
        [default 1].
    death_threshold : ">" or ">="
        S-4: the death check is made when injury > HP [default], or when
        injury >= HP (the seed says both).
    engage_needs_contact : bool
        S-6: an engage area exists only while both sides have a standing
        front-liner there [default]; False makes one front line alone an
        engage area (shots into it can then only hit that side).
    friendly_fire_order : "balanced" or "slots"
        S-6: the engaged characters fill the d6 groups alternately enemy and
        ally of the shooter, enemies first [default], or in slot order (side A
        first), which makes the chance of hitting an ally depend on the side.
    caster_in_own_area : bool
        S-7: the caster is affected when it stands inside its own area
        [default], or never.
    initiative_dice : int
        S-8: each round's initiative is this many d6 + the initiative modifier
        [default 2]; 0: the modifier alone, ties at random.
    friendly_fire_groups : "fewest" or "six"
        S-6: 7 or more engaged characters make as few d6 groups as hold them,
        7-12 two, 13-18 three, ... [default], or always six groups.
    chain_opportunity_attacks : bool
        S-5: an opportunity attack is an ordinary melee attack, so its own
        fumble, or a dramatic evade against it, triggers an opportunity attack
        in turn, within the limit of one per character per round (True, the
        seed); False: opportunity attacks never trigger further ones.
    """

    clash: str = "totals"
    breath_dice: int = 1
    faint_check_every_hit: bool = True
    special_opportunity_attacks: int = 1
    death_threshold: str = ">"
    engage_needs_contact: bool = True
    friendly_fire_order: str = "balanced"
    caster_in_own_area: bool = True
    initiative_dice: int = 2
    friendly_fire_groups: str = "fewest"
    chain_opportunity_attacks: bool = True

    def __post_init__(self) -> None:
        if self.friendly_fire_order not in ("balanced", "slots"):
            raise InputError(
                "rules.friendly_fire_order is 'balanced' or 'slots', "
                f"not {self.friendly_fire_order!r}"
            )
        if self.clash not in ("totals", "defender"):
            raise InputError(f"rules.clash is 'totals' or 'defender', not {self.clash!r}")
        if self.death_threshold not in (">", ">="):
            raise InputError(f"rules.death_threshold is '>' or '>=', not {self.death_threshold!r}")
        if not 0 <= self.breath_dice <= 10 or not 0 <= self.special_opportunity_attacks <= 10:
            raise InputError("rules.breath_dice and special_opportunity_attacks lie in 0..10")
        if self.friendly_fire_groups not in ("fewest", "six"):
            raise InputError(
                "rules.friendly_fire_groups is 'fewest' or 'six', "
                f"not {self.friendly_fire_groups!r}"
            )
        if not 0 <= self.initiative_dice <= 10:
            raise InputError(f"rules.initiative_dice lies in 0..10, not {self.initiative_dice}")


def parse_party(party: str | list, roster: CharacterRoster | None = None) -> list[Character]:
    """``"warrior:2,archer:1"`` (or a list of (Character or name, count)) to characters."""
    if isinstance(party, str):
        if not party.strip():
            raise InputError("a party needs at least one character, e.g. 'warrior:2'")
        pairs = []
        for item in party.split(","):
            name, _, count = item.partition(":")
            pairs.append((name.strip(), count.strip() or "1"))
    else:
        pairs = list(party)
    out: list[Character] = []
    for name, count in pairs:
        try:
            k = int(count)
        except (TypeError, ValueError):
            raise InputError(f"the count of {name} must be a whole number, got {count!r}") from None
        if k < 1:
            raise InputError(f"the count of {name} must be at least 1, got {k}")
        out += [resolve_character(name, roster)] * k
    if len(out) > 64:
        raise InputError(f"at most 64 characters per party, got {len(out)}")
    return out


def _effect(e: Effect) -> tuple[int, int, int]:
    if e.status == "sleep":
        return 0, 0, F.K_SLEEP
    if e.damage is None:
        return 0, 0, F.K_NONE
    return e.damage.n, e.damage.bonus, F.K_FATIGUE if e.kind == "fatigue" else F.K_INJURY


def pack_party(
    a: list[Character],
    b: list[Character],
    *,
    surprised: Iterable[int] = (),
    ends: list[int] | None = None,
) -> np.ndarray:
    """The kernel's character table ``C[field, i]``, side A first (the only packer).

    ``surprised`` lists the slots (A first, from 0) surprised at the start (S-8);
    ``ends`` gives each slot's corridor end (S-9 second front), 0 for all if None.
    """
    cols = []
    surprised = set(surprised)
    for side, party in enumerate((a, b)):
        for c in party:
            col = [0] * F.N_FIELDS
            col[F.SIDE] = side
            col[F.SURPRISED] = int(len(cols) in surprised)
            col[F.END] = 0 if ends is None else ends[len(cols)]
            col[F.LINE] = 0 if c.position == "front" else 1
            col[F.BODY], col[F.TECH], col[F.COMBAT] = c.body, c.tech, c.combat
            col[F.INIT], col[F.HP] = c.initiative, c.hp
            col[F.FORT], col[F.INTU], col[F.WILL] = c.fortitude, c.intuition, c.will
            for k, t in enumerate(DAMAGE_TYPES):
                col[F.ARMOR0 + k] = c.armor_for(t)
            col[F.SHIPS] = int(c.ships)
            if (w := c.melee_weapon) is not None:
                col[F.MW], col[F.MW_N], col[F.MW_BONUS] = 1, w.damage.n, w.damage.bonus
                col[F.MW_TYPE], col[F.MW_FATIGUE] = DAMAGE_TYPES.index(w.type), int(w.fatigue)
            if (w := c.ranged_weapon) is not None:
                col[F.RW], col[F.RW_N], col[F.RW_BONUS] = 1, w.damage.n, w.damage.bonus
                col[F.RW_TYPE] = DAMAGE_TYPES.index(w.type)
                col[F.AMMO] = -1 if w.ammo is None else w.ammo
            if c.spells:
                sp = c.spells[0]
                col[F.SP] = 1
                col[F.SP_STAT] = c.power if sp.stat == "power" else c.faith
                col[F.SP_SAVE], col[F.SP_AREA] = SAVES.index(sp.save), AREAS.index(sp.area)
                col[F.SP_FAIL_N], col[F.SP_FAIL_BONUS], col[F.SP_FAIL_KIND] = _effect(sp.on_fail)
                col[F.SP_OK_N], col[F.SP_OK_BONUS], col[F.SP_OK_KIND] = _effect(sp.on_success)
            cols.append(col)
    return np.array(cols, dtype=np.int64).T.copy()


def battlefield_array(
    bf: Battlefield, pincer: int, max_rounds: int, rules: SFRules | None = None
) -> np.ndarray:
    """The kernel's battlefield array ``B`` (layout in :mod:`kernels.sf_layout`).

    ``pincer`` is the side attacked from both ends, -1 for none.  The S-6
    contact rule of ``rules`` rides along, since it decides where engage areas are.
    """
    b = np.zeros(F.N_B, np.int64)
    b[F.B_FRONT_CAP] = bf.front_cap
    b[F.B_OPEN] = bf.open
    b[F.B_NARROW] = bf.narrow
    b[F.B_NO_BACK_LOF] = bf.no_back_lof
    b[F.B_CLIFF] = bf.cliff
    b[F.B_SHIP] = bf.ship
    b[F.B_COVER] = bf.cover
    b[F.B_PINCER_SIDE] = pincer
    b[F.B_MAX_ROUNDS] = max_rounds
    b[F.B_CONTACT] = (rules or SFRules()).engage_needs_contact
    return b


def _side(value: str | None, what: str) -> int:
    if value is None:
        return -1
    key = str(value).lower()
    if key in ("a", "0", "party_a", "first"):
        return 0
    if key in ("b", "1", "party_b", "second"):
        return 1
    raise InputError(f"{what} names a side: 'a' or 'b', got {value!r}")


def surprised_slots(surprise: str | Iterable[int] | None, n_a: int, n_b: int) -> set[int]:
    """S-8: the slots (side A first, from 0) surprised at the start of a fight.

    ``surprise`` is a side (``"a"`` or ``"b"``), or the slot numbers of single
    characters (as in :meth:`FightResult.characters`), or None.
    """
    if surprise is None:
        return set()
    if isinstance(surprise, str):
        side = _side(surprise, "surprise")
        return set(range(n_a)) if side == 0 else set(range(n_a, n_a + n_b))
    try:
        slots = list(surprise)
    except TypeError:
        raise InputError(
            f"surprise is a side ('a' or 'b') or a list of slot numbers, got {surprise!r}"
        ) from None
    for k in slots:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 0 <= k < n_a + n_b:
            raise InputError(f"surprise slot {k!r} is not a slot number 0..{n_a + n_b - 1}")
    return {int(k) for k in slots}


def corridor_ends(a: list[Character], b: list[Character], pincer: int, n_rear: int) -> list[int]:
    """S-9 second front: the end (0 or 1) of every slot, side A first.

    The pinched side's front-liners alternate between the two ends in written
    order [default] (its back line stands between them).  The other side's last
    ``n_rear`` characters (``fight(rear=)``) come from end 1; without them, that
    side's characters alternate between the ends in written order [default].
    """
    ends: list[int] = []
    for side, party in enumerate((a, b)):
        k = 0
        for idx, c in enumerate(party):
            if side == pincer:
                ends.append(k % 2 if c.position == "front" else 0)
                k += c.position == "front"
            elif n_rear:
                ends.append(int(idx >= len(party) - n_rear))
            else:
                ends.append(idx % 2)
    return ends


@dataclass
class FightResult(OutcomeRates):
    """Aggregated outcome of many fights (S-10): the same shape as a CoE5 matchup."""

    LABELS: ClassVar[dict[str, str]] = {"a": "party A wins", "b": "party B wins", "draw": "draw"}
    NOUN: ClassVar[str] = "fights"

    party_a: list[Character]
    party_b: list[Character]
    totals: dict[str, Any]
    trials: dict[str, np.ndarray] | None
    partial: bool
    seed: Any
    seconds: float
    options: dict

    @property
    def n(self) -> int:
        return int(self.totals["n"])

    @property
    def counts(self) -> dict[str, int]:
        return dict(zip(self.LABELS, (int(k) for k in self.totals["outcome"]), strict=True))

    @property
    def win_rate(self) -> float:
        """Party A's win rate."""
        return self.rate("a")

    def characters(self) -> pd.DataFrame:
        """Per character: probability of each final state, and mean damage taken."""
        rows = []
        everyone = [("A", c) for c in self.party_a] + [("B", c) for c in self.party_b]
        for i, (side, c) in enumerate(everyone):
            row: dict[str, Any] = {"side": side, "slot": i, "character": c.name}
            for k, state in enumerate(STATES):
                row[f"p_{state}"] = self.totals["states"][i, k] / self.n
            for k, what in enumerate(("injury", "fatigue", "heavy_fatigue")):
                row[f"mean_{what}"] = self.totals["damage"][i, k] / self.n
            rows.append(row)
        return pd.DataFrame(rows)

    def events(self) -> pd.DataFrame:
        """Per side: attacks per fight and the rates of hits, dramatic successes,
        fumbles and friendly-fire hits per attack."""
        ev = self.totals["events"]
        rows = []
        for side, name in enumerate(("A", "B")):
            attacks = max(int(ev[side, F.E_ATTACKS]), 1)
            rows.append(
                {
                    "side": name,
                    "attacks_per_fight": ev[side, F.E_ATTACKS] / self.n,
                    "hit_rate": ev[side, F.E_HITS] / attacks,
                    "dramatic_rate": ev[side, F.E_DRAMATIC] / attacks,
                    "fumble_rate": ev[side, F.E_FUMBLES] / attacks,
                    "friendly_fire_per_fight": ev[side, F.E_FRIENDLY_FIRE] / self.n,
                    "opportunity_attacks_per_fight": ev[side, F.E_OPPORTUNITY] / self.n,
                }
            )
        return pd.DataFrame(rows)

    @property
    def rounds_pmf(self) -> pd.Series:
        hist = self.totals["rounds"]
        nz = np.flatnonzero(hist)
        idx = np.arange(nz[0], nz[-1] + 1)
        return pd.Series(hist[idx] / self.n, index=idx, name="probability").rename_axis("rounds")

    def title(self) -> str:
        def names(party: list[Character]) -> str:
            counts: dict[str, int] = {}
            for c in party:
                counts[c.name] = counts.get(c.name, 0) + 1
            return " + ".join(f"{k} ×{v}" for k, v in counts.items())

        return f"{names(self.party_a)} vs {names(self.party_b)} ({self.options['battlefield']})"

    def setting(self) -> str:
        """``battlefield: what it means`` (S-9), the line under the title."""
        return f"{self.options['battlefield']}: {self.options['battlefield_meaning']}"

    def roster_note(self) -> str | None:
        """Which characters are the shipped roster's made-up examples (None: none is)."""
        return roster_note(self.party_a + self.party_b)

    def summary(self) -> str:
        pmf = self.rounds_pmf
        mean = float(np.dot(pmf.index, pmf.values))
        state = "  — INTERRUPTED, partial result" if self.partial else ""
        lines = [
            self.title(),
            self.setting(),
            f"{self.n:,} fights, seed {self.seed}, {self.seconds:.2f} s{state}",
            "",
            *self.outcome_lines(),
            "",
            f"rounds: mean {mean:.2f}",
            "",
        ]
        chars = self.characters()
        lines.append(
            f"{'side':<5}{'character':<12}{'standing':>10}{'fainted':>9}{'dead':>8}"
            f"{'overboard':>11}{'injury':>9}{'fatigue':>9}"
        )
        for r in chars.itertuples():
            lines.append(
                f"{r.side:<5}{r.character:<12}{r.p_standing:>10.1%}{r.p_fainted:>9.1%}"
                f"{r.p_dead:>8.1%}{r.p_overboard:>11.1%}{r.mean_injury:>9.2f}"
                f"{r.mean_fatigue:>9.2f}"
            )
        lines.append("")
        for r in self.events().itertuples():
            lines.append(
                f"side {r.side}: {r.attacks_per_fight:.1f} attacks/fight, hit {r.hit_rate:.1%}, "
                f"dramatic {r.dramatic_rate:.2%}, fumble {r.fumble_rate:.2%}, "
                f"friendly-fire hits {r.friendly_fire_per_fight:.3f}/fight, "
                f"opportunity attacks {r.opportunity_attacks_per_fight:.3f}/fight"
            )
        if note := self.roster_note():
            lines += ["", note]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "title": self.title(),
            "battlefield": self.setting(),
            "roster_note": self.roster_note(),
            "fights": self.n,
            "partial": self.partial,
            "seed": self.seed,
            "options": self.options,
            "outcomes": self.to_frame().to_dict(orient="records"),
            "characters": self.characters().to_dict(orient="records"),
            "events": self.events().to_dict(orient="records"),
        }

    def plot(self) -> Figure:
        """Outcome bars, rounds histogram and each character's final-state shares."""
        fig, axes = plt.subplots(1, 3, figsize=(17, 5), layout="constrained")
        self.plot_outcomes(axes[0])
        pmf = self.rounds_pmf
        axes[1].bar(
            pmf.index, pmf.values, width=1.0, color="tab:purple", label=f"{self.n:,} fights"
        )
        axes[1].set(
            xlabel="rounds until the fight ended", ylabel="share of fights", title="Fight length"
        )
        axes[1].legend(fontsize="small")
        chars = self.characters()
        labels = [f"{r.side}: {r.character} #{r.slot}" for r in chars.itertuples()]
        left = np.zeros(len(chars))
        colours = {
            "standing": "tab:green",
            "fainted": "tab:orange",
            "dead": "tab:red",
            "overboard": "tab:blue",
        }
        for state in STATES:
            vals = chars[f"p_{state}"].to_numpy()
            axes[2].barh(labels, vals, left=left, color=colours[state], label=state)
            left += vals
        axes[2].invert_yaxis()
        axes[2].set(xlabel="share of fights", title="Final state per character", xlim=(0, 1))
        axes[2].legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4)
        fig.suptitle(
            f"{self.title()}: {self.n:,} simulated fights (SF rules S-1 to S-10)\n{self.setting()}"
        )
        if note := self.roster_note():
            fig.text(0.005, 0.005, note, fontsize="small", color="dimgrey")
        return fig


def resolve_battlefield(
    battlefield: str | Battlefield, battlefields: Mapping[str, Battlefield] | None = None
) -> Battlefield:
    """A :class:`Battlefield` given itself or a preset key (S-9)."""
    if isinstance(battlefield, Battlefield):
        return battlefield
    presets = BATTLEFIELDS if battlefields is None else battlefields
    if not isinstance(battlefield, str) or battlefield.lower() not in presets:
        raise InputError(
            f"unknown battlefield {battlefield!r}; expected one of "
            f"{', '.join(presets)} or a Battlefield"
        )
    return presets[battlefield.lower()]


def fight(
    party_a: str | list,
    party_b: str | list,
    *,
    trials: int | None = None,
    precision: float | None = None,
    seed: SeedLike = None,
    rng: SeedLike = None,
    battlefield: str | Battlefield = DEFAULT_BATTLEFIELD,
    battlefields: Mapping[str, Battlefield] | None = None,
    surprise: str | Iterable[int] | None = None,
    pincer: str | None = None,
    rear: str | list | None = None,
    policy: Policy | None = None,
    rules: SFRules | None = None,
    max_rounds: int = 100,
    threads: int | None = None,
    progress: bool | None = True,
    keep_trials: bool = False,
    max_trials: int = DEFAULT_MAX_TRIALS,
    roster: CharacterRoster | None = None,
    _debug: bool = False,
) -> FightResult:
    """Play party A against party B many times.

    Parameters
    ----------
    party_a, party_b : str or list
        Parties such as ``"warrior:2,archer:1"``.
    trials, precision : int, float
        A fixed number of fights (default 20,000), or play until every outcome
        rate's 95% Wilson half-width is at most ``precision``.
    battlefield : str or Battlefield
        ``field`` (S-9 [default]: front and back lines, cover to take),
        ``open`` (everyone is engaged), ``narrow``, ``corridor``, ``cliff`` or
        ``ship``, a key of ``battlefields``, or your own :class:`Battlefield`.
    battlefields : mapping, optional
        Presets by key, e.g. ``sf.load_battlefields("my_fields.toml")``
        (default: the shipped ones).
    surprise : "a", "b" or list of int, optional
        The surprised side, or the slots of surprised characters (side A
        first, from 0) (S-8): no action in round 1, -2 to evades and saves
        against characters not surprised until they have acted.
    pincer : "a" or "b", optional
        The side attacked from both ends of a corridor (S-9 second front; the
        battlefield must allow one).  Each end has its own front line (capped
        per end) and engage area; once that side is reduced to front-liners it
        is caught in a pincer and attacks on it get +1.
    rear : str or list, optional
        With ``pincer``: the other side's characters that come from the rear
        end, added to its party (default: that party alternates between ends).
    policy : Policy or dict, optional
        The action policy (defaults documented on :class:`Policy`).
    rules : SFRules or dict, optional
        The rule defaults of RULES.md part 2 (see :class:`SFRules`).
    max_rounds : int
        A fight still going after this many rounds is a draw [default 100].
    """
    if trials is not None and precision is not None:
        raise InputError("give trials= or precision=, not both")
    if precision is not None:
        if not 0 < precision < 0.5:
            raise InputError(f"precision must be a number in (0, 0.5), got {precision}")
        max_trials = check_trials(max_trials, "max_trials")
    else:
        trials = check_trials(20_000 if trials is None else trials)
    if keep_trials:  # the only arrays that grow with the trial count
        check_kept(trials if trials is not None else max_trials, "keep_trials=True, one per fight")
    a, b, C, B, Q, battlefield, policy, rules = prepare(
        party_a, party_b, battlefield=battlefield, battlefields=battlefields, surprise=surprise,
        pincer=pincer, rear=rear, policy=policy, rules=rules, max_rounds=max_rounds,
        roster=roster,
    )  # fmt: skip
    ss = resolve_seed(seed, rng)
    n_chars = C.shape[1]
    totals: dict[str, Any] = {
        "n": 0,
        "outcome": np.zeros(3, np.int64),
        "rounds": np.zeros(max_rounds + 1, np.int64),
        "states": np.zeros((n_chars, 4), np.int64),
        "damage": np.zeros((n_chars, 3), np.int64),
        "events": np.zeros((2, F.N_EVENTS), np.int64),
    }
    kept: list[tuple] = []
    run = run_batches(
        lambda first, n_chunks, n: _play(ss, first, n_chunks, n, C, B, Q, max_rounds,
                                         keep_trials, _debug, totals, kept, progress),
        lambda: (totals["outcome"], totals["n"]),
        chunk=FIGHT_CHUNK, batch_chunks=BATCH_CHUNKS, trials=trials, precision=precision,
        until=None, max_trials=max_trials, threads=threads, progress=progress, unit="fight",
    )  # fmt: skip
    per_trial = None
    if kept:
        names = ("outcome", "rounds", "state", "damage", "debug")
        per_trial = {k: np.concatenate([row[i] for row in kept]) for i, k in enumerate(names)}
    options = {
        "battlefield": battlefield.name,
        "battlefield_meaning": battlefield.meaning,
        "surprise": surprise if surprise is None or isinstance(surprise, str) else list(surprise),
        "pincer": pincer,
        "rear": rear if rear is None or isinstance(rear, str) else str(rear),
        "max_rounds": max_rounds,
        "policy": asdict(policy),
        "rules": asdict(rules),
    }
    return FightResult(a, b, totals, per_trial, run.partial, ss.entropy, run.seconds, options)


def prepare(
    party_a, party_b, *, battlefield, battlefields, surprise, pincer, rear, policy, rules,
    max_rounds, roster,
):  # fmt: skip
    """The parties and packed tables of a fight: ``(a, b, C, B, Q, battlefield, policy, rules)``.

    :func:`fight` and :func:`montecarlo.sf.fight_replay.replay` share it, so that a
    replay packs exactly what the run packed.
    """
    battlefield = resolve_battlefield(battlefield, battlefields)
    policy = coerce_rules(policy, Policy, "policy") or Policy()
    a = parse_party(party_a, roster)
    b = parse_party(party_b, roster)
    pinc = _side(pincer, "pincer")
    ends = None
    n_rear = 0
    if rear is not None and pinc < 0:
        raise InputError("rear= needs pincer=, the side attacked from both ends")
    if pinc >= 0:
        if not battlefield.second_front:
            raise InputError(
                f"pincer= needs a battlefield with a second front (the corridor); "
                f"{battlefield.name!r} has none"
            )
        if rear is not None:
            extra = parse_party(rear, roster)
            n_rear = len(extra)
            if pinc == 0:
                b = b + extra
            else:
                a = a + extra
        ends = corridor_ends(a, b, pinc, n_rear)
    C = pack_party(a, b, surprised=surprised_slots(surprise, len(a), len(b)), ends=ends)
    rules = coerce_rules(rules, SFRules) or SFRules()
    B = battlefield_array(battlefield, pinc, check_trials(max_rounds, "max_rounds"), rules)
    Q = policy.to_array(rules)
    return a, b, C, B, Q, battlefield, policy, rules


def _play(ss, first, n_chunks, n, C, B, Q, max_rounds, keep, debug, totals, kept,
          progress: bool | None = None) -> None:  # fmt: skip
    n_chars = C.shape[1]
    states = chunk_states(ss, first, first + n_chunks)
    agg_outcome = np.zeros((n_chunks, 3), np.int64)
    agg_rounds = np.zeros((n_chunks, max_rounds + 1), np.int64)
    agg_states = np.zeros((n_chunks, n_chars, 4), np.int64)
    agg_damage = np.zeros((n_chunks, n_chars, 3), np.int64)
    agg_events = np.zeros((n_chunks, 2, F.N_EVENTS), np.int64)
    size = n if keep or debug else 0
    t_outcome = np.zeros(size, np.int64)
    t_rounds = np.zeros(size, np.int64)
    t_state = np.zeros((size, n_chars), np.int64)
    t_damage = np.zeros((size, n_chars, 3), np.int64)
    t_debug = np.zeros((n if debug else 0, N_S, n_chars), np.int64)
    args = (
        states, FIGHT_CHUNK, n, C, B, Q, agg_outcome, agg_rounds, agg_states, agg_damage,
        agg_events, keep or debug, t_outcome, t_rounds, t_state, t_damage, debug, t_debug,
    )  # fmt: skip
    run_on_threads(run_fights, n_chunks, args, what="the fight kernel", seconds=12,
                   progress=progress)  # fmt: skip
    totals["n"] += n
    totals["outcome"] += agg_outcome.sum(axis=0)
    totals["rounds"] += agg_rounds.sum(axis=0)
    totals["states"] += agg_states.sum(axis=0)
    totals["damage"] += agg_damage.sum(axis=0)
    totals["events"] += agg_events.sum(axis=0)
    if keep or debug:
        kept.append((t_outcome, t_rounds, t_state, t_damage, t_debug))
