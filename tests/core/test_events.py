"""Events read by name: a scripted game's events say what happened in the words of the rules."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import EventLog, play_batch
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.core import events as ev
from tests.scripted import CLASSIC, ENVELOPE, HANDS, act, room, written_game

CARD = CLASSIC.cards.card_id


def game(config: core.GameConfig = CLASSIC) -> core.State:
    return written_game(config, ENVELOPE, HANDS)


def test_a_suggestion_and_its_answers_read_by_name():
    state = game()
    state.location[0, 0] = room(CLASSIC, "Lounge")
    act(state, "stay")
    suggest, summon, weapon, passed = act(state, "suggest", "Professor Plum", "Rope")
    assert (suggest.name, suggest.suggester) == ("SUGGEST", 0)
    assert suggest.cards == (CARD("Professor Plum"), CARD("Rope"), CARD("Lounge"))
    assert (suggest.suspect, suggest.weapon, suggest.room) == suggest.cards
    # Plum's pawn and the rope are brought into the Lounge.
    assert (summon.name, summon.pawn, summon.how) == ("MOVE", CARD("Professor Plum"), ev.MOVE_SUMMONED)
    assert summon.destination == room(CLASSIC, "Lounge") != summon.origin
    assert (weapon.name, weapon.suggester, weapon.destination) == ("WEAPON", 0, room(CLASSIC, "Lounge"))
    assert CLASSIC.cards.weapons[weapon.token] == "Rope"
    # Mustard (P1) holds none of the three; White (P2) holds Plum and the Lounge and shows one.
    assert (passed.name, passed.player, passed.suggester) == ("PASS", 1, 0)
    (show,) = act(state, "show", "Lounge")
    assert (show.name, show.refuter, show.suggester, show.card) == ("SHOW", 2, 0, CARD("Lounge"))
    (hidden,) = ev.read_events(core.private_view(state.step_events(0), 3))
    assert hidden.card == -1 and hidden.refuter == 2  # Green sees that White showed, not what


def test_a_right_accusation_wins_and_the_end_reveals_the_envelope():
    state = game()
    accusation, over = act(state, "accuse", *ENVELOPE)
    assert (accusation.name, accusation.player, accusation.correct) == ("ACCUSE", 0, True)
    assert accusation.cards == tuple(CARD(c) for c in ENVELOPE)
    assert (over.name, over.winner, over.reason) == ("GAME_OVER", 0, ev.END_WIN)
    assert over.cards == accusation.cards
    assert state.turns_played.tolist() == [1]


def test_a_wrong_accusation_reads_wrong_and_the_next_turn_begins():
    state = game()
    accusation, turn = act(state, "accuse", "Miss Scarlet", "Rope", "Library")
    assert (accusation.correct, turn.name, turn.player, turn.turn) == (False, "TURN", 1, 1)
    assert state.turns_played.tolist() == [2]


def test_a_roll_reads_its_dice_and_their_total():
    state = game()
    (roll,) = act(state, "roll")[:1]
    assert roll.name == "ROLL" and len(roll.dice) == 2 and roll.total == sum(roll.dice)
    one_die = game(CLASSIC.replace(dice=1))
    (roll,) = act(one_die, "roll")[:1]
    assert len(roll.dice) == 1 and roll.total == roll.dice[0] and roll.b == -1


def test_a_field_of_another_kind_is_an_error_naming_the_kinds_that_have_it():
    (deal, *_) = ev.read_events(core.init(CLASSIC, [0]).step_events(0))
    assert deal.name == "DEAL" and not hasattr(deal, "correct")
    with pytest.raises(AttributeError, match=r"a DEAL event has no 'correct' \(only ACCUSE\)"):
        _ = deal.correct
    assert ev.Event.of([-1] * 7).name == "UNUSED"


def test_read_events_skips_unused_rows_and_keeps_the_order():
    rows = core.init(CLASSIC, [3]).events[0]  # the deal's rows, then unused ones
    read = ev.read_events(rows)
    assert len(read) == core.init(CLASSIC, [3]).num_events[0] < len(rows)
    assert read == [tuple(row) for row in rows[: len(read)].tolist()]


# Each Event property and the column that array code reads for it.
COLUMNS = {
    "suspect": ev.SUSPECT,
    "weapon": ev.WEAPON_CARD,
    "room": ev.ROOM_CARD,
    "turn": ev.TURN_NUMBER,
    "total": ev.TOTAL,
    "pawn": ev.PAWN,
    "token": ev.TOKEN,
    "origin": ev.ORIGIN,
    "destination": ev.DESTINATION,
    "how": ev.HOW,
    "peeked_room": ev.PEEKED_ROOM,
    "reason": ev.REASON,
    "refuter": ev.PLAYER,
    "winner": ev.PLAYER,
}


@pytest.mark.parametrize("players", [2, 4])
def test_the_named_columns_and_the_event_fields_agree_on_every_event_of_real_games(players):
    config = core.GameConfig(num_players=players, duel=players == 2, max_turns=60)
    logs = EventLog(6)
    play_batch(config, [make_agent("notepad", seed=k) for k in range(players)], range(6), on_step=logs)
    assert ev.Event._fields == ev.EVENT_FIELDS
    seen = set()
    for log in logs:
        for row, event in zip(log.tolist(), ev.read_events(log), strict=True):
            assert event == tuple(row) and event.kind == row[ev.KIND] and event.card == row[ev.CARD]
            for field, column in COLUMNS.items():
                if hasattr(event, field):
                    assert getattr(event, field) == row[column], (event, field)
                    seen.add(field)
            if event.kind == ev.ACCUSE:
                assert event.correct == (row[ev.CORRECT] == 1)
            if event.kind in (ev.PASS, ev.SHOW):
                assert event.suggester == row[ev.SUGGESTER]
    assert seen == set(COLUMNS) - ({"peeked_room"} if players > 2 else set())  # PEEK: duel only


@pytest.mark.parametrize("players", [2, 4])
def test_the_public_view_hides_the_dealt_looked_at_and_shown_cards_and_a_player_sees_only_its_own_more(
    players,
):
    config = core.GameConfig(num_players=players, duel=players == 2, max_turns=60)
    logs = EventLog(4)
    play_batch(config, [make_agent("notepad", seed=k) for k in range(players)], range(4), on_step=logs)
    for log in logs:
        public = core.public_view(log)
        secret = np.isin(log[:, ev.KIND], (ev.DEAL, ev.PEEK, ev.SHOW))
        assert secret.any() and (log[secret, ev.CARD] >= 0).all()
        assert (public[secret, ev.CARD] == -1).all() and np.array_equal(public[~secret], log[~secret])
        for player in range(players):
            own = core.private_view(log, player)
            more = own[:, ev.CARD] != public[:, ev.CARD]
            assert np.array_equal(own[~more], public[~more]) and more.any()
            shows = log[more, ev.KIND] == ev.SHOW
            assert (log[more][~shows, ev.PLAYER] == player).all()  # its own cards dealt and looked at
            assert ((log[more][shows][:, [ev.PLAYER, ev.SUGGESTER]] == player).any(axis=1)).all()


@pytest.mark.parametrize("batch", [20, 21])
def test_one_viewer_per_game_is_a_column_and_a_1_d_array_of_viewers_is_refused(batch):
    """With 21 event rows (the deal of the classic cards), a 1-D array of 21 viewers broadcast along
    the event axis (a wrong view), of 20 raised numpy's broadcast error: both are refused, naming
    ``players[:, None]``."""
    state = core.init(CLASSIC, np.arange(batch))
    assert state.events.shape[1] == 21
    viewers = np.arange(batch) % CLASSIC.num_players
    views = core.private_view(state.events, viewers[:, None])
    for game in range(batch):
        np.testing.assert_array_equal(views[game], core.private_view(state.events[game], viewers[game]))
    with pytest.raises(ValueError, match=r"one per game as players\[:, None\] .*got a 1-D array of"):
        core.private_view(state.events, viewers)


def test_one_viewer_in_a_1_d_array_sees_what_it_sees_as_a_scalar():
    """A shape-(1,) viewer broadcasts as one viewer: it was refused as a 1-D array of viewers."""
    state = core.init(CLASSIC, np.arange(3))
    np.testing.assert_array_equal(
        core.private_view(state.events, np.array([2])), core.private_view(state.events, 2)
    )


def test_turns_played_and_the_winner_agree_with_the_events():
    config = core.GameConfig(num_players=3, max_turns=40)
    agents = [make_agent("notepad", seed=k) for k in range(3)]
    logs = EventLog(12)
    result = play_batch(config, agents, np.arange(12), rotation=np.arange(12) % 3, on_step=logs)
    assert result.truncated.any() and (result.winner >= 0).any()  # both endings are checked
    for b, log in enumerate(logs):
        read = ev.read_events(log)
        over = read[-1]
        assert over.name == "GAME_OVER" and over.winner == result.winner_seat[b]
        assert result.turns[b] == sum(e.kind == ev.TURN for e in read)  # a TURN event begins each turn
        # The winning agent is the one seated at the winner's seat.
        assert result.winner[b] == (-1 if over.winner < 0 else list(result.seats[b]).index(over.winner))
