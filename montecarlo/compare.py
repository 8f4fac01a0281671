"""Paired comparisons: is a change worth it?  Two variants on common random numbers.

Battle (or fight) ``t`` of a run draws its dice from its own stream,
``kernels.rng.seed_trial(chunk key, t)``, a pure function of (seed, t).  So
a baseline and a variant played with the same seed see the same dice in
battle ``t`` for as long as their play agrees, and the difference of their
outcomes is measured far more precisely than by two independent runs: the
noise the two share cancels.  :func:`compare` plays both on the same chunks,
batch by batch, and streams the per-battle pairs into a paired 2×2 table of
"attacker wins" indicators and the sums paired means need, so memory does
not grow with the number of battles.

Battle ``t`` of a comparison is battle ``t`` of :func:`montecarlo.matchup`
(or :func:`montecarlo.sf.fight`) with the same seed: the baseline's figures
equal a plain run's.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from kernels import sf_layout as F
from montecarlo.coe5.battle import BATCH_CHUNKS, BATTLE_CHUNK, _Battles
from montecarlo.coe5.battle import DEFAULT_MAX_TRIALS as COE5_MAX_TRIALS
from montecarlo.coe5.battlefield import deploy
from montecarlo.driver import (
    check_trials,
    numba_threads,
    progress_bar,
    stop_on_ctrl_c,
)
from montecarlo.errors import InputError
from montecarlo.paired import PairedMoments, newcombe_independent, newcombe_paired
from montecarlo.paired import variance_reduction as _variance_reduction
from montecarlo.scenarios import Scenario, SFScenario, split_terms
from montecarlo.seeding import SeedLike, resolve_seed
from montecarlo.sf.fights import DEFAULT_MAX_TRIALS as SF_MAX_TRIALS
from montecarlo.sf.fights import (
    FIGHT_CHUNK,
    _play,
    _side,
    battlefield_array,
    corridor_ends,
    pack_party,
    surprised_slots,
)
from montecarlo.validation import check_army_size, check_grid

LEVEL = 0.95


# -- engines: one scenario, ready to play chunks and return per-trial rows ----------
@dataclass
class Rows:
    """Per-trial results of one call: outcome code (0: attacker or party A wins), rounds,
    and survivors per side (units alive and not routed; SF: characters standing)."""

    outcome: np.ndarray
    rounds: np.ndarray
    survivors: np.ndarray  # (n, 2)


def _digest(*parts: Any) -> str:
    """A fingerprint of kernel inputs: equal fingerprints play equal battles."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str((p.dtype, p.shape)).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        else:
            h.update(repr(p).encode())
        h.update(b"|")
    return h.hexdigest()


class CoE5Engine:
    """A CoE5 :class:`Scenario` packed for the battle kernel."""

    chunk = BATTLE_CHUNK
    max_trials = COE5_MAX_TRIALS
    noun = "battles"
    win_label = "attacker wins"
    sides = ("attacker", "defender")

    def __init__(self, sc: Scenario) -> None:
        check_grid(sc.width, sc.length)
        check_army_size(sum(k for _, k in sc.attacker), "attacker")
        check_army_size(sum(k for _, k in sc.defender), "defender")
        dep = deploy(list(sc.attacker), list(sc.defender), sc.width, sc.length, siege=sc.siege,
                     siege_deployment=sc.rules.siege_deployment)  # fmt: skip
        self.scenario = sc
        self.battles = _Battles(dep, sc.siege, sc.fort, sc.width, sc.length, sc.rules)
        self.part_side = np.array([p.side for p in dep.parts])
        b = self.battles
        self.fingerprint = _digest(
            b.U, b.W, dep.itype, dep.iside, dep.ipart, dep.x, dep.y, dep.wall_col,
            b.shuffle_idx, b.shuffle_bounds, b.width, b.length, b.fort, b.siege, b.params,
        )  # fmt: skip

    def play(self, ss: np.random.SeedSequence, first: int, n_chunks: int, n: int) -> Rows:
        totals = self.battles.empty_totals()
        self.battles.play(ss, first, n_chunks, n, True, False, totals)
        kept = totals.kept[0]
        surv = np.stack(
            [kept.survivors[:, self.part_side == s].sum(axis=1) for s in (0, 1)], axis=1
        )
        return Rows(kept.outcome, kept.rounds, surv)


