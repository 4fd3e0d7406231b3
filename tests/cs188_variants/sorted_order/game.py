# The engine file of a course written for pacman-ai's tests (nothing from CS188): only what
# grading reads from a course's game.py -- its direction names and the order of its actions.
# This course lists the actions sorted by name: East, North, South, Stop, West.


class Directions:
    NORTH = 'North'
    SOUTH = 'South'
    EAST = 'East'
    WEST = 'West'
    STOP = 'Stop'


class Actions:
    """Directions and their vectors; every list of legal actions follows _directionsAsList."""

    _directions = {Directions.NORTH: (0, 1),
                   Directions.SOUTH: (0, -1),
                   Directions.EAST: (1, 0),
                   Directions.WEST: (-1, 0),
                   Directions.STOP: (0, 0)}

    _directionsAsList = sorted(_directions.items())
