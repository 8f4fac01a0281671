"""Options shared by the SF commands (``sf fight``, ``sf compare``, ``sf sensitivity``)."""

from __future__ import annotations

import argparse

from montecarlo.sf.battlefields import DEFAULT_BATTLEFIELD
from montecarlo.sf.fights import BATTLEFIELDS

#: Most characters in one SF party: the fight kernel packs each side in one array
#: and the seed's friendly-fire procedure (S-6) is defined up to 36 per area.
MAX_PARTY = 36


def fight_arguments(p: argparse.ArgumentParser) -> None:
    """The two parties and the battlefield options of the SF fight commands (S-8, S-9)."""
    p.add_argument("party_a", help="e.g. 'warrior:2,archer:1'")
    p.add_argument("party_b", help="e.g. 'goblin:4'")
    p.add_argument(
        "--battlefield",
        default=DEFAULT_BATTLEFIELD,
        choices=list(BATTLEFIELDS),
        help=f"an S-9 battlefield preset (default {DEFAULT_BATTLEFIELD}: front and back lines)",
    )
    p.add_argument("--surprise", choices=["a", "b"], help="the surprised side (S-8)")
    p.add_argument(
        "--pincer",
        choices=["a", "b"],
        help="the side caught between two fronts in a corridor (S-9)",
    )
    p.add_argument("--characters", metavar="TOML", help="a file merged over the shipped roster")
