"""``python -m montecarlo`` runs the CLI."""

from montecarlo.cli import main

raise SystemExit(main())
