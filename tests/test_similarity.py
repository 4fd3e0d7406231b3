"""`pacman.grading.similarity`: disguised copies are found, independent work and the starter are not.

The class here is made in this file: a starter (an assignment's handout, whose
code every submission holds), eight evaluation functions written independently in
different styles, and disguises of them as a copier makes them (every name
renamed, functions reordered, comments and blank lines changed, a few lines
added). Every disguise is checked to compile and to give the same values as its
original on real game states, so a copy found is a copy of working code.
"""

from __future__ import annotations

import ast
import builtins
import io
import itertools
import os
import random
import re
import sys
import tokenize
from pathlib import Path

import pytest

from pacman.grading import similarity
from pacman.grading.similarity import (
    DEFAULT_THRESHOLD,
    SimilarityError,
    SimilarPair,
    compare_submissions,
)
from pacman.layout import load_layout
from pacman.state import GameState

# -- the class ---------------------------------------------------------------------------------------------------

STARTER = '''\
"""multi_agents.py: your evaluation function for the expectimax agent below.

Grade it with:  pacman-ai grade expectimax multi_agents.py

The states you get offer the GameState API: state.pacman_position,
state.ghost_positions, state.scared_timers, state.food, state.capsules,
state.food_count, state.score, state.is_win(), state.is_lose(), state.layout.
"""


def manhattan(a, b):
    """The Manhattan distance between two cells."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def score_evaluation(state):
    """The game score: the evaluation to beat."""
    return state.score


class ExpectimaxAgent:
    """Pacman maximises; every ghost moves uniformly at random among its legal actions."""

    def __init__(self, depth=2, evaluation=None):
        self.depth = depth
        self.evaluation = evaluation or score_evaluation

    def get_action(self, state):
        """The legal action of Pacman with the highest expectimax value."""
        actions = state.legal_actions(0)
        return max(actions, key=lambda action: self.value(state.successor(0, action), 1, 0))

    def value(self, state, agent, ply):
        if state.is_win() or state.is_lose() or ply == self.depth:
            return self.evaluation(state)
        if agent == 0:
            return max(self.value(state.successor(0, a), 1, ply) for a in state.legal_actions(0))
        following = (agent + 1) % state.num_agents
        next_ply = ply + 1 if following == 0 else ply
        actions = state.legal_actions(agent)
        total = sum(self.value(state.successor(agent, a), following, next_ply) for a in actions)
        return total / len(actions)


STUB


def main():
    """Play one game with your evaluation, for a quick look."""
    print(ExpectimaxAgent(depth=2, evaluation=better_evaluation))
'''

#: The starter's unfinished function, which every student replaces.
STUB = '''\
def better_evaluation(state):
    """How good `state` is for Pacman: a number, higher is better."""
    # YOUR CODE HERE
    raise NotImplementedError("better_evaluation")'''

