"""What both pictures of a game show: where the classic board's rooms, doors, walls and passages
lie, where pawns and weapons stand, and the status lines (turn, phase, dice, suggestion, who is out).

``cluedo_env.render`` draws them as text (``render_ansi``), ``cluedo_env.render_image`` as a
picture (``render_rgb``). Everything here is a public fact of the game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from cluedo_env.core.board import COLS, ROOM_LETTERS, ROWS, classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.state import Phase, State
from cluedo_env.transcript import player_name

__all__ = [
    "BoardLayout",
    "board_layout",
    "classic_room_cells",
    "door_edges",
    "location_text",
    "passage_markers",
    "room_contents",
    "room_walls",
    "status_lines",
]

NAME_ROW_SHARE = 0.75  # a room's name goes on its first row at least this share of its width
NONE_ROOM_CELLS = (8, 6)  # (width, height) of a room tile when board="none"


@dataclass(frozen=True)
class BoardLayout:
    """Where things are drawn, in cell units: room boxes ``(top, left, bottom, right)``, the board's size."""

    rooms: tuple[tuple[float, float, float, float], ...]  # (top, left, bottom, right) per room
    rows: int
    cols: int
    classic: bool


@cache
def classic_room_cells() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per room of the classic board, its cells ``(row, col)`` in reading order."""
    grid = classic_board().grid
    return tuple(
        tuple((r, c) for r in range(ROWS) for c in range(COLS) if grid[r][c] == letter)
        for letter in ROOM_LETTERS
    )


@cache
def door_edges() -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """``(room cell, door square)`` of every door, both as ``(row, col)``."""
    board = classic_board()
    edges = []
    for room, doors in enumerate(board.doors):
        for square in doors:
            r, c = board.squares[square]
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < ROWS and 0 <= cc < COLS and board.grid[rr][cc] == ROOM_LETTERS[room]:
                    edges.append(((rr, cc), (r, c)))
                    break
    return tuple(edges)


@cache
def room_walls() -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
    """Per room, its walls: ``(row, col, dr, dc)``, the side of a room cell facing a cell outside the room."""
    grid = classic_board().grid
    walls = []
    for room, cells in enumerate(classic_room_cells()):
        letter = ROOM_LETTERS[room]
        walls.append(
            tuple(
                (r, c, dr, dc)
                for r, c in cells
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if not (0 <= r + dr < ROWS and 0 <= c + dc < COLS and grid[r + dr][c + dc] == letter)
            )
        )
    return tuple(walls)


def passage_markers() -> dict[int, tuple[int, int]]:
    """The cell where the board prints each room's secret passage."""
    return {room: cell for room, cell in enumerate(classic_board().passage_markers) if cell is not None}


@cache
def board_layout(board: str, num_rooms: int) -> BoardLayout:
    """Where the rooms are drawn: the classic board's, or ``num_rooms`` tiles with ``board="none"``."""
    if board == "classic":
        boxes = []
        for cells in classic_room_cells():
            rows, cols = [r for r, _ in cells], [c for _, c in cells]
            left, right = min(cols), max(cols) + 1
            # The name goes on the first row spanning most of the room (not on a short top row).
            top = next(r for r in sorted(set(rows)) if rows.count(r) >= NAME_ROW_SHARE * (right - left))
            boxes.append((top, left, max(rows) + 1, right))
        return BoardLayout(tuple(boxes), ROWS, COLS, classic=True)
    width, height = NONE_ROOM_CELLS
    per_row = math.ceil(math.sqrt(num_rooms))
    tile_rows = math.ceil(num_rooms / per_row)
    boxes = []
    for room in range(num_rooms):
        r, c = divmod(room, per_row)
        top, left = 1 + r * height, 1 + c * width
        boxes.append((top + 0.15, left + 0.15, top + height - 0.15, left + width - 0.15))
    # One spare row at the bottom for pawns in no room (before anyone has picked one).
    return BoardLayout(tuple(boxes), tile_rows * height + 4, per_row * width + 2, classic=False)


def location_text(config: GameConfig, location: int) -> str:
    """``"Kitchen"``, ``"square (7,16)"`` or ``"in no room"``: where a pawn stands."""
    rooms = config.cards.rooms
    if location < len(rooms):
        return rooms[location]
    if config.board == "none":
        return "in no room"
    row, col = classic_board().squares[location - len(rooms)]
    return f"square ({row},{col})"


def status_lines(state: State, game: int, ending: str | None = None) -> list[str]:
    """Whose turn, phase, dice, suggestion, eliminations, result: shared by both renderers.

    ``ending``: why the game ended, for a game ended outside the rules, which its state cannot
    tell (``cluedo_v0.env()`` ends a game on an illegal action: no winner, nobody out). The
    result line is then ``"Game over: <ending>"``.
    """
    config, e = state.config, state.config.cards
    phase = int(state.phase[game])
    turn_player = int(state.turn_player[game])
    turn = int(state.turn[game]) + 1  # counted from 1, as the text view and the story count
    lines = [f"Turn {turn}: {player_name(config, turn_player)}, phase {Phase.NAMES[phase]}"]
    deciding = int(state.current_player[game])
    if phase == Phase.REFUTE:
        lines.append(f"Deciding: {player_name(config, deciding)} (which card to show)")
    dice = [int(d) for d in state.dice[game] if d >= 0]
    lines.append("Dice: " + (" + ".join(map(str, dice)) + f" = {sum(dice)}" if dice else "-"))
    suggestion = [int(c) for c in state.suggestion[game]]
    if suggestion[0] >= 0:
        s, w, r = (e.cards[c] for c in suggestion)
        lines.append(f"Suggestion: {s} with the {w} in the {r}")
    else:
        lines.append("Suggestion: none")
    out = [player_name(config, p) for p in np.flatnonzero(state.eliminated[game])]
    lines.append("Eliminated: " + (", ".join(out) if out else "none"))
    if ending is not None:
        lines.append(f"Game over: {ending}")
    elif state.terminated[game] or state.truncated[game]:
        winner = int(state.winner[game])
        lines.append(
            f"Game over: {player_name(config, winner)} wins"
            if winner >= 0
            else "Game over: " + ("truncated" if state.truncated[game] else "everybody accused wrongly")
        )
    return lines


def room_contents(state: State, game: int) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Pawns (suspects) and weapons in each room, and pawns in no room."""
    R = state.config.cards.num_rooms
    pawns: list[list[int]] = [[] for _ in range(R)]
    weapons: list[list[int]] = [[] for _ in range(R)]
    outside = []
    for suspect, location in enumerate(state.location[game]):
        if location < R:
            pawns[int(location)].append(suspect)
        else:
            outside.append(suspect)
    for weapon, room in enumerate(state.weapon_room[game]):
        weapons[int(room)].append(weapon)
    return pawns, weapons, outside
