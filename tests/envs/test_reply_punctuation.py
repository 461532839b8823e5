"""Replies in other scripts' punctuation and Latin letters: a full-width, CJK, Greek or Arabic question mark,
full stop, comma or colon reads as its ASCII counterpart (a question still asks for nothing); the Latin letters
that no accent makes (Turkish "ı", Polish "ł", Danish "ø", ...) read as the letters a-z they stand for; and
the invisible characters a card name may hold (zero-width joiners, the soft hyphen) part no word."""

from __future__ import annotations

import numpy as np
import pytest

from cluedo_env import core, reply_words
from cluedo_env.commands import CommandError, final_answer_complete, parse_command
from cluedo_env.core.editions import Edition

ACCUSATION = "Accuse Professor Plum with the Rope in the Hall"


def everything(config: core.GameConfig) -> np.ndarray:
    """Every action of ``config`` legal."""
    return np.ones(core.ActionLayout(config).num_actions, dtype=bool)


def reading(config: core.GameConfig, reply: str) -> tuple | str:
    """What ``parse_command`` reads in ``reply`` with every action legal and the pawn in the first room: the
    action's kind and arguments, or the reason it is refused."""
    try:
        return core.ActionLayout(config).decode(parse_command(config, reply, everything(config), room=0))
    except CommandError as error:
        return error.reason


def deck(suspects, weapons, rooms) -> core.GameConfig:
    """Three players, on no board, of a custom edition of these card names."""
    return core.GameConfig(edition=Edition("custom", suspects, weapons, rooms, (0, 1, 2, 3, 4, 5)),
                           num_players=3, board="none")  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "as_ascii"),
    [
        (f"{ACCUSATION}？", f"{ACCUSATION}?"),  # full-width
        (f"{ACCUSATION}\u037e", f"{ACCUSATION}?"),  # the Greek question mark
        (f"{ACCUSATION}؟", f"{ACCUSATION}?"),  # the Arabic one
        ("Roll？ No。", "Roll? No."),
        ("Roll？No。", "Roll? No."),  # CJK puts no space after its punctuation
        ("No，roll。", "No, roll."),
        ("No、roll।", "No, roll."),
        ("No، roll.", "No, roll."),
        ("I'm not sure。Suggest Plum with the Rope", "I'm not sure. Suggest Plum with the Rope"),
        ("Mustard showed me the Rope earlier.\nFinal answer：suggest Plum with the Wrench",
         "Mustard showed me the Rope earlier.\nFinal answer: suggest Plum with the Wrench"),
        ("Should I accuse Plum with the Rope in the Hall؛ or wait؟",
         "Should I accuse Plum with the Rope in the Hall; or wait?"),
        ("I’m sure… “accuse Professor Plum with the Rope in the Hall？”",
         "I'm sure… \"accuse Professor Plum with the Rope in the Hall?\""),  # ("…" itself is no sentence end)
    ],
)  # fmt: skip
def test_punctuation_of_other_scripts_reads_as_its_ascii_counterpart(reply, as_ascii):
    config = core.GameConfig()
    assert reading(config, reply) == reading(config, as_ascii)


def test_a_question_in_full_width_greek_or_arabic_punctuation_accuses_no_one():
    config = core.GameConfig()
    for mark in ("？", "\u037e", "؟"):
        assert reading(config, ACCUSATION + mark) == (
            "The reply only asks whether to accuse or what to do: give one command"
        ), mark
    assert reading(config, "No，roll。") == ("roll", ())
    assert reading(config, "Final answer：suggest Plum with the Wrench") == ("suggest", (5, 5))


def test_a_final_answer_after_a_full_width_colon_is_complete_in_a_cut_reply():
    assert final_answer_complete("Mustard showed me the Rope.\nFinal answer：roll\nBecause")
    assert not final_answer_complete("Mustard showed me the Rope.\nFinal answer：rol")


