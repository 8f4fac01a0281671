"""The phase timer (``tools/battle_phases.py``) still finds its places in the battle kernel.

Running it compiles an instrumented kernel, too slow for CI; what CI checks is
that every anchor it edits at is still there, once, so the README's "where the
time goes" can be measured again.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("battle_phases", ROOT / "tools" / "battle_phases.py")
battle_phases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(battle_phases)


def test_every_anchor_is_in_todays_kernel():
    source = (ROOT / "kernels" / "coe5_battle.py").read_text()
    edited = battle_phases.instrument(source)
    compile(edited, "coe5_battle.py", "exec")  # still Python
    assert edited.count("cycles()") == 10  # 4 phases and the target search, start and end


def test_a_missing_anchor_is_named():
    source = (ROOT / "kernels" / "coe5_battle.py").read_text().replace("# 5. fear", "# 5.")
    with pytest.raises(ValueError, match=r"5\. fear"):
        battle_phases.instrument(source)
