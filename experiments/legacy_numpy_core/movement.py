"""Where a rolled pawn can go: a bit-board flood fill over a batch of moves.

A move goes up to ``roll`` orthogonal steps, never visiting a square twice and
never onto or through a square another pawn stands on. Entering a room through
a door ends the move and costs one step; a pawn leaving a room first steps onto
one of its doors, and it may not come back into the room it left (that would
visit its starting place twice). Shortest paths never repeat a square, so the
squares reachable within ``roll`` steps are exactly those at breadth-first
distance 1..roll through free squares.

Most moves need no fill: with no other pawn nearer than the roll they are read
off distance tables, with one from a table of every one-pawn move (filled per
start location on first use); only moves with two or more pawns in reach are
flood-filled, over bit-boards of the 25 rows.
"""

from __future__ import annotations

import numpy as np

from cluedo_env.core.board import ROWS, Board

__all__ = ["MoveTables", "reachable"]


class MoveTables:
    """Bit-boards of a board, laid out for flood fills over ``[ROWS, b]`` arrays."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.num_rooms = board.num_rooms
        n = board.num_squares
        rows = np.array([r for r, _ in board.squares])
        cols = np.array([c for _, c in board.squares])
        # By location (rooms, then squares): the row and bit of a square (a room: no bit, row 0),
        # the bit as a float (bincount's weights), and a room's door squares as [ROWS, R+N].
        r = board.num_rooms
        self.location_row = np.concatenate([np.zeros(r, dtype=np.int64), rows])
        self.location_bit = np.concatenate(
            [np.zeros(r, dtype=np.uint32), np.uint32(1) << cols.astype(np.uint32)]
        ).astype(np.uint32)
        self.location_weight = self.location_bit.astype(np.float64)
        self.door_bits = np.concatenate([board.door_bits, np.zeros((n, ROWS), np.uint32)]).T.copy()
        # other_room[location]: the rooms a pawn there may enter (all but the room it is in).
        self.other_room = np.ones((r + n, r), dtype=bool)
        self.other_room[np.arange(r), np.arange(r)] = False
        self.corridor_bits = board.corridor_bits[:, None]
        door_squares = [(room, sq) for room, doors in enumerate(board.doors) for sq in doors]
        self.door_room = np.array([room for room, _ in door_squares])
        self.door_square = np.array([sq for _, sq in door_squares])
        self.door_row = rows[self.door_square]
        self.door_col = cols[self.door_square].astype(np.uint32)
        self.room_first_door = self.door_room.searchsorted(np.arange(board.num_rooms))
        self.num_squares = n
        self.bit_position = board.bit_position
        # Room distance transposed, so one row per room: [R, N].
        self.distance_by_room = np.ascontiguousarray(board.room_distance.T)
        # Moves from each location (rooms, then squares) to each square and into each room
        # when no pawn is in the way; a pawn in a room reaches its doors in one move.
        from_square = np.stack([_bfs_all(board.neighbours, k) for k in range(n)])
        from_room = np.stack([from_square[list(doors)].min(axis=0) + 1 for doors in board.doors])
        self.distance_from = np.concatenate([from_room, from_square]).astype(np.int16)  # [R+N, N]
        door_distance = [self.distance_from[:, list(doors)].min(axis=1) for doors in board.doors]
        self.room_door_distance = np.stack(door_distance, axis=1)  # [R+N, R]: moves to a door of r
        # pawn_distance[start * (R+N) + location]: moves from start to a pawn at location, _FAR
        # where that pawn is in no one's way (in a room, or the mover itself at start).
        pawn_distance = np.full((board.num_rooms + n, board.num_rooms + n), _FAR, dtype=np.int16)
        pawn_distance[:, board.num_rooms :] = self.distance_from
        np.fill_diagonal(pawn_distance, _FAR)
        self.pawn_distance = pawn_distance.reshape(-1)
        # The same, ready for "reachable within the roll": a pawn never stops where it started
        # and never re-enters the room it left; read off by roll: [(R+N) * (MAX_ROLL+1), N]
        # squares and [(R+N) * (MAX_ROLL+1), R] rooms, row start * (MAX_ROLL+1) + roll.
        stop_distance = self.distance_from.copy()
        stop_distance[np.arange(board.num_rooms, board.num_rooms + n), np.arange(n)] = _FAR
        enter_distance = self.room_door_distance.copy()
        enter_distance[np.arange(board.num_rooms), np.arange(board.num_rooms)] = _FAR
        roll = np.arange(MAX_ROLL + 1)[None, :, None]
        self.stop_within = (stop_distance[:, None, :] <= roll).reshape(-1, n)
        self.enter_within = (enter_distance[:, None, :] < roll).reshape(-1, board.num_rooms)

        self._one_pawn: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def one_pawn(
        self, start: np.ndarray, square: np.ndarray, rolls: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Moves with exactly one other pawn nearer than ``roll`` moves, on ``square``.

        Read from a table of every such move, flood-filled once per start location the first
        time a move starts there (the table holds about 16 MB once full).

        Returns:
            ``(squares bool[b, N], rooms bool[b, R])`` as ``reachable``, before taking away the
            squares of pawns exactly ``roll`` moves away.
        """
        r, n = self.num_rooms, self.num_squares
        if self._one_pawn is None:
            self._one_pawn = (
                np.zeros((r + n, MAX_ROLL + 1, n, (n + 7) // 8), dtype=np.uint8),  # stops, packed
                np.zeros((r + n, MAX_ROLL + 1, n, r), dtype=bool),  # rooms
                np.zeros(r + n, dtype=bool),  # start locations filled in
            )
        stops, rooms, filled = self._one_pawn
        known = filled[start]
        if not known.all():
            self._fill_one_pawn(np.unique(start[~known]))
        row = (start * (MAX_ROLL + 1) + rolls) * n + square
        packed = stops.reshape(-1, stops.shape[-1]).take(row, axis=0)
        squares = np.unpackbits(packed, axis=1, count=n, bitorder="little").view(bool)
        return squares, rooms.reshape(-1, r).take(row, axis=0)

    def fill_one_pawn(self) -> None:
        """Fill the whole table of one-pawn moves now (about 0.5 s) rather than on first use.

        For long runs and benchmarks that would rather not pay the fill during their first steps.
        """
        self.one_pawn(np.array([0]), np.array([0]), np.array([1]))  # allocates the table
        missing = (~self._one_pawn[2]).nonzero()[0]
        if len(missing):
            self._fill_one_pawn(missing)

    def _fill_one_pawn(self, starts: np.ndarray) -> None:
        stops, rooms, filled = self._one_pawn
        r, n = self.num_rooms, self.num_squares
        start = starts.repeat(n)
        pawns = np.zeros((len(start), 6), dtype=np.int64)  # the others wait in room 0: no obstacle
        pawns[:, 0] = start
        pawns[:, 1] = r + np.tile(np.arange(n), len(starts))
        layers = _fill(self, start, pawns, MAX_ROLL)
        new_stops = np.zeros((len(starts), MAX_ROLL + 1, n, stops.shape[-1]), dtype=np.uint8)
        new_rooms = np.zeros((len(starts), MAX_ROLL + 1, n, r), dtype=bool)
        for roll in range(1, MAX_ROLL + 1):
            squares, enter = _read(self, layers[roll].T, layers[roll - 1].T, layers[0].T, start)
            new_stops[:, roll] = np.packbits(squares, axis=1, bitorder="little").reshape(len(starts), n, -1)
            new_rooms[:, roll] = enter.reshape(len(starts), n, r)
        stops[starts], rooms[starts] = new_stops, new_rooms
        filled[starts] = True


_FAR = 999  # further than any roll
MAX_ROLL = 12  # two dice


def _bfs_all(neighbours: tuple[tuple[int, ...], ...], source: int) -> np.ndarray:
    distance = np.full(len(neighbours), 999, dtype=np.int32)
    distance[source] = 0
    frontier = [source]
    while frontier:
        nxt = []
        for square in frontier:
            for other in neighbours[square]:
                if distance[other] == 999:
                    distance[other] = distance[square] + 1
                    nxt.append(other)
        frontier = nxt
    return distance


def reachable(
    tables: MoveTables, start: np.ndarray, rolls: np.ndarray, pawns: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Squares and rooms a pawn can reach with its roll, for b moves at once.

    Where no other pawn stands nearer than ``roll`` moves from the start, no path
    of the move can pass one, and the answer is read off the distance tables (a
    pawn exactly ``roll`` moves away only takes its own square). With exactly one
    such pawn the answer is read from the table of one-pawn moves
    (``MoveTables.one_pawn``); the moves with two or more are flood-filled around
    the pawns.

    Args:
        tables: The board's move tables.
        start: ``int[b]`` location of the moving pawn.
        rolls: ``int[b]`` dice total, at least 1.
        pawns: ``int[b, 6]`` locations of all pawns (the mover included).

    Returns:
        ``(squares bool[b, N], rooms bool[b, R])``: the playable squares the pawn
        may stop on and the rooms it may enter.
    """
    r, n = tables.num_rooms, tables.num_squares
    start = start.astype(np.int64)
    rolls = rolls.astype(np.int64)
    pawn_distance = tables.pawn_distance.take(start[:, None] * (r + n) + pawns)
    by_roll = start * (MAX_ROLL + 1) + rolls
    squares = tables.stop_within.take(by_roll, axis=0)
    rooms = tables.enter_within.take(by_roll, axis=0)
    # Pawns nearer than ``roll`` moves may cut paths: with one, the answer is in a table; with
    # more, the move is flood-filled around them.
    near = pawn_distance < rolls[:, None]
    count = near.sum(axis=1)
    one = (count == 1).nonzero()[0]
    if len(one):
        square = pawns[one, near[one].argmax(axis=1)] - r
        squares[one], rooms[one] = tables.one_pawn(start[one], square, rolls[one])
    several = (count > 1).nonzero()[0]
    if len(several):
        squares[several], rooms[several] = flood_fill(tables, start[several], rolls[several], pawns[several])
    # A pawn at exactly ``roll`` moves only takes its own square away.
    game, pawn = (pawn_distance == rolls[:, None]).nonzero()
    squares[game, pawns[game, pawn] - r] = False
    return squares, rooms


def flood_fill(
    tables: MoveTables, start: np.ndarray, rolls: np.ndarray, pawns: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``reachable`` by a bit-board flood fill around the pawns (any positions).

    Args:
        tables: The board's move tables.
        start: ``int[b]`` location of the moving pawn.
        rolls: ``int[b]`` dice total, at least 1.
        pawns: ``int[b, 6]`` locations of all pawns (the mover included).

    Returns:
        ``(squares bool[b, N], rooms bool[b, R])``: the playable squares the pawn
        may stop on and the rooms it may enter.
    """
    rolls = rolls.astype(np.int64)
    layers = _fill(tables, start, pawns, int(rolls.max()))
    # Each game's rows of layers[roll] and layers[roll - 1], as [b, ROWS].
    b = len(start)
    last = (rolls[:, None] * ROWS + np.arange(ROWS)) * b + np.arange(b)[:, None]
    return _read(tables, layers.take(last), layers.take(last - ROWS * b), layers[0].T, start)


def _fill(tables: MoveTables, start: np.ndarray, pawns: np.ndarray, most: int) -> np.ndarray:
    """``uint32[most + 1, ROWS, b]``: layer t holds the squares within t moves (the origin included)."""
    b = len(start)
    games = np.arange(b)
    # Pawns stand on distinct squares, so adding their bits row by row is OR-ing them (a pawn in
    # a room adds nothing).
    cell = tables.location_row.take(pawns) * b + games[:, None]
    occupied = (
        np.bincount(cell.ravel(), weights=tables.location_weight.take(pawns).ravel(), minlength=ROWS * b)
        .astype(np.uint32)
        .reshape(ROWS, b)
    )
    visited = np.zeros((ROWS, b), dtype=np.uint32)
    visited[tables.location_row.take(start), games] = tables.location_bit.take(start)
    free = (tables.corridor_bits & ~occupied) | visited  # the mover's own square stays "visited"
    # layers[t]: the neighbours of layers[t - 1], and layers[t - 1] itself, that are free.
    layers = np.empty((most + 1, ROWS, b), dtype=np.uint32)
    layers[0] = visited
    spread = np.empty_like(visited)
    for t in range(1, most + 1):
        np.left_shift(visited, np.uint32(1), out=spread)
        spread |= visited >> np.uint32(1)
        spread |= visited
        spread[1:] |= visited[:-1]
        spread[:-1] |= visited[1:]
        if t == 1:  # from a room: its doors
            spread |= tables.door_bits.take(start, axis=1)
        visited = np.bitwise_and(spread, free, out=layers[t])
    return layers


def _read(
    tables: MoveTables, final: np.ndarray, before_last: np.ndarray, origin: np.ndarray, start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The stops (``bool[b, N]``) and rooms (``bool[b, R]``) of b moves, from their fill layers.

    ``final``, ``before_last`` and ``origin`` are ``uint32[b, ROWS]``: the squares within
    ``roll``, ``roll - 1`` and 0 moves of each move.
    """
    stops = np.ascontiguousarray(final & ~origin)
    bits = np.unpackbits(stops.view(np.uint8), axis=1, bitorder="little")
    squares = bits.take(tables.bit_position, axis=1)
    at_door = (before_last[:, tables.door_row] >> tables.door_col) & np.uint32(1)
    rooms = np.maximum.reduceat(at_door, tables.room_first_door, axis=1).astype(bool)
    rooms &= tables.other_room.take(start, axis=0)
    return squares.view(bool), rooms
