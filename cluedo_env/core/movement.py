"""Where a rolled pawn can go: distance tables and a bit-board flood fill, compiled per move.

A move goes up to ``roll`` orthogonal steps, never visiting a square twice and
never onto or through a square another pawn stands on. Entering a room through
a door ends the move and costs one step; a pawn leaving a room first steps onto
one of its doors, and it may not come back into the room it left (that would
visit its starting place twice). Shortest paths never repeat a square, so the
squares reachable within ``roll`` steps are exactly those at breadth-first
distance 1..roll through free squares.

Most moves need no fill: with no other pawn nearer than the roll they are read
off distance tables; the others are flood-filled around the pawns, over
bit-boards of the 25 rows (``fill``). ``reach`` is the compiled per-move rule the
core calls (``core/rules.py``); ``reachable`` and ``flood_fill`` run it over
several moves from Python (tests, tools).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cluedo_env.core.board import ROWS, Board

__all__ = ["MAX_ROLL", "MoveTables", "fill", "flood_fill", "reach", "reachable"]


class MoveTables:
    """A board's movement tables: pawn-free distances, moves by roll, and bit-boards for the fill."""

    def __init__(self, board: Board) -> None:
        self.board = board
        r, n = board.num_rooms, board.num_squares
        self.num_rooms, self.num_squares = r, n
        # Room distance transposed, so one row per room: [R, N].
        self.distance_by_room = np.ascontiguousarray(board.room_distance.T)
        # Moves from each location (rooms, then squares) to each square and into each room
        # when no pawn is in the way; a pawn in a room reaches its doors in one move.
        from_square = np.stack([_bfs_all(board.neighbours, k) for k in range(n)])
        from_room = np.stack([from_square[list(doors)].min(axis=0) + 1 for doors in board.doors])
        self.distance_from = np.concatenate([from_room, from_square]).astype(np.int16)  # [R+N, N]
        door_distance = [self.distance_from[:, list(doors)].min(axis=1) for doors in board.doors]
        self.room_door_distance = np.stack(door_distance, axis=1)  # [R+N, R]: moves to a door of r
        # The same, ready for "reachable within the roll": a pawn never stops where it started
        # and never re-enters the room it left; read off by roll: [(R+N) * (MAX_ROLL+1), N]
        # squares and [(R+N) * (MAX_ROLL+1), R] rooms, row start * (MAX_ROLL+1) + roll.
        stop_distance = self.distance_from.copy()
        stop_distance[np.arange(r, r + n), np.arange(n)] = _FAR
        enter_distance = self.room_door_distance.copy()
        enter_distance[np.arange(r), np.arange(r)] = _FAR
        roll = np.arange(MAX_ROLL + 1)[None, :, None]
        self.stop_within = (stop_distance[:, None, :] <= roll).reshape(-1, n)
        self.enter_within = (enter_distance[:, None, :] < roll).reshape(-1, r)
        # Bit-boards for the fill (int64 rows, bit c = column c): the corridor squares, each
        # room's door squares, each square's row and column, each door as (room, square).
        self.corridor = board.corridor_bits.astype(np.int64)
        self.room_doors = board.door_bits.astype(np.int64)  # [R, ROWS]
        self.square_row = np.array([row for row, _ in board.squares], dtype=np.int64)
        self.square_col = np.array([col for _, col in board.squares], dtype=np.int64)
        doors = [(room, square) for room, squares in enumerate(board.doors) for square in squares]
        self.door_room = np.array([room for room, _ in doors], dtype=np.int64)
        self.door_square = np.array([square for _, square in doors], dtype=np.int64)


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
    """Squares and rooms a pawn can reach with its roll, for b moves (``reach`` per move).

    Args:
        tables: The board's move tables.
        start: ``int[b]`` location of the moving pawn.
        rolls: ``int[b]`` dice total, at least 1.
        pawns: ``int[b, 6]`` locations of all pawns (the mover included).

    Returns:
        ``(squares bool[b, N], rooms bool[b, R])``: the playable squares the pawn
        may stop on and the rooms it may enter.
    """
    return _moves(tables, start, rolls, pawns, table_first=True)


