"""Helpers for scripted games: a deal written in the test, pawns placed by hand, actions by name."""

from __future__ import annotations

import numpy as np

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.board import classic_board
from cluedo_env.core.state import ENVELOPE as IN_ENVELOPE
from cluedo_env.core.state import FACE_DOWN

# The four-player classic game most scripted tests play: Scarlet starts.
CLASSIC = core.GameConfig(num_players=4, start_player="scarlet")
ENVELOPE = ("Mrs Peacock", "Rope", "Library")
HANDS = [
    ["Miss Scarlet", "Candlestick", "Kitchen", "Ballroom"],
    ["Colonel Mustard", "Dagger", "Conservatory", "Dining Room"],
    ["Mrs White", "Lead Pipe", "Billiard Room", "Lounge", "Professor Plum"],
    ["Reverend Green", "Revolver", "Wrench", "Hall", "Study"],
]


def written_game(
    config: core.GameConfig,
    envelope: tuple[str, str, str],
    hands: list[list[str]],
    first: int = 0,
    face_down: dict[str, str] | None = None,
    seed: int = 0,
) -> core.State:
    """One game whose deal is the one written in the test (names of the config's edition)."""
    e = config.cards
    state = core.init(config, [seed])
    owner = np.full(e.num_cards, -9, dtype=np.int8)
    for card in envelope:
        owner[e.card_id(card)] = IN_ENVELOPE
    for player, hand in enumerate(hands):
        for card in hand:
            owner[e.card_id(card)] = player
    state._face_down[0] = -1
    for room, card in (face_down or {}).items():
        owner[e.card_id(card)] = FACE_DOWN
        state._face_down[0, e.rooms.index(room)] = e.card_id(card)
    assert (owner != -9).all(), f"cards not placed: {[e.cards[c] for c in np.flatnonzero(owner == -9)]}"
    state._owner[0] = owner
    state._envelope[0] = [e.card_id(c) for c in envelope]
    state.turn_player[0] = state.current_player[0] = first
    return state


def square(row: int, col: int) -> int:
    """The location of the square at (row, col) of the classic board."""
    board = classic_board()
    index = int(board.square_index[row, col])
    assert index >= 0, f"({row},{col}) is not a playable square"
    return board.num_rooms + index


def room(config: core.GameConfig, name: str) -> int:
    return config.cards.rooms.index(name)


def act(state: core.State, kind: str, *args: int | str) -> list[ev.Event]:
    """Play one action given by kind and card names / indices in every game; return game 0's events."""
    e = state.config.cards
    layout = core.rules_for(state.config).layout
    resolved = []
    for value in args:
        if isinstance(value, str):
            card = e.card_id(value)
            category = e.category(card)
            resolved.append(
                card
                if kind == "show"
                else card - (0, e.num_suspects, e.num_suspects + e.num_weapons)[category]
            )
        else:
            resolved.append(value)
    core.step(state, [layout.encode(kind, *resolved)] * state.batch_size)  # the same action in every game
    return events(state)


def events(state: core.State, game: int = 0) -> list[ev.Event]:
    """The events of a game's last step, by name (an ``Event`` equals its row as a tuple)."""
    return ev.read_events(state.step_events(game))


def kinds(state: core.State, game: int = 0) -> list[str]:
    return [event.name for event in events(state, game)]


def legal(state: core.State, game: int = 0) -> set[str]:
    """The legal actions of a game as readable strings."""
    layout = core.rules_for(state.config).layout
    mask = core.legal_action_mask(state)[game]
    return {layout.action_to_string(int(a)) for a in np.flatnonzero(mask)}


def legal_kinds(state: core.State, game: int = 0) -> set[str]:
    layout = core.rules_for(state.config).layout
    mask = core.legal_action_mask(state)[game]
    return {layout.decode(int(a))[0] for a in np.flatnonzero(mask)}
