"""`python -m pacman` runs the `pacman-ai` command line."""

import sys

from pacman.cli import main

sys.exit(main())
