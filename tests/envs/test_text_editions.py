"""The game in words beyond the classic rules: a custom edition's letters in the text env's space, and the
duel's rules summary, which names the rooms its face-down cards lie on and says how one is looked at
(checked against the core on a scripted duel)."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.editions import EDITIONS, Edition
from cluedo_env.text import rules_summary
from cluedo_env.text_env import CHARSET, text_charset, text_env
from tests.scripted import act, events, room, written_game

SMALL = Edition(
    "mini",
    ("Ann", "Bob", "Cy", "Dee"),
    ("Axe", "Bat", "Cord"),
    ("Attic", "Barn", "Cellar", "Den", "Åsgard"),
    (0, 1, 2),
)
# What api_test says of any env whose observations are dicts and whose action space is not Discrete.
TEXT_ENV_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably",
    "Action space for each agent probably",
    "Action mask numpy array is all zeros",
)


def test_a_custom_editions_letters_are_in_its_text_space():
    env = text_env(edition=SMALL, num_players=3, board="none")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert "Åsgard" in observation["text"]  # "enter the Åsgard", at least
    assert "Å" not in CHARSET
    assert env.observation_space(env.agent_selection).contains(observation)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(text_env(edition=SMALL, num_players=3, board="none"), num_cycles=100)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(TEXT_ENV_WARNINGS)}
    assert not unexpected, unexpected


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_built_in_editions_text_space_is_as_it_was(edition):
    env = text_env(edition=edition, num_players=3)
    assert set(env.observation_space("player_0")["text"].character_set) == CHARSET
    assert text_charset(env.config) == CHARSET


DUEL = core.GameConfig.preset("de_2023_duel", start_player="scarlet")
ENVELOPE = ("Professor Bloom", "Dolch", "Halle")
HANDS = [
    ["Lady Gloria", "Köchin Weiß", "Leuchter", "Rohrzange", "Musikzimmer", "Billardzimmer", "Bibliothek"],
    ["Oberst von Gatow", "Bürgermeister Grün", "Heizungsrohr", "Pistole", "Speisezimmer", "Seil", "Salon"],
]
FACE_DOWN = {
    "Küche": "Anwältin Porz",
    "Wintergarten": "Wintergarten",
    "Salon": "Arbeitszimmer",
    "Arbeitszimmer": "Küche",
}
ROOMS = "one on each of the Küche, the Wintergarten, the Salon and the Arbeitszimmer"


@pytest.mark.parametrize("board", ["classic", "none"])
def test_the_duels_summary_names_the_rooms_of_the_face_down_cards(board):
    summary = rules_summary(DUEL.replace(board=board))
    assert f"except 4 that lie face down, {ROOMS}" in summary
    assert ("(the corner rooms)" in summary) == (board == "classic")  # no board, no corners
    assert "nobody shows them when asked" in summary
    assert "face down" not in rules_summary(DUEL.replace(duel=False, num_players=3))


def peeks(state) -> list[tuple[int, str]]:
    """Who looked at a face-down card in the last step, and in which room."""
    return [(e.player, DUEL.cards.rooms[e.peeked_room]) for e in events(state) if e.kind == ev.PEEK]


def test_without_a_board_the_summary_says_when_a_card_is_looked_at_as_the_core_does():
    config = DUEL.replace(board="none")
    summary = rules_summary(config)
    assert (
        "Going to one of these rooms, or being brought there by the other player's suggestion, lets you look "
        "at the face-down card lying there; choosing the room you are already in does not."
    ) in summary
    state = written_game(config, ENVELOPE, HANDS, face_down=FACE_DOWN)
    act(state, "enter", room(config, "Küche"))  # going to it: she looks
    assert peeks(state) == [(0, "Küche")]
    act(state, "suggest", "Oberst von Gatow", "Seil")  # his pawn brought to the Küche: he looks too
    assert peeks(state) == [(1, "Küche")]
    act(state, "show", "Seil")
    act(state, "end_turn")
    act(state, "enter", room(config, "Küche"))  # choosing the room he is in: no new look
    assert peeks(state) == []
    act(state, "no_suggestion")
    act(state, "end_turn")
    act(state, "enter", room(config, "Salon"))
    assert peeks(state) == [(0, "Salon")]
