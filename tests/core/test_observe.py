"""Observations: ``core.observe`` equals, byte for byte, a plain reading of each piece's meaning.

``reference_observation`` below is the documented table of ``core.observe`` written out for one
game and one viewer in plain Python (lists, ints, the board's own data), independently of the
package's compiled writer. What the viewer has learnt (its hand, the cards shown to it or looked
at, who passed, showed or accused wrongly naming which cards) is read from the game's whole event
log as the viewer sees it (``events.private_view``), not from the state's arrays that the rules
write beside the events. Random playouts of every player count, edition, board, movement and the
duel are compared with it for both observation kinds, at every few steps and at the end.
"""

from __future__ import annotations

import importlib
from functools import cache

import numpy as np
import pytest
from test_playouts import random_playout

from agents.baselines.random_agent import sample_legal
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.board import classic_board
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, NOBODY

CONFIGS = [
    core.GameConfig(num_players=2, duel=True),
    core.GameConfig(num_players=3),
    core.GameConfig(num_players=4),
    core.GameConfig(num_players=5, board="none", stay_in_room=False),
    core.GameConfig(num_players=6, movement="squares", dice=1),
    core.GameConfig(num_players=4, edition="classic_fr_2000", auto_refute=True, start_player="random"),
    core.GameConfig(num_players=3, edition="de_2023", accuse_anywhere=False, max_turns=60),
    core.GameConfig(num_players=6, board="none", edition="classic_fr"),
]


def config_id(config: core.GameConfig) -> str:
    return f"{config.num_players}p-{config.board}-{config.edition}-{config.movement}{'-duel' * config.duel}"


def one_hot(value: int, size: int) -> list[bool]:
    return [k == value for k in range(size)]


@cache
def room_distances() -> list[list[int]]:
    """``[location][room]``: moves from a location into each room on the classic board (0 inside).

    From a square, the board's own distance (through the nearest door); from another room, one
    move out through the room's best door, then that square's distance.
    """
    board = classic_board()
    R = board.num_rooms
    from_room = [
        [0 if a == r else 1 + min(int(board.room_distance[d, r]) for d in board.doors[a]) for r in range(R)]
        for a in range(R)
    ]
    return from_room + [[int(x) for x in row] for row in board.room_distance]


class EventLogs:
    """Each game's whole event log, gathered step by step: a state holds only its last step's
    events (``State.step_events``). Call ``add`` after ``init`` and after every step."""

    def __init__(self, batch: int) -> None:
        self.rows: list[list[list[int]]] = [[] for _ in range(batch)]

    def add(self, state: core.State) -> None:
        for game, rows in enumerate(self.rows):
            rows.extend(state.step_events(game).tolist())

    def __getitem__(self, game: int) -> np.ndarray:
        """``int16[n, 7]``: game ``game``'s events from its deal on."""
        return np.asarray(self.rows[game], dtype=np.int16).reshape(-1, len(ev.EVENT_FIELDS))


def knowledge_from_log(log: np.ndarray, viewer: int, P: int, C: int) -> dict[str, list]:
    """What ``viewer`` has learnt, by the rules' meaning of each piece, from the events it saw.

    ``hand``: its ``DEAL`` cards; ``shown_by[c]``: who showed it card ``c`` (``NOBODY``); ``peeked``:
    its ``PEEK`` cards; ``passed[q][c]``: ``q`` passed on a suggestion naming ``c``; ``showed[q][c]``:
    how many times ``q`` showed a card for a suggestion naming ``c``; ``accused[q][c]``: ``q`` accused
    wrongly naming ``c`` (players by number, not by the viewer's axis)."""
    hand, peeked, shown_by = [False] * C, [False] * C, [NOBODY] * C
    passed = [[False] * C for _ in range(P)]
    showed = [[0] * C for _ in range(P)]
    accused = [[False] * C for _ in range(P)]
    suggestion: tuple[int, ...] = ()
    for event in ev.read_events(ev.private_view(log, viewer)):
        if event.kind == ev.DEAL and event.player == viewer:
            hand[event.card] = True
        elif event.kind == ev.PEEK and event.player == viewer:
            peeked[event.card] = True
        elif event.kind == ev.SUGGEST:
            suggestion = event.cards
        elif event.kind == ev.PASS:
            for c in suggestion:
                passed[event.player][c] = True
        elif event.kind == ev.SHOW:
            for c in suggestion:
                showed[event.refuter][c] += 1
            if event.suggester == viewer:
                shown_by[event.card] = event.refuter
        elif event.kind == ev.ACCUSE and not event.correct:
            for c in event.cards:
                accused[event.player][c] = True
    return {
        "hand": hand,
        "shown_by": shown_by,
        "peeked": peeked,
        "passed": passed,
        "showed": showed,
        "accused": accused,
    }


