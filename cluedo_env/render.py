"""Pictures of one game of a batch: the board as text (``render_ansi``) or as an image (``render_rgb``).

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
cells from its second row on).
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cluedo_env.core import events as ev
from cluedo_env.core.board import COLS, ROOM_LETTERS, ROWS, classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.state import Phase, State
from cluedo_env.transcript import describe_event

__all__ = ["PAWN_COLOURS", "render_ansi", "render_rgb"]

# --- text ---------------------------------------------------------------------------

ANSI_CORRIDOR, ANSI_DOOR, ANSI_PASSAGE, ANSI_CELLAR, ANSI_OFF_BOARD = ".", "+", "*", "#", " "

# --- colours (RGB) -------------------------------------------------------------------

# Pawn colours in suspect order round the board: Scarlet, Mustard, White, Green, Peacock, Plum.
PAWN_COLOURS = (
    (214, 40, 40),
    (240, 196, 25),
    (250, 250, 250),
    (46, 140, 60),
    (40, 90, 200),
    (125, 60, 160),
)
EXTRA_PAWN_COLOUR = (120, 120, 120)
ROOM_COLOURS = (
    (236, 196, 150),  # Kitchen
    (214, 190, 226),  # Ballroom
    (186, 224, 180),  # Conservatory
    (240, 206, 170),  # Dining Room
    (170, 210, 190),  # Billiard Room
    (205, 185, 160),  # Library
    (232, 180, 190),  # Lounge
    (200, 206, 230),  # Hall
    (222, 214, 170),  # Study
)
BACKGROUND = (46, 70, 52)
CORRIDOR = (246, 236, 200)
CORRIDOR_LINE = (205, 190, 150)
CELLAR = (120, 100, 80)
WALL = (70, 50, 40)
DOOR = (196, 112, 30)
PASSAGE = (60, 60, 60)
WEAPON_FILL = (240, 240, 240)
WEAPON_LINE = (90, 90, 90)
FACE_DOWN_CARD = (150, 30, 40)
TEXT = (20, 20, 20)
PANEL = (250, 248, 240)
PANEL_MUTED = (110, 110, 110)
REACHABLE = (150, 210, 120)
ENTERABLE = (40, 160, 60)

# --- geometry (in cells) ---------------------------------------------------------------

PANEL_CELLS = 13  # width of the side panel
NAME_ROW_SHARE = 0.75  # a room's name goes on its first row at least this share of its width
NONE_ROOM_CELLS = (8, 6)  # (width, height) of a room tile when board="none"
PAWN_RADIUS = 0.38
PAWN_SPACING = 1.0
WEAPON_TAG_CELLS = 2.6  # preferred width of a weapon tag
WEAPON_ROW_CELLS = 0.8
TAG_MARGIN_CELLS = 0.4  # keeps the weapon tags off the walls
GLYPH_FALLBACKS = {"ß": "ss", "–": "-", "—": "-", "’": "'"}
RECENT_EVENTS = 9  # event sentences of the last step shown in the panel


@dataclass(frozen=True)
class _Layout:
    """Where things are drawn, in cell units: room boxes, the board size, the cellar."""

    rooms: tuple[tuple[float, float, float, float], ...]  # (top, left, bottom, right) per room
    rows: int
    cols: int
    classic: bool


@cache
def _classic_room_cells() -> tuple[tuple[tuple[int, int], ...], ...]:
    grid = classic_board().grid
    return tuple(
        tuple((r, c) for r in range(ROWS) for c in range(COLS) if grid[r][c] == letter)
        for letter in ROOM_LETTERS
    )


@cache
def _door_edges() -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
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
def _room_walls() -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
    """Per room, its walls: ``(row, col, dr, dc)``, the side of a room cell facing a cell outside the room."""
    grid = classic_board().grid
    walls = []
    for room, cells in enumerate(_classic_room_cells()):
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


def _passage_markers() -> dict[int, tuple[int, int]]:
    """The cell where the board prints each room's secret passage."""
    return {room: cell for room, cell in enumerate(classic_board().passage_markers) if cell is not None}


