"""The baselines play the 2-player duel: they look at the face-down cards, reason with them, and accuse.

In the duel (docs/RULES.md) four cards lie face down on the corner rooms, and a player
entering such a room looks at its card. A card that lies face down can never be
shown, so a player who has not looked cannot tell it from the envelope's card of
its category: every win needs the face-down cards looked at.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import play_batch
from agents.base import Agent
from agents.baselines.random_agent import RandomAgent
from agents.registry import make_agent
from agents.routes import Routes
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference import Accusation, Seen, deduce
from cluedo_env.intervals import wilson_interval
from tests.scripted import act, room, square, written_game

DUEL = core.GameConfig(num_players=2, duel=True)

# Every category has a card face down: Plum (not Peacock), the Wrench (not the Rope), the
# Study and the Hall cards (not the Library). Only looking at all four tells the envelope.
ENVELOPE = ("Mrs Peacock", "Rope", "Library")
HANDS = [
    ["Colonel Mustard", "Mrs White", "Candlestick", "Dagger", "Kitchen", "Conservatory", "Lounge"],
    ["Miss Scarlet", "Reverend Green", "Lead Pipe", "Revolver", "Ballroom", "Dining Room", "Billiard Room"],
]
FACE_DOWN = {"Kitchen": "Professor Plum", "Conservatory": "Wrench", "Lounge": "Study", "Study": "Hall"}


def written_duel(first: int, config: core.GameConfig = DUEL, seed: int = 0) -> core.State:
    """The duel dealt as written above (``seed``: the dice), the deal's events telling each their hand."""
    state = written_game(config, ENVELOPE, HANDS, first=first, face_down=FACE_DOWN, seed=seed)
    deal = np.flatnonzero(state.step_events(0)[:, ev.KIND] == ev.DEAL)
    to_deal = [[config.cards.card_id(c) for c in hand] for hand in HANDS]
    for row in deal:  # the core's deal rows name the players in deal order; give them these cards
        state.events[0, row, ev.CARD] = to_deal[state.events[0, row, ev.PLAYER]].pop()
    start, turn = deal[-1] + 1, deal[-1] + 2  # START and the first TURN name the first player
    state.events[0, [start, turn], ev.PLAYER] = first
    state.events[0, start, ev.SUSPECT] = first  # a player's suspect is its index
    return state


def play_on(state: core.State, agents: list[Agent], script: list[tuple] = ()) -> list[ev.Event]:
    """Play one game to its end: the scripted actions first, then the agents (agent k in seat k).

    Returns every event of the game, in order.
    """
    for k, agent in enumerate(agents):
        agent.reset(state.config, np.array([k]))
    log: list[ev.Event] = []

    def tell_everyone() -> None:
        log.extend(ev.read_events(state.step_events(0)))
        for k, agent in enumerate(agents):
            agent.observe(state, core.private_view(state.events, np.array([[k]])))

    tell_everyone()
    for action in script:
        act(state, *action)
        tell_everyone()
    while not state.done[0]:
        mask = core.legal_action_mask(state)
        player = int(state.current_player[0])
        core.step(state, agents[player].act(state, np.array([0]), mask))
        tell_everyone()
    return log


def peeked_by(log: list[ev.Event], player: int) -> set[str]:
    return {DUEL.cards.cards[e.card] for e in log if e.kind == ev.PEEK and e.player == player}


def accusations(log: list[ev.Event]) -> list[tuple[int, tuple[str, ...], bool]]:
    names = DUEL.cards.cards
    return [(e.player, tuple(names[c] for c in e.cards), e.correct) for e in log if e.kind == ev.ACCUSE]


@pytest.mark.parametrize("name", ["sat", "notepad"])
def test_agent_looks_at_every_face_down_card_then_accuses_right(name):
    agents = [make_agent(name, seed=0), RandomAgent(seed=1, accuse="never")]
    log = play_on(written_duel(first=0), agents)
    assert accusations(log) == [(0, ENVELOPE, True)]
    assert peeked_by(log, 0) == set(FACE_DOWN.values())


