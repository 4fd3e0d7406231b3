"""`EvalAgentTest`: a classic agent plays a series of games; one point per threshold it reaches.

The ``.test`` file gives ``agentName`` (a class of the student's file, built
the classic way with ``agentArgs`` such as ``"depth=2,evalFn=better"``, every
value a string), ``layoutName``, ``maxTime`` (seconds of Pacman's thinking per
game), ``numGames``, ``randomSeed``, ``ghosts`` such as
``"[RandomGhost(1), DirectionalGhost(2)]"`` or ``"[DirectionalGhost(i) for i in
range(1, 3)]"`` (parsed, never evaluated), the
thresholds ``scoreThresholds`` (on the average score), ``winsThresholds`` and
``nonTimeoutThresholds`` (on the number of games), and the optional minimums
``scoreMinimum``, ``winsMinimum``, ``nonTimeoutMinimum``. The current generation
writes the same keys in snake_case (``agent_name``, ``agent_args`` with
``eval_fn=better``, ``layout_name``, ``max_time`` ...; `format.CURRENT_KEYS`),
and its agents answer ``get_action`` and ``register_initial_state``.

The maze is ``layouts/NAME.lay`` beside the test folder (the folder holding the
questions), else the working directory's ``layouts/NAME.lay``, else a maze
shipped with pacman-ai. Python's `random` is seeded once with ``randomSeed``;
the agent and ghosts are built once and the games are played in sequence with
the listed ghosts (as many as the maze has, at most). A game in which Pacman's
thinking, all moves together, exceeds ``maxTime`` seconds ends there as a
timeout (neither a win nor counted as played to the end).

An exception in Pacman's agent (an illegal action too) ends that game as
crashed, its score as it stands, and the games go on, as the classic game loop
does; ``raiseNotDefined()`` instead fails the whole test.

Points: one per threshold reached -- or ``points_per_threshold`` each, when the
file gives that key (a whole number; the same name in both generations, also
read as ``pointsPerThreshold``); the test's maximum is that times the number of
thresholds. A minimum that is missed makes the test earn 0 points; the test
still completes, so, as in the classic autograder, it does not stop a
PartialCreditQuestion (and counts as passed in a PassAllTestsQuestion).
"""

from __future__ import annotations

import ast
import math
import os
import random
import time
import warnings
from pathlib import Path
from typing import Any

from pacman.errors import LayoutError
from pacman.cs188.grading.format import ClassicFile
from pacman.cs188.grading.kinds import ClassicTest, agent_class
from pacman.grading.sandbox import ItemOutcome
from pacman.layout import LayoutWarning, load_layout, parse_layout

__all__ = ["EvalAgentTest", "run_eval_agent", "ITEM_KIND", "parse_ghosts", "parse_agent_args"]

ITEM_KIND = "classic-eval-agent"
#: Seconds a game may take beyond Pacman's ``maxTime`` (the ghosts, the engine), before the sandbox stops it.
MARGIN = 30.0
GHOST_CLASSES = ("RandomGhost", "DirectionalGhost")


def parse_ghosts(file: ClassicFile) -> list[list[Any]]:
    """``[RandomGhost(1), DirectionalGhost(2, 0.5)]`` as ``[[class, index, args...], ...]``; errors name the line."""
    text = file.require("ghosts").strip()
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        tree = None
    if isinstance(tree, ast.ListComp):
        tree = _expand_comprehension(tree)
    if not isinstance(tree, ast.List):
        raise file.error("ghosts", f"expected a list such as [RandomGhost(1)] or [RandomGhost(i) for i in "
                                   f"range(1, 3)], got {text[:60]!r}")
    ghosts = []
    for node in tree.elts:
        ok = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in GHOST_CLASSES
              and not node.keywords and node.args
              and all(isinstance(a, ast.Constant) and type(a.value) in (int, float) for a in node.args)
              and type(node.args[0].value) is int and len(node.args) <= 3)
        if not ok:
            shown = ast.get_source_segment(text, node) or "?"
            raise file.error("ghosts", f"expected RandomGhost(index) or DirectionalGhost(index[, prob_attack"
                                       f"[, prob_scaredFlee]]) with number arguments, got {shown[:60]!r}")
        ghosts.append([node.func.id] + [a.value for a in node.args])
    for position, ghost in enumerate(ghosts, start=1):
        if ghost[1] != position:
            raise file.error("ghosts", f"ghost {position} has index {ghost[1]}; list the ghosts as 1, 2, ...")
    return ghosts


