"""Compiled rollouts: games played to their end inside one compiled call, no Python per step.

A search agent values a decision by playing many continuations of its game to the end
(``core/simulate.py``: ``clone``, ``redeal``). Stepping them from Python costs a call per step;
``play_out`` plays every game of a batch to its end in one compiled call instead (a loop over the
games, each played step after step: its legal actions, the policy's action, the core's own step
kernel, ``batched._step_game``), and ``rollout`` clones one game, redeals it from a player's view
if asked, and plays the clones out::

    result = core.rollout(state, game=0, n=64, seed=7)  # 64 clones of game 0, played to the end
    result.rewards  # float32[64, P]: each clone's final rewards (+1 win, -1 loss, 0 truncated)

The policy is the *simple* player of ``agents.baselines.simple.simple_actions`` (the rollout policy of
the determinising agent), for every player, compiled: it enters a room when the roll reaches one,
suggests a suspect and a weapon it has not seen when there are such, and accuses only when the cards
it has not seen are one suspect, one weapon and one room (they are then the envelope: it never
accuses wrongly); otherwise it plays a uniformly random legal action other than an accusation (any
legal action where only accusations are legal). "Seen" is what ``core.observe``'s ``unseen`` piece
says: its own hand, the cards shown to it, the face-down cards it looked at, and what ``seen`` adds.
A policy given as a table instead (``weights``: one number per action) draws each decision's action
among the legal ones with probability proportional to its weight.

Randomness is counter-based (``core/rng.py``): game ``i``'s ``k``-th decision draws
``u = draw(keys[i], k) / 2**64`` (53 bits) and plays the ``floor(u * count)``-th action, in action
order, of the ``count`` it chooses among (``sample_legal``'s rule; the table policy: the first legal
action whose running sum of weights exceeds ``u`` times their sum), so a game's rollout depends
only on its state and its key, not on the other games of the batch. ``rollout`` derives the keys
(and the clones' dice seeds, when it redeals) from its ``seed``. ``tests/core/test_rollout.py``
plays the same games step by step in Python with ``simple_actions`` and the same draws, and
checks that every byte of every game agrees.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from cluedo_env.core import batched
from cluedo_env.core.batched import _step_game
from cluedo_env.core.game import rules_for
from cluedo_env.core.rng import SEED_BOUND, draw, game_key
from cluedo_env.core.rules import draw as draw_one
from cluedo_env.core.rules import legal
from cluedo_env.core.simulate import clone, redeal, require_sampled_view
from cluedo_env.core.state import NOBODY, Phase, State
from cluedo_env.core.views import state_views, table_views

__all__ = ["MAX_STEPS", "Rollouts", "final_rewards", "play_out", "rollout", "rollout_keys"]

MAX_STEPS = 100_000  # decisions per game by default: games end by ``max_turns`` long before
OVER = Phase.OVER
_UNIT = 2.0**-53
_NONE = np.zeros(0, dtype=np.bool_)
_NO_SEEN = np.zeros((0, 0, 0), dtype=np.bool_)
_NO_WEIGHTS = np.zeros(0, dtype=np.float64)


class Rollouts(NamedTuple):
    """What ``rollout`` returns.

    Attributes:
        state: The ``n`` clones, played out (their final state: ``winner``, ``terminated``, ...).
        rewards: ``float32[n, P]``: each clone's final rewards (``final_rewards``; with
            ``stop_when_out``, -1 to that player in a clone stopped because it is out).
        steps: ``int64[n]``: the decisions played in each clone.
    """

    state: State
    rewards: np.ndarray
    steps: np.ndarray


# --- the compiled policy and loop ---------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _unseen_cards(g, t, i, player, seen, unseen):
    """Write into ``unseen`` the cards ``player`` has not seen (``observe``'s ``unseen``, less
    ``seen[i, player]``, or ``seen[0, player]`` for every game when it has one row); return the
    envelope accusation they pin down (``(s, w, r)`` order of the accuse range, from 0), or -1 unless
    they are one suspect, one weapon and one room."""
    suspects = weapons = rooms = 0
    suspect = weapon = room = 0
    row = i if len(seen) > 1 else 0  # seen's row of this game (none when seen is empty)
    for c in range(t.C):
        fresh = g.owner[i, c] != player and g.shown_to[i, player, c] == NOBODY and not g.peeked[i, player, c]
        if len(seen) and seen[row, player, c]:
            fresh = False
        unseen[c] = fresh
        if fresh:
            if c < t.S:
                suspects, suspect = suspects + 1, c
            elif c < t.S + t.W:
                weapons, weapon = weapons + 1, c - t.S
            else:
                rooms, room = rooms + 1, c - t.S - t.W
    if suspects != 1 or weapons != 1 or rooms != 1:
        return -1
    return (suspect * t.W + weapon) * t.R + room


@njit(cache=True, nogil=True, inline="always")
def _chosen(t, row, unseen, a, suggest_at, only_fresh):
    """Whether the simple policy chooses among action ``a`` outside the accuse and enter cases: legal,
    and with ``only_fresh`` a suggestion only if it names a suspect and a weapon not seen."""
    if not row[a]:
        return False
    if only_fresh and suggest_at <= a < suggest_at + t.suggestions:
        k = a - suggest_at
        return unseen[t.suggest_cards[k, 0]] and unseen[t.suggest_cards[k, 1]]
    return True


@njit(cache=True, nogil=True, inline="always")
def _count_legal(row, lo, hi):
    """How many actions of ``[lo, hi)`` ``row`` holds legal."""
    count = 0
    for a in range(lo, hi):
        count += row[a]
    return count


@njit(cache=True, nogil=True, inline="always")
def _nth_legal(row, lo, hi, pick):
    """The ``pick``-th (from 0) legal action of ``[lo, hi)`` in action order; -1 past the last."""
    for a in range(lo, hi):
        if row[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True, nogil=True, inline="always")
def _simple_action(g, t, i, row, seen, unseen, suggest_at, accuse_at, u):
    """The simple policy's action in game ``i`` from its legal actions ``row`` and a uniform ``u``
    (the module docstring); -1 when ``row`` has no legal action."""
    envelope = _unseen_cards(g, t, i, g.current_player[i], seen, unseen)
    if envelope >= 0 and row[accuse_at + envelope]:
        return accuse_at + envelope
    entering = _count_legal(row, t.ENTER, t.ENTER + t.R)
    if entering:  # only the rooms it can enter
        return _nth_legal(row, t.ENTER, t.ENTER + t.R, np.int64(u * entering))
    fresh = False
    for k in range(t.suggestions):
        fresh |= row[suggest_at + k] and unseen[t.suggest_cards[k, 0]] and unseen[t.suggest_cards[k, 1]]
    end = accuse_at + t.accusations  # accusations are left out: [0, accuse_at) and [end, A)
    count = 0
    for a in range(accuse_at):
        count += _chosen(t, row, unseen, a, suggest_at, fresh)
    count += _count_legal(row, end, t.A)
    if count == 0:  # only accusations are legal: any of them
        return _nth_legal(row, accuse_at, end, np.int64(u * _count_legal(row, accuse_at, end)))
    pick = np.int64(u * count)
    for a in range(accuse_at):
        if _chosen(t, row, unseen, a, suggest_at, fresh):
            if pick == 0:
                return a
            pick -= 1
    return _nth_legal(row, end, t.A, pick)


@njit(cache=True, nogil=True, inline="always")
def _weighted_action(t, row, weights, u):
    """A legal action of ``row`` drawn with probability ``weights[a]`` over the legal actions' sum,
    from a uniform ``u``: the first whose running sum (in action order) exceeds ``u`` times the sum;
    the ``floor(u * count)``-th legal action where their weights sum to 0; -1 where none is legal."""
    total = 0.0
    for a in range(t.A):
        if row[a]:
            total += weights[a]
    if total > 0.0:
        target, running, last = u * total, 0.0, -1
        for a in range(t.A):
            if row[a] and weights[a] > 0.0:
                running += weights[a]
                last = a
                if running > target:
                    return a
        return last  # (u * total rounded up to the sum)
    return _nth_legal(row, 0, t.A, np.int64(u * _count_legal(row, 0, t.A)))


@njit(cache=True, nogil=True, _nrt=False)
def _play_out(
    state, tables, keys, first, seen, weights, stop, max_steps, suggest_at, accuse_at, masks, unseen, steps
):
    """Play every game of the batch to its end (or to ``max_steps`` decisions, or until player
    ``stop`` >= 0 is out) with the simple policy, or with ``weights`` (not empty) the table policy;
    ``masks``: ``bool[B, A]`` scratch (each game's legal
    actions), ``unseen``: ``bool[C]`` scratch; decisions into ``steps``. Returns -1, or the first game
    whose first decision ``first`` leaves without an action (then it and the games after it are unplayed)."""
    t = table_views(tables)
    g = state_views(state, t)
    for i in range(len(keys)):
        row = masks[i]
        k = 0
        if g.phase[i] != OVER:
            legal(g, t, i, row)
        while k < max_steps and g.phase[i] != OVER and not (stop >= 0 and g.eliminated[i, stop]):
            if k == 0 and len(first):
                for a in range(t.A):
                    row[a] = row[a] and first[a]
            u = np.float64(draw_one(keys[i], k) >> np.uint64(11)) * _UNIT
            if len(weights):
                action = _weighted_action(t, row, weights, u)
            else:
                action = _simple_action(g, t, i, row, seen, unseen, suggest_at, accuse_at, u)
            if action < 0:
                steps[i] = k
                return i
            _step_game(g, t, i, action, masks)
            k += 1
        steps[i] = k
    return -1


# --- numba's cache: _play_out holds the rules inlined, from other files --------------------------


def _source_digest() -> int:
    """A 63-bit digest of the files whose code ``_play_out`` holds: the rules' (``batched.SOURCES``)
    and the step kernel's, ``batched.py``."""
    kernel = hashlib.sha256(Path(batched.__file__).read_bytes()).digest()
    return batched.source_digest() ^ (int.from_bytes(kernel[:8], "little") >> 1)


