"""Card names made of articles alone: a custom edition's room "Den" (or "The Den"), weapon "La" or suspect
"Das" keeps that word, so a reply names the card; no built-in edition keeps an article. "A", "an" and "the"
are never kept: an edition with a card that then reads as no word ("A"), or two that read the same ("Den"
and "The Den"), is refused for play in words."""

from __future__ import annotations

import numpy as np
import pytest
from test_text import random_states

from agents.human import HumanAgent
from agents.llm.llm_agent import LLMAgent
from cluedo_env import cluedo_v0, core, reply_words
from cluedo_env.commands import CommandError, command, legal_commands_text, parse_command
from cluedo_env.core.editions import EDITIONS, Edition
from cluedo_env.text_env import text_env

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


LETTERS = ("A", "B", "C", "D", "E", "F")
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
WEAPONS = ("Rope", "Knife", "Pipe", "Gun", "Axe", "Bat")
NINE_ROOMS = (*ROOMS, "Hall", "Study")


def letters_deck(suspects=LETTERS, rooms=NINE_ROOMS) -> core.GameConfig:
    """Three players of a deck of ``suspects`` (letters), ``WEAPONS`` and ``rooms``, on no board."""
    edition = Edition("letters", suspects, WEAPONS, rooms, (0, 1, 2, 3, 4, 5))
    return core.GameConfig(edition=edition, num_players=3, board="none")


def refusals(config: core.GameConfig) -> list[str]:
    """What each way of playing ``config`` in words says of it: the text env made, a reply read, the human
    and the llm agent's config check (each a ``ValueError``, none a ``CommandError``)."""
    everything = np.ones(core.ActionLayout(config).num_actions, dtype=bool)
    messages = []
    for play in (
        lambda: text_env(edition=config.edition, num_players=3, board="none"),
        lambda: parse_command(config, "roll a die", everything),
        lambda: HumanAgent().check_config(config),
        lambda: LLMAgent(base_url="http://127.0.0.1:9/v1", api_key_env=None).reset(config, np.array([0])),
    ):
        with pytest.raises(ValueError) as error:
            play()
        assert not isinstance(error.value, CommandError)
        messages.append(str(error.value))
    return messages


@pytest.mark.parametrize("name", ["A", "An", "The", "The A", "a!"])
def test_a_card_named_by_english_articles_alone_is_refused_for_play_in_words(name):
    config = letters_deck(suspects=(name, *LETTERS[1:]))
    assert reply_words.kept_articles(config) == frozenset()  # "a" would be a card word in every reply
    for message in refusals(config):
        assert message == (
            f"card name {name!r} reads as no word in a reply (a reply is read by its letters and digits, in any "
            "script, accents dropped, and without the articles 'a', 'an' and 'the'): give it a name with "
            "another word"
        )
    cluedo_v0.raw_env(edition=config.edition, num_players=3, board="none").reset(seed=0)  # played by numbers


def test_a_room_named_the_is_refused_not_read_in_go_to_the_kitchen():
    (message,) = set(refusals(letters_deck(NAMES, rooms=(*ROOMS, "The", "Study"))))
    assert message.startswith("card name 'The' reads as no word in a reply")


@pytest.mark.parametrize(
    ("first", "second"), [("Den", "The Den"), ("Study", "The Study"), ("Hall", "La Hall")]
)
def test_two_cards_that_read_the_same_without_articles_are_refused(first, second):
    rooms = [room for room in NINE_ROOMS if room not in (first, second)]
    config = letters_deck(NAMES, rooms=(*rooms[:7], first, second))
    for message in refusals(config):
        assert message == (
            f"cards {first!r} and {second!r} read the same in a reply once articles, case, accents and "
            "punctuation are dropped: give one of them another name"
        )


def test_replies_with_english_articles_are_read_beside_a_card_named_la():
    config = edition_with("Den")  # a weapon "La": its word is kept, "a" is not
    layout = core.ActionLayout(config)
    everything = np.ones(layout.num_actions, dtype=bool)
    assert "a" not in reply_words.kept_articles(config)
    assert parse_command(config, "roll a die", everything) == layout.encode("roll")
    bob_with_the_axe = layout.encode("suggest", 1, 0)
    assert parse_command(config, "suggest Bob with a Axe", everything, room=0) == bob_with_the_axe
    assert parse_command(config, "I suggest Bob with an Axe", everything, room=0) == bob_with_the_axe
    assert parse_command(config, "I'll show a card: the Axe.", everything) == layout.encode("show", 6)
    assert parse_command(config, "Let me go to the Kitchen", everything) == layout.encode("enter", 0)


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_built_in_edition_names_each_of_its_cards_in_a_reply(edition):
    for players in range(2, min(6, EDITIONS[edition].num_suspects) + 1):
        config = core.GameConfig(edition=edition, num_players=players, duel=players == 2)
        aliases = reply_words.card_names(config).aliases
        for card, name in enumerate(config.cards.cards):
            assert aliases[tuple(reply_words.normalise(name, config))] == card
        HumanAgent().check_config(config)