class SFEngine:
    """An :class:`SFScenario` packed for the fight kernel (as :func:`montecarlo.sf.fight` does)."""

    chunk = FIGHT_CHUNK
    max_trials = SF_MAX_TRIALS
    noun = "fights"
    win_label = "party A wins"
    sides = ("A", "B")

    def __init__(self, sc: SFScenario) -> None:
        a, b = list(sc.party_a), list(sc.party_b)
        pinc = _side(sc.pincer, "pincer")
        ends = None
        if sc.rear is not None and pinc < 0:
            raise InputError("rear= needs pincer=, the side attacked from both ends")
        if pinc >= 0:
            if not sc.battlefield.second_front:
                raise InputError(
                    f"pincer= needs a battlefield with a second front (the corridor); "
                    f"{sc.battlefield.name!r} has none"
                )
            extra = list(sc.rear or ())
            if pinc == 0:
                b = b + extra
            else:
                a = a + extra
            ends = corridor_ends(a, b, pinc, len(extra))
        surprised = surprised_slots(sc.surprise, len(a), len(b))
        self.C = pack_party(a, b, surprised=surprised, ends=ends)
        self.B = battlefield_array(
            sc.battlefield, pinc, check_trials(sc.max_rounds, "max_rounds"), sc.rules
        )
        self.Q = sc.policy.to_array(sc.rules)
        self.max_rounds = sc.max_rounds
        self.side = self.C[F.SIDE]
        self.scenario = sc
        self.fingerprint = _digest(self.C, self.B, self.Q, self.max_rounds)

    def play(self, ss: np.random.SeedSequence, first: int, n_chunks: int, n: int) -> Rows:
        n_chars = self.C.shape[1]
        totals: dict[str, Any] = {
            "n": 0,
            "outcome": np.zeros(3, np.int64),
            "rounds": np.zeros(self.max_rounds + 1, np.int64),
            "states": np.zeros((n_chars, 4), np.int64),
            "damage": np.zeros((n_chars, 3), np.int64),
            "events": np.zeros((2, F.N_EVENTS), np.int64),
        }
        kept: list[tuple] = []
        _play(ss, first, n_chunks, n, self.C, self.B, self.Q, self.max_rounds, True, False,
              totals, kept)  # fmt: skip
        outcome, rounds, state = kept[0][0], kept[0][1], kept[0][2]
        standing = state == F.STANDING
        surv = np.stack([standing[:, self.side == s].sum(axis=1) for s in (0, 1)], axis=1)
        return Rows(outcome, rounds, surv)


def engine_for(scenario: Scenario | SFScenario) -> CoE5Engine | SFEngine:
    """The engine that plays a scenario (checks every input, plays nothing)."""
    if isinstance(scenario, Scenario):
        return CoE5Engine(scenario)
    if isinstance(scenario, SFScenario):
        return SFEngine(scenario)
    raise InputError(f"expected a Scenario or an SFScenario, got {type(scenario).__name__}")


# -- streaming accumulation of pairs -------------------------------------------------
METRICS = ("rounds", "survivors_0", "survivors_1")


