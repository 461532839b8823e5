"""Card deduction (the ``cluedo_env.inference`` package).

One scripted game per rule of docs/RULES.md, "Deductions the rules allow", on a
classic 4-player deal written below; then the SAT ``Notepad`` against
``brute_force`` enumeration on random small games played out against a true
deal, after every record and for every observer.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.editions import Edition, get_edition
from cluedo_env.inference import (
    HELD,
    NOT_HELD,
    UNKNOWN,
    Accusation,
    Deck,
    Knowledge,
    Notepad,
    OwnHand,
    Record,
    Seen,
    Setup,
    Suggestion,
    brute_force,
    deduce,
    deduce_named,
)
from cluedo_env.inference.from_events import deduce_from_events, setup_of
from tests.scripted import act, room, written_game

EDITION = get_edition("classic")
SUSPECTS, WEAPONS, ROOMS = EDITION.suspects, EDITION.weapons, EDITION.rooms
CARD = {name: card for card, name in enumerate(SUSPECTS + WEAPONS + ROOMS)}

FR = get_edition("classic_fr")
FR_SUSPECTS, FR_ROOMS = FR.suspects, FR.rooms
FR_WEAPONS = (
    "Chandelier",
    "Poignard",
    "Matraque",
    "Revolver",
    "Corde",
    "Clé anglaise",
)  # not the edition's order

CLASSIC = Deck(6, 6, 9)
GAME = Setup.dealt(CLASSIC, num_players=4)  # hands of 5, 5, 4 and 4 cards
ENVELOPE = GAME.envelope


def cards(*names: str) -> tuple[int, ...]:
    return tuple(CARD[name] for name in names)


# The deal of every scripted game.
HANDS = {
    0: cards("Miss Scarlet", "Dagger", "Rope", "Kitchen", "Hall"),
    1: cards("Mrs White", "Revolver", "Conservatory", "Dining Room", "Study"),
    2: cards("Reverend Green", "Wrench", "Billiard Room", "Library"),
    3: cards("Mrs Peacock", "Professor Plum", "Candlestick", "Lounge"),
    ENVELOPE: cards("Colonel Mustard", "Lead Pipe", "Ballroom"),
}
DEAL = {card: owner for owner, held in HANDS.items() for card in held}
MY_HAND = OwnHand(0, HANDS[0])


def know(*records: Record, observer: int = 0) -> Knowledge:
    """The observer's knowledge, checked to be true of the scripted deal."""
    knowledge = deduce(GAME, observer, records)
    for card, owner, holds in knowledge.facts():
        assert (DEAL[card] == owner) == holds, (card, owner, holds)
    return knowledge


def status(knowledge: Knowledge, name: str, owner: int) -> int:
    return int(knowledge.status[CARD[name], owner])


# ---------------------------------------------------------------------------
# One scripted game per deduction rule
# ---------------------------------------------------------------------------


def test_knowing_nothing_but_the_setup_knows_nothing() -> None:
    knowledge = know()
    assert (knowledge.status == UNKNOWN).all()
    assert knowledge.facts() == []
    assert knowledge.solved() is None


def test_own_cards_and_a_shown_card_are_not_in_the_envelope() -> None:
    before = know(MY_HAND)
    assert status(before, "Revolver", ENVELOPE) == UNKNOWN
    knowledge = know(MY_HAND, Seen(CARD["Revolver"], 1))
    for name in ("Miss Scarlet", "Dagger", "Rope", "Kitchen", "Hall", "Revolver"):
        assert status(knowledge, name, ENVELOPE) == NOT_HELD
    assert knowledge.owner_of(CARD["Rope"]) == 0
    assert knowledge.owner_of(CARD["Revolver"]) == 1
    assert CARD["Revolver"] not in knowledge.envelope_candidates()[1]


def test_a_card_shown_to_me_in_my_suggestion_is_held_by_the_shower() -> None:
    # Player 1 holds Mrs White and Revolver and may choose which to show.
    shown = Suggestion(0, cards("Mrs White", "Revolver", "Hall"), shown_by=1, shown_card=CARD["Revolver"])
    knowledge = know(MY_HAND, shown)
    assert knowledge.owner_of(CARD["Revolver"]) == 1
    assert status(knowledge, "Revolver", ENVELOPE) == NOT_HELD


