"""``CardPolicy``: the project's card-aware actor-critic as a Stable-Baselines3 policy for ``MaskablePPO``.

    from sb3_contrib import MaskablePPO
    from agents.integrations.sb3_policy import CardPolicy, card_policy_kwargs

    model = MaskablePPO(CardPolicy, env, policy_kwargs=card_policy_kwargs(game))

SB3's ``MultiInputPolicy`` reads the observation as one flat vector through an
MLP and scores each of the 405 actions with its own output (324 of them
accusations): against random players it learns that a wrong accusation costs
and never learns which accusation is right (``experiments/train_sb3.py``'s
README figure). ``CardPolicy`` is the same sb3-contrib policy with the
project's network, ``agents.ppo.network.ActorCritic``, in place of the MLP:

- ``ObservationVector`` (the features extractor) passes the ``observation``
  key on (the ``action_mask`` key is applied to the logits by ``MaskablePPO``,
  it is no feature);
- ``CardNetwork`` (the ``mlp_extractor``) is the ``ActorCritic``: every card
  encoded by one shared layer from its notepad lines, pooled per category,
  a trunk MLP, and an action score built per card (an accusation's logit is
  ``gate + suspect + weapon + room``, with priors toward the unseen cards);
  its ``latent_pi`` is the flat logits and its ``latent_vf`` the value, so the
  policy's ``action_net`` and ``value_net`` are identities.

``policy_kwargs`` are plain JSON (the game's ``GameConfig`` fields and the
``NetworkSettings``), so ``agents.integrations.sb3_agent.SB3Agent`` rebuilds a saved model
from its weights without unpickling anything.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gymnasium import spaces

try:  # modules of the sb3 extra
    import torch
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from torch import nn
except ModuleNotFoundError as error:
    raise ModuleNotFoundError(
        f"No module named {error.name!r}: agents.integrations.sb3_policy and agents.integrations.sb3_agent need the 'sb3' extra of cluedo-env "
        "('stable_baselines3', 'sb3_contrib'). Install it in the checkout with: pip install -e \".[sb3]\"",
        name=error.name,
    ) from error

from agents.ppo.model import game_config_from_dict, game_config_to_dict
from agents.ppo.network import ActorCritic, NetworkSettings
from cluedo_env import core

__all__ = ["POLICIES", "CardNetwork", "CardPolicy", "ObservationVector", "card_policy_kwargs"]


def card_policy_kwargs(game: core.GameConfig, network: NetworkSettings | None = None) -> dict[str, Any]:
    """``CardPolicy``'s ``policy_kwargs`` for ``game``: plain data, saved as JSON in the model zip."""
    return {"game": game_config_to_dict(game), "network": asdict(network or NetworkSettings())}


class ObservationVector(BaseFeaturesExtractor):
    """The ``observation`` vector of the env's ``Dict`` observation, as it is."""

    def __init__(self, observation_space: spaces.Dict) -> None:
        super().__init__(observation_space, features_dim=observation_space["observation"].shape[0])

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        return observations["observation"]


class CardNetwork(nn.Module):
    """``ActorCritic`` as SB3's ``mlp_extractor``: the observation -> (flat logits ``[n, A]``, value ``[n, 1]``)."""

    def __init__(self, game: core.GameConfig, settings: NetworkSettings) -> None:
        super().__init__()
        self.network = ActorCritic(game, settings)
        self.latent_dim_pi = self.network.num_actions
        self.latent_dim_vf = 1

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        parts, value = self.network(features)
        return self.network.structure.flat(parts), value[:, None]

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.forward(features)[0]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.network(features)[1][:, None]


class CardPolicy(MaskableMultiInputActorCriticPolicy):
    """sb3-contrib's masked multi-input actor-critic with ``CardNetwork`` in place of its MLP.

    Args:
        observation_space: The env's ``Dict(observation, action_mask)`` space.
        action_space: ``Discrete(A)``.
        lr_schedule: SB3's learning-rate schedule.
        game: The ``GameConfig`` fields (``card_policy_kwargs``); the network's sizes follow from them.
        network: ``NetworkSettings`` fields (default: the project PPO's).
        **kwargs: Other ``MaskableMultiInputActorCriticPolicy`` arguments (``optimizer_kwargs``, ...).
            ``net_arch``, ``features_extractor_class`` and ``ortho_init`` are the policy's own.

    Raises:
        ValueError: if the spaces do not fit ``game``, or ``kwargs`` sets what the policy fixes.
    """

    def __init__(
        self,
        observation_space: spaces.Dict,
        action_space: spaces.Discrete,
        lr_schedule: Any,
        game: dict[str, Any],
        network: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        fixed = sorted({"net_arch", "features_extractor_class", "ortho_init"} & set(kwargs))
        if fixed:
            raise ValueError(f"CardPolicy sets {fixed} itself; pass game= and network= only")
        self.game = game_config_from_dict(dict(game))
        self.settings = NetworkSettings(**(network or {}))
        if self.settings.belief_features:
            raise ValueError(
                "CardPolicy reads the env's core observation; network.belief_features is an option of "
                "train_ppo, whose training games compute the features"
            )
        size, actions = core.observation_size(self.game), core.ActionLayout(self.game).num_actions
        if observation_space["observation"].shape != (size,) or action_space.n != actions:
            raise ValueError(
                f"CardPolicy for {self.game} needs observations of {size} and {actions} actions, got "
                f"{observation_space['observation'].shape} and {action_space.n}"
            )
        # ortho_init=False: ActorCritic initialises its own layers (small output layers, priors)
        super().__init__(
            observation_space,
            action_space,
            lr_schedule,
            features_extractor_class=ObservationVector,
            ortho_init=False,
            **kwargs,
        )

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = CardNetwork(self.game, self.settings)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        # the network's outputs are already the logits and the value
        self.action_net, self.value_net = nn.Identity(), nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        for key in ("net_arch", "features_extractor_class", "ortho_init", "features_extractor_kwargs"):
            data.pop(key, None)
        return {**data, "game": game_config_to_dict(self.game), "network": asdict(self.settings)}


# The policies of train_sb3's ``policy`` setting, and the only classes a saved model may name for
# agents.integrations.sb3_agent (which rebuilds them from weights and plain kwargs).
POLICIES = {"card": CardPolicy, "MultiInputPolicy": MaskableMultiInputActorCriticPolicy}
