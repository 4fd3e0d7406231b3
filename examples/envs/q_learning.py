"""Tabular Q-learning in the Gymnasium environment: Pacman learns to clear the `test` maze, dodging its ghost.

    python examples/envs/q_learning.py

Runs in a few seconds. The table is keyed by the GameState itself (``info["state"]``:
immutable, hashable, equal by value), so the agent sees the whole game; actions come
from ``info["action_mask"]``. Prints the greedy policy's results on fresh seeds.
"""

import argparse
from collections import defaultdict

import gymnasium as gym
import numpy as np

import pacman.envs  # noqa: F401  (registers pacman_ai/Pacman-v0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = gym.make("pacman_ai/Pacman-v0", layout="test", max_episode_steps=50)
    rng = np.random.default_rng(args.seed)
    q = defaultdict(lambda: np.zeros(5))
    alpha, gamma = 0.5, 0.99
    for episode in range(args.episodes):
        epsilon = max(0.05, 1.0 - episode / (0.6 * args.episodes))
        obs, info = env.reset(seed=args.seed + episode)
        state, done = info["state"], False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            if rng.random() < epsilon:
                action = int(rng.choice(legal))
            else:
                action = int(legal[np.argmax(q[state][legal])])
            obs, reward, terminated, truncated, info = env.step(action)
            following = info["state"]
            target = reward
            if not terminated:
                target += gamma * np.max(q[following][np.flatnonzero(info["action_mask"])])
            q[state][action] += alpha * (target - q[state][action])
            state, done = following, terminated or truncated

    wins, returns = 0, []
    for episode in range(100):  # the greedy policy on seeds never trained on
        obs, info = env.reset(seed=10**6 + episode)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(legal[np.argmax(q[info["state"]][legal])]))
            total += reward
            done = terminated or truncated
        wins += info["state"].is_win()
        returns.append(total)
    print(f"learned {len(q)} states in {args.episodes} episodes")
    print(f"greedy policy on 100 new seeds: {wins} wins, mean return {np.mean(returns):.1f}")


if __name__ == "__main__":
    main()
