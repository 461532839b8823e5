"""Warm start: a network begins as a trained one, with input columns the trained one lacked at zero.

A learner with belief features (``NetworkSettings.belief_features``) reads more
observation columns than a model trained without them; ``warm_start`` copies
every weight of the trained network into the new one and gives the new input
columns (the belief pieces, in the card encoder's and the trunk's first
layers) zero weights. The new network then computes what the trained one does
on the core's observation but for its two priors, which count the cards that
may still be in the envelope instead of the unseen ones (``agents.ppo.network``):
the same values everywhere, the same policy wherever exact counting leaves
exactly the unseen cards possible. Training starts from its play (moving,
suggesting, showing, accusing) and learns what the new columns add.
"""

from __future__ import annotations

from dataclasses import asdict, fields

import torch

from agents.ppo.network import ActorCritic
from cluedo_env import core

__all__ = ["warm_start"]


def warm_start(network: ActorCritic, trained: ActorCritic) -> ActorCritic:
    """Copy ``trained``'s weights into ``network`` (in place; returned); new input columns get zeros.

    Raises:
        ValueError: naming the first difference: a field of the game config or of the network
            settings (``belief_features`` may differ only where ``trained`` has none), or the first
            column ``trained`` reads that ``network`` does not.
    """
    if trained.game != network.game:
        name = next(
            f.name
            for f in fields(network.game)
            if getattr(network.game, f.name) != getattr(trained.game, f.name)
        )
        raise ValueError(
            f"warm start: the trained network plays {name}={getattr(trained.game, name)!r}, this one "
            f"{name}={getattr(network.game, name)!r}; the game must agree"
        )
    settings, trained_settings = asdict(network.settings), asdict(trained.settings)
    if trained_settings["belief_features"] and not settings["belief_features"]:
        raise ValueError(
            "warm start: the model was trained with belief features, which this network does not read: "
            "set network.belief_features=true"
        )
    for name in settings:
        if name != "belief_features" and settings[name] != trained_settings[name]:
            raise ValueError(
                f"warm start: network.{name} is {settings[name]!r}, the trained network's "
                f"{trained_settings[name]!r}; only belief_features may differ"
            )
    old = trained.state_dict()
    grown = {
        "card_encoder.0.weight": _column_sources(_card_columns(trained), _card_columns(network), "card"),
        "trunk.0.weight": _column_sources(_trunk_columns(trained), _trunk_columns(network), "trunk"),
    }
    with torch.no_grad():
        for name, tensor in network.state_dict().items():
            if name in grown:
                tensor.zero_()
                new, source = grown[name]
                tensor[:, new] = old[name][:, source]
            elif tensor.shape == old[name].shape:
                tensor.copy_(old[name])
            else:
                raise ValueError(f"warm start: {name} has shape {tuple(old[name].shape)} in the trained network, "
                                 f"{tuple(tensor.shape)} here")  # fmt: skip
    return network


def _column_sources(
    trained: list[tuple], network: list[tuple], layer: str
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(new, source)`` index pairs: ``network``'s column ``new[k]`` reads what ``trained``'s
    column ``source[k]`` read (columns named by what they read, in ``_card_columns``' terms)."""
    where = {name: k for k, name in enumerate(network)}
    missing = [name for name in trained if name not in where]
    if missing:
        raise ValueError(
            f"warm start: the trained network's {layer} layer reads {_described(missing[0])}, which this "
            f"network's does not ({len(missing)} such input columns)"
        )
    return torch.tensor([where[name] for name in trained]), torch.arange(len(trained))


def _described(name: tuple) -> str:
    """A column's name (``_card_columns``, ``_trunk_columns``) in words; a card column by what it reads
    of the first card."""
    kind, index = name[0] if isinstance(name[0], tuple) else name
    return {
        "core": f"observation column {index} (the core's)",
        "belief": f"observation column {index} (a belief piece)",
        "after": f"column {index} after the observation",
        "embedding": f"card embedding {index}",
        "pooled": f"pooled card column {index}",
    }[kind]


def _card_columns(network: ActorCritic) -> list[tuple]:
    """What each input column of the card encoder's first layer reads: per card, an observation
    column, or one of the columns after the observation (``ActorCritic.card_features``), then the
    card's embedding."""
    C, size = network.C, network.obs_size
    sources = network.card_columns.view(C, -1).T.tolist()  # [feature][card]
    named = [tuple(_source_name(index, size, network.game) for index in column) for column in sources]
    return named + [("embedding", k) for k in range(network.settings.card_embedding)]


def _trunk_columns(network: ActorCritic) -> list[tuple]:
    """What each input column of the trunk's first layer reads: observation columns, then the pooled
    cards and the unseen shares (``ActorCritic.forward``)."""
    size = network.obs_size
    pooled = network.trunk[0].in_features - len(network.trunk_columns)
    return [_source_name(int(i), size, network.game) for i in network.trunk_columns] + [
        ("pooled", k) for k in range(pooled)
    ]


def _source_name(index: int, obs_size: int, game: core.GameConfig) -> tuple:
    """An observation column by its place: the core's columns are the same in every network of a game,
    the belief pieces follow them, and the columns after the observation are counted from its end."""
    if index >= obs_size:
        return ("after", index - obs_size)
    return ("core", index) if index < core.observation_size(game) else ("belief", index)
