"""Compare a random policy, the greedy agent and expectimax in the Gymnasium environment.

    python examples/envs/compare_policies.py --episodes 10 --layout small

Every policy plays the same seeded episodes (seed, seed + 1, ...); each line gives
the mean return (the game's score), the wins and the steps per second.
"""

import argparse

from pacman.agents import ExpectimaxAgent, GreedyAgent
from pacman.envs import PacmanEnv
from pacman.envs.policies import AgentPolicy, evaluate_policy, random_policy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="small")
    parser.add_argument("--ghosts", default="random", choices=("random", "directional"))
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-moves", type=int, default=300)
    parser.add_argument("--depth", type=int, default=2, help="expectimax depth")
    args = parser.parse_args()
    env = PacmanEnv(args.layout, ghosts=args.ghosts, max_moves=args.max_moves)
    policies = {
        "random": random_policy(args.seed),
        "greedy": AgentPolicy(GreedyAgent()),
        f"expectimax depth {args.depth}": AgentPolicy(ExpectimaxAgent(depth=args.depth, evaluation="better")),
    }
    print(f"{args.episodes} episodes on {env.layout.name}, {args.ghosts} ghosts, seeds {args.seed}.."
          f"{args.seed + args.episodes - 1}, at most {args.max_moves} moves")
    print(f"{'policy':<22} {'mean return':>12} {'wins':>6} {'steps/s':>10}")
    for name, policy in policies.items():
        result = evaluate_policy(name, policy, env, args.episodes, seed=args.seed)
        print(f"{name:<22} {result.mean_return:>12.1f} {result.wins:>3}/{result.episodes:<2} "
              f"{result.steps_per_second:>10,.0f}")


if __name__ == "__main__":
    main()
