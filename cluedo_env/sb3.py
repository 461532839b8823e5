"""``CluedoVectorEnv`` as a Stable-Baselines3 ``VecEnv``, with the masks sb3-contrib's ``MaskablePPO`` asks for.

    from sb3_contrib import MaskablePPO
    from cluedo_env.sb3 import CluedoSB3VecEnv

    env = CluedoSB3VecEnv(num_envs=16, opponents=["random"] * 3)
    model = MaskablePPO("MultiInputPolicy", env).learn(100_000)

The batch of games runs on the batched core (the opponents act for all games at
once), so it is several times faster per agent-step than a ``DummyVecEnv`` of
``CluedoSingleAgentEnv``. The two autoreset conventions agree: on the step where
game ``i`` ends, ``dones[i]`` is True, the observation is the next game's first, and
``infos[i]`` holds the ended game's last observation (``"terminal_observation"``),
``"TimeLimit.truncated"`` (the game reached ``max_turns``), ``"winner"``,
``"learner_seat"``, ``"turns"`` and ``"illegal_action"``.

``env_method("action_masks")`` gives each game's legal actions (``bool[A]``, one per
game), which is how ``MaskablePPO`` reads the masks of a ``VecEnv``; ``has_attr``,
``get_attr`` and ``env_method`` otherwise reach the attributes of the wrapped
``CluedoVectorEnv``, one value per game. Needs the ``sb3`` extra
(in a checkout, ``pip install -e ".[sb3]"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ModuleNotFoundError as error:
    raise ModuleNotFoundError(
        f"No module named {error.name!r}: cluedo_env.sb3 needs the 'sb3' extra of cluedo-env ('stable_baselines3', 'sb3_contrib'). "
        'Install it in the checkout with: pip install -e ".[sb3]"',
        name=error.name,
    ) from error

from cluedo_env.gym_env import CluedoVectorEnv

__all__ = ["CluedoSB3VecEnv"]


class CluedoSB3VecEnv(VecEnv):
    """A batch of Cluedo games, one learner seat each, as a Stable-Baselines3 ``VecEnv``.

    Args:
        num_envs: Games in the batch.
        **kwargs: ``CluedoVectorEnv`` arguments (``opponents``, ``learner_seat``,
            ``reward_scheme``, rules such as ``num_players``...). ``render_mode`` is not
            offered: render the ``vector_env`` directly.
    """

    def __init__(self, num_envs: int = 16, **kwargs: Any) -> None:
        if "render_mode" in kwargs:
            raise ValueError("CluedoSB3VecEnv takes no render_mode; render its vector_env instead")
        self.vector_env = CluedoVectorEnv(num_envs=num_envs, **kwargs)
        vec = self.vector_env
        super().__init__(vec.num_envs, vec.single_observation_space, vec.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> dict[str, np.ndarray]:
        """Deal every game; a seed set by ``seed(s)`` gives game i the seed ``s + i`` (once)."""
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        observations, _ = self.vector_env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        """Store the learners' actions (``int[B]``) for ``step_wait``."""
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the stored actions; the games that ended are dealt again at once (see the module docstring)."""
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        observations, rewards, terminations, truncations, infos = self.vector_env.step(actions)
        dones = terminations | truncations
        step_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones).tolist():
            facts = infos["final_info"]
            step_infos[game] = {
                "terminal_observation": infos["final_obs"][game],
                "TimeLimit.truncated": bool(truncations[game] and not terminations[game]),
                **{
                    key: facts[key][game].item()
                    for key in ("winner", "learner_seat", "turns", "illegal_action")
                },
            }
        return observations, rewards.astype(np.float32), dones, step_infos

    def action_masks(self) -> np.ndarray:
        """``bool[B, A]``: each game's legal actions now."""
        return self.vector_env.action_masks()

    def close(self) -> None:
        """Close the wrapped vector env."""
        self.vector_env.close()

    def _games(self, indices: int | Iterable[int] | None) -> list[int]:
        return self._get_indices(indices)  # type: ignore[return-value]

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: int | Iterable[int] | None = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``"action_masks"``: one mask per game; any other method is called once on the vector env."""
        games = self._games(indices)
        if method_name == "action_masks":
            masks = self.vector_env.action_masks()
            return [masks[game] for game in games]
        result = getattr(self.vector_env, method_name)(*method_args, **method_kwargs)
        return [result for _ in games]

    def has_attr(self, attr_name: str) -> bool:
        """Whether the wrapped vector env has the attribute (it has ``action_masks``)."""
        return hasattr(self.vector_env, attr_name)

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        """The vector env's attribute, once per game asked for."""
        value = getattr(self.vector_env, attr_name)
        return [value for _ in self._games(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None) -> None:
        """Refused: the games of the batch share one vector env, so an attribute cannot differ per game."""
        raise AttributeError(
            f"CluedoSB3VecEnv cannot set {attr_name!r}: its games share one CluedoVectorEnv; "
            "build a new env with the value instead"
        )

    def env_is_wrapped(self, wrapper_class: type, indices: int | Iterable[int] | None = None) -> list[bool]:
        """No game is wrapped by a Gymnasium wrapper."""
        return [False for _ in self._games(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Not offered (render the ``vector_env`` with ``render_mode="rgb_array"``)."""
        return [None] * self.num_envs