def test_a_face_down_card_looked_at_is_not_in_the_envelope() -> None:
    duel = Setup.dealt(CLASSIC, num_players=2, num_face_down=4)
    assert (duel.hand_sizes, duel.envelope, duel.table, duel.owners) == ((7, 7), -1, -2, (0, 1, -2, -1))
    assert [duel.column(o) for o in duel.owners] == [0, 1, 2, 3] and GAME.column(GAME.envelope) == 4
    knowledge = deduce(duel, 0, [Seen(CARD["Lounge"], duel.table)])
    assert knowledge.owner_of(CARD["Lounge"]) == duel.table
    assert knowledge.status[CARD["Lounge"], duel.envelope] == NOT_HELD
    assert knowledge.status[CARD["Study"], duel.table] == UNKNOWN


def test_a_pass_rules_out_the_three_cards_also_in_others_suggestions() -> None:
    # Player 1 suggests; player 2 passes, player 3 shows (the observer is not told what).
    suggestion = Suggestion(1, cards("Mrs Peacock", "Revolver", "Lounge"), passed=(2,), shown_by=3)
    knowledge = know(MY_HAND, suggestion)
    for name in ("Mrs Peacock", "Revolver", "Lounge"):
        assert status(knowledge, name, 2) == NOT_HELD
        assert status(knowledge, name, 3) == UNKNOWN
        assert status(knowledge, name, 1) == UNKNOWN  # the suggester is not asked


def test_a_player_who_shows_holds_at_least_one_of_the_three() -> None:
    # Player 1 suggests Scarlet-Rope-Library, player 2 shows something to player 1.
    suggestion = Suggestion(1, cards("Miss Scarlet", "Rope", "Library"), shown_by=2)
    alone = know(suggestion)
    assert all(status(alone, name, 2) == UNKNOWN for name in ("Miss Scarlet", "Rope", "Library"))
    # The observer holds Scarlet and Rope: player 2 must have shown the Library.
    knowledge = know(MY_HAND, suggestion)
    assert knowledge.owner_of(CARD["Library"]) == 2
    assert status(knowledge, "Library", ENVELOPE) == NOT_HELD


def test_each_card_is_in_exactly_one_place() -> None:
    knowledge = know(Seen(CARD["Revolver"], 1))
    assert [status(knowledge, "Revolver", owner) for owner in GAME.owners] == [
        NOT_HELD,
        HELD,
        NOT_HELD,
        NOT_HELD,
        NOT_HELD,
    ]


def test_a_player_holds_exactly_their_dealt_number_of_cards() -> None:
    # All four cards of player 2 seen: player 2 holds nothing else.
    seen = [Seen(card, 2) for card in HANDS[2]]
    knowledge = know(MY_HAND, *seen[:3])
    assert status(knowledge, "Mrs Peacock", 2) == UNKNOWN
    knowledge = know(MY_HAND, *seen)
    others = [card for card in range(CLASSIC.num_cards) if card not in HANDS[2]]
    assert (knowledge.status[others, 2] == NOT_HELD).all()


def test_hand_sizes_decide_between_owners() -> None:
    # Player 3 holds 4 cards; after three of them are seen and a fourth one is known to be
    # among three candidates by a show, player 3 holds none of the remaining cards.
    seen = [Seen(card, 3) for card in cards("Mrs Peacock", "Professor Plum", "Candlestick")]
    shown = Suggestion(2, cards("Colonel Mustard", "Lead Pipe", "Lounge"), shown_by=3)
    knowledge = know(MY_HAND, *seen, shown)
    assert status(knowledge, "Study", 3) == NOT_HELD
    assert status(knowledge, "Lounge", 3) == UNKNOWN


def test_the_envelope_holds_exactly_one_card_of_each_category() -> None:
    # Five suspects seen elsewhere: the sixth is in the envelope.
    seen = [Seen(CARD[name], DEAL[CARD[name]]) for name in ("Mrs White", "Reverend Green", "Mrs Peacock")]
    four_known = know(MY_HAND, *seen)
    assert four_known.owner_of(CARD["Colonel Mustard"]) is None
    knowledge = know(MY_HAND, *seen, Seen(CARD["Professor Plum"], 3))
    assert knowledge.owner_of(CARD["Colonel Mustard"]) == ENVELOPE
    assert knowledge.envelope_candidates()[0] == cards("Colonel Mustard")
    assert all(status(knowledge, "Colonel Mustard", player) == NOT_HELD for player in range(4))
    assert knowledge.solved() is None


def test_the_envelope_is_solved_when_each_category_has_one_candidate() -> None:
    records = [MY_HAND]
    records += [Seen(card, owner) for card, owner in DEAL.items() if owner not in (0, ENVELOPE)]
    knowledge = know(*records)
    assert knowledge.solved() == cards("Colonel Mustard", "Lead Pipe", "Ballroom")
    assert (knowledge.status != UNKNOWN).all()


