"""With stay_in_room=False, the rules summary a language model reads says what the core allows: a pawn
brought into a room by another player's suggestion may stay there and suggest."""

from __future__ import annotations

from cluedo_env import core
from cluedo_env.text import rules_summary, text_view
from tests.scripted import CLASSIC, ENVELOPE, HANDS, act, legal_kinds, room, written_game

STRICT = CLASSIC.replace(stay_in_room=False)
BROUGHT = "unless another player's suggestion brought your pawn there since your last turn"


def test_a_pawn_brought_by_a_suggestion_may_stay_and_the_summary_says_so():
    state = written_game(STRICT, ENVELOPE, HANDS)
    state.location[0, 0] = room(STRICT, "Kitchen")
    steps = [act(state, "passage")]  # Scarlet: Kitchen -> Study
    steps.append(act(state, "suggest", "Colonel Mustard", "Rope"))  # Mustard's pawn brought to the Study
    act(state, "show", "Colonel Mustard")
    act(state, "end_turn")
    assert int(state.turn_player[0]) == 1 and "stay" in legal_kinds(state)  # the core lets her stay
    assert "stay in the room" in text_view(state, 1, state.events[0])

    summary = rules_summary(STRICT)
    assert "you must leave your room before suggesting again, " + BROUGHT in summary
    assert "then you may stay and suggest there." in summary


def test_the_default_summary_says_what_it_said():
    line = rules_summary(CLASSIC).splitlines()[2]
    assert line.endswith(
        "from a corner room you may take the secret passage instead of rolling; "
        "you may stay in your room to suggest again."
    )
    assert BROUGHT not in rules_summary(CLASSIC)
    assert BROUGHT not in rules_summary(STRICT.replace(board="none"))  # no movement: any room, any turn


def test_the_summary_changes_only_where_staying_is_told():
    default, strict = rules_summary(CLASSIC).splitlines(), rules_summary(STRICT).splitlines()
    assert len(default) == len(strict) and [a == b for a, b in zip(default, strict)].count(False) == 1
    assert core.GameConfig().stay_in_room  # the default is the one whose text stays as it was
