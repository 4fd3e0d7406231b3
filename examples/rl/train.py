"""Train a Pacman agent with MaskablePPO (sb3-contrib) on the compiled vector environment, and plot how it learns.

    python examples/rl/train.py --layout small --out small.zip

The observation is "features" (what is around each of Pacman's five moves: the
nearest food, ghosts, scared ghosts and capsules, by maze distance; see
docs/environments.md), the reward the game's score with a lost game costing
`--loss-penalty` more, scaled by SB3's VecNormalize (rewards only: the saved
policy needs no statistics), illegal moves masked out. Every `--eval-every`
steps the deterministic policy plays `--eval-games` seeded games (seeds from
10**6, apart from the 1,000 games the docs report); the curve goes to OUT.csv
(plot it with plot.py). The model kept is the one of the best evaluation. The
learning rate falls linearly to 0 over `--timesteps`. The defaults are the
recipe of docs/environments.md.
The model plays as ``pacman-ai batch --pacman sb3:OUT.zip``.
Needs ``pip install "pacman-ai[rl]"`` (and matplotlib for the plot).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np


def evaluate(model, layout: str, games: int, seed: int, observation: str, max_moves: int) -> tuple[float, float]:
    """Win rate and mean score of the deterministic policy over `games` games seeded seed, seed + 1, ..., each
    game played once (a vector environment of `games` games, masked)."""
    from pacman.envs.sb3 import make_vec_env

    env = make_vec_env(layout=layout, num_envs=games, observation=observation, max_moves=max_moves)
    env.seed(seed)
    obs = env.reset()
    wins = np.zeros(games, dtype=bool)
    scores = np.zeros(games)
    done = np.zeros(games, dtype=bool)
    while not done.all():
        actions, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
        obs, _, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones & ~done):
            wins[i], scores[i] = infos[i]["is_success"], infos[i]["score"]
        done |= dones
    return float(wins.mean()), float(scores.mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", default="small")
    parser.add_argument("--out", type=Path, default=Path("pacman-ppo.zip"), help="the model's file (.zip)")
    parser.add_argument("--timesteps", type=int, default=4_000_000, help="the most environment steps")
    parser.add_argument("--minutes", type=float, default=25.0, help="stop after this many minutes of training")
    parser.add_argument("--target", type=float, default=None,
                        help="stop once an evaluation wins at least this fraction of its games")
    parser.add_argument("--num-envs", type=int, default=32)
    parser.add_argument("--observation", default="features", choices=["features", "grid"])
    parser.add_argument("--max-moves", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=250_000)
    parser.add_argument("--eval-games", type=int, default=500)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1 is fastest for this small network, and on a shared machine)")
    parser.add_argument("--gamma", type=float, default=0.99, help="the discount")
    parser.add_argument("--ent-coef", type=float, default=0.005, help="the entropy bonus")
    parser.add_argument("--loss-penalty", type=float, default=1500.0,
                        help="reward shaping: a lost game costs this much more than the score's 500 (0: the score)")
    parser.add_argument("--init", type=Path, default=None, help="start from this model (e.g. trained on a smaller maze)")
    args = parser.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecEnvWrapper, VecMonitor, VecNormalize

    from pacman.envs.sb3 import make_vec_env

    torch.set_num_threads(args.threads)
    env = make_vec_env(layout=args.layout, num_envs=args.num_envs, observation=args.observation,
                       max_moves=args.max_moves)
    env = VecMonitor(env)

    class LossPenalty(VecEnvWrapper):
        """The reward minus `--loss-penalty` at the step that loses a game (caught by a ghost: done, neither
        won nor cut off)."""

        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            for i in np.flatnonzero(dones):
                if not infos[i]["is_success"] and not infos[i]["TimeLimit.truncated"]:
                    rewards[i] -= args.loss_penalty
            return obs, rewards, dones, infos

    if args.loss_penalty:
        env = LossPenalty(env)
    env = VecNormalize(env, norm_obs=False, norm_reward=True, gamma=args.gamma)
    if args.init is not None:
        model = MaskablePPO.load(args.init, env=env, seed=args.seed)
    else:
        model = MaskablePPO("MlpPolicy", env, seed=args.seed, n_steps=128, batch_size=512, n_epochs=4,
                            learning_rate=lambda left: 3e-4 * left, gamma=args.gamma, gae_lambda=0.95,
                            ent_coef=args.ent_coef, clip_range=0.2,
                            policy_kwargs={"net_arch": [128, 128]}, verbose=0)
    model.pacman_env = {"layout": args.layout, "observation": args.observation}
    rows: list[tuple[int, float, float, float, float]] = []
    started, cpu_started = time.perf_counter(), time.process_time()
    curve = args.out.with_suffix(".csv")

    class Progress(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = 0
            self.best = -1.0

        def _on_step(self) -> bool:
            if self.num_timesteps < self.next_eval:
                return time.perf_counter() - started < args.minutes * 60
            self.next_eval = self.num_timesteps + args.eval_every
            elapsed = time.perf_counter() - started
            rate, score = evaluate(self.model, args.layout, args.eval_games, 10**6, args.observation, args.max_moves)
            cpu = time.process_time() - cpu_started
            rows.append((self.num_timesteps, elapsed, cpu, rate, score))
            print(f"{self.num_timesteps:>9} steps  {elapsed / 60:5.1f} min ({cpu / 60:5.1f} CPU)  wins {rate:6.1%}  "
                  f"mean score {score:7.1f}", file=sys.stderr, flush=True)
            with open(curve, "w", newline="") as f:
                csv.writer(f).writerows([("timesteps", "minutes", "cpu_minutes", "win_rate", "mean_score")]
                                        + [(t, f"{m / 60:.2f}", f"{c / 60:.2f}", f"{r:.4f}", f"{s:.1f}")
                                           for t, m, c, r, s in rows])
            if rate >= self.best:  # the best evaluation so far (its seeds are not the reported games')
                self.best = rate
                model.save(args.out)
            if args.target is not None and rate >= args.target:
                return False
            return elapsed < args.minutes * 60

    progress = Progress()
    model.learn(total_timesteps=args.timesteps, callback=progress)
    print(f"saved {args.out} (the best evaluation, {progress.best:.1%}); stopped after {model.num_timesteps} steps, {(time.perf_counter() - started) / 60:.1f} min",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
