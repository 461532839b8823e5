"""The game in words for one player: the rules summary, its hand, its history, its notepad, its decision.

``text_view(state, player, events)`` is what one player may know at any step,
as text: who plays whom, its cards, what it has seen happen (sentences of
``cluedo_env.transcript`` over its private view of the events), where the pawns
and weapons are, the decision in front of it and its legal commands
(``cluedo_env.commands``), in the card names of the game's edition. It reads
the public fields of the state and the player's private view of the events
only (``core.private_view`` is applied here, so passing a full event log is
safe), and computes the legal actions only for the player who decides: the
tests check, as for the observations, that changing anything the player cannot
see leaves its text unchanged.

``rules_summary(config)`` is the rules in a paragraph or two (sent once, e.g.
as a language model's system message); ``notepad_text`` is the player's
detective notepad: every card with what the player has seen of it. ``seat_text``
and ``history_text`` are the view's first parts, and ``read_history_text`` reads
the history's sentences back: the reasoning tasks' loader checks a task's text
against its other fields with them (``cluedo_env.reasoning.task_check.check_task``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cluedo_env import core
from cluedo_env.commands import legal_commands_text
from cluedo_env.core import events as ev
from cluedo_env.core.state import Phase
from cluedo_env.transcript import location_name, player_name, story

__all__ = [
    "HISTORY_SKIP",
    "hand_sizes_text",
    "history_text",
    "not_held_by",
    "notepad_notes",
    "notepad_text",
    "read_history_text",
    "rules_summary",
    "seat_text",
    "text_view",
]

# Event kinds left out of the history by default: the hand is listed on its own, and the
# rolls, walks and turn changes would fill a long game's text without telling much.
HISTORY_SKIP = (ev.DEAL, ev.TURN, ev.ROLL, ev.MOVE, ev.WEAPON)


def rules_summary(config: core.GameConfig) -> str:
    """The rules of this config in a few sentences (the classic rules and the variant switches).

    In the duel it names the rooms the face-down cards lie on, by the edition's names, and how a player
    comes to look at one (``docs/RULES.md``).
    """
    e = config.cards
    players = config.num_players
    lines = [
        f"Cluedo for {players} players. An envelope holds one suspect, one weapon and one room card "
        f"(the murderer, the weapon and the room); the other cards are "
        + (
            f"dealt to the players, except {config.num_face_down} that lie face down, one on each of "
            + _corner_rooms(config)
            + (" (the corner rooms)" if config.board == "classic" else "")
            if config.duel
            else "dealt to the players"
        )
        + ". Find the three cards of the envelope.",
        f"Suspects: {', '.join(e.suspects)}. Weapons: {', '.join(e.weapons)}. Rooms: {', '.join(e.rooms)}.",
    ]
    if config.board == "classic":
        lines.append(
            f"On your turn you roll {'two dice' if config.dice == 2 else 'one die'} and move your pawn: "
            "enter a room you can reach, or head toward a room (stopping on the nearest square you can reach)"
            if config.movement == "compact"
            else f"On your turn you roll {'two dice' if config.dice == 2 else 'one die'} and move your pawn "
            "into a room you can reach or onto a square you can reach"
        )
        lines[-1] += (
            "; from a corner room you may take the secret passage instead of rolling"
            + (
                "; you may stay in your room to suggest again"
                if config.stay_in_room
                else "; you must leave your room before suggesting again, unless another player's suggestion "
                "brought your pawn there since your last turn: then you may stay and suggest there"
            )
            + "."
        )
    else:
        lines.append("There is no board: on your turn you go to any room you choose.")
    lines.append(
        "In the room you have just entered you may suggest a suspect and a weapon (in that room); their pawn "
        "and weapon are brought there. The players after you, in turn, are asked: the first who holds a named "
        "card shows you one of them in secret (you choose which when you refute); the others see only who "
        "showed a card."
    )
    lines.append(
        "At the start or the end of your turn you may accuse a suspect, a weapon and a room"
        + (" from anywhere" if config.accuse_anywhere else " (only from a room)")
        + ". If all three are in the envelope you win; if not you are out (you still show cards when asked)."
    )
    if config.duel:
        lines.append(
            (
                "Entering one of these rooms (by your move, by the secret passage, or brought there by the other "
                "player's suggestion) lets you look at the face-down card lying there; staying in your room does not."
                if config.board == "classic"
                else "Going to one of these rooms, or being brought there by the other player's suggestion, lets "
                "you look at the face-down card lying there; choosing the room you are already in does not."
            )
            + " The face-down cards stay where they lie: nobody shows them when asked."
        )
    if config.auto_refute:
        lines.append(
            "A refuter holding exactly one named card shows it without being asked; the history does not say "
            "which shows were automatic."
        )
    lines.append(f"The game stops after {config.max_turns} turns with no winner.")
    return "\n".join(lines)


def _corner_rooms(config: core.GameConfig) -> str:
    """The rooms the duel's face-down cards lie on (``core.CORNER_ROOMS``), by the edition's names:
    ``"the Kitchen, the Conservatory, the Lounge and the Study"``."""
    rooms = [location_name(config, room) for room in core.CORNER_ROOMS]
    return ", ".join(rooms[:-1]) + " and " + rooms[-1]


def hand_sizes_text(config: core.GameConfig, view: np.ndarray) -> str:
    """``"Cards in each hand: P0 5, P1 5, P2 4, P3 4."``: every player knows how many cards each holds
    (counted from the deal's events, whose other players' cards the view hides)."""
    dealt = view[view[:, ev.KIND] == ev.DEAL, ev.PLAYER]
    sizes = ", ".join(f"P{p} {int((dealt == p).sum())}" for p in range(config.num_players))
    return f"Cards in each hand: {sizes}."


def notepad_notes(player: int, view: np.ndarray) -> tuple[dict[int, str], dict[int, set[int]]]:
    """What ``player`` writes on its detective notepad from its private view of the events.

    Returns ``notes``, card -> "yours", "shown by P2" or "seen face down" (the first thing seen of
    it), and ``passed``, card -> the other players seen to pass on a suggestion naming it (they hold
    none of it), for every card some player passed on.
    """
    notes: dict[int, str] = {}
    passed: dict[int, set[int]] = {}
    suggestion: tuple[int, ...] = ()
    for event in ev.read_events(view):
        if event.kind == ev.DEAL and event.player == player and event.card >= 0:
            notes[event.card] = "yours"
        elif event.kind == ev.PEEK and event.player == player and event.card >= 0:
            notes.setdefault(event.card, "seen face down")
        elif event.kind == ev.SHOW and event.suggester == player and event.card >= 0:
            notes.setdefault(event.card, f"shown by P{event.refuter}")
        elif event.kind == ev.SUGGEST:
            suggestion = event.cards
        elif event.kind == ev.PASS and event.player != player:
            for card in suggestion:
                passed.setdefault(card, set()).add(event.player)
    return notes, passed


def not_held_by(players: set[int]) -> str:
    """The notepad's note for a card these players passed on: "not held by P1, P3"."""
    return "not held by " + ", ".join(f"P{p}" for p in sorted(players))