#: Eight evaluation functions written independently, each in its own style, each replacing `STUB`.
SOLUTIONS = {
    "features": '''\
FEATURE_WEIGHTS = {
    "score": 1.0,
    "closest_food": -1.5,
    "food_left": -4.0,
    "capsules_left": -20.0,
    "ghost_danger": -200.0,
    "scared_bonus": 2.0,
}


def extract_features(state):
    """Named features of `state`, each a number."""
    here = state.pacman_position
    features = {"score": state.score, "food_left": state.food_count, "capsules_left": len(state.capsules)}
    if state.food:
        features["closest_food"] = min(manhattan(here, dot) for dot in state.food)
    else:
        features["closest_food"] = 0
    danger = 0.0
    bonus = 0.0
    for ghost, timer in zip(state.ghost_positions, state.scared_timers):
        gap = manhattan(here, ghost)
        if timer > gap:
            bonus += timer - gap
        elif gap < 2:
            danger += 1.0
    features["ghost_danger"] = danger
    features["scared_bonus"] = bonus
    return features


def better_evaluation(state):
    """A weighted sum of hand-made features: see FEATURE_WEIGHTS."""
    if state.is_win():
        return 10000 + state.score
    if state.is_lose():
        return -10000 + state.score
    features = extract_features(state)
    return sum(FEATURE_WEIGHTS[name] * value for name, value in features.items())''',

    "maze_bfs": '''\
from collections import deque


def maze_distance_to_nearest(state, targets):
    """Steps along the maze from Pacman to the nearest of `targets` (None if none is reachable)."""
    if not targets:
        return None
    walls = state.layout.walls
    start = state.pacman_position
    seen = {start}
    frontier = deque([(start, 0)])
    while frontier:
        (x, y), steps = frontier.popleft()
        if (x, y) in targets:
            return steps
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if (nx, ny) not in walls and (nx, ny) not in seen:
                seen.add((nx, ny))
                frontier.append(((nx, ny), steps + 1))
    return None


def better_evaluation(state):
    # Terminal states first: nothing else matters there.
    if state.is_lose():
        return float("-inf")
    if state.is_win():
        return float("inf")
    value = state.score
    food_steps = maze_distance_to_nearest(state, set(state.food))
    if food_steps is not None:
        value += 9.0 / (food_steps + 1)
    capsule_steps = maze_distance_to_nearest(state, set(state.capsules))
    if capsule_steps is not None:
        value += 4.0 / (capsule_steps + 1)
    value -= 3 * state.food_count
    for position, scared in zip(state.ghost_positions, state.scared_timers):
        cell = (int(round(position[0])), int(round(position[1])))
        distance = maze_distance_to_nearest(state, {cell})
        if distance is None:
            continue
        if scared > distance:
            value += 50.0 / (distance + 1)
        elif distance <= 1:
            value -= 500
        else:
            value -= 6.0 / distance
    return value''',

    "terse": '''\
import math


def spread(cells):
    if not cells:
        return 0
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    return (max(xs) - min(xs)) + (max(ys) - min(ys))


def exits(state):
    return len([a for a in state.legal_actions(0) if a.value != "Stop"])


def better_evaluation(state):
    """How good `state` is for Pacman: a number, higher is better."""
    pos = state.pacman_position
    if state.is_win() or state.is_lose():
        return state.score
    dists = sorted(abs(pos[0] - fx) + abs(pos[1] - fy) for fx, fy in state.food)
    near = dists[:3]
    food_term = sum(1.0 / (1 + d) for d in near) * 10
    ghost_term = 0.0
    for (gx, gy), t in zip(state.ghost_positions, state.scared_timers):
        d = math.hypot(pos[0] - gx, pos[1] - gy)
        ghost_term += (15.0 / (1 + d)) if t else -(25.0 / (0.5 + d) ** 2)
    caps = [math.dist(pos, c) for c in state.capsules]
    cap_term = 5.0 / (1 + min(caps)) if caps else 0.0
    trap = 8.0 if exits(state) <= 1 else 0.0
    return state.score + food_term + ghost_term + cap_term - 2.5 * len(dists) - 0.3 * spread(state.food) - trap''',

    "reader_class": '''\
class PositionReader:
    """Reads the pieces of a state that the evaluation weighs."""

    def __init__(self, state):
        self.state = state
        self.me = state.pacman_position

    def steps_to(self, cell):
        return max(1, abs(self.me[0] - cell[0]) + abs(self.me[1] - cell[1]))

    def hunting_ghosts(self):
        return [g for g, timer in zip(self.state.ghost_positions, self.state.scared_timers) if timer == 0]

    def scared_ghosts(self):
        return [(g, timer) for g, timer in zip(self.state.ghost_positions, self.state.scared_timers) if timer > 0]

    def food_gradient(self):
        total = 0.0
        for dot in self.state.food:
            total += 1.0 / (self.steps_to(dot) ** 2)
        return total

    def threat(self):
        worst = 0
        for ghost in self.hunting_ghosts():
            steps = self.steps_to(ghost)
            if steps < 3:
                worst = max(worst, 3 - steps)
        return worst

    def feast(self):
        return sum(timer / (1 + self.steps_to(g)) for g, timer in self.scared_ghosts())


def better_evaluation(state):
    reader = PositionReader(state)
    if state.is_lose():
        return -1e6
    if state.is_win():
        return 1e6 + state.score
    return (state.score
            + 20 * reader.food_gradient()
            - 150 * reader.threat()
            + 8 * reader.feast()
            - 10 * len(state.capsules)
            - 1.5 * state.food_count)''',

    "imperative": '''\
def better_evaluation(state):
    x = state.pacman_position[0]
    y = state.pacman_position[1]
    total = state.score * 1.0
    if state.is_win():
        total = total + 5000
        return total
    if state.is_lose():
        total = total - 5000
        return total
    food_list = sorted(state.food)
    best = 999999
    i = 0
    while i < len(food_list):
        fx = food_list[i][0]
        fy = food_list[i][1]
        dx = fx - x
        if dx < 0:
            dx = -dx
        dy = fy - y
        if dy < 0:
            dy = -dy
        if dx + dy < best:
            best = dx + dy
        i = i + 1
    if best != 999999:
        total = total - best
    total = total - 20 * len(food_list)
    ghosts = state.ghost_positions
    timers = state.scared_timers
    k = 0
    while k < len(ghosts):
        gx = ghosts[k][0]
        gy = ghosts[k][1]
        d = abs(gx - x) + abs(gy - y)
        if timers[k] > 0:
            total = total + 100 - 10 * d
        else:
            if d < 1.5:
                total = total - 1000
            elif d < 4:
                total = total - 40 / d
        k = k + 1
    j = 0
    caps = state.capsules
    while j < len(caps):
        total = total - 15
        j = j + 1
    return total''',

    "functional": '''\
from functools import reduce

distance = lambda a, b: abs(a[0] - b[0]) + abs(a[1] - b[1])
inverse = lambda d: 1.0 / (1.0 + d)


def pull(where, cells, strength):
    """The strongest attraction towards one of `cells`."""
    return strength * max(map(lambda c: inverse(distance(where, c)), cells), default=0.0)


def corridor_penalty(state):
    moves = list(filter(lambda a: a.value != "Stop", state.legal_actions(0)))
    return reduce(lambda acc, _: acc * 0.5, moves, 6.0)


def better_evaluation(state):
    """Score plus pull towards food and capsules, minus the pull of live ghosts."""
    where = state.pacman_position
    attraction = reduce(lambda acc, group: acc + pull(where, *group),
                        [(state.food, 6.0), (state.capsules, 12.0)], 0.0)
    ghosts = list(zip(state.ghost_positions, state.scared_timers))
    live = filter(lambda g: g[1] == 0, ghosts)
    scared = filter(lambda g: g[1] > 0, ghosts)
    fear = sum(map(lambda g: 30.0 * inverse(distance(where, g[0])) ** 2, live))
    greed = sum(map(lambda g: min(g[1], 20) * inverse(distance(where, g[0])), scared))
    ending = {True: 1000.0, False: 0.0}
    return (state.score + attraction - fear + greed - 3.0 * state.food_count
            - corridor_penalty(state) * (not state.is_win())
            + ending[state.is_win()] - ending[state.is_lose()])''',

    "modes": '''\
def better_evaluation(state):
    def nearest(cells):
        best_cell, best_gap = None, None
        for cell in cells:
            gap = abs(cell[0] - me[0]) + abs(cell[1] - me[1])
            if best_gap is None or gap < best_gap:
                best_cell, best_gap = cell, gap
        return best_cell, best_gap

    me = state.pacman_position
    if state.is_lose():
        return -float("inf")
    if state.is_win():
        return float("inf")
    hunters = [g for g, t in zip(state.ghost_positions, state.scared_timers) if t == 0]
    prey = [g for g, t in zip(state.ghost_positions, state.scared_timers) if t > 2]
    _, hunter_gap = nearest(hunters)
    _, prey_gap = nearest(prey)
    _, food_gap = nearest(state.food)
    _, capsule_gap = nearest(state.capsules)
    if hunter_gap is not None and hunter_gap <= 2:
        mode = "flee"
    elif prey_gap is not None:
        mode = "hunt"
    else:
        mode = "graze"
    result = state.score - 4 * state.food_count
    if mode == "flee":
        result -= 300 / (hunter_gap + 1)
        if capsule_gap is not None:
            result += 40 / (capsule_gap + 1)
    elif mode == "hunt":
        result += 200 / (prey_gap + 1)
    else:
        if food_gap is not None:
            result += 10 / (food_gap + 1)
        if capsule_gap is not None and hunter_gap is not None and hunter_gap < 6:
            result += 15 / (capsule_gap + 1)
    return result''',

    "spanning_tree": '''\
import heapq
from functools import lru_cache


@lru_cache(maxsize=4096)
def food_tree_length(cells):
    """The length of a minimum spanning tree over `cells` (Manhattan edges), by Prim's algorithm."""
    cells = sorted(cells)
    if len(cells) < 2:
        return 0
    in_tree = {cells[0]}
    heap = [(manhattan(cells[0], other), other) for other in cells[1:]]
    heapq.heapify(heap)
    length = 0
    while heap and len(in_tree) < len(cells):
        cost, cell = heapq.heappop(heap)
        if cell in in_tree:
            continue
        in_tree.add(cell)
        length += cost
        for other in cells:
            if other not in in_tree:
                heapq.heappush(heap, (manhattan(cell, other), other))
    return length


def better_evaluation(state):
    """Minus the steps still needed to eat everything (a lower bound), plus ghost terms."""
    if state.is_win():
        return state.score + 1000
    if state.is_lose():
        return state.score - 1000
    here = state.pacman_position
    to_first = min((manhattan(here, dot) for dot in state.food), default=0)
    remaining = to_first + food_tree_length(state.food)
    danger = sum(max(0, 3 - manhattan(here, g)) for g, t in zip(state.ghost_positions, state.scared_timers) if not t)
    lunch = sum(t / (1 + manhattan(here, g)) for g, t in zip(state.ghost_positions, state.scared_timers) if t)
    return state.score - 2 * remaining - 100 * danger + 5 * lunch - 8 * len(state.capsules)''',
}