TURKISH = deck(
    ("Bayan Kırmızı", "Albay Hardal", "Bayan Beyaz", "Papaz Yeşil", "Bayan Tavuskuşu", "Profesör Mor"),
    ("İp", "Kurşun Boru", "Hançer", "İngiliz Anahtarı", "Şamdan", "Tabanca"),
    ("Mutfak", "Balo Salonu", "Kış Bahçesi", "Yemek Odası", "Bilardo Odası", "Kütüphane", "Salon", "Hol",
     "Çalışma Odası"),
)  # fmt: skip
POLISH = deck(
    ("Pani Szkarłat", "Pułkownik Musztarda", "Pani Biała", "Wielebny Zieleń", "Pani Pawica", "Profesor Śliwka"),
    ("Sznur", "Ołowiana rura", "Sztylet", "Klucz", "Świecznik", "Rewolwer"),
    ("Kuchnia", "Sala balowa", "Oranżeria", "Jadalnia", "Bilard", "Biblioteka", "Salon", "Hol", "Gabinet"),
)  # fmt: skip
DANISH = deck(
    ("Frk Rød", "Oberst Sennep", "Fru Hvid", "Pastor Grøn", "Fru Påfugl", "Professor Blomme"),
    ("Reb", "Blyrør", "Dolk", "Skruenøgle", "Lysestage", "Revolver"),
    ("Køkken", "Balsal", "Vinterhave", "Spisestue", "Billard", "Bibliotek", "Dagligstue", "Hall", "Kontor"),
)


def test_latin_letters_no_accent_makes_read_as_the_letters_a_z_they_stand_for():
    assert reply_words.normalise("Kış Bahçesi") == ["kis", "bahcesi"]
    assert reply_words.normalise("Køkken Ołowiana Æble Œuvre Þór Đakovo Ħamrun") == [
        "kokken", "olowiana", "aeble", "oeuvre", "thor", "dakovo", "hamrun",
    ]  # fmt: skip
    assert reading(TURKISH, "Let's go to the Mutfak") == ("enter", (0,))
    for reply in ("go to the KIŞ BAHÇESİ", "go to the Kis Bahcesi"):
        assert reading(TURKISH, reply) == ("enter", (2,)), reply
    reply = "accuse Albay Hardal with the Kursun Boru in the Calisma Odasi"
    assert reading(TURKISH, reply) == ("accuse", (1, 1, 8))
    assert reading(DANISH, "go to the Kokken") == reading(DANISH, "go to the Køkken") == ("enter", (0,))
    assert reading(POLISH, "suggest Musztarda with the Olowiana rura") == ("suggest", (1, 1))


def test_a_letter_of_a_card_name_is_no_short_name_of_it():
    # "Ołowiana rura" once read "o", "owiana", "rura": "the o" named it
    assert reading(POLISH, "suggest Musztarda with the o").startswith("Name exactly one weapon")


def test_invisible_characters_in_a_card_name_or_reply_part_no_word():
    config = deck(("Ann", "Bob", "Cy", "Dee", "Eve", "Fay"), ("Axe", "Bat", "Gun", "Dart", "Eel", "Fan"),
                  ("Ball\u00adroom", "کتاب\u200cخانه", "Hall", "Den", "Spa", "Gym", "Loft", "Attic", "Study"))  # fmt: skip
    for reply in ("go to the Ballroom", "go to the Ball\u00adroom", "go to the Ball\u200droom"):
        assert reading(config, reply) == ("enter", (0,)), reply
    for reply in ("go to the کتابخانه", "go to the کتاب\u200cخانه", "go to the کتـابخانه"):  # tatweel too
        assert reading(config, reply) == ("enter", (1,)), reply
    assert reply_words.normalise("Ball\u200broom") == ["ball", "room"]  # a zero-width space parts words


