"""The weapon calls of the game's data (C-11.3), shared by the unit model and its checks."""

from __future__ import annotations

#: Weapon calls (C-11.3), and whether each is a ranged attack (C-11.3.3).
CALLS: dict[str, bool] = {
    "meleeweapon": False,
    "meleeweaponbonus": False,
    "meleeweaponspec": False,
    "[meleeweaponsingle]": False,
    "rangedweapon": True,
    "rangedweaponbonus": True,
    "rangedweapon50": True,
    "rangedweapon50s": True,
    "[rangedweaponsingle]": True,
    "siegeweapon": True,
    "assassinweapon": False,
    "prebatweapon": False,
}