def test_a_wrong_accusation_means_the_three_are_not_all_in_the_envelope() -> None:
    suspects = [Seen(CARD[name], DEAL[CARD[name]]) for name in ("Mrs White", "Reverend Green", "Mrs Peacock")]
    weapons = [Seen(CARD[name], DEAL[CARD[name]]) for name in ("Revolver", "Wrench", "Candlestick")]
    plum = Seen(CARD["Professor Plum"], 3)
    wrong = Accusation(2, cards("Colonel Mustard", "Lead Pipe", "Lounge"), correct=False)
    # Alone, a wrong accusation rules out no single card.
    alone = know(wrong)
    assert all(
        status(alone, name, ENVELOPE) == UNKNOWN for name in ("Colonel Mustard", "Lead Pipe", "Lounge")
    )
    before = know(MY_HAND, *suspects, *weapons, plum)
    assert before.owner_of(CARD["Colonel Mustard"]) == ENVELOPE
    assert before.owner_of(CARD["Lead Pipe"]) == ENVELOPE
    assert status(before, "Lounge", ENVELOPE) == UNKNOWN
    # With suspect and weapon known, the wrong accusation rules out its room.
    knowledge = know(MY_HAND, *suspects, *weapons, plum, wrong)
    assert status(knowledge, "Lounge", ENVELOPE) == NOT_HELD


def test_a_right_accusation_reveals_the_envelope() -> None:
    right = Accusation(3, cards("Colonel Mustard", "Lead Pipe", "Ballroom"), correct=True)
    assert know(right).solved() == cards("Colonel Mustard", "Lead Pipe", "Ballroom")


def test_seed_004_unrefuted_suggestion_with_two_own_cards_isolates_the_suspect() -> None:
    # I hold the Rope and the Kitchen, suggest Mustard-Rope-Kitchen; nobody shows a card.
    unrefuted = Suggestion(0, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(1, 2, 3))
    knowledge = know(MY_HAND, unrefuted)
    assert knowledge.owner_of(CARD["Colonel Mustard"]) == ENVELOPE
    assert knowledge.owner_of(CARD["Kitchen"]) == 0
    assert knowledge.owner_of(CARD["Rope"]) == 0
    assert status(knowledge, "Kitchen", ENVELOPE) == NOT_HELD
    assert status(knowledge, "Rope", ENVELOPE) == NOT_HELD
    assert (CARD["Kitchen"], ENVELOPE, True) not in knowledge.facts()
    assert CARD["Kitchen"] not in knowledge.envelope_candidates()[2]


def test_seed_004_unrefuted_suggestion_says_nothing_about_the_suggesters_cards() -> None:
    # Player 1 holds the Study, suggests Mustard-Lead Pipe-Study; players 2, 3 and 0 pass.
    unrefuted = Suggestion(1, cards("Colonel Mustard", "Lead Pipe", "Study"), passed=(2, 3, 0))
    knowledge = know(MY_HAND, unrefuted)
    for name in ("Colonel Mustard", "Lead Pipe", "Study"):
        assert status(knowledge, name, 1) == UNKNOWN
        assert status(knowledge, name, ENVELOPE) == UNKNOWN
        assert all(status(knowledge, name, player) == NOT_HELD for player in (0, 2, 3))
    assert knowledge.solved() is None


def test_seed_004_after_a_show_the_players_not_asked_are_not_constrained() -> None:
    # Player 1 shows the Revolver at once: players 2 and 3 are not asked.
    shown = Suggestion(0, cards("Mrs White", "Revolver", "Lounge"), shown_by=1, shown_card=CARD["Revolver"])
    knowledge = know(MY_HAND, shown)
    assert status(knowledge, "Revolver", 1) == HELD
    for name in ("Mrs White", "Lounge"):
        assert all(status(knowledge, name, player) == UNKNOWN for player in (1, 2, 3, ENVELOPE))


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------


def test_deduce_named_seed_004_in_french() -> None:
    history = [
        {"hand": ["Mademoiselle Rose", "Poignard", "Corde", "Cuisine", "Hall"]},
        {"suggest": ["Colonel Moutarde", "Corde", "Cuisine"], "by": 0, "passed": [1, 2, 3], "shown_by": None},
    ]
    result = deduce_named(FR_SUSPECTS, FR_WEAPONS, FR_ROOMS, 4, GAME.hand_sizes, 0, history)
    assert result["holds"]["Colonel Moutarde"] == "envelope"
    assert result["holds"]["Cuisine"] == "player 0"
    assert result["envelope"]["suspects"] == ["Colonel Moutarde"]
    assert "Cuisine" not in result["envelope"]["rooms"]
    assert result["not_held"]["Salon"] == ["player 0"]
    assert result["solution"] is None