@dataclass
class PairedTotals:
    """Everything a comparison reports, folded in batch by batch (bounded memory).

    ``table`` is the paired 2×2 table of "attacker wins" indicators, in the
    order of :func:`montecarlo.paired.newcombe_paired` with the variant first:
    (both win, only the variant wins, only the baseline wins, neither).
    """

    table: np.ndarray = field(default_factory=lambda: np.zeros(4, np.int64))
    outcomes: np.ndarray = field(default_factory=lambda: np.zeros((2, 3), np.int64))
    changed: int = 0
    moments: dict[str, PairedMoments] = field(
        default_factory=lambda: {m: PairedMoments() for m in METRICS}
    )

    @property
    def n(self) -> int:
        return int(self.table.sum())

    def add(self, base: Rows, var: Rows) -> None:
        wb, wv = base.outcome == 0, var.outcome == 0
        self.table += [
            np.count_nonzero(wv & wb),
            np.count_nonzero(wv & ~wb),
            np.count_nonzero(~wv & wb),
            np.count_nonzero(~wv & ~wb),
        ]
        self.outcomes[0] += np.bincount(base.outcome, minlength=3)[:3]
        self.outcomes[1] += np.bincount(var.outcome, minlength=3)[:3]
        differs = (
            (base.outcome != var.outcome)
            | (base.rounds != var.rounds)
            | (base.survivors != var.survivors).any(axis=1)
        )
        self.changed += int(np.count_nonzero(differs))
        self.moments["rounds"].add(base.rounds, var.rounds)
        for s in (0, 1):
            self.moments[f"survivors_{s}"].add(base.survivors[:, s], var.survivors[:, s])

    def interval(self, identical: bool, level: float = LEVEL) -> tuple[float, float, float]:
        """The difference of win rates (variant - baseline) and its paired interval."""
        a, b, c, d = (int(x) for x in self.table)
        theta = (b - c) / self.n
        if identical:  # same inputs, same dice: the difference is 0 by construction
            return theta, theta, theta
        lo, hi = newcombe_paired(a, b, c, d, level)
        return theta, float(lo), float(hi)

    def halfwidth(self, identical: bool) -> float:
        _, lo, hi = self.interval(identical)
        return (hi - lo) / 2


# -- the batch loop ----------------------------------------------------------------
@dataclass
class _Run:
    partial: bool
    seconds: float


