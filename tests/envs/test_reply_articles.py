"""Card names made of articles alone: a custom edition's room "Den" (or "The Den"), weapon "La" or suspect
"Das" keeps that word, so a reply names the card; no built-in edition keeps an article."""

from __future__ import annotations

import numpy as np
import pytest
from test_text import random_states

from cluedo_env import core, reply_words
from cluedo_env.commands import CommandError, command, legal_commands_text, parse_command
from cluedo_env.core.editions import EDITIONS, Edition

ROOMS = ("Kitchen", "Ballroom", "Conservatory", "Dining Room", "Billiard Room", "Library", "Lounge")
DEN = 3  # the Den's index among the rooms, for the Dining Room
DENS = ["Den", "The Den"]


def edition_with(den: str) -> core.GameConfig:
    """Three players on the classic board with the room ``den`` for the Dining Room, a room "The Hall", a
    weapon "La" and a suspect "Das"."""
    edition = Edition(
        "articles",
        ("Ann", "Bob", "Cy", "Das", "Eve", "Fay"),
        ("Axe", "Bat", "La", "Dart", "Eel", "Fan"),
        (*ROOMS[:DEN], den, *ROOMS[DEN + 1 :], "The Hall", "Study"),
        (0, 1, 2, 3, 4, 5),
    )
    return core.GameConfig(edition=edition, num_players=3)


@pytest.mark.parametrize("den", DENS)
def test_a_room_named_den_is_named_in_a_reply(den):
    config = edition_with(den)
    layout = core.ActionLayout(config)
    everything = np.ones(layout.num_actions, dtype=bool)
    for reply in ("go to the Den", "enter Den", "Go to the den.", "Final answer: enter the Den"):
        assert parse_command(config, reply, everything) == layout.encode("enter", DEN), reply
    with pytest.raises(CommandError, match="Name exactly one room"):
        parse_command(config, "enter", everything)  # "enter" alone was "enter the Den"
    suggestion = "I suggest Ann with the Axe in the Den"
    assert parse_command(config, suggestion, everything, room=DEN) == layout.encode("suggest", 0, 0)
    with pytest.raises(CommandError, match="Den"):
        parse_command(config, suggestion, everything, room=0)  # the pawn is in the Kitchen
    accusation = "I accuse Ann with the Axe in the Den"
    assert parse_command(config, accusation, everything) == layout.encode("accuse", 0, 0, DEN)


def test_cards_named_la_and_das_are_named_in_a_reply():
    config = edition_with("Den")
    layout = core.ActionLayout(config)
    everything = np.ones(layout.num_actions, dtype=bool)
    das, la = config.cards.cards.index("Das"), config.cards.cards.index("La")
    suggestion = layout.encode("suggest", das, la - config.cards.num_suspects)
    assert parse_command(config, "suggest Das with the La", everything) == suggestion
    assert parse_command(config, "show La", everything) == layout.encode("show", la)
    assert parse_command(config, "I show Das.", everything) == layout.encode("show", das)


@pytest.mark.parametrize("den", DENS)
def test_only_the_word_of_a_name_of_articles_alone_is_kept(den):
    config = edition_with(den)
    assert reply_words.kept_articles(config) == {"den", "la", "das"}
    assert reply_words.normalise("Go to THE Den, la!", config) == ["go", "to", "den", "la"]
    assert reply_words.normalise("Go to THE Den, la!") == ["go", "to"]  # without the game, as before
    assert reply_words.card_names(config).aliases[("hall",)] == config.cards.cards.index("The Hall")


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_no_built_in_edition_keeps_an_article(edition):
    config = core.GameConfig(edition=edition, num_players=3)
    assert reply_words.kept_articles(config) == frozenset()
    every_article = " ".join(sorted(reply_words.ARTICLES)) + " Salle de bal, der Dolch; go to the Hall"
    assert reply_words.normalise(every_article, config) == reply_words.normalise(every_article)


@pytest.mark.parametrize("den", DENS)
def test_every_legal_command_of_an_edition_with_a_den_parses_to_its_action(den):
    config = edition_with(den)
    layout = core.ActionLayout(config)
    everything = np.ones(layout.num_actions, dtype=bool)
    for action in range(layout.num_actions):
        assert parse_command(config, command(config, action), everything) == action
    entered = False
    for state, _, mask in random_states(config, games=2, steps=160):
        for g in np.flatnonzero(~state.done):
            room = int(state.location[g, int(state.current_player[g])])
            listed = legal_commands_text(config, mask[g]).splitlines()
            for action in np.flatnonzero(mask[g]):
                form = layout.decode(action)[0] in ("suggest", "accuse")  # may be listed as a form
                assert form or f"- {command(config, action)}" in listed
                assert parse_command(config, command(config, action), mask[g], room=room) == action
                entered |= bool(action == layout.encode("enter", DEN))
    assert entered  # the Den's own command was among them
