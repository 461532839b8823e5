"""The compiled rules over a batch of games: the entry points ``core/game.py`` calls (a step, the legal
actions, the deal), in parallel (``prange``) for large batches.

They take the two byte buffers of ``core/layout.py`` (the state's ``State._buffer`` and the config's
``Rules.tables``), view them once per run of games (``views.state_views``, ``views.table_views``) and
inline the rules of a game (``rules.play``, ``rules.legal``) into their loop: handing a compiled rule
the two tuples copies them (about 4 KB), which costs more than most rules. A step writes each game's
legal actions right after its move, while the game is in the cache (``step_games``).

numba caches each compiled function by its own source file, and these entries hold code of other
files (the rules inlined, the movement they call, the layout they view), whose changes numba does not
see: ``check_cache`` recompiles them when those files changed since they were cached.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from cluedo_env.core import compile_notice, rules
from cluedo_env.core.rules import deal, legal, play
from cluedo_env.core.state import Phase
from cluedo_env.core.views import state_views, table_views

__all__ = [
    "check_cache",
    "deal_games",
    "legal_games",
    "legal_games_parallel",
    "recompiled_with_the_rules",
    "step_games",
    "step_games_parallel",
    "step_one",
]

NO_ACTION = -1  # a game that does not move this step (over, or not selected)
NO_STEP = np.int64(-2)  # ``_advance`` steps no game: it writes their legal actions
OVER = Phase.OVER


@njit(cache=True, nogil=True, inline="always")
def _moves(g, selected, i):
    """Whether game ``i`` plays its action this step: it is not over and it is ``selected`` (an
    empty ``selected``: every game is)."""
    return g.phase[i] != OVER and (len(selected) == 0 or selected[i])


@njit(cache=True, nogil=True, inline="always")
def _refused(g, t, i, action):
    """Whether game ``i`` refuses ``action`` even unchecked: out of range, or of a kind not played
    in its phase."""
    return not (0 <= action < t.A and (t.phase_bits[action] >> g.phase[i]) & 1 == 1)


@njit(cache=True, nogil=True, inline="always")
def _clear(g, i):
    """Game ``i``'s events and rewards of the last step cleared, before its next."""
    g.events[i, : g.num_events[i]] = -1  # (the rows after them are unused: -1 already)
    g.num_events[i] = 0
    g.rewards[i] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _step_game(g, t, i, action, out):
    """Game ``i``'s step: its events and rewards cleared, then ``action`` played (``NO_ACTION``:
    none), then, with ``out`` (not empty), its legal actions written into ``out[i]`` while its
    state is in the cache (the step of ``core/rollout.py``'s games; ``_advance`` writes it out)."""
    _clear(g, i)
    if action != NO_ACTION:
        play(g, t, i, action)
    if len(out):
        legal(g, t, i, out[i])


@njit(cache=True, nogil=True, _nrt=False)
def _advance(state, tables, actions, action, selected, out, first, last):
    """Games ``first`` .. ``last - 1`` of a batch of ``B`` step, with ``actions[i]`` (``actions`` not
    empty) or with ``action`` (not ``NO_STEP``: ``step_one``), or without either do not; then, with
    ``out`` (not empty), their legal actions are written into ``out[i]``, while each game's state is
    in the cache. A game that steps has its events and rewards cleared, then, if it moves
    (``_moves``), plays its action.

    One call for a run of games: a compiled call copies the state's and the tables' tuples, which
    costs more than most rules. The rules are inlined here only, once each (``play``, ``legal``),
    whichever entry calls, and not through ``_step_game``: each copy, and each level of inlining,
    costs seconds of a first run's compilation (numba inlines a function by copying its code into
    the caller's, and the rules' code is large).

    Compiled without numba's reference counting (``_nrt=False``: the rules allocate nothing):
    with it, each rule inlined into the loop counts a reference to each of the tuples' fifty
    arrays on the way in and out, which cost about 80 ns per game, more than a whole step of
    most games (their views hold no reference to count: ``core/views.py``).

    Its callers pass each integer as a run-time one (``np.int64(0)``, not ``0``): numba compiles a
    function once more for each literal value a caller gives it (``Literal[int](0)``)."""
    t = table_views(tables)
    g = state_views(state, t)
    steps = len(actions) > 0 or action != NO_STEP
    for i in range(first, last):
        if steps:
            _clear(g, i)
            if _moves(g, selected, i):
                play(g, t, i, actions[i] if len(actions) else action)
        if len(out):
            legal(g, t, i, out[i])


@njit(cache=True, nogil=True, _nrt=False)
def _first_refusing(state, tables, actions, selected, check, scratch):
    """The first game of ``step_games`` refusing its action, or -1 (``scratch``: ``bool[A]`` where a
    game's legal actions are worked out for the check)."""
    t = table_views(tables)
    g = state_views(state, t)
    for i in range(len(actions)):
        if _moves(g, selected, i):
            if _refused(g, t, i, actions[i]):
                return i
            if check:
                legal(g, t, i, scratch)
                if not scratch[actions[i]]:
                    return i
    return -1


@njit(cache=True, nogil=True)
def step_games(state, tables, actions, selected, check, out):
    """Play ``actions[i]`` in game ``i`` (see ``_moves``), and with ``out`` (not empty) write the
    legal actions after the step into it, one game after the other on this thread. Returns -1, or
    the first game refusing its action (``_refused``, or with ``check`` not legal): then nothing
    has changed."""
    scratch = np.empty(table_views(tables).A if check else 0, dtype=np.bool_)
    bad = _first_refusing(state, tables, actions, selected, check, scratch)
    if bad < 0:
        _advance(state, tables, actions, NO_STEP, selected, out, np.int64(0), len(actions))
    return bad