def test_deduce_named_matches_names_loosely_and_reports_shown_cards() -> None:
    history = [
        {"hand": ["mademoiselle rose", "POIGNARD", "corde", "cuisine", "hall"]},
        {"suggest": ["Madame Leblanc", "Corde", "Veranda"], "by": 0, "shown_by": 1, "card": "Veranda"},
        {"accuse": ["Colonel Moutarde", "Matraque", "Salle de bal"], "by": 2, "correct": True},
        {"seen": "Bureau", "owner": "player 1"},
    ]
    result = deduce_named(FR_SUSPECTS, FR_WEAPONS, FR_ROOMS, 4, GAME.hand_sizes, 0, history)
    assert result["holds"]["Véranda"] == "player 1"
    assert result["holds"]["Bureau"] == "player 1"
    assert result["solution"] == ["Colonel Moutarde", "Matraque", "Salle de bal"]


def test_deduce_named_german_eszett() -> None:
    suspects = (
        "Lady Gloria",
        "Oberst von Gatow",
        "Köchin Weiß",
        "Bürgermeister Grün",
        "Anwältin Porz",
        "Bloom",
    )
    weapons = ("Leuchter", "Heizungsrohr", "Rohrzange", "Pistole", "Seil", "Dolch")
    rooms = ("Küche", "Musikzimmer", "Wintergarten", "Speisezimmer", "Billardzimmer", "Bibliothek", "Salon")
    rooms += ("Halle", "Arbeitszimmer")
    history = [{"seen": "köchin  WEISS", "owner": 2}]
    result = deduce_named(suspects, weapons, rooms, 3, (6, 6, 6), 1, history)
    assert result["holds"] == {"Köchin Weiß": "player 2"}


def test_deduce_named_rejects_an_unknown_card_name_and_lists_the_accepted_ones() -> None:
    history = [
        {"suggest": ["Colonel Mustard", "Candle stick", "Kitchen"], "by": 1, "passed": [2], "shown_by": 3}
    ]
    with pytest.raises(ValueError, match="'Candle stick'") as error:
        deduce_named(SUSPECTS, WEAPONS, ROOMS, 4, GAME.hand_sizes, 0, history)
    assert "Candlestick" in str(error.value) and "Study" in str(error.value)
    with pytest.raises(ValueError, match="accepted forms"):
        deduce_named(SUSPECTS, WEAPONS, ROOMS, 4, GAME.hand_sizes, 0, [{"guess": ["Rope"]}])


def named(*history: dict) -> dict:
    """``deduce_named`` on the scripted classic deal, for observer 0."""
    return deduce_named(SUSPECTS, WEAPONS, ROOMS, 4, GAME.hand_sizes, 0, list(history))


HAND = {"hand": ["Miss Scarlet", "Dagger", "Rope", "Kitchen", "Hall"]}
ACCUSE = ["Colonel Mustard", "Lead Pipe", "Ballroom"]
SUGGEST = ["Mrs White", "Revolver", "Study"]