def notepad_text(config: core.GameConfig, player: int, events: np.ndarray) -> str:
    """The player's detective notepad from its view of the events: each card and what it has seen of it.

    A card is "yours", "shown by P2", or "seen face down"; a card nobody showed you
    lists the other players seen to pass on a suggestion naming it (they hold none of it).
    """
    notes, passed = notepad_notes(player, core.private_view(np.asarray(events), player))
    e = config.cards
    lines = ["Notepad (what you have seen):"]
    for title, first, last in (
        ("Suspects", 0, e.num_suspects),
        ("Weapons", e.num_suspects, e.num_suspects + e.num_weapons),
        ("Rooms", e.num_suspects + e.num_weapons, e.num_cards),
    ):
        lines.append(f"  {title}:")
        for card in range(first, last):
            note = notes.get(card) or (not_held_by(passed[card]) if card in passed else "?")
            lines.append(f"    {e.cards[card]}: {note}")
    return "\n".join(lines)


def seat_text(config: core.GameConfig, player: int, view: np.ndarray) -> str:
    """The text view's first lines: who ``player`` plays and who the others do, its cards (by card id) and
    every hand's size, from its private view of the events (its deal's events)."""
    seats = ", ".join(player_name(config, p) for p in range(config.num_players))
    dealt = [event for event in ev.read_events(view) if event.kind == ev.DEAL and event.player == player]
    hand = [event.card for event in dealt if event.card >= 0]
    cards = ", ".join(config.cards.cards[c] for c in sorted(hand)) or "none"
    return (
        f"You are {player_name(config, player)}. Players in turn order: {seats}.\n\n"
        f"Your cards: {cards}.\n{hand_sizes_text(config, view)}"
    )


_HISTORY_TITLE = "What you have seen so far:"
_NOTHING_YET = "nothing yet"


def history_text(lines: Sequence[str]) -> str:
    """The text view's history: its title, then one ``"- "`` line per sentence (``"- nothing yet"`` for none)."""
    return f"{_HISTORY_TITLE}\n" + ("\n".join(f"- {line}" for line in lines) or f"- {_NOTHING_YET}")


def read_history_text(text: str) -> list[str] | None:
    """The sentences of a ``history_text``, or None for text that is not one (``history_text``'s inverse)."""
    rows = text.split("\n")
    lines = [row[2:] for row in rows[1:]]
    lines = [] if lines == [_NOTHING_YET] else lines
    return lines if history_text(lines) == text else None


