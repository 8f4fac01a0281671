"""How much do the defaults matter?  Every [default] varied in turn, as paired comparisons.

:data:`COE5_DEFAULTS` and :data:`SF_DEFAULTS` hold one row per [default]
parameter of RULES.md (docs/rules.md ``Parameter:`` lines): every field of
:class:`~montecarlo.BattleRules`, :class:`~montecarlo.sf.SFRules` and
:class:`~montecarlo.sf.Policy`, plus the option keywords that are defaults
(the C-6 grid, the S-9 default battlefield, the S-10 round cap), with the
rule id and documented or plausible alternative values.  Fields that are not
the toolkit's decisions are listed in :data:`EXEMPT` with the reason;
``tests/test_sensitivity.py`` checks that every dataclass field is in one or
the other, so a new default cannot be forgotten.

The keyword defaults of the exact and dice functions (``mc.damage(long_range_halving=)``,
the C-1.4 and C-1.7 conventions of the dice functions, ``sf.attack(clash=)``,
``sf.death_chance(death_threshold=)``, ``sf.friendly_fire(groups=)``) do not
reach battles: a battle takes these choices from the rules dataclasses, whose
rows here cover them, and the dice conventions are not battle parameters.

:func:`sensitivity` plays the defaults once and every alternative on the same
per-battle streams (common random numbers, :mod:`montecarlo.compare`), and
reports each change of the win rate with its paired 95% Newcombe interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from montecarlo.compare import LEVEL, PairedTotals, as_scenario, engine_for, run_paired
from montecarlo.driver import check_trials
from montecarlo.errors import InputError
from montecarlo.scenarios import Scenario, SFScenario
from montecarlo.seeding import SeedLike, resolve_seed

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Default:
    """One [default] and the alternatives the sensitivity report tries.

    ``key`` is a variant term's key (``rules.burn_chance``, ``policy.cast``,
    ``width``), ``rule`` the RULES.md id, ``alternatives`` the values tried.
    """

    key: str
    rule: str
    alternatives: tuple[Any, ...]
    note: str = ""


COE5_DEFAULTS: tuple[Default, ...] = (
    Default("rules.burn_chance", "C-4.2", (0.25, 0.75), "chance a fire hit sets alight"),
    Default("rules.burn_stop", "C-4.2", (0.15, 0.5), "chance per round to stop burning"),
    Default("rules.burn_die", "C-4.2", (2, 6), "burning damage OED(d)"),
    Default("rules.freeze_chance", "C-4.3", (0.25, 0.75), "chance a cold hit freezes"),
    Default("rules.thaw_chance", "C-4.3", (0.1, 0.4), "chance per round to thaw"),
    Default("rules.stun_recover", "C-4.4", (0.5, 1.0), "chance per round to recover from stun"),
    Default("rules.paralysis_end", "C-4.9", (0.05, 0.25), "chance per round paralysis ends"),
    Default("rules.poison_divisor", "C-4.5", (5, 20), "poison pool loss per round: pool / d"),
    Default("rules.regen_fraction", "C-8.9", (0.05, 0.2), "share of max HP regenerated"),
    Default("rules.cloud_clear", "C-8.2", (0.25, 0.75), "chance per round a cloud clears"),
    Default("rules.fatigue_start", "C-8.1", (50, 200), "first round of battle fatigue"),
    Default("rules.max_rounds", "C-8.11", (150,), "round from which a battle is a draw"),
    Default("rules.siege_bombardment", "C-7.3", (False,), "siege weapons fire only in range"),
    Default("rules.tunnelling", "C-7.4", ("both", "none"), "who tunnels"),
    Default("rules.burrow_chance", "C-7.5", (0.1, 0.5), "chance per round to burrow"),
    Default("rules.high_wall_fort", "C-5.4", (2,), "fort level of a high wall"),
    Default("rules.shuffle_deployment", "C-6", (False,), "deal units out in written order"),
    Default("rules.siege_deployment", "C-6", ("melee_first",), "who fills the wall first"),
    Default("rules.hold_wall", "C-6", (False,), "siege defenders may leave the wall"),
    Default("rules.fear_die_base", "C-2.4", (5, 7), "fear check die: d = base + fear"),
    Default("rules.fear_checks", "C-8.5", ("strongest",), "one check per fear unit or one"),
    Default("rules.strength_check", "C-2.3", ("easy", "hard"), "strength check difficulty"),
    Default("rules.random_nearest", "C-8.3", (False,), "nearest-enemy ties: first by tile"),
    Default("rules.sidestep", "C-8.3", (False,), "a blocked unit waits"),
    Default("rules.simultaneous_moves", "C-8.3", (False,), "each unit sees earlier moves"),
    Default("rules.move_order", "C-8.3", ("sides",), "the whole attacker side moves first"),
    Default("rules.long_range_halving", "C-5.3", ("final",), "halve the final damage"),
    Default("rules.target_draw", "C-8.6", ("order",), "targets drawn with the attack order"),
    Default("width", "C-6", (8, 12), "grid rows"),
    Default("length", "C-6", (15, 30), "grid columns"),
)

SF_DEFAULTS: tuple[Default, ...] = (
    Default("rules.clash", "S-1.2", ("defender",), "clashing specials: the passive side wins"),
    Default("rules.breath_dice", "S-4", (0, 2), "d6 of fatigue recovered by catching breath"),
    Default("rules.faint_check_every_hit", "S-4", (False,), "faint check only when first due"),
    Default("rules.special_opportunity_attacks", "S-5", (0, 2), "attacks after a fumble"),
    Default("rules.chain_opportunity_attacks", "S-5", (False,), "opportunity attacks never chain"),
    Default("rules.death_threshold", "S-4", (">=",), "death check at injury >= HP"),
    Default("rules.engage_needs_contact", "S-6", (False,), "one front line is an engage area"),
    Default("rules.friendly_fire_order", "S-6", ("slots",), "friendly-fire listing in slots"),
    Default("rules.caster_in_own_area", "S-7", (False,), "casters never hit themselves"),
    Default("rules.initiative_dice", "S-8", (0, 1), "initiative: modifier + k d6"),
    Default("rules.friendly_fire_groups", "S-6", ("six",), "always six friendly-fire groups"),
    Default("policy.breath_at", "S-4", (0.25, 0.75), "catch breath at this share of HP"),
    Default("policy.fatigue_attacks", "S-3", (True,), "blunt melee deals fatigue"),
    Default("policy.trip_chance", "S-9", (0.5,), "share of melee attacks that trip"),
    Default("policy.secure_line_of_fire", "S-6", (False,), "shooters never secure a line"),
    Default("policy.cast", "S-7", (False,), "casters fight instead"),
    Default("policy.take_cover", "S-8", (False,), "back-liners never take cover"),
    Default("policy.coup_de_grace", "S-4", (True,), "finishing blows on the fainted"),
    Default("policy.shoot_into_melee", "S-6", (False,), "no shots into a melee with allies"),
    Default("battlefield", "S-9", ("open",), "the open battlefield: everyone is engaged"),
    Default("max_rounds", "S-10", (20,), "round cap: a longer fight is a draw"),
)

#: Dataclass fields with no row, and why.
EXEMPT: dict[str, str] = {
    "BattleRules.extra_rounds": "C-8.11: the 75 rounds after the battle are the seed's number, "
    "not a default",
    "BattleRules.siege_rounds": "C-7.3: the 15 bombardment rounds are the seed's number",
    "BattleRules.wall_range_bonus": "C-5.4: +1 range on a wall is the seed's number",
    "BattleRules.high_wall_range_bonus": "C-5.4: +2 behind a high wall is the seed's number",
}


def defaults_for(scenario: Scenario | SFScenario) -> tuple[Default, ...]:
    """The table of defaults of the scenario's ruleset."""
    return COE5_DEFAULTS if isinstance(scenario, Scenario) else SF_DEFAULTS


