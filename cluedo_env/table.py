"""The table: players seated at a batch of games, learners at the seats they leave free.

The one driver of players on the batched core. ``Table`` seats players (``players[i]``
at seat ``seats[i, b]`` of game ``b``, or nowhere); a seat that no player of the table
holds is a learner's, whose actions come from outside. ``Table.play`` is the one step:
the table's players choose where they sit at the deciding seat, the core steps, every
observing player is told the events. ``LearnerTable`` holds a batch with one learner seat
per game and the players at the others: it deals, steps, lets the players play until every
learner decides (``advance``) and sums the learner's rewards.

- ``agents.arena.play_batch`` seats a player at every seat and calls ``Table.play``
  until every game is over;
- the Gymnasium envs (``cluedo_env.gym_env``) play the learner's action, then
  ``LearnerTable.advance`` to its next decision;
- PPO's games (``agents.ppo.games``) take one ``LearnerTable.step`` per rollout step
  (the learner's games and the opponents' together), without ``advance``: a rollout
  step holds the games where the learner decides at that core step.

A player keeps the memory of one batch of games, the one it was last ``reset`` for. The
Gymnasium envs, which take player objects from their users, claim their opponents at every
reset (``claim_players``): one object given to two envs (``gymnasium.make_vec``'s sync mode,
a training and an evaluation env built from one list) is refused by the second env that
resets while the first is still open, rather than played from the other env's notes. A
process started by fork holds no claims (its objects are its own copies). ``agents.arena``
plays the agent objects its caller gives, for the length of its call: it claims none but
refuses those an open env holds (``refuse_held_players``). PPO's games make the players they
drive.

``Table.act`` takes ``len(games)`` legal integers from a player (else ``IllegalAction``); what a player's
``act``, ``observe`` or ``reset_games`` raises passes on with ``player_call`` set (``PlayerCall``).

A player is anything with the ``Player`` methods (every ``agents.base.Agent`` has them);
the env layer needs nothing else of the agents. Players are named through ``make_player``:
a registered name or ``"module:Class"``, resolved by the function that an installed package
declares in the entry-point group ``PLAYER_ENTRY_POINTS`` (this project's ``pyproject.toml``
declares the agents' registry), so that the env layer never imports ``agents``, not even by
naming it: the package metadata does.
"""

from __future__ import annotations

import gc
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.state import Phase
from cluedo_env.rewards import final_rewards

__all__ = [
    "MAX_REDEALS",
    "PLAYER_ENTRY_POINTS",
    "IllegalAction",
    "LearnerTable",
    "Player",
    "PlayerCall",
    "Table",
    "blame",
    "claim_players",
    "make_player",
    "opponent_seats",
    "player_owner",
    "refuse_held_players",
    "release_players",
]

# The entry-point group of the function make_player calls: function(name, seed=..., **options) -> Player.
PLAYER_ENTRY_POINTS = "cluedo_env.players"
MAX_REDEALS = 100  # deals in a row that end before the learner decides before LearnerTable.start gives up


class IllegalAction(ValueError):
    """``Table.act`` refused a player's actions (the message names the player, the games, their deal seeds)."""


@dataclass(frozen=True)
class PlayerCall:
    """Set (``blame``) as ``player_call`` on what a player's call raised: the player's index in ``Table.players``,
    the call (``"act"``, ``"observe"``, ``"reset_games"``; a runner's ``"reset"``) and its games (``int64[n]``)."""

    player: int
    call: str
    games: np.ndarray


def blame(error: BaseException, player: int, call: str, games: np.ndarray) -> None:
    """Set ``error.player_call`` (``PlayerCall``) unless a call nearer to the error set it."""
    if getattr(error, "player_call", None) is None:  # (unless a call nearer to the error set it)
        error.player_call = PlayerCall(player, call, games)


