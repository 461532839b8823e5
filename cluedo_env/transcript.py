"""Readable text for events: a game's story, from everyone's or one player's view."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.board import classic_board
from cluedo_env.core.config import GameConfig

__all__ = ["describe_event", "location_name", "player_name", "story"]


def player_name(config: GameConfig, player: int) -> str:
    """``"P2 (Mrs White)"``: a player by index and suspect."""
    return f"P{player} ({config.cards.suspects[player]})"


def location_name(config: GameConfig, location: int) -> str:
    """``"the Kitchen"``, ``"square (7,16)"``, or ``"off the board"`` (a pawn not yet in a room, no board)."""
    rooms = config.cards.rooms
    if location < len(rooms):
        return f"the {rooms[location]}"
    if config.board == "none":
        return "off the board"
    row, col = classic_board().squares[location - len(rooms)]
    return f"square ({row},{col})"


def describe_event(config: GameConfig, event: Iterable[int]) -> str:
    """One event row ``(kind, player, a, b, c, d, card)`` as a sentence.

    A hidden card (``-1`` in a private view) reads as "a card".
    """
    kind, player, a, b, c, d, card = (int(x) for x in event)
    cards = config.cards.cards
    who = player_name(config, player) if player >= 0 else "nobody"
    shown = cards[card] if card >= 0 else "a card"
    if kind == ev.DEAL:
        return f"{who} is dealt {shown}"
    if kind == ev.START:
        return f"{who} starts"
    if kind == ev.TURN:
        return f"turn {a}: {who}"
    if kind == ev.ROLL:
        return f"{who} rolls {c}" + (f" ({a}+{b})" if b >= 0 else "")
    if kind == ev.MOVE:
        pawn = config.cards.suspects[a]
        if d in (ev.MOVE_STAY, ev.MOVE_BLOCKED):
            return f"{pawn} {'stays in' if d == ev.MOVE_STAY else 'is blocked on'} {location_name(config, b)}"
        verb = {ev.MOVE_PASSAGE: "takes the secret passage to", ev.MOVE_SUMMONED: "is summoned to"}.get(
            d, "moves to"
        )
        return f"{pawn} {verb} {location_name(config, c)}"
    if kind == ev.WEAPON:
        return f"the {config.cards.weapons[a]} is brought to {location_name(config, c)}"
    if kind == ev.SUGGEST:
        return f"{who} suggests {cards[a]} with the {cards[b]} in the {cards[c]}"
    if kind == ev.PASS:
        return f"{who} cannot refute"
    if kind == ev.SHOW:
        return f"{who} shows {shown} to {player_name(config, a)}"
    if kind == ev.NO_REFUTE:
        return "nobody can refute"
    if kind == ev.ACCUSE:
        verdict = "right" if d == 1 else "wrong"
        return f"{who} accuses {cards[a]} with the {cards[b]} in the {cards[c]}: {verdict}"
    if kind == ev.PEEK:
        return f"{who} looks at the card on the {config.cards.rooms[a]}: {shown}"
    if kind == ev.GAME_OVER:
        solution = f"{cards[a]} with the {cards[b]} in the {cards[c]}"
        if d == ev.END_WIN:
            return f"{who} wins. It was {solution}."
        return f"game over ({ev.END_REASONS[d]}), nobody wins. It was {solution}."
    raise ValueError(f"unknown event kind {kind}; kinds are 0..{len(ev.EVENT_KINDS) - 1}")


def story(config: GameConfig, events: np.ndarray, skip: tuple[int, ...] = ()) -> list[str]:
    """Sentences for event rows (rows with kind -1 and kinds in ``skip`` are left out)."""
    return [describe_event(config, row) for row in events if row[0] >= 0 and row[0] not in skip]
