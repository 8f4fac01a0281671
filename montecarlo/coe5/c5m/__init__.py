"""Reading the game's own data: CoE5's ``.c5m`` files (RULES.md C-11 to C-13).

``load_c5m`` reads the user's copies of the monster, weapon and recruitment
files, with mods layered over them, and returns the roster with its report;
``montecarlo import-c5m`` writes the same as a unit file.  The modules, each
with one job: :mod:`.lexer` (lines to statements), :mod:`.commands` (the
command table), :mod:`.entries` (entries and mod layering), :mod:`.recruitment`
(offers), :mod:`.convert` (entries to units, with the report's lines),
:mod:`.report` (the report and its summary) and :mod:`.export` (the unit file).
"""

from montecarlo.coe5.c5m.reader import C5mImport, load_c5m

__all__ = ["C5mImport", "load_c5m"]
