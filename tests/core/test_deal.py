"""The deal (docs/RULES.md, Set-up): how many rooms each seat is dealt, against a uniform shuffle.

Over many seeds, the number of rooms in each seat's hand (and among the duel's face-down cards) has
the hypergeometric mean of a uniform shuffle of the cards left after the envelope. ``deal="uniform"``
meets it; ``deal="keys"``, the default kept so that every published game replays, is the control: it
deals the cards in the order of the keys whose largest of each category filled the envelope, so the
leftover rooms, one of nine removed, come later than the suspects and weapons, one of six, and the
last seats get more of them. The seeds are fixed: each check gives the same verdict every run.
"""

from __future__ import annotations

import numpy as np
import pytest

from cluedo_env import core

DEALS = 131_072  # per config: the keys deal's bias is about 7 standard errors here with 3 players
BATCH = 4_096


def room_counts(config: core.GameConfig) -> np.ndarray:
    """``int[DEALS, P + 1]``: rooms dealt to each seat, and (last column) rooms face down, per seed."""
    rooms = np.arange(config.cards.num_cards) >= config.cards.num_suspects + config.cards.num_weapons
    counts = []
    for first in range(0, DEALS, BATCH):
        state = core.init(config, np.arange(first, first + BATCH))
        owner = state._owner  # [B, C]: the player holding each card, or the envelope / face down (hidden)
        seats = [(owner == p)[:, rooms].sum(1) for p in range(config.num_players)]
        counts.append(np.stack([*seats, (owner == core.FACE_DOWN)[:, rooms].sum(1)], axis=1))
    return np.concatenate(counts)


def z_scores(config: core.GameConfig) -> np.ndarray:
    """Each column's mean against a uniform shuffle's (hypergeometric), in standard errors."""
    e = config.cards
    left, rooms_left = e.num_cards - 3, e.num_rooms - 1
    counts = room_counts(config)
    dealt, P = left - config.num_face_down, config.num_players
    held = np.array([*((dealt + P - 1 - p) // P for p in range(P)), config.num_face_down])  # cards of each
    mean = held * rooms_left / left
    var = held * (rooms_left / left) * (1 - rooms_left / left) * (left - held) / (left - 1)
    keep = held > 0
    return (counts.mean(0)[keep] - mean[keep]) / np.sqrt(var[keep] / len(counts))


CONFIGS = [core.GameConfig(num_players=3), core.GameConfig(num_players=2, duel=True)]


@pytest.mark.parametrize("config", CONFIGS, ids=["3 players", "duel"])
def test_the_uniform_deal_gives_every_seat_its_share_of_rooms(config):
    z = z_scores(config.replace(deal="uniform"))
    assert np.abs(z).max() < 4, z


@pytest.mark.parametrize("config", CONFIGS, ids=["3 players", "duel"])
def test_the_keys_deal_does_not_the_control(config):
    z = z_scores(config)  # deal="keys", the default
    assert config.deal == "keys" and np.abs(z).max() > 4, z


def test_files_write_the_deal_only_where_it_is_not_the_default():
    """Records, tasks and run hashes written before the field existed meant "keys": a default config
    writes no ``deal`` (its files stay the same bytes), a uniform one does and reads back."""
    from cluedo_env.game_record import config_from_json, config_to_json

    assert "deal" not in config_to_json(core.GameConfig())
    uniform = core.GameConfig(num_players=3, deal="uniform")
    assert config_to_json(uniform)["deal"] == "uniform"
    assert config_from_json(config_to_json(uniform)) == uniform
    with pytest.raises(ValueError, match=r"deal must be one of \['keys', 'uniform'\], got 'shuffled'"):
        core.GameConfig(deal="shuffled")