@cache
def _layout(board: str, num_rooms: int) -> _Layout:
    if board == "classic":
        boxes = []
        for cells in _classic_room_cells():
            rows, cols = [r for r, _ in cells], [c for _, c in cells]
            left, right = min(cols), max(cols) + 1
            # The name goes on the first row spanning most of the room (not on a short top row).
            top = next(r for r in sorted(set(rows)) if rows.count(r) >= NAME_ROW_SHARE * (right - left))
            boxes.append((top, left, max(rows) + 1, right))
        return _Layout(tuple(boxes), ROWS, COLS, classic=True)
    width, height = NONE_ROOM_CELLS
    per_row = math.ceil(math.sqrt(num_rooms))
    tile_rows = math.ceil(num_rooms / per_row)
    boxes = []
    for room in range(num_rooms):
        r, c = divmod(room, per_row)
        top, left = 1 + r * height, 1 + c * width
        boxes.append((top + 0.15, left + 0.15, top + height - 0.15, left + width - 0.15))
    # One spare row at the bottom for pawns in no room (before anyone has picked one).
    return _Layout(tuple(boxes), tile_rows * height + 4, per_row * width + 2, classic=False)


def _pawn_colour(suspect: int) -> tuple[int, int, int]:
    return PAWN_COLOURS[suspect] if suspect < len(PAWN_COLOURS) else EXTRA_PAWN_COLOUR


def _player_name(config: GameConfig, player: int) -> str:
    return f"P{player} ({config.cards.suspects[player]})"


def _location_text(config: GameConfig, location: int) -> str:
    rooms = config.cards.rooms
    if location < len(rooms):
        return rooms[location]
    if config.board == "none":
        return "in no room"
    row, col = classic_board().squares[location - len(rooms)]
    return f"square ({row},{col})"


def _status_lines(state: State, game: int) -> list[str]:
    """Whose turn, phase, dice, suggestion, eliminations, result: shared by both renderers."""
    config, e = state.config, state.config.cards
    phase = int(state.phase[game])
    turn_player = int(state.turn_player[game])
    lines = [f"Turn {int(state.turn[game])}: {_player_name(config, turn_player)}, phase {Phase.NAMES[phase]}"]
    deciding = int(state.current_player[game])
    if phase == Phase.REFUTE:
        lines.append(f"Deciding: {_player_name(config, deciding)} (which card to show)")
    dice = [int(d) for d in state.dice[game] if d >= 0]
    lines.append("Dice: " + (" + ".join(map(str, dice)) + f" = {sum(dice)}" if dice else "-"))
    suggestion = [int(c) for c in state.suggestion[game]]
    if suggestion[0] >= 0:
        s, w, r = (e.cards[c] for c in suggestion)
        lines.append(f"Suggestion: {s} with the {w} in the {r}")
    else:
        lines.append("Suggestion: none")
    out = [_player_name(config, p) for p in np.flatnonzero(state.eliminated[game])]
    lines.append("Eliminated: " + (", ".join(out) if out else "none"))
    if state.terminated[game] or state.truncated[game]:
        winner = int(state.winner[game])
        lines.append(
            f"Game over: {_player_name(config, winner)} wins"
            if winner >= 0
            else "Game over: " + ("truncated" if state.truncated[game] else "everybody accused wrongly")
        )
    return lines


def _room_contents(state: State, game: int) -> tuple[list[list[int]], list[list[int]], list[int]]:
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


def render_ansi(state: State, game: int = 0) -> str:
    """The board of one game as text: the 25 x 24 grid, then rooms, turn, dice and suggestion.

    Args:
        state: A batch of games.
        game: Which game of the batch.

    Returns:
        Lines joined by newlines. With ``board="none"`` only the room listing and the
        status lines are given.
    """
    config, e = state.config, state.config.cards
    R = e.num_rooms
    pawns, weapons, outside = _room_contents(state, game)
    lines = []
    if config.board == "classic":
        board = classic_board()
        grid = [[ANSI_OFF_BOARD if ch == "-" else ch for ch in row] for row in board.grid]
        for r, c in board.squares:
            grid[r][c] = ANSI_CORRIDOR
        for _, (r, c) in _door_edges():
            grid[r][c] = ANSI_DOOR
        for r in range(ROWS):
            for c in range(COLS):
                if board.grid[r][c] == "X":
                    grid[r][c] = ANSI_CELLAR
        for r, c in _passage_markers().values():
            grid[r][c] = ANSI_PASSAGE
        markers = set(_passage_markers().values())
        for room, cells in enumerate(_classic_room_cells()):
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
    lines += _status_lines(state, game)
    lines.append("Rooms:")
    for room in range(R):
        who = ", ".join(f"{s} {e.suspects[s]}" for s in pawns[room]) or "-"
        what = ", ".join(e.weapons[w] for w in weapons[room]) or "-"
        extra = " [a face-down card]" if state._face_down[game, room] >= 0 else ""
        lines.append(f"  {e.rooms[room]} ({ROOM_LETTERS[room]}): pawns {who}; weapons {what}{extra}")
    if outside:
        places = ", ".join(
            f"{s} {e.suspects[s]} {_location_text(config, int(state.location[game, s]))}" for s in outside
        )
        lines.append(f"Outside the rooms: {places}")
    if config.board == "classic":
        passages = classic_board().passages
        links = ", ".join(f"{e.rooms[a]} <-> {e.rooms[b]}" for a, b in enumerate(passages) if a < b)
        lines.append(
            f"Legend: {ANSI_DOOR} door square, {ANSI_PASSAGE} secret passage ({links}), {ANSI_CELLAR} cellar"
        )
    return "\n".join(lines)