@pytest.mark.parametrize(
    ("entry", "error", "message"),
    [
        # bool("false") is True: a string would have counted as a right accusation.
        ({"accuse": ACCUSE, "by": 2, "correct": "false"}, TypeError, '"correct" must be true or false'),
        ({"accuse": ACCUSE, "by": 2, "correct": 0}, TypeError, '"correct" must be true or false'),
        ({"accuse": ACCUSE, "by": 2}, ValueError, r"missing keys \['correct'\]"),
        ({"accuse": ACCUSE, "by": 2, "corect": False}, ValueError, r"unknown keys \['corect'\]"),
        ({"suggest": SUGGEST, "by": 0, "shownby": 1}, ValueError, r"unknown keys \['shownby'\]"),
        ({"suggest": SUGGEST, "by": 0, "shown_by": 1, "shown_card": "Study"}, ValueError, "unknown keys"),
        ({"seen": "Study", "owner": 1, "by": 0}, ValueError, r"unknown keys \['by'\]"),
        ({"hand": HAND["hand"], "by": 0}, ValueError, r"unknown keys \['by'\]"),
        ({"suggest": SUGGEST, "accuse": ACCUSE, "by": 1, "correct": False}, ValueError, "several kinds"),
        ({"hand": HAND["hand"], "seen": "Study", "owner": 1}, ValueError, "several kinds"),
        ({"by": 1, "passed": [2]}, ValueError, "no kind"),
        ({"suggest": SUGGEST, "by": True, "shown_by": 2}, TypeError, '"by" must be a player index'),
        ({"suggest": SUGGEST, "by": 1.0, "shown_by": 2}, TypeError, '"by" must be a player index'),
        ({"suggest": SUGGEST, "by": 1, "passed": 2, "shown_by": 3}, TypeError, '"passed" must be a list'),
        ({"suggest": SUGGEST, "by": 1, "passed": ["2"], "shown_by": 3}, TypeError, "player index"),
        ({"hand": "Miss Scarlet"}, TypeError, '"hand" must be a list'),
        ({"seen": "Study", "owner": True}, TypeError, '"owner" must be'),
        # Impossible refutation orders: asked clockwise from the suggester's left, first to refute shows.
        ({"suggest": SUGGEST, "by": 1, "passed": [3], "shown_by": 0}, ValueError, "impossible refutation"),
        ({"suggest": SUGGEST, "by": 1, "shown_by": 3}, ValueError, "impossible refutation"),
        ({"suggest": SUGGEST, "by": 1, "passed": [2, 3, 0], "shown_by": 2}, ValueError, "shown_by"),
        ({"suggest": SUGGEST, "by": 1, "passed": [2]}, ValueError, r"must be \[2, 3, 0\]"),
        ({"suggest": SUGGEST, "by": 1, "passed": [3, 2, 0]}, ValueError, r"must be \[2, 3, 0\]"),
        ({"suggest": SUGGEST, "by": 1, "passed": [2, 3, 0, 1]}, ValueError, r"got \[2, 3, 0, 1\]"),
        ({"suggest": SUGGEST, "by": 1, "shown_by": 2, "card": "Study"}, ValueError, "cannot know"),
    ],
)
def test_deduce_named_refuses_an_entry_outside_the_schema_naming_it(
    entry: dict, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as raised:
        named(HAND, {"seen": "Study", "owner": 1}, entry)
    assert str(raised.value).startswith(f"history entry 2 {entry!r}: ")


def test_deduce_named_error_messages_say_what_is_accepted() -> None:
    with pytest.raises(ValueError, match=r"\['accuse', 'by', 'correct'\]") as error:
        named({"accuse": ACCUSE, "by": 2, "right": True})
    assert '"correct": true | false' in str(error.value)
    with pytest.raises(ValueError, match=r"asked in the order \(2, 3, 0\)"):
        named({"suggest": SUGGEST, "by": 1, "passed": [3], "shown_by": 0})
    with pytest.raises(TypeError, match="history must be a list"):
        named_history = {"hand": HAND["hand"]}
        deduce_named(SUSPECTS, WEAPONS, ROOMS, 4, GAME.hand_sizes, 0, named_history)


def test_deduce_named_takes_json_booleans_and_complete_answers() -> None:
    right = named({"accuse": ACCUSE, "by": 2, "correct": True})
    assert right["solution"] == ACCUSE
    wrong = named({"accuse": ACCUSE, "by": 2, "correct": False})
    assert wrong["solution"] is None and wrong["holds"] == {}
    # Player 1 suggests; 2, 3 and 0 (the observer) pass: nobody showed.
    unrefuted = named(HAND, {"suggest": SUGGEST, "by": 1, "passed": [2, 3, 0], "shown_by": None})
    assert unrefuted["not_held"]["Study"] == ["player 0", "player 2", "player 3"]
    # Player 3 suggests; 0 passes, 1 shows; numpy integers are player indices too.
    shown = named(HAND, {"suggest": SUGGEST, "by": np.int64(3), "passed": [0], "shown_by": np.int8(1)})
    assert "Study" not in shown["holds"]


def test_a_right_accusation_needs_a_boolean() -> None:
    assert Accusation(2, cards(*ACCUSE), correct=np.bool_(True)).correct is True
    assert Accusation(2, cards(*ACCUSE), correct=0).correct is False  # the 0/1 of an event row
    for bad in ("false", "True", 0.0, None, 2):
        with pytest.raises(TypeError, match="correct must be True or False"):
            Accusation(2, cards(*ACCUSE), correct=bad)


def test_the_docstring_examples_run() -> None:
    import doctest
    import importlib
    import pkgutil

    import cluedo_env.inference

    attempted = 0
    for module in pkgutil.iter_modules(cluedo_env.inference.__path__, "cluedo_env.inference."):
        # the examples use the package's public names, as a reader imports them
        result = doctest.testmod(importlib.import_module(module.name), extraglobs=vars(cluedo_env.inference))
        assert result.failed == 0, module.name
        attempted += result.attempted
    assert attempted >= 2


# ---------------------------------------------------------------------------
# From the core's events
# ---------------------------------------------------------------------------


def test_deduce_from_events_counts_the_passes_announced_while_the_refuter_decides() -> None:
    """A pass is a fact as soon as it is announced, before the refuter has chosen what to show."""
    small = Edition("small", ("Red", "Blue", "Green"), ("Rope", "Knife"), ("Hall", "Den", "Attic"), (0, 1))
    config = core.GameConfig(edition=small, board="none", num_players=3, max_turns=12)
    setup = setup_of(config)
    card = small.card_id
    hands = [["Blue", "Den"], ["Red", "Hall"], ["Rope"]]
    state = written_game(config, ("Green", "Knife", "Attic"), hands, first=2)
    # written_game replaces the deal but not the DEAL events of the seed's deal: write them.
    log = [
        (ev.DEAL, player, -1, -1, -1, -1, card(name)) for player, hand in enumerate(hands) for name in hand
    ]
    log += act(state, "enter", room(config, "Hall"))
    log += act(state, "suggest", "Red", "Rope")
    # Player 0 holds none of Red, Rope and Hall and passes; player 1 holds Red and Hall and decides.
    assert [(e.name, e.player) for e in ev.read_events(log) if e.kind == ev.PASS] == [("PASS", 0)]
    assert state.phase[0] == core.Phase.REFUTE and state.current_player[0] == 1

    named = (card("Red"), card("Rope"), card("Hall"))
    passes = Suggestion(2, named, passed=(0,))
    for observer, hand in enumerate(hands):
        own = OwnHand(observer, tuple(card(name) for name in hand))
        knowledge = deduce_from_events(config, observer, np.array(log))
        assert knowledge == brute_force(setup, observer, [own, passes]), observer
        assert knowledge.status[card("Rope"), 0] == NOT_HELD
    # The refuter's own decision step: only the pending pass says player 0 lacks the Rope.
    assert brute_force(setup, 1, [OwnHand(1, (card("Red"), card("Hall")))]).status[card("Rope"), 0] == UNKNOWN

    log += act(state, "show", "Hall")
    shown = Suggestion(2, named, passed=(0,), shown_by=1, shown_card=card("Hall"))
    for observer in (1, 2):
        own = OwnHand(observer, tuple(card(name) for name in hands[observer]))
        assert deduce_from_events(config, observer, np.array(log)) == brute_force(
            setup, observer, [own, shown]
        )


# ---------------------------------------------------------------------------
# Checks, knowledge helpers, notepad life cycle
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(1, 2)), "suggester"),
        (Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(2,), shown_by=2), "shown_by"),
        (Suggestion(1, cards("Colonel Mustard", "Mrs White", "Kitchen")), "one suspect, one weapon"),
        (
            Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), shown_by=2, shown_card=CARD["Rope"]),
            "cannot",
        ),
        (
            Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), shown_by=2, shown_card=CARD["Hall"]),
            "not one",
        ),
        (Suggestion(4, cards("Colonel Mustard", "Rope", "Kitchen")), r"player in \[0, 4\)"),
        (
            Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(3,), shown_by=0),
            r"impossible refutation order .* asked in the order \(2, 3, 0\)",
        ),
        (Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), shown_by=3), "impossible refutation"),
        (Suggestion(1, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(3, 2)), "impossible refutation"),
        (OwnHand(0, cards("Rope", "Kitchen")), "dealt 5 cards"),
        (OwnHand(1, HANDS[1]), "OwnHand of player 1"),
        (Accusation(2, cards("Rope", "Rope", "Kitchen"), correct=False), "one suspect"),
        (Seen(21, 1), r"card must be an int in \[0, 21\)"),
        (Seen(CARD["Rope"], 5), r"owner must be a player in \[0, 4\), -1 = envelope, got 5"),
        (Seen(CARD["Rope"], 4), r"-1 = envelope, got 4"),  # the former code of the envelope
        (Seen(CARD["Rope"], -2), r"-1 = envelope, got -2"),  # no table in this game
    ],
)
def test_malformed_records_are_rejected_with_the_reason(record: Record, message: str) -> None:
    with pytest.raises(ValueError, match=message), Notepad(GAME, 0) as pad:
        pad.add(record)
    with pytest.raises(ValueError, match=message):
        deduce(GAME, 0, [record])


