"""With auto_refute, the rules summary a language model reads promises only what its text view shows."""

from __future__ import annotations

import numpy as np
from scripted import ENVELOPE, HANDS, act, written_game

from cluedo_env import core
from cluedo_env.text import rules_summary, text_view
from cluedo_env.transcript import player_name

CONFIG = core.GameConfig(num_players=4, board="none", start_player="scarlet", auto_refute=True)


def test_an_automatic_show_reads_like_a_decided_one_and_the_rules_say_so():
    """P1 holds two of P0's named cards and decides which to show; P3 holds one of P1's and shows it
    without a step of its own. P2 sees both shows in the same words, and the rules do not promise more."""
    state = written_game(CONFIG, ENVELOPE, HANDS)
    steps = []

    def play(kind, *args):
        act(state, kind, *args)
        steps.append(state.step_events(0).copy())

    play("enter", "Kitchen")
    play("suggest", "Colonel Mustard", "Dagger")  # P1 holds both
    assert int(state.current_player[0]) == 1  # P1 decides which to show
    play("show", "Dagger")
    play("end_turn")
    play("enter", "Dining Room")
    play("suggest", "Reverend Green", "Candlestick")  # P2 holds neither, P3 only Reverend Green
    assert int(state.current_player[0]) == 1  # P3 showed it in P1's step, without a decision
    text = text_view(state, 2, np.concatenate(steps))
    decided = f"- {player_name(CONFIG, 1)} shows a card to {player_name(CONFIG, 0)}"
    automatic = f"- {player_name(CONFIG, 3)} shows a card to {player_name(CONFIG, 1)}"
    assert [line for line in text.splitlines() if " shows " in line] == [decided, automatic]

    summary = rules_summary(CONFIG)
    assert "shows it without being asked; the history does not say which shows were automatic." in summary
    assert "everybody knows" not in summary
    assert "without being asked" not in rules_summary(CONFIG.replace(auto_refute=False))
