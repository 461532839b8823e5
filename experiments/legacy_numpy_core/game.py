"""LEGACY, for the benchmark's comparison only: the batched numpy rules core as it was before the
compiled core (``cluedo_env/core/play.py``) replaced it; frozen, not part of the package.

The rules of Cluedo on a batch of games: ``init``, ``step``, ``legal_action_mask``.

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
from cluedo_env.core.game import _as_actions, _as_mask, _check_games, _check_seeds  # input checks, shared
from cluedo_env.core.rng import draw, draw_die, game_key
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, NOBODY, Phase, State, put_rows
from experiments.legacy_numpy_core import one_game
from experiments.legacy_numpy_core.movement import MoveTables, reachable

__all__ = ["Rules", "init", "legal_action_mask", "reset", "rules_for", "step"]

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
        self.moves = _classic_moves() if self.classic else None
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
        self.action_kind = np.append(kind, -1).astype(np.int8)  # int8: the step sorts by kind (radix)
        self.action_arg = np.append(arg, 0)
        self.range_index = {name: k for k, name in enumerate(RANGE_NAMES)}
        # A suggestion's events, one slot each: SUGGEST, MOVE (the named pawn), PEEK (the summoned
        # player looks at the room's face-down card, duel), WEAPON, a PASS per player asked after
        # the suggester, NO_REFUTE; the fields that never change are filled in.
        self.suggest_events = np.full((1, self.P + 4, 7), -1, dtype=np.int16)
        self.suggest_events[0, :, 0] = (
            [ev.SUGGEST, ev.MOVE, ev.PEEK, ev.WEAPON] + [ev.PASS] * (self.P - 1) + [ev.NO_REFUTE]
        )
        self.suggest_events[0, 1, 5] = ev.MOVE_SUMMONED
        self.suggester_slots = np.array([0, 1, 3, self.P + 3])  # events whose player is the suggester
        self.pawn_weapon_base = np.array([0, self.S])  # first card of the suspects, of the weapons
        self.later = np.arange(1, self.P)  # players asked: 1, 2, ... seats after the suggester
        # Per move kind (by range index): the MOVE event's "how" and the phase after the move.
        self.move_how = np.zeros(len(RANGE_NAMES), dtype=np.int16)
        self.move_phase = np.zeros(len(RANGE_NAMES), dtype=np.int8)
        for name, how, phase in (
            ("passage", ev.MOVE_PASSAGE, Phase.SUGGEST),
            ("stay", ev.MOVE_STAY, Phase.SUGGEST),
            ("no_move", ev.MOVE_BLOCKED, Phase.ACCUSE),
            ("enter", ev.MOVE_WALK if self.classic else ev.MOVE_CHOOSE_ROOM, Phase.SUGGEST),
            ("toward", ev.MOVE_WALK, Phase.ACCUSE),
            ("square", ev.MOVE_WALK, Phase.ACCUSE),
        ):
            self.move_how[self.range_index[name]] = how
            self.move_phase[self.range_index[name]] = phase
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
        # passage_to[location]: where the passage from there leads (a location without one: itself,
        # so that an unchecked illegal passage cannot put a pawn nowhere; see ``step``).
        self.passage_to = np.arange(self.R + self.N + 1, dtype=np.int16)
        self.passage_to[: self.R][self.passages >= 0] = self.passages[self.passages >= 0]
        self.weapon_start = np.array(edition.weapon_start_rooms, dtype=np.int8)
        self.pawn_start = self.R + np.array(self.board.starts[: self.S], dtype=np.int16)
        if not self.classic:
            self.pawn_start = np.full(self.S, self.R, dtype=np.int16)  # off the board, in no room
        hidden = self.C - 3 - config.num_face_down
        self.hand_sizes = np.array([(hidden - p + self.P - 1) // self.P for p in range(self.P)])
        self.deal_order = np.arange(hidden) % self.P  # who is dealt the k-th dealt card
        # A deal's draws: the cards' shuffle keys use counters 0..C-1, the first player's the next.
        early = {"scarlet": 0, "random": 1, "dice": 2 * _START_ROLLS * self.P}[config.start_player]
        self.deal_draws = np.arange(self.C + early, dtype=np.uint64)[None, :]
        # by_category[k]: the cards of category k, its first card repeated to the longest's length.
        categories = [np.arange(self.S), self.S + np.arange(self.W), self.S + self.W + np.arange(self.R)]
        longest = max(len(cards) for cards in categories)
        self.by_category = np.stack(
            [np.pad(cards, (0, longest - len(cards)), mode="edge") for cards in categories]
        )
        self.category_row = np.arange(3) * longest
        # The deal's events with the fields every game shares: DEAL rows, START, TURN (turn 0).
        self.deal_events = np.full((1, self.num_events, 7), -1, dtype=np.int16)
        self.deal_events[0, :hidden, 0] = ev.DEAL
        self.deal_events[0, :hidden, 1] = self.deal_order
        self.deal_events[0, hidden : hidden + 2, 0] = (ev.START, ev.TURN)
        self.deal_events[0, hidden + 1, 2] = 0
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
        # phase_bits[action]: bit p set when the action's kind is played in phase p (legal or not in
        # the game), for ``step``'s check of every action, also unchecked ones. The extra entry A,
        # "no action", is what games already over get.
        phase_bits = np.zeros(A + 1, dtype=np.uint8)
        for name, phases in (
            ("roll", [Phase.TURN]),
            ("passage", [Phase.TURN]),
            ("stay", [Phase.TURN]),
            ("no_move", [Phase.MOVE]),
            ("enter", [Phase.MOVE] if self.classic else [Phase.TURN]),
            ("toward", [Phase.MOVE]),
            ("square", [Phase.MOVE]),
            ("suggest", [Phase.SUGGEST]),
            ("no_suggestion", [Phase.SUGGEST]),
            ("show", [Phase.REFUTE]),
            ("accuse", [Phase.TURN, Phase.ACCUSE]),
            ("end_turn", [Phase.ACCUSE]),
        ):
            lo = lay.offsets[name]
            phase_bits[lo : lo + lay.sizes[name]] = sum(1 << p for p in phases)
        phase_bits[A] = 1 << Phase.OVER
        self.phase_bits = phase_bits
        self.phase_bit = (1 << np.arange(Phase.OVER + 1)).astype(np.uint8)  # bit of each phase


@cache
def _classic_moves() -> MoveTables:
    return MoveTables(classic_board())  # one per process: every config of the board shares it


def rules_for(config: GameConfig) -> Rules:
    """The rule tables of a config, built once per config (cached by ``functools.cache``)."""
    return _rules_by_config(config)


@cache
def _rules_by_config(config: GameConfig) -> Rules:
    return Rules(config)


def init(config: GameConfig, seeds: np.ndarray | list[int] | int) -> State:
    """Deal and set up one game per seed.

    Args:
        config: The rules.
        seeds: One integer seed in ``[0, SEED_BOUND)`` = ``[0, 2**63)`` per game (or a single int).

    Returns:
        The batch's state, with the deal's events (each player's ``DEAL``
        events, ``START`` and the first ``TURN``) in ``state.events``.
    """
    rules = rules_for(config)
    seeds = _check_seeds(seeds)
    B, C, P, R = len(seeds), rules.C, rules.P, rules.R
    state = State(
        config=config,
        seed=np.zeros(B, dtype=np.int64),
        phase=np.zeros(B, dtype=np.int8),
        current_player=np.zeros(B, dtype=np.int8),
        turn_player=np.zeros(B, dtype=np.int8),
        turn=np.zeros(B, dtype=np.int32),
        location=np.zeros((B, rules.S), dtype=np.int16),
        weapon_room=np.zeros((B, rules.W), dtype=np.int8),
        dice=np.zeros((B, 2), dtype=np.int8),
        suggestion=np.zeros((B, 3), dtype=np.int16),
        may_suggest=np.zeros(B, dtype=bool),
        summoned=np.zeros((B, P), dtype=bool),
        eliminated=np.zeros((B, P), dtype=bool),
        reachable=np.zeros((B, rules.N), dtype=bool),
        enterable=np.zeros((B, R), dtype=bool),
        terminated=np.zeros(B, dtype=bool),
        truncated=np.zeros(B, dtype=bool),
        winner=np.zeros(B, dtype=np.int8),
        rewards=np.zeros((B, P), dtype=np.float32),
        passed=np.zeros((B, P, C), dtype=bool),
        showed=np.zeros((B, P, C), dtype=np.uint8),
        accused=np.zeros((B, P, C), dtype=bool),
        events=np.zeros((B, rules.num_events, 7), dtype=np.int16),
        num_events=np.zeros(B, dtype=np.int8),
        _key=np.zeros(B, dtype=np.uint64),
        _draws=np.zeros(B, dtype=np.uint32),
        _owner=np.zeros((B, C), dtype=np.int8),
        _envelope=np.zeros((B, 3), dtype=np.int16),
        _face_down=np.zeros((B, R), dtype=np.int16),
        _shown_to=np.zeros((B, P, C), dtype=np.int8),
        _peeked=np.zeros((B, P, C), dtype=bool),
    )
    return _deal(state, rules, np.arange(B), seeds)


def reset(state: State, games: np.ndarray | list[int], seeds: np.ndarray | list[int] | int) -> State:
    """Deal new games in place of ``games`` (finished ones, say), leaving the others as they are.

    Game ``games[k]`` becomes exactly the game ``init(state.config, seeds[k])``
    deals, its deal's events included; the other games keep their state and
    last step's events. Cheaper than ``state.put(games, init(...))``.

    Args:
        state: The batch; updated in place and returned.
        games: Indices of the games to deal again.
        seeds: One integer seed in ``[0, 2**63)`` per game of ``games``.
    """
    games = _check_games(games, state.batch_size)
    seeds = _check_seeds(seeds)
    if len(seeds) != len(games):
        raise ValueError(f"seeds must have one entry per game of games ({len(games)}), got {len(seeds)}")
    return _deal(state, rules_for(state.config), games, seeds)


def _deal(state: State, rules: Rules, games: np.ndarray, seeds: np.ndarray) -> State:
    """Write the freshly dealt games of ``seeds`` into rows ``games`` of ``state`` (every field)."""
    config = rules.config
    n, C = len(games), rules.C
    key = game_key(seeds.astype(np.uint64))
    drawn = draw(key[:, None], rules.deal_draws)  # the cards' shuffle keys, then the first player's
    card_keys = drawn[:, :C]

    # Envelope: in each category, the card with the largest key (``by_category`` repeats a
    # category's first card to fill its row; argmax keeps the first of equal keys).
    best = card_keys.take(rules.by_category, axis=1).argmax(axis=2)  # [n, 3]
    envelope = rules.by_category.take(best + rules.category_row).astype(np.int16)
    # The other cards, shuffled: ascending keys, the envelope's pushed to the end.
    at = (np.arange(n) * drawn.shape[1])[:, None] + envelope
    drawn.reshape(-1)[at] = _MAX_KEY  # (the cards' keys are not needed again)
    order = card_keys.argsort(axis=1, kind="stable")[:, : C - 3]
    owner = np.empty((n, C), dtype=np.int8)
    owner.fill(ENVELOPE)
    owner_flat = owner.reshape(-1)
    face = config.num_face_down
    face_down = np.empty((n, rules.R), dtype=np.int16)
    face_down.fill(-1)
    if face:
        face_down[:, list(CORNER_ROOMS)] = order[:, :face]
        owner_flat[(np.arange(n) * C)[:, None] + order[:, :face]] = FACE_DOWN
    dealt = order[:, face:]
    owner_flat[(np.arange(n) * C)[:, None] + dealt] = rules.deal_order[: dealt.shape[1]]
    first = _first_player(config, key, drawn[:, C:]).astype(np.int8)

    state.seed[games] = seeds
    state.phase[games] = Phase.TURN
    state.current_player[games] = first
    state.turn_player[games] = first
    state.turn[games] = 0
    state.location[games] = rules.pawn_start
    state.weapon_room[games] = rules.weapon_start
    for name, value in _FRESH.items():
        getattr(state, name)[games] = value
    state._key[games] = key
    state._draws[games] = DICE_DRAWS
    put_rows(state._owner, games, owner)
    put_rows(state._envelope, games, envelope)
    put_rows(state._face_down, games, face_down)

    # The deal's events: each player's DEAL events, START and the first TURN.
    n_dealt = dealt.shape[1]
    events = rules.deal_events.repeat(n, axis=0)  # the constant fields filled in
    events[:, :n_dealt, 6] = dealt
    events[:, n_dealt : n_dealt + 2, 1] = first[:, None]
    events[:, n_dealt, 2] = first
    put_rows(state.events, games, events)
    state.num_events[games] = n_dealt + 2
    return state


# Fields a fresh deal sets to the same value in every game.
_FRESH = {
    "dice": -1,
    "suggestion": -1,
    "may_suggest": False,
    "summoned": False,
    "eliminated": False,
    "reachable": False,
    "enterable": False,
    "terminated": False,
    "truncated": False,
    "winner": NOBODY,
    "rewards": 0.0,
    "passed": False,
    "showed": 0,
    "accused": False,
    "_shown_to": -1,
    "_peeked": False,
}


def _first_player(config: GameConfig, key: np.ndarray, early: np.ndarray) -> np.ndarray:
    """Who starts each game; ``early`` holds its first draws after the cards' (counters C, C+1, ...)."""
    P = config.num_players
    if config.start_player == "scarlet":
        return np.zeros(len(key), dtype=np.int64)
    if config.start_player == "random":
        return (early[:, 0] % np.uint64(P)).astype(np.int64)
    # Highest roll starts; the tied players roll again (at most START_ROLL_ROUNDS rounds).
    # Round r uses counters C + 2P r .. C + 2P r + 2P - 1. The tied players of a round are
    # exactly those whose rolls so far are equal, so the winner has the lexicographically largest
    # sequence of rolls (the lowest-numbered player after START_ROLL_ROUNDS tied rounds). The
    # first _START_ROLLS rounds nearly always settle it; the games still tied are settled on all.
    sequence = _roll_sequences(config, early)
    first = sequence.argmax(axis=1)
    tied = ((sequence == sequence.max(axis=1, keepdims=True)).sum(axis=1) > 1).nonzero()[0]
    if len(tied):
        counters = config.cards.num_cards + np.arange(START_ROLL_ROUNDS * 2 * P, dtype=np.uint64)
        first[tied] = _roll_sequences(config, draw(key[tied, None], counters[None, :])).argmax(axis=1)
    return first