def _submission(solution: str) -> str:
    """The starter with its stub replaced by `solution`, as a student hands it in."""
    return STARTER.replace("STUB", solution)


def _starter() -> str:
    return STARTER.replace("STUB", STUB)


def _write_class(folder: Path, sources: dict[str, str]) -> dict[str, Path]:
    """Each student's source as STUDENT/multi_agents.py under `folder`: the `files` argument of a class."""
    files = {}
    for student, source in sources.items():
        (folder / student).mkdir(parents=True)
        files[student] = folder / student / "multi_agents.py"
        files[student].write_text(source, encoding="utf-8")
    return files


@pytest.fixture
def starter(tmp_path):
    path = tmp_path / "starter.py"
    path.write_text(_starter(), encoding="utf-8")
    return path


# -- disguises: what a copier does to a file --------------------------------------------------------------------

_WORDS = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango", "zulu", "quux", "blob", "thing")
#: Names a rename would break: the function the grader calls, the agent arguments its callers give by name.
_KEPT = {"better_evaluation", "ExpectimaxAgent", "depth", "evaluation", "self", "_"}
_FILLER = ("pass", "_unused_counter = 0", "assert True", "_debug_flag = False", "_scratch = []")


def _renamed(source: str, rng: random.Random) -> str:
    """`source` with every name it binds (variables, arguments, functions, classes) renamed consistently.

    Kept: attributes and methods (``state.food``, ``self.value``), keyword arguments of calls, imported and
    built-in names, and what the grader or the agent's caller names (`_KEPT`).
    """
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    methods = {id(item) for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for item in node.body}
    imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    places = []  # (row, column, name) of every use of a name
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            places.append((node.lineno, node.col_offset, node.id))
            if isinstance(node.ctx, ast.Store):
                bound.add(node.id)
        elif isinstance(node, ast.arg):
            places.append((node.lineno, node.col_offset, node.arg))
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and id(node) not in methods:
            header = re.compile(r"(?:def|class)\s+").match(lines[node.lineno - 1], node.col_offset)
            places.append((node.lineno, header.end(), node.name))
            bound.add(node.name)
    renamed = bound - imported - _KEPT - set(dir(builtins))
    taken = set(re.findall(r"[A-Za-z_]\w*", source))
    fresh = {}
    for name in sorted(renamed):
        candidate = name
        while candidate in taken:
            candidate = f"{rng.choice(_WORDS)}_{rng.randrange(1000)}"
        taken.add(candidate)
        fresh[name] = candidate
    for row, column, name in sorted(places, reverse=True):
        if name in fresh:
            line = lines[row - 1]
            assert line[column:column + len(name)] == name, (line, column, name)
            lines[row - 1] = line[:column] + fresh[name] + line[column + len(name):]
    return "".join(lines)


