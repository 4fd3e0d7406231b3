"""Learning environments: the classic game for Gymnasium (single and vector) and PettingZoo.

Importing this package registers the Gymnasium ids ``pacman_ai/Pacman-v0`` and,
for ``gymnasium.make("pacman.envs:Pacman-v0")``, ``Pacman-v0`` (unless another
package has taken that name). An episode is truncated at the command line's
move limit for its maze (`pacman.limits`; ``max_moves="none"`` for none). It needs the optional extra
``pacman-ai[gym]``; the PettingZoo environments (`pacman.envs.pettingzoo_env`: ``env()``, ``parallel_env()``) need
``pacman-ai[pettingzoo]``; `pacman.envs.sb3` (an SB3 `VecEnv` over the compiled core) and
`pacman.envs.learned` (a saved SB3 model as a Pacman agent, ``--pacman sb3:PATH.zip``) need ``pacman-ai[rl]``.
The core, batch runs and grading never import this package. See docs/environments.md.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError:  # pragma: no cover - depends on the install
    raise ImportError('the Gymnasium environment needs gymnasium: pip install "pacman-ai[gym]"') from None

from pacman.envs.gymnasium_env import OBSERVATIONS, PacmanEnv, action_mask
from pacman.envs.observations import CHANNELS

__all__ = ["ENV_ID", "PacmanEnv", "CHANNELS", "OBSERVATIONS", "action_mask", "register_envs"]

#: The registered id.
ENV_ID = "pacman_ai/Pacman-v0"

_ENTRY_POINT = "pacman.envs.gymnasium_env:PacmanEnv"
_VECTOR_ENTRY_POINT = "pacman.envs.vector:make_vector_env"


def register_envs() -> None:
    """Register the ids (done on import; again is harmless)."""
    names = [ENV_ID]
    if "Pacman-v0" not in gymnasium.registry or gymnasium.registry["Pacman-v0"].entry_point == _ENTRY_POINT:
        names.append("Pacman-v0")
    for name in names:
        if name in gymnasium.registry:
            continue
        # No max_episode_steps: the environment truncates at the game-limit policy's limit for its maze (the
        # command line's default, `pacman.limits`), which a fixed number of steps could not follow.
        gymnasium.register(id=name, entry_point=_ENTRY_POINT, vector_entry_point=_VECTOR_ENTRY_POINT)


register_envs()
