"""Where the text view says a pawn is: "in the Kitchen", "on square (7,16)", or "off the board"."""

from __future__ import annotations

from cluedo_env import core
from cluedo_env.core.state import Phase
from cluedo_env.text import text_view


def first_view(config: core.GameConfig) -> str:
    state = core.init(config, [0])
    assert state.phase[0] == Phase.TURN
    player = int(state.current_player[0])
    return text_view(state, player, state.events[0, : state.num_events[0]])


def test_a_pawn_not_yet_in_a_room_is_off_the_board_without_a_board():
    """It read "You are on off the board." (board none)."""
    view = first_view(core.GameConfig(num_players=3, board="none"))
    assert "Now: Your turn. You are off the board. Choose a room to go to, or accuse." in view
    assert "on off" not in view and "Pawns: none in a room yet." in view


def test_a_pawn_on_the_board_is_on_its_square_and_in_a_room_in_it():
    view = first_view(core.GameConfig(num_players=3))
    assert "Now: Your turn. You are on square (" in view
    assert "Pawns: Miss Scarlet on square (" in view
    config = core.GameConfig(num_players=3, board="none")
    state = core.init(config, [0])
    player = int(state.current_player[0])
    state = core.step(state, [core.rules_for(config).layout.encode("enter", 0)])  # into the Kitchen
    log = state.events[0, : state.num_events[0]]
    assert f"{config.cards.suspects[player]} in the Kitchen" in text_view(state, player, log)