def test_bad_setups_are_rejected() -> None:
    with pytest.raises(ValueError, match="deck has 21"):
        Setup(CLASSIC, 3, (6, 6, 5))
    with pytest.raises(ValueError, match="one entry per player"):
        Setup(CLASSIC, 3, (9, 9))
    with pytest.raises(ValueError, match="number of weapons"):
        Deck(6, 0, 9)
    with pytest.raises(ValueError, match="at most 12 cards"):
        brute_force(GAME, 0, [])


def test_brute_force_enumerates_every_deal() -> None:
    # 2 x 2 x 2 envelopes, then 3 cards dealt one each to 3 players: 8 * 3! deals.
    small = Setup.dealt(Deck(2, 2, 2), 3)
    knowledge = brute_force(small, 0, [])
    assert (knowledge.status == UNKNOWN).all()
    knowledge = brute_force(small, 0, [OwnHand(0, (0,))])
    assert knowledge.owner_of(0) == 0 and knowledge.owner_of(1) == small.envelope
    assert knowledge == deduce(small, 0, [OwnHand(0, (0,))])


def test_inconsistent_records_are_an_error() -> None:
    small = Setup.dealt(Deck(2, 2, 2), 3)
    records = [OwnHand(0, (0,)), Seen(0, 1)]
    with pytest.raises(ValueError, match="no deal is consistent"):
        deduce(small, 0, records)
    with pytest.raises(ValueError, match="no deal is consistent"):
        brute_force(small, 0, records)


