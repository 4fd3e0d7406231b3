"""Hostile: ends the process while being imported."""

import os

print('{"score": 100, "tests": []}')
os._exit(0)