@pytest.mark.parametrize(
    "reply",
    [
        f"{ACCUSATION}… right?",
        "So I accuse Professor Plum with the Rope in the Hall… correct?",
        f"{ACCUSATION}; isn't it?",
        f"{ACCUSATION}... or should I wait?",
        f"「{ACCUSATION}？」",
        f"私は「{ACCUSATION}？」と考えています。",
        f"« {ACCUSATION} ? »",
        f"{ACCUSATION}？）",
        f"{ACCUSATION}?🤔",
    ],
)
def test_an_accusation_asked_about_or_closed_by_other_quotes_is_no_accusation(reply):
    """A wrong accusation puts the player out: one the reply only asks about is refused, whether the question
    is a tag after a typographic ellipsis ("… right?") or its mark is closed by a Japanese quote, a guillemet
    or an emoji."""
    said = reading(core.GameConfig(num_players=4), reply)
    assert isinstance(said, str), said  # refused: the reason names what is missing


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("Suggest Professor Plum with the Rope… or roll?", "only asks"),
        ("Hmm... I'll roll.", ("roll", ())),
        (f"{ACCUSATION}... I am sure of it.", ("accuse", (5, 4, 7))),
    ],
)
def test_a_typographic_ellipsis_is_no_sentence_end(reply, action):
    said = reading(core.GameConfig(num_players=4), reply)
    assert said == action if isinstance(action, tuple) else action in said, said


@pytest.mark.parametrize(
    "reply",
    [
        f"{ACCUSATION}... right?",
        f"{ACCUSATION} ... correct?",
        f"{ACCUSATION}. Am I right?",
        f"{ACCUSATION}! Does that make sense?",
        f"{ACCUSATION}. Is that right, do you think?",
        f"{ACCUSATION}. N'est-ce pas ?",
        f"{ACCUSATION}.. oder?",
        f"{ACCUSATION}. ¿Verdad?",
        f"{ACCUSATION}. Thoughts?",
        f"{ACCUSATION}. How does that sound?",
        f"{ACCUSATION}. Am I right about the Rope?",
        f"{ACCUSATION}. Does that sound like the right move to you?",
        f"{ACCUSATION}. Should I accuse now or wait for more evidence and another suggestion?",  # long, but weighs
        f"{ACCUSATION}. Right? Thanks!",
        "Final answer: accuse Professor Plum with the Rope in the Hall\nAll other cards have been shown to me during the game\nRight?",
        f"{ACCUSATION}. Ai-je raison ?",
        f"Final answer: {ACCUSATION}... yes?",
        f"Final answer: {ACCUSATION}\nRight?",
        "Final answer: accuse Plum with the Rope in the Hall\nIs that the right call?",
        f"Final answer: **{ACCUSATION}**\n\n(Is that correct?)",
    ],
)
def test_a_reply_that_ends_by_asking_back_does_not_accuse(reply):
    """A reply whose last sentence is a short question ("Right?", "Am I right?") or one that weighs asks whether
    what it said holds: its accusation is not played (a wrong one puts the player out) and the refusal says how
    to accuse."""
    assert reading(core.GameConfig(num_players=4), reply).startswith("To accuse, give the accusation alone")


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        (f"Am I sure? Yes. {ACCUSATION}.", ("accuse", (5, 4, 7))),  # asked before it
        (f"Let me think... Right? {ACCUSATION}.", ("accuse", (5, 4, 7))),
        (f"{ACCUSATION}. Am I sure? Yes, every other card has been shown.", ("accuse", (5, 4, 7))),
        (f"{ACCUSATION}. Who else?", ("accuse", (5, 4, 7))),
        (f"{ACCUSATION}. Who else has the Rope?", ("accuse", (5, 4, 7))),  # a question that names a card
        (f"Final answer: {ACCUSATION}\n\n为什么？因为其他牌都已排除。", ("accuse", (5, 4, 7))),
        (f"{ACCUSATION}... right.", ("accuse", (5, 4, 7))),  # no question
        ("Roll... right?", ("roll", ())),  # only an accusation must be asked plainly
    ],
)
def test_a_reply_that_does_not_end_by_asking_back_reads_as_before(reply, action):
    assert reading(core.GameConfig(num_players=4), reply) == action
