"""Conquest of Elysium 5 (RULES.md part 1): dice, damage and battles."""