def test_knowledge_helpers() -> None:
    knowledge = know(MY_HAND, Suggestion(0, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(1, 2, 3)))
    assert knowledge.status.dtype == np.int8 and knowledge.status.shape == (21, 5)
    assert not knowledge.status.flags.writeable
    assert knowledge.possible_owners(CARD["Rope"]) == (0,)
    assert knowledge.owner_of(CARD["Study"]) is None
    assert (CARD["Colonel Mustard"], ENVELOPE, True) in knowledge.facts()
    assert (CARD["Colonel Mustard"], 1, False) in knowledge.facts()
    suspects, weapons, rooms = knowledge.envelope_candidates()
    assert suspects == cards("Colonel Mustard")
    assert weapons == cards("Candlestick", "Lead Pipe", "Revolver", "Wrench")
    assert len(rooms) == 7
    assert knowledge == Knowledge(GAME, knowledge.status.copy())
    assert knowledge != know(MY_HAND)


def test_notepad_is_incremental_and_caches() -> None:
    with Notepad(GAME, 0) as pad:
        pad.add(MY_HAND)
        first = pad.knowledge()
        assert pad.knowledge() is first
        pad.add(Suggestion(0, cards("Colonel Mustard", "Rope", "Kitchen"), passed=(1, 2, 3)))
        assert pad.knowledge() == know(*pad.records)
        assert pad.knowledge().owner_of(CARD["Colonel Mustard"]) == ENVELOPE
    with pytest.raises(ValueError, match="closed"):
        pad.add(Seen(CARD["Study"], 1))


def test_notepad_pickle_round_trip() -> None:
    pad = Notepad(GAME, 0, [MY_HAND, Suggestion(1, cards("Miss Scarlet", "Rope", "Library"), shown_by=2)])
    knowledge = pad.knowledge()
    copy = pickle.loads(pickle.dumps(pad))
    assert copy.records == pad.records and copy.observer == 0 and copy.setup == GAME
    assert copy.knowledge() == knowledge
    assert pickle.loads(pickle.dumps(knowledge)) == knowledge
    # The copy goes on independently.
    copy.add(Seen(CARD["Mrs White"], 1))
    assert copy.knowledge().owner_of(CARD["Mrs White"]) == 1
    assert pad.knowledge().owner_of(CARD["Mrs White"]) is None
    pad.close()
    copy.close()


# ---------------------------------------------------------------------------
# Differential: Notepad == brute force on random small games
# ---------------------------------------------------------------------------

SMALL_SETUPS = {
    "2-2-2x3": Setup.dealt(Deck(2, 2, 2), 3),
    "2-2-3x3": Setup.dealt(Deck(2, 2, 3), 3),
    "2-3-3x3": Setup.dealt(Deck(2, 3, 3), 3),
    "3-3-3x3": Setup.dealt(Deck(3, 3, 3), 3),
    "2-2-3x4": Setup.dealt(Deck(2, 2, 3), 4),
    "duel-3-3-4": Setup.dealt(Deck(3, 3, 4), 2, num_face_down=2),
    "duel-2-3-4": Setup.dealt(Deck(2, 3, 4), 2, num_face_down=3),
}
LARGER_SETUPS = {
    "3-4-4x3": Setup.dealt(Deck(3, 4, 4), 3),
    "4-4-4x3": Setup.dealt(Deck(4, 4, 4), 3),
    "3-3-4x4": Setup.dealt(Deck(3, 3, 4), 4),
    "duel-3-4-5": Setup.dealt(Deck(3, 4, 5), 2, num_face_down=3),
}


