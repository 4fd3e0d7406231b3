"""The pygame view: rendering, the game window, recording. pygame is imported only when used."""

import os

# pygame prints a greeting on import; it would corrupt `--json` output on stdout.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
