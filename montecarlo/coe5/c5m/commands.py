"""The command table of the ``.c5m`` reader: one row per command (RULES.md C-11 to C-13).

Each row says what the reader does with a command: which rule maps it, and
whether it is *mapped* (the rule says how it plays), *approximated* (mapped,
but the simplified battle plays it otherwise, C-11.5.4), *ignored* (no effect
in a battle) or *rejected* (C-13: a unit with it is not imported).  The reader,
the import report and ``docs/c5m.md`` all read these rows; :func:`markdown`
writes the documentation from them.

Some commands are classified by their value as well: damage types
(:data:`DMGTYPES`), afflictions (:data:`AFFLICTIONS`), areas (:func:`aoe_form`),
target ranks (:data:`TRGRANKS`) and the hidden traits of the game's files
(:data:`HIDDEN`).  A command that is in no table is rejected (C-13).
"""

from __future__ import annotations

from dataclasses import dataclass

MAPPED = "mapped"
APPROXIMATED = "approximated"
IGNORED = "ignored"
REJECTED = "rejected"
#: What a command's disposition can be; the report lists the last three (C-13).
DISPOSITIONS = (MAPPED, APPROXIMATED, IGNORED, REJECTED)


@dataclass(frozen=True)
class Command:
    """One row of the command table.

    Attributes
    ----------
    name : str
        The command as the files write it (hidden ones as ``fx1252``, ``[named]``).
    scope : str
        ``"monster"``, ``"weapon"``, ``"call"`` (a monster's weapon call),
        ``"offer"`` (recruitment) or ``"file"`` (starts or edits an entry).
    args : str
        The argument shape: ``N`` a whole number, ``"text"`` a quoted text,
        ``WEAPON`` a weapon index or name, ``[N]`` optional.
    group : str
        What a clear command removes: ``stat``, ``call``, ``move`` and ``spec``
        (monsters: ``clearweapons``, ``clearmove``, ``clearspec``); ``basic``,
        ``chain``, ``spec`` and ``look`` (weapons: ``clearwspec`` removes ``spec``).
    disposition : str
        One of :data:`DISPOSITIONS`.
    rule : str
        The RULES.md id that decides it.
    reason : str
        Why, in a few words (the report's reason column).
    """

    name: str
    scope: str
    args: str
    group: str
    disposition: str
    rule: str
    reason: str


# -- reasons shared by many rows ------------------------------------------------
WORLD = "world map only: no effect in a battle"
ECONOMY = "income, costs or loot of the world map: no effect in a battle"
AI = "a hint for the computer player"
LOOKS = "looks or sound only"
SPELLS = "spell knowledge: casting spells is rejected (C-11.3.9)"
AFTER = "what happens after the battle or to corpses"
ITEMS = "a chance at a random item when the monster appears: not part of the unit"
NO_RULE = "a battle effect that no rule maps yet"
TERRAIN = "terrain objects and walls as units do not exist on the grid (C-12.2.2)"


def _rows(
    scope: str, group: str, disposition: str, rule: str, reason: str, args: str, names: str
) -> list[Command]:
    """Rows that share everything but the name; ``names`` is separated by spaces."""
    return [Command(n, scope, args, group, disposition, rule, reason) for n in names.split()]


_M, _W, _C, _O, _F = "monster", "weapon", "call", "offer", "file"