@intrinsic
def _digest_when_compiled(typingctx):
    """``_source_digest()`` as it was when the calling function was compiled (a constant of its code)."""
    digest = ir.Constant(ir.IntType(64), _source_digest())
    return types.int64(), lambda context, builder, signature, args: digest


@njit(cache=True, nogil=True)
def _compiled_digest():
    return _digest_when_compiled()


@functools.cache
def _check_cache() -> None:
    """Recompile this module's compiled code when numba's cache holds it compiled from other sources
    (numba sees changes to this file only): once per process, before its first compiled call."""
    if _compiled_digest() != _source_digest():
        for function in (_play_out, _compiled_digest):
            function.recompile()


# --- the public calls -----------------------------------------------------------------------------


def rollout_keys(seed: int, n: int) -> np.ndarray:
    """``uint64[n]``: the policy keys ``rollout`` gives its ``n`` clones from ``seed`` (clone ``i``'s
    depends on ``seed`` and ``i`` only)."""
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    return draw(_key(seed), 2 * np.arange(n, dtype=np.uint64))


def play_out(
    state: State,
    keys: np.ndarray,
    *,
    first: np.ndarray | None = None,
    seen: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    stop_when_out: int | None = None,
    max_steps: int = MAX_STEPS,
) -> np.ndarray:
    """Play every game of ``state`` to its end with the simple policy (or a table), in one compiled call (in place).

    Args:
        state: The games (clones, usually); those already over are left as they are.
        keys: ``uint64[B]``: each game's policy key (``rollout_keys``, or any 64-bit integers).
        first: ``bool[A]``: the actions allowed at each game's first decision of this call
            (None: every legal one), as ``rollout_values`` of the determinising agent does.
        seen: ``bool[P, C]``: cards each player's policy counts as seen besides those it has
            seen (None: none), e.g. the cards a player's deductions rule out of the envelope; or
            ``bool[B, P, C]``, each game's.
        weights: ``float[A]`` (>= 0, finite): the table policy instead of the simple one: each decision
            a legal action drawn with probability ``weights[a]`` over the legal actions' sum (uniformly
            where they sum to 0); None: the simple policy.
        stop_when_out: A player: a game stops once it is out (accused wrongly), its game over
            for that player (None: games are played to the end).
        max_steps: At most this many decisions per game, an int >= 1.

    Returns:
        ``int64[B]``: the decisions played in each game.

    Raises:
        ValueError: Naming the argument and what it accepts; or the game whose first decision
            ``first`` leaves no legal action (the games from it on are then unplayed).
        TypeError: ``state`` not a ``State``, or an array of the wrong dtype (``first`` and ``seen``
            bool, ``weights`` numbers).
    """
    if not isinstance(state, State):
        raise TypeError(f"state must be a core.State, got {type(state).__name__}")
    rules = rules_for(state.config)
    B, A, P, C = state.batch_size, rules.A, rules.P, rules.C
    keys = np.asarray(keys)
    if keys.shape != (B,) or keys.dtype.kind not in "iu":
        raise ValueError(f"keys must be {B} integers, one per game, got shape {keys.shape} of {keys.dtype}")
    keys = keys.astype(np.uint64)
    first = _NONE if first is None else _bool_array(first, "first", (A,), "the actions allowed first")
    if seen is None:
        seen = _NO_SEEN
    elif np.ndim(seen) == 3:
        seen = _bool_array(seen, "seen", (B, P, C), "cards counted as seen in each game")
    else:
        seen = _bool_array(seen, "seen", (P, C), "cards counted as seen")[None]
    if weights is None:
        weights = _NO_WEIGHTS
    elif len(seen):
        raise ValueError("seen is read by the simple policy only: give seen or weights, not both")
    else:
        weights = _weights(weights, A)
    if stop_when_out is None:
        stop = -1
    elif (
        isinstance(stop_when_out, int | np.integer)
        and not isinstance(stop_when_out, bool)
        and 0 <= stop_when_out < P
    ):
        stop = int(stop_when_out)
    else:
        raise ValueError(f"stop_when_out must be None or a player in [0, {P}), got {stop_when_out!r}")
    if not isinstance(max_steps, int | np.integer) or isinstance(max_steps, bool) or max_steps < 1:
        raise ValueError(f"max_steps must be an int >= 1, got {max_steps!r}")
    _check_cache()
    steps = np.zeros(B, dtype=np.int64)
    masks = np.zeros((B, A), dtype=np.bool_)
    unseen = np.zeros(C, dtype=np.bool_)
    lay = rules.layout
    bad = _play_out(
        state._buffer, rules.tables, keys, first, seen, weights, stop, int(max_steps), lay.SUGGEST, lay.ACCUSE,
        masks, unseen, steps,
    )  # fmt: skip
    if bad >= 0:
        raise ValueError(f"first leaves game {bad} no legal action at its first decision")
    return steps


