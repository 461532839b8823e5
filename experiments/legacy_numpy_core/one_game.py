"""The single-game path: ``step`` and ``legal_action_mask`` of a batch of one, in Python scalars.

A batch of one game (the PettingZoo env) pays numpy's per-call overhead on every
array operation of the batched handlers, a few microseconds each whatever the
size. Here the same rules read the one game's fields as Python numbers, write
them back by element, and collect the step's events in a list written in one
call; only the movement tables and the rare moves with pawns in the way use
array calls. ``game.step`` and ``game.legal_action_mask`` come here when the
batch holds one game. The batched handlers stay the definition: tests play the
same games both ways (and against the reference) and compare every field of the
state, the masks and the events at every step.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.actions import RANGE_NAMES
from cluedo_env.core.rng import GOLDEN, M1, M2
from cluedo_env.core.state import FACE_DOWN, NOBODY, Phase, State
from experiments.legacy_numpy_core.movement import MAX_ROLL, flood_fill

if TYPE_CHECKING:
    from experiments.legacy_numpy_core.game import Rules

__all__ = ["legal_action_mask", "step"]

# Range indices of the action kinds (``Rules.action_kind``), by name.
ROLL, PASSAGE, ENTER, TOWARD, SQUARE, SUGGEST, NO_SUGGESTION, SHOW, ACCUSE = (
    RANGE_NAMES.index(name)
    for name in ("roll", "passage", "enter", "toward", "square", "suggest", "no_suggestion", "show", "accuse")
)
MOVES = range(RANGE_NAMES.index("passage"), RANGE_NAMES.index("square") + 1)  # passage .. square


class _Lists:
    """A config's rule tables as Python lists (read by element, cheaper than array items)."""

    def __init__(self, rules: Rules) -> None:
        self.kind = rules.action_kind.tolist()
        self.arg = rules.action_arg.tolist()
        self.passages = rules.passages.tolist()
        self.passage_to = rules.passage_to.tolist()
        self.phase_bits = rules.phase_bits.tolist()
        self.move_how = rules.move_how.tolist()
        self.move_phase = rules.move_phase.tolist()
        self.suggest_cards = rules.suggest_cards.tolist()
        self.accuse_cards = rules.accuse_cards.tolist()
        self.asked_after = rules.asked_after.tolist()
        self.next_player = rules.next_player.tolist()
        lay = rules.layout
        self.slices = {  # mask ranges
            "enter": slice(lay.ENTER, lay.ENTER + rules.R),
            "toward": slice(lay.TOWARD, lay.TOWARD + rules.R),
            "square": slice(lay.SQUARE, lay.SQUARE + rules.N),
        }


@cache
def _lists(rules: Rules) -> _Lists:
    return _Lists(rules)


def legal_action_mask(state: State, rules: Rules) -> np.ndarray:
    """``bool[1, A]``: ``game.legal_action_mask`` of a batch of one game."""
    lay = rules.layout
    phase = state.phase.item()
    player = state.turn_player.item()
    location = state.location.item(player)
    in_room = location < rules.R
    mask = rules.mask_rows[2 * phase + (in_room or state.config.accuse_anywhere)].copy()
    if phase == Phase.TURN and rules.classic and in_room:
        mask[lay.PASSAGE] = _lists(rules).passages[location] >= 0
        mask[lay.STAY] = state.config.stay_in_room or state.summoned.item(player)
    elif phase == Phase.MOVE:
        slices = _lists(rules).slices
        rooms, squares = state.enterable[0], state.reachable[0]
        mask[slices["enter"]] = rooms
        any_square = squares.any()
        if state.config.movement == "compact":
            if any_square:
                toward = mask[slices["toward"]]
                np.logical_not(rooms, out=toward)
                if in_room:
                    toward[location] = False
        else:
            mask[slices["square"]] = squares
        mask[lay.NO_MOVE] = not any_square and not rooms.any()
    elif phase == Phase.REFUTE:
        refuter = state.current_player.item()
        owner = state._owner[0]
        for card in state.suggestion[0].tolist():
            mask[lay.SHOW + card] = owner.item(card) == refuter
    return mask[None]