_TABLE: list[Command] = [
    # -- entries and mods (C-11.1) ---------------------------------------------------------------
    *_rows(_F, "meta", MAPPED, "C-11.1.2", "starts a monster", '"name"', "newmonster"),
    *_rows(_F, "meta", MAPPED, "C-11.1.2", "starts a weapon", '"name"', "newweapon"),
    *_rows(
        _F,
        "meta",
        MAPPED,
        "C-13",
        "a mod edits the first monster so named (or #index)",
        '"name" [N] | N',
        "selectmonster",
    ),
    *_rows(
        _F,
        "meta",
        MAPPED,
        "C-13",
        "a mod edits the first weapon so named (or #index)",
        '"name" | N',
        "selectweapon",
    ),
    *_rows(
        _F,
        "meta",
        MAPPED,
        "C-13",
        "a mod copies every command but the name",
        '"name" | N',
        "copystats copyweapon",
    ),
    *_rows(_F, "meta", MAPPED, "C-13", "a mod removes weapon calls", "", "clearweapons"),
    *_rows(_F, "meta", MAPPED, "C-13", "a mod removes movement commands", "", "clearmove"),
    *_rows(_F, "meta", MAPPED, "C-13", "a mod removes special abilities", "", "clearspec"),
    *_rows(
        _F,
        "meta",
        MAPPED,
        "C-13",
        "a mod removes a weapon's special attributes",
        "",
        "clearwspec",
    ),
    *_rows(_F, "meta", MAPPED, "C-11.1.2", "renames the monster", '"name"', "name"),
    *_rows(_F, "meta", MAPPED, "C-11.1.1", "the description text is skipped", '"text"', "descr"),
    *_rows(_F, "meta", IGNORED, "C-11.1.1", LOOKS, '"file"', "spr1 spr2 copyspr"),
    *_rows(
        _F,
        "meta",
        IGNORED,
        "C-11.1.1",
        "[named]: a unique monster's own name",
        '"name"',
        "[named]",
    ),
    # -- stats (C-11.2) and rank (C-11.5.1) ------------------------------------------------------
    *_rows(
        _M,
        "stat",
        MAPPED,
        "C-11.2.1",
        "hit points, armor, magic resistance, morale",
        "N",
        "hp armor mr mor",
    ),
    *_rows(_M, "stat", MAPPED, "C-11.2.2", "strength: checks only, never the die", "N", "str"),
    *_rows(_M, "stat", MAPPED, "C-11.5.1", "deployment rank: 1 front, 0 mid, -1 back", "N", "rank"),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.5.1",
        "rank minus / plus for deployment",
        "[0-1]",
        "rearpos frontpos",
    ),
    # -- weapon calls (C-11.3) -------------------------------------------------------------------
    *_rows(
        _C,
        "call",
        MAPPED,
        "C-11.3.2",
        "one attack each round",
        "N WEAPON",
        "meleeweapon rangedweapon",
    ),
    *_rows(
        _C,
        "call",
        MAPPED,
        "C-11.3.6",
        "an extra attack every round",
        "N WEAPON",
        "meleeweaponbonus",
    ),
    *_rows(
        _C,
        "call",
        MAPPED,
        "C-11.3.5",
        "a lance: later melee calls skipped in a charge",
        "N WEAPON",
        "meleeweaponspec",
    ),
    *_rows(
        _C,
        "call",
        MAPPED,
        "C-11.3.4",
        "a ranged call that may be used in melee",
        "N WEAPON",
        "rangedweaponbonus rangedweapon50 rangedweapon50s",
    ),
    *_rows(
        _C,
        "call",
        MAPPED,
        "C-11.3.7",
        "used before the battle",
        "N WEAPON",
        "siegeweapon assassinweapon prebatweapon",
    ),
    *_rows(
        _C,
        "call",
        MAPPED,
        "C-11.3.8",
        "only one single call is used each round",
        "N WEAPON",
        "[meleeweaponsingle] [rangedweaponsingle]",
    ),
    *_rows(
        _C,
        "call",
        REJECTED,
        "C-11.3.9",
        "casts a random spell: the spells are not in these files",
        "PATH LEVEL",
        "spellweapon spellweaponbonus spellweapon50 spellweapon50s spellweaponsingle",
    ),
    *_rows(
        _C,
        "call",
        REJECTED,
        "C-13",
        "a call form that no rule maps",
        "N WEAPON",
        (
            "meleeweapon50s meleeweaponlong rangedweapon25 rangedweapon50x [selfweaponbonus] "
            "weapontype49"
        ),
    ),
    # -- defences (C-11.4) -----------------------------------------------------------------------
    *_rows(_M, "spec", MAPPED, "C-11.4.1", "shield 1 in melee, 2 at range", "", "shield"),
    *_rows(_M, "spec", MAPPED, "C-11.4.1", "shield 2 in melee, 4 at range", "", "largeshield"),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.2",
        "resistance in % (negative: vulnerable)",
        "N",
        "fireres coldres shockres poisonres acidres",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.2",
        "half damage of that type",
        "",
        "pierceres slashres bluntres",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.2",
        "immune to that effect",
        "",
        "sleepres charmres diseaseres",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.3",
        "75% of mundane strikes do nothing",
        "[0-1]",
        "ethereal",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.4",
        "misses 20% (badsight) or 50% (clumsy) of attacks",
        "[0-1]",
        "badsight clumsy",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.5",
        "negates arrow strikes N% of the time",
        "N",
        "airshield",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.6",
        "melee attackers take N of that type",
        "N",
        "coldaura fireaura shockaura",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.4.7",
        "afflictions fail to take hold N% of the time",
        "N",
        "affres",
    ),
    # -- movement and size (C-11.5) --------------------------------------------------------------
    *_rows(_M, "move", MAPPED, "C-11.5.3", "moves again at C-8.4", "[0-1]", "fast battlefast"),
    *_rows(
        _M,
        "move",
        MAPPED,
        "C-11.5.3",
        "up to 3 steps a move; a category (C-11.7)",
        "[0-1]",
        "flying",
    ),
    *_rows(
        _M,
        "move",
        MAPPED,
        "C-11.5.3",
        "moves only in rounds 4, 8, 12, ...",
        "[0-1]",
        "battleslow2",
    ),
    *_rows(_M, "move", MAPPED, "C-11.5.3", "never moves", "[0-1]", "immobile"),
    *_rows(
        _M,
        "move",
        MAPPED,
        "C-11.7",
        "a category: immune to weapons flagged flying",
        "[0-1]",
        "float",
    ),
    *_rows(_M, "spec", MAPPED, "C-11.5.4", "one square, as every unit", "", "size1x1"),
    *_rows(
        _M,
        "move",
        APPROXIMATED,
        "C-11.5.4",
        "takes more squares in the game; one tile here (the size still counts for weapon flags)",
        "[0-1]",
        "huge",
    ),
    *_rows(
        _M,
        "spec",
        APPROXIMATED,
        "C-11.5.4",
        "takes 2x2 squares in the game; one tile here (the size still counts for weapon flags)",
        "",
        "size2x2",
    ),
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.5.5",
        "surfaces inside the walls with an N% chance",
        "N",
        "siegetunnel",
    ),
    # -- traits (C-11.6) -------------------------------------------------------------------------
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.6.1",
        "heals 5% of max HP each round",
        "[0-1]",
        "regeneration",
    ),
    *_rows(_M, "spec", MAPPED, "C-11.6.2", "goes berserk when hurt", "[0-1]", "berserker"),
    *_rows(_M, "spec", MAPPED, "C-11.6.3", "adjacent enemies check morale (C-8.5)", "N", "fear"),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.6.4",
        "the grid has no command squads",
        "N",
        "leadership localleadership",
    ),
    # -- categories (C-11.7) ---------------------------------------------------------------------
    *_rows(
        _M,
        "spec",
        MAPPED,
        "C-11.7",
        "a category that weapon flags test",
        "[N]",
        "human undead demonic animal inanimate stonebeing water",
    ),
    *_rows(_M, "spec", IGNORED, "C-11.7", "no bless is modelled", "", "holy"),
    # -- unsupported battle effects (C-13) -------------------------------------------------------
    *_rows(
        _M,
        "spec",
        REJECTED,
        "C-13",
        "the trampling mechanics are not given",
        "N",
        "trample tramplexsize",
    ),
    *_rows(_M, "spec", REJECTED, "C-13", "a mirror: no weapon, releases phantasms", "N", "mirror"),
    *_rows(
        _M,
        "spec",
        REJECTED,
        "C-13",
        "the battle mechanics are not given",
        "N",
        "darkbless defiler scourgedefiler awe mirrorimages",
    ),
    *_rows(
        _M,
        "spec",
        REJECTED,
        "C-13",
        NO_RULE,
        "[N]",
        (
            "acidblood awakenfungus awakentrees battleslow combustionaura confusionaura "
            "deepsleeper deployoutside desolcloud digest diseasecloud diseaseshield displaced "
            "evasion fireexpl incorporate invul lucky magicshield mindexpl nonmaginvul "
            "petriaura poisoncloud poisonexpl poisonspikes putridexpl seduceaura shardexpl "
            "shrinkhp slimeshield split teleport tiny tunnelmove vengeance unimportant "
            "nocombat"
        ),
    ),
    *_rows(
        _M,
        "spec",
        REJECTED,
        "C-13",
        "starts with a magic item, and items are not in these files",
        '"item"',
        "startitem",
    ),
    # -- no effect in a battle -------------------------------------------------------------------
    *_rows(
        _M,
        "move",
        IGNORED,
        "C-11.5.3",
        WORLD,
        "[0-1]",
        (
            "slow stationary swamp desert mountain noland wateronly swamp1 swamp2 desert1 "
            "desert2 desert3 deadforest1 deadforest2 mountain1 mountain2 jungle1 jungle2 "
            "money1 money2 horror forest1 forest2 stupid temple1 temple2 coastal loner south1 "
            "south2 wall passwall winteridle snow nonruin1 aggressive tunnel north1 gates1 "
            "void2 citadel2 semistupid mines1 stray ancforest1 followstupid"
        ),
    ),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.9",
        WORLD,
        "[N]",
        (
            "acutesenses spiritsight stealth foreststealth invisible snowstealth "
            "desertstealth noheal fastheal banishsurv unaging coldblood iceprot riverdmg melt "
            "hadesres coldheal nozoc noleader planeshift voidsanity voidship saner farsight "
            "farsightsea scry scrycost sensedead reformloc reform reformdestroy immortal "
            "immortalap homeplane revertowner wander wanderattack wanderrest wandermaxdist "
            "indwander infwander infwander2 celwander hadeswander maptele spread eatvillage "
            "slavehunt thrallhunt burnforest likestoburn chopforest changetemp makeruin "
            "makecolony colonyterr colonymsg terraformfrom terraformto terraformch desolator "
            "forestheart sitepopboost hideanimals pickupanimals transport ship shipmove "
            "snowsleeper meleeambush madcultist primalcult primifier noplanecamo lookslike "
            "ctrlchance maxsum unique neverturn hpoverflow growhp growtime secondshape "
            "landshape watershape motherspawn spawnmon spawn1d6mon spawnmonaway spawnoffs "
            "satyrspawn harpyspawn centspawn minospawn eatdead eatdeadcap absorbdead "
            "reanimate dragon female goblin kobold troll ape fungus montag phantasm "
            "releasephant releaserate releasespell revertmirror mirrorammo statue vassal "
            "swallowres tangleres minorstartaff nametype healonterr sleeper armytrainer "
            "expendable maxsinners airbreather primable primal"
        ),
    ),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.9",
        ECONOMY,
        "[N]",
        (
            "gold iron trade relics hands fungi herbs weed lifeforce goldbonus ironbonus "
            "tradebonus localgoldbonus localironbonus limitgold limitiron limittrade "
            "goldcarrier ironcarrier lairgoldpen gatherherbs gatherfungus gathersacr "
            "gatherhands gatherweed gathergems gatheranygems seegems gatherrelics rebate "
            "classcost greedy"
        ),
    ),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.9",
        AI,
        "[N]",
        "aigoldrally aihold aimaxshop ainofollower aipowcom1 aipowcom2 aipowcom3",
    ),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.9",
        SPELLS,
        "[N]",
        (
            "power mastery libmastery allrit more1spells more2spells more3spells spellrange "
            "autoastrology twistfate"
        ),
    ),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.9",
        ITEMS,
        "N",
        "randomitem randommisc randomrare randomweapon indepitem",
    ),
    *_rows(
        _M,
        "spec",
        IGNORED,
        "C-11.9",
        "item slots",
        "",
        "allitemslots nobootslots noslots weaponslots",
    ),
    *_rows(_M, "spec", IGNORED, "C-11.9", LOOKS, "[N]", "drawsize treelook look extraeyes noeyes"),
    # -- weapons: numbers (C-12.1), targeting (C-12.2) -------------------------------------------
    *_rows(_W, "basic", MAPPED, "C-12.1.1", "the base of the die", "N", "dmg"),
    *_rows(_W, "basic", MAPPED, "C-12.1.2", "orders the attacks", "N", "init"),
    *_rows(_W, "basic", MAPPED, "C-12.1.3", "the greatest distance it reaches", "N", "range"),
    *_rows(_W, "basic", MAPPED, "C-12.7", "the damage type (by its code)", "N", "dmgtype"),
    *_rows(_W, "basic", MAPPED, "C-12.2.1", "who it targets (by its code)", "N", "trgrank"),
    *_rows(_W, "basic", MAPPED, "C-12.2", "the area it strikes (by its form)", "N", "aoe"),
    # -- weapons: modifiers (C-12.3), checks (C-12.4), ranged (C-12.5) ---------------------------
    *_rows(_W, "spec", MAPPED, "C-12.3.1", "armor negating", "", "an"),
    *_rows(_W, "spec", MAPPED, "C-12.3.1", "ignores shields", "", "shieldneg"),
    *_rows(_W, "spec", MAPPED, "C-12.3.1", "armor counts twice", "", "soft"),
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.3.2",
        "non-magic, so ethereal units may be unaffected",
        "",
        "mundane",
    ),
    *_rows(_W, "spec", MAPPED, "C-12.3.3", "no strength bonus", "", "nostr"),
    *_rows(_W, "spec", MAPPED, "C-12.3.4", "a kill carries the damage left over", "", "sweep"),
    *_rows(_W, "spec", MAPPED, "C-12.3.5", "heals the attacker", "", "drain"),
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.4",
        "resisted by a check (easy/normal/hard MR, strength, morale)",
        "",
        "easymr mr hardmr strresist morale hardmorale",
    ),
    *_rows(_W, "spec", MAPPED, "C-12.4", "a flying target evades 75%", "", "flying2"),
    *_rows(_W, "spec", MAPPED, "C-12.5.1", "half damage at long range", "", "rangepen"),
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.5.2",
        "fires once every N+1 rounds",
        "",
        "reload1 reload2 reload3",
    ),
    *_rows(_W, "spec", MAPPED, "C-12.5.3", "once per battle", "", "oneshot"),
    *_rows(_W, "spec", MAPPED, "C-12.5.4", "an air shield can negate it", "", "arrow"),
    *_rows(_W, "spec", IGNORED, "C-12.5.4", "the grid has no line of fire", "", "lob"),
    *_rows(_W, "spec", MAPPED, "C-12.5.5", "may strike a square next to the target", "", "scatter"),
    # -- weapons: chains (C-12.6) ----------------------------------------------------------------
    *_rows(
        _W,
        "chain",
        MAPPED,
        "C-12.6.1",
        "strikes again with another weapon if the target is wounded",
        "WEAPON",
        "nextwep",
    ),
    *_rows(
        _W,
        "chain",
        MAPPED,
        "C-12.6.1",
        "strikes again with another weapon if the target is hit",
        "WEAPON",
        "nextalwayswep",
    ),
    *_rows(
        _W,
        "chain",
        MAPPED,
        "C-12.6.1",
        "a mod's chain to the weapon defined after this one",
        "",
        "next nextalways",
    ),
    *_rows(
        _W,
        "chain",
        MAPPED,
        "C-12.6.2",
        "the chained weapon's damage (or bitmask)",
        "N",
        "nextdmg",
    ),
    # -- weapons: categories (C-12.8) ------------------------------------------------------------
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.8",
        "does not affect that category",
        "",
        "mind inanimate undead ethereal flying drown stone large huge",
    ),
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.8",
        "affects only that category",
        "",
        "affecthuman affectanimal affectundead",
    ),
    *_rows(_W, "spec", MAPPED, "C-12.8", "affects only that side", "", "onlyenemy onlyfriend"),
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.8",
        "double damage against a category",
        "",
        "undkill holykill stonekill",
    ),
    *_rows(
        _W,
        "spec",
        IGNORED,
        "C-12.8",
        "the victim rises for the killer: when is not given",
        "",
        "ghoulify reanimate mutate dispossess replicate",
    ),
    *_rows(_W, "spec", IGNORED, "C-12.2.2", TERRAIN, "", "tree targterr wallkill"),
    *_rows(_W, "spec", REJECTED, "C-13", NO_RULE, "", "fullsweep poison affectmale"),
    *_rows(
        _W,
        "look",
        IGNORED,
        "C-12",
        LOOKS,
        "[N]",
        "sound look flymode flysound flylook sndvol reloadsnd yellow blue purple",
    ),
    # -- hidden weapon bits (C-11.9) -------------------------------------------------------------
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.8",
        "[firekill]: double damage against fire beings",
        "",
        "wep52",
    ),
    *_rows(
        _W,
        "spec",
        MAPPED,
        "C-12.8",
        "[noimmobile]: does not affect immobile units",
        "",
        "wep57",
    ),
    *_rows(_W, "spec", IGNORED, "C-12.2.2", TERRAIN, "", "wep54 wep55"),
    *_rows(
        _W,
        "spec",
        REJECTED,
        "C-13",
        "[nonsight]: cannot miss from bad sight; no rule maps it",
        "",
        "wep56",
    ),
    # -- recruitment (C-11.8) --------------------------------------------------------------------
    *_rows(
        _O,
        "meta",
        MAPPED,
        "C-11.8.1",
        "starts a class's list (-1: the terrain list)",
        "N",
        "selectclass",
    ),
    *_rows(
        _O,
        "meta",
        MAPPED,
        "C-11.8.1",
        "a mod's new class, named by setclassname",
        "",
        "newclass",
    ),
    *_rows(_O, "meta", MAPPED, "C-11.8.1", "the new class's name", '"name"', "setclassname"),
    *_rows(
        _O,
        "meta",
        MAPPED,
        "C-11.8.1",
        "an offer: chance, lot, gold, die, iron",
        '"name" N N N N N',
        "addunitrec addmercrec",
    ),
    *_rows(
        _O,
        "meta",
        MAPPED,
        "C-11.8.1",
        "a commander's offer: chance, gold, die, iron",
        '"name" N N N N',
        "addcomrec",
    ),
    *_rows(
        _O,
        "meta",
        MAPPED,
        "C-11.8.2",
        "kept with the offer; not part of the price",
        '"text" | N [N]',
        "reclimiter recterr recxcost templerec libraryrec atavirec [nogathererrec]",
    ),
]

