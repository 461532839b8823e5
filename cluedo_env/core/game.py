"""The rules of Cluedo on a batch of games: ``init``, ``step``, ``legal_action_mask``, ``reset``.

Each step applies one decision of the acting player of every game of the
batch. Forced consequences run inside the same step: a suggestion moves the
pawn and weapon and asks the players clockwise until one holds a named card;
those holding none pass at once. A refuter holding several named cards then
decides which to show in a step of its own (also with a single card unless
``auto_refute``).

A turn: ``TURN`` (roll / passage / stay / accuse; with ``board="none"`` pick a
room) -> ``MOVE`` (after a roll) -> ``SUGGEST`` (only when the move ended in a
room: by entering it, passage, staying, or picking it) -> ``REFUTE`` (the
refuter, if a decision is needed) -> ``ACCUSE`` (accuse or end the turn).

Rewards arrive on the step that ends a game: +1 to the winner and -1 to every
other player; -1 to everybody when every player accused wrongly; 0 to everybody
when the game is truncated at ``max_turns``.

The rules themselves are written once, for one game, in ``core/rules.py`` and compiled; this module
checks the input, builds each config's rule tables (``Rules``) and calls the compiled entry points
over the batch (``core/batched.py``).

``games=`` always takes game indices, a list or 1-D integer array (``state.game_indices`` checks
them): the games to deal again (``reset``), to step (``step``), to observe (``observe``).
"""

from __future__ import annotations

import os
import threading
from functools import cache
from typing import NoReturn

import numba
import numpy as np

from cluedo_env.core import batched, layout
from cluedo_env.core.actions import RANGE_NAMES, ActionLayout
from cluedo_env.core.board import classic_board, room_distances
from cluedo_env.core.config import CONFIGS_KEPT, CORNER_ROOMS, DEALS, GameConfig
from cluedo_env.core.events import MOVE_BLOCKED, MOVE_CHOOSE_ROOM, MOVE_PASSAGE, MOVE_STAY, MOVE_WALK
from cluedo_env.core.integers import holds_a_bool
from cluedo_env.core.layout import STATE_FIELDS
from cluedo_env.core.movement import MAX_ROLL, MoveTables
from cluedo_env.core.rng import SEED_BOUND
from cluedo_env.core.rules import START_PLAYERS
from cluedo_env.core.state import Phase, State, field_shapes, game_indices

__all__ = ["CORNER_ROOMS", "Rules", "check_seeds", "init", "legal_action_mask", "reset", "rules_for", "step"]

PARALLEL_BATCH = 256  # from this many games a step runs on every core (below, threads cost more)


