"""The numbers of the classic rules, shared by both engines and by evaluation functions."""

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
