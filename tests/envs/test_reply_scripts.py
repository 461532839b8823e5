"""Card names in other scripts than the Latin one: a custom edition's Greek, Cyrillic or Japanese card is
named in a reply ("go to the Кухня"), its accents dropped as Latin ones are; a word in other letters that no
card name has ("我", "谢谢") is dropped, so the built-in editions read every reply as before."""

from __future__ import annotations

import numpy as np
import pytest
from test_reply_articles import refusals

from cluedo_env import core, reply_words
from cluedo_env.commands import CommandError, command, parse_command
from cluedo_env.core.editions import EDITIONS, Edition
from cluedo_env.text_env import text_env

SUSPECTS = ("Κυρία Λευκή", "Борис", "Cy", "Dee", "Eve", "Fay")
WEAPONS = ("Σχοινί", "Нож", "Pipe", "Gun", "Axe", "Bat")
ROOMS = ("Кухня", "Σαλόνι", "キッチン", "Dining Room", "Billiard Room", "Library", "Lounge", "Hall", "Музей")
KUKHNYA, SALONI, KITCHIN, MUZEI = 0, 1, 2, 8


def scripts_deck(rooms=ROOMS) -> core.GameConfig:
    """Three players, on no board, of a deck with Greek, Cyrillic and Japanese card names beside Latin ones."""
    edition = Edition("scripts", SUSPECTS, WEAPONS, rooms, (0, 1, 2, 3, 4, 5))
    return core.GameConfig(edition=edition, num_players=3, board="none")


def everything(config: core.GameConfig) -> np.ndarray:
    """Every action of ``config`` legal."""
    return np.ones(core.ActionLayout(config).num_actions, dtype=bool)


@pytest.mark.parametrize(
    ("reply", "room"),
    [
        ("go to the Кухня", KUKHNYA),
        ("Enter the КУХНЯ.", KUKHNYA),
        ("I'll go to the Σαλόνι", SALONI),
        ("go to the キッチン", KITCHIN),
        ("Final answer: enter the Музей", MUZEI),
    ],
)
def test_a_room_named_in_another_script_is_entered_by_its_name(reply, room):
    config = scripts_deck()
    enter = core.ActionLayout(config).encode("enter", room)
    assert parse_command(config, reply, everything(config)) == enter


def test_greek_and_cyrillic_accents_drop_as_latin_ones_do_in_names_and_replies_alike():
    config = scripts_deck()
    layout = core.ActionLayout(config)
    for reply in ("enter the Σαλονι", "enter the ΣΑΛΌΝΙ"):  # the tonos dropped, as "é" is "e"
        assert parse_command(config, reply, everything(config)) == layout.encode("enter", SALONI), reply
    # "й" is "и" with a breve: it drops to "и" in the card name and in the reply, so both spellings name it
    assert reply_words.normalise("Музей", config) == reply_words.normalise("МУЗЕИ", config) == ["музеи"]
    for reply in ("enter the Музей", "enter the музеи"):
        assert parse_command(config, reply, everything(config)) == layout.encode("enter", MUZEI), reply


def test_every_command_of_an_edition_in_other_scripts_parses_to_its_action():
    config = scripts_deck()
    layout = core.ActionLayout(config)
    for action in range(layout.num_actions):
        assert parse_command(config, command(config, action), everything(config)) == action
    suggestion = layout.encode("suggest", 0, 1)  # Κυρία Λευκή with the Нож, in the Кухня
    for reply in ("I suggest Κυρία Λευκή with the Нож", "suggest Λευκή with the нож"):
        assert parse_command(config, reply, everything(config), room=KUKHNYA) == suggestion, reply
    reply = "I accuse Борис with the Σχοινί in the Σαλόνι"
    assert parse_command(config, reply, everything(config)) == layout.encode("accuse", 1, 0, SALONI)


def test_the_text_env_plays_a_command_naming_a_room_in_another_script():
    env = text_env(edition=scripts_deck().edition, num_players=3, board="none")
    env.reset(seed=0)
    player = int(env.unwrapped.game_state.current_player[0])
    assert "enter the Кухня" in env.last()[-1]["legal_commands"]
    env.step("go to the кухня")
    assert env.unwrapped.game_state.location[0, player] == KUKHNYA


def test_a_word_in_other_letters_that_no_card_name_has_is_dropped():
    config = scripts_deck()
    assert reply_words.script_words(config) == {"κυρια", "λευκη", "борис", "σχοινι", "нож", "кухня",
                                                "σαλονι", "キッチン", "музеи"}  # fmt: skip
    assert reply_words.normalise("我 go to the Кухня, 谢谢!", config) == ["go", "to", "кухня"]
    assert reply_words.normalise("Plum先生 and Мистер Κυρία", config) == ["plum", "and", "κυρια"]
    accusation = core.ActionLayout(config).encode("accuse", 1, 0, SALONI)
    reply = "好的 🙂 I accuse Борис with the Σχοινί in the Σαλόνι 谢谢"
    assert parse_command(config, reply, everything(config)) == accusation


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_the_built_in_editions_read_only_the_letters_a_z_as_before(edition):
    config = core.GameConfig(edition=edition, num_players=3)
    assert reply_words.script_words(config) == frozenset()
    noisy = "好的 🙂 Я думаю Plum先生 — sœur, Σαλόνι: roll the dice, ありがとう"  # "œ" is "oe" (``LETTERS``)
    assert reply_words.normalise(noisy, config) == ["plum", "soeur", "roll", "dice"]


def test_chinese_and_emoji_around_a_command_of_the_classic_game_change_nothing():
    config = core.GameConfig()
    layout = core.ActionLayout(config)
    accusation = layout.encode("accuse", 5, 4, 7)
    for reply in (
        "我 accuse Professor Plum with the Rope in the Hall 谢谢",
        "🙂 accuse Professor Plum with the Rope in the Hall 🎉",
        "最终答案：accuse Professor Plum with the Rope in the Hall",
    ):
        assert parse_command(config, reply, everything(config)) == accusation, reply
    with pytest.raises(CommandError, match="only declines"):  # no word between the negation and its verb
        parse_command(config, "never 现在 就 roll", everything(config))


@pytest.mark.parametrize("name", ["🏠", "?!", "—", "The 🏠"])
def test_a_card_named_by_punctuation_or_emoji_alone_is_refused_for_play_in_words(name):
    for message in refusals(scripts_deck(rooms=(*ROOMS[:-1], name))):
        assert message == (
            f"card name {name!r} reads as no word in a reply (a reply is read by its letters and digits, in any "
            "script, accents dropped, and without the articles 'a', 'an' and 'the'): give it a name with "
            "another word"
        )