def _reordered(source: str, rng: random.Random) -> str:
    """`source` with its top-level functions and classes in another order (each in the place of another).

    Decorated ones stay where they are: a decorator runs where it stands, maybe before the import it needs.
    """
    lines = source.splitlines(keepends=True)
    spans = [(node.lineno - 1, node.end_lineno) for node in ast.parse(source).body
             if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.decorator_list]
    order = list(range(len(spans)))
    while order == sorted(order):
        rng.shuffle(order)
    out, at = [], 0
    for (start, end), taken in zip(spans, order):
        out += lines[at:start] + lines[spans[taken][0]:spans[taken][1]]
        at = end
    return "".join(out + lines[at:])


def _line_starts(source: str) -> list[int]:
    """The rows (from 1) before which a comment or a blank line may go: after a NEWLINE or NL token."""
    return sorted({token.end[0] + 1 for token in tokenize.generate_tokens(io.StringIO(source).readline)
                   if token.type in (tokenize.NEWLINE, tokenize.NL)})


def _recommented(source: str, rng: random.Random) -> str:
    """`source` with every comment dropped, blank lines dropped and added, and new comments written in."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    dropped = set()
    for token in tokens:
        if token.type == tokenize.COMMENT:
            row, col = token.start
            code = lines[row - 1][:col]
            if code.strip():
                lines[row - 1] = code.rstrip() + "\n"
            else:
                dropped.add(row)
        elif token.type == tokenize.NL and not lines[token.start[0] - 1].strip() and rng.random() < 0.7:
            dropped.add(token.start[0])
    starts = set(_line_starts(source))
    out = []
    for row, line in enumerate(lines, start=1):
        if row in starts and rng.random() < 0.25:
            indent = re.match(r"\s*", line).group()
            out.append(f"{indent}# {rng.choice(_WORDS)} {rng.choice(_WORDS)}: {rng.choice(['why', 'note', 'todo'])}\n"
                       if rng.random() < 0.6 else "\n")
        if row not in dropped:
            out.append(line)
    return "".join(out)


def _padded(source: str, rng: random.Random, count: int = 4) -> str:
    """`source` with `count` harmless statements added at the starts of statements."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    starts = []
    depth_zero_after = {token.end[0] + 1 for token in tokens if token.type == tokenize.NEWLINE}
    for row in sorted(depth_zero_after):
        if row > len(lines):
            continue
        text = lines[row - 1].strip()
        previous = lines[row - 2].strip() if row >= 2 else ""
        if (text and not text.startswith(("elif", "else", "except", "finally", "#", "@", ")", "]", "}", '"'))
                and not previous.startswith("@")):
            starts.append(row)
    chosen = set(rng.sample(starts, count))
    out = []
    for row, line in enumerate(lines, start=1):
        if row in chosen:
            out.append(re.match(r"\s*", line).group() + rng.choice(_FILLER) + "\n")
        out.append(line)
    return "".join(out)


