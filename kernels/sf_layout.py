"""Column layout of packed Shared†Fantasia characters and fight parameters.

``C[field, i]`` describes character ``i`` of a fight (both parties, side A
first); built by :func:`montecarlo.sf.fight.pack_party`.  ``B`` holds the
battlefield (int64) and ``Q`` the action policy (float64).
"""

# Character fields.
SIDE = 0
LINE = 1  # starting line: 0 front, 1 back
BODY = 2
TECH = 3
COMBAT = 4
INIT = 5
HP = 6
FORT = 7
INTU = 8
WILL = 9
ARMOR0 = 10  # ARMOR0 + damage type code (0 slash, 1 blunt, 2 pierce)
SHIPS = 13
MW = 14  # has a melee weapon
MW_N = 15  # melee dice
MW_BONUS = 16
MW_TYPE = 17
MW_FATIGUE = 18  # 叩(疲労)
RW = 19  # has a ranged weapon
RW_N = 20
RW_BONUS = 21
RW_TYPE = 22
AMMO = 23  # -1 unlimited
SP = 24  # has a spell
SP_STAT = 25  # Power or Faith value
SP_SAVE = 26  # 0 fortitude, 1 intuition, 2 will
SP_AREA = 27  # 0 single, 1 small, 2 medium, 3 large
SP_FAIL_N = 28
SP_FAIL_BONUS = 29
SP_FAIL_KIND = 30  # 0 nothing, 1 injury, 2 fatigue, 3 sleep
SP_OK_N = 31
SP_OK_BONUS = 32
SP_OK_KIND = 33
END = 34  # S-9 corridor: the end (0 or 1) where it starts; 0 without a second front
SURPRISED = 35  # S-8: surprised at the start of the fight
N_FIELDS = 36

T_SLASH = 0
T_BLUNT = 1
T_PIERCE = 2

K_NONE = 0
K_INJURY = 1
K_FATIGUE = 2
K_SLEEP = 3

# Battlefield (int64).
B_FRONT_CAP = 0  # 0: unlimited
B_OPEN = 1  # everyone is in the engage area
B_NARROW = 2  # narrow room: everything reaches the back line, medium circle = everyone
B_NO_BACK_LOF = 3  # no line of fire back line to back line
B_CLIFF = 4
B_SHIP = 5
B_PINCER_SIDE = 6  # S-9 corridor: -1 none, else the side attacked from both ends
B_COVER = 7  # the battlefield offers cover: taking cover gives +2 (S-6)
B_MAX_ROUNDS = 8
B_CONTACT = 9  # S-6 [default] 1: an engage area needs front-liners of both sides (SFRules)
N_B = 10

# Policy (float64).
Q_BREATH_AT = 0  # catch breath when fatigue >= this share of HP
Q_FATIGUE_ATTACKS = 1  # 1: blunt melee weapons make fatigue attacks
Q_TRIP_CHANCE = 2  # share of melee attacks that are trips on a cliff or ship deck
Q_SECURE_LOF = 3  # 1: back-line shooters secure a line of fire to the enemy back line
Q_CAST = 4  # 1: casters cast rather than fight
# Rule defaults (SFRules), carried in the same array.
Q_CLASH = 5  # S-1.2 [default] clashing specials: 0 the totals decide, 1 the defender wins
Q_BREATH_DICE = 6  # S-4 [default] catching breath recovers this many d6 of fatigue
Q_FAINT_EVERY_HIT = 7  # S-4 [default] 1: a faint check on every hit while the condition holds
Q_SPECIAL_OPP = 8  # S-5 [default] attacks the opponent gets after a fumble or dramatic evade
Q_TAKE_COVER = 9  # 1: the policy takes cover (S-6, S-8)
Q_DEATH_AT_HP = 10  # S-4 [default] 0: death check when injury > HP, 1: when injury >= HP
Q_FF_BALANCED = 11  # S-6 [default] 1: engaged listed enemy/ally alternately, 0: in slot order
Q_SELF_AREA = 12  # S-7 [default] 1: the caster is affected inside its own area
Q_COUP = (
    13  # S-4 [default] 1: a front-liner finishes a fainted enemy when no standing one is in reach
)
Q_INIT_DICE = 14  # S-8 [default] initiative is this many d6 + the modifier (2)
Q_FF_SIX = 15  # S-6 [default] 0: fewest groups (7-12 make 2, ...), 1: always 6 groups above 6
Q_CHAIN_OPP = 16  # S-5 1: an opportunity attack's fumble or dramatic evade triggers another
Q_SHOOT_MELEE = 17  # 1: shooters shoot into an engage area where allies stand (S-6)
N_Q = 18

# Final states (S-10).
STANDING = 0
FAINTED = 1
DEAD = 2
OVERBOARD = 3

# Event counters per side.
E_ATTACKS = 0
E_HITS = 1
E_DRAMATIC = 2
E_FUMBLES = 3
E_FRIENDLY_FIRE = 4
E_OPPORTUNITY = 5
N_EVENTS = 6
