"""The classic Pacman rules: what happens on each move, and the numbers, shared by every engine and evaluation.

Turns. Pacman (agent 0) moves first, then each ghost in layout order (a ghost's
index is its digit 1-4, ``G`` counting as 1; ties by x, then y). One move each
is a ply.

Moves. Pacman may step to any neighbouring cell that is not a wall, or Stop. A
ghost may not Stop, and may not turn back the way it came unless that is its
only way; a ghost that has not moved yet, or was just sent home, has no way it
came. A scared ghost moves half a cell per move; between two cells any agent can
only keep going straight.

Points. Every Pacman move, Stop included, costs `MOVE_COST`; ghost moves cost
nothing. A food dot gives `FOOD_POINTS`; the last one gives `WIN_POINTS` more and
wins the game, unless it is already lost. A capsule gives no points but sets
every ghost's scared timer to `SCARED_TIME`. Within Pacman's move the order is:
move, eat (and maybe win), pay the move, then collisions.

Scared ghosts. A ghost's timer drops by one after each of its own moves; the
move that brings it from 1 to 0 snaps the ghost to the nearest cell (a .5
coordinate rounds up).

Collisions are checked after every single move: after Pacman's, against every
ghost in index order; after ghost i's, against ghost i only. Pacman and a ghost
collide within Manhattan distance `COLLISION_DISTANCE`. A scared ghost is eaten:
`GHOST_POINTS`, and it goes back to its start cell, no longer scared, with no
last direction. Any other ghost catches Pacman: minus `LOSE_POINTS`, and the game
is lost, unless it is already won.

The classic game has no move limit; ours may cut a game off after ``max_moves``
(neither won nor lost). `pacman.state` implements these rules for speed; a
simple, slow implementation checks it in the tests.
"""

__all__ = [
    "SCARED_TIME", "COLLISION_DISTANCE", "FOOD_POINTS", "WIN_POINTS", "GHOST_POINTS",
    "LOSE_POINTS", "MOVE_COST",
]

#: Moves a ghost stays scared after Pacman eats a capsule.
SCARED_TIME = 40
#: Pacman and a ghost collide when their Manhattan distance is at most this.
COLLISION_DISTANCE = 0.7
#: Points for a food dot.
FOOD_POINTS = 10
#: Points for eating the last food, on top of its FOOD_POINTS.
WIN_POINTS = 500
#: Points for eating a scared ghost.
GHOST_POINTS = 200
#: Points lost when a ghost that is not scared catches Pacman.
LOSE_POINTS = 500
#: Points every Pacman move costs, Stop included.
MOVE_COST = 1