DISGUISES = {
    "renamed": lambda source, rng: _renamed(source, rng),
    "reordered": lambda source, rng: _reordered(source, rng),
    "recommented": lambda source, rng: _recommented(source, rng),
    "renamed_reordered_padded": lambda source, rng: _padded(_reordered(_renamed(source, rng), rng), rng),
}


def _random_disguise(source: str, rng: random.Random) -> str:
    """A random mix of the disguises, at least one of them."""
    steps = [step for step in (_renamed, _reordered, _recommented, _padded) if rng.random() < 0.6] or [_renamed]
    for step in steps:
        source = step(source, rng)
    return source


# -- the disguises are real: same behaviour, other text ---------------------------------------------------------

def _states() -> list[GameState]:
    """A few states of a real game (random moves from the start of `small`), terminal or not."""
    rng = random.Random(7)
    state = GameState.initial(load_layout("small"))
    states = [state]
    while len(states) < 12 and not state.is_terminal():
        for agent in range(state.num_agents):
            if state.is_terminal():
                break
            state = state.successor(agent, rng.choice(state.legal_actions(agent)))
        states.append(state)
    return states


STATES = _states()


def _values(source: str) -> list[float]:
    namespace: dict = {"__name__": "submission"}
    exec(compile(source, "<submission>", "exec"), namespace)
    return [namespace["better_evaluation"](state) for state in STATES]


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
def test_every_disguise_keeps_the_behaviour_and_changes_the_text(disguise):
    rng = random.Random(disguise)
    for name, solution in SOLUTIONS.items():
        original = _submission(solution)
        copy = DISGUISES[disguise](original, rng)
        assert copy != original, name
        assert _values(copy) == _values(original), (name, copy)


def test_the_solutions_are_of_the_asked_size_and_behave_differently():
    lengths = {name: len(solution.splitlines()) for name, solution in SOLUTIONS.items()}
    assert all(30 <= length <= 80 for length in lengths.values()), lengths
    values = {name: tuple(_values(_submission(solution))) for name, solution in SOLUTIONS.items()}
    assert len(set(values.values())) == len(SOLUTIONS)
    assert all(_starter() != _submission(solution) for solution in SOLUTIONS.values())
    assert all(line in _submission(solution) for solution in SOLUTIONS.values()
               for line in _starter().split(STUB)[0].splitlines())


# -- copies are found, independent work is not ------------------------------------------------------------------

