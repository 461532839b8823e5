"""``cluedo_env.inference.beliefs.beliefs_from_events`` refuses event rows that are not events of the game.

It read the rows without checks: a row of a kind no event has, or a player or card out of range,
was skipped or read as something else, and the posterior came out as if nothing were wrong. It
now checks them as ``deduce_from_events`` does (``cluedo_env.inference.from_events.check_events``), naming the row
and what is accepted. The control is the old reading, rows straight to the records: it takes the
same rows without a word.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference.beliefs import beliefs, beliefs_from_events
from cluedo_env.inference.from_events import RecordMaker, deduce_from_events, setup_of
from experiments.common.task_generation import play_task_games
from tests.reasoning.test_reasoning_inputs import CONFIG, GARBAGE


@pytest.fixture(scope="module")
def game() -> np.ndarray:
    """The full event log of a finished game of random, SAT and notepad agents."""
    played, _ = play_task_games(CONFIG, ("random", "sat", "notepad"), np.array([11]), rotation=0)
    return played[0]


def unchecked_beliefs(player: int, events: np.ndarray):
    """The control: the old ``beliefs_from_events``, the rows read with no check."""
    setup = setup_of(CONFIG)
    records = RecordMaker(setup, player).add_events(core.private_view(np.asarray(events), player))
    return beliefs(setup, player, records)


def test_a_real_games_rows_give_the_posterior_they_gave_before(game):
    for player in range(CONFIG.num_players):
        checked, unchecked = beliefs_from_events(CONFIG, player, game), unchecked_beliefs(player, game)
        assert checked.num_deals == unchecked.num_deals > 0
        assert np.array_equal(checked.probabilities(), unchecked.probabilities())


@pytest.mark.parametrize(("what", "row", "accepted"), GARBAGE, ids=[g[0] for g in GARBAGE])
def test_a_garbage_row_is_refused_by_its_index_and_what_is_accepted(game, what, row, accepted):
    at = len(game) // 2
    events = np.insert(game, at, row, axis=0)
    with pytest.raises(ValueError) as error:
        beliefs_from_events(CONFIG, 0, events)
    message = str(error.value)
    assert f"event row {at} {row}" in message and accepted in message


def test_the_unchecked_reading_takes_a_garbage_row_silently(game):
    # The control: without the check, a kind no event has and a negative kind pass unnoticed.
    for row in ([99, 0, 0, 0, 0, 0, 0], [-5, 0, 0, 0, 0, 0, 0]):
        events = np.insert(game, len(game) // 2, row, axis=0)
        assert unchecked_beliefs(0, events).num_deals == unchecked_beliefs(0, game).num_deals


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (np.full((2, 7), 0.5), "integer array of shape (n, 7)"),
        (np.zeros((2, 6), int), "got dtype int64 and shape (2, 6)"),
        (np.full((1, 7), 2**64 - 1, np.uint64), "up to 2**63 - 1"),
    ],
)
def test_rows_that_are_not_an_event_array_are_refused(events, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        beliefs_from_events(CONFIG, 0, events)


@pytest.mark.parametrize("player", [3, -1, True, 1.0])
def test_an_observer_not_of_the_game_is_refused(game, player):
    with pytest.raises(ValueError, match=r"player must be an int in \[0, 3\)"):
        beliefs_from_events(CONFIG, player, game)


def test_the_events_read_as_deduce_from_events_reads_them():
    """A suggestion waiting for its refuter: the passes already made count, in the beliefs as in the
    deductions; and a player dealt more cards than its hand holds is refused by both. (Before, the
    beliefs dropped such passes, P(Rope with player 0) 1/3 where it is 0, and took the extra card.)"""
    config, state, log = suggested_in_the_hall()  # player 0 passes; player 1 is to show the Red
    assert state.phase[0] == core.Phase.REFUTE
    small = config.cards
    rope = small.card_id("Rope")
    for observer in range(3):
        posterior = beliefs_from_events(config, observer, np.array(log))
        assert posterior.probabilities()[rope, 0] == 0
        assert posterior.knowledge() == deduce_from_events(config, observer, np.array(log))
    extra = np.array([*log[:5], (ev.DEAL, 0, -1, -1, -1, -1, small.card_id("Attic"))])
    with pytest.raises(ValueError, match=r"deals player 0 more cards than its hand holds \(2\)"):
        beliefs_from_events(config, 0, extra)


def suggested_in_the_hall() -> tuple[core.GameConfig, core.State, list[tuple[int, ...]]]:
    """A scripted 3-player game of a small edition (the envelope Green, Knife, Attic; hands Blue and
    Den, Red and Hall, Rope) to player 2's suggestion of Red and Rope in the Hall, with its log."""
    from cluedo_env.core.editions import Edition
    from tests.scripted import act, room, written_game

    small = Edition("small", ("Red", "Blue", "Green"), ("Rope", "Knife"), ("Hall", "Den", "Attic"), (0, 1))
    config = core.GameConfig(edition=small, board="none", num_players=3, max_turns=12)
    hands = [["Blue", "Den"], ["Red", "Hall"], ["Rope"]]
    state = written_game(config, ("Green", "Knife", "Attic"), hands, first=2)
    log = [(ev.DEAL, p, -1, -1, -1, -1, small.card_id(n)) for p, hand in enumerate(hands) for n in hand]
    log += act(state, "enter", room(config, "Hall"))
    log += act(state, "suggest", "Red", "Rope")
    return config, state, log


