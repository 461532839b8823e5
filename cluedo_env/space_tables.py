"""The tables of ``cluedo_env.cluedo_v0``'s documentation, built from a config's observation and actions.

``observation_table`` and ``action_table`` give the Markdown tables of the observation's pieces
and of the action ranges (the module docstring holds the default config's: a test checks they
are the same), with one line of meaning per piece (``PIECE_MEANINGS``) and range
(``RANGE_MEANINGS``).
"""

from __future__ import annotations

import numpy as np

from cluedo_env import core

__all__ = ["PIECE_MEANINGS", "RANGE_MEANINGS", "action_table", "markdown_table", "observation_table"]

# One line per observation piece, for the docstring's index table (``observation_table``); the
# scales in braces are read from the core's tables of the config, so the text cannot drift from them.
PIECE_MEANINGS = {
    "hand": "1 for each card the viewer holds",
    "unseen": "1 for each card the viewer has not seen (hand, shown, looked at)",
    "shown_to_me": "player j showed the viewer card c",
    "face_down_seen": "face-down cards the viewer looked at (duel)",
    "passed": "player j passed on a suggestion naming card c",
    "showed": "times (/ 4, at most 1) player j showed a card for a suggestion naming c",
    "accused": "player j accused wrongly naming card c",
    "eliminated": "player j is out (accused wrongly)",
    "pawn_room": "room of each suspect's pawn (last column: in no room)",
    "pawn_square": "(row / {last_row}, col / {last_col}) of a pawn on a square",
    "weapon_room": "room of each weapon",
    "room_distance": "moves from the viewer's pawn into each room / {max_room_distance} (0 inside)",
    "phase": "one-hot phase: turn, move, suggest, refute, accuse, over",
    "dice": "total of the last roll / 12 (0 before a roll)",
    "turn_player": "whose turn it is",
    "current_player": "who decides now (the refuter while refuting)",
    "suggestion": "the three cards of the current suggestion",
    "turn": "turn / max_turns",
    "owner": "(seer only) who holds card c: players j, envelope, face down",
}

# One line per action range, for the docstring's action table.
RANGE_MEANINGS = {
    "roll": "roll the dice (start of a turn)",
    "passage": "take the secret passage instead of rolling",
    "stay": "stay in the room to suggest there again",
    "no_move": "after a roll with every way blocked: stay put",
    "enter": "enter room r (after a roll; with board='none': go to room r)",
    "toward": "head toward room r (stop on the reachable square nearest to it)",
    "square": "stop on playable square k",
    "suggest": "suggest suspect s with weapon w, in this room (index s * W + w)",
    "no_suggestion": "end the move without suggesting",
    "show": "(refuter) show card c to the suggester",
    "accuse": "accuse suspect s, weapon w, room r (index (s * W + w) * R + r)",
    "end_turn": "end the turn without accusing",
}


def observation_table(config: core.GameConfig | None = None, kind: str = "player") -> str:
    """The observation index table of a config, as Markdown (the docstring's table).

    Args:
        config: The rules (default: ``GameConfig()``).
        kind: ``"player"`` or ``"seer"``.
    """
    config = core.GameConfig() if config is None else config
    rules = core.rules_for(config)
    scales = {"last_row": "-", "last_col": "-", "max_room_distance": "-"}  # board="none": always 0
    if rules.classic:
        scales = {
            "last_row": len(rules.board.grid) - 1,
            "last_col": len(rules.board.grid[0]) - 1,
            "max_room_distance": f"{rules.max_room_distance:g}",
        }
    rows = [("indices", "piece", "shape", "meaning")]
    for name, shape, offset in core.observation_pieces(config, kind):
        size = int(np.prod(shape))
        span = str(offset) if size == 1 else f"{offset}-{offset + size - 1}"
        rows.append((span, f"`{name}`", " x ".join(map(str, shape)), PIECE_MEANINGS[name].format(**scales)))
    return markdown_table(rows)


def action_table(config: core.GameConfig | None = None) -> str:
    """The action range table of a config, as Markdown (the docstring's table)."""
    config = core.GameConfig() if config is None else config
    layout = core.ActionLayout(config)
    rows = [("actions", "range", "size", "meaning")]
    for name in core.RANGE_NAMES:
        size, offset = layout.sizes[name], layout.offsets[name]
        if size:
            span = str(offset) if size == 1 else f"{offset}-{offset + size - 1}"
            rows.append((span, f"`{name}`", str(size), RANGE_MEANINGS[name]))
    return markdown_table(rows)


def markdown_table(rows: list[tuple[str, ...]]) -> str:
    """``rows`` (the first is the header) as a Markdown table, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
