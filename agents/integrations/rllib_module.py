"""The project's PPO network as an RLlib ``RLModule`` (RLlib's current API stack), illegal actions masked.

``CluedoPPOModule`` wraps ``agents.ppo.network.ActorCritic``: it reads the
Cluedo envs' dict observations (``observation`` and ``action_mask``, as
``cluedo_v0`` and the Gymnasium envs give them), and gives RLlib the flat
action logits with every illegal action's logit set to ``MASKED_LOGIT``
(-1e9): RLlib's categorical distribution then gives it probability exactly 0
(``exp`` underflows), so it is never sampled, and zero gradient (a finite
number: ``-inf`` would make the entropy's ``0 * log 0`` a NaN). The value is
the network's value head; ``_forward_train`` hands it to the PPO loss as the
embeddings, so a training pass runs the network once.

The module's ``model_config`` is plain data (``module_spec`` builds it): the
game's rules and the ``NetworkSettings``. ``export_model`` writes the network
in the project's model format (``cluedo-ppo-model-v1``: tensors, numbers and
strings, read with torch's ``weights_only=True``), which ``PPOAgent`` and the
``rllib`` agent (``agents.integrations.rllib_agent``) play without RLlib and without
unpickling anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule

from agents.ppo.distributions import MASKED_LOGIT
from agents.ppo.model import MAX_PARAMETERS, game_config_from_dict, game_config_to_dict, save_model
from agents.ppo.network import ActorCritic, NetworkSettings
from cluedo_env import core
from cluedo_env.cluedo_v0 import observation_space

__all__ = ["CluedoPPOModule", "checked_model_config", "export_model", "masked_logits", "module_spec"]


def masked_logits(
    network: ActorCritic, obs: torch.Tensor, mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logits [n, A] with illegal actions at MASKED_LOGIT, value [n])`` of a batch."""
    parts, value = network(obs.float())
    logits = network.structure.flat(parts)
    return logits.masked_fill(~mask.bool(), MASKED_LOGIT), value


class CluedoPPOModule(TorchRLModule, ValueFunctionAPI):
    """``ActorCritic`` for RLlib's PPO: masked flat logits and the value head (see the module docstring).

    ``model_config``: ``{"game": game_config_to_dict(...), "network": asdict(NetworkSettings(...))}``
    (``module_spec`` builds it).
    """

    def setup(self) -> None:
        config = self.model_config or {}
        if "game" not in config:
            raise ValueError(
                "CluedoPPOModule needs model_config['game'] (use agents.integrations.rllib_module.module_spec)"
            )
        self.network = ActorCritic(*checked_model_config(config))
        expected = self.network.num_actions
        if getattr(self.action_space, "n", expected) != expected:
            raise ValueError(
                f"the env's action space {self.action_space} does not fit the network's {expected} actions"
            )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits, _value = masked_logits(self.network, obs["observation"], obs["action_mask"])
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits, value = masked_logits(self.network, obs["observation"], obs["action_mask"])
        # The value rides along as the "embeddings": compute_values returns it without a second pass.
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: value}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is not None:
            return embeddings
        return self.network(batch[Columns.OBS]["observation"].float())[1]


def checked_model_config(config: Mapping[str, Any]) -> tuple[core.GameConfig, NetworkSettings]:
    """The rules and network settings of a ``model_config``, checked as a model file's are.

    The settings are ``NetworkSettings``'s (bounded widths and layers, finite priors), and the
    network they declare, built on the ``meta`` device (no memory), may have at most
    ``agents.ppo.model.MAX_PARAMETERS`` weights: nothing is allocated for a config that asks for more.

    Raises:
        ValueError: naming the field of ``model_config`` and what is accepted.
    """
    try:
        game = game_config_from_dict(dict(config["game"]))
    except (TypeError, ValueError) as error:
        raise ValueError(f"model_config['game']: {error}") from None
    network = config.get("network") or {}
    if not isinstance(network, Mapping):
        raise ValueError(f"model_config['network'] must be a dict of NetworkSettings, got {network!r}")
    try:
        settings = NetworkSettings(**dict(network))
    except (TypeError, ValueError) as error:  # an unknown field, or a bad value (named)
        raise ValueError(f"model_config['network']: {error}") from None
    with torch.device("meta"):  # the declared shapes, without allocating them
        weights = sum(t.numel() for t in ActorCritic(game, settings).state_dict().values())
    if weights > MAX_PARAMETERS:
        raise ValueError(
            f"model_config['network'] ({asdict(settings)}) makes a network of {weights:,} weights, more "
            f"than the {MAX_PARAMETERS:,} a model may have"
        )
    return game, settings


def module_spec(game: core.GameConfig, settings: NetworkSettings | None = None) -> RLModuleSpec:
    """The ``RLModuleSpec`` of a ``CluedoPPOModule`` for these rules, with the env's spaces."""
    settings = settings or NetworkSettings()
    if settings.belief_features:
        raise ValueError(
            "the RLlib module reads the env's core observation; network.belief_features is an option "
            "of train_ppo, whose training games compute the features"
        )
    return RLModuleSpec(
        module_class=CluedoPPOModule,
        observation_space=observation_space(game),
        action_space=gymnasium.spaces.Discrete(core.rules_for(game).A),
        model_config={"game": game_config_to_dict(game), "network": asdict(settings)},
    )


def export_model(module: CluedoPPOModule, path: str | Path, **extra: Any) -> Path:
    """Write the module's network as a project model file (``cluedo-ppo-model-v1``, pickle-free)."""
    return save_model(path, module.network, **extra)
