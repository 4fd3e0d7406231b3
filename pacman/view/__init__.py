"""The pygame view: rendering, the game window, recording. pygame is imported only when used."""