def _class_with_copies(disguise, rng: random.Random) -> dict[str, str]:
    """The eight originals and one disguised copy of each, ``copy_NAME``."""
    sources = {name: _submission(solution) for name, solution in SOLUTIONS.items()}
    sources.update({f"copy_{name}": disguise(source, rng) for name, source in list(sources.items())})
    return sources


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
def test_each_disguised_copy_is_found_with_its_original_and_nothing_else(tmp_path, starter, disguise):
    files = _write_class(tmp_path, _class_with_copies(DISGUISES[disguise], random.Random(disguise)))
    pairs = compare_submissions(files, starter)
    assert {(pair.first, pair.second) for pair in pairs} == {
        tuple(sorted((name, f"copy_{name}"))) for name in SOLUTIONS}
    assert all(pair.share > DEFAULT_THRESHOLD for pair in pairs)
    # Measured: 1.0 for renames and new comments (names and comments are not compared), at least 0.84 otherwise.
    assert min(pair.share for pair in pairs) > 0.75


def test_independent_solutions_are_not_paired_though_they_all_hold_the_starter(tmp_path, starter, monkeypatch):
    files = _write_class(tmp_path, {name: _submission(solution) for name, solution in SOLUTIONS.items()})
    assert compare_submissions(files, starter) == []
    # No pair has MIN_COMMON_CHARACTERS in common (measured: at most 67), so none shares anything at all;
    # counted even so, their shares are far below the threshold (measured: at most 0.13).
    assert compare_submissions(files, starter, threshold=0.0) == []
    monkeypatch.setattr(similarity, "MIN_COMMON_CHARACTERS", 0)
    shared = compare_submissions(files, starter, threshold=0.0)
    assert shared and max(pair.share for pair in shared) < DEFAULT_THRESHOLD / 2
    # The starter is what they have in common: counted, it makes every pair share about half.
    with_starter = compare_submissions(files, None, threshold=0.0)
    assert len(with_starter) == len(SOLUTIONS) * (len(SOLUTIONS) - 1) // 2
    assert min(pair.share for pair in with_starter) > max(pair.share for pair in shared) + 0.2


def _with_body(body: str) -> str:
    """The starter with the stub's two last lines replaced by `body` (a student who did almost nothing)."""
    return _starter().replace('    # YOUR CODE HERE\n    raise NotImplementedError("better_evaluation")', body)


def test_the_starter_with_a_small_change_flags_nobody(tmp_path, starter):
    # Handed in unchanged, with the same one-line change, with a different small change, or beside a real solution:
    # nothing here is evidence of copying. Without the starter left out, each of these pairs shares everything.
    sources = {
        "unchanged_a": _starter(),
        "unchanged_b": _starter(),
        "same_line_a": _with_body("    return state.score"),
        "same_line_b": _with_body("    return state.score"),
        "small_c": _with_body("    # fewer dots is better\n    return state.score - 10 * state.food_count"),
        "small_d": _with_body("    value = state.score\n    return value - 20 * len(state.capsules)"),
        "worked": _submission(SOLUTIONS["features"]),
    }
    files = _write_class(tmp_path, sources)
    assert compare_submissions(files, starter, threshold=0.0) == []
    unexcluded = compare_submissions(files, None)
    assert {(pair.first, pair.second) for pair in unexcluded} >= {("unchanged_a", "unchanged_b"),
                                                                   ("same_line_a", "same_line_b")}
    assert all(pair.share > 0.9 for pair in unexcluded if "worked" not in (pair.first, pair.second))


def test_a_copied_solution_is_found_even_when_one_file_adds_much_of_its_own(tmp_path, starter):
    # The copier took all of `maze_bfs` and appended `spanning_tree`'s helpers: most of the copy is new to the
    # original, all of the original is in the copy. The pair's share is the larger of the two.
    original = _submission(SOLUTIONS["maze_bfs"])
    extra = SOLUTIONS["spanning_tree"].split("def better_evaluation")[0].replace("manhattan", "steps")
    copy = _renamed(original, random.Random(3)) + "\n\n" + extra + "\n\ndef steps(a, b):\n    return 0\n"
    files = _write_class(tmp_path, {"original": original, "copier": copy})
    [pair] = compare_submissions(files, starter)
    assert (pair.first, pair.second) == ("copier", "original")
    assert pair.share == pair.share_second == max(pair.share_first, pair.share_second)
    assert pair.share_second > 0.9 and pair.share_first < pair.share_second


