"""The classic board, parsed from ``data/classic_board.txt``, with its lookup tables.

Locations are small integers shared by the whole project: ``0 .. R-1`` are the
rooms (classic board order) and ``R + k`` is playable square ``k`` (squares are
numbered in row-major order over the grid). Movement works on bit-boards: a
board is 25 ``uint32`` rows, bit ``col`` of row ``row`` standing for the square
at ``(row, col)``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

__all__ = ["Board", "classic_board", "parse_board", "room_distances"]

ROWS, COLS = 25, 24
ROOM_LETTERS = "KBCDRLOHS"
UNREACHABLE = 255


@dataclass(frozen=True, eq=False)
class Board:
    """A parsed board and the tables movement needs.

    Attributes:
        grid: The 25 grid lines as written in the data file.
        room_names: Room names in board order.
        squares: ``(row, col)`` of each playable square, row-major.
        square_index: ``int16[ROWS, COLS]``, square number or -1.
        neighbours: For each square, the adjacent playable squares.
        doors: For each room, its door squares (square numbers).
        door_cells: For each room, the room cell each of its doors opens from
            (``(row, col)``, in the order of ``doors``).
        starts: Start square of each suspect, in start order round the board.
        passages: ``int8[R]``, the room a secret passage leads to, or -1.
        passage_markers: For each room, the cell where the board prints its
            secret passage (cosmetic), or None.
        corridor_bits: ``uint32[ROWS]`` bit-board of all playable squares.
        door_bits: ``uint32[R, ROWS]`` bit-board of each room's door squares.
        square_bits: ``uint32[N, ROWS]`` bit-board of each single square.
        bit_position: ``int32[N]`` position of each square in an unpacked
            ``ROWS * 32`` bit vector (``row * 32 + col``).
        room_distance: ``uint8[N, R]`` moves from a square into a room when no
            pawn is in the way (entering through a door costs one move).
    """

    grid: tuple[str, ...]
    room_names: tuple[str, ...]
    squares: tuple[tuple[int, int], ...]
    square_index: np.ndarray
    neighbours: tuple[tuple[int, ...], ...]
    doors: tuple[tuple[int, ...], ...]
    door_cells: tuple[tuple[tuple[int, int], ...], ...]
    starts: tuple[int, ...]
    passages: np.ndarray
    passage_markers: tuple[tuple[int, int] | None, ...]
    corridor_bits: np.ndarray
    door_bits: np.ndarray
    square_bits: np.ndarray
    bit_position: np.ndarray
    room_distance: np.ndarray

    @property
    def num_squares(self) -> int:
        return len(self.squares)

    @property
    def num_rooms(self) -> int:
        return len(self.room_names)

    def location_name(self, location: int) -> str:
        """``"Kitchen"`` for a room, ``"square (row,col)"`` for a square."""
        if 0 <= location < self.num_rooms:
            return self.room_names[location]
        row, col = self.squares[location - self.num_rooms]
        return f"square ({row},{col})"


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return sections


def _cell(text: str, line: str) -> tuple[int, int]:
    """The ``row,col`` of ``text``, a cell of the grid (a ``ValueError`` naming ``line`` otherwise:
    a negative index would wrap round the grid)."""
    try:
        row, col = (int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"bad cell {text!r} in {line!r}: expected row,col") from None
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise ValueError(f"cell {text!r} in {line!r} is off the grid: row in [0, {ROWS}), col in [0, {COLS})")
    return row, col


def _room(name: str, room_names: tuple[str, ...], line: str) -> int:
    if name not in room_names:
        raise ValueError(f"unknown room {name!r} in {line!r}; rooms are {list(room_names)}")
    return room_names.index(name)


def parse_board(text: str) -> Board:
    """Parse a board file in the format of ``data/classic_board.txt``."""
    sections = _sections(text)
    grid = tuple(sections["grid"])
    if len(grid) != ROWS or any(len(line) != COLS for line in grid):
        raise ValueError(f"[grid] must have {ROWS} lines of {COLS} characters")
    legend = dict(line.split(" | ", 1) for line in sections["legend"])
    missing = [letter for letter in ROOM_LETTERS if letter not in legend]
    if missing:
        raise ValueError(f"[legend] must name every room letter of {ROOM_LETTERS!r}, missing {missing}")
    room_names = tuple(legend[letter].removeprefix("room: ") for letter in ROOM_LETTERS)

    squares = tuple(
        (r, c) for r in range(ROWS) for c in range(COLS) if grid[r][c] == "." or grid[r][c].isdigit()
    )
    square_index = np.full((ROWS, COLS), -1, dtype=np.int16)
    for k, (r, c) in enumerate(squares):
        square_index[r, c] = k
    neighbours = tuple(
        tuple(
            int(square_index[r + dr, c + dc])
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < ROWS and 0 <= c + dc < COLS and square_index[r + dr, c + dc] >= 0
        )
        for r, c in squares
    )

    doors: list[list[int]] = [[] for _ in room_names]
    door_cells: list[list[tuple[int, int]]] = [[] for _ in room_names]
    for line in sections["doors"]:
        name, room_cell, door_cell, _side = (f.strip() for f in line.split("|"))
        room = _room(name, room_names, line)
        (rr, rc), (dr, dc) = _cell(room_cell, line), _cell(door_cell, line)
        if grid[rr][rc] != ROOM_LETTERS[room] or square_index[dr, dc] < 0 or abs(rr - dr) + abs(rc - dc) != 1:
            raise ValueError(f"bad door {line!r}")
        doors[room].append(int(square_index[dr, dc]))
        door_cells[room].append((rr, rc))

    starts_by_digit = {}
    for line in sections["starts"]:
        digit, _suspect, cell, _edge = (f.strip() for f in line.split("|"))
        square = int(square_index[_cell(cell, line)])
        if square < 0 or int(digit) in starts_by_digit:
            raise ValueError(f"bad start {line!r}: each start is one playable square, its digit not repeated")
        starts_by_digit[int(digit)] = square
    starts = tuple(starts_by_digit[d] for d in sorted(starts_by_digit))

    passages = np.full(len(room_names), -1, dtype=np.int8)
    markers: list[tuple[int, int] | None] = [None] * len(room_names)
    for line in sections["passages"]:
        first_name, second_name, first_cell, second_cell = (f.strip() for f in line.split("|"))
        first, second = _room(first_name, room_names, line), _room(second_name, room_names, line)
        passages[first], passages[second] = second, first
        markers[first], markers[second] = _cell(first_cell, line), _cell(second_cell, line)

    square_bits = np.zeros((len(squares), ROWS), dtype=np.uint32)
    for k, (r, c) in enumerate(squares):
        square_bits[k, r] = np.uint32(1 << c)
    corridor_bits = np.bitwise_or.reduce(square_bits, axis=0)
    door_bits = np.zeros((len(room_names), ROWS), dtype=np.uint32)
    for room, room_doors in enumerate(doors):
        door_bits[room] = np.bitwise_or.reduce(square_bits[list(room_doors)], axis=0)
    bit_position = np.array([r * 32 + c for r, c in squares], dtype=np.int32)

    room_distance = np.full((len(squares), len(room_names)), UNREACHABLE, dtype=np.uint8)
    for room, room_doors in enumerate(doors):
        distance = _bfs(neighbours, room_doors)
        room_distance[:, room] = np.minimum(distance + 1, UNREACHABLE)

    for array in (square_index, passages, corridor_bits, door_bits, square_bits, bit_position, room_distance):
        array.flags.writeable = False
    return Board(
        grid=grid,
        room_names=room_names,
        squares=squares,
        square_index=square_index,
        neighbours=neighbours,
        doors=tuple(tuple(d) for d in doors),
        door_cells=tuple(tuple(cells) for cells in door_cells),
        starts=starts,
        passages=passages,
        passage_markers=tuple(markers),
        corridor_bits=corridor_bits,
        door_bits=door_bits,
        square_bits=square_bits,
        bit_position=bit_position,
        room_distance=room_distance,
    )


def _bfs(neighbours: tuple[tuple[int, ...], ...], sources: list[int]) -> np.ndarray:
    distance = np.full(len(neighbours), UNREACHABLE - 1, dtype=np.int32)
    queue = deque(sources)
    for s in sources:
        distance[s] = 0
    while queue:
        square = queue.popleft()
        for nxt in neighbours[square]:
            if distance[nxt] > distance[square] + 1:
                distance[nxt] = distance[square] + 1
                queue.append(nxt)
    return distance


@cache
def classic_board() -> Board:
    """The classic 24 x 25 board shipped with the package."""
    text = resources.files("cluedo_env.core").joinpath("data/classic_board.txt").read_text(encoding="utf-8")
    return parse_board(text)


@cache
def room_distances(board: Board) -> np.ndarray:
    """Moves into each room from each location when no pawn is in the way: what a route planner needs.

    Returns:
        ``float32[R + N, R]``, read-only: row ``location`` (rooms, then squares, as everywhere
        in the project) gives the moves into each room; entering through a door costs one
        move, leaving a room onto one of its doors one more, and a room is 0 from itself.
        Secret passages are not counted (taking one is a turn's move of its own).
    """
    into = board.room_distance.astype(np.float32)  # [N, R] from the squares
    from_rooms = np.stack([into[list(doors)].min(axis=0) + 1 for doors in board.doors])
    np.fill_diagonal(from_rooms, 0.0)
    distances = np.concatenate([from_rooms, into])
    distances.flags.writeable = False
    return distances