def step(state: State, rules: Rules, action: int) -> bool:
    """``game.step`` of a batch of one game (a legal ``action``, or any once the game is over).

    Returns False, having changed nothing, for an action out of range or of a kind not played
    in the game's phase (``game.step`` then raises); True once the step is played.
    """
    phase = state.phase.item()
    lists = _lists(rules)
    if phase != Phase.OVER and not (0 <= action < rules.A and (lists.phase_bits[action] >> phase) & 1):
        return False
    if state.num_events.item():
        state.events.fill(-1)
    state.rewards.fill(0)
    events: list[list[int]] = []
    if phase != Phase.OVER:
        kind, arg = lists.kind[action], lists.arg[action]
        if kind == ROLL:
            _roll(state, rules, events)
        elif kind in MOVES:
            _move(state, rules, lists, kind, arg, events)
        elif kind == SUGGEST:
            _suggest(state, rules, lists, arg, events)
        elif kind == NO_SUGGESTION:
            state.phase[0] = Phase.ACCUSE
        elif kind == SHOW:
            _show(state, rules, arg, events)
        elif kind == ACCUSE:
            _accuse(state, rules, lists, arg, events)
        else:  # end the turn
            _next_turn(state, rules, lists, events)
    if events:
        state.events[0, : len(events)] = events
    state.num_events[0] = len(events)
    return True


def _roll(state: State, rules: Rules, events: list) -> None:
    count = rules.config.dice
    key, draws = int(state._key.item()), state._draws.item()
    dice = [die_face(key, draws + k) for k in range(count)] + [-1] * (2 - count)
    state._draws[0] = draws + count
    state.dice[0] = dice
    total = dice[0] + max(dice[1], 0)
    player = state.turn_player.item()
    events.append([ev.ROLL, player, dice[0], dice[1], total, -1, -1])

    # As ``movement.reachable``: read off the tables unless other pawns are nearer than the roll.
    tables = rules.moves
    r = tables.num_rooms
    pawns = state.location[0].tolist()
    start = pawns[player]
    distance = tables.distance_from[start]
    near, exact = [], []  # squares of the other pawns nearer than the roll / exactly at it
    for location in pawns:
        if location >= r and location != start:
            moves = distance.item(location - r)
            if moves < total:
                near.append(location - r)
            elif moves == total:
                exact.append(location - r)
    if not near:
        row = start * (MAX_ROLL + 1) + total
        state.reachable[0] = tables.stop_within[row]
        state.enterable[0] = tables.enter_within[row]
    else:
        begin, roll = np.array([start]), np.array([total])
        if len(near) == 1:
            squares, rooms = tables.one_pawn(begin, np.array(near), roll)
        else:
            squares, rooms = flood_fill(tables, begin, roll, np.array([pawns]))
        state.reachable[0] = squares[0]
        state.enterable[0] = rooms[0]
    for square in exact:  # a pawn exactly ``roll`` moves away only takes its own square
        state.reachable[0, square] = False
    state.phase[0] = Phase.MOVE


def _move(state: State, rules: Rules, lists: _Lists, kind: int, arg: int, events: list) -> None:
    player = state.turn_player.item()
    here = state.location.item(player)
    to = here
    if kind == PASSAGE:
        to = lists.passage_to[here]
    elif kind == ENTER:
        to = arg
    elif kind == SQUARE:
        to = rules.R + arg
    elif kind == TOWARD:  # the reachable square with the fewest moves into the room, lowest first
        distance = np.where(state.reachable[0], rules.moves.distance_by_room[arg], 255)
        to = rules.R + int(distance.argmin())
    state.location[0, player] = to
    events.append([ev.MOVE, player, player, here, to, lists.move_how[kind], -1])
    phase = lists.move_phase[kind]
    if to >= rules.R:  # passage, stay: a room, unless unchecked and illegal (from a square)
        phase = Phase.ACCUSE if phase == Phase.SUGGEST else phase
    state.phase[0] = phase
    if phase == Phase.SUGGEST:
        state.may_suggest[0] = True
    if rules.config.duel and kind in (PASSAGE, ENTER) and to < rules.R:  # a room's face-down card
        card = state._face_down.item(to)
        if card >= 0:
            events.append([ev.PEEK, player, to, -1, -1, -1, card])
            state._peeked[0, player, card] = True