def text_view(
    state: core.State,
    player: int,
    events: np.ndarray,
    game: int = 0,
    notepad: bool = False,
    rules: bool = False,
    history: bool = True,
    history_skip: tuple[int, ...] = HISTORY_SKIP,
) -> str:
    """What ``player`` knows and may do in game ``game`` of ``state``, as text.

    Args:
        state: The batch of games (only public fields are read).
        player: The viewer.
        events: ``int[n, 7]`` the events of this game so far, from the deal on, as a full log
            or the player's private view (the view is taken here either way).
        game: The game of the batch.
        notepad: Include the notepad (``notepad_text``).
        rules: Include ``rules_summary`` at the top (send it once, e.g. as a system message).
        history: Include the history (off for a reader who has followed the game as it went).
        history_skip: Event kinds left out of the history.

    Returns:
        The text: players, hand and hand sizes, history, notepad, board, decision and legal commands.
    """
    config = state.config
    view = core.private_view(np.asarray(events), player)
    parts = []
    if rules:
        parts.append("RULES\n" + rules_summary(config))
    parts.append(seat_text(config, player, view))
    if history:
        parts.append(history_text(story(config, view, skip=history_skip)))
    if notepad:
        parts.append(notepad_text(config, player, view))
    parts.append(_table(state, game))
    parts.append(_decision(state, game, player))
    return "\n\n".join(parts)


def _table(state: core.State, game: int) -> str:
    """Where the pawns and weapons are, who is out."""
    config = state.config
    e = config.cards
    P = config.num_players
    lines = [f"Turn {int(state.turn[game]) + 1}."]
    if config.board == "classic":
        pawns = "; ".join(
            f"{e.suspects[s]} {_where(config, int(state.location[game, s]))}" for s in range(e.num_suspects)
        )
    else:
        pawns = "; ".join(
            f"{e.suspects[s]} in {location_name(config, int(state.location[game, s]))}"
            for s in range(e.num_suspects)
            if state.location[game, s] < e.num_rooms
        )
    lines.append(f"Pawns: {pawns or 'none in a room yet'}.")
    weapons = "; ".join(
        f"the {e.weapons[w]} in {location_name(config, int(state.weapon_room[game, w]))}"
        for w in range(e.num_weapons)
    )
    lines.append(f"Weapons: {weapons}.")
    out = [p for p in range(P) if state.eliminated[game, p]]
    if out:
        lines.append("Out (accused wrongly): " + ", ".join(player_name(config, p) for p in out) + ".")
    return "\n".join(lines)


def _where(config: core.GameConfig, location: int) -> str:
    """Where a pawn is, after "is" or "are": ``"in the Kitchen"``, ``"on square (7,16)"``, or ``"off the
    board"`` (not yet in a room, no board)."""
    name = location_name(config, location)
    if location < config.cards.num_rooms:
        return f"in {name}"
    return name if config.board == "none" else f"on {name}"


def _decision(state: core.State, game: int, player: int) -> str:
    """The decision in front of the player and its legal commands (only when it is the player's)."""
    config = state.config
    e = config.cards
    phase = int(state.phase[game])
    if phase == Phase.OVER:
        return "The game is over."
    deciding = int(state.current_player[game])
    if deciding != player:
        return (
            f"Now: {player_name(config, deciding)} decides ({Phase.NAMES[phase]}). It is not your decision."
        )
    location = int(state.location[game, player])
    where = location_name(config, location)
    mask = core.legal_action_mask(state.take([game]))[0]
    layout = core.rules_for(config).layout
    may_accuse = bool(mask[layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]].any())
    if phase == Phase.TURN:
        what = f"Your turn. You are {_where(config, location)}."
        if config.board == "none":
            what += " Choose a room to go to, or accuse." if may_accuse else " Choose a room to go to."
    elif phase == Phase.MOVE:
        what = f"You rolled {int(state.dice[game, 0]) + max(int(state.dice[game, 1]), 0)}. Move your pawn."
        if config.movement == "compact":
            distance = core.room_distances(core.classic_board())[location]
            what += " Moves from your square into each room: " + ", ".join(
                f"{room} {int(d)}" for room, d in zip(e.rooms, distance)
            )
            what += "."
    elif phase == Phase.SUGGEST:
        what = f"You are in {where}. Suggest a suspect and a weapon (in this room), or make no suggestion."
    elif phase == Phase.REFUTE:
        suggester = int(state.turn_player[game])
        named = ", ".join(e.cards[c] for c in state.suggestion[game].tolist())
        what = (
            f"{player_name(config, suggester)} suggested {named}. You hold at least one of these cards: "
            f"show one of them to {player_name(config, suggester)} (only they will see it)."
        )
    elif may_accuse:
        what = "End of your move: accuse (suspect, weapon, room; a wrong accusation puts you out) or end your turn."
    else:
        what = "End of your move: end your turn (an accusation is made from a room, in these rules)."
    return f"Now: {what}\n\nYour legal commands:\n{legal_commands_text(config, mask)}"