def test_pairs_are_sorted_by_share_then_names_and_independent_of_the_input_order(tmp_path, starter):
    rng = random.Random(11)
    sources = _class_with_copies(_random_disguise, rng)
    sources["copy_twice_modes"] = _random_disguise(sources["copy_modes"], rng)
    sources["same_as_terse"] = sources["terse"]
    files = _write_class(tmp_path, sources)
    pairs = compare_submissions(files, starter)
    assert pairs == sorted(pairs, key=lambda pair: (-pair.share, pair.first, pair.second))
    assert all(pair.first < pair.second and 0 <= pair.share_first <= 1 and 0 <= pair.share_second <= 1
               for pair in pairs)
    assert ("same_as_terse", "terse", 1.0, 1.0) in [(p.first, p.second, p.share_first, p.share_second) for p in pairs]
    assert {("copy_modes", "copy_twice_modes"), ("copy_twice_modes", "modes")} <= {(p.first, p.second) for p in pairs}
    assert compare_submissions(dict(reversed(list(files.items()))), starter) == pairs


def test_line_endings_a_byte_order_mark_and_broken_syntax_do_not_hide_a_copy(tmp_path, starter):
    original = _submission(SOLUTIONS["imperative"])
    files = _write_class(tmp_path, {"original": original})
    for student, data in {"crlf": original.replace("\n", "\r\n").encode(),
                          "bom": b"\xef\xbb\xbf" + original.encode(),
                          "broken": (original + "\ndef unfinished(:\n").encode()}.items():
        (tmp_path / student).mkdir()
        files[student] = tmp_path / student / "multi_agents.py"
        files[student].write_bytes(data)
    pairs = compare_submissions(files, starter)
    assert {(pair.first, pair.second) for pair in pairs} == {tuple(sorted(pair)) for pair in itertools.combinations(
        ("original", "crlf", "bom", "broken"), 2)}
    assert all(pair.share > 0.95 for pair in pairs)


# -- the generated classes ---------------------------------------------------------------------------------------

_NAMES = ("ada", "bo", "cy", "di", "ed", "flo", "gus", "hal", "ivy", "jo", "kai", "lu", "mo", "ned", "oz", "pia")


@pytest.mark.parametrize("seed", range(20))
def test_random_classes_pair_exactly_the_planted_copies(tmp_path, starter, seed):
    """A class of some independent solutions and some disguised copies, of a solution in the class, of one that
    is not (two students who copied the same outside source), or of another copy: exactly the students whose
    files come from the same solution are paired."""
    rng = random.Random(seed)
    names = list(_NAMES)
    rng.shuffle(names)
    origin: dict[str, str] = {}  # student -> the pool solution their file comes from
    sources: dict[str, str] = {}
    for solution in rng.sample(sorted(SOLUTIONS), rng.randint(3, 6)):
        student = names.pop()
        origin[student], sources[student] = solution, _submission(SOLUTIONS[solution])
    for _ in range(rng.randint(1, 5)):
        student = names.pop()
        if rng.random() < 0.7:
            copied = rng.choice(sorted(sources))
            origin[student], sources[student] = origin[copied], _random_disguise(sources[copied], rng)
        else:
            solution = rng.choice(sorted(SOLUTIONS))
            origin[student], sources[student] = solution, _random_disguise(_submission(SOLUTIONS[solution]), rng)
    files = _write_class(tmp_path, sources)
    found = {(pair.first, pair.second) for pair in compare_submissions(files, starter)}
    planted = {(a, b) for a, b in itertools.combinations(sorted(sources), 2) if origin[a] == origin[b]}
    assert found == planted, {student: origin[student] for student in sorted(origin)}


# -- the report --------------------------------------------------------------------------------------------------

def test_the_report_names_the_students_and_shows_the_flagged_pairs(tmp_path, starter):
    sources = {name: _submission(solution) for name, solution in SOLUTIONS.items()}
    sources["o'neil <b>"] = _renamed(sources["modes"], random.Random(5))
    files = _write_class(tmp_path / "class", sources)
    report = tmp_path / "similarity.html"
    [pair] = compare_submissions(files, starter, report=report)
    assert (pair.first, pair.second, pair.share) == ("modes", "o'neil <b>", 1.0)
    page = report.read_text(encoding="utf-8")
    assert page.rstrip().endswith("</body>") and page.count("<body>") == 1  # copydetect's page, to its last line
    for student in sources:
        if student != "o'neil <b>":
            assert f"<li>{sorted(sources).index(student)}={student}/multi_agents.py</li>" in page
    assert "o&#x27;neil &lt;b&gt;/multi_agents.py" in page and "o'neil <b>" not in page
    shown = re.findall(r"(?:Test|Reference) file: <i>(.*?)</i> \(<b>(.*?)</b>\)", page)
    assert sorted(shown) == [("modes/multi_agents.py", "100.00%"), ("o&#x27;neil &lt;b&gt;/multi_agents.py", "100.00%")]
    assert page.count("Token overlap:") == 1  # the one pair above the threshold, and only it
    assert "pacman-similarity" not in page  # no temporary path of ours
    assert sorted(path.name for path in tmp_path.iterdir()) == ["class", "similarity.html", "starter.py"]