def knowledge_from_state(state: core.State, game: int, viewer: int) -> dict[str, list]:
    """``knowledge_from_log``'s pieces read from the state's own arrays, for a caller that keeps no
    log (the layout is then checked, not what the rules wrote)."""
    return {
        "hand": (state._owner[game] == viewer).tolist(),
        "shown_by": state._shown_to[game, viewer].tolist(),
        "peeked": state._peeked[game, viewer].tolist(),
        "passed": state.passed[game].tolist(),
        "showed": state.showed[game].tolist(),
        "accused": state.accused[game].tolist(),
    }


def reference_observation(
    state: core.State, game: int, viewer: int, kind: str = "player", log: np.ndarray | None = None
) -> np.ndarray:
    """``float32[size]``: game ``game`` as ``viewer`` sees it, one piece at a time (module docstring of
    ``core.observe``). With ``log`` (the game's whole event log, ``EventLogs``) what the viewer has
    learnt is read from the events; without it, from the state's arrays (``knowledge_from_state``)."""
    config = state.config
    e = config.cards
    C, P, R = e.num_cards, config.num_players, e.num_rooms
    cards = range(C)
    players = [(viewer + j) % P for j in range(P)]  # index j of every player axis
    owner = state._owner[game].tolist()  # the seer's piece only
    known = (
        knowledge_from_state(state, game, viewer) if log is None else knowledge_from_log(log, viewer, P, C)
    )
    hand, shown_by, peeked = known["hand"], known["shown_by"], known["peeked"]
    location = state.location[game].tolist()
    classic = config.board == "classic"
    board = classic_board()
    last_row, last_col = len(board.grid) - 1, len(board.grid[0]) - 1

    def square_xy(where: int) -> list[float]:
        if not classic or where < R:  # in a room (or no board): no square
            return [0.0, 0.0]
        row, col = board.squares[where - R]
        return [row / last_row, col / last_col]

    def distances(where: int) -> list[float]:
        if not classic:
            return [0.0] * R
        table = room_distances()
        longest = max(max(row) for row in table)
        return [moves / longest for moves in table[where]]

    pieces = {
        "hand": hand,
        "unseen": [not hand[c] and shown_by[c] == NOBODY and not peeked[c] for c in cards],
        "shown_to_me": [[shown_by[c] == q for c in cards] for q in players],
        "face_down_seen": peeked,
        "passed": [known["passed"][q] for q in players],
        "showed": [[min(times, 4) / 4 for times in known["showed"][q]] for q in players],
        "accused": [known["accused"][q] for q in players],
        "eliminated": [bool(state.eliminated[game, q]) for q in players],
        "pawn_room": [one_hot(min(where, R), R + 1) for where in location],  # column R: on a square
        "pawn_square": [square_xy(where) for where in location],
        "weapon_room": [one_hot(room, R) for room in state.weapon_room[game].tolist()],
        "room_distance": distances(location[viewer]),  # player p plays suspect p
        "phase": one_hot(int(state.phase[game]), len(core.Phase.NAMES)),
        "dice": [sum(max(die, 0) for die in state.dice[game].tolist()) / 12],
        "turn_player": [q == state.turn_player[game] for q in players],
        "current_player": [q == state.current_player[game] for q in players],  # -1 when over: none
        "suggestion": [c in state.suggestion[game].tolist() for c in cards],
        "turn": [int(state.turn[game]) / config.max_turns],
    }
    if kind == "seer":
        holders = [*players, ENVELOPE, FACE_DOWN]
        pieces["owner"] = [[owner[c] == holder for holder in holders] for c in cards]
    return np.concatenate(
        [
            np.asarray(pieces[name], dtype=np.float32).ravel()
            for name, _, _ in core.observation_pieces(config, kind)
        ]
    )


