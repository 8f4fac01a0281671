"""``python -m montecarlo.coe5.c5m`` prints ``docs/c5m.md``, written from the command table."""

from montecarlo.coe5.c5m.commands import markdown

print(markdown(), end="")