def _term(key: str, value: Any) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f"{key}={text}"


@dataclass
class SensitivityResult:
    """The change of the win rate under each alternative default, paired against the defaults."""

    baseline: Any
    rows: list[tuple[Default, str, PairedTotals, bool]]
    partial: bool
    seed: Any
    seconds: float
    noun: str
    win_label: str
    #: ``(term, reason)`` of the alternatives this baseline cannot take (a corridor
    #: pincer has no open-battlefield variant): left out, and said so.
    not_applicable: list[tuple[str, str]] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.rows[0][2].n if self.rows else 0

    def to_frame(self) -> pd.DataFrame:
        """One row per alternative, sorted by the size of the change (largest first)."""
        out = []
        for d, term, tot, same in self.rows:
            a, b, c, _ = (int(x) for x in tot.table)
            diff, lo, hi = tot.interval(same, LEVEL)
            out.append({
                "parameter": d.key, "rule": d.rule, "value": term.partition("=")[2],
                "default_rate": (a + c) / tot.n, "variant_rate": (a + b) / tot.n,
                "change": diff, "ci_low": lo, "ci_high": hi,
                "changed_share": tot.changed / tot.n, "meaning": d.note,
            })  # fmt: skip
        frame = pd.DataFrame(out)
        order = np.argsort(-frame["change"].abs().to_numpy(), kind="stable")
        return frame.iloc[order].reset_index(drop=True)

    def summary(self) -> str:
        frame = self.to_frame()
        sf = isinstance(self.baseline, SFScenario)
        # the first column fits the longest "parameter = value"
        w = max([38] + [len(f"{r.parameter} = {r.value}") + 2 for r in frame.itertuples()])
        lines = [
            f"Sensitivity of {self.baseline.title()} to the rule defaults",
            *([self.baseline.setting()] if sf else []),
            f"{self.n:,} paired {self.noun} per alternative, seed {self.seed}, "
            f"{self.seconds:.1f} s{'  — INTERRUPTED, partial result' if self.partial else ''}",
            f"defaults: P({self.win_label}) = {frame['default_rate'].iloc[0]:.2%}" if len(frame)
            else "",
            "",
            f"{'parameter = value':<{w}}{'rule':<8}{'change':>9}   {'paired 95% interval':<20}"
            f"{self.noun + ' changed':>16}",
        ]  # fmt: skip
        idle = frame[frame["changed_share"] == 0]
        for r in frame[frame["changed_share"] > 0].itertuples():
            lines.append(
                f"{r.parameter + ' = ' + r.value:<{w}}{r.rule:<8}{r.change:>+9.2%}   "
                f"{'[' + format(r.ci_low, '+.2%') + ', ' + format(r.ci_high, '+.2%') + ']':<20}"
                f"{r.changed_share:>16.1%}"
            )
        if len(idle):
            names = ", ".join(dict.fromkeys(idle["parameter"]))
            lines += ["", f"No {self.noun[:-1]} changed at all under {len(idle)} alternatives "
                      f"(they do not arise in this matchup): {names}."]  # fmt: skip
        if self.not_applicable:
            lines += ["", "Not applicable to this baseline: " + "; ".join(
                f"{term} ({why})" for term, why in self.not_applicable)]  # fmt: skip
        if sf and (note := self.baseline.roster_note()):
            lines += ["", note]
        return "\n".join(lines)

    __str__ = summary

    def to_dict(self) -> dict:
        return {"baseline": self.baseline.title(), "pairs": self.n, "seed": self.seed,
                "seconds": self.seconds, "partial": self.partial,
                "rows": self.to_frame().to_dict(orient="records"),
                "not_applicable": [{"term": t, "reason": why}
                                   for t, why in self.not_applicable]}  # fmt: skip

    def plot(self, top: int | None = None, idle: bool = False) -> Figure:
        """A tornado plot: the change of the win rate per alternative, largest at the top.

        Alternatives that changed no battle are left out unless ``idle=True``;
        ``top`` keeps only the largest changes.
        """
        import matplotlib.pyplot as plt

        frame = self.to_frame()
        if not idle:
            frame = frame[frame["changed_share"] > 0]
        if frame.empty:
            frame = self.to_frame().head(1)
        if top is not None:
            frame = frame.head(top)
        frame = frame.iloc[::-1]
        labels = [f"{r.parameter} = {r.value} ({r.rule})" for r in frame.itertuples()]
        y = np.arange(len(frame))
        change = frame["change"].to_numpy() * 100
        err = np.array([change - frame["ci_low"].to_numpy() * 100,
                        frame["ci_high"].to_numpy() * 100 - change])  # fmt: skip
        fig, ax = plt.subplots(figsize=(10, 0.32 * len(frame) + 1.8), layout="constrained")
        up = change >= 0
        ax.barh(y[up], change[up], color="tab:blue", height=0.7, label="raises the win rate")
        ax.barh(y[~up], change[~up], color="tab:red", height=0.7, label="lowers the win rate")
        ax.errorbar(change, y, xerr=np.maximum(err, 0), fmt="none", ecolor="black", capsize=3,
                    lw=1, label="paired 95% interval (Newcombe)")  # fmt: skip
        ax.axvline(0, color="grey", lw=1)
        ax.set_yticks(y, labels, fontsize="small")
        ax.set(
            xlabel=f"change in P({self.win_label}), alternative − defaults (percentage points)",
            title=f"Sensitivity to the rule defaults\n{self.baseline.title()}\n"
            f"P({self.win_label}) with the defaults {frame['default_rate'].iloc[0]:.1%}; "
            f"{self.n:,} paired {self.noun} per alternative",
        )
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.55 / max(len(frame), 3) - 0.1),
                  ncol=3, fontsize="small")  # fmt: skip
        return fig