def test_sat_is_certain_only_with_the_face_down_cards_it_looked_at():
    sat = make_agent("sat", seed=0)
    log = play_on(written_duel(first=0), [sat, RandomAgent(seed=1, accuse="never")])
    assert accusations(log) == [(0, ENVELOPE, True)]
    records = [r for r in sat.notepads[0].records if not isinstance(r, Accusation)]
    looked = {DUEL.cards.cards[r.card] for r in records if isinstance(r, Seen)}
    assert looked == set(FACE_DOWN.values())
    assert deduce(sat.setup, 0, records).solved() == tuple(DUEL.cards.card_id(c) for c in ENVELOPE)
    # Without what it saw face down, Plum and Peacock (and so on) are interchangeable.
    unseen = [r for r in records if not isinstance(r, Seen)]
    assert deduce(sat.setup, 0, unseen).solved() is None


@pytest.mark.parametrize("name", ["sat", "notepad"])
def test_a_pawn_brought_into_a_corner_room_still_gets_its_card_seen(name):
    """The opponent's suggestion brings Miss Scarlet (player 0) into the Kitchen, whose card (Plum)
    she needs; whether or not arriving so looks at it, she must see it before she can be sure."""
    state = written_duel(first=1)
    state.location[0, 1] = room(DUEL, "Study")
    script = [("passage",), ("suggest", "Miss Scarlet", "Rope"), ("show", "Kitchen"), ("end_turn",)]
    agents = [make_agent(name, seed=0), RandomAgent(seed=1, accuse="never")]
    log = play_on(state, agents, script)
    summoned = [e for e in log if e[0] == ev.MOVE and e[2] == 0 and e[4] == room(DUEL, "Kitchen")]
    assert summoned, "the script should bring Miss Scarlet into the Kitchen"
    assert accusations(log) == [(0, ENVELOPE, True)]
    assert "Professor Plum" in peeked_by(log, 0)


@pytest.mark.parametrize(("name", "turns"), [("sat", 1), ("notepad", 2)])
def test_knowing_all_but_one_face_down_card_it_goes_to_look(name, turns):
    """Without a board (any room each turn): Miss Scarlet sees the opponent's seven cards and looks
    at three face-down cards; only the Rope or the Wrench is left, and the Conservatory's card
    tells which. The SAT agent goes there on its next turn and accuses; notepad may first try the
    Library (its last room candidate)."""
    config = DUEL.replace(board="none")
    shows = [  # Miss Scarlet's room, her suggestion, the card shown to her
        ("Lounge", "Miss Scarlet", "Candlestick", "Miss Scarlet"),
        ("Study", "Reverend Green", "Dagger", "Reverend Green"),
        ("Kitchen", "Colonel Mustard", "Lead Pipe", "Lead Pipe"),
        ("Ballroom", "Colonel Mustard", "Revolver", "Revolver"),
        ("Ballroom", "Colonel Mustard", "Candlestick", "Ballroom"),
        ("Dining Room", "Colonel Mustard", "Candlestick", "Dining Room"),
        ("Billiard Room", "Colonel Mustard", "Candlestick", "Billiard Room"),
    ]
    script = []
    for where, suspect, weapon, shown in shows:
        script += [("enter", room(config, where)), ("suggest", suspect, weapon), ("show", shown)]
        script += [("end_turn",), ("enter", room(config, "Hall")), ("no_suggestion",), ("end_turn",)]
    agents = [make_agent(name, seed=0), RandomAgent(seed=1, accuse="never")]
    log = play_on(written_duel(first=0, config=config), agents, script)
    assert peeked_by(log, 0) == {"Study", "Hall", "Professor Plum", "Wrench"}
    assert accusations(log) == [(0, ENVELOPE, True)]
    her_turns = sum(e[0] == ev.TURN and e[1] == 0 for e in log)
    assert her_turns <= len(shows) + turns  # the scripted ones, then her own