def flood_fill(
    tables: MoveTables, start: np.ndarray, rolls: np.ndarray, pawns: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``reachable`` by the bit-board flood fill alone (never the distance tables); same arguments."""
    return _moves(tables, start, rolls, pawns, table_first=False)


def _moves(tables: MoveTables, start, rolls, pawns, table_first: bool) -> tuple[np.ndarray, np.ndarray]:
    start, rolls = np.asarray(start, dtype=np.int64), np.asarray(rolls, dtype=np.int64)
    pawns = np.ascontiguousarray(pawns, dtype=np.int64)
    squares = np.zeros((len(start), tables.num_squares), dtype=bool)
    rooms = np.zeros((len(start), tables.num_rooms), dtype=bool)
    bits = (tables.corridor, tables.room_doors, tables.square_row, tables.square_col)
    doors = (tables.door_room, tables.door_square)
    for k in range(len(start)):
        move = (start[k], rolls[k], pawns[k], squares[k], rooms[k])
        if table_first:
            reach(tables.stop_within, tables.enter_within, tables.distance_from, *bits, *doors, *move)
        else:
            fill(*bits, *doors, *move)
    return squares, rooms


@njit(cache=True, nogil=True, _nrt=True)  # (explicitly: its callers, core/batched.py, count none)
def reach(
    stop_within, enter_within, distance_from, corridor, room_doors, square_row, square_col,
    door_room, door_square, start, roll, pawns, squares, rooms,
):  # fmt: skip
    """Write into ``squares`` (``bool[N]``) and ``rooms`` (``bool[R]``) where a pawn at ``start``
    may go with ``roll``; ``pawns`` holds every pawn's location (the mover's included).

    Where no other pawn stands nearer than ``roll`` moves, no path of the move can pass one and
    the answer is the pawn-free table's; otherwise the move is flood-filled around the pawns.
    Either way a pawn exactly ``roll`` moves away only takes its own square away.
    """
    R = room_doors.shape[0]
    in_the_way = False
    for location in pawns:
        if location >= R and location != start and distance_from[start, location - R] < roll:
            in_the_way = True
    if in_the_way:
        fill(corridor, room_doors, square_row, square_col, door_room, door_square, start, roll, pawns,
             squares, rooms)  # fmt: skip
    else:
        row = start * (MAX_ROLL + 1) + roll
        for square in range(len(squares)):  # (loops: numba's slice assignment costs far more)
            squares[square] = stop_within[row, square]
        for room in range(len(rooms)):
            rooms[room] = enter_within[row, room]
    for location in pawns:
        if location >= R and location != start and distance_from[start, location - R] == roll:
            squares[location - R] = False


@njit(cache=True, nogil=True, _nrt=True)  # (explicitly, as reach: it allocates)
def fill(
    corridor, room_doors, square_row, square_col, door_room, door_square, start, roll, pawns, squares, rooms
):  # fmt: skip
    """``reach`` by a flood fill over bit-boards: row r of a board is an integer whose bit c is
    the square at (r, c). Step t spreads the squares within t - 1 moves to their neighbours (from
    a room: to its doors) and keeps the free ones; stops are the squares within ``roll`` moves
    but the start, rooms those with a door within ``roll - 1`` moves but the room left."""
    R = room_doors.shape[0]
    boards = np.zeros((6, ROWS), dtype=np.int64)  # one allocation for the six boards
    occupied, origin, free, within, before, spread = (
        boards[0],
        boards[1],
        boards[2],
        boards[3],
        boards[4],
        boards[5],
    )
    for location in pawns:
        if location >= R:
            occupied[square_row[location - R]] |= 1 << square_col[location - R]
    if start >= R:  # the mover's own square (none from a room)
        origin[square_row[start - R]] = 1 << square_col[start - R]
    for r in range(ROWS):  # (loops: numba's whole-array operations allocate and cost far more)
        free[r] = (corridor[r] & ~occupied[r]) | origin[r]
        within[r] = origin[r]  # squares within t moves
        before[r] = origin[r]  # squares within t - 1 moves
    for t in range(1, roll + 1):
        for r in range(ROWS):
            before[r] = within[r]
        for r in range(ROWS):
            spread[r] = within[r] | (within[r] << 1) | (within[r] >> 1)
            if r > 0:
                spread[r] |= within[r - 1]
            if r < ROWS - 1:
                spread[r] |= within[r + 1]
            if t == 1 and start < R:  # leaving a room: onto its doors
                spread[r] |= room_doors[start, r]
        for r in range(ROWS):
            within[r] = spread[r] & free[r]
    for k in range(squares.shape[0]):
        row, col = square_row[k], square_col[k]
        squares[k] = ((within[row] & ~origin[row]) >> col) & 1 == 1
    rooms[:] = False
    for d in range(door_room.shape[0]):
        square = door_square[d]
        if (before[square_row[square]] >> square_col[square]) & 1:
            rooms[door_room[d]] = True
    if start < R:  # never back into the room left
        rooms[start] = False
