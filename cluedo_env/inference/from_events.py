"""From a player's event view to the records of ``cluedo_env.inference``.

The rules core emits events; the deduction library takes records. A
``RecordMaker`` turns one player's private event view of one game, event by
event, into ``OwnHand``, ``Suggestion``, ``Accusation`` and ``Seen`` records.
``deduce_from_events`` is the library call a reasoning benchmark scores with:
everything a player can know from what it has seen, at any step, including the
passes announced while a refuter is still deciding which card to show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference.cards import Deck, Setup
from cluedo_env.inference.deduction import deduce
from cluedo_env.inference.knowledge import Knowledge
from cluedo_env.inference.records import Accusation, OwnHand, Record, Seen, Suggestion

__all__ = [
    "RECORD_EVENT_KINDS",
    "RECORD_KINDS",
    "RecordMaker",
    "check_events",
    "checked_private_view",
    "deduce_from_events",
    "plain_record",
    "record_from_plain",
    "records_from_events",
    "setup_of",
]

RECORD_EVENT_KINDS = np.array([ev.DEAL, ev.SUGGEST, ev.PASS, ev.SHOW, ev.NO_REFUTE, ev.ACCUSE, ev.PEEK])
RECORD_KINDS = {kind.__name__: kind for kind in (OwnHand, Suggestion, Accusation, Seen)}


def plain_record(record: Record) -> dict[str, Any]:
    """A record as plain data (its kind's name and its fields), for an agent's ``state_dict``."""
    return {"kind": type(record).__name__, **asdict(record)}


def record_from_plain(entry: Mapping[str, Any]) -> Record:
    """The record that ``plain_record`` wrote.

    Raises:
        ValueError: the entry names no record kind of ``cluedo_env.inference``.
    """
    fields = dict(entry)
    kind = RECORD_KINDS.get(fields.pop("kind", None))
    if kind is None:
        raise ValueError(
            f"not a record kind of cluedo_env.inference: {entry.get('kind')!r}; kinds are {sorted(RECORD_KINDS)}"
        )
    return kind(**fields)


def setup_of(config: core.GameConfig) -> Setup:
    """The deduction set-up of a game config (the core deals from player 0)."""
    e = config.cards
    return Setup.dealt(
        Deck(e.num_suspects, e.num_weapons, e.num_rooms), config.num_players, config.num_face_down
    )


class RecordMaker:
    """Builds the records of one player in one game from its event view, event by event."""

    def __init__(self, setup: Setup, player: int) -> None:
        self.setup = setup
        self.player = player
        self.hand: list[int] = []
        self.pending: dict | None = None  # a suggestion awaiting its answer

    def add(self, event: Iterable[int]) -> Record | None:
        """The record completed by this event (events of other kinds give None).

        A suggestion's record is complete at its ``SHOW`` or ``NO_REFUTE`` event;
        until then ``pending_record`` holds what is already known of it.

        Raises:
            ValueError: if the events are out of order: a pass or an answer with no suggestion
                before it, or one naming another suggester than the suggestion's, or a suggestion
                while the last one still waits for its answer (the rules answer every suggestion
                before anything else is done; its passes would be lost).
        """
        e = ev.Event.of(event)
        if e.kind == ev.DEAL and e.player == self.player:
            self.hand.append(e.card)
            if len(self.hand) == self.setup.hand_sizes[self.player]:
                return OwnHand(self.player, tuple(self.hand))
        elif e.kind == ev.SUGGEST:
            if self.pending is not None:
                raise ValueError(
                    f"SUGGEST while the suggestion of player {self.pending['suggester']} "
                    f"{self.pending['cards']} still waits for its answer (a SHOW or NO_REFUTE row)"
                )
            self.pending = {"suggester": e.suggester, "cards": e.cards, "passed": []}
        elif e.kind in (ev.PASS, ev.SHOW, ev.NO_REFUTE):
            if self.pending is None:
                raise ValueError(f"event {e.name} with no suggestion before it")
            if e.suggester != self.pending["suggester"]:
                raise ValueError(
                    f"{e.name} answers a suggestion of player {e.suggester}, but the suggestion "
                    f"waiting for its answer is player {self.pending['suggester']}'s"
                )
            if e.kind == ev.PASS:
                self.pending["passed"].append(e.player)
                return None
            pending, self.pending = self.pending, None
            shown_by = e.refuter if e.kind == ev.SHOW else None
            shown_card = e.card if e.kind == ev.SHOW and e.card >= 0 else None
            return Suggestion(
                pending["suggester"], pending["cards"], tuple(pending["passed"]), shown_by, shown_card
            )
        elif e.kind == ev.ACCUSE:
            return Accusation(e.player, e.cards, e.correct)
        elif e.kind == ev.PEEK and e.player == self.player and e.card >= 0:
            return Seen(e.card, self.setup.table)
        return None

    def add_events(self, events: np.ndarray) -> list[Record]:
        """The records completed by these event rows (``int[n, 7]``, unused rows skipped), in order."""
        return [r for r in map(self.add, ev.read_events(events)) if r is not None]

    def state_dict(self) -> dict[str, Any]:
        """Its own cards so far and the suggestion awaiting its answer, as plain data."""
        pending = self.pending
        return {
            "hand": list(self.hand),
            "pending": None if pending is None else {**pending, "passed": list(pending["passed"])},
        }

    def load_state_dict(self, saved: Mapping[str, Any]) -> None:
        """Continue from ``state_dict``'s output."""
        self.hand = [int(card) for card in saved["hand"]]
        pending = saved["pending"]
        self.pending = (
            None
            if pending is None
            else {
                "suggester": int(pending["suggester"]),
                "cards": tuple(int(c) for c in pending["cards"]),
                "passed": [int(p) for p in pending["passed"]],
            }
        )

    def pending_record(self) -> Suggestion | None:
        """The suggestion still waiting for its refuter, with the passes announced so far, else None.

        The core announces every pass of a suggestion at once, then the refuter
        decides which card to show in a step of its own: in between, those passes
        are already facts (each passer holds none of the three cards). The record
        has ``shown_by=None`` and the passes so far; once the answer comes, ``add``
        returns the complete record, which says all this one says and more.
        """
        if self.pending is None:
            return None
        pending = self.pending
        return Suggestion(pending["suggester"], pending["cards"], tuple(pending["passed"]))


def _bad_rows(where: np.ndarray, low: int, high: int, rows: np.ndarray) -> np.ndarray:
    """Indices of the rows ``rows`` whose ``where`` values lie outside ``[low, high)``."""
    return rows[(where[rows] < low) | (where[rows] >= high)]


def check_events(config: core.GameConfig, events: Any) -> np.ndarray:
    """``events`` as an ``int64[n, 7]`` array of one game's event rows, checked against ``config``.

    Unused rows (kind ``-1``) are accepted and skipped by readers. A used row must
    have a kind of ``core.events.EVENT_KINDS`` and a player of the game (``GAME_OVER``:
    or ``-1``); the fields the deduction reads must be in range: a card id or ``-1``
    (hidden) for ``DEAL``, ``SHOW`` and ``PEEK``; a suspect, weapon and room card id for
    ``SUGGEST`` and ``ACCUSE``, with ``correct`` 0 or 1; a player as the suggester of
    ``PASS`` and ``SHOW``. A ``PEEK`` row is refused in a game with no face-down cards.

    Raises:
        ValueError: naming the first bad row (its index and values) and what is accepted.
    """
    rows = np.asarray(events)
    if (
        rows.dtype == bool
        or not np.issubdtype(rows.dtype, np.integer)
        or rows.ndim != 2
        or rows.shape[1] != 7
    ):
        raise ValueError(
            "events must be an integer array of shape (n, 7), one event row "
            f"{ev.EVENT_FIELDS} each, got dtype {rows.dtype} and shape {rows.shape}"
        )
    if rows.size and rows.dtype.kind == "u" and rows.max() > np.iinfo(np.int64).max:
        raise ValueError(f"event rows hold values up to 2**63 - 1, got {rows.max()}")
    rows = rows.astype(np.int64)
    e = config.cards
    players, cards = config.num_players, e.num_cards
    suspects, weapons = e.num_suspects, e.num_weapons
    kind, player = rows[:, ev.KIND], rows[:, ev.PLAYER]
    problems: list[tuple[int, str]] = []

    def refuse(bad: np.ndarray, accepted: str) -> None:
        if len(bad):
            problems.append((int(bad[0]), accepted))

    used = np.flatnonzero(kind != -1)
    refuse(
        _bad_rows(kind, 0, len(ev.EVENT_KINDS), used), f"a kind in [0, {len(ev.EVENT_KINDS)}) or -1 (unused)"
    )
    if not problems:
        over = used[kind[used] == ev.GAME_OVER]
        refuse(_bad_rows(player, 0, players, used[kind[used] != ev.GAME_OVER]), f"a player in [0, {players})")
        refuse(_bad_rows(player, -1, players, over), f"a GAME_OVER winner in [-1, {players})")
        for k in (ev.DEAL, ev.SHOW, ev.PEEK):
            refuse(_bad_rows(rows[:, ev.CARD], -1, cards, used[kind[used] == k]), f"a card in [-1, {cards})")
        for k in (ev.SUGGEST, ev.ACCUSE):
            named = used[kind[used] == k]
            refuse(_bad_rows(rows[:, ev.SUSPECT], 0, suspects, named), f"a suspect card in [0, {suspects})")
            refuse(
                _bad_rows(rows[:, ev.WEAPON_CARD], suspects, suspects + weapons, named),
                f"a weapon card in [{suspects}, {suspects + weapons})",
            )
            refuse(
                _bad_rows(rows[:, ev.ROOM_CARD], suspects + weapons, cards, named),
                f"a room card in [{suspects + weapons}, {cards})",
            )
        refuse(
            _bad_rows(rows[:, ev.CORRECT], 0, 2, used[kind[used] == ev.ACCUSE]), "an ACCUSE correct of 0 or 1"
        )
        if config.num_face_down == 0:
            refuse(
                used[kind[used] == ev.PEEK],
                "a kind other than PEEK: this game has no face-down cards to look at (num_face_down 0)",
            )
        answered = used[np.isin(kind[used], (ev.PASS, ev.SHOW))]
        refuse(_bad_rows(rows[:, ev.SUGGESTER], 0, players, answered), f"a suggester in [0, {players})")
    if problems:
        index, accepted = min(problems)
        row = rows[index]
        name = ev.EVENT_KINDS[row[ev.KIND]] if 0 <= row[ev.KIND] < len(ev.EVENT_KINDS) else "bad kind"
        raise ValueError(
            f"event row {index} {row.tolist()} ({name}) is not an event of this game: a used row "
            f"{ev.EVENT_FIELDS} needs {accepted}"
        )
    return rows


def _check_own_deal(index: int, row: list[int], hand: list[int], hand_size: int) -> None:
    """Refuse a deal to the observer of a hidden card, of a card it holds, or beyond its hand."""
    card = row[ev.CARD]
    wrong = (
        "no card (its own deal shows the card)"
        if card < 0
        else "a card it already holds"
        if card in hand
        else f"more cards than its hand holds ({hand_size})"
        if len(hand) == hand_size
        else None
    )
    if wrong:
        raise ValueError(f"event row {index} {row} deals player {row[ev.PLAYER]} {wrong}")


def checked_private_view(config: core.GameConfig, player: Any, events: Any) -> tuple[int, np.ndarray]:
    """(``player`` as an int, its private view of ``events``), after checking that ``player`` is a
    player of the game and the rows are events of it (``check_events``); a ``ValueError`` names
    what is wrong."""
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
        raise ValueError(f"player must be an int in [0, {config.num_players}), got {player!r}")
    if not 0 <= player < config.num_players:
        raise ValueError(f"player must be an int in [0, {config.num_players}), got {player}")
    player = int(player)
    return player, core.private_view(check_events(config, events), player)


def deduce_from_events(config: core.GameConfig, player: int, events: np.ndarray) -> Knowledge:
    """Everything ``player`` can deduce from its view of a game's events.

    Args:
        config: The game's rules.
        player: The observer.
        events: ``int[n, 7]`` event rows of one game in order (from the deal on),
            as the player sees them (``core.private_view``); a full event log is
            filtered here, so passing it is safe.

    Returns:
        The entailed facts: who holds which card, who surely does not, and the
        envelope candidates (``Knowledge``). When the events end while a
        suggestion waits for its refuter (at the refuter's decision step), the
        passes already announced count: a pass is a fact as soon as it is made.

    Raises:
        ValueError: for a player not of the game, rows that are not events of this game
            (``check_events``), rows out of order (a pass or an answer with no suggestion, or naming
            another suggester, or a suggestion before the last one's answer) or dealing the player a
            card twice or more cards than its hand holds, each naming the row.
    """
    setup, records = records_from_events(config, player, events)
    return deduce(setup, player, records)


def records_from_events(
    config: core.GameConfig, player: int, events: np.ndarray
) -> tuple[Setup, list[Record]]:
    """The game's ``Setup`` and the records of ``player``'s view of its events, checked as
    ``deduce_from_events`` says (its ``Raises``), with the passes of a suggestion still waiting for
    its refuter; what ``deduce_from_events`` and ``beliefs.beliefs_from_events`` read."""
    player, view = checked_private_view(config, player, events)
    setup = setup_of(config)
    maker = RecordMaker(setup, player)
    records = []
    for index, row in enumerate(view.tolist()):
        if row[ev.KIND] < 0:
            continue
        if row[ev.KIND] == ev.DEAL and row[ev.PLAYER] == player:
            _check_own_deal(index, row, maker.hand, setup.hand_sizes[player])
        try:
            record = maker.add(row)
        except ValueError as error:
            raise ValueError(f"event row {index} {row}: {error}") from None
        if record is not None:
            records.append(record)
    pending = maker.pending_record()
    if pending is not None:
        records.append(pending)
    return setup, records