def final_rewards(state: State) -> np.ndarray:
    """``float32[B, P]``: each game's final rewards: +1 to the winner and -1 to the others, -1 to
    everyone when all accused wrongly, 0 when truncated or not over (``state.rewards`` holds them
    only right after the game's last step)."""
    rewards = np.zeros((state.batch_size, state.config.num_players), dtype=np.float32)
    rewards[state.terminated] = -1.0
    won = np.flatnonzero(state.terminated & (state.winner >= 0))
    rewards[won, state.winner[won]] = 1.0
    return rewards


def rollout(
    state: State,
    game: int,
    n: int,
    seed: int,
    *,
    player: int | None = None,
    deals: np.ndarray | None = None,
    shown: np.ndarray | None = None,
    first: np.ndarray | None = None,
    seen: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    stop_when_out: int | None = None,
    max_steps: int = MAX_STEPS,
) -> Rollouts:
    """``n`` clones of game ``game`` of ``state``, redealt from ``player``'s view if given, played out.

    Args:
        state: A batch of games (left unchanged).
        game: The game to clone; it must not be over.
        n: How many clones, an int >= 1.
        seed: An int in ``[0, 2**63)``: the clones' policy keys (``rollout_keys``) and, with
            ``player``, their dice seeds.
        player: None: exact clones (the same hidden cards and dice to come, other choices). A player:
            each clone redealt from its view (``core.redeal``) with ``deals`` and ``shown``; refused
            with ``auto_refute=True``, where whether a refuter decided is a fact of the player's view
            that the posterior's deals do not honour.
        deals: ``int[n, C]`` (with ``player``): the card owners of each clone, consistent with
            what ``player`` knows (``Posterior.sample_deals``).
        shown: ``int[n, P, C]`` or None: ``core.redeal``'s ``shown``.
        first: As ``play_out``'s.
        seen: As ``play_out``'s.
        weights: As ``play_out``'s.
        stop_when_out: As ``play_out``'s: a player; a clone stops once it is out. Its game is over
            for that player, so its reward there is -1; the others' stay 0 (their game did not end).
        max_steps: As ``play_out``'s.

    Returns:
        ``Rollouts``: the clones played out, their final rewards and decisions.

    Raises:
        ValueError: Naming the argument and what it accepts; ``player`` in a game with ``auto_refute=True``.
        TypeError: As ``play_out``'s.
    """
    if not isinstance(state, State):
        raise TypeError(f"state must be a core.State, got {type(state).__name__}")
    seed = _seed(seed)
    if not isinstance(game, int | np.integer) or isinstance(game, bool) or not 0 <= game < state.batch_size:
        raise ValueError(f"game must be an int in [0, {state.batch_size}), got {game!r}")
    if state.done[game]:
        raise ValueError(f"game {game} is over: nothing to roll out")
    if player is None and (deals is not None or shown is not None):
        raise ValueError("deals and shown redeal the clones from a player's view: give player too")
    if player is not None:
        require_sampled_view(
            state.config,
            f"player {player!r}: rollout from a player's view",
            " (for deals that honour it: core.clone, core.redeal, then core.play_out)",
        )
    if player is not None and deals is None:
        raise ValueError(f"player {player!r}: the clones are redealt from its view; give their deals")
    clones = clone(state, game, n)
    if player is not None:
        dice = draw(_key(seed), 2 * np.arange(n, dtype=np.uint64) + np.uint64(1))
        redeal(clones, player, deals, (dice >> np.uint64(1)).astype(np.int64), shown=shown)
    keys = rollout_keys(seed, n)
    steps = play_out(
        clones,
        keys,
        first=first,
        seen=seen,
        weights=weights,
        stop_when_out=stop_when_out,
        max_steps=max_steps,
    )
    rewards = final_rewards(clones)
    if stop_when_out is not None:  # stopped because the player is out: -1 to it, as at the end
        rewards[clones.eliminated[:, stop_when_out] & ~clones.done, stop_when_out] = -1.0
    return Rollouts(clones, rewards, steps)


def _key(seed: object) -> np.ndarray:
    """``uint64[1]``: the key of ``seed`` (an array: numpy warns of the mixer's wrap-around on scalars)."""
    return game_key(np.array([_seed(seed)], dtype=np.uint64))


def _seed(seed: object) -> int:
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or not 0 <= seed < SEED_BOUND:
        raise ValueError(f"seed must be an int in [0, 2**63), got {seed!r}")
    return int(seed)


def _weights(values: object, A: int) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise TypeError(f"weights must be numbers (one per action), got {array.dtype}")
    if array.shape != (A,):
        raise ValueError(f"weights must have shape ({A},) (one per action), got {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any():
        bad = int(np.flatnonzero(~np.isfinite(array) | (array < 0))[0])
        raise ValueError(f"weights must be finite and >= 0, got {array[bad]!r} for action {bad}")
    return np.ascontiguousarray(array, dtype=np.float64)


def _bool_array(values: object, name: str, shape: tuple[int, ...], what: str) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype != np.bool_:
        raise TypeError(f"{name} must be a bool array ({what}), got {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape} ({what}), got {array.shape}")
    return np.ascontiguousarray(array)