#: Every command by (scope, name); a name may have a monster and a weapon row.
COMMANDS: dict[tuple[str, str], Command] = {}
for _row in _TABLE:
    _key = (
        "weapon" if _row.scope == _W else "monster" if _row.scope in (_M, _C) else _row.scope,
        _row.name,
    )
    if _key in COMMANDS:
        raise AssertionError(f"the command table lists {_key} twice")
    COMMANDS[_key] = _row

#: Weapon calls (C-11.3): the command and whether the attack is ranged (C-11.3.3).
CALLS: dict[str, bool] = {
    "meleeweapon": False,
    "meleeweaponbonus": False,
    "meleeweaponspec": False,
    "meleeweapon50s": False,
    "meleeweaponlong": False,
    "[meleeweaponsingle]": False,
    "rangedweapon": True,
    "rangedweaponbonus": True,
    "rangedweapon25": True,
    "rangedweapon50": True,
    "rangedweapon50s": True,
    "rangedweapon50x": True,
    "[rangedweaponsingle]": True,
    "siegeweapon": True,
    "assassinweapon": False,
    "prebatweapon": False,
    "[selfweaponbonus]": False,
    "weapontype49": False,
}
#: Spell calls: ``<call> <path> <level>``, no weapon (C-11.3.9).
SPELL_CALLS = (
    "spellweapon",
    "spellweaponbonus",
    "spellweapon50",
    "spellweapon50s",
    "spellweaponsingle",
)