class Rules:
    """Tables derived once from a config; shared by every state of that config (see ``rules_for``).

    ``tables`` is what the compiled rules read (the buffer of ``layout.pack_tables``); the other
    attributes are for Python code (observations, agents, tools).
    """

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
            self.location_room_distance = room_distances(self.board)
            self.max_room_distance = float(self.location_room_distance.max())
        self.num_events = max(self.C, self.P + 4)
        sw = np.arange(self.S * self.W)
        self.suggest_cards = np.stack([sw // self.W, self.S + sw % self.W], axis=1)  # suspect, weapon
        swr = np.arange(self.S * self.W * self.R)
        self.accuse_cards = np.stack(
            [swr // (self.W * self.R), self.S + (swr // self.R) % self.W, self.S + self.W + swr % self.R],
            axis=1,
        )
        self.passages = self.board.passages if self.classic else np.full(self.R, -1, dtype=np.int8)
        batched.check_cache()  # (before the first compiled call of the process)
        self.tables = layout.pack_tables(self._numbers(), self._tables())
        self.no_mask = np.zeros((0, self.A), dtype=bool)  # the compiled rules' "no mask wanted"
        self.observation_tables: dict[str, object] = {}  # per observation kind, built by core.observe

    def _numbers(self) -> dict[str, int]:
        """The numbers of ``layout.NUMBERS``."""
        config, lay = self.config, self.layout
        return {
            "S": self.S,
            "W": self.W,
            "R": self.R,
            "C": self.C,
            "P": self.P,
            "N": self.N,
            "A": self.A,
            "E": self.num_events,
            "num_doors": len(self.moves.door_room) if self.classic else 0,
            "classic": int(self.classic),
            "dice": config.dice,
            "max_turns": config.max_turns,
            "duel": int(config.duel),
            "auto_refute": int(config.auto_refute),
            "stay_in_room": int(config.stay_in_room),
            "accuse_anywhere": int(config.accuse_anywhere),
            "compact": int(config.movement == "compact"),
            "start_player": START_PLAYERS.index(config.start_player),
            "num_face_down": config.num_face_down,
            "deal": DEALS.index(config.deal),
            **{name: lay.offsets[name.lower()] for name in ("PASSAGE", "STAY", "NO_MOVE", "ENTER")},
            **{name: lay.offsets[name.lower()] for name in ("TOWARD", "SQUARE", "SHOW")},
            "actions_and_none": self.A + 1,
            "suggestions": self.S * self.W,
            "accusations": self.S * self.W * self.R,
            "locations": self.R + self.N,
            "locations_and_off_board": self.R + self.N + 1,
            "location_rolls": (self.R + self.N) * (MAX_ROLL + 1),
        }

    def _tables(self) -> dict[str, np.ndarray]:
        """The tables of ``layout.TABLE_FIELDS``."""
        lay, A, R, N = self.layout, self.A, self.R, self.N
        # Per action: its range index and its argument within the range (and "no action" at A).
        kind = np.full(A + 1, -1, dtype=np.int8)
        arg = np.zeros(A + 1, dtype=np.int32)
        for k, name in enumerate(RANGE_NAMES):
            lo, size = lay.offsets[name], lay.sizes[name]
            kind[lo : lo + size] = k
            arg[lo : lo + size] = np.arange(size)
        # Per move kind: the MOVE event's "how" and the phase after the move.
        move_how = np.zeros(len(RANGE_NAMES), dtype=np.int16)
        move_phase = np.zeros(len(RANGE_NAMES), dtype=np.int8)
        for name, how, phase in (
            ("passage", MOVE_PASSAGE, Phase.SUGGEST),
            ("stay", MOVE_STAY, Phase.SUGGEST),
            ("no_move", MOVE_BLOCKED, Phase.ACCUSE),
            ("enter", MOVE_WALK if self.classic else MOVE_CHOOSE_ROOM, Phase.SUGGEST),
            ("toward", MOVE_WALK, Phase.ACCUSE),
            ("square", MOVE_WALK, Phase.ACCUSE),
        ):
            move_how[RANGE_NAMES.index(name)] = how
            move_phase[RANGE_NAMES.index(name)] = phase
        # passage_to[location]: where the passage from there leads (a location without one: itself,
        # so that an unchecked illegal passage cannot put a pawn nowhere; see ``step``).
        passage_to = np.arange(R + N + 1, dtype=np.int16)
        passage_to[:R][self.passages >= 0] = self.passages[self.passages >= 0]
        pawn_start = (
            R + np.array(self.board.starts[: self.S], dtype=np.int16)
            if self.classic
            else np.full(self.S, R, dtype=np.int16)  # off the board, in no room
        )
        moves = self.moves
        if self.classic:
            movement = {
                "stop_within": moves.stop_within,
                "enter_within": moves.enter_within,
                "distance_from": moves.distance_from,
                "distance_by_room": moves.distance_by_room,
                "corridor": moves.corridor,
                "room_doors": moves.room_doors,
                "square_row": moves.square_row,
                "square_col": moves.square_col,
                "door_room": moves.door_room,
                "door_square": moves.door_square,
            }
        else:  # no board: empty tables of the shapes the compiled rules expect
            movement = {
                "stop_within": np.zeros((R * (MAX_ROLL + 1), 0)),
                "enter_within": np.zeros((R * (MAX_ROLL + 1), R)),
                "distance_from": np.zeros((R, 0)),
                "distance_by_room": np.zeros((R, 0)),
                "corridor": np.zeros(25),
                "room_doors": np.zeros((R, 25)),
                **{name: np.zeros(0) for name in ("square_row", "square_col", "door_room", "door_square")},
            }
        return {
            "action_kind": kind,
            "action_arg": arg,
            "phase_bits": self._phase_bits(),
            "move_how": move_how,
            "move_phase": move_phase,
            "suggest_cards": self.suggest_cards,
            "accuse_cards": self.accuse_cards,
            "passages": self.passages,
            "passage_to": passage_to,
            "mask_rows": self._mask_rows(),
            "weapon_start": np.array(self.config.cards.weapon_start_rooms),
            "pawn_start": pawn_start,
            "corner_rooms": np.array(CORNER_ROOMS),
            **movement,
        }

    def _mask_rows(self) -> np.ndarray:
        """Mask rows for the parts of each phase that do not depend on the game: row 2 * phase + may accuse."""
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
        return rows.reshape(-1, A)

    def _phase_bits(self) -> np.ndarray:
        """``uint8[A + 1]``: bit p set when the action's kind is played in phase p (legal or not in the
        game), for ``step``'s refusal of every action of another phase, also unchecked ones."""
        lay = self.layout
        phase_bits = np.zeros(self.A + 1, dtype=np.uint8)
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
        return phase_bits


@cache
def _classic_moves() -> MoveTables:
    return MoveTables(classic_board())  # one per process: every config of the board shares it


def rules_for(config: GameConfig) -> Rules:
    """The rule tables of a config, built once per config value while it is in use (equal configs
    share one ``Rules``).

    Two caches: ``_RULES_BY_VALUE``, keyed on the config's value (whose hash costs about a
    microsecond), holds the rules of the ``CONFIGS_KEPT`` configs used last; in front of it
    ``_RULES_BY_IDENTITY``, keyed on the config object's ``id`` (the entry holds the config, so the
    id is not reused while it is there), is the lookup every ``step`` makes. Forgetting a config's
    rules forgets every identity too (so no rules outlive their value entry): a process that sweeps
    configs keeps at most ``CONFIGS_KEPT`` rules, and a state of a config forgotten gets its rules
    built again (equal ones) at its next step.

    Safe to call from several threads at once (a web server's, Ray's local mode, an agent's): all
    but the identity hit run under ``_RULES_LOCK``.
    """
    # The identity hit takes no lock: ``dict.get`` is one atomic operation (under the GIL, and under
    # free threading too), and an entry is a tuple, never changed, only replaced or dropped whole. So
    # the entry read is one that was stored whole, and ``entry[0] is config`` proves it is this
    # config's (the entry holds its config alive, so its id is not another object's); another
    # thread clearing the dict meanwhile leaves this thread with rules that were this config's.
    entry = _RULES_BY_IDENTITY.get(id(config))
    if entry is not None and entry[0] is config:
        return entry[1]
    with _RULES_LOCK:  # (Rules built under it too: threads asking at once for equal configs share one)
        rules = _RULES_BY_VALUE.pop(config, None)  # (put back last: the most recently used)
        if rules is None:
            rules = Rules(config)
            if len(_RULES_BY_VALUE) >= CONFIGS_KEPT:
                _RULES_BY_VALUE.pop(next(iter(_RULES_BY_VALUE)))  # the least recently used
                _RULES_BY_IDENTITY.clear()
        _RULES_BY_VALUE[config] = rules
        if len(_RULES_BY_IDENTITY) >= _IDENTITIES:
            _RULES_BY_IDENTITY.clear()
        _RULES_BY_IDENTITY[id(config)] = (config, rules)
    return rules


_RULES_LOCK = threading.Lock()  # held by every read and change of the two caches but the identity hit


def _unlock_in_child() -> None:
    """A child started by fork while a thread of its parent held ``_RULES_LOCK`` would wait for it forever:
    it gets a lock of its own (its caches are sound: each change to them is one atomic dict operation)."""
    global _RULES_LOCK
    _RULES_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_unlock_in_child)
_RULES_BY_VALUE: dict[GameConfig, Rules] = {}  # in order of last use
_RULES_BY_IDENTITY: dict[int, tuple[GameConfig, Rules]] = {}
_IDENTITIES = 256  # config objects remembered by identity (then forgotten all at once)


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
    seeds = check_seeds(seeds)
    B = len(seeds)
    shapes = field_shapes(config, B)
    state = State(config=config, **{name: np.zeros(shapes[name], dtype) for name, dtype, _ in STATE_FIELDS})
    batched.deal_games(state._buffer, rules.tables, np.arange(B), seeds, rules.no_mask)
    return state


def reset(
    state: State,
    games: np.ndarray | list[int],
    seeds: np.ndarray | list[int] | int,
    mask: np.ndarray | None = None,
) -> State:
    """Deal new games in place of ``games`` (finished ones, say), leaving the others as they are.

    Game ``games[k]`` becomes exactly the game ``init(state.config, seeds[k])``
    deals, its deal's events included; the other games keep their state and
    last step's events. Cheaper than ``state.put(games, init(...))``.

    Args:
        state: The batch; updated in place and returned.
        games: Indices of the games to deal again, each at most once (a list or 1-D integer array;
            a bool mask is refused: pass ``np.flatnonzero(mask)``).
        seeds: One integer seed in ``[0, 2**63)`` per game of ``games``.
        mask: A ``bool[B, A]`` array as ``step`` takes it: the rows of ``games`` get the new
            games' legal actions (the other rows are left as they are), so that a mask kept up
            to date by ``step(..., mask=mask)`` stays so.
    """
    rules = rules_for(state.config)
    games = game_indices(games, state.batch_size, distinct=True)
    seeds = check_seeds(seeds)
    if len(seeds) != len(games):
        raise ValueError(f"seeds must have one entry per game of games ({len(games)}), got {len(seeds)}")
    if mask is None:
        mask = rules.no_mask
    else:
        _check_mask(mask, state.batch_size, rules.A)
    batched.deal_games(state._buffer, rules.tables, games, seeds, mask)
    return state


def check_seeds(seeds) -> np.ndarray:
    """``int64[n]`` of integer seeds in ``[0, SEED_BOUND)`` (an int, a list or a 1-D integer array;
    not bools); a ``ValueError`` naming them otherwise."""
    try:
        array = np.atleast_1d(np.asarray(seeds))
    except OverflowError:  # a Python int beyond 64 bits
        _bad_seeds(seeds)
    if array.ndim != 1 or array.dtype == bool:
        _bad_seeds(seeds)
    if holds_a_bool(seeds):
        _bad_seeds(seeds)  # (numpy reads True beside ints as 1)
    if len(array) == 0:
        return array.astype(np.int64)
    if array.dtype == object:  # Python ints beyond 64 bits, or values of other types
        values = array.tolist()
        if not all(isinstance(s, int | np.integer) and not isinstance(s, bool) for s in values):
            _bad_seeds(seeds)
        low, high = min(values), max(values)
    elif np.issubdtype(array.dtype, np.integer):
        low, high = array.min(), array.max()
    else:
        _bad_seeds(seeds)
    if low < 0 or high >= SEED_BOUND:
        _bad_seeds(seeds)
    return array.astype(np.int64)


def _bad_seeds(seeds: object) -> NoReturn:
    raise ValueError(
        f"seeds must be integers in [0, 2**63) (an int, a list or a 1-D integer array), got {seeds!r}"
    )


def legal_action_mask(state: State, out: np.ndarray | None = None) -> np.ndarray:
    """``bool[B, A]``: the acting player's legal actions; all False once a game is over.

    Args:
        state: The batch.
        out: Where to write them: a C-contiguous, writeable ``bool[B, A]`` array (overwritten), or
            ``None`` for a new array. ``step(..., mask=out)`` keeps such an array up to date in
            the step's own pass over the games.
    """
    rules = rules_for(state.config)
    B = state.batch_size
    if out is None:
        out = np.empty((B, rules.A), dtype=bool)
    else:
        _check_mask(out, B, rules.A)
    runs = _runs(B)
    if runs > 1:
        batched.legal_games_parallel(state._buffer, rules.tables, out, runs)
    else:
        batched.legal_games(state._buffer, rules.tables, out)
    return out


def step(
    state: State,
    actions: np.ndarray | list[int],
    check: bool = True,
    games: np.ndarray | list[int] | None = None,
    mask: np.ndarray | None = None,
) -> State:
    """Apply the acting player's action in every game still running (or in ``games`` only).

    Args:
        state: The batch; updated in place and returned.
        actions: ``int[B]`` one action per game: a list of ints or a 1-D integer array of length
            B (ignored for games already over or not selected). Anything else (floats, strings,
            bools, another shape) raises ``TypeError`` or ``ValueError``.
        check: Raise ``ValueError`` on an illegal action. With ``check=False`` the step is for
            callers that already hold this step's mask and pick from it (the environments, the
            agents): an action out of range, or of a kind not played in the game's phase, is
            still refused before anything changes, but an action of the right kind that the mask
            forbids (entering a room out of reach, showing a card not held) is played as given
            and leaves that game outside the rules.
        games: Indices of the games to step, each at most once, a list or 1-D integer array; the
            others wait (default: all). A bool mask is refused (``TypeError``): pass
            ``np.flatnonzero(mask)``.
        mask: A C-contiguous, writeable ``bool[B, A]`` array into which the legal actions after
            the step are written (``legal_action_mask(state)``, computed game by game in the
            step's own pass): a loop that steps, then chooses from the mask, needs no second
            call. Left unchanged when the step raises.

    Returns:
        ``state``, with this step's events and rewards (none for games that did not move) and flags.

    Raises:
        ValueError: an illegal action (the message names the game, the action and its phase);
            the state is then unchanged.
    """
    rules = rules_for(state.config)
    B = len(state.seed)
    given = actions  # as the caller gave them, for the refusal's message
    if mask is None:
        mask = rules.no_mask
    else:
        _check_mask(mask, B, rules.A)
    if games is None and not check and B == 1 and (action := _one_action(actions)) is not None:
        # one game, as the single-game environments step it: one compiled call, no array made
        bad = batched.step_one(state._buffer, rules.tables, action, mask)
    else:
        actions = _as_actions(actions, B, rules.A)
        selected = _ALL if games is None else _selected(games, B)
        runs = _runs(B)
        if runs > 1:
            bad = batched.step_games_parallel(
                state._buffer, rules.tables, actions, selected, check, mask, runs
            )
        else:
            bad = batched.step_games(state._buffer, rules.tables, actions, selected, check, mask)
    if bad >= 0:  # refused before anything changed: out of range, another phase's, or illegal
        live = state.phase != Phase.OVER
        if games is not None:
            live &= _selected(games, B)
        # raises, naming the action as given (a uint64 beyond int64 is not named as its int64 wrap)
        _check(state, np.where(live, np.asarray(given), 0), live)
        raise AssertionError(f"game {bad}'s action was refused, yet it passes the check")
    return state


def _one_action(actions: object) -> int | None:
    """The action of a batch of one given as ``[int]`` or as an integer array of shape ``(1,)``,
    else ``None`` (then ``_as_actions`` takes it or says what is wrong)."""
    if type(actions) is list:
        if len(actions) == 1 and type(actions[0]) is int and -_INT64 <= actions[0] < _INT64:
            return actions[0]
    elif type(actions) is np.ndarray and actions.shape == (1,) and actions.dtype.kind in "iu":
        action = int(actions[0])
        if action < _INT64:  # (a uint64 beyond int64: refused by the general path)
            return action
    return None


def _runs(batch_size: int) -> int:
    """Runs of games a batch is played in: one per thread of numba's from ``PARALLEL_BATCH``
    games (by the compiled rules' parallel entries, which only Python calls: see
    ``batched.step_games_parallel``), else one (on this thread)."""
    return numba.get_num_threads() if batch_size >= PARALLEL_BATCH else 1


_ALL = np.zeros(0, dtype=bool)  # the compiled step's ``selected`` when every game steps
_INT64 = 2**63


def _check_mask(mask: object, batch_size: int, num_actions: int) -> None:
    """Refuse a mask array the compiled rules cannot write row by row."""
    if type(mask) is np.ndarray and mask.dtype == bool and mask.shape == (batch_size, num_actions):
        flags = mask.flags
        if flags.c_contiguous and flags.writeable:
            return
    if not isinstance(mask, np.ndarray) or mask.dtype != bool:
        what = f"{mask.dtype} array" if isinstance(mask, np.ndarray) else type(mask).__name__
        raise TypeError(
            f"mask must be a bool numpy array of shape ({batch_size}, {num_actions}), got a {what}"
        )
    if mask.shape != (batch_size, num_actions):
        raise ValueError(
            f"mask must have shape ({batch_size}, {num_actions}) (games, actions), got {mask.shape}"
        )
    if not (mask.flags.c_contiguous and mask.flags.writeable):
        raise TypeError("mask must be a C-contiguous, writeable array (np.empty((B, A), dtype=bool))")


def _as_actions(actions: object, batch_size: int, num_actions: int | None = None) -> np.ndarray:
    """``int64[B]`` of one action per game, from a list of ints or an integer array of shape ``(B,)``.

    Python ints beyond 64 bits are refused (``ValueError``, naming the value and the range:
    ``[0, num_actions)`` when given); a ``uint64`` beyond int64 is left to the step's refusal,
    which names it as given."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu" and isinstance(actions, list | tuple):  # (numpy made floats or objects)
        for game, action in enumerate(actions):
            if isinstance(action, int) and not isinstance(action, bool) and not -_INT64 <= action < _INT64:
                accepted = f"[0, {num_actions})" if num_actions is not None else "[0, 2**63)"
                raise ValueError(f"action must be in {accepted}, got {action} for game {game}")
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(
            f"actions must be integers (a list of ints or an integer array), got {array.dtype} values {actions!r}"
        )
    if array.shape != (batch_size,):
        raise ValueError(
            f"actions must have shape ({batch_size},): one action per game, got shape {array.shape}"
        )
    return array.astype(np.int64, copy=False)


def _selected(games: object, batch_size: int) -> np.ndarray:
    """``bool[B]``: the games ``step`` steps, from their indices (``game_indices``, each at most once)."""
    selected = np.zeros(batch_size, dtype=bool)
    selected[game_indices(games, batch_size, distinct=True)] = True
    return selected


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