def sensitivity(
    baseline: Any,
    *,
    trials: int = 10_000,
    seed: SeedLike = None,
    rng: SeedLike = None,
    threads: int | None = None,
    progress: bool | None = True,
    only: list[str] | None = None,
) -> SensitivityResult:
    """Vary every [default] in turn and measure the paired change of the win rate.

    Parameters
    ----------
    baseline : Scenario, SFScenario or (attacker, defender)
        The matchup with the defaults (CoE5 for a pair).
    trials : int
        Paired battles per alternative; the defaults are played once and
        paired with every alternative on the same streams.
    only : list of str, optional
        Keys of :data:`COE5_DEFAULTS` / :data:`SF_DEFAULTS` to vary (default all).

    Returns
    -------
    SensitivityResult
        ``to_frame()`` sorted by the size of the change, ``plot()`` a tornado plot.
    """
    base_sc = as_scenario(baseline)
    table = defaults_for(base_sc)
    if only is not None:
        known = [d.key for d in table]
        unknown = [k for k in only if k not in known]
        if unknown:
            raise InputError(
                f"unknown default(s) {', '.join(unknown)}; expected any of {', '.join(known)}"
            )
        table = tuple(d for d in table if d.key in only)
    trials = check_trials(trials)
    base = engine_for(base_sc)
    # every term checked first; one the baseline cannot take is left out, with the reason
    terms, engines, not_applicable = [], [], []
    for d in table:
        for v in d.alternatives:
            term = _term(d.key, v)
            try:
                engine = engine_for(base_sc.vary(term))
            except InputError as exc:
                not_applicable.append((term, str(exc)))
                continue
            terms.append((d, term))
            engines.append(engine)
    if not engines:
        raise InputError(
            "no alternative applies to this baseline: "
            + "; ".join(f"{t} ({why})" for t, why in not_applicable)
        )
    ss = resolve_seed(seed, rng)
    totals, run = run_paired(
        base, engines, ss, trials=trials, precision=None, max_trials=trials,
        threads=threads, progress=progress, desc=f"defaults × {base.noun}",
    )  # fmt: skip
    rows = [
        (d, t, tot, e.fingerprint == base.fingerprint)
        for (d, t), tot, e in zip(terms, totals, engines, strict=True)
    ]
    return SensitivityResult(base_sc, rows, run.partial, ss.entropy, run.seconds, base.noun,
                             base.win_label, not_applicable)  # fmt: skip


def sf_sensitivity(baseline: Any, **kwargs: Any) -> SensitivityResult:
    """:func:`sensitivity` for Shared†Fantasia fights (``(party_a, party_b)`` or an SFScenario)."""
    if isinstance(baseline, tuple | list) and len(baseline) == 2:
        baseline = SFScenario(*baseline)
    return sensitivity(baseline, **kwargs)