def _expand_comprehension(node: ast.ListComp) -> ast.expr:
    """``[Ghost(i) for i in range(a, b)]`` (the course evaluates the ghosts' text) as the list it makes; anything
    else is returned unchanged, and refused by the caller."""
    if len(node.generators) != 1:
        return node
    loop = node.generators[0]
    bounds = loop.iter
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name) or not (
            isinstance(bounds, ast.Call) and isinstance(bounds.func, ast.Name) and bounds.func.id == "range"
            and not bounds.keywords and 1 <= len(bounds.args) <= 2
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in bounds.args)):
        return node
    element = node.elt
    if not (isinstance(element, ast.Call) and element.args and isinstance(element.args[0], ast.Name)
            and element.args[0].id == loop.target.id
            and not any(isinstance(n, ast.Name) and n.id == loop.target.id
                        for a in element.args[1:] for n in ast.walk(a))):
        return node
    numbers = range(*(a.value for a in bounds.args))
    if len(numbers) > 16:
        return node
    return ast.List(elts=[ast.Call(func=element.func, args=[ast.Constant(i), *element.args[1:]],
                                   keywords=element.keywords) for i in numbers], ctx=ast.Load())


def parse_agent_args(file: ClassicFile) -> dict[str, str | int]:
    """``depth=2,evalFn=better`` as ``{"depth": "2", "evalFn": "better"}`` (values stay strings); a name given
    without ``=value`` is 1, as the course's parser makes it (``useFlag`` -> ``{"useFlag": 1}``)."""
    args: dict[str, str | int] = {}
    for part in (file.get("agentArgs") or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not key.isidentifier() or "=" in value:
            raise file.error("agentArgs", f"expected name=value pairs separated by commas, got {part.strip()!r}")
        args[key] = value.strip() if sep else 1
    return args


def _number(file: ClassicFile, key: str, whole: bool, positive: bool = False) -> float | None:
    raw = file.get(key)
    if raw is None or not raw.strip():
        return None
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise file.error(key, f"expected a {'whole ' if whole else ''}number, got {raw.strip()!r}") from None
    if not math.isfinite(value) or (positive and value <= 0):
        raise file.error(key, f"expected a {'positive' if positive else 'finite'} number, got {raw.strip()!r}")
    return value


def _thresholds(file: ClassicFile, key: str) -> list[float]:
    values = []
    for word in (file.get(key) or "").split():
        try:
            value = float(word)
        except ValueError:
            raise file.error(key, f"expected numbers separated by spaces, got {word!r}") from None
        if not math.isfinite(value):
            raise file.error(key, f"expected finite numbers, got {word!r}")
        values.append(value)
    return values


#: The spellings of the key giving the points each threshold reached earns (1 without it): the same in both
#: generations.
POINTS_PER_THRESHOLD = ("points_per_threshold", "pointsPerThreshold")
#: Every key an EvalAgentTest's ``.test`` file may hold (classic names; the current generation's are read
#: through `format.CURRENT_KEYS`); any other is refused by name.
TEST_KEYS = ("class", "disabled", "agentName", "agentArgs", "layoutName", "maxTime", "numGames", "randomSeed",
             "ghosts", "scoreThresholds", "winsThresholds", "nonTimeoutThresholds", "scoreMinimum",
             "winsMinimum", "nonTimeoutMinimum") + POINTS_PER_THRESHOLD


def _points_per_threshold(file: ClassicFile) -> int:
    """The points each threshold reached earns: ``points_per_threshold`` (a whole number, at least 0), else 1."""
    given = [key for key in POINTS_PER_THRESHOLD if key in file.values]
    if len(given) > 1:
        raise file.error(given[1], f"given with {given[0]!r} too; give one of them")
    if not given:
        return 1
    return file.whole(given[0], 0)


def find_layout(file: ClassicFile, name: str) -> tuple[str, str]:
    """(text, path) of the maze `name`: beside the test folder, in ./layouts, or shipped."""
    test_folder = Path(file.path).resolve().parent.parent
    for folder in (test_folder.parent / "layouts", Path(os.getcwd()) / "layouts"):
        path = folder / (name if name.endswith(".lay") else f"{name}.lay")
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8-sig")
                parse_layout(text, name=Path(name).stem, path=str(path))
            except (OSError, UnicodeDecodeError, LayoutError) as exc:
                raise file.error("layoutName", str(exc)) from None
            return text, str(path)
    if "/" in name or os.sep in name:
        raise file.error("layoutName", f"expected a maze name, got {name!r}")
    try:
        layout = load_layout(name)
    except LayoutError as exc:
        raise file.error("layoutName", f"no layouts/{name}.lay beside {test_folder.name} or in the working "
                                       f"directory, and {exc}") from None
    return layout.text, layout.path or layout.name


class EvalAgentTest(ClassicTest):
    """A test of class ``EvalAgentTest``: read, checked and judged by the grader (it has no solution values)."""

    class_name = "EvalAgentTest"
    exceptions_escape = True  # building the agent is outside the games, which catch their crashes
    test_keys = TEST_KEYS
    solution_keys = ()

    def __init__(self, name: str, test: ClassicFile, solution: ClassicFile | None) -> None:
        super().__init__(name, test, solution)
        self.alg = test.class_name("agentName")
        self.agent_args = parse_agent_args(test)
        self.layout_name = test.require("layoutName").strip()
        self.layout_text, self.layout_path = find_layout(test, self.layout_name)
        test.require("maxTime")
        self.max_time = _number(test, "maxTime", whole=False, positive=True)
        if self.max_time is None:
            raise test.error("maxTime", "expected a positive number of seconds")
        self.num_games = int(_number(test, "numGames", whole=True, positive=True) or 0)
        if self.num_games < 1:
            raise test.error("numGames", "expected a positive whole number")
        test.require("randomSeed")
        self.seed = _number(test, "randomSeed", whole=True)
        self.ghosts = parse_ghosts(test)
        self.thresholds = {key: _thresholds(test, f"{key}Thresholds") for key in ("score", "wins", "nonTimeout")}
        self.minimums = {key: _number(test, f"{key}Minimum", whole=False) for key in ("score", "wins", "nonTimeout")}
        self.points_per_threshold = _points_per_threshold(test)
        self.max_points = float(self.points_per_threshold * sum(len(v) for v in self.thresholds.values()))
        self.items = [{"kind": ITEM_KIND, "agent": self.alg, "args": self.agent_args, "layout": self.layout_text,
                       "layout_name": Path(self.layout_name).stem, "ghosts": self.ghosts,
                       "games": self.num_games, "seed": self.seed, "max_time": self.max_time}]
        self.time_limits = [self.num_games * (self.max_time + MARGIN)]

    def judge(self, outcomes: list[ItemOutcome]) -> tuple[bool, float, list[str], dict[str, Any]]:
        outcome = outcomes[0]
        where = f"{self.alg} on {self.layout_name}, {self.num_games} game{'s' if self.num_games != 1 else ''}"
        if not outcome.ok:
            return False, 0.0, [f"{where}: {outcome.error}"], {}
        games = outcome.data["games"]
        average = sum(g["score"] for g in games) / len(games)
        values = {"score": average, "wins": sum(1 for g in games if g["win"]),
                  "nonTimeout": sum(1 for g in games if not g["timeout"])}
        shown = {"score": f"average score {average:g}", "wins": f"{values['wins']} wins",
                 "nonTimeout": f"{values['nonTimeout']} games without a timeout"}
        points = 0
        messages = []
        each = self.points_per_threshold
        for key, thresholds in self.thresholds.items():
            reached = sum(1 for t in thresholds if values[key] >= t)
            points += reached * each
            if thresholds:
                worth = f", {each} points each" if each != 1 else ""
                messages.append(f"{where}: {shown[key]}: {reached} of {len(thresholds)} thresholds "
                                f"({' '.join(f'{t:g}' for t in thresholds)}) reached{worth}")
        observed = {"scores": [g["score"] for g in games], "wins": values["wins"],
                    "timeouts": self.num_games - values["nonTimeout"], "average": average}
        missed = [key for key, minimum in self.minimums.items() if minimum is not None and values[key] < minimum]
        for key in missed:
            messages.append(f"{where}: {shown[key]}, below the minimum of {self.minimums[key]:g}: the test earns 0")
        crashed = [i for i, g in enumerate(games, start=1) if g.get("crash")]
        if crashed:
            first = games[crashed[0] - 1]["crash"]
            messages.append(f"{where}: Pacman crashed in game{'s' if len(crashed) > 1 else ''} "
                            f"{', '.join(map(str, crashed))}, ending {'them' if len(crashed) > 1 else 'it'} "
                            f"(game {crashed[0]}: {first})")
        # Completed either way: a missed minimum earns 0 but, as in the classic autograder,
        # does not stop a PartialCreditQuestion.
        return True, 0.0 if missed else float(points), messages, observed

    def solution_values(self, outcomes: list[ItemOutcome]) -> dict[str, str]:
        return {}


def _ghost(spec: list[Any]) -> Any:
    from pacman.cs188 import DirectionalGhost, RandomGhost

    name, index, *args = spec
    return (RandomGhost if name == "RandomGhost" else DirectionalGhost)(int(index), *args)


def run_eval_agent(module: Any, item: dict[str, Any]) -> dict[str, Any]:
    """The submission's side: the games, in sequence, with `random` seeded once."""
    from pacman.cs188 import GENERATIONS, ClassicState, state_class
    from pacman.state import GameState

    names = GENERATIONS[item.get("generation") or "classic"]
    view_class = state_class(names.name)
    random.seed(int(item["seed"]))
    with warnings.catch_warnings():  # the grader warned when it read the maze: not the student's output
        warnings.simplefilter("ignore", LayoutWarning)
        layout = parse_layout(item["layout"], name=item["layout_name"])
    agent = agent_class(module, item["agent"])(**item["args"])
    if not hasattr(agent, "index"):
        agent.index = 0
    count = min(len(item["ghosts"]), layout.num_ghosts)
    ghosts = [_ghost(spec) for spec in item["ghosts"][:count]]
    max_time = float(item["max_time"])
    games = []
    for _ in range(int(item["games"])):
        view = view_class(GameState.initial(layout, num_ghosts=count))
        thinking = 0.0
        timeout = False
        moves = 0
        crash = None
        try:
            register = getattr(agent, names.register_initial_state, None)
            if callable(register):
                started = time.perf_counter()
                register(view)
                thinking += time.perf_counter() - started
            while not (view.isWin() or view.isLose()) and thinking <= max_time:
                ClassicState.getAndResetExplored()
                started = time.perf_counter()
                action = getattr(agent, names.get_action)(view)
                thinking += time.perf_counter() - started
                if thinking > max_time:
                    break
                if action not in view.getLegalActions(0):
                    raise ValueError(f"{item['agent']}.{names.get_action} returned {action!r} at move {moves + 1}, "
                                     f"not a legal action (legal: {', '.join(view.getLegalActions(0))})")
                view = view.generateSuccessor(0, action)
                moves += 1
                for ghost in ghosts:
                    if view.isWin() or view.isLose():
                        break
                    view = view.generateSuccessor(ghost.index, ghost.getAction(view))
        except Exception as exc:  # noqa: BLE001 - as in the classic game: Pacman crashed, this game ends
            crash = f"{type(exc).__name__}: {exc}"[:200]
        timeout = crash is None and thinking > max_time
        ClassicState.getAndResetExplored()
        games.append({"score": view.getScore(), "win": view.isWin() and not timeout, "timeout": timeout,
                      "moves": moves, "crash": crash})
    return {"games": games}