@dataclass(frozen=True)
class Value:
    """How one value of a command is read: the model's name for it, and its row's fields."""

    model: str | None
    disposition: str
    rule: str
    reason: str


#: ``dmgtype`` codes (C-12.7): the model's damage type, or None where rejected.
DMGTYPES: dict[int, Value] = {
    1: Value("slash", MAPPED, "C-12.7", "slash (C-4.1)"),
    2: Value("blunt", MAPPED, "C-12.7", "blunt (C-4.1)"),
    3: Value("pierce", MAPPED, "C-12.7", "pierce (C-4.1)"),
    4: Value("fire", MAPPED, "C-12.7", "fire (C-4.2)"),
    5: Value("cold", MAPPED, "C-12.7", "cold (C-4.3)"),
    6: Value("shock", MAPPED, "C-12.7", "shock (C-4.4)"),
    7: Value("magic", MAPPED, "C-12.7", "magic (C-4.7)"),
    8: Value("fear", MAPPED, "C-12.7", "fear: a morale check with the weapon's die"),
    9: Value("poison", MAPPED, "C-12.7", "poison (C-4.5)"),
    10: Value("acid", MAPPED, "C-12.7", "acid (C-4.6)"),
    12: Value("affliction", MAPPED, "C-12.7", "a special affliction (bitmask)"),
    16: Value("sleep", MAPPED, "C-12.7", "sleep (C-4.9)"),
    17: Value("paralysis", MAPPED, "C-12.7", "paralyze (C-4.9)"),
}
_DMG_NAMES = {
    11: "release",
    13: "special benefit",
    14: "charm",
    15: "polymorph",
    18: "summon",
    19: "enslave",
    20: "swallow",
    21: "mirror image",
    22: "corrupt",
    23: "banish",
    24: "petrify",
    25: "animate",
    26: "heal",
}
for _code, _name in _DMG_NAMES.items():
    DMGTYPES[_code] = Value(
        None, REJECTED, "C-12.7", f"damage type {_code} ({_name}) is not modelled"
    )

