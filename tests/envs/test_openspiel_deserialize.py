"""``python_cluedo``'s ``deserialize_state`` on text that is not a state it wrote: each refusal is a
``ValueError`` naming the line, counted from 1 as an editor counts."""

from __future__ import annotations

import re

import pytest

pyspiel = pytest.importorskip("pyspiel")

import cluedo_env.openspiel_game  # noqa: E402, F401  (registers python_cluedo)


@pytest.fixture
def game():
    return pyspiel.load_game("python_cluedo", {"players": 3, "board": "none", "max_turns": 4})


def first_outcome(game) -> int:
    """A chance outcome the first deal takes (the envelope's suspect)."""
    return game.new_initial_state().chance_outcomes()[0][0]


@pytest.mark.parametrize("line", ["²", "٣", "+5", "-1", "5.0"])
def test_a_line_that_is_not_ascii_digits_is_refused_by_its_number(game, line):
    """A superscript two passed ``isdigit`` and reached ``int``'s own message; an Arabic-Indic three
    passed both and was read as 3; lines were counted from 0."""
    with pytest.raises(
        ValueError, match=rf"one action id \(below 405\) a line; line 2 is {re.escape(repr(line))}"
    ):
        game.deserialize_state(f"{first_outcome(game)}\n{line}\n")


def test_an_action_the_state_refuses_names_its_line(game):
    """An outcome the second deal cannot take (the suspect again, on line 3 after a blank line, which
    is passed over but counted) names its line, then the state's own reason."""
    suspect = first_outcome(game)
    with pytest.raises(
        ValueError,
        match=rf"^line 3 of the python_cluedo state \({suspect}\): chance outcome {suspect} is not",
    ):
        game.deserialize_state(f"{suspect}\n\n{suspect}\n")
    state = game.new_initial_state()
    state.apply_action(suspect)
    assert game.deserialize_state(f" {suspect} \n\n").history() == state.history()  # spaces, blank lines