def test_the_report_replaces_an_old_one_whole_or_not_at_all(tmp_path, starter, monkeypatch):
    files = _write_class(tmp_path / "class", {name: _submission(SOLUTIONS[name]) for name in ("terse", "modes")})
    report = tmp_path / "similarity.html"
    report.write_text("old report", encoding="utf-8")

    def fail(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        compare_submissions(files, starter, report=report)
    assert report.read_text(encoding="utf-8") == "old report"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["class", "similarity.html", "starter.py"]
    monkeypatch.undo()
    compare_submissions(files, starter, report=report)
    assert "terse/multi_agents.py" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize("students", [(), ("ada",)])
def test_fewer_than_two_files_pair_nobody_and_the_report_says_so(tmp_path, starter, students):
    files = _write_class(tmp_path / "class", {student: _submission(SOLUTIONS["terse"]) for student in students})
    report = tmp_path / "similarity.html"
    report.write_text("a report of an earlier run", encoding="utf-8")
    assert compare_submissions(files, starter, report=report) == []
    page = report.read_text(encoding="utf-8")
    assert "nothing was compared" in page and "earlier run" not in page
    assert (students[0] if students else "none") in page


# -- errors ------------------------------------------------------------------------------------------------------

def test_a_file_that_cannot_be_read_is_an_error_naming_the_student_and_nothing_is_written(tmp_path, starter):
    files = _write_class(tmp_path / "class", {name: _submission(SOLUTIONS[name]) for name in ("terse", "modes")})
    report = tmp_path / "similarity.html"
    files["modes"].write_bytes(b"def better_evaluation(state):\n    return '\xe9t\xe9'\n")
    with pytest.raises(SimilarityError, match=r"student 'modes': .*multi_agents\.py: not UTF-8 text \(byte 42\)"):
        compare_submissions(files, starter, report=report)
    files["modes"] = tmp_path / "class" / "modes"
    with pytest.raises(SimilarityError, match=r"student 'modes': .*modes: is a directory"):
        compare_submissions(files, starter, report=report)
    files["modes"] = tmp_path / "missing.py"
    with pytest.raises(SimilarityError, match=r"student 'modes': .*missing\.py: cannot read"):
        compare_submissions(files, starter, report=report)
    del files["modes"]
    with pytest.raises(SimilarityError, match=r"nowhere\.py: cannot read the assignment's starter file"):
        compare_submissions(files, tmp_path / "nowhere.py", report=report)
    assert not report.exists()


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), True, "0.5"])
def test_a_threshold_outside_0_to_1_is_refused(tmp_path, starter, threshold):
    files = _write_class(tmp_path, {name: _submission(SOLUTIONS[name]) for name in ("terse", "modes")})
    with pytest.raises(SimilarityError, match="must be a number from 0 to 1"):
        compare_submissions(files, starter, threshold=threshold)


def test_an_empty_student_key_is_refused(tmp_path, starter):
    files = _write_class(tmp_path, {"ada": _submission(SOLUTIONS["terse"])})
    with pytest.raises(SimilarityError, match="student key '' must be a non-empty string"):
        compare_submissions({"": files["ada"], "ada": files["ada"]}, starter)


def test_without_copydetect_the_error_says_what_to_install(tmp_path, starter, monkeypatch):
    files = _write_class(tmp_path, {name: _submission(SOLUTIONS[name]) for name in ("terse", "modes")})
    monkeypatch.setitem(sys.modules, "copydetect", None)  # as if not installed
    with pytest.raises(ImportError, match=r'needs copydetect: pip install "pacman-ai\[class\]"'):
        compare_submissions(files, starter)


def test_the_pair_type_is_small_and_frozen():
    pair = SimilarPair("ada", "bo", 0.25, 0.75)
    assert pair.share == 0.75
    with pytest.raises(AttributeError):
        pair.share_first = 1.0  # type: ignore[misc]
    assert hash(pair) == hash(SimilarPair("ada", "bo", 0.25, 0.75))