def assert_observations_are_the_reference(
    state: core.State, games: np.ndarray, logs: EventLogs | None = None
) -> int:
    """Every (game, viewer) pair of ``games``, both kinds, in one ``observe`` call each; the pairs
    checked. With ``logs`` the reference reads what each viewer learnt from the events."""
    P = state.config.num_players
    pair_games, viewers = np.repeat(games, P), np.tile(np.arange(P), len(games))
    for kind in core.OBSERVATION_KINDS:
        observed = core.observe(state, viewers, pair_games, kind=kind)
        assert observed.dtype == np.float32 and observed.shape == (
            len(viewers),
            core.observation_size(state.config, kind),
        )
        for row, game, viewer in zip(observed, pair_games.tolist(), viewers.tolist()):
            log = None if logs is None else logs[game]
            expected = reference_observation(state, game, viewer, kind, log)
            if not np.array_equal(row.view(np.uint32), expected.view(np.uint32)):  # bytes, not just values
                wrong = np.flatnonzero(row.view(np.uint32) != expected.view(np.uint32))
                names = {
                    name
                    for name, shape, offset in core.observation_pieces(state.config, kind)
                    for column in wrong.tolist()
                    if offset <= column < offset + int(np.prod(shape))
                }
                raise AssertionError(
                    f"{kind} view of P{viewer} in game {game}: pieces {sorted(names)} differ"
                )
    return len(viewers)


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_observe_is_the_reference_over_random_playouts(config):
    checked, logs = [], EventLogs(6)

    def compare(state, _mask):  # called after init and after every step but the last
        logs.add(state)
        if len(checked) % 5 == 0:
            live = np.flatnonzero(~state.done)
            checked.append(assert_observations_are_the_reference(state, live[:3], logs))
        else:
            checked.append(0)

    state, _ = random_playout(config, np.arange(6), rng_seed=3, accuse_rate=0.05, on_step=compare)
    logs.add(state)  # the last step's events
    assert sum(count > 0 for count in checked) >= 15  # steps compared
    assert assert_observations_are_the_reference(state, np.arange(6), logs)  # every game over


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_observe_is_the_reference_over_many_games(config):
    steps, logs = [], EventLogs(20)

    def compare(state, _mask):
        logs.add(state)
        if len(steps) % 2 == 0:
            assert_observations_are_the_reference(state, np.flatnonzero(~state.done), logs)
        steps.append(True)

    state, _ = random_playout(config, np.arange(20), rng_seed=11, accuse_rate=0.02, on_step=compare)
    logs.add(state)
    assert_observations_are_the_reference(state, np.arange(20), logs)


def games_under_way(
    config: core.GameConfig, batch: int, steps: int, seed: int = 0, logs: EventLogs | None = None
) -> core.State:
    """A batch after ``steps`` random legal steps (accusing never): games in every phase, none over.
    With ``logs`` (``EventLogs(batch)``) every step's events are added to it."""
    state = core.init(config, np.arange(batch))
    rng = np.random.default_rng(seed)
    layout = core.rules_for(config).layout
    for _ in range(steps):
        if logs is not None:
            logs.add(state)
        mask = core.legal_action_mask(state)
        mask[:, layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
        core.step(state, sample_legal(rng, mask))
    if logs is not None:
        logs.add(state)
    return state


def test_observe_writes_into_out_and_refuses_a_wrong_one():
    """``out=`` is written whole (whatever it held) and returned; without it each call gets a new array."""
    config = core.GameConfig(num_players=4)
    state = games_under_way(config, 5, 40)
    viewers = np.array([0, 1, 2, 3, 1])
    for kind in core.OBSERVATION_KINDS:
        expected = core.observe(state, viewers, kind=kind)
        out = np.full((5, core.observation_size(config, kind)), np.nan, dtype=np.float32)
        assert core.observe(state, viewers, kind=kind, out=out) is out
        np.testing.assert_array_equal(out, expected)
        assert core.observe(state, viewers[[4, 0]], [4, 0], kind=kind, out=out[1:3]) is not None
        np.testing.assert_array_equal(out[1:3], expected[[4, 0]])
        again = core.observe(state, viewers, kind=kind)
        assert not np.shares_memory(again, expected)  # nothing kept between calls
    size = core.observation_size(config)
    for bad, error, message in [
        (
            np.zeros((5, size), dtype=np.float64),
            TypeError,
            "out must be a float32 numpy array, got a float64",
        ),
        ([[0.0] * size] * 5, TypeError, "out must be a float32 numpy array, got a list"),
        (np.zeros((4, size), dtype=np.float32), ValueError, rf"out must have shape \(5, {size}\)"),
        (np.zeros((size, 5), dtype=np.float32).T, TypeError, "out must be a C-contiguous, writeable array"),
    ]:
        with pytest.raises(error, match=message):
            core.observe(state, viewers, out=bad)
    frozen = np.zeros((5, size), dtype=np.float32)
    frozen.setflags(write=False)
    with pytest.raises(TypeError, match="writeable"):
        core.observe(state, viewers, out=frozen)


def test_observe_is_the_same_in_parallel_and_one_game_after_the_other(monkeypatch):
    """From ``PARALLEL_FROM`` observations the games are shared among threads, with the same rows."""
    module = importlib.import_module("cluedo_env.core.observe")  # ``core.observe`` is the function
    config = core.GameConfig(num_players=6)
    logs = EventLogs(100)
    state = games_under_way(config, 100, 60, logs=logs)
    games = np.concatenate([np.arange(100), np.arange(100)[::-3]])  # any order, repeats
    viewers = np.arange(len(games)) % 6
    for kind in core.OBSERVATION_KINDS:
        monkeypatch.setattr(module, "PARALLEL_FROM", 10**9)
        one_after_the_other = core.observe(state, viewers, games, kind=kind)
        monkeypatch.setattr(module, "PARALLEL_FROM", 1)
        np.testing.assert_array_equal(core.observe(state, viewers, games, kind=kind), one_after_the_other)
        for game in (0, 57, 99):
            np.testing.assert_array_equal(
                one_after_the_other[game], reference_observation(state, game, game % 6, kind, logs[game])
            )
