"""Indices of the CoE5 battle parameters passed to the battle kernel.

The Python side (:class:`montecarlo.coe5.battle.BattleRules`) owns the names,
defaults and documentation; the kernel reads a float64 array in this order.
"""

BURN_CHANCE = 0  # C-4.2 [default] chance a damaging fire hit sets the target burning
BURN_STOP = 1  # C-4.2 [default] chance per round that burning stops
BURN_DIE = 2  # C-4.2 [default] burning deals OED(this) fire damage
FREEZE_CHANCE = 3  # C-4.3 [default]
THAW_CHANCE = 4  # C-4.3 [default]
STUN_RECOVER = 5  # C-4.4 [default]
PARALYSIS_END = 6  # C-4.9 [default]
POISON_DIVISOR = 7  # C-4.5 [default] pool loss per round = max(1, pool // this)
REGEN_FRACTION = 8  # C-8.9 [default] share of max HP healed per round, rounded up
CLOUD_CLEAR = 9  # C-8.2 chance each cloud disappears per round
FATIGUE_START = 10  # C-8.1 [default] round F; negative means max(100, 100 + units)
MAX_ROUNDS = 11  # C-8.11 [default] draw when reached
EXTRA_ROUNDS = 12  # C-8.11 rounds of ongoing effects after the end
SIEGE_ROUNDS = 13  # C-7.3 siege rounds before round 1
WALL_RANGE_BONUS = 14  # C-5.4 extra range on the wall (already chosen for the fort level)
FEAR_DIE_BASE = 15  # C-2.4 [default] fear check die = this + fear level
STRENGTH_CHECK = 16  # C-2.3 [default] difficulty code of strength checks (1: Normal, 2d4)
SIDESTEP = 17  # C-8.3 [default] 1: a blocked unit takes a free tile that is as close
HALVE_FINAL = 18  # C-5.3 [default] 0: halve the raw roll; 1: halve the final damage
RANDOM_NEAREST = 19  # C-8.3 [default] 1: random among equally near enemies; 0: the first by tile
HOLD_WALL = 20  # C-6 [default] 1: siege defenders hold the wall column
BOMBARD = 21  # C-7.3 [default] 1: siege rounds fire at any distance; 0: within range
TUNNELLERS = 22  # C-7.4 [default] 1: the attacker's units tunnel; 2: both sides; 0: none
BURROW_CHANCE = 23  # C-7.5 [default] chance per round that a combat burrower burrows
FEAR_EACH = 24  # C-8.5 [default] 1: one check per adjacent fear unit; 0: one, the strongest
SIMULTANEOUS_MOVES = 25  # C-8.3 [default] 1: units choose from positions at the start of the step
PAIRED_MOVES = 26  # C-8.3 [default] 1: attacker and defender slots move in pairs, rank by rank
TARGET_AT_ORDER = 27  # C-8.6 [default] 0: target drawn when the attack is made; 1: at the order
N_PARAMS = 28