def run_paired(
    base: CoE5Engine | SFEngine,
    variants: Sequence[CoE5Engine | SFEngine],
    ss: np.random.SeedSequence,
    *,
    trials: int | None,
    precision: float | None,
    max_trials: int,
    threads: int | None,
    progress: bool | None,
    desc: str,
) -> tuple[list[PairedTotals], _Run]:
    """Play the baseline and every variant on the same chunks; one table per variant.

    The baseline is played once per call and paired with each variant in turn.
    Batches are fixed (``BATCH_CHUNKS`` chunks, then sized from the results),
    and ``precision`` (the largest half-width of a difference's interval) is
    checked only between batches, so every figure depends on the seed alone,
    never on the thread count or the pacing of calls.
    """
    chunk = base.chunk
    totals = [PairedTotals() for _ in variants]
    same = [v.fingerprint == base.fingerprint for v in variants]
    batch = BATCH_CHUNKS * chunk
    target = max_trials if precision is not None else trials

    def planned(done: int) -> int:
        if done >= target:
            return 0
        n = min(batch, target - done)
        if precision is not None and done > 0:
            hw = max(t.halfwidth(s) for t, s in zip(totals, same, strict=True))
            if hw <= precision:
                return 0
            wanted = done * (hw / precision) ** 2 - done
            n_batches = int(np.clip(np.ceil(wanted / batch), 1, max(1, done // batch)))
            n = min(n_batches * batch, target - done)
        return n

    start = time.perf_counter()
    first = 0
    cut = False
    bar = progress_bar(progress, total=trials, desc=desc, unit="pair", unit_scale=True)
    with stop_on_ctrl_c() as stop:
        try:
            with numba_threads(threads):
                while not stop.requested:
                    n = planned(totals[0].n)
                    if n == 0:
                        break
                    end = first + -(-n // chunk)
                    last = n - (end - first - 1) * chunk
                    # Calls of BATCH_CHUNKS chunks: a battle's stream depends only on its
                    # chunk and its place in it, so the grouping changes no figure; a
                    # fixed size keeps the call of all the variants short for Ctrl-C.
                    while first < end and not stop.requested:
                        step = min(BATCH_CHUNKS, end - first)
                        m = step * chunk if first + step < end else (step - 1) * chunk + last
                        rows = base.play(ss, first, step, m)
                        for engine, tot, s in zip(variants, totals, same, strict=True):
                            tot.add(rows, rows if s else engine.play(ss, first, step, m))
                        first += step
                        bar.update(m)
                    cut = first < end
        except KeyboardInterrupt:
            stop.requested = True
            cut = True
        finally:
            bar.close()
        partial = cut or (stop.requested and planned(totals[0].n) > 0)
    if totals[0].n == 0:
        raise KeyboardInterrupt
    return totals, _Run(partial, time.perf_counter() - start)


# -- the result ----------------------------------------------------------------------
@dataclass
class Comparison:
    """A paired comparison of two variants of a matchup or fight.

    Attributes
    ----------
    baseline, variant : Scenario or SFScenario
    totals : PairedTotals
        The paired table and sums.
    identical : bool
        The two scenarios give the kernels the same inputs: every battle is
        the same, and the difference is 0 exactly (a zero-width interval).
    """

    baseline: Any
    variant: Any
    totals: PairedTotals
    identical: bool
    partial: bool
    seed: Any
    seconds: float
    precision: float | None
    noun: str = "battles"
    win_label: str = "attacker wins"
    sides: tuple[str, str] = ("attacker", "defender")
    level: float = LEVEL

    @property
    def n(self) -> int:
        """Pairs played (each variant played this many battles)."""
        return self.totals.n

    @property
    def win_rates(self) -> tuple[float, float]:
        """(baseline, variant) rates of the attacker's (party A's) wins."""
        a, b, c, _ = self.totals.table
        return float((a + c) / self.n), float((a + b) / self.n)

    def difference(self) -> tuple[float, float, float]:
        """Variant minus baseline win rate, with its paired 95% interval (Newcombe)."""
        return self.totals.interval(self.identical, self.level)

    def independent_interval(self) -> tuple[float, float]:
        """The interval two independent runs of ``n`` battles each would give at these rates."""
        a, b, c, _ = (int(x) for x in self.totals.table)
        lo, hi = newcombe_independent(a + b, self.n, a + c, self.n, self.level)
        return float(lo), float(hi)

    def variance_reduction(self) -> float:
        """Var(independent difference) / Var(paired difference), measured from the table.

        How many times more battles two independent runs would need for the
        same precision of the difference (``inf`` when every pair agrees).
        """
        return _variance_reduction(*(int(x) for x in self.totals.table))

    def halfwidth(self) -> float:
        """Half the width of the difference's interval: the comparison's precision."""
        _, lo, hi = self.difference()
        return (hi - lo) / 2

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: baseline, variant, difference with its paired 95% interval,
        and the variance reduction against independent runs."""
        p0, p1 = self.win_rates
        diff, lo, hi = self.difference()
        rows = [{
            "measure": f"P({self.win_label})", "baseline": p0, "variant": p1,
            "difference": diff, "ci_low": lo, "ci_high": hi,
            "variance_reduction": self.variance_reduction(),
        }]  # fmt: skip
        names = {"rounds": "mean rounds", "survivors_0": f"{self.sides[0]} survivors",
                 "survivors_1": f"{self.sides[1]} survivors"}  # fmt: skip
        for key, label in names.items():
            m = self.totals.moments[key]
            b0, b1 = m.means()
            d, dlo, dhi = m.difference(self.level)
            if self.identical:
                dlo = dhi = d
            rows.append({"measure": label, "baseline": b0, "variant": b1, "difference": d,
                         "ci_low": dlo, "ci_high": dhi,
                         "variance_reduction": m.variance_reduction()})  # fmt: skip
        return pd.DataFrame(rows)

    def title(self) -> str:
        label = self.variant.label or "variant"
        return f"{self.baseline.title()}: baseline vs {label}"

    def summary(self) -> str:
        """A readable report."""
        state = "  — INTERRUPTED, partial result" if self.partial else ""
        sf = isinstance(self.baseline, SFScenario)
        lines = [
            self.title(),
            *([self.baseline.setting()] if sf else []),
            f"{self.n:,} paired {self.noun} (same seed, same dice per {self.noun[:-1]}), "
            f"seed {self.seed}, {self.seconds:.2f} s{state}",
        ]
        if self.variant.title() != self.baseline.title():
            lines.append(f"variant: {self.variant.title()}")
            if sf and self.variant.setting() != self.baseline.setting():
                lines.append(f"variant: {self.variant.setting()}")
        lines.append("")
        lines.append(f"{'measure':<22}{'baseline':>10}{'variant':>10}{'difference':>12}"
                     f"   {'paired 95% interval':<22}{'var. reduction':>15}")  # fmt: skip
        for i, r in enumerate(self.to_frame().itertuples()):
            if i == 0:
                cells = (f"{r.baseline:>10.2%}{r.variant:>10.2%}{r.difference:>+12.2%}   "
                         f"[{r.ci_low:+.2%}, {r.ci_high:+.2%}]")  # fmt: skip
            else:
                cells = (f"{r.baseline:>10.3f}{r.variant:>10.3f}{r.difference:>+12.3f}   "
                         f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]")  # fmt: skip
            vr = _vr_text(r.variance_reduction)
            lines.append(f"{r.measure:<22}{cells:<56}{vr:>8}")
        lo, hi = self.independent_interval()
        changed = self.totals.changed / self.n
        lines.append("")
        if self.identical:
            one = self.noun[:-1]
            lines.append(
                "The two variants give the kernel the same inputs: every "
                f"{one} is the same, so the difference is exactly 0."
            )
        else:
            lines += [
                f"{changed:.1%} of {self.noun} changed at all (outcome, rounds or survivors).",
                f"Two independent runs of {self.n:,} {self.noun} each would give the win-rate "
                f"difference about [{lo:+.2%}, {hi:+.2%}].",
            ]
        if sf and (note := self.baseline.roster_note()):
            lines += ["", note]
        return "\n".join(lines)

    __str__ = summary

    def __repr__(self) -> str:
        diff, lo, hi = self.difference()
        return (f"<Comparison {self.title()}: {diff:+.2%} [{lo:+.2%}, {hi:+.2%}] "
                f"over {self.n:,} paired {self.noun}>")  # fmt: skip

    def to_dict(self) -> dict:
        """Machine-readable summary (for --json)."""
        diff, lo, hi = self.difference()
        return {
            "baseline": self.baseline.title(), "variant": self.variant.title(),
            "variant_terms": self.variant.label, "pairs": self.n, "seed": self.seed,
            "seconds": self.seconds, "partial": self.partial, "identical": self.identical,
            "table": {"both_win": int(self.totals.table[0]),
                      "only_variant_wins": int(self.totals.table[1]),
                      "only_baseline_wins": int(self.totals.table[2]),
                      "neither_wins": int(self.totals.table[3])},
            "difference": {"estimate": diff, "ci_low": lo, "ci_high": hi,
                           "method": "Newcombe hybrid score, paired (1998, method 10)"},
            "variance_reduction": _finite(self.variance_reduction()),
            "changed_share": self.totals.changed / self.n,
            "measures": [{k: _finite(v) for k, v in row.items()}
                         for row in self.to_frame().to_dict(orient="records")],
        }  # fmt: skip


def _finite(value: Any) -> Any:
    """JSON has no infinity: an exact (infinite) variance reduction is written "inf"."""
    return "inf" if isinstance(value, float) and math.isinf(value) else value


def _vr_text(value: float) -> str:
    """A variance reduction for tables: 'exact' (no paired variance), '—' (no variance at all)."""
    if math.isnan(value):
        return "—"
    return "exact" if math.isinf(value) else f"×{value:.1f}"


# -- the public functions --------------------------------------------------------------
VariantLike = Scenario | SFScenario | str | Iterable[str]


def as_scenario(baseline: Any) -> Scenario | SFScenario:
    """A scenario from a scenario or an ``(attacker, defender)`` pair (CoE5)."""
    if isinstance(baseline, Scenario | SFScenario):
        return baseline
    if isinstance(baseline, tuple | list) and len(baseline) == 2:
        return Scenario(*baseline)
    raise InputError(
        "baseline is a Scenario, an SFScenario or an (attacker, defender) pair such as "
        f"('pikeman:10', 'knight:3'), got {baseline!r}"
    )


def as_variant(baseline: Scenario | SFScenario, variant: VariantLike) -> Scenario | SFScenario:
    """The variant: a scenario as given, or the baseline with override terms applied."""
    if isinstance(variant, Scenario | SFScenario):
        if type(variant) is not type(baseline):
            raise InputError("baseline and variant must be of the same game (CoE5 or SF)")
        return variant
    return baseline.vary(*split_terms(variant))


def _check_precision(precision: Any) -> float:
    if isinstance(precision, bool) or not isinstance(precision, int | float):
        raise InputError(f"precision must be a number in (0, 0.5), got {precision!r}")
    if not 0 < precision < 0.5:
        raise InputError(f"precision must be a number in (0, 0.5), got {precision}")
    return float(precision)


def compare(
    baseline: Any,
    variant: Any,
    *,
    trials: int | None = None,
    precision: float | None = None,
    seed: SeedLike = None,
    rng: SeedLike = None,
    threads: int | None = None,
    progress: bool | None = True,
    max_trials: int | None = None,
) -> Comparison:
    """Compare two variants of a matchup (or fight) on common random numbers.

    Parameters
    ----------
    baseline : Scenario, SFScenario or (attacker, defender)
        The reference, e.g. ``("pikeman:10", "knight:3")`` or
        ``Scenario("pikeman:10", "knight:3", siege=True, fort=1)``.
    variant : Scenario, SFScenario, str or list of str
        The changed scenario, or override terms applied to the baseline, e.g.
        ``"knight.armor=+1"``, ``["fort=2", "rules.hold_wall=false"]`` (the
        grammar is in :mod:`montecarlo.scenarios`).
    trials : int, optional
        Pairs of battles (default 20,000 unless ``precision`` is given).
    precision : float, optional
        Keep playing until the half-width of the difference's 95% interval is
        at most this (checked between batches), up to ``max_trials``.
    seed, rng, threads, progress
        As for :func:`montecarlo.matchup`; the same seed gives the same result
        at any thread count, and battle ``t`` is battle ``t`` of a plain run.

    Returns
    -------
    Comparison
        Win rates of both, the difference with Newcombe's paired 95% interval
        (:func:`montecarlo.paired.newcombe_paired`), paired differences of mean
        rounds and survivors per side (t intervals), and the measured variance
        reduction against independent runs.  Identical scenarios give a
        difference of exactly 0 with a zero-width interval.

    Notes
    -----
    ``compare(samples, distribution)`` with a
    :class:`~montecarlo.distribution.Distribution` second is the goodness-of-fit
    test under its old name: it warns and runs :func:`montecarlo.fit_test`, for
    this release only.
    """
    from montecarlo.distribution import Distribution

    if isinstance(variant, Distribution):  # the older mc.compare(samples, exact)
        import warnings

        from montecarlo.stats import fit_test

        warnings.warn(
            "mc.compare(samples, distribution) is the goodness-of-fit test: call "
            "mc.fit_test(samples, distribution); this form goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return fit_test(baseline, variant)  # type: ignore[return-value]
    base_sc = as_scenario(baseline)
    var_sc = as_variant(base_sc, variant)
    if trials is not None and precision is not None:
        raise InputError("give trials= or precision=, not both")
    base, var = engine_for(base_sc), engine_for(var_sc)
    limit = base.max_trials if max_trials is None else check_trials(max_trials, "max_trials")
    if precision is not None:
        precision = _check_precision(precision)
    else:
        trials = check_trials(20_000 if trials is None else trials)
    ss = resolve_seed(seed, rng)
    (totals,), run = run_paired(
        base, [var], ss, trials=trials, precision=precision, max_trials=limit,
        threads=threads, progress=progress, desc=f"paired {base.noun}",
    )  # fmt: skip
    return Comparison(
        base_sc, var_sc, totals, var.fingerprint == base.fingerprint, run.partial, ss.entropy,
        run.seconds, precision, base.noun, base.win_label, base.sides,
    )  # fmt: skip


def sf_compare(baseline: Any, variant: Any, **kwargs: Any) -> Comparison:
    """:func:`compare` for Shared†Fantasia fights: ``baseline`` an :class:`SFScenario`
    or a ``(party_a, party_b)`` pair."""
    if isinstance(baseline, tuple | list) and len(baseline) == 2:
        baseline = SFScenario(*baseline)
    if not isinstance(baseline, SFScenario):
        raise InputError(
            f"baseline is an SFScenario or a (party_a, party_b) pair, got {baseline!r}"
        )
    return compare(baseline, variant, **kwargs)
