# The rules' constants of a course written for pacman-ai's tests: the classic values.
SCARED_TIME = 40
COLLISION_TOLERANCE = 0.7
TIME_PENALTY = 1
