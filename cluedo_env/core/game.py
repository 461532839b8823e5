"""The rules of Cluedo on a batch of games: ``init``, ``step``, ``legal_action_mask``.

Each step applies one decision of the acting player of every game of the
batch. Games in different phases are handled on the sub-batch in that phase
(index arrays, never a per-game Python loop). Forced consequences run inside
the same step: a suggestion moves the pawn and weapon and asks the players
clockwise until one holds a named card; those holding none pass at once. A
refuter holding several named cards then decides which to show in a step of its
own (also with a single card unless ``auto_refute``).

A turn: ``TURN`` (roll / passage / stay / accuse; with ``board="none"`` pick a
room) -> ``MOVE`` (after a roll) -> ``SUGGEST`` (only when the move ended in a
room: by entering it, passage, staying, or picking it) -> ``REFUTE`` (the
refuter, if a decision is needed) -> ``ACCUSE`` (accuse or end the turn).

Rewards arrive on the step that ends a game: +1 to the winner and -1 to every
other player; -1 to everybody when every player accused wrongly; 0 to everybody
when the game is truncated at ``max_turns``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.actions import RANGE_NAMES, ActionLayout
from cluedo_env.core.board import classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.movement import MoveTables, reachable
from cluedo_env.core.rng import draw, draw_die, game_key
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, NOBODY, Phase, State

__all__ = ["Rules", "init", "legal_action_mask", "rules_for", "step"]

# Draw counters: cards' shuffle keys use 0..C-1, the first player's dice the
# range below DICE_DRAWS, turn dice count up from DICE_DRAWS.
START_ROLL_ROUNDS = 16
DICE_DRAWS = 1024
SMALL_BATCH = 16  # below this, dispatching by kind beats sorting
CORNER_ROOMS = (0, 2, 6, 8)  # Kitchen, Conservatory, Lounge, Study: duel face-down cards


class Rules:
    """Tables derived once from a config; shared by every state of that config."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        edition = config.cards
        self.S, self.W, self.R = edition.num_suspects, edition.num_weapons, edition.num_rooms
        self.C = edition.num_cards
        self.P = config.num_players
        self.layout = ActionLayout(config)
        self.A = self.layout.num_actions
        self.classic = config.board == "classic"
        self.board = classic_board()
        self.N = self.board.num_squares if self.classic else 0
        self.moves = MoveTables(self.board) if self.classic else None
        if self.classic:  # observation tables
            rows, cols = len(self.board.grid), len(self.board.grid[0])
            self.square_xy = (np.array(self.board.squares) / [rows - 1, cols - 1]).astype(np.float32)
            into_room = self.moves.room_door_distance + 1.0
            into_room[np.arange(self.R), np.arange(self.R)] = 0.0
            self.location_room_distance = into_room.astype(np.float32)
            self.max_room_distance = float(into_room.max())
        self.num_events = max(self.C, self.P + 4)
        # Per action: its range index and its argument index within the range.
        kind = np.zeros(self.A, dtype=np.int8)
        arg = np.zeros(self.A, dtype=np.int32)
        for k, name in enumerate(RANGE_NAMES):
            lo, size = self.layout.offsets[name], self.layout.sizes[name]
            kind[lo : lo + size] = k
            arg[lo : lo + size] = np.arange(size)
        self.action_kind, self.action_arg = np.append(kind, -1), np.append(arg, 0)
        self.range_index = {name: k for k, name in enumerate(RANGE_NAMES)}
        # Card ids of category members, and the suggest/accuse argument tables.
        self.room_card = self.S + self.W + np.arange(self.R)
        sw = np.arange(self.S * self.W)
        self.suggest_cards = np.stack([sw // self.W, self.S + sw % self.W], axis=1)
        # suggestion_cards[sw, room] = (suspect, weapon, room) card ids of a suggestion in that room
        self.suggestion_cards = np.concatenate(
            [
                np.broadcast_to(self.suggest_cards[:, None, :], (len(sw), self.R, 2)),
                np.broadcast_to(self.room_card[None, :, None], (len(sw), self.R, 1)),
            ],
            axis=2,
        ).astype(np.int64)
        # asked_after[suggester, owner - FACE_DOWN]: how many players after the suggester the
        # card's holder is asked (1..P-1); P when nobody asked holds it (envelope, face down, own).
        owners = np.arange(FACE_DOWN, self.P)
        self.asked_after = np.where(
            owners[None, :] >= 0, (owners[None, :] - np.arange(self.P)[:, None]) % self.P, self.P
        )
        self.asked_after[self.asked_after == 0] = self.P
        # next_player[eliminated bits, player]: whose turn follows (the player itself if all others are out)
        self.player_bits = 1 << np.arange(self.P)
        out = (np.arange(2**self.P)[:, None] & self.player_bits[None, :]) > 0  # [bits, P]
        ahead = (np.arange(self.P)[:, None] + np.arange(1, self.P + 1)[None, :]) % self.P  # [P, k]
        self.next_player = ahead[np.arange(self.P)[None, :], np.argmax(~out[:, ahead], axis=2)]
        swr = np.arange(self.S * self.W * self.R)
        self.accuse_cards = np.stack(
            [swr // (self.W * self.R), self.S + (swr // self.R) % self.W, self.S + self.W + swr % self.R],
            axis=1,
        )
        self.passages = self.board.passages if self.classic else np.full(self.R, -1, dtype=np.int8)
        self.weapon_start = np.array(edition.weapon_start_rooms, dtype=np.int8)
        self.pawn_start = self.R + np.array(self.board.starts[: self.S], dtype=np.int16)
        if not self.classic:
            self.pawn_start = np.full(self.S, self.R, dtype=np.int16)  # off the board, in no room
        hidden = self.C - 3 - config.num_face_down
        self.hand_sizes = np.array([(hidden - p + self.P - 1) // self.P for p in range(self.P)])
        self.deal_order = np.arange(hidden) % self.P  # who is dealt the k-th dealt card
        self._templates()

    def _templates(self) -> None:
        """Mask rows for the parts of each phase that do not depend on the game."""
        lay, A = self.layout, self.A
        rows = np.zeros((Phase.OVER + 1, 2, A), dtype=bool)  # [phase, may accuse, action]
        rows[:, 1, lay.ACCUSE : lay.ACCUSE + self.S * self.W * self.R] = True
        rows[[Phase.MOVE, Phase.SUGGEST, Phase.REFUTE, Phase.OVER], 1] = False
        rows[Phase.SUGGEST, :, lay.SUGGEST : lay.SUGGEST + self.S * self.W] = True
        rows[Phase.SUGGEST, :, lay.NO_SUGGESTION] = True
        rows[Phase.ACCUSE, :, lay.END_TURN] = True
        if self.classic:
            rows[Phase.TURN, :, lay.ROLL] = True
        else:
            rows[Phase.TURN, :, lay.ENTER : lay.ENTER + self.R] = True
        self.mask_rows = rows.reshape(-1, A)  # row 2 * phase + may accuse


def rules_for(config: GameConfig) -> Rules:
    """The rule tables of a config, built once and kept on the config."""
    try:
        return config.__dict__["_rules"]
    except KeyError:
        rules = _rules_by_config(config)
        config.__dict__["_rules"] = rules
        return rules


@cache
def _rules_by_config(config: GameConfig) -> Rules:
    return Rules(config)


def init(config: GameConfig, seeds: np.ndarray | list[int] | int) -> State:
    """Deal and set up one game per seed.

    Args:
        config: The rules.
        seeds: One non-negative integer seed per game (or a single int).

    Returns:
        The batch's state, with the deal's events (each player's ``DEAL``
        events, ``START`` and the first ``TURN``) in ``state.events``.
    """
    rules = rules_for(config)
    seeds = np.atleast_1d(np.asarray(seeds))
    if seeds.ndim != 1 or not np.issubdtype(seeds.dtype, np.integer) or (seeds < 0).any():
        raise ValueError(f"seeds must be non-negative integers, got {seeds!r}")
    B, C, P, R = len(seeds), rules.C, rules.P, rules.R
    key = game_key(seeds.astype(np.uint64))
    card_keys = draw(key[:, None], np.arange(C)[None, :])

    # Envelope: in each category, the card with the largest key.
    envelope = np.stack(
        [
            np.argmax(card_keys[:, lo:hi], axis=1) + lo
            for lo, hi in ((0, rules.S), (rules.S, rules.S + rules.W), (rules.S + rules.W, C))
        ],
        axis=1,
    ).astype(np.int16)
    rows = np.arange(B)[:, None]
    owner = np.full((B, C), ENVELOPE, dtype=np.int8)
    sort_keys = card_keys.copy()
    sort_keys[rows, envelope] = np.iinfo(np.uint64).max
    order = np.argsort(sort_keys, axis=1, kind="stable")[:, : C - 3]  # the other cards, shuffled
    face = config.num_face_down
    face_down = np.full((B, R), -1, dtype=np.int16)
    if face:
        face_down[:, list(CORNER_ROOMS)] = order[:, :face]
        owner[rows, order[:, :face]] = FACE_DOWN
    dealt = order[:, face:]
    owner[rows, dealt] = rules.deal_order[None, : dealt.shape[1]]

    first = _first_player(config, key, B)
    state = State(
        config=config,
        seed=seeds.astype(np.int64),
        phase=np.full(B, Phase.TURN, dtype=np.int8),
        current_player=first.astype(np.int8),
        turn_player=first.astype(np.int8),
        turn=np.zeros(B, dtype=np.int32),
        location=np.repeat(rules.pawn_start[None, :], B, axis=0),
        weapon_room=np.repeat(rules.weapon_start[None, :], B, axis=0),
        dice=np.full((B, 2), -1, dtype=np.int8),
        suggestion=np.full((B, 3), -1, dtype=np.int16),
        may_suggest=np.zeros(B, dtype=bool),
        summoned=np.zeros((B, P), dtype=bool),
        eliminated=np.zeros((B, P), dtype=bool),
        reachable=np.zeros((B, rules.N), dtype=bool),
        enterable=np.zeros((B, R), dtype=bool),
        terminated=np.zeros(B, dtype=bool),
        truncated=np.zeros(B, dtype=bool),
        winner=np.full(B, NOBODY, dtype=np.int8),
        rewards=np.zeros((B, P), dtype=np.float32),
        passed=np.zeros((B, P, C), dtype=bool),
        showed=np.zeros((B, P, C), dtype=np.uint8),
        accused=np.zeros((B, P, C), dtype=bool),
        events=np.full((B, rules.num_events, 7), -1, dtype=np.int16),
        num_events=np.zeros(B, dtype=np.int8),
        _key=key,
        _draws=np.full(B, DICE_DRAWS, dtype=np.uint32),
        _owner=owner,
        _envelope=envelope,
        _face_down=face_down,
        _shown_to=np.full((B, P, C), -1, dtype=np.int8),
        _peeked=np.zeros((B, P, C), dtype=bool),
    )
    # The deal's events: each player's DEAL events, START and the first TURN.
    n_dealt = dealt.shape[1]
    state.events[:, :n_dealt, 0] = ev.DEAL
    state.events[:, :n_dealt, 1] = rules.deal_order[:n_dealt]
    state.events[:, :n_dealt, 6] = dealt
    state.events[:, n_dealt : n_dealt + 2, 0] = (ev.START, ev.TURN)
    state.events[:, n_dealt : n_dealt + 2, 1] = first[:, None]
    state.events[:, n_dealt, 2] = first
    state.events[:, n_dealt + 1, 2] = 0
    state.num_events[:] = n_dealt + 2
    return state


def _first_player(config: GameConfig, key: np.ndarray, B: int) -> np.ndarray:
    P = config.num_players
    if config.start_player == "scarlet":
        return np.zeros(B, dtype=np.int64)
    base = config.cards.num_cards
    if config.start_player == "random":
        return (draw(key, np.full(B, base)) % np.uint64(P)).astype(np.int64)
    # Highest roll starts; the tied players roll again (at most START_ROLL_ROUNDS rounds).
    # Every round's dice are drawn at once; round r uses counters base + 2P r .. base + 2P r + 2P - 1.
    counters = base + np.arange(START_ROLL_ROUNDS * 2 * P)
    dice = draw_die(key[:, None], counters[None, :]).astype(np.int64).reshape(B, START_ROLL_ROUNDS, P, 2)
    rolls = dice[..., 0] + (dice[..., 1] if config.dice == 2 else 0)  # [B, round, player]
    # The tied players of a round are exactly those whose rolls so far are equal, so the winner
    # has the lexicographically largest sequence of rolls (4 bits per round, first round highest;
    # the lowest-numbered player after START_ROLL_ROUNDS tied rounds).
    shifts = np.uint64(4) * np.arange(START_ROLL_ROUNDS - 1, -1, -1, dtype=np.uint64)
    sequence = (rolls.astype(np.uint64) << shifts[None, :, None]).sum(axis=1, dtype=np.uint64)
    return np.argmax(sequence, axis=1)


def _emit(
    state: State,
    games: np.ndarray,
    kind: int,
    player: np.ndarray | int,
    a: np.ndarray | int | None = None,
    b: np.ndarray | int | None = None,
    c: np.ndarray | int | None = None,
    d: np.ndarray | int | None = None,
    card: np.ndarray | int | None = None,
    nth: np.ndarray | None = None,
) -> None:
    """Append one event to each game of ``games``, after the events it already has this step.

    ``a``..``d`` and ``card`` fill the event's columns (-1 when not given); a 2-D
    ``a`` of ``k`` columns fills ``a`` and the ``k - 1`` columns after it. ``games``
    may repeat a game only with ``nth``: the order (0, 1, ...) of its events in this call.
    """
    if len(games) == 0:
        return
    record = np.full((len(games), 7), -1, dtype=np.int16)
    record[:, 0] = kind
    record[:, 1] = player
    for column, value in enumerate((a, b, c, d, card), start=2):
        if value is None:
            continue
        if isinstance(value, np.ndarray) and value.ndim == 2:
            record[:, column : column + value.shape[1]] = value
        else:
            record[:, column] = value
    row = state.num_events[games]
    at = games * state.events.shape[1] + row
    if nth is None:
        state.num_events[games] = row + 1
    else:
        at += nth
        np.add.at(state.num_events, games, 1)
    state.events.reshape(-1, 7)[at] = record


def legal_action_mask(state: State) -> np.ndarray:
    """``bool[B, A]``: the acting player's legal actions; all False once a game is over."""
    rules = rules_for(state.config)
    lay = rules.layout
    player = state.turn_player.astype(np.int64)
    games = np.arange(state.batch_size)
    location = state.location[games, player]
    in_room = location < rules.R
    may_accuse = in_room | state.config.accuse_anywhere
    mask = np.take(rules.mask_rows, state.phase * 2 + may_accuse, axis=0)  # rows [phase, may accuse]

    turn = np.flatnonzero(state.phase == Phase.TURN)
    if len(turn) and rules.classic:
        room = np.where(in_room[turn], location[turn], 0)
        mask[turn, lay.PASSAGE] = in_room[turn] & (rules.passages[room] >= 0)
        may_stay = state.config.stay_in_room | state.summoned[turn, player[turn]]
        mask[turn, lay.STAY] = in_room[turn] & may_stay

    move = np.flatnonzero(state.phase == Phase.MOVE)
    if len(move):
        squares, rooms = state.reachable[move], state.enterable[move]
        mask[move, lay.ENTER : lay.ENTER + rules.R] = rooms
        any_square = squares.any(axis=1)
        if state.config.movement == "compact":
            toward = ~rooms & any_square[:, None]
            toward[in_room[move], location[move][in_room[move]]] = False
            mask[move, lay.TOWARD : lay.TOWARD + rules.R] = toward
        else:
            mask[move, lay.SQUARE : lay.SQUARE + rules.N] = squares
        mask[move, lay.NO_MOVE] = ~any_square & ~rooms.any(axis=1)

    refute = np.flatnonzero(state.phase == Phase.REFUTE)
    if len(refute):
        cards = state.suggestion[refute]
        refuter = state.current_player[refute, None]
        mask[refute[:, None], lay.SHOW + cards] = state._owner[refute[:, None], cards] == refuter
    return mask


def step(
    state: State, actions: np.ndarray | list[int], check: bool = True, games: np.ndarray | None = None
) -> State:
    """Apply the acting player's action in every game still running (or in ``games`` only).

    Args:
        state: The batch; updated in place and returned.
        actions: ``int[B]`` one action per game (ignored for games already over or not selected).
        check: Raise ``ValueError`` on an illegal action (costs a mask).
        games: ``bool[B]`` games to step; the others wait (default: all).

    Returns:
        ``state``, with this step's events and rewards (none for games that did not move) and flags.
    """
    rules = rules_for(state.config)
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    if len(actions) != state.batch_size:
        raise ValueError(f"actions must have one entry per game ({state.batch_size}), got {len(actions)}")
    live = state.phase != Phase.OVER
    if games is not None:
        live &= np.asarray(games, dtype=bool)
    if check:
        _check(state, np.where(live, actions, 0), live)
    used = int(state.num_events.max(initial=0))
    if used:
        state.events[:, :used] = -1
        state.num_events[:] = 0
    state.rewards[:] = 0
    actions = np.where(live, actions, rules.A)  # games over: the "no action" entry (kind -1)
    kind = rules.action_kind[actions]
    arg = rules.action_arg[actions]
    if len(kind) <= SMALL_BATCH:  # few games: one pass per kind present
        kinds = kind.tolist()
        for k in sorted(set(kinds) - {-1}):
            games = np.array([i for i, of in enumerate(kinds) if of == k])
            _HANDLERS[k](state, rules, games, arg[games])
    else:  # group the games by kind with one sort
        order = np.argsort(kind, kind="stable")
        bounds = np.searchsorted(kind[order], np.arange(len(RANGE_NAMES) + 1))
        for k, handler in enumerate(_HANDLERS):
            games = order[bounds[k] : bounds[k + 1]]
            if len(games):
                handler(state, rules, games, arg[games])
    return state


def _check(state: State, actions: np.ndarray, live: np.ndarray) -> None:
    rules = rules_for(state.config)
    if ((actions < 0) | (actions >= rules.A)).any():
        bad = int(np.flatnonzero((actions < 0) | (actions >= rules.A))[0])
        raise ValueError(f"action must be in [0, {rules.A}), got {actions[bad]} for game {bad}")
    legal = legal_action_mask(state)[np.arange(state.batch_size), actions] | ~live
    if not legal.all():
        game = int(np.flatnonzero(~legal)[0])
        phase = Phase.NAMES[state.phase[game]]
        raise ValueError(
            f"illegal action {actions[game]} ({rules.layout.action_to_string(int(actions[game]))}) "
            f"for game {game} in phase {phase!r}; see legal_action_mask(state) for the legal ones"
        )


# --- movement --------------------------------------------------------------


def _roll(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray) -> None:
    count = rules.config.dice
    draws = state._draws[games]
    dice = np.full((len(games), 2), -1, dtype=np.int8)  # one die: the second stays -1
    dice[:, :count] = draw_die(state._key[games, None], draws[:, None] + np.arange(count, dtype=np.uint32))
    state._draws[games] = draws + count
    total = dice[:, 0] + np.maximum(dice[:, 1], 0)
    state.dice[games] = dice
    player = state.turn_player[games].astype(np.int64)
    _emit(state, games, ev.ROLL, player, a=dice, c=total)
    squares, rooms = reachable(rules.moves, state.location[games, player], total, state.location[games])
    state.reachable[games], state.enterable[games] = squares, rooms
    state.phase[games] = Phase.MOVE


def _move_pawn(state: State, games: np.ndarray, mover: np.ndarray, pawn: np.ndarray, to, how: int) -> None:
    origin = state.location[games, pawn]
    state.location[games, pawn] = to
    _emit(state, games, ev.MOVE, mover, a=pawn, b=origin, c=to, d=how)


def _arrive_in_room(state: State, rules: Rules, games: np.ndarray, room: np.ndarray, how: int) -> None:
    """The turn player's pawn comes into ``room`` by its own move: it may suggest."""
    player = state.turn_player[games].astype(np.int64)
    _move_pawn(state, games, player, player, room, how)
    if rules.config.duel:
        card = state._face_down[games, room]
        seen = np.flatnonzero(card >= 0)
        _emit(state, games[seen], ev.PEEK, player[seen], a=room[seen], card=card[seen])
        state._peeked[games[seen], player[seen], card[seen]] = True
    state.may_suggest[games] = True
    state.phase[games] = Phase.SUGGEST


def _passage(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray) -> None:
    player = state.turn_player[games].astype(np.int64)
    room = rules.passages[state.location[games, player]].astype(np.int16)
    _arrive_in_room(state, rules, games, room, ev.MOVE_PASSAGE)


def _stay(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray) -> None:
    player = state.turn_player[games].astype(np.int64)
    room = state.location[games, player]
    _emit(state, games, ev.MOVE, player, a=player, b=room, c=room, d=ev.MOVE_STAY)
    state.may_suggest[games] = True
    state.phase[games] = Phase.SUGGEST


def _no_move(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray) -> None:
    player = state.turn_player[games].astype(np.int64)
    here = state.location[games, player]
    _emit(state, games, ev.MOVE, player, a=player, b=here, c=here, d=ev.MOVE_BLOCKED)
    state.phase[games] = Phase.ACCUSE


def _enter(state: State, rules: Rules, games: np.ndarray, room: np.ndarray) -> None:
    how = ev.MOVE_WALK if rules.classic else ev.MOVE_CHOOSE_ROOM
    _arrive_in_room(state, rules, games, room.astype(np.int16), how)


def _stop_on_square(state: State, rules: Rules, games: np.ndarray, square: np.ndarray) -> None:
    player = state.turn_player[games].astype(np.int64)
    _move_pawn(state, games, player, player, rules.R + square, ev.MOVE_WALK)
    state.phase[games] = Phase.ACCUSE


def _toward(state: State, rules: Rules, games: np.ndarray, room: np.ndarray) -> None:
    # The reachable square with the fewest moves into the room; ties go to the lowest square number.
    off = (~state.reachable[games]).view(np.uint8) * np.uint8(255)  # 255: not a stop of this move
    distance = rules.moves.distance_by_room[room] | off  # uint8; room distances are below 255
    _stop_on_square(state, rules, games, np.argmin(distance, axis=1))


def _square(state: State, rules: Rules, games: np.ndarray, square: np.ndarray) -> None:
    _stop_on_square(state, rules, games, square)


# --- suggestion and refutation ----------------------------------------------


def _suggest(state: State, rules: Rules, games: np.ndarray, arg: np.ndarray) -> None:
    P = rules.P
    suggester = state.turn_player[games].astype(np.int64)
    room = state.location[games, suggester].astype(np.int64)
    cards = rules.suggestion_cards[arg, room]  # [n, 3] card ids
    suspect, weapon = cards[:, 0], cards[:, 1]
    state.suggestion[games] = cards
    _emit(state, games, ev.SUGGEST, suggester, a=cards)

    # The named suspect's pawn and the weapon are moved into the room.
    pawn_moves = np.flatnonzero(state.location[games, suspect] != room)
    g = games[pawn_moves]
    _move_pawn(state, g, suggester[pawn_moves], suspect[pawn_moves], room[pawn_moves], ev.MOVE_SUMMONED)
    summoned = pawn_moves[suspect[pawn_moves] < P]
    state.summoned[games[summoned], suspect[summoned]] = True
    weapon_index = weapon - rules.S
    weapon_moves = np.flatnonzero(state.weapon_room[games, weapon_index] != room)
    g = games[weapon_moves]
    origin = state.weapon_room[g, weapon_index[weapon_moves]]
    state.weapon_room[g, weapon_index[weapon_moves]] = room[weapon_moves]
    _emit(
        state,
        g,
        ev.WEAPON,
        suggester[weapon_moves],
        a=weapon_index[weapon_moves],
        b=origin,
        c=room[weapon_moves],
    )

    # Ask clockwise from the next player: the first holding a named card refutes.
    holder = state._owner[games[:, None], cards]
    first = rules.asked_after[suggester[:, None], holder - FACE_DOWN].min(axis=1)
    # Everyone asked before the refuter passes: first - 1 PASS events per game, in order.
    passes = first - 1
    who = np.repeat(np.arange(len(games)), passes)
    k = np.arange(len(who)) - np.repeat(np.cumsum(passes) - passes, passes) + 1
    passer = (suggester[who] + k) % P
    _emit(state, games[who], ev.PASS, passer, a=suggester[who], nth=k - 1)
    state.passed[games[who, None], passer[:, None], cards[who]] = True
    nobody = np.flatnonzero(first == P)
    _emit(state, games[nobody], ev.NO_REFUTE, suggester[nobody])
    state.phase[games[nobody]] = Phase.ACCUSE

    refuted = np.flatnonzero(first < P)
    refuter = (suggester[refuted] + first[refuted]) % P
    state.current_player[games[refuted]] = refuter
    state.phase[games[refuted]] = Phase.REFUTE
    if rules.config.auto_refute:
        held = holder[refuted] == refuter[:, None]
        single = np.flatnonzero(held.sum(axis=1) == 1)
        g = games[refuted[single]]
        card = cards[refuted[single], np.argmax(held[single], axis=1)]
        _show(state, rules, g, card)


def _no_suggestion(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray) -> None:
    state.phase[games] = Phase.ACCUSE


def _show(state: State, rules: Rules, games: np.ndarray, card: np.ndarray) -> None:
    refuter, suggester = state.current_player[games], state.turn_player[games]
    _emit(state, games, ev.SHOW, refuter, a=suggester, card=card)
    at = (games[:, None], refuter[:, None], state.suggestion[games])
    state.showed[at] = np.minimum(state.showed[at], 254) + 1
    state._shown_to[games, suggester, card] = refuter
    state.current_player[games] = suggester
    state.phase[games] = Phase.ACCUSE


# --- accusation and turn order ------------------------------------------------


def _accuse(state: State, rules: Rules, games: np.ndarray, arg: np.ndarray) -> None:
    accuser = state.turn_player[games].astype(np.int64)
    cards = rules.accuse_cards[arg]
    right = (cards == state._envelope[games]).all(axis=1)
    _emit(state, games, ev.ACCUSE, accuser, a=cards, d=right)

    won = games[right]
    state.winner[won] = accuser[right]
    state.rewards[won] = -1.0
    state.rewards[won, accuser[right]] = 1.0
    _game_over(state, won, accuser[right], ev.END_WIN, terminated=True)

    wrong = games[~right]
    state.eliminated[wrong, accuser[~right]] = True
    state.accused[wrong[:, None], accuser[~right, None], cards[~right]] = True
    all_out = state.eliminated[wrong].all(axis=1)
    state.rewards[wrong[all_out]] = -1.0
    _game_over(state, wrong[all_out], -1, ev.END_ALL_WRONG, terminated=True)
    _next_turn(state, rules, wrong[~all_out])


def _end_turn(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray) -> None:
    _next_turn(state, rules, games)


def _next_turn(state: State, rules: Rules, games: np.ndarray) -> None:
    player = state.turn_player[games].astype(np.int64)
    state.summoned[games, player] = False
    state.may_suggest[games] = False
    state.dice[games] = -1
    state.suggestion[games] = -1
    turn = state.turn[games] + 1
    state.turn[games] = turn
    late = turn >= rules.config.max_turns
    if late.any():
        _game_over(state, games[late], -1, ev.END_TRUNCATED, terminated=False)
        games, player, turn = games[~late], player[~late], turn[~late]
    # The next player clockwise who is still in (eliminated players only refute).
    nxt = rules.next_player[state.eliminated[games] @ rules.player_bits, player]
    state.turn_player[games] = nxt
    state.current_player[games] = nxt
    state.phase[games] = Phase.TURN
    _emit(state, games, ev.TURN, nxt, a=turn)


def _game_over(state: State, games: np.ndarray, winner, reason: int, terminated: bool) -> None:
    if len(games) == 0:
        return
    envelope = state._envelope[games]
    state.terminated[games] = terminated
    state.truncated[games] = not terminated
    state.phase[games] = Phase.OVER
    state.current_player[games] = NOBODY
    _emit(state, games, ev.GAME_OVER, winner, a=envelope, d=reason)


# One handler per action range, in RANGE_NAMES order.
_HANDLERS = (
    _roll,
    _passage,
    _stay,
    _no_move,
    _enter,
    _toward,
    _square,
    _suggest,
    _no_suggestion,
    _show,
    _accuse,
    _end_turn,
)