def small_game() -> tuple[core.GameConfig, list[tuple[int, ...]]]:
    """Two suggestions of a scripted game, with every kind of answer: player 2's in the Hall (player 0
    passes, player 1 shows the Red), then player 0's in the Den (players 1 and 2 pass, nobody refutes)."""
    from tests.scripted import act, room

    config, state, log = suggested_in_the_hall()
    log += act(state, "show", "Red")
    log += act(state, "end_turn")
    log += act(state, "enter", room(config, "Den"))
    log += act(state, "suggest", "Green", "Knife")
    assert [e.name for e in map(ev.Event.of, log[5:])] == [
        *("MOVE", "SUGGEST", "MOVE", "PASS", "SHOW", "TURN"),
        *("MOVE", "SUGGEST", "MOVE", "PASS", "PASS", "NO_REFUTE"),
    ]
    return config, [tuple(row) for row in log]


EVENT_READERS = pytest.mark.parametrize("read", [deduce_from_events, beliefs_from_events])


def test_the_scripted_game_is_read_by_every_player():
    # The control: the whole log is taken, and every player knows from the pass that player 0
    # holds none of Red, Rope and Hall (the facts a lost answer row dropped with its suggestion).
    config, log = small_game()
    for observer in range(3):
        facts = deduce_from_events(config, observer, np.array(log)).facts()
        assert {(0, 0, False), (3, 0, False)} <= set(facts)  # Red, Rope
        assert beliefs_from_events(config, observer, np.array(log)).knowledge().facts() == facts


@EVENT_READERS
def test_a_suggestion_before_the_last_ones_answer_is_refused(read):
    # The SHOW row lost: player 2's suggestion still waits when player 0 suggests. It was
    # overwritten, its pass dropped, without a word.
    config, log = small_game()
    show = next(i for i, row in enumerate(log) if row[0] == ev.SHOW)
    events = np.delete(np.array(log), show, axis=0)
    at = next(i for i in range(show, len(events)) if events[i, ev.KIND] == ev.SUGGEST)
    for observer in range(3):
        with pytest.raises(
            ValueError, match=re.escape(f"event row {at} {events[at].tolist()}: SUGGEST while")
        ):
            read(config, observer, events)


@EVENT_READERS
@pytest.mark.parametrize("kind", ["PASS", "SHOW", "NO_REFUTE"])
def test_an_answer_naming_another_suggester_is_refused(read, kind):
    config, log = small_game()
    at = next(i for i, row in enumerate(log) if row[0] == ev.EVENT_KINDS.index(kind))
    column = ev.PLAYER if kind == "NO_REFUTE" else ev.SUGGESTER  # who suggested: 2, then 0
    events = np.array(log)
    events[at, column] = 1
    with pytest.raises(
        ValueError, match=re.escape(f"event row {at} {events[at].tolist()}: {kind} answers a")
    ):
        read(config, 1, events)


@EVENT_READERS
def test_a_peek_in_a_game_with_no_face_down_cards_is_refused(read):
    # It crashed with a TypeError (a Seen record with the table None as its owner).
    config, log = small_game()
    row = (ev.PEEK, 0, 0, -1, -1, -1, 2)
    events = np.array([*log[:6], row, *log[6:]])
    with pytest.raises(ValueError, match=re.escape("event row 6 [11, 0, 0, -1, -1, -1, 2] (PEEK)")) as error:
        read(config, 0, events)
    assert "no face-down cards" in str(error.value)
