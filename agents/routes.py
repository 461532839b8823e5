"""Moves into each room of the classic board around the pawns that stand still.

The rules core's distance table (``core.room_distances``) ignores pawns,
which usually move on. Some pawns do not: a suspect nobody plays moves only when
named in a suggestion, and the pawn of a player out of the game after a wrong
accusation stays where it stood. A pawn never moves onto or through another, so
in a corridor one square wide such a pawn closes the way for good (in the duel,
an opponent out of the game often stands in one). ``Routes`` gives the moves
into each room around those pawns, so that an agent walks around them rather
than waiting in front of them for ever.

Only in the duel: there four of the six pawns belong to nobody, and an opponent
out of the game leaves the last player among pawns that never move again. In the
classic game the other players keep walking and naming suspects, and the
pawn-free table is used as it always was (the README's classic figures were
measured with it).
"""

from __future__ import annotations

import numpy as np

from cluedo_env import core

__all__ = ["Routes"]


class Routes:
    """Moves into each room around standing pawns, for one config of the classic board.

    Args:
        config: The game's rules (``board="classic"``).
    """

    CACHE_SIZE = 1024  # standing-pawn layouts remembered (7 kB each)

    def __init__(self, config: core.GameConfig) -> None:
        if config.board != "classic":
            raise ValueError(f"routes need the classic board, got board={config.board!r}")
        board = core.classic_board()
        self.R, self.N, self.P = board.num_rooms, board.num_squares, config.num_players
        self.walk_around = config.duel  # see the module docstring
        # The pawn-free moves from each location (rooms, then squares) into each room: [R+N, R].
        self.free = core.room_distances(board)
        self.distance_by_room = np.ascontiguousarray(
            board.room_distance.T
        )  # [R, N] pawn-free moves into each room
        # Neighbours of each square, padded with N (a square that is never free).
        width = max(len(n) for n in board.neighbours)
        self.neighbours = np.full((self.N, width), self.N, dtype=np.int64)
        for square, near in enumerate(board.neighbours):
            self.neighbours[square, : len(near)] = near
        self.doors = [list(doors) for doors in board.doors]
        self._cache: dict[tuple[int, ...], tuple[np.ndarray, bool]] = {}

    def standing(self, state: core.State, game: int, seat: int) -> tuple[int, ...]:
        """The squares where a pawn stands still in one game (not the mover's own), sorted.

        Standing pawns: the suspects nobody plays, and the players out of the game (none
        outside the duel: see the module docstring).
        """
        if not self.walk_around:
            return ()
        location = state.location[game].astype(np.int64)
        moves = np.zeros(len(location), dtype=bool)
        moves[: self.P] = ~state.eliminated[game]
        moves[seat] = True  # the mover is no obstacle to itself
        return tuple(sorted(int(q) - self.R for q in location[~moves & (location >= self.R)]))

    def around(self, standing: tuple[int, ...]) -> tuple[np.ndarray, bool]:
        """Moves from each location into each room around pawns standing on these squares.

        Returns:
            ``float[R+N, R]`` (the core's pawn-free table where no standing pawn is in the way;
            ``inf`` where every way is closed), and whether a standing pawn lengthens any route
            (from a square it does not stand on). Cached: standing pawns seldom move.
        """
        if standing not in self._cache:
            if len(self._cache) >= self.CACHE_SIZE:
                self._cache.clear()
            into = self.into_rooms(np.isin(np.arange(self.N), standing)[None])[0]
            differs = into != self.free
            differs[self.R + np.array(standing, dtype=np.int64)] = False
            self._cache[standing] = (into, bool(differs.any()))
        return self._cache[standing]

    def toward_stop(self, state: core.State, game: int, room: int) -> int:
        """The square a move toward ``room`` stops on (the core's rule): the reachable square
        with the fewest pawn-free moves into the room, the lowest-numbered of ties."""
        distance = self.distance_by_room[room].astype(np.int64)
        return int(np.argmin(np.where(state.reachable[game], distance, np.iinfo(np.int64).max)))

    def into_rooms(self, standing: np.ndarray) -> np.ndarray:
        """``float[m, R+N, R]``: moves from each location into each room, for ``m`` boards.

        Args:
            standing: ``bool[m, N]`` squares where a pawn stands still.
        """
        m, R, N = len(standing), self.R, self.N
        closed = np.concatenate([standing, np.ones((m, 1), dtype=bool)], axis=1)[:, None, :]  # [m, 1, N+1]
        # to_door[g, r, q]: moves from square q to a free door square of room r (a shortest path
        # never repeats a square, so relaxing until nothing changes gives breadth-first distances).
        to_door = np.full((m, R, N + 1), np.inf)
        for room, doors in enumerate(self.doors):
            to_door[:, room, doors] = 0.0
        to_door[np.broadcast_to(closed, to_door.shape)] = np.inf
        while True:
            step = to_door[:, :, self.neighbours].min(axis=3) + 1.0  # [m, R, N]
            relaxed = np.minimum(to_door[:, :, :N], step)
            relaxed[np.broadcast_to(closed[:, :, :N], relaxed.shape)] = np.inf
            if np.array_equal(relaxed, to_door[:, :, :N]):
                break
            to_door[:, :, :N] = relaxed
        from_square = to_door[:, :, :N].transpose(0, 2, 1) + 1.0  # [m, N, R]: the last move enters
        # From a room: a move onto one of its free doors, then on as from that square.
        from_room = np.stack([from_square[:, doors].min(axis=1) + 1.0 for doors in self.doors], axis=1)
        from_room[:, np.arange(R), np.arange(R)] = 0.0
        return np.concatenate([from_room, from_square], axis=1).astype(self.free.dtype)  # as the core's

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_cache"] = {}  # rebuilt on use
        return state
