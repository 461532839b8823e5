"""Pictures of one game of a batch: the board as text (``render_ansi``, here) or as an image
(``render_rgb``, drawn by ``cluedo_env.render_image`` and importable from here too).

The board, the listing and the status lines show only public facts (pawns,
weapons, dice, the current suggestion, eliminations, where duel cards lie face
down). ``render_rgb`` also lists the last step's events in its side panel: as
player ``viewer`` sees them when a viewer is given (with that player's hand),
else everything, the shown card included. Pawns are labelled with their
suspect's number, which is also the number of the player who plays that suspect
(``0`` = the edition's first suspect, played by ``P0``).

Text legend: room cells carry their room's letter, ``.`` is a corridor square,
``+`` a door square (the corridor square in front of a door), ``*`` a secret
passage, ``#`` the cellar; digits are pawns (pawns in a room stand on its inner
cells from its second row on). The room listing gives each room its label
(``room_label``): the classic board's letters ``KBCDRLOHS`` for the first 9
rooms, then, for an edition of more rooms (``board="none"`` only), the room's
number counted from 1 (``10``, ``11``, ...).
"""

from __future__ import annotations

from cluedo_env.board_view import (
    classic_room_cells,
    door_edges,
    location_text,
    passage_markers,
    room_contents,
    status_lines,
)
from cluedo_env.core.board import COLS, ROOM_LETTERS, ROWS, classic_board
from cluedo_env.core.state import State
from cluedo_env.render_image import PAWN_COLOURS, render_rgb

__all__ = ["PAWN_COLOURS", "render_ansi", "render_rgb", "room_label"]

# --- text ---------------------------------------------------------------------------

ANSI_CORRIDOR, ANSI_DOOR, ANSI_PASSAGE, ANSI_CELLAR, ANSI_OFF_BOARD = ".", "+", "*", "#", " "


def room_label(room: int) -> str:
    """The room's label in the listing: its letter on the classic board (``ROOM_LETTERS``, 9 rooms), or
    for a room past the ninth (a custom edition, ``board="none"``) its number counted from 1: ``"10"``."""
    return ROOM_LETTERS[room] if room < len(ROOM_LETTERS) else str(room + 1)


def render_ansi(state: State, game: int = 0, ending: str | None = None) -> str:
    """The board of one game as text: the 25 x 24 grid, then rooms, turn, dice and suggestion.

    Args:
        state: A batch of games.
        game: Which game of the batch.
        ending: Why the game ended, for a game ended outside the rules (``status_lines``): the
            result line says it.

    Returns:
        Lines joined by newlines. With ``board="none"`` only the room listing and the
        status lines are given.
    """
    config, e = state.config, state.config.cards
    R = e.num_rooms
    pawns, weapons, outside = room_contents(state, game)
    lines = []
    if config.board == "classic":
        board = classic_board()
        grid = [[ANSI_OFF_BOARD if ch == "-" else ch for ch in row] for row in board.grid]
        for r, c in board.squares:
            grid[r][c] = ANSI_CORRIDOR
        for _, (r, c) in door_edges():
            grid[r][c] = ANSI_DOOR
        for r in range(ROWS):
            for c in range(COLS):
                if board.grid[r][c] == "X":
                    grid[r][c] = ANSI_CELLAR
        for r, c in passage_markers().values():
            grid[r][c] = ANSI_PASSAGE
        markers = set(passage_markers().values())
        for room, cells in enumerate(classic_room_cells()):
            # Pawns in a room stand on its cells from the second row on, in reading order.
            inside = set(cells)
            spots = [
                (r, c)
                for r, c in cells
                if r > cells[0][0]
                and (r, c) not in markers
                and all(n in inside for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
            ]
            for suspect, (r, c) in zip(pawns[room], spots):
                grid[r][c] = str(suspect)
        for suspect, location in enumerate(state.location[game]):
            if location >= R:
                r, c = board.squares[int(location) - R]
                grid[r][c] = str(suspect)
        lines += ["".join(row) for row in grid]
        lines.append("")
    lines += status_lines(state, game, ending)
    lines.append("Rooms:")
    for room in range(R):
        who = ", ".join(f"{s} {e.suspects[s]}" for s in pawns[room]) or "-"
        what = ", ".join(e.weapons[w] for w in weapons[room]) or "-"
        extra = " [a face-down card]" if state._face_down[game, room] >= 0 else ""
        lines.append(f"  {e.rooms[room]} ({room_label(room)}): pawns {who}; weapons {what}{extra}")
    if outside:
        places = ", ".join(
            f"{s} {e.suspects[s]} {location_text(config, int(state.location[game, s]))}" for s in outside
        )
        lines.append(f"Outside the rooms: {places}")
    if config.board == "classic":
        passages = classic_board().passages
        links = ", ".join(f"{e.rooms[a]} <-> {e.rooms[b]}" for a, b in enumerate(passages) if a < b)
        lines.append(
            f"Legend: {ANSI_DOOR} door square, {ANSI_PASSAGE} secret passage ({links}), {ANSI_CELLAR} cellar"
        )
    return "\n".join(lines)
