"""CoE5 matchups: many simplified battles, aggregated with their Monte Carlo error.

:func:`matchup` plays battles with :func:`kernels.coe5_battle.run_chunks` in
fixed chunks of :data:`BATTLE_CHUNK` trials, each chunk on its own key, and
in fixed batches of :data:`BATCH_CHUNKS` chunks.  The chunks of a call run on a
pool of Python threads (the kernel releases the GIL), each writing its own
rows.  The stopping rule of ``precision=`` is checked only between batches, so
the chunks played, and so every figure, depend on the seed alone, never on the
thread count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from kernels import coe5_rules as R
from kernels.coe5_battle import (
    ATTACK_ROWS,
    COLUMN_BITS_MAX_WIDTH,
    FIELD_MIN,
    MISC_EXTRA,
    N_DEBUG,
    TILE_ROWS,
    UNIT_ROWS,
    needs_extras,
    run_chunks,
)
from montecarlo.coe5.battlefield import ArmyLike, Deployment, deploy, parse_army
from montecarlo.coe5.dice import DIFFICULTIES
from montecarlo.coe5.packing import pack
from montecarlo.coe5.units import Roster
from montecarlo.driver import check_trials, run_batches, run_on_threads
from montecarlo.errors import InputError
from montecarlo.seeding import SeedLike, chunk_states, resolve_seed
from montecarlo.validation import check_army_size, check_grid, check_kept, coerce_rules

#: Battles per chunk (one key each; every battle draws its own stream from it).  Fixed:
#: it is part of the seed.
BATTLE_CHUNK = 256
#: Chunks per batch; ``precision=`` is checked between batches.
BATCH_CHUNKS = 8
#: Upper bound on battles for ``precision=`` runs.
DEFAULT_MAX_TRIALS = 10_000_000

OUTCOMES = ("attacker", "defender", "draw")


@dataclass(frozen=True)
class BattleRules:
    """Every [default] of RULES.md C-2 to C-8 that a battle uses, by name.

    Change any of them with ``matchup(..., rules=BattleRules(burn_chance=0.3))``.
    """

    burn_chance: float = 0.5  # C-4.2
    burn_stop: float = 0.3  # C-4.2
    burn_die: int = 3  # C-4.2
    freeze_chance: float = 0.5  # C-4.3
    thaw_chance: float = 0.2  # C-4.3
    stun_recover: float = 0.75  # C-4.4
    paralysis_end: float = 0.1  # C-4.9
    poison_divisor: int = 10  # C-4.5
    regen_fraction: float = 0.1  # C-8.9
    cloud_clear: float = 0.5  # C-8.2
    fatigue_start: int | None = None  # C-8.1: None means max(100, 100 + units)
    max_rounds: int = 10_000  # C-8.11
    extra_rounds: int = 75  # C-8.11
    siege_rounds: int = 15  # C-7.3
    siege_bombardment: bool = True  # C-7.3: siege rounds fire at any distance (else in range)
    tunnelling: str = "attacker"  # C-7.4: who tunnels: "attacker", "both" or "none"
    burrow_chance: float = 0.25  # C-7.5: chance per round that a combat burrower burrows
    wall_range_bonus: int = 1  # C-5.4: extra range on a wall of fort below high_wall_fort
    high_wall_range_bonus: int = 2  # C-5.4: extra range behind a high wall
    high_wall_fort: int = 3  # C-5.4: the fortification level from which a wall is high
    shuffle_deployment: bool = True  # C-6: deal units out to the slots of their role at random
    siege_deployment: str = "ranged_first"  # C-6: wall filled "ranged_first" or "melee_first"
    hold_wall: bool = True  # C-6: siege defenders hold the wall column
    fear_die_base: int = 6  # C-2.4
    fear_checks: str = "each"  # C-8.5: one check per adjacent fear unit, or "strongest" only
    strength_check: str = "normal"  # C-2.3: difficulty of strength checks (against shock)
    random_nearest: bool = True  # C-8.3: random among equally near enemies, else first by tile
    sidestep: bool = True  # C-8.3: a blocked unit takes an equally close free tile
    simultaneous_moves: bool = True  # C-8.3: choose from positions at the start of the step
    move_order: str = "paired"  # C-8.3: "paired" rank by rank, or "sides": all attackers first
    target_draw: str = "attack"  # C-8.6: target drawn when the "attack" is made, or at the "order"
    long_range_halving: str = "raw"  # C-5.3: "raw" roll at step 1, or "final" damage

    def wall_bonus(self, fort: int) -> int:
        """C-5.4: the range a ranged weapon gains on a wall of fortification ``fort``."""
        if fort >= self.high_wall_fort:
            return self.high_wall_range_bonus
        return self.wall_range_bonus

    def to_array(self) -> np.ndarray:
        """The float64 parameter array in :mod:`kernels.coe5_rules` order."""
        for name in ("burn_chance", "burn_stop", "freeze_chance", "thaw_chance",
                     "stun_recover", "paralysis_end", "regen_fraction", "cloud_clear",
                     "burrow_chance"):  # fmt: skip
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise InputError(f"rules.{name} is a probability in [0, 1], got {value}")
        if self.max_rounds < 1 or self.poison_divisor < 1:
            raise InputError("rules.max_rounds and rules.poison_divisor must be at least 1")
        p = np.zeros(R.N_PARAMS)
        p[R.BURN_CHANCE] = self.burn_chance
        p[R.BURN_STOP] = self.burn_stop
        p[R.BURN_DIE] = self.burn_die
        p[R.FREEZE_CHANCE] = self.freeze_chance
        p[R.THAW_CHANCE] = self.thaw_chance
        p[R.STUN_RECOVER] = self.stun_recover
        p[R.PARALYSIS_END] = self.paralysis_end
        p[R.POISON_DIVISOR] = self.poison_divisor
        p[R.REGEN_FRACTION] = self.regen_fraction
        p[R.CLOUD_CLEAR] = self.cloud_clear
        p[R.FATIGUE_START] = -1 if self.fatigue_start is None else self.fatigue_start
        p[R.MAX_ROUNDS] = self.max_rounds
        p[R.EXTRA_ROUNDS] = self.extra_rounds
        p[R.SIEGE_ROUNDS] = self.siege_rounds
        p[R.WALL_RANGE_BONUS] = self.wall_range_bonus
        p[R.FEAR_DIE_BASE] = self.fear_die_base
        p[R.STRENGTH_CHECK] = DIFFICULTIES[_choice(self.strength_check, DIFFICULTIES,
                                                   "strength_check")]  # fmt: skip
        p[R.SIDESTEP] = float(self.sidestep)
        p[R.HALVE_FINAL] = float(
            _choice(self.long_range_halving, ("raw", "final"), "long_range_halving") == "final"
        )
        p[R.RANDOM_NEAREST] = float(self.random_nearest)
        p[R.SIMULTANEOUS_MOVES] = float(self.simultaneous_moves)
        p[R.PAIRED_MOVES] = float(_choice(self.move_order, MOVE_ORDERS, "move_order") == "paired")
        p[R.TARGET_AT_ORDER] = float(
            _choice(self.target_draw, TARGET_DRAWS, "target_draw") == "order"
        )
        p[R.HOLD_WALL] = float(self.hold_wall)
        p[R.BOMBARD] = float(self.siege_bombardment)
        p[R.TUNNELLERS] = TUNNELLERS[_choice(self.tunnelling, TUNNELLERS, "tunnelling")]
        p[R.BURROW_CHANCE] = self.burrow_chance
        p[R.FEAR_EACH] = float(_choice(self.fear_checks, FEAR_CHECKS, "fear_checks") == "each")
        _choice(self.siege_deployment, SIEGE_DEPLOYMENTS, "siege_deployment")
        return p


#: C-7.4: ``BattleRules.tunnelling`` -> how many sides (from the attacker) tunnel.
TUNNELLERS = {"none": 0, "attacker": 1, "both": 2}
#: C-8.5: ``BattleRules.fear_checks``.
FEAR_CHECKS = ("each", "strongest")
#: C-8.6: ``BattleRules.target_draw``.
TARGET_DRAWS = ("attack", "order")
#: C-8.3: ``BattleRules.move_order``.
MOVE_ORDERS = ("paired", "sides")
#: C-6: ``BattleRules.siege_deployment``.
SIEGE_DEPLOYMENTS = ("ranged_first", "melee_first")


def _choice(value: str, options, name: str) -> str:
    key = str(value).lower()
    if key not in options:
        raise InputError(f"rules.{name} is one of {', '.join(options)}, not {value!r}")
    return key


@dataclass
class Trials:
    """Per-trial arrays, present when ``keep_trials=True``."""

    outcome: np.ndarray
    rounds: np.ndarray
    survivors: np.ndarray  # (trials, parts)
    routed: np.ndarray  # (trials, parts)
    dealt: np.ndarray  # (trials, 2)
    debug: np.ndarray | None = None  # (trials, units, N_DEBUG)


@dataclass
class _Totals:
    outcome: np.ndarray
    rounds: np.ndarray
    survivors: np.ndarray
    routed: np.ndarray
    dealt: np.ndarray
    dealt_sq: np.ndarray
    trials: int = 0
    kept: list = field(default_factory=list)


class _Battles:
    """The packed inputs of one matchup, ready to play batches of chunks."""

    def __init__(self, dep: Deployment, siege: bool, fort: int, width: int, length: int,
                 rules: BattleRules, reference: bool = False,
                 whole_kernel: bool = False) -> None:  # fmt: skip
        # The indexed kernel finds the enemy's slots as one range (_enemy_slots):
        # every attacker slot comes before every defender slot (battlefield.deploy).
        if np.any(np.diff(dep.iside) < 0):
            raise AssertionError("deployment slots must list the attacker's first")
        packed = pack(dep.types)
        self.reference = reference  # issue 13: the scan-everything kernel (tests, benchmarks)
        self.dep = dep
        self.U, self.W = packed.U, packed.W
        self.width, self.length = width, length
        self.siege, self.fort = bool(siege), int(fort) if siege else 0
        self.params = rules.to_array()
        self.params[R.WALL_RANGE_BONUS] = rules.wall_bonus(self.fort)
        self.shuffle_idx, self.shuffle_bounds = dep.shuffle_groups(rules.shuffle_deployment)
        self.max_rounds = rules.max_rounds
        self.max_weapons = max(len(u.weapons) for u in dep.types)
        shots = np.array([sum(w.shots for w in u.weapons) for u in dep.types], dtype=np.int64)
        self.max_attacks = max(1, int(shots[dep.itype].sum()))  # per type: one sum, not n
        self.n_parts = len(dep.parts)
        self.max_count = max(p.count for p in dep.parts)
        self.n_units = len(dep.itype)
        # The kernel without the rules this battle cannot use compiles in half the time;
        # ``whole_kernel`` plays it with the whole one (tests: both play it the same).
        whole = whole_kernel or needs_extras(self.U, self.W, self.siege)
        self.extras = True if whole else None  # run_chunks' argument

    def scratch(self) -> tuple:
        """The work arrays of one ``run_chunks`` call (one set per thread; see its docstring).

        Allocated here rather than in the kernel: Numba compiles its allocation
        routines afresh for every kernel that allocates, at every cold start.
        """
        n, tiles = self.n_units, self.width * self.length
        table = (self.length + 1) * (self.width + 1) if n * n >= FIELD_MIN * tiles else 0
        # colbits: each side's column words, then the tiles next to each side (_next_to_bits)
        bits = 4 if self.width <= COLUMN_BITS_MAX_WIDTH else 0
        cand = max(n, 9, self.width)
        return (
            np.zeros(4, np.uint64),  # the battle's random stream
            np.zeros((UNIT_ROWS, n), np.int64),
            np.zeros((TILE_ROWS, tiles), np.int64),
            np.zeros((ATTACK_ROWS, self.max_attacks), np.int64),
            np.zeros((6, self.max_attacks + 1), np.int64),  # _attack_order's scratch
            np.zeros((n, self.max_weapons), np.int64),  # last_fire
            np.zeros((n, N_DEBUG), np.int64),  # dbg
            np.zeros((2, table), np.int64),  # the summed-area tables
            np.zeros((bits, self.length), np.int64),  # the column bitsets
            np.zeros(cand + MISC_EXTRA + 2 * self.n_parts, np.int64),  # misc
        )

    def empty_totals(self) -> _Totals:
        return _Totals(
            np.zeros(3, np.int64),
            np.zeros(self.max_rounds + 1, np.int64),
            np.zeros((self.n_parts, self.max_count + 1), np.int64),
            np.zeros((self.n_parts, self.max_count + 1), np.int64),
            np.zeros(2, np.int64),
            np.zeros(2, np.float64),
        )

    def play(self, ss, first_chunk: int, n_chunks: int, n_trials: int, keep: bool,
             debug: bool, totals: _Totals, progress: bool | None = None) -> None:  # fmt: skip
        """Play ``n_trials`` battles in chunks ``first_chunk ..`` and add them to ``totals``.

        ``progress`` decides, as for the progress bar, whether a first compile
        of the kernel in this process says so (:func:`~montecarlo.driver.compile_first`).
        """
        states = chunk_states(ss, first_chunk, first_chunk + n_chunks)
        agg_outcome = np.zeros((n_chunks, 3), np.int64)
        agg_rounds = np.zeros((n_chunks, self.max_rounds + 1), np.int64)
        agg_surv = np.zeros((n_chunks, self.n_parts, self.max_count + 1), np.int64)
        agg_routed = np.zeros_like(agg_surv)
        agg_dealt = np.zeros((n_chunks, 2), np.int64)
        agg_dealt_sq = np.zeros((n_chunks, 2), np.float64)
        size = n_trials if keep or debug else 0
        t_outcome = np.zeros(size, np.int64)
        t_rounds = np.zeros(size, np.int64)
        t_surv = np.zeros((size, self.n_parts), np.int64)
        t_routed = np.zeros((size, self.n_parts), np.int64)
        t_dealt = np.zeros((size, 2), np.int64)
        t_debug = np.zeros((n_trials if debug else 0, self.n_units, N_DEBUG), np.int64)
        d = self.dep
        args = (
            states, BATTLE_CHUNK, n_trials, self.U, self.W, d.itype, d.iside, d.ipart, d.x, d.y,
            self.shuffle_idx, self.shuffle_bounds, self.width, self.length, d.wall_col,
            self.fort, self.siege, self.params,
            self.max_weapons, self.max_attacks, agg_outcome, agg_rounds, agg_surv, agg_routed,
            agg_dealt, agg_dealt_sq, keep or debug, t_outcome, t_rounds, t_surv, t_routed,
            t_dealt, debug, t_debug,
        )  # fmt: skip
        if self.reference:
            from kernels.coe5_battle_ref import run_battles

            run_battles(*args)
        else:
            run_on_threads(run_chunks, n_chunks, (*args, self.extras), what="the battle kernel",
                           seconds=10, progress=progress, scratch=self.scratch)  # fmt: skip
        totals.outcome += agg_outcome.sum(axis=0)
        totals.rounds += agg_rounds.sum(axis=0)
        totals.survivors += agg_surv.sum(axis=0)
        totals.routed += agg_routed.sum(axis=0)
        totals.dealt += agg_dealt.sum(axis=0)
        totals.dealt_sq += agg_dealt_sq.sum(axis=0)
        totals.trials += n_trials
        if keep or debug:
            totals.kept.append(
                Trials(t_outcome, t_rounds, t_surv, t_routed, t_dealt, t_debug if debug else None)
            )


def _check_precision(precision: object) -> float:
    if isinstance(precision, bool) or not isinstance(precision, int | float):
        raise InputError(f"precision must be a number in (0, 0.5), got {precision!r}")
    if not 0 < precision < 0.5:
        raise InputError(f"precision must be a number in (0, 0.5), got {precision}")
    return float(precision)


def matchup(
    attacker: ArmyLike,
    defender: ArmyLike,
    *,
    trials: int | None = None,
    precision: float | None = None,
    seed: SeedLike = None,
    rng: SeedLike = None,
    siege: bool = False,
    fort: int = 1,
    width: int = 10,
    length: int = 20,
    rules: BattleRules | None = None,
    threads: int | None = None,
    progress: bool | None = True,
    keep_trials: bool = False,
    max_trials: int = DEFAULT_MAX_TRIALS,
    until: Callable[[np.ndarray, int], bool] | None = None,
    roster: Roster | None = None,
    _debug: bool = False,
    _reference: bool = False,
    _whole_kernel: bool = False,
):
    """Play ``attacker`` against ``defender`` many times and aggregate the outcomes.

    Parameters
    ----------
    attacker, defender : str or list of (Unit or name, count)
        Armies such as ``"pikeman:10,archer:5"``.
    trials : int, optional
        Number of battles.  Default 20,000 unless ``precision`` is given.
    precision : float, optional
        Keep playing until the 95% Wilson half-width of every outcome rate is
        at most this (checked every ``BATCH_CHUNKS * BATTLE_CHUNK`` battles),
        up to ``max_trials``.
    seed, rng : int, SeedSequence or Generator, optional
        SPEC 7 seeding; the same seed gives the same result for any ``threads``.
    siege, fort : bool, int
        A siege puts a wall of fortification ``fort`` (1-3) on the defender's
        front column, which the defender fills first and holds (C-6, C-7.3).
    width, length : int
        Grid rows and columns (C-6 [default] 10 × 20).
    rules : BattleRules or dict, optional
        The [default] parameters of the rules, or a dict of its fields.
    threads : int, optional
        Threads (default: Numba's thread count, all cores).
    progress : bool, optional
        tqdm progress bar (shown after one second).
    keep_trials : bool
        Also return per-trial arrays in ``result.trials``.
    until : callable, optional
        ``until(counts, n)`` with outcome counts (attacker, defender, draw):
        keep doubling the run, up to ``max_trials``, until it returns True.
        The army-size solver uses it to stop once a decision is clear.

    Returns
    -------
    MatchupResult
        Ctrl-C returns the battles finished so far, with ``partial=True``.
    """
    from montecarlo.coe5.results import MatchupResult

    if trials is not None and precision is not None:
        raise InputError("give trials= or precision=, not both")
    if until is not None:
        if precision is not None or trials is not None:
            raise InputError("until= replaces trials= and precision=")
        max_trials = check_trials(max_trials, "max_trials")
    elif precision is not None:
        precision = _check_precision(precision)
        max_trials = check_trials(max_trials, "max_trials")
    else:
        trials = check_trials(20_000 if trials is None else trials)
    if keep_trials:  # the only arrays that grow with the trial count
        check_kept(trials if trials is not None else max_trials, "keep_trials=True, one per battle")
    if siege and (isinstance(fort, bool) or not isinstance(fort, int) or not 1 <= fort <= 3):
        raise InputError(f"fort is a fortification level from 1 to 3, got {fort!r}")
    rules = coerce_rules(rules, BattleRules) or BattleRules()
    check_grid(width, length)
    att = parse_army(attacker, roster)
    dfd = parse_army(defender, roster)
    # Limits before any work: a huge count would otherwise build its slots for minutes.
    check_army_size(sum(count for _, count in att), "attacker")
    check_army_size(sum(count for _, count in dfd), "defender")
    dep = deploy(att, dfd, width, length, siege=siege, siege_deployment=rules.siege_deployment)
    battles = _Battles(dep, siege, fort, width, length, rules, reference=_reference,
                       whole_kernel=_whole_kernel)  # fmt: skip
    ss = resolve_seed(seed, rng)
    totals = battles.empty_totals()

    def play(first: int, n_chunks: int, n: int) -> None:
        battles.play(ss, first, n_chunks, n, keep_trials, _debug, totals, progress)

    run = run_batches(
        play,
        lambda: (totals.outcome, totals.trials),
        chunk=BATTLE_CHUNK, batch_chunks=BATCH_CHUNKS, trials=trials, precision=precision,
        until=until, max_trials=max_trials, threads=threads, progress=progress, unit="battle",
    )  # fmt: skip
    kept = None
    if totals.kept:
        kept = Trials(
            *(
                np.concatenate([getattr(k, f) for k in totals.kept])
                for f in ("outcome", "rounds", "survivors", "routed", "dealt")
            ),
            debug=np.concatenate([k.debug for k in totals.kept]) if _debug else None,
        )
    options = {"siege": bool(siege), "fort": battles.fort, "width": width, "length": length,
               "rules": asdict(rules)}  # fmt: skip
    return MatchupResult(
        parts=dep.parts, totals=totals, trials=kept, partial=run.partial, seed=ss.entropy,
        seconds=run.seconds, precision=precision, options=options, deployment=dep,
    )  # fmt: skip