#: Bits of a dmgtype-12 bitmask (C-12.7); any other bit rejects the weapon.
AFFLICTIONS: dict[int, Value] = {
    1: Value("disease", IGNORED, "C-12.7", "disease is a world-map affliction"),
    4: Value("decay", MAPPED, "C-12.7", "decay (C-4.8)"),
    64: Value("stun", MAPPED, "C-12.7", "stun (C-4.4)"),
    1 << 32: Value(None, REJECTED, "C-12.7", "stuck in net: how long it lasts is not given"),
}

#: ``trgrank`` codes (C-12.2.1): both draw among all enemies in range [default].
TRGRANKS: dict[int, Value] = {
    1: Value("front", MAPPED, "C-12.2.1", "front enemy: drawn among all in range [default]"),
    9: Value("any", MAPPED, "C-12.2.1", "any enemy in range"),
}


def aoe_form(aoe: int) -> Value:
    """How an ``aoe`` value reads (C-12.2): single, burst, cone, chain, or rejected."""
    if aoe in (0, 1):
        return Value("single", MAPPED, "C-12.2.2", "only the target is struck")
    if 2 <= aoe <= 100:
        return Value("burst", MAPPED, "C-12.2.3", f"a burst of {aoe} squares")
    kind, size = divmod(aoe, 100)
    if kind in (20, 30, 40) and size >= 1:
        name = {20: "narrow cone", 30: "cone", 40: "wide cone"}[kind]
        return Value("cone", MAPPED, "C-12.2.4", f"a {name} of {size} squares")
    if 9000 < aoe < 9997 and (aoe // 100) % 10 >= 1 and size >= 1:
        return Value("chain", MAPPED, "C-12.2.5", f"a chain of {size} targets")
    return Value(None, REJECTED, "C-13", f"area {aoe}: a form that no rule maps")


#: Hidden traits of the monster file (``# fxN``, ``# resN``, ``# moveN``; C-11.9).  A
#: trait not listed here is rejected: "Unhandled" ones as C-11.9 says, others because
#: no rule maps them.
HIDDEN: dict[str, Value] = {
    "fx1252": Value("firebeing", MAPPED, "C-11.7", "[firebeing]: a category (C-12.8 firekill)"),
    "res13": Value(None, IGNORED, "C-11.9", "corpse size"),
    "fx1261": Value(None, IGNORED, "C-11.9", "what a reanimated corpse becomes"),
    "fx1268": Value(None, IGNORED, "C-11.9", "reborn at a temple after death"),
    "fx155": Value(None, IGNORED, "C-11.9", "[hates]: kills hated units on the world map"),
    "fx156": Value(None, IGNORED, "C-11.9", "[hated]: hunted on the world map"),
    "fx162": Value(None, IGNORED, "C-11.9", "ritual costs"),
    "fx163": Value(None, IGNORED, "C-11.9", "ritual costs"),
    "fx816": Value(None, IGNORED, "C-11.9", "[masterycost]: cost of levelling up"),
    "fx1083": Value(None, IGNORED, "C-11.9", "[mirrorcloaking]: a disguise on the world map"),
    "fx1284": Value(None, IGNORED, "C-11.9", "[bravery?]: when a wandering commander attacks"),
    "fx1289": Value(None, IGNORED, "C-11.9", "[brigandleader]: takes command on the world map"),
    "fx1290": Value(None, IGNORED, "C-11.9", "[brigandfollower]: led on the world map"),
    "fx3": Value(None, IGNORED, "C-11.9", "a ritual it can learn"),
    "fx32": Value(None, IGNORED, "C-11.9", "[motherspawnchance]: monthly spawning"),
    "fx33": Value(None, IGNORED, "C-11.9", "[motherspawnnohomeplane]: monthly spawning"),
    "fx70": Value(None, IGNORED, "C-11.9", "[titheshare]: income"),
    "fx71": Value(None, IGNORED, "C-11.9", "[elconvert]: converts settlements"),
    "fx72": Value(None, IGNORED, "C-11.9", "[commandblessed]: takes command on the world map"),
    "fx73": Value(None, IGNORED, "C-11.9", "[commandsomeants]: takes command on the world map"),
    "fx94": Value(None, IGNORED, "C-11.9", "[banishplane]: where banishment sends it"),
    "fx150": Value(None, IGNORED, "C-11.9", "[kingspawn]: free units in citadels"),
    "fx157": Value(None, IGNORED, "C-11.9", "[dvalabatmap]: the battle map of its square"),
    "fx191": Value(None, IGNORED, "C-11.9", "[limitgem]: gem income"),
    "fx404": Value(None, IGNORED, "C-11.9", "a ritual it cannot learn"),
    "fx405": Value(None, IGNORED, "C-11.9", "a ritual it cannot learn"),
    "fx453": Value(None, IGNORED, "C-11.9", "a ritual it can learn"),
    "fx454": Value(None, IGNORED, "C-11.9", "[tripleentity]: magic powers when separated"),
    "fx479": Value(None, IGNORED, "C-11.9", "[bloodsun]: a world event"),
    "fx481": Value(None, IGNORED, "C-11.9", "[commandindychance]: the world map"),
    "fx814": Value(None, IGNORED, "C-11.9", "[montagmastery]: what mastery turns it into"),
    "fx815": Value(None, IGNORED, "C-11.9", "[drawntomontag]: moves on the world map"),
    "fx1215": Value(None, IGNORED, "C-11.9", "[delaywandertime]: the world map"),
    "fx1227": Value(None, IGNORED, "C-11.9", "[tattooed]: the owner's tattoos, not the unit's"),
    "fx1267": Value(None, IGNORED, "C-11.9", "[caninhabit]: a ritual it can learn"),
    "fx1274": Value(None, IGNORED, "C-11.9", "[blessofplenty]: blesses farms"),
    "fx1275": Value(None, IGNORED, "C-11.9", "[namefromemperor]: its name"),
    "fx1276": Value(None, IGNORED, "C-11.9", "[emperorforname]: its name"),
    "fx1280": Value(None, IGNORED, "C-11.9", "[graverobber]: finds items on the world map"),
    "fx1281": Value(None, IGNORED, "C-11.9", "[adventurerfollower]: spawns in parties"),
    "fx1282": Value(None, IGNORED, "C-11.9", "[adventurerleader]: spawns in parties"),
    "fx1283": Value(None, IGNORED, "C-11.9", "[commandadventurers]: takes command"),
    "move29": Value(None, IGNORED, "C-11.9", "moves by itself on the world map"),
    "move62": Value(None, IGNORED, "C-11.9", "[fullapstupidfollower]: the world map"),
    "res19": Value(None, IGNORED, "C-11.9", SPELLS),
    "fx199": Value(None, REJECTED, "C-11.9", "[rangebonus]: more range; no rule maps it"),
    "fx408": Value(None, REJECTED, "C-11.9", "[wallcover]: a wall's cover; no rule maps it"),
    "fx422": Value(None, REJECTED, "C-11.9", "[wallrange]: a wall's range; no rule maps it"),
    "fx1231": Value(None, REJECTED, "C-11.9", "[deployaseffigy]: the meaning is unclear"),
    "res21": Value(None, REJECTED, "C-11.9", "Illusion?: the file says its effects are unknown"),
}
#: What the reader says of a hidden trait that :data:`HIDDEN` does not list.
UNHANDLED = Value(None, REJECTED, "C-11.9", "an Unhandled trait: the meaning is unknown")
UNKNOWN_HIDDEN = Value(None, REJECTED, "C-11.9", "a hidden command that no rule maps")
UNKNOWN = Value(None, REJECTED, "C-13", "a command that no rule maps")


def lookup(scope: str, name: str) -> Command | None:
    """The row of ``name`` read in ``scope`` (``monster``, ``weapon``, ``offer``, ``file``)."""
    if scope in ("monster", "weapon"):
        return COMMANDS.get((scope, name)) or COMMANDS.get(("file", name))
    return COMMANDS.get((scope, name))


def rows() -> list[Command]:
    """Every row, in table order."""
    return list(_TABLE)


def markdown() -> str:
    """``docs/c5m.md``'s command tables, written from the rows."""
    out = [
        "# The `.c5m` commands the importer knows",
        "",
        "Written by `python -m montecarlo.coe5.c5m` from the command table "
        "(`montecarlo/coe5/c5m/commands.py`); a test keeps this file in step with it. "
        "Rule ids are those of `docs/rules.md` (C-11 to C-13). *mapped*: a rule says how it "
        "plays; *approximated*: mapped, but the simplified battle plays it otherwise; "
        "*ignored*: no effect in a battle, reported; *rejected*: a unit with it is not "
        'imported (`on_unsupported="drop"` imports it without, marked partial). '
        "A command in no table is rejected. A mapped attribute that the battle does not "
        "play yet (a lance, a shield pair, a burst, ...) is refused, naming it and its rule, "
        "where a unit with it would enter a battle (`montecarlo/coe5/playable.py`); "
        "`montecarlo units --roster FILE NAME` lists what a unit has of them.",
        "",
    ]
    titles = {
        "file": "Entries and mods",
        "monster": "Monster commands",
        "call": "Weapon calls",
        "weapon": "Weapon commands",
        "offer": "Recruitment",
    }
    for scope, title in titles.items():
        out += [
            f"## {title}",
            "",
            "| command | arguments | disposition | rule | reason |",
            "|---|---|---|---|---|",
        ]
        for r in _TABLE:
            if r.scope == scope:
                args = r.args.replace("|", "\\|")
                out.append(f"| `{r.name}` | {args} | {r.disposition} | {r.rule} | {r.reason} |")
        out.append("")
    out += [
        "## Values",
        "",
        "| command | value | reads as | disposition | rule | reason |",
        "|---|---|---|---|---|---|",
    ]
    for code, v in sorted(DMGTYPES.items()):
        out.append(
            f"| `dmgtype` | {code} | {v.model or '—'} | {v.disposition} | {v.rule} | {v.reason} |"
        )
    for bit, v in sorted(AFFLICTIONS.items()):
        out.append(
            f"| `dmgtype 12` bit | {bit} | {v.model or '—'} | {v.disposition} | "
            f"{v.rule} | {v.reason} |"
        )
    out.append("| `dmgtype 12` bit | any other | — | rejected | C-13 | not modelled |")
    for code, v in sorted(TRGRANKS.items()):
        out.append(f"| `trgrank` | {code} | {v.model} | {v.disposition} | {v.rule} | {v.reason} |")
    out.append("| `trgrank` | any other | — | rejected | C-13 | a target that no rule maps |")
    for value in (0, 1, 3, 2005, 3006, 4003, 9205, -2, 1005, 999):
        v = aoe_form(value)
        out.append(
            f"| `aoe` | {value} | {v.model or '—'} | {v.disposition} | {v.rule} | {v.reason} |"
        )
    out += [
        "",
        "## Hidden traits",
        "",
        "Written as comments in the game's files (C-11.1.1, C-11.9). A trait that is not "
        "listed is rejected.",
        "",
        "| trait | reads as | disposition | rule | reason |",
        "|---|---|---|---|---|",
    ]
    for name, v in HIDDEN.items():
        out.append(f"| `# {name}` | {v.model or '—'} | {v.disposition} | {v.rule} | {v.reason} |")
    for v, what in (
        (UNHANDLED, "any trait the file calls Unhandled"),
        (UNKNOWN_HIDDEN, "any other hidden command"),
    ):
        out.append(f"| {what} | — | {v.disposition} | {v.rule} | {v.reason} |")
    return "\n".join(out) + "\n"