_START_ROLLS = 2  # rounds of starting rolls drawn with the deal


def _roll_sequences(config: GameConfig, drawn: np.ndarray) -> np.ndarray:
    """``uint64[b, P]``: each player's starting rolls, 4 bits a roll, the first round highest.

    ``drawn`` holds the dice's draws (``[b, rounds * 2P]``, round by round, two dice a player);
    a roll counts its faces less one each, which orders the sequences as the rolls themselves.
    """
    rounds = drawn.shape[1] // (2 * config.num_players)
    return (drawn % np.uint64(6)) @ _sequence_weights(config.num_players, config.dice, rounds)


@cache
def _sequence_weights(players: int, dice: int, rounds: int) -> np.ndarray:
    """``uint64[rounds * 2P, P]``: the weight of each draw in its player's sequence of rolls."""
    weights = np.zeros((rounds, players, 2, players), dtype=np.uint64)
    for r in range(rounds):
        for p in range(players):
            weights[r, p, :dice, p] = 16 ** (rounds - 1 - r)
    return weights.reshape(-1, players)


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
) -> None:
    """Add one event to each game of ``games`` (no repeats), after the events it already has this step.

    ``a``..``d`` and ``card`` fill the event's columns (-1 when not given); a 2-D
    ``a`` of ``k`` columns fills ``a`` and the ``k - 1`` columns after it. The
    events are written to ``state.events`` at the end of the step (``_write_events``).
    """
    if len(games) == 0:
        return
    record = _RECORDS[kind].repeat(len(games), axis=0)  # the kind, and -1 in every other field
    record[:, 1] = player
    for column, value in enumerate((a, b, c, d, card), start=2):
        if value is None:
            continue
        if isinstance(value, np.ndarray) and value.ndim == 2:
            record[:, column : column + value.shape[1]] = value
        else:
            record[:, column] = value
    state.__dict__["_pending"].append((games, record))