# --- pictures ---------------------------------------------------------------------------


@cache
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType
    except (TypeError, ImportError, OSError):
        return ImageFont.load_default()


@cache
def _missing_glyph(font) -> bytes:
    return bytes(font.getmask("\U0010fffd"))


@cache
def _has_glyph(font, char: str) -> bool:
    return char.isspace() or bytes(font.getmask(char)) != _missing_glyph(font)


def _clean(text: str, font) -> str:
    """``text`` with characters the font cannot draw replaced by their unaccented letters.

    Pillow's default font has no accented letters; names of the French and German
    editions would otherwise show empty boxes.
    """
    out = []
    for char in text:
        if _has_glyph(font, char):
            out.append(char)
            continue
        plain = (
            GLYPH_FALLBACKS.get(char)
            or unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
        )
        out.append(plain or "?")
    return "".join(out)


def _fit(draw: ImageDraw.ImageDraw, text: str, font, width: float) -> str:
    """``text``, shortened with an ellipsis until it fits ``width`` pixels."""
    text = _clean(text, font)
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _wrap(draw: ImageDraw.ImageDraw, text: str, font, width: float) -> list[str]:
    lines, current = [], ""
    for word in _clean(text, font).split():
        candidate = f"{current} {word}".strip()
        if current and draw.textlength(candidate, font=font) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    return [*lines, current] if current else lines


def _cell_box(r: float, c: float, scale: int) -> tuple[float, float, float, float]:
    return (c * scale, r * scale, (c + 1) * scale - 1, (r + 1) * scale - 1)