def _suggest(state: State, rules: Rules, lists: _Lists, arg: int, events: list) -> None:
    P = rules.P
    suggester = state.turn_player.item()
    room = state.location.item(suggester)
    suspect, weapon_card = lists.suggest_cards[arg]
    cards = [suspect, weapon_card, rules.S + rules.W + room]
    state.suggestion[0] = cards
    events.append([ev.SUGGEST, suggester, *cards, -1, -1])

    # The named suspect's pawn and the weapon are moved into the room.
    pawn_from = state.location.item(suspect)
    if pawn_from != room:
        state.location[0, suspect] = room
        if suspect < P:
            state.summoned[0, suspect] = True
        events.append([ev.MOVE, suggester, suspect, pawn_from, room, ev.MOVE_SUMMONED, -1])
        if rules.config.duel and suspect < P:  # the summoned player looks at the room's card
            card = state._face_down.item(room)
            if card >= 0:
                events.append([ev.PEEK, suspect, room, -1, -1, -1, card])
                state._peeked[0, suspect, card] = True
    weapon = weapon_card - rules.S
    weapon_from = state.weapon_room.item(weapon)
    if weapon_from != room:
        state.weapon_room[0, weapon] = room
        events.append([ev.WEAPON, suggester, weapon, weapon_from, room, -1, -1])

    # Ask clockwise from the next player: the first holding a named card refutes.
    owner = state._owner[0]
    holders = [owner.item(card) for card in cards]
    asked_after = lists.asked_after[suggester]
    first = min(asked_after[holder - FACE_DOWN] for holder in holders)
    for k in range(1, first if first < P else P):
        passer = (suggester + k) % P
        state.passed[0, passer, cards] = True
        events.append([ev.PASS, passer, suggester, -1, -1, -1, -1])
    if first == P:
        events.append([ev.NO_REFUTE, suggester, -1, -1, -1, -1, -1])
        state.phase[0] = Phase.ACCUSE
        return
    refuter = (suggester + first) % P
    state.current_player[0] = refuter
    state.phase[0] = Phase.REFUTE
    if rules.config.auto_refute:
        held = [card for card, holder in zip(cards, holders) if holder == refuter]
        if len(held) == 1:
            _show(state, rules, held[0], events)


def _show(state: State, rules: Rules, card: int, events: list) -> None:
    refuter, suggester = state.current_player.item(), state.turn_player.item()
    events.append([ev.SHOW, refuter, suggester, -1, -1, -1, card])
    showed = state.showed[0, refuter]
    for named in state.suggestion[0].tolist():
        showed[named] = min(showed.item(named), 254) + 1
    state._shown_to[0, suggester, card] = refuter
    state.current_player[0] = suggester
    state.phase[0] = Phase.ACCUSE


def _accuse(state: State, rules: Rules, lists: _Lists, arg: int, events: list) -> None:
    accuser = state.turn_player.item()
    cards = lists.accuse_cards[arg]
    right = cards == state._envelope[0].tolist()
    events.append([ev.ACCUSE, accuser, *cards, int(right), -1])
    if right:
        state.winner[0] = accuser
        state.rewards[0] = -1.0
        state.rewards[0, accuser] = 1.0
        _game_over(state, accuser, ev.END_WIN, True, events)
        return
    state.eliminated[0, accuser] = True
    state.accused[0, accuser, cards] = True
    if state.eliminated.all():
        state.rewards[0] = -1.0
        _game_over(state, NOBODY, ev.END_ALL_WRONG, True, events)
        return
    _next_turn(state, rules, lists, events)


def _next_turn(state: State, rules: Rules, lists: _Lists, events: list) -> None:
    player = state.turn_player.item()
    state.summoned[0, player] = False
    state.may_suggest[0] = False
    state.dice.fill(-1)
    state.suggestion.fill(-1)
    turn = state.turn.item() + 1
    state.turn[0] = turn
    if turn >= rules.config.max_turns:
        _game_over(state, NOBODY, ev.END_TRUNCATED, False, events)
        return
    # The next player clockwise who is still in (eliminated players only refute).
    out = sum(1 << q for q, gone in enumerate(state.eliminated[0].tolist()) if gone)
    nxt = lists.next_player[out][player]
    state.turn_player[0] = nxt
    state.current_player[0] = nxt
    state.phase[0] = Phase.TURN
    events.append([ev.TURN, nxt, turn, -1, -1, -1, -1])


def _game_over(state: State, winner: int, reason: int, terminated: bool, events: list) -> None:
    state.terminated[0] = terminated
    state.truncated[0] = not terminated
    state.phase[0] = Phase.OVER
    state.current_player[0] = NOBODY
    events.append([ev.GAME_OVER, winner, *state._envelope[0].tolist(), reason, -1])


_MASK64 = (1 << 64) - 1


def die_face(key: int, counter: int) -> int:
    """``rng.draw_die`` of one game in Python integers: the same face."""
    z = (key + (counter + 1) * int(GOLDEN)) & _MASK64
    z = ((z ^ (z >> 30)) * int(M1)) & _MASK64
    z = ((z ^ (z >> 27)) * int(M2)) & _MASK64
    return (z ^ (z >> 31)) % 6 + 1