def _emit_block(state: State, games: np.ndarray, block: np.ndarray, written: np.ndarray) -> None:
    """Add the events ``block[i, k]`` with ``written[i, k]`` to game ``games[i]``, in order of k.

    ``games`` has no repeats; ``block`` is ``int16[n, K, 7]`` and ``written`` ``bool[n, K]``.
    """
    state.__dict__["_pending"].append((games.repeat(written.sum(axis=1)), block[written]))


def _write_events(state: State, pending: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Write a step's events (``(games, records)`` in the order emitted) into ``state.events``,
    in one scatter: each game's rows in the order of emission, from row 0 (cleared by ``step``)."""
    if len(pending) == 1:
        games, records = pending[0]
    else:
        games = np.concatenate([games for games, _ in pending])
        records = np.concatenate([records for _, records in pending])
    # Each event's rank among its game's events: its place in a stable sort by game (a radix
    # sort on 16-bit game numbers where they fit) less the place of the game's first event.
    order = games.astype(np.int16 if len(state.num_events) <= _INT16_GAMES else np.int64).argsort(
        kind="stable"
    )
    ordered = games[order]
    count = np.bincount(games, minlength=len(state.num_events))
    state.num_events[:] = count
    first = count.cumsum() - count
    at = np.empty_like(games)
    at[order] = ordered * state.events.shape[1] + np.arange(len(games)) - first.take(ordered)
    # Rows copied as opaque 14-byte records: much faster than a fancy assignment of [n, 7].
    state.events.reshape(-1, 7).view(_EVENT_ROW)[at, 0] = records.view(_EVENT_ROW)[:, 0]


_EVENT_ROW = np.dtype((np.void, 14))
_RECORDS = [np.array([[kind] + [-1] * 6], dtype=np.int16) for kind in range(len(ev.EVENT_KINDS))]
_INT16_GAMES = np.iinfo(np.int16).max + 1
_MAX_KEY = np.iinfo(np.uint64).max


def legal_action_mask(state: State) -> np.ndarray:
    """``bool[B, A]``: the acting player's legal actions; all False once a game is over."""
    rules = rules_for(state.config)
    if state.batch_size == 1:  # one game: Python scalars (see ``one_game``)
        return one_game.legal_action_mask(state, rules)
    lay = rules.layout
    player = state.turn_player.astype(np.int64)
    games = np.arange(state.batch_size)
    location = state.location[games, player]
    in_room = location < rules.R
    may_accuse = in_room | state.config.accuse_anywhere
    mask = rules.mask_rows.take(state.phase * 2 + may_accuse, axis=0)  # rows [phase, may accuse]

    turn, move, refute = ((state.phase == k).nonzero()[0] for k in _MASK_PHASES)
    if len(turn) and rules.classic:
        room = np.where(in_room[turn], location[turn], 0)
        mask[turn, lay.PASSAGE] = in_room[turn] & (rules.passages[room] >= 0)
        may_stay = state.config.stay_in_room | state.summoned[turn, player[turn]]
        mask[turn, lay.STAY] = in_room[turn] & may_stay

    if len(move):
        squares, rooms = state.reachable.take(move, axis=0), state.enterable.take(move, axis=0)
        mask[move, lay.ENTER : lay.ENTER + rules.R] = rooms
        any_square = squares.any(axis=1)
        if state.config.movement == "compact":
            toward = ~rooms & any_square[:, None]
            toward[in_room[move], location[move][in_room[move]]] = False
            mask[move, lay.TOWARD : lay.TOWARD + rules.R] = toward
        else:
            mask[move, lay.SQUARE : lay.SQUARE + rules.N] = squares
        mask[move, lay.NO_MOVE] = ~any_square & ~rooms.any(axis=1)

    if len(refute):
        cards = state.suggestion.take(refute, axis=0)
        refuter = state.current_player[refute, None]
        held = state._owner.take(refute[:, None] * rules.C + cards) == refuter
        mask.reshape(-1)[refute[:, None] * rules.A + (lay.SHOW + cards)] = held
    return mask


_MASK_PHASES = (Phase.TURN, Phase.MOVE, Phase.REFUTE)  # the phases whose mask depends on the game


def step(
    state: State, actions: np.ndarray | list[int], check: bool = True, games: np.ndarray | None = None
) -> State:
    """Apply the acting player's action in every game still running (or in ``games`` only).

    Args:
        state: The batch; updated in place and returned.
        actions: ``int[B]`` one action per game: a list of ints or a 1-D integer array of length
            B (ignored for games already over or not selected). Anything else (floats, strings,
            bools, another shape) raises ``TypeError`` or ``ValueError``.
        check: Raise ``ValueError`` on an illegal action (costs a legal-action mask). With
            ``check=False`` the step is for callers that already hold this step's mask and pick
            from it (the environments, the agents): an action out of range, or of a kind not
            played in the game's phase, is still refused before anything changes, but an action
            of the right kind that the mask forbids (entering a room out of reach, showing a card
            not held) is played as given and leaves that game outside the rules.
        games: ``bool[B]`` mask of the games to step; the others wait (default: all). Indices
            are refused (``TypeError``): build the mask, e.g. ``np.isin(np.arange(B), indices)``.

    Returns:
        ``state``, with this step's events and rewards (none for games that did not move) and flags.

    Raises:
        ValueError: an illegal action (the message names the game, the action and its phase);
            the state is then unchanged.
    """
    rules = rules_for(state.config)
    B = state.batch_size
    if games is None and B == 1:  # one game: Python scalars (see ``one_game``)
        if type(actions) is list and len(actions) == 1 and type(actions[0]) is int:
            action = actions[0]
        else:
            action = int(_as_actions(actions, 1)[0])
        if check and state.phase.item() != Phase.OVER:
            _check(state, np.array([action]), np.ones(1, dtype=bool))  # raises on an illegal action
        if not one_game.step(state, rules, action):  # refused, unchanged: out of range or phase
            _check(state, np.array([action]), np.ones(1, dtype=bool))  # raises, naming the action
        return state
    actions = _as_actions(actions, B)
    live = state.phase != Phase.OVER
    if games is not None:
        live &= _as_mask(games, B)
    if check:
        _check(state, np.where(live, actions, 0), live)
    stepped = actions
    actions = np.where(live, actions, rules.A)  # games over: the "no action" entry (kind -1)
    if not check:  # unchecked: still refuse, before any change, an action out of range or of another phase
        phase = state.phase if games is None else np.where(live, state.phase, Phase.OVER)
        fits = rules.phase_bits.take(actions, mode="clip") & rules.phase_bit.take(phase)
        if actions.view(np.uint64).max(initial=0) > rules.A or not fits.all():
            _check(state, np.where(live, stepped, 0), live)  # raises, naming the game and the action
    _clear_events(state)
    state.__dict__["_pending"] = []  # the step's events, written at its end (see ``_emit``)
    state.rewards[:] = 0
    kind = rules.action_kind[actions]
    arg = rules.action_arg[actions]
    passing = []  # games whose turn passes to the next player (after an accusation or end of turn)
    if len(kind) <= SMALL_BATCH:  # few games: grouped by handler in Python
        groups: dict[int, list[tuple[int, int]]] = {}
        for i, of in enumerate(kind.tolist()):
            if of >= 0:
                groups.setdefault(_HANDLER_OF_KIND[of], []).append((of, i))
        for h in sorted(groups):
            games = np.array([i for _, i in sorted(groups[h])])  # sorted by kind
            passing.append(_HANDLERS[h][0](state, rules, games, arg[games], kind[games]))
    else:  # group the games by kind with one sort
        order = kind.argsort(kind="stable")
        sorted_kind = kind[order]
        bounds = sorted_kind.searchsorted(np.arange(len(RANGE_NAMES) + 1)).tolist()
        for handler, lo, hi in _HANDLERS:
            if bounds[hi] > bounds[lo]:
                games = order[bounds[lo] : bounds[hi]]
                passing.append(handler(state, rules, games, arg[games], sorted_kind[bounds[lo] : bounds[hi]]))
    passing = [games for games in passing if games is not None and len(games)]
    if passing:
        _next_turn(state, rules, passing[0] if len(passing) == 1 else np.concatenate(passing))
    pending = state.__dict__.pop("_pending")
    if pending:
        _write_events(state, pending)
    return state


def _clear_events(state: State) -> None:
    """Mark every event row unused (kind -1 and every field -1) before a step writes its own."""
    if state.num_events.any():
        state.events.fill(-1)  # one contiguous fill beats clearing the rows used
        state.num_events.fill(0)


def _check(state: State, actions: np.ndarray, live: np.ndarray) -> None:
    rules = rules_for(state.config)
    if ((actions < 0) | (actions >= rules.A)).any():
        bad = int(np.flatnonzero((actions < 0) | (actions >= rules.A))[0])
        raise ValueError(f"action must be in [0, {rules.A}), got {actions[bad]} for game {bad}")
    legal = legal_action_mask(state)[np.arange(state.batch_size), actions] | ~live
    if not legal.all():
        game = int((~legal).nonzero()[0][0])
        phase = Phase.NAMES[state.phase[game]]
        raise ValueError(
            f"illegal action {actions[game]} ({rules.layout.action_to_string(int(actions[game]))}) "
            f"for game {game} in phase {phase!r}; see legal_action_mask(state) for the legal ones"
        )


# --- movement --------------------------------------------------------------


def _roll(state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray, _kind: np.ndarray) -> None:
    count = rules.config.dice
    draws = state._draws[games]
    dice = np.empty((len(games), 2), dtype=np.int8)
    dice[:, 1] = -1  # one die: the second stays -1
    dice[:, :count] = draw_die(state._key[games, None], draws[:, None] + np.arange(count, dtype=np.uint32))
    state._draws[games] = draws + count
    total = dice[:, 0] + np.maximum(dice[:, 1], 0)
    put_rows(state.dice, games, dice)
    player = state.turn_player[games].astype(np.int64)
    _emit(state, games, ev.ROLL, player, a=dice, c=total)
    pawns = state.location.take(games, axis=0)
    squares, rooms = reachable(rules.moves, pawns[np.arange(len(games)), player], total, pawns)
    put_rows(state.reachable, games, squares)
    put_rows(state.enterable, games, rooms)
    state.phase[games] = Phase.MOVE


def _move(state: State, rules: Rules, games: np.ndarray, arg: np.ndarray, kind: np.ndarray) -> None:
    """The turn player's own move, for every move kind at once (``games`` sorted by kind).

    passage / stay / enter end in a room (the player may suggest there); no move (every way
    blocked), toward and square end the move elsewhere (the turn goes on to ``ACCUSE``).
    """
    player = state.turn_player[games].astype(np.int64)
    here = state.location[games, player]
    to = here.copy()
    cut = kind.searchsorted(_MOVE_KINDS).tolist()  # slices of each kind, in _MOVE_KINDS order
    passage, _stay, _blocked, enter, toward, square = (slice(cut[k], cut[k + 1]) for k in range(6))
    if cut[1] > cut[0]:
        to[passage] = rules.passage_to[here[passage]]
    if cut[4] > cut[3]:
        to[enter] = arg[enter]
    if cut[6] > cut[5]:
        to[square] = rules.R + arg[square]
    if cut[5] > cut[4]:
        # The reachable square with the fewest moves into the room; ties go to the lowest number.
        g = games[toward]
        off = (~state.reachable.take(g, axis=0)).view(np.uint8) * np.uint8(255)  # 255: not a stop
        distance = rules.moves.distance_by_room[arg[toward]] | off  # uint8; room distances are below 255
        to[toward] = rules.R + distance.argmin(axis=1)
    state.location[games, player] = to
    _emit(state, games, ev.MOVE, player, a=player, b=here, c=to, d=rules.move_how[kind])
    phase = rules.move_phase[kind]
    if cut[2] > cut[0]:  # passage, stay: a room, unless unchecked and illegal (from a square)
        phase[: cut[2]] = np.where(to[: cut[2]] < rules.R, Phase.SUGGEST, Phase.ACCUSE)
    state.phase[games] = phase
    state.may_suggest[games[phase == Phase.SUGGEST]] = True
    if rules.config.duel:  # arriving in a corner room, the player looks at its face-down card
        arrive = np.concatenate([games[passage], games[enter]])
        who = np.concatenate([player[passage], player[enter]])
        room = np.concatenate([to[passage], to[enter]]).astype(np.int64)
        into = (room < rules.R).nonzero()[0]
        arrive, who, room = arrive[into], who[into], room[into]
        card = state._face_down[arrive, room]
        seen = (card >= 0).nonzero()[0]
        _emit(state, arrive[seen], ev.PEEK, who[seen], a=room[seen], card=card[seen])
        state._peeked[arrive[seen], who[seen], card[seen]] = True


# --- suggestion and refutation ----------------------------------------------


def _suggest(state: State, rules: Rules, games: np.ndarray, arg: np.ndarray, _kind: np.ndarray) -> None:
    P, C, n = rules.P, rules.C, len(games)
    suggester = state.turn_player[games].astype(np.int64)
    room = state.location[games, suggester].astype(np.int64)
    cards = rules.suggestion_cards[arg, room]  # [n, 3] card ids
    suspect, weapon_index = cards[:, 0], cards[:, 1] - rules.S
    put_rows(state.suggestion, games, cards)

    # The named suspect's pawn and the weapon are moved into the room.
    pawn_from = state.location[games, suspect]
    state.location[games, suspect] = room
    moved = pawn_from != room  # a player's pawn moved by a suggestion may suggest there next turn
    state.summoned.reshape(-1)[(games * P + suspect)[moved & (suspect < P)]] = True
    weapon_from = state.weapon_room[games, weapon_index]
    state.weapon_room[games, weapon_index] = room

    # Ask clockwise from the next player: the first holding a named card refutes; everyone
    # asked before passes. (Flat indices: much faster than indexing with several arrays.)
    holder = state._owner.take(games[:, None] * C + cards)
    asked_after = rules.asked_after
    first = asked_after.take(suggester[:, None] * asked_after.shape[1] + (holder - FACE_DOWN)).min(axis=1)
    passer = (suggester[:, None] + rules.later) % P  # [n, P - 1]: the players asked, in order
    passes = rules.later < first[:, None]
    at = ((games[:, None] * P + passer) * C)[:, :, None] + cards[:, None, :]
    state.passed.reshape(-1)[at[passes]] = True

    # The events, in order: SUGGEST, MOVE (the pawn), PEEK (duel), WEAPON, a PASS per player who
    # passed, NO_REFUTE; written as one block per game.
    block = rules.suggest_events.repeat(n, axis=0)  # [n, P + 4, 7] with the constant fields
    block[:, rules.suggester_slots, 1] = suggester[:, None]
    block[:, 0, 2:5] = cards
    block[:, 1:4:2, 2] = cards[:, :2] - rules.pawn_weapon_base  # the pawn, the weapon
    block[:, 1, 3] = pawn_from
    block[:, 3, 3] = weapon_from
    block[:, 1:4:2, 4] = room[:, None]
    block[:, 4 : P + 3, 1] = passer
    block[:, 4 : P + 3, 2] = suggester[:, None]
    nobody = first == P
    written = np.empty((n, P + 4), dtype=bool)
    written[:, 0] = True
    written[:, 1] = moved
    written[:, 2] = False
    if rules.config.duel:  # a player's pawn brought into a room looks at its face-down card (seed 002)
        card = state._face_down.take(games * rules.R + room)
        peek = moved & (suspect < P) & (card >= 0)
        block[:, 2, 1] = suspect
        block[:, 2, 2] = room
        block[:, 2, 6] = card
        written[:, 2] = peek
        state._peeked.reshape(-1)[((games * P + suspect) * C + card)[peek]] = True
    written[:, 3] = weapon_from != room
    written[:, 4 : P + 3] = passes
    written[:, P + 3] = nobody
    _emit_block(state, games, block, written)

    # The refuter decides next (with nobody to refute, the suggester: P players after itself).
    state.current_player[games] = (suggester + first) % P
    state.phase[games] = np.where(nobody, Phase.ACCUSE, Phase.REFUTE)
    if rules.config.auto_refute:
        refuted = (~nobody).nonzero()[0]
        refuter = (suggester[refuted] + first[refuted]) % P
        held = holder[refuted] == refuter[:, None]
        single = (held.sum(axis=1) == 1).nonzero()[0]
        g = games[refuted[single]]
        card = cards[refuted[single], held[single].argmax(axis=1)]
        _show(state, rules, g, card)


def _no_suggestion(
    state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray, _kind: np.ndarray
) -> None:
    state.phase[games] = Phase.ACCUSE


def _show(state: State, rules: Rules, games: np.ndarray, card: np.ndarray, _kind=None) -> None:
    refuter, suggester = state.current_player[games], state.turn_player[games]
    _emit(state, games, ev.SHOW, refuter, a=suggester, card=card)
    row = games * rules.P + refuter  # (flat indices: much faster than indexing with several arrays)
    at = (row * rules.C)[:, None] + state.suggestion.take(games, axis=0)
    showed = state.showed.reshape(-1)
    showed[at] = np.minimum(showed[at], 254) + 1
    state._shown_to.reshape(-1)[(games * rules.P + suggester) * rules.C + card] = refuter
    state.current_player[games] = suggester
    state.phase[games] = Phase.ACCUSE


# --- accusation and turn order ------------------------------------------------


def _accuse(state: State, rules: Rules, games: np.ndarray, arg: np.ndarray, _kind: np.ndarray) -> np.ndarray:
    accuser = state.turn_player[games].astype(np.int64)
    cards = rules.accuse_cards[arg]
    right = (cards == state._envelope.take(games, axis=0)).all(axis=1)
    _emit(state, games, ev.ACCUSE, accuser, a=cards, d=right)

    if right.any():
        won, winner = games[right], accuser[right]
        state.winner[won] = winner
        state.rewards[won] = -1.0
        state.rewards[won, winner] = 1.0
        _game_over(state, won, winner, ev.END_WIN, terminated=True)
        games, accuser, cards = games[~right], accuser[~right], cards[~right]

    # Wrong: the accuser is out of moving, suggesting and accusing (not of refuting).
    P, C = rules.P, rules.C
    state.eliminated.reshape(-1)[games * P + accuser] = True
    state.accused.reshape(-1)[((games * P + accuser) * C)[:, None] + cards] = True
    all_out = state.eliminated.take(games, axis=0).all(axis=1)
    if all_out.any():
        state.rewards[games[all_out]] = -1.0
        _game_over(state, games[all_out], -1, ev.END_ALL_WRONG, terminated=True)
        games = games[~all_out]
    return games  # the turn passes (``step`` calls ``_next_turn``)


def _end_turn(
    state: State, rules: Rules, games: np.ndarray, _arg: np.ndarray, _kind: np.ndarray
) -> np.ndarray:
    return games  # the turn passes (``step`` calls ``_next_turn``)


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
    out = state.eliminated.take(games, axis=0) @ rules.player_bits  # who is out, as bits
    nxt = rules.next_player.take(out * rules.P + player)
    state.turn_player[games] = nxt
    state.current_player[games] = nxt
    state.phase[games] = Phase.TURN
    _emit(state, games, ev.TURN, nxt, a=turn)


def _game_over(state: State, games: np.ndarray, winner, reason: int, terminated: bool) -> None:
    if len(games) == 0:
        return
    envelope = state._envelope.take(games, axis=0)
    state.terminated[games] = terminated
    state.truncated[games] = not terminated
    state.phase[games] = Phase.OVER
    state.current_player[games] = NOBODY
    _emit(state, games, ev.GAME_OVER, winner, a=envelope, d=reason)


# The handlers: (handler, first range index, last range index + 1), in RANGE_NAMES order. A
# handler gets the games whose action falls in its ranges, sorted by range, with each action's
# argument and range index; it returns the games whose turn passes to the next player (``step``
# then calls ``_next_turn`` once for all), or None.
def _ranges(first: str, last: str) -> tuple[int, int]:
    """Range indices ``first`` .. ``last`` of RANGE_NAMES, as (start, stop)."""
    return RANGE_NAMES.index(first), RANGE_NAMES.index(last) + 1


_MOVE_RANGES = _ranges("passage", "square")  # passage, stay, no_move, enter, toward, square
_HANDLERS = (
    (_roll, *_ranges("roll", "roll")),
    (_move, *_MOVE_RANGES),
    (_suggest, *_ranges("suggest", "suggest")),
    (_no_suggestion, *_ranges("no_suggestion", "no_suggestion")),
    (_show, *_ranges("show", "show")),
    (_accuse, *_ranges("accuse", "accuse")),
    (_end_turn, *_ranges("end_turn", "end_turn")),
)
_HANDLER_OF_KIND = tuple(h for h, (_, lo, hi) in enumerate(_HANDLERS) for _ in range(lo, hi))
_MOVE_KINDS = np.arange(_MOVE_RANGES[0], _MOVE_RANGES[1] + 1)  # the move kinds, and one past the last