@cache
def _background(edition_rooms: tuple[str, ...], board: str, scale: int) -> Image.Image:
    """The static part of the picture: rooms, corridors, doors, passages, names."""
    layout = _layout(board, len(edition_rooms))
    width = (layout.cols + PANEL_CELLS) * scale
    image = Image.new("RGB", (width, layout.rows * scale), BACKGROUND)
    draw = ImageDraw.Draw(image)
    name_font = _font(max(8, round(scale * 0.58)))
    if layout.classic:
        _draw_classic_board(draw, edition_rooms, scale)
    else:
        for room, (top, left, bottom, right) in enumerate(layout.rooms):
            draw.rounded_rectangle(
                (left * scale, top * scale, right * scale, bottom * scale),
                radius=scale // 2,
                fill=ROOM_COLOURS[room % len(ROOM_COLOURS)],
                outline=WALL,
                width=max(2, scale // 8),
            )
    for room, (top, left, _bottom, right) in enumerate(layout.rooms):
        name = _fit(draw, edition_rooms[room], name_font, (right - left) * scale - 4)
        draw.text(
            ((left + right) / 2 * scale, (top + 0.55) * scale), name, fill=TEXT, font=name_font, anchor="mm"
        )
    draw.rectangle((layout.cols * scale, 0, width, layout.rows * scale), fill=PANEL)
    return image


def _draw_classic_board(draw: ImageDraw.ImageDraw, rooms: tuple[str, ...], scale: int) -> None:
    board = classic_board()
    grid = board.grid
    for r, c in board.squares:
        draw.rectangle(_cell_box(r, c, scale), fill=CORRIDOR, outline=CORRIDOR_LINE)
    # Start squares tinted with their suspect's colour.
    for suspect, square in enumerate(board.starts):
        r, c = board.squares[square]
        inset = scale * 0.18
        x0, y0, x1, y1 = _cell_box(r, c, scale)
        draw.ellipse((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=_pawn_colour(suspect), width=2)
    for r in range(ROWS):
        for c in range(COLS):
            if grid[r][c] == "X":
                draw.rectangle(_cell_box(r, c, scale), fill=CELLAR)
    for room, cells in enumerate(_classic_room_cells()):
        for r, c in cells:
            x0, y0, x1, y1 = _cell_box(r, c, scale)
            draw.rectangle((x0, y0, x1 + 1, y1 + 1), fill=ROOM_COLOURS[room % len(ROOM_COLOURS)])
    wall = max(2, scale // 8)
    for walls in _room_walls():
        for r, c, dr, dc in walls:
            draw.line(_edge(r, c, dr, dc, scale), fill=WALL, width=wall)
    # Doors: a gap in the wall filled with a coloured bar, and the door square tinted.
    for (r, c), (dr_, dc_) in _door_edges():
        dr, dc = dr_ - r, dc_ - c
        x0, y0, x1, y1 = _cell_box(dr_, dc_, scale)
        draw.rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), fill=(250, 214, 160), outline=DOOR)
        (ex0, ey0), (ex1, ey1) = _edge(r, c, dr, dc, scale)
        bar = max(4, scale // 4)
        if ex0 == ex1:  # vertical edge
            draw.rectangle((ex0 - bar // 2, ey0 + 2, ex0 + bar // 2, ey1 - 2), fill=DOOR)
        else:
            draw.rectangle((ex0 + 2, ey0 - bar // 2, ex1 - 2, ey0 + bar // 2), fill=DOOR)
    # Secret passages: a dark stair marker framed in the colour of the room it leads to, with its initial.
    font = _font(max(8, round(scale * 0.5)))
    for room, (r, c) in _passage_markers().items():
        other = int(board.passages[room])
        x0, y0, x1, y1 = _cell_box(r, c, scale)
        draw.rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), fill=PASSAGE, outline=ROOM_COLOURS[other], width=3)
        draw.text(
            ((x0 + x1) / 2, (y0 + y1) / 2),
            _clean(rooms[other][0], font),
            fill=(255, 255, 255),
            font=font,
            anchor="mm",
        )
    draw.text(
        (12.5 * scale, 11.6 * scale),
        "Cellar",
        fill=(235, 225, 210),
        font=_font(max(8, scale // 2)),
        anchor="mm",
    )
    draw.text(
        (12.5 * scale, 13.2 * scale),
        "(envelope)",
        fill=(235, 225, 210),
        font=_font(max(7, round(scale * 0.42))),
        anchor="mm",
    )


def _edge(r: int, c: int, dr: int, dc: int, scale: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The side of cell ``(r, c)`` facing ``(r + dr, c + dc)`` as two pixel points."""
    x0, y0, x1, y1 = c * scale, r * scale, (c + 1) * scale, (r + 1) * scale
    if dr == -1:
        return (x0, y0), (x1, y0)
    if dr == 1:
        return (x0, y1), (x1, y1)
    if dc == -1:
        return (x0, y0), (x0, y1)
    return (x1, y0), (x1, y1)


def _draw_reach(draw: ImageDraw.ImageDraw, state: State, game: int, scale: int) -> None:
    """After a roll: the squares the pawn may stop on, and the rooms it may enter, in green."""
    board = classic_board()
    inset = max(2, scale // 6)
    for square in np.flatnonzero(state.reachable[game]):
        x0, y0, x1, y1 = _cell_box(*board.squares[square], scale)
        draw.rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=REACHABLE)
    for room in np.flatnonzero(state.enterable[game]):
        for r, c, dr, dc in _room_walls()[room]:
            draw.line(_edge(r, c, dr, dc, scale), fill=ENTERABLE, width=max(3, scale // 5))


def _draw_pawn(draw: ImageDraw.ImageDraw, x: float, y: float, suspect: int, scale: int) -> None:
    radius = PAWN_RADIUS * scale
    colour = _pawn_colour(suspect)
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour, outline=(0, 0, 0), width=2)
    label_colour = (0, 0, 0) if sum(colour) > 450 else (255, 255, 255)
    draw.text((x, y), str(suspect), fill=label_colour, font=_font(max(7, round(scale * 0.45))), anchor="mm")


def _draw_room_contents(
    draw: ImageDraw.ImageDraw, state: State, game: int, layout: _Layout, scale: int, pawns, weapons
) -> None:
    e = state.config.cards
    tag_font = _font(max(7, round(scale * 0.36)))
    for room, (top, left, bottom, right) in enumerate(layout.rooms):
        width = right - left
        # Pawns in rows under the name, centred.
        per_row = max(1, int(width // PAWN_SPACING))
        y = top + 1.5
        for start in range(0, len(pawns[room]), per_row):
            row = pawns[room][start : start + per_row]
            x = left + width / 2 - (len(row) - 1) * PAWN_SPACING / 2
            for k, suspect in enumerate(row):
                _draw_pawn(draw, (x + k * PAWN_SPACING) * scale, y * scale, suspect, scale)
            y += 1.0
        # Weapons (and, in the duel, the face-down card) as labelled tags below the pawns;
        # narrower tags when the room is crowded.
        tags = [(e.weapons[w], WEAPON_FILL, TEXT) for w in weapons[room]]
        if state._face_down[game, room] >= 0:  # which card it is stays hidden
            tags.append(("face-down card", FACE_DOWN_CARD, (255, 255, 255)))
        y = max(y, top + 2.5) - 0.4
        rows_fit = max(1, int((bottom - y) // WEAPON_ROW_CELLS))
        per_row = max(1, int(width // WEAPON_TAG_CELLS), math.ceil(len(tags) / rows_fit))
        tag = (width - TAG_MARGIN_CELLS) / per_row
        for start in range(0, len(tags), per_row):
            row = tags[start : start + per_row]
            x = left + width / 2 - len(row) * tag / 2
            for k, (name, fill, ink) in enumerate(row):
                box = (
                    (x + k * tag + 0.06) * scale,
                    y * scale,
                    (x + (k + 1) * tag - 0.06) * scale,
                    (y + WEAPON_ROW_CELLS - 0.08) * scale,
                )
                draw.rounded_rectangle(box, radius=scale // 5, fill=fill, outline=WEAPON_LINE)
                label = _fit(draw, name, tag_font, box[2] - box[0] - 4)
                centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
                draw.text(centre, label, fill=ink, font=tag_font, anchor="mm")
            y += WEAPON_ROW_CELLS


def _draw_die(draw: ImageDraw.ImageDraw, x: float, y: float, value: int, size: float) -> None:
    draw.rounded_rectangle(
        (x, y, x + size, y + size), radius=size / 6, fill=(255, 255, 255), outline=TEXT, width=2
    )
    spots = {
        1: [(1, 1)],
        2: [(0, 0), (2, 2)],
        3: [(0, 0), (1, 1), (2, 2)],
        4: [(0, 0), (0, 2), (2, 0), (2, 2)],
        5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
        6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)],
    }[value]
    pip = size / 10
    for row, col in spots:
        cx, cy = x + size * (0.25 + 0.25 * col), y + size * (0.25 + 0.25 * row)
        draw.ellipse((cx - pip, cy - pip, cx + pip, cy + pip), fill=TEXT)


def _draw_panel(
    draw: ImageDraw.ImageDraw, state: State, game: int, layout: _Layout, scale: int, viewer: int | None
) -> None:
    config, e = state.config, state.config.cards
    x0 = layout.cols * scale + scale // 2
    width = PANEL_CELLS * scale - scale
    title, body, small = (
        _font(max(9, round(scale * 0.62))),
        _font(max(8, round(scale * 0.5))),
        _font(max(7, round(scale * 0.42))),
    )
    line = body.size * 1.3 if hasattr(body, "size") else 13
    y = scale * 0.5
    limit = layout.rows * scale - line  # text stops here (above the legend, if any)
    if layout.classic:
        passages = classic_board().passages
        links = ", ".join(f"{e.rooms[a]} - {e.rooms[b]}" for a, b in enumerate(passages) if a < b)
        legend = _wrap(
            draw, f"Secret passages (marked with the initial of where they lead): {links}", small, width
        )
        limit = layout.rows * scale - (len(legend) + 0.5) * line * 0.85
        for k, part in enumerate(legend):
            draw.text((x0, limit + k * line * 0.85), part, fill=PANEL_MUTED, font=small)
        limit -= line * 0.5

    def text(value: str, font=body, fill=TEXT, indent: float = 0) -> None:
        nonlocal y
        height = line if font is not small else line * 0.85
        for part in _wrap(draw, value, font, width - indent):
            if y + height > limit:  # out of room: the rest is left out
                y = math.inf
                return
            draw.text((x0 + indent, y), part, fill=fill, font=font)
            y += height

    status = _status_lines(state, game)
    text(status[0], title)
    y += line * 0.3
    dice = [int(d) for d in state.dice[game] if d >= 0]
    if dice:
        size = scale * 1.3
        for k, value in enumerate(dice):
            _draw_die(draw, x0 + k * (size + scale * 0.4), y, value, size)
        draw.text(
            (x0 + len(dice) * (size + scale * 0.4), y + size / 2),
            f"= {sum(dice)}",
            fill=TEXT,
            font=title,
            anchor="lm",
        )
        y += size + line * 0.4
    for value in status[1:]:
        if not value.startswith("Dice"):
            text(value, body, (150, 20, 20) if value.startswith("Game over") else TEXT)
    y += line * 0.4
    text("Players", title)
    for player in range(config.num_players):
        if y + line > limit:
            break
        radius = scale * 0.3
        cy = y + line / 2
        draw.ellipse((x0, cy - radius, x0 + 2 * radius, cy + radius), fill=_pawn_colour(player), outline=TEXT)
        marks = []
        if player == int(state.turn_player[game]):
            marks.append("to play")
        if state.eliminated[game, player]:
            marks.append("out")
        if player == int(state.winner[game]):
            marks.append("WINNER")
        where = _location_text(config, int(state.location[game, player]))
        label = f"P{player} {e.suspects[player]}: {where}" + (f" ({', '.join(marks)})" if marks else "")
        text(label, small, PANEL_MUTED if state.eliminated[game, player] else TEXT, indent=2 * radius + 4)
    if viewer is not None:
        y += line * 0.4
        hand = [e.cards[c] for c in np.flatnonzero(state._owner[game] == viewer)]
        text(f"Hand of P{viewer}", title)
        text(", ".join(hand) or "-", small)
    events = state.step_events(game)
    if viewer is not None:
        events = ev.private_view(events, viewer)
    sentences = [describe_event(config, e) for e in ev.read_events(events) if e.kind != ev.DEAL]
    if sentences:
        y += line * 0.4
        text("Last step", title)
        for sentence in sentences[-RECENT_EVENTS:]:
            text(sentence, small)


def render_rgb(state: State, game: int = 0, scale: int = 24, viewer: int | None = None) -> np.ndarray:
    """A picture of one game: the mansion with pawns and weapons, and a side panel.

    Args:
        state: A batch of games.
        game: Which game of the batch.
        scale: Pixels per board cell.
        viewer: If given, the panel also lists this player's hand and the last
            step's events are shown as this player sees them (else omniscient).

    Returns:
        ``uint8[H, W, 3]``; ``H = 25 * scale`` and ``W = (24 + 13) * scale`` on the
        classic board. With ``board="none"`` the rooms are drawn as tiles.
    """
    if scale < 8:
        raise ValueError(f"scale must be at least 8 pixels per cell, got {scale}")
    e = state.config.cards
    layout = _layout(state.config.board, e.num_rooms)
    image = _background(e.rooms, state.config.board, scale).copy()
    draw = ImageDraw.Draw(image)
    pawns, weapons, outside = _room_contents(state, game)
    if layout.classic and state.phase[game] == Phase.MOVE:
        _draw_reach(draw, state, game, scale)
    _draw_room_contents(draw, state, game, layout, scale, pawns, weapons)
    if layout.classic:
        board = classic_board()
        for suspect in outside:
            r, c = board.squares[int(state.location[game, suspect]) - e.num_rooms]
            _draw_pawn(draw, (c + 0.5) * scale, (r + 0.5) * scale, suspect, scale)
    elif outside:
        y = layout.rows - 2
        draw.text(
            (1 * scale, y * scale),
            "In no room:",
            fill=(240, 240, 240),
            font=_font(max(8, scale // 2)),
            anchor="lm",
        )
        for k, suspect in enumerate(outside):
            _draw_pawn(draw, (5 + k * PAWN_SPACING) * scale, y * scale, suspect, scale)
    _draw_panel(draw, state, game, layout, scale, viewer)
    return np.asarray(image, dtype=np.uint8)