# The parallel entries: only these hold a prange, and no compiled function calls them (game.py does).
# numba stores with a cached parallel function the call that starts its threads when it is loaded
# from the cache, but not with a function compiled to call it once it was itself loaded from the
# cache (numba#8578): that one, loaded by a later process, calls into threads never started (a
# crash, rc 139), and which of them a process compiles depends on what ran before in that cache.
# Each entry is therefore whole: its check, its loop over the runs of games.


@njit(cache=True, nogil=True, parallel=True)
def step_games_parallel(state, tables, actions, selected, check, out, runs):
    """``step_games`` over the cores, in ``runs`` equal runs of games (one per thread: each run
    views the buffers once, and a step's work varies little from game to game). (``runs`` comes
    from the caller: ``numba.get_num_threads`` here would keep this from the cache.)"""
    scratch = np.empty(table_views(tables).A if check else 0, dtype=np.bool_)
    bad = _first_refusing(state, tables, actions, selected, check, scratch)
    if bad < 0:
        B = len(actions)
        runs = max(1, min(B, runs))
        for r in prange(runs):
            _advance(state, tables, actions, NO_STEP, selected, out, r * B // runs, (r + 1) * B // runs)
    return bad


@njit(cache=True, nogil=True)
def step_one(state, tables, action, out):
    """``step_games`` of a batch of one game without the check, from its action as an integer, in
    one call from Python."""
    t = table_views(tables)
    g = state_views(state, t)
    if g.phase[0] != OVER and _refused(g, t, 0, action):
        return 0
    _advance(
        state,
        tables,
        np.empty(0, dtype=np.int64),
        action,
        np.empty(0, dtype=np.bool_),
        out,
        np.int64(0),
        np.int64(1),
    )
    return -1


@njit(cache=True, nogil=True)
def legal_games(state, tables, out):
    """Every game's legal actions into ``out`` (``bool[B, A]``), one game after the other."""
    B = len(out)
    _advance(
        state, tables, np.empty(0, dtype=np.int64), NO_STEP, np.empty(0, dtype=np.bool_), out, np.int64(0), B
    )


@njit(cache=True, nogil=True, parallel=True)
def legal_games_parallel(state, tables, out, runs):
    """``legal_games`` over the cores, in ``runs`` runs of games (as ``step_games_parallel``). (The
    empty arrays are made by ``np.empty``: ``np.zeros`` would be a parallel loop of its own.)"""
    B, no_actions, every_game = len(out), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.bool_)
    runs = max(1, min(B, runs))
    for r in prange(runs):
        _advance(state, tables, no_actions, NO_STEP, every_game, out, r * B // runs, (r + 1) * B // runs)


@njit(cache=True, nogil=True)
def deal_games(state, tables, games, seeds, out):
    """Deal game ``games[k]`` of a batch of ``B`` from ``seeds[k]``; with ``out`` (not empty)
    write the new games' legal actions into their rows of ``out``."""
    t = table_views(tables)
    g = state_views(state, t)
    for k in range(len(games)):
        deal(g, t, games[k], seeds[k])
    if len(out):  # (by _advance, where the rules are inlined: see there)
        no_actions, every_game = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.bool_)
        for k in range(len(games)):
            _advance(state, tables, no_actions, NO_STEP, every_game, out, games[k], games[k] + 1)


# --- numba's cache -------------------------------------------------------------------------------

# The files of the core whose code the compiled entries and rules hold (this one's numba sees itself).
SOURCES = (
    "rules.py",
    "layout.py",
    "views.py",
    "movement.py",
    "events.py",
    "rng.py",
    "state.py",
    "actions.py",
    "board.py",
)


def source_digest() -> int:
    """A 63-bit digest of the files of ``SOURCES``."""
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update((Path(__file__).parent / name).read_bytes())
    return int.from_bytes(digest.digest()[:8], "little") >> 1


@intrinsic
def _digest_at_compile_time(typingctx):
    """``source_digest()`` as it was when the calling function was compiled (a constant of its code)."""

    def codegen(context, builder, signature, args):
        return ir.Constant(ir.IntType(64), source_digest())

    return types.int64(), codegen


@njit(cache=True, nogil=True)
def compiled_digest():
    """The ``source_digest`` of the sources this module's compiled code (in numba's cache) was compiled from."""
    return _digest_at_compile_time()


_checked = False
_ELSEWHERE: list[CPUDispatcher] = []  # compiled functions of other modules that view the buffers


def recompiled_with_the_rules(*functions: CPUDispatcher) -> None:
    """Have ``check_cache`` recompile ``functions`` of another module along with the rules: those
    that view the state and the tables (``views.state_views``), whose code numba's cache keys on
    their own file only (``core/observe.py``'s writer)."""
    _ELSEWHERE.extend(functions)


def check_cache() -> None:
    """Recompile the compiled rules (this module's and ``rules``'s functions) when numba's cache holds
    them compiled from other sources (once per process, before the first compiled call: ``Rules``
    calls it)."""
    global _checked
    if _checked:
        return
    _checked = True
    compile_notice.listen()
    if compiled_digest() != source_digest():
        for function in [*vars(rules).values(), *globals().values(), *_ELSEWHERE]:
            if isinstance(function, CPUDispatcher):
                function.recompile()  # (forgets its cached code, then compiles what this process loaded)
