"""Column layout of the packed CoE5 roster (struct of arrays).

``W[field, w]`` describes weapon ``w`` and ``U[field, u]`` unit ``u``; both are
int64 arrays built by :func:`montecarlo.coe5.packing.pack`.  Each field is one
contiguous row, so a kernel walking one field over many units streams memory.
"""

# Damage type codes, in the order of montecarlo.coe5.units.DAMAGE_TYPES.
T_BLUNT = 0
T_PIERCE = 1
T_SLASH = 2
T_FIRE = 3
T_COLD = 4
T_SHOCK = 5
T_POISON = 6
T_ACID = 7
T_MAGIC = 8
T_DECAY = 9
T_PARALYSIS = 10
N_TYPES = 11

# Weapon fields.
W_DIE = 0  # die size with the weapon's own bonus (C-1.5), before strength
W_TYPE = 1
W_MAGIC = 2
W_INIT = 3
W_RANGE = 4
W_SHOTS = 5
W_RELOAD = 6
W_FLAGS = 7
W_OWNER = 8  # index of the owning unit type
N_W_FIELDS = 9

# Weapon flag bits.
F_AN = 1 << 0
F_SHIELDNEG = 1 << 1
F_NOSTR = 1 << 2
F_RANGEPEN = 1 << 3
F_ASSASSIN = 1 << 4
F_PREBATTLE = 1 << 5
F_SIEGE = 1 << 6
F_WAND = 1 << 7
F_CLOUD = 1 << 8

# Unit fields.
U_HP = 0
U_ARMOR = 1
U_SHIELD = 2
U_MR = 3
U_MORALE = 4
U_STR = 5
U_FEAR = 6
U_FLAGS = 7
U_VULN = 8  # bit (1 << type code) per vulnerable type
U_W0 = 9  # first weapon index in W
U_NW = 10  # number of weapons
U_RES0 = 11  # U_RES0 + type code: resistance in percent (C-3 step 7)
U_KEY_DRAWS = U_RES0 + N_TYPES  # steps 6-7: ties a unit draws, one per shot of each weapon
N_U_FIELDS = U_KEY_DRAWS + 1

# Unit flag bits.
UF_ETHEREAL = 1 << 0
UF_FAST = 1 << 1
UF_IMMOBILE = 1 << 2
UF_REGENERATION = 1 << 3
UF_DECAY = 1 << 4
UF_SIEGE_TUNNELING = 1 << 5
UF_COMBAT_BURROWING = 1 << 6
UF_RANGED = 1 << 7