def test_routes_walk_around_pawns_that_stand_still():
    routes, R = Routes(DUEL), core.rules_for(DUEL).R
    into, lengthened = routes.around(())
    assert np.array_equal(into, core.rules_for(DUEL).location_room_distance) and not lengthened
    # A pawn on the Conservatory's only door square closes the way in on foot.
    door = square(5, 18) - R
    into, lengthened = routes.around((door,))
    assert lengthened
    conservatory = room(DUEL, "Conservatory")
    assert np.isinf(into[: R + door, conservatory]).sum() == R + door - 1  # all but from inside it
    # A pawn in the lane above the Hall (one square wide) sends the walk to the Study round about.
    hall_door, left = square(17, 11) - R, square(17, 10)
    into, _ = routes.around((hall_door,))
    study = room(DUEL, "Study")
    assert routes.free[left, study] < into[left, study] < np.inf


def test_standing_pawns_are_nobodys_and_those_out_of_the_game():
    state = core.init(DUEL, [3])
    routes, R = Routes(DUEL), core.rules_for(DUEL).R
    nobodys = tuple(sorted(int(q) - R for q in state.location[0, 2:]))
    assert routes.standing(state, 0, 0) == nobodys  # the players' own pawns move
    state.eliminated[0, 1] = True
    assert routes.standing(state, 0, 0) == tuple(sorted((*nobodys, int(state.location[0, 1]) - R)))
    assert routes.standing(state, 0, 1) == nobodys  # never the mover's own
    assert Routes(core.GameConfig(num_players=4)).standing(core.init(core.GameConfig(), [3]), 0, 0) == ()


@pytest.mark.parametrize("name", ["sat", "notepad", "belief"])
def test_an_opponent_out_of_the_game_in_the_only_door_does_not_shut_the_agent_in(name):
    """Miss Scarlet is in the Conservatory, whose only door square Colonel Mustard (out of the game
    after a wrong accusation) stands on for good: she leaves by the secret passage, and wins."""
    state = written_duel(first=0, seed=4)
    state.location[0, 0] = room(DUEL, "Conservatory")
    state.location[0, 1] = square(5, 18)
    state.eliminated[0, 1] = True
    log = play_on(state, [make_agent(name, seed=0), RandomAgent(seed=1, accuse="never")])
    assert accusations(log) == [(0, ENVELOPE, True)]


def duel_results(first: str, second: str, deals: int, **second_options) -> tuple[int, int, int]:
    """(wins of the first agent, truncated games, games) over ``deals`` deals x both seat orders."""
    seeds = np.repeat(np.arange(deals), 2)
    agents = [make_agent(first, seed=0), make_agent(second, seed=1, **second_options)]
    result = play_batch(DUEL, agents, seeds, rotation=np.tile([0, 1], deals))
    return int((result.winner == 0).sum()), int(result.truncated.sum()), len(seeds)


@pytest.mark.parametrize(
    ("first", "second", "least"),
    [("sat", "random", 0.8), ("notepad", "random", 0.7), ("sat", "notepad", 0.5)],
)
def test_duel_strength_in_a_small_run(first, second, least):
    """The ordering the slow test checks on 1,000 games, on a few dozen (bounds far below it)."""
    wins, truncated, games = duel_results(first, second, deals=24)
    assert wins / games > least
    assert truncated / games < 0.1


@pytest.mark.slow
def test_sat_beats_random_in_the_duel_in_1000_games():
    """The target of the duel: the SAT agent wins at least 95% against random, under 1% truncated."""
    wins, truncated, games = duel_results("sat", "random", deals=500)
    assert games == 1000
    low, _high = wilson_interval(wins, games)
    assert low >= 0.95, f"SAT won {wins} of {games}"
    assert truncated / games < 0.01, f"{truncated} of {games} games truncated"
