"""``python -m montecarlo`` runs the CLI."""

from montecarlo.cli import console

console()
