"""Model files: the small file a PPO agent loads (weights, network settings, game config, sizes).

They are written with ``torch.save`` and read with ``weights_only=True``: plain tensors and
values, no pickled code.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from agents.ppo.network import ActorCritic
from cluedo_env import core

__all__ = [
    "MODEL_FORMAT",
    "game_config_from_dict",
    "game_config_to_dict",
    "load_model",
    "model_path",
    "model_record",
    "network_from_record",
    "save_model",
]

MODEL_FORMAT = "cluedo-ppo-model-v1"
SHIPPED = Path(__file__).resolve().parent / "shipped"  # the models that ship with the package


def model_path(value: str | Path) -> Path:
    """A model file given as a path, or by the name of a shipped model (``cluedo_ppo_4p.pt``,
    ``cluedo_ppo_imitation_4p.pt``): the path when it exists, else the shipped file of that name."""
    path = Path(value)
    if not path.exists() and path.name == str(value) and (SHIPPED / path.name).is_file():
        return SHIPPED / path.name
    return path


def game_config_to_dict(game: core.GameConfig) -> dict[str, Any]:
    """The init fields of a game config as plain values (a registered edition by name)."""
    values = {f.name: getattr(game, f.name) for f in fields(game) if f.init}
    if not isinstance(values["edition"], str):
        raise ValueError(f"only registered editions can be saved with a model, got {values['edition']!r}")
    return values


def game_config_from_dict(values: dict[str, Any]) -> core.GameConfig:
    return core.GameConfig(**values)


def save_model(path: str | Path, network: ActorCritic, **extra: Any) -> Path:
    """Write the small file an agent loads: weights, network settings, game config, sizes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({**model_record(network), **extra}, path)
    return path


def model_record(network: ActorCritic) -> dict[str, Any]:
    """What rebuilds the network: ``state_dict``, ``network`` settings, ``game``, sizes, format."""
    return {
        "format": MODEL_FORMAT,
        "state_dict": {k: v.detach().clone() for k, v in network.state_dict().items()},
        "network": asdict(network.settings),
        "game": game_config_to_dict(network.game),
        "obs_size": network.obs_size,
        "num_actions": network.num_actions,
    }


def network_from_record(record: dict[str, Any]) -> ActorCritic:
    """Rebuild a network from ``model_record``'s dict (checks the sizes)."""
    # Imported here: agents.ppo.network imports this module (and re-exports its names).
    from agents.ppo.network import ActorCritic, NetworkSettings

    if record.get("format") != MODEL_FORMAT:
        raise ValueError(f"not a model record of format {MODEL_FORMAT!r} (got {record.get('format')!r})")
    network = ActorCritic(game_config_from_dict(record["game"]), NetworkSettings(**record["network"]))
    if (network.obs_size, network.num_actions) != (record["obs_size"], record["num_actions"]):
        raise ValueError(
            f"model was saved with obs_size={record['obs_size']}, num_actions={record['num_actions']}; "
            f"this code builds {network.obs_size}, {network.num_actions} for its game config"
        )
    network.load_state_dict(record["state_dict"])
    return network


def load_model(path: str | Path) -> ActorCritic:
    """The network of a model file (``model.pt``), of a training checkpoint or of a shipped model
    named by its file name (``model_path``), on the CPU.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the file is neither a model nor a checkpoint of this format.
    """
    path = model_path(path)
    if not path.is_file():
        shipped = sorted(model.name for model in SHIPPED.glob("*.pt"))
        raise FileNotFoundError(f"no PPO model at {path} (nor a shipped model of that name: {shipped})")
    record = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(record, dict) and isinstance(record.get("model"), dict):  # a training checkpoint
        record = record["model"]
    if not isinstance(record, dict):
        raise ValueError(f"{path} is not a PPO model file")
    return network_from_record(record)
