"""A picture of one game of a batch (``render_rgb``): the mansion with pawns and weapons, and a side panel.

The board and the status lines show only public facts (``cluedo_env.board_view``); the panel
also lists the last step's events, as player ``viewer`` sees them when a viewer is given (with
that player's hand), else everything, the shown card included. Pawns are labelled with their
suspect's number, which is also the number of the player who plays that suspect.
``cluedo_env.render`` has the text form, and ``render_rgb`` is importable from there.

A picture is ``scale`` pixels a board cell, from ``MIN_SCALE`` up to the scale whose picture stays within
``MAX_PIXELS`` (``max_scale``: 92 on the classic board, a picture 3,404 pixels wide and 2,300 high); a larger
scale is refused before anything is drawn, as one would take gigabytes of memory.
"""

from __future__ import annotations

import math
import unicodedata
from functools import cache, lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cluedo_env.board_view import (
    BoardLayout,
    board_layout,
    classic_room_cells,
    door_edges,
    location_text,
    passage_markers,
    room_contents,
    room_walls,
    status_lines,
)
from cluedo_env.core import events as ev
from cluedo_env.core.board import COLS, ROWS, classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.state import Phase, State
from cluedo_env.transcript import describe_event

__all__ = ["MAX_PIXELS", "MIN_SCALE", "PAWN_COLOURS", "max_scale", "render_rgb"]

MIN_SCALE = 8  # pixels per board cell: below it the text cannot be read
MAX_PIXELS = 8_000_000  # the most pixels of a picture (24 MB as RGB): its scale is at most max_scale

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
PAWN_RADIUS = 0.38
PAWN_SPACING = 1.0
WEAPON_TAG_CELLS = 2.6  # preferred width of a weapon tag
WEAPON_ROW_CELLS = 0.8
TAG_MARGIN_CELLS = 0.4  # keeps the weapon tags off the walls
GLYPH_FALLBACKS = {"ß": "ss", "–": "-", "—": "-", "’": "'"}
RECENT_EVENTS = 9  # event sentences of the last step shown in the panel


def _pawn_colour(suspect: int) -> tuple[int, int, int]:
    return PAWN_COLOURS[suspect] if suspect < len(PAWN_COLOURS) else EXTRA_PAWN_COLOUR


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


@lru_cache(maxsize=8)  # up to 24 MB each: the few boards and scales in use
def _background(edition_rooms: tuple[str, ...], board: str, scale: int) -> Image.Image:
    """The static part of the picture: rooms, corridors, doors, passages, names."""
    layout = board_layout(board, len(edition_rooms))
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
    for room, cells in enumerate(classic_room_cells()):
        for r, c in cells:
            x0, y0, x1, y1 = _cell_box(r, c, scale)
            draw.rectangle((x0, y0, x1 + 1, y1 + 1), fill=ROOM_COLOURS[room % len(ROOM_COLOURS)])
    wall = max(2, scale // 8)
    for walls in room_walls():
        for r, c, dr, dc in walls:
            draw.line(_edge(r, c, dr, dc, scale), fill=WALL, width=wall)
    # Doors: a gap in the wall filled with a coloured bar, and the door square tinted.
    for (r, c), (dr_, dc_) in door_edges():
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
    for room, (r, c) in passage_markers().items():
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
        for r, c, dr, dc in room_walls()[room]:
            draw.line(_edge(r, c, dr, dc, scale), fill=ENTERABLE, width=max(3, scale // 5))


def _draw_pawn(draw: ImageDraw.ImageDraw, x: float, y: float, suspect: int, scale: int) -> None:
    radius = PAWN_RADIUS * scale
    colour = _pawn_colour(suspect)
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour, outline=(0, 0, 0), width=2)
    label_colour = (0, 0, 0) if sum(colour) > 450 else (255, 255, 255)
    draw.text((x, y), str(suspect), fill=label_colour, font=_font(max(7, round(scale * 0.45))), anchor="mm")


def _draw_room_contents(
    draw: ImageDraw.ImageDraw, state: State, game: int, layout: BoardLayout, scale: int, pawns, weapons
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
    draw: ImageDraw.ImageDraw,
    state: State,
    game: int,
    layout: BoardLayout,
    scale: int,
    viewer: int | None,
    ending: str | None,
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

    status = status_lines(state, game, ending)
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
        where = location_text(config, int(state.location[game, player]))
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


def max_scale(config: GameConfig) -> int:
    """The largest scale whose picture of ``config``'s games has at most ``MAX_PIXELS`` pixels: the board
    and the side panel are ``rows x (cols + PANEL_CELLS)`` cells of ``scale x scale`` pixels."""
    layout = board_layout(config.board, config.cards.num_rooms)
    return math.isqrt(MAX_PIXELS // (layout.rows * (layout.cols + PANEL_CELLS)))


def render_rgb(
    state: State, game: int = 0, scale: int = 24, viewer: int | None = None, ending: str | None = None
) -> np.ndarray:
    """A picture of one game: the mansion with pawns and weapons, and a side panel.

    Args:
        state: A batch of games.
        game: Which game of the batch.
        scale: Pixels per board cell, from ``MIN_SCALE`` to ``max_scale(state.config)``.
        viewer: If given, the panel also lists this player's hand and the last
            step's events are shown as this player sees them (else omniscient).
        ending: Why the game ended, for a game ended outside the rules (``status_lines``):
            the panel's result line says it.

    Returns:
        ``uint8[H, W, 3]``; ``H = 25 * scale`` and ``W = (24 + 13) * scale`` on the
        classic board. With ``board="none"`` the rooms are drawn as tiles.

    Raises:
        ValueError: ``scale`` below ``MIN_SCALE`` or above ``max_scale`` (a picture of more than
            ``MAX_PIXELS`` pixels).
    """
    top = max_scale(state.config)
    if not MIN_SCALE <= scale <= top:
        raise ValueError(
            f"scale must be from {MIN_SCALE} to {top} pixels per cell (a picture of at most {MAX_PIXELS:,} "
            f"pixels), got {scale}"
        )
    e = state.config.cards
    layout = board_layout(state.config.board, e.num_rooms)
    image = _background(e.rooms, state.config.board, scale).copy()
    draw = ImageDraw.Draw(image)
    pawns, weapons, outside = room_contents(state, game)
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
    _draw_panel(draw, state, game, layout, scale, viewer, ending)
    return np.asarray(image, dtype=np.uint8)
