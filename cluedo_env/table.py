"""The table: players seated at a batch of games, each asked to act where it is its turn.

The one driver of fixed players on the batched core. ``agents.arena.play_batch`` seats a
player at every seat, the Gymnasium envs (``cluedo_env.gym_env``) at every seat but the
learner's, and PPO training (``agents.ppo.games``) at every seat but the learner's with
other players in other games. A player is anything with the ``Player`` methods (every
``agents.base.Agent`` has them); the env layer needs nothing else of the agents.

Players are named through ``make_player``: a registered name or ``"module:Class"``,
resolved by the function that ``PLAYER_REGISTRY`` names (the agents' registry), so that
the env layer never imports ``agents``, as Gymnasium's registry names an env's entry point.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cluedo_env import core

__all__ = ["PLAYER_REGISTRY", "Player", "Table", "make_player"]

# "module:function": function(name, seed=..., **options) -> Player.
PLAYER_REGISTRY = "agents.registry:make_agent"


@runtime_checkable
class Player(Protocol):
    """What the table asks of a player (``agents.base.Agent`` documents the order of the calls)."""

    @property
    def observes(self) -> bool:
        """Whether ``observe`` reads its events (the table builds no event views for the others)."""
        ...

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        """Start a batch of games: ``seats[b]`` is this player's player index in game ``b``."""
        ...

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        """Forget ``games``, dealt again, in which this player now has ``seats``."""
        ...

    def observe(self, state: core.State, events: np.ndarray) -> None:
        """See a step's events: this player's ``core.private_view`` of them, ``int16[B, E, 7]``."""
        ...

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action (a 1 of ``mask[i]``, ``bool[len(games), A]``) for each game in ``games``."""
        ...


def make_player(name: str, seed: int = 0, **options: Any) -> Player:
    """A player by registered name or ``"module:Class"``, through ``PLAYER_REGISTRY``."""
    module_name, _, function_name = PLAYER_REGISTRY.partition(":")
    make: Callable[..., Player] = getattr(importlib.import_module(module_name), function_name)
    return make(name, seed=seed, **options)


class Table:
    """Players seated at a batch of games.

    Args:
        players: The players; the same object may not appear twice.
        seats: ``int[len(players), B]``: player ``i``'s seat in game ``b``, or -1 where it
            does not play game ``b``. Two players may not share a seat of a game.
        num_players: P, the seats of a game.
    """

    def __init__(self, players: Sequence[Player], seats: np.ndarray, num_players: int) -> None:
        if len({id(p) for p in players}) != len(players):
            raise ValueError("each seat needs its own player object")
        self.players = list(players)
        self.seats = np.array(seats, dtype=np.int64)
        if self.seats.ndim != 2 or len(self.seats) != len(self.players):
            raise ValueError(f"seats must be int[{len(self.players)}, B], got shape {self.seats.shape}")
        self.num_players = num_players
        self.player_at = np.full(
            (self.seats.shape[1], num_players), -1, dtype=np.int64
        )  # [B, seat] -> player
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

    def reset_games(self, games: np.ndarray) -> None:
        """Tell the players of ``games``, dealt again, to forget them (``Player.reset_games``)."""
        for i, player in enumerate(self.players):
            seats = self.seats[i, games]
            present = seats >= 0
            if present.any():
                player.reset_games(games[present], seats[present])

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> None:
        """Fill ``actions[games]`` with the actions of the players whose turn it is there.

        Args:
            state: The batch.
            games: Games where a player of this table decides now.
            mask: ``bool[B, A]``: the legal actions of the whole batch.
            actions: ``int64[B]``, written at ``games``.

        Raises:
            ValueError: A player chose an illegal action (naming it and the games).
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
            chosen = np.asarray(self.players[i].act(state, mine, mask[mine]), dtype=np.int64).reshape(-1)
            legal = (
                len(chosen) == len(mine)
                and ((chosen >= 0) & (chosen < mask.shape[1])).all()
                and mask[mine, chosen].all()
            )
            if not legal:
                raise ValueError(
                    f"player {self.players[i]!r} chose an illegal action in games {mine.tolist()}"
                )
            actions[mine] = chosen

    def tell(self, state: core.State, events: np.ndarray) -> None:
        """Show every observing player its ``core.private_view`` of ``events`` (``-1`` rows in games it is not in)."""
        for i in self.listeners:
            seats = self.seats[i]
            absent = seats < 0
            if absent.all():
                continue
            view = core.private_view(events, seats[:, None])
            view[absent] = -1
            self.players[i].observe(state, view)
