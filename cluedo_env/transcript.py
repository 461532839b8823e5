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


def describe_event(config: GameConfig, event: Iterable[int], first_turn: int = 1) -> str:
    """One event row ``(kind, player, a, b, c, d, card)`` as a sentence.

    A hidden card (``-1`` in a private view) reads as "a card". Turns are counted from ``first_turn``:
    1, as the text view counts them; the released v1 reasoning tasks keep the 0 they were written with.
    """
    e = ev.Event.of(event)
    cards = config.cards.cards
    who = player_name(config, e.player) if e.player >= 0 else "nobody"
    shown = cards[e.card] if e.card >= 0 else "a card"
    one_line = {  # called only for the event's own kind: each reads that kind's fields
        ev.DEAL: lambda: f"{who} is dealt {shown}",
        ev.START: lambda: f"{who} starts",
        ev.TURN: lambda: f"turn {e.turn + first_turn}: {who}",
        ev.ROLL: lambda: (
            f"{who} rolls {e.total}" + (f" ({e.dice[0]}+{e.dice[1]})" if len(e.dice) == 2 else "")
        ),
        ev.WEAPON: lambda: (
            f"the {config.cards.weapons[e.token]} is brought to {location_name(config, e.destination)}"
        ),
        ev.PASS: lambda: f"{who} cannot refute",
        ev.SHOW: lambda: f"{who} shows {shown} to {player_name(config, e.suggester)}",
        ev.NO_REFUTE: lambda: "nobody can refute",
        ev.PEEK: lambda: f"{who} looks at the card on the {config.cards.rooms[e.peeked_room]}: {shown}",
    }
    if e.kind in one_line:
        return one_line[e.kind]()
    if e.kind == ev.MOVE:
        pawn = config.cards.suspects[e.pawn]
        if e.how in (ev.MOVE_STAY, ev.MOVE_BLOCKED):
            verb = "stays in" if e.how == ev.MOVE_STAY else "is blocked on"
            return f"{pawn} {verb} {location_name(config, e.origin)}"
        verb = {ev.MOVE_PASSAGE: "takes the secret passage to", ev.MOVE_SUMMONED: "is summoned to"}.get(
            e.how, "moves to"
        )
        return f"{pawn} {verb} {location_name(config, e.destination)}"
    if e.kind not in (ev.SUGGEST, ev.ACCUSE, ev.GAME_OVER):
        raise ValueError(f"unknown event kind {e.kind}; kinds are 0..{len(ev.EVENT_KINDS) - 1}")
    named = f"{cards[e.suspect]} with the {cards[e.weapon]} in the {cards[e.room]}"
    if e.kind == ev.SUGGEST:
        return f"{who} suggests {named}"
    if e.kind == ev.ACCUSE:
        return f"{who} accuses {named}: {'right' if e.correct else 'wrong'}"
    if e.reason == ev.END_WIN:
        return f"{who} wins. It was {named}."
    return f"game over ({ev.END_REASONS[e.reason]}), nobody wins. It was {named}."


def story(
    config: GameConfig, events: np.ndarray, skip: tuple[int, ...] = (), first_turn: int = 1
) -> list[str]:
    """Sentences for event rows (rows with kind -1 and kinds in ``skip`` are left out; turns counted
    from ``first_turn``, see ``describe_event``)."""
    return [describe_event(config, e, first_turn) for e in ev.read_events(events) if e.kind not in skip]
