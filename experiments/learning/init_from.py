"""``init_from``: the model a run's network starts from (imitation, PPO), checked before the run plays."""

from __future__ import annotations

from typing import Any

from agents.ppo.model import SHIPPED, load_model
from agents.ppo.network import ActorCritic
from agents.ppo.warm_start import warm_start
from experiments.common.value_checks import ConfigError

__all__ = ["check_init_from"]


def check_init_from(init_from: str | None, game: Any, network: Any) -> None:
    """Raise ``ConfigError`` (a ``ValueError``) unless ``init_from`` is None or a model (file, checkpoint or
    shipped name) whose network can start one of ``network`` settings for ``game`` (``GameSettings``):
    the same rules and sizes, only ``belief_features`` may differ (``agents.ppo.warm_start``). Checked
    before a run plays anything, not when its network is built."""
    if init_from is None:
        return
    try:
        trained = load_model(init_from)
    except (FileNotFoundError, ValueError) as error:
        shipped = sorted(path.name for path in SHIPPED.glob("*.pt"))
        raise ConfigError(
            f"init_from must be a model file or one of the shipped models {shipped}: {error}"
        ) from error
    rules = game.to_game_config()  # (a bad rule is named as such)
    try:
        warm_start(ActorCritic(rules, network), trained)
    except ValueError as error:
        raise ConfigError(
            f"init_from={init_from!r} cannot start this run's network: {error}; set game and network as "
            "the model's (or give init_from=null)"
        ) from error