def random_deal(setup: Setup, rng: np.random.Generator) -> np.ndarray:
    """``int[cards]``: the owner of each card, for a uniformly random deal."""
    owner = np.empty(setup.deck.num_cards, dtype=int)
    envelope = [int(rng.choice(category)) for category in setup.deck.categories]
    owner[envelope] = setup.envelope
    rest = rng.permutation([c for c in range(setup.deck.num_cards) if c not in envelope])
    owners = [o for o in setup.owners if o != setup.envelope]
    sizes = [setup.owner_size(o) for o in owners]
    owner[rest] = np.repeat(owners, sizes)
    return owner


def play_random_game(
    setup: Setup, rng: np.random.Generator, num_turns: int, accuse_rate: float = 0.1
) -> tuple[np.ndarray, dict[int, list[Record]]]:
    """A random game played against a true deal, and each player's records of it.

    Each turn the player suggests a random triple; players are asked clockwise
    and the first holding any of the three shows a random one of them, which
    only the suggester and the refuter learn. In the duel variant the player
    may first look at a face-down card. Sometimes the player then accuses a
    random triple; a wrong accuser stops suggesting but still refutes.
    """
    deal = random_deal(setup, rng)
    players = range(setup.num_players)
    views: dict[int, list[Record]] = {p: [] for p in players}
    eliminated: set[int] = set()
    for turn in range(num_turns):
        me = turn % setup.num_players
        if me in eliminated:
            continue
        if setup.table is not None and rng.random() < 0.3:
            face_down = np.flatnonzero(deal == setup.table)
            views[me].append(Seen(int(rng.choice(face_down)), setup.table))
        named = tuple(int(rng.choice(category)) for category in setup.deck.categories)
        passed: list[int] = []
        shown_by = shown_card = None
        for step in range(1, setup.num_players):
            asked = (me + step) % setup.num_players
            matching = [c for c in named if deal[c] == asked]
            if matching:
                shown_by, shown_card = asked, int(rng.choice(matching))
                break
            passed.append(asked)
        for p in players:
            privy = p in (me, shown_by)
            views[p].append(Suggestion(me, named, tuple(passed), shown_by, shown_card if privy else None))
        if rng.random() < accuse_rate:
            accused = tuple(int(rng.choice(category)) for category in setup.deck.categories)
            correct = all(deal[c] == setup.envelope for c in accused)
            for p in players:
                views[p].append(Accusation(me, accused, correct))
            if correct:
                break
            eliminated.add(me)
            if len(eliminated) == setup.num_players:
                break
    for p in players:
        hand = OwnHand(p, tuple(int(c) for c in np.flatnonzero(deal == p)))
        # Mostly the hand comes first; sometimes last, so that much is unknown for long.
        views[p].insert(0 if rng.random() < 0.75 else len(views[p]), hand)
    return deal, views


def check_against_brute_force(setup: Setup, seed: int, num_turns: int) -> None:
    rng = np.random.default_rng(seed)
    deal, views = play_random_game(setup, rng, num_turns)
    for observer, records in views.items():
        with Notepad(setup, observer) as pad:
            for i, record in enumerate(records):
                pad.add(record)
                expected = brute_force(setup, observer, records[: i + 1])
                got = pad.knowledge()
                assert got == expected, (
                    f"seed {seed}, observer {observer}, after record {i} ({record}): "
                    f"notepad facts {got.facts()} != brute force {expected.facts()}"
                )
            for card, owner, holds in got.facts():
                assert (deal[card] == owner) == holds
        # One-shot and another solver agree with the incremental notepad.
        assert deduce(setup, observer, records) == got
        with Notepad(setup, observer, records, solver="glucose4") as other:
            assert other.knowledge() == got


@pytest.mark.parametrize("name", SMALL_SETUPS)
@pytest.mark.parametrize("seed", range(50))
def test_notepad_equals_brute_force_on_random_games(name: str, seed: int) -> None:
    check_against_brute_force(SMALL_SETUPS[name], seed, num_turns=10)


@pytest.mark.slow
@pytest.mark.parametrize("name", [*SMALL_SETUPS, *LARGER_SETUPS])
def test_notepad_equals_brute_force_on_many_random_games(name: str) -> None:
    setup = {**SMALL_SETUPS, **LARGER_SETUPS}[name]
    for seed in range(1000, 1400):
        check_against_brute_force(setup, seed, num_turns=14)
