"""``python -m scorekeeper`` runs the CLI."""

import sys

from scorekeeper.cli import main

sys.exit(main())