def _checked_actions(
    returned: object, player: object, state: core.State, games: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """A player's actions in ``games`` as ``int64[len(games)]``; ``IllegalAction`` unless they are
    ``len(games)`` integers (a list or 1-D integer array), each a 1 of its game's ``mask`` row."""
    array = np.asarray(returned)
    if array.shape == (len(games),) and array.dtype.kind in "iu":
        legal = (array >= 0) & (array < mask.shape[1])
        legal[legal] = mask[games[legal], array[legal]]
        if legal.all():
            return array.astype(np.int64, copy=False)
        bad = games[~legal]
        raise IllegalAction(
            f"player {player!r} chose an illegal action in games {bad.tolist()} (deal seeds "
            f"{state.seed[bad].tolist()}): {array[~legal].tolist()}, which the mask there does not allow"
        )
    what = f"{repr(returned)[:120]} (shape {array.shape})" if array.shape != (len(games),) else ""
    what = what or f"{array.dtype} actions {repr(array.tolist())[:120]}, not integers,"
    raise IllegalAction(
        f"player {player!r} returned {what} for games {games.tolist()} (deal seeds {state.seed[games].tolist()}); "
        f"accepted: one integer per game, {len(games)} in all (a list or a 1-D integer array)"
    )


@runtime_checkable
class Player(Protocol):
    """What the table asks of a player (``agents.base.Agent`` documents the order of the calls)."""

    @property
    def observes(self) -> bool:
        """Whether ``observe`` reads its events (the table builds no event views for the others)."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        """Start a batch of games: ``seats[b]`` is this player's player index in game ``b``."""

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        """Forget ``games``, dealt again, in which this player now has ``seats``."""

    def observe(self, state: core.State, events: np.ndarray) -> None:
        """See a step's events: this player's ``core.private_view`` of them, ``int16[B, E, 7]``."""

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action (a 1 of ``mask[i]``, ``bool[len(games), A]``) for each game in ``games``."""


def make_player(name: str, seed: int = 0, **options: Any) -> Player:
    """A player by registered name or ``"module:Class"``, made by the one function an installed
    package declares in the entry-point group ``PLAYER_ENTRY_POINTS`` (this project's agents:
    ``agents.registry.make_agent``).

    Raises:
        RuntimeError: when no installed package, or more than one, declares that function.
    """
    declared = list(entry_points(group=PLAYER_ENTRY_POINTS))
    if len(declared) != 1:
        found = ", ".join(f"{point.name} = {point.value}" for point in declared) or "none"
        raise RuntimeError(
            f"players are made by the one function declared in the entry-point group {PLAYER_ENTRY_POINTS!r}, "
            f"found {found}; install this project (python -m pip install -e .) to declare its agents"
        )
    make: Callable[..., Player] = declared[0].load()
    return make(name, seed=seed, **options)


# The registry of claimed players: id(player) -> (a reference to the player, a weak reference to
# its owner). Keyed by identity, not by the player's own == and hash (two equal players are two
# players; an unhashable one is a player too). The reference to the player is weak where the
# player takes one, else strong (an object without a __weakref__ slot), until the entry is
# dropped: at release, or at the next claim once the owner is gone. No attribute is set on a player.
# A child process started by fork starts with none: its players and envs are its own copies.
_OWNERS: dict[int, tuple[Callable[[], Any], weakref.ref]] = {}
if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_OWNERS.clear)


def _reference(player: object) -> Callable[[], Any]:
    """A weak reference to ``player``, or a strong one called the same way where it takes none."""
    try:
        return weakref.ref(player)
    except TypeError:  # no __weakref__ slot
        return lambda: player


def player_owner(player: object) -> object | None:
    """The owner that holds ``player`` now (``claim_players``), or None: never claimed, released,
    or its owner is gone (garbage-collected)."""
    entry = _OWNERS.get(id(player))
    if entry is None or entry[0]() is not player:  # (an id of a player gone, used again)
        return None
    return entry[1]()


def _held(players: Sequence[Player], owner: object | None) -> tuple[int, object] | None:
    """The first of ``players`` that an owner other than ``owner`` holds, as (its index, that owner)."""
    for k, player in enumerate(players):
        first = player_owner(player)
        if first is None or first is owner:
            continue
        gc.collect()  # an owner kept only by a reference cycle is gone: collect it before refusing
        other = player_owner(player)  # (returned, not kept: a collection may free it)
        if other is not None and other is not owner:
            return k, other
    return None


def claim_players(players: Sequence[Player], owner: object, name: str = "players") -> None:
    """Make ``owner`` (an env: any object that takes weak references) the one holder of ``players``.

    A player keeps the memory of one batch of games, the one it was last ``reset`` for, so two
    owners that reset and play it in turn would each play it from the other's notes. A player
    is free again once its owner releases it (``release_players``, e.g. at ``close()``) or is
    garbage-collected; claiming it again for its own owner changes nothing. Every player is
    checked before any is claimed.

    Raises:
        ValueError: A player is held by another owner, naming it (``name[k]``) and the owner.
    """
    for dead in [key for key, (player, holder) in _OWNERS.items() if player() is None or holder() is None]:
        del _OWNERS[dead]
    held = _held(players, owner)
    if held is not None:
        k, other = held
        raise ValueError(
            f"{name}[{k}] ({players[k]!r}) already plays in another env that is still open, {other!r}: an "
            "agent keeps the notes of one env's games, and each env's reset would overwrite the other's. Give each "
            f"env its own agent objects (a new list for each), or pass agent names ({name}=['notepad', "
            "...]) so that each env makes its own; or close() the other env first"
        )
    for player in players:
        _OWNERS[id(player)] = (_reference(player), weakref.ref(owner))


def refuse_held_players(players: Sequence[Player], name: str, user: str) -> None:
    """Refuse ``players`` that an owner holds (``claim_players``), for ``user``, a driver that resets
    and plays the player objects its caller gives without claiming them (``agents.arena.play_batch``).

    Raises:
        ValueError: A player is held, naming it (``name[k]``), its owner and what to do.
    """
    held = _held(players, None)
    if held is not None:
        k, other = held
        raise ValueError(
            f"{name}[{k}] ({players[k]!r}) plays in an env that is still open, {other!r}: {user} would reset "
            f"it and overwrite the notes of that env's games, and the env would play on from {user}'s. Give "
            f"{user} its own agent objects (new ones made alike, or copy.deepcopy of these), or close() the env first"
        )


def release_players(owner: object) -> None:
    """Free every player that ``owner`` holds (``claim_players``): another owner may claim them."""
    for key in [key for key, (_, holder) in _OWNERS.items() if holder() is owner]:
        del _OWNERS[key]


def opponent_seats(learner_seat: np.ndarray, num_players: int) -> np.ndarray:
    """``int64[P - 1, B]``: the seat of opponent ``k`` in every game, clockwise after the learner's."""
    learner_seat = np.asarray(learner_seat, dtype=np.int64)
    return (learner_seat[None, :] + 1 + np.arange(num_players - 1)[:, None]) % num_players


class Table:
    """Players seated at a batch of games; the seats none of them holds are learners'.

    Args:
        players: The players; the same object may not appear twice.
        seats: ``int[len(players), B]``: player ``i``'s seat in game ``b``, or -1 where it
            does not play game ``b``. Two players may not share a seat of a game.
        num_players: P, the seats of a game.
    """

    def __init__(self, players: Sequence[Player], seats: np.ndarray, num_players: int) -> None:
        self.num_players = num_players
        self.seat_players(players, seats)

    def seat_players(self, players: Sequence[Player], seats: np.ndarray) -> None:
        """Seat another set of players at every game (``seats`` as the constructor's), e.g. once
        players come or go; they are not reset."""
        if len({id(p) for p in players}) != len(players):
            raise ValueError("each seat needs its own player object")
        self.players = list(players)
        self.seats = np.array(seats, dtype=np.int64)
        if self.seats.ndim != 2 or len(self.seats) != len(self.players):
            raise ValueError(f"seats must be int[{len(self.players)}, B], got shape {self.seats.shape}")
        self.player_at = np.full((self.seats.shape[1], self.num_players), -1, np.int64)  # [B, seat] -> player
        self.seat(np.arange(self.seats.shape[1]), self.seats)
        self.listeners = [i for i, player in enumerate(self.players) if player.observes]

    def seat(self, games: np.ndarray, seats: np.ndarray) -> None:
        """Seat the players anew in ``games``: ``seats[i, j]`` is player ``i``'s seat in ``games[j]`` (or -1)."""
        games, seats = np.asarray(games, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        self.seats[:, games] = seats
        self.player_at[games] = -1
        for i, row in enumerate(seats):
            present = row >= 0
            taken = self.player_at[games[present], row[present]]
            if (taken >= 0).any():
                raise ValueError(f"player {i} and player {taken[taken >= 0][0]} share a seat")
            self.player_at[games[present], row[present]] = i

    def winner(self, state: core.State) -> np.ndarray:
        """``int64[B]``: the player (an index into ``players``) who won each game, or -1 where
        nobody won or the winner's seat holds none of this table's players (a learner's)."""
        seat = state.winner.astype(np.int64)
        return np.where(seat >= 0, self.player_at[np.arange(len(seat)), np.maximum(seat, 0)], -1)

    def deciding(self, state: core.State, games: np.ndarray | None = None) -> np.ndarray:
        """``bool[B]``: the games still running (and in ``games``, a ``bool[B]``) where a player of
        this table decides now; in the others a learner decides, or nobody."""
        running = state.phase != Phase.OVER
        if games is not None:
            running &= games
        seat = np.maximum(state.current_player.astype(np.int64), 0)  # -1 once over
        return running & (self.player_at[np.arange(len(seat)), seat] >= 0)

    def reset_games(self, games: np.ndarray) -> None:
        """Tell the players of ``games``, dealt again, to forget them (``Player.reset_games``)."""
        for i, player in enumerate(self.players):
            seats = self.seats[i, games]
            present = seats >= 0
            if present.any():
                try:
                    player.reset_games(games[present], seats[present])
                except Exception as error:
                    blame(error, i, "reset_games", games[present])
                    raise

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> None:
        """Fill ``actions[games]`` with the actions of the players whose turn it is there.

        Args:
            state: The batch.
            games: Games where a player of this table decides now.
            mask: ``bool[B, A]``: the legal actions of the whole batch.
            actions: ``int64[B]``, written at ``games``.

        Raises:
            IllegalAction: A player's actions were not ``len(games)`` legal integers (naming it and the games).
            Exception: What a player's ``act`` raised, with ``player_call`` set (``PlayerCall``).
        """
        if len(games) == 0:
            return
        who = self.player_at[games, state.current_player[games]]
        order = np.argsort(who, kind="stable")  # each player once, its games in order
        keys, starts = np.unique(who[order], return_index=True)
        ends = np.append(starts[1:], len(order))
        for i, lo, hi in zip(keys.tolist(), starts.tolist(), ends.tolist(), strict=True):
            mine = games[order[lo:hi]]
            if i < 0:
                raise ValueError(f"no player of the table sits at the deciding seat of games {mine.tolist()}")
            player = self.players[i]
            try:
                actions[mine] = _checked_actions(
                    player.act(state, mine, mask[mine]), player, state, mine, mask
                )
            except Exception as error:
                blame(error, i, "act", mine)
                raise

    def tell(self, state: core.State, events: np.ndarray) -> None:
        """Show every observing player its ``core.private_view`` of ``events`` (``-1`` rows in games it is not in)."""
        for i in self.listeners:
            seats = self.seats[i]
            absent = seats < 0
            if absent.all():
                continue
            view = core.private_view(events, seats[:, None])
            view[absent] = -1
            try:
                self.players[i].observe(state, view)
            except Exception as error:
                blame(error, i, "observe", np.flatnonzero(~absent))
                raise

    def play(
        self,
        state: core.State,
        actions: np.ndarray,
        mask: np.ndarray | None = None,
        games: np.ndarray | None = None,
        check: bool = False,
        tell: bool = True,
    ) -> np.ndarray:
        """One step of the batch: the table's players choose where they decide, the core steps.

        Args:
            state: The batch, stepped in place.
            actions: ``int64[B]``: the learners' actions in the games where a learner decides;
                the table's players' are written in at the others (``deciding``).
            mask: ``bool[B, A]``, the legal actions now (computed when None and a player decides),
                C-contiguous and writeable: the step writes the legal actions after it into it
                (``core.step(..., mask=)``, in the step's own pass), so a caller that keeps it
                passes it again at the next step and no legal-action pass is repeated.
            games: ``bool[B]``: the games to step; the others wait (None: every game).
            check: ``core.step``'s check of every action (``act`` checks the players' anyway).
            tell: Then show the observing players the step's events (False: the caller does,
                e.g. once the games that ended are dealt again).

        Returns:
            ``bool[B, A]``: the legal actions after the step (``mask`` itself when given; a game
            dealt again after the step needs ``core.reset(..., mask=)`` to keep it so).

        Raises:
            IllegalAction: A player's actions were refused (``act``).
        """
        deciding = np.flatnonzero(self.deciding(state, games))
        if mask is None:
            if len(deciding):
                mask = core.legal_action_mask(state)
            else:  # nothing to choose from it: the step fills it
                mask = np.empty((state.batch_size, core.rules_for(state.config).A), dtype=bool)
        if len(deciding):
            self.act(state, deciding, mask, actions)
        core.step(
            state, actions, check=check, games=None if games is None else np.flatnonzero(games), mask=mask
        )
        if tell:
            self.tell(state, state.events)
        return mask


class LearnerTable:
    """A batch of games on the core, one learner seat in each, the players of a ``Table`` at the others.

    The players must hold every seat but the learner's (``opponent_seats``). Between calls of
    ``start`` and ``advance`` every game is over or waits for its learner
    (``state.current_player == seat``).

    Args:
        config: The rules.
        num_games: B.
        players: The table of the other seats (kept: a caller may seat other players on it).
    """

    def __init__(self, config: core.GameConfig, num_games: int, players: Table) -> None:
        self.config = config
        self.num_games = num_games
        self.P = config.num_players
        self.players = players
        self._state: core.State | None = None
        self.seat = np.zeros(num_games, dtype=np.int64)  # the learner's seat in each game
        self.core_rewards = np.zeros((num_games, self.P), dtype=np.float32)  # summed over the episode's steps
        self.learner_events: list[np.ndarray] | None = None  # game 0's learner's event views, when recorded
        self.decisions = 0  # every player's decisions played so far (agent-steps), learners' and others'
        # the legal actions of every game as the last step and deals left them (None: not known)
        self.mask: np.ndarray | None = None

    @property
    def state(self) -> core.State | None:
        """The batch (None before the first deal). Setting it forgets ``mask``; a caller that steps
        or deals it other than by ``step`` and ``deal`` sets ``mask`` to None."""
        return self._state

    @state.setter
    def state(self, state: core.State | None) -> None:
        self._state = state
        self.mask = None

    def legal_actions(self) -> np.ndarray:
        """``bool[B, A]``: every game's legal actions now: ``mask`` as the steps and deals keep it
        (the core's step writes it), worked out and kept where it is not known."""
        if self.mask is None:
            self.mask = core.legal_action_mask(self.state)
        return self.mask

    def opponent_seats(self) -> np.ndarray:
        """``int64[P - 1, B]``: the seat of opponent ``k`` in every game, clockwise after the learner."""
        return opponent_seats(self.seat, self.P)

    def deal(self, games: np.ndarray, seeds: np.ndarray, seats: np.ndarray, whole: bool = False) -> bool:
        """Deal ``games`` from ``seeds`` with the learner at ``seats`` (the players are neither seated
        nor told: the caller does).

        Args:
            games: The games (indices).
            seeds: Their deal seeds.
            seats: The learner's seat in each.
            whole: ``core.init`` a new batch when ``games`` are all the games (else ``core.reset`` them).

        Returns:
            Whether the batch is new (``core.init``: no game was dealt before, or ``whole``).
        """
        self.seat[games] = seats
        self.core_rewards[games] = 0.0
        if self.state is None or (whole and len(games) == self.num_games):
            self.state = core.init(self.config, seeds)  # (forgets the mask)
            if self.learner_events is not None:
                self.learner_events.clear()  # a deal that ended before the learner decided is forgotten
            return True
        core.reset(self.state, games, seeds, mask=self.mask)  # (the mask, when known, kept up to date)
        return False

    def start(
        self,
        games: np.ndarray,
        rng: np.random.Generator,
        seeds: np.ndarray | None = None,
        learner_seat: int | str = "random",
    ) -> None:
        """Deal ``games`` (from ``seeds``, else drawn from ``rng``) with the table's players kept at
        every other seat, and play until their learners decide; a game over before that is dealt
        again from a drawn seed.

        ``learner_seat``: a player index, or ``"random"`` (drawn from ``rng`` for each deal). A new
        batch resets every player (with a seed drawn from ``rng``); a deal of some games tells
        their players to forget them.
        """
        for _ in range(MAX_REDEALS):
            if seeds is None:
                seeds = rng.integers(core.SEED_BOUND, size=len(games))
            self.deal_players(games, np.asarray(seeds, dtype=np.int64), rng, learner_seat)
            self.advance()
            games = games[self.state.done[games]]  # over before the learner's first decision: deal again
            if not len(games):
                return
            seeds = None
        raise RuntimeError(
            f"{MAX_REDEALS} deals in a row ended before the learner's first decision "
            f"(max_turns={self.config.max_turns}, learner_seat={learner_seat!r}); "
            "raise max_turns or change the seat"
        )

    def deal_players(
        self, games: np.ndarray, seeds: np.ndarray, rng: np.random.Generator, learner_seat: int | str
    ) -> None:
        """``deal`` with the learner's seat chosen, the players seated after it, reset and told the deal."""
        if learner_seat == "random":
            seats = rng.integers(self.P, size=len(games))
        else:
            seats = np.full(len(games), learner_seat, dtype=np.int64)
        self.seat[games] = seats
        opponents = self.opponent_seats()
        self.players.seat(games, opponents[:, games])
        if self.deal(games, seeds, seats, whole=True):
            for k, player in enumerate(self.players.players):
                player.reset(self.config, opponents[k], seed=int(rng.integers(core.SEED_BOUND)))
            self.tell(self.state.events)
            return
        self.players.reset_games(games)
        events = np.full_like(self.state.events, -1)
        events[games] = self.state.events[games]
        self.tell(events)

    def step(
        self,
        actions: np.ndarray,
        paused: np.ndarray | None = None,
        mask: np.ndarray | None = None,
        tell: bool = True,
    ) -> np.ndarray:
        """One core step of every running game but the ``paused`` ones: the learners' ``actions``
        where they decide, the players' at the others (``Table.play``); the rewards are summed.

        ``mask``: the legal actions now (None: the ones the last step and deals left, ``self.mask``,
        else worked out); the step writes those after it into the same array, which is returned
        and kept as ``self.mask``. ``tell=False`` leaves telling the players (``tell``) to the caller.
        """
        state = self.state
        stepped = state.phase != Phase.OVER if paused is None else (state.phase != Phase.OVER) & ~paused
        self.decisions += int(stepped.sum())
        self.mask = self.players.play(
            state,
            actions,
            mask=self.mask if mask is None else mask,
            games=None if paused is None else ~paused,
            tell=False,
        )
        self.core_rewards += state.rewards
        if tell:
            self.tell(state.events)
        return self.mask

    def advance(self, skip: np.ndarray | None = None) -> None:
        """Let the players decide until every game is over, waits for its learner or is in ``skip``."""
        state = self.state
        while True:
            running = state.phase != Phase.OVER
            waiting = running & (state.current_player != self.seat)
            if skip is not None:
                waiting &= ~skip
            if not waiting.any():
                return
            self.step(np.zeros(self.num_games, dtype=np.int64), paused=running & ~waiting)

    def tell(self, events: np.ndarray) -> None:
        """Show the players ``events`` (``Table.tell``) and keep game 0's learner's view of them when recorded."""
        self.players.tell(self.state, events)
        if self.learner_events is not None:
            rows = events[0, : self.state.num_events[0]]
            rows = rows[rows[:, ev.KIND] >= 0]  # a redeal's events come padded
            self.learner_events.append(core.private_view(rows, int(self.seat[0])))

    def learner_out(self) -> np.ndarray:
        """``bool[B]``: the learner accused wrongly (the game goes on, or ended with it when it was the
        last player in)."""
        return self.state.eliminated[np.arange(self.num_games), self.seat]

    def rewards(self, scheme: str) -> np.ndarray:
        """``float32[B]``: the learner's reward of the episode so far under ``scheme``
        (``cluedo_env.rewards``; nonzero only once a game is over)."""
        rewards = final_rewards(scheme, self.core_rewards, self.state.winner)
        return rewards[np.arange(self.num_games), self.seat]
