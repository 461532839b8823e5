"""Checking a reasoning task read from a file: ``check_task`` refuses a task that
``cluedo_env.reasoning.tasks.make_task`` could not have written (its names, players, hand sizes, history,
text, rules and answer key checked against its edition, its config and each other), by its ``id``, field
and value. ``cluedo_env.reasoning.splits.read_tasks`` checks every task of a file from elsewhere with it
(a pinned split's file, whose checksum vouches for it, is not checked again).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.config import LATER_FIELDS, read_fields
from cluedo_env.core.editions import CATEGORIES
from cluedo_env.inference import HELD, NOT_HELD, UNKNOWN, Accusation, OwnHand, Record, Seen, Setup, Suggestion
from cluedo_env.inference.cards import is_whole
from cluedo_env.inference.from_events import setup_of
from cluedo_env.inference.names import CardNames, named_records
from cluedo_env.reasoning.ladder import LABELS, rung_status
from cluedo_env.reasoning.tasks import (
    ANSWER_FIELDS,
    ANSWER_KEY_FIELDS,
    PROVENANCE_FIELDS,
    SCHEMA_VERSIONS,
    SOLVER_FIELDS,
    TEXT_SKIPPED,
    named_entry,
    owner_order,
    tier_of,
)
from cluedo_env.text import HISTORY_SKIP, read_history_text, rules_summary, seat_text
from cluedo_env.transcript import describe_event, story

__all__ = ["check_task"]

_CONFIG_FIELDS = tuple(f.name for f in fields(core.GameConfig) if f.init)


@dataclass(frozen=True)
class _Rules:
    """What a task's ``config`` and ``cards`` fix: its game's rules, cards and owners."""

    config: core.GameConfig
    names: CardNames
    setup: Setup
    order: tuple[int, ...]  # the task format's owner columns, as owner codes (``owner_order``)
    owners: tuple[str, ...]  # their names: "player 0", ..., "envelope", "table"
    summary: str  # rules_summary(config)
    written: str  # the JSON of config and cards it was read from (``_lines``' key)


def _edition(config: dict, cards: Any) -> core.Edition:
    """The edition a task's ``config`` names: a registered one, whose cards ``cards`` must be, or a custom
    one, whose cards ``cards`` are."""
    if not isinstance(cards, dict) or sorted(cards) != sorted(CATEGORIES):
        raise ValueError(
            f"cards must be the edition's {list(CATEGORIES)} (lists of card names), got {cards!r}"
        )
    name = config["edition"]
    if isinstance(name, str) and name in core.EDITIONS:
        edition = core.EDITIONS[name]
        for category in CATEGORIES:
            if cards[category] != list(getattr(edition, category)):
                raise ValueError(
                    f"cards.{category} must be the {name} edition's {list(getattr(edition, category))}, "
                    f"got {cards[category]!r}"
                )
        return edition
    weapons = cards["weapons"]
    try:
        return core.Edition(
            name, *(cards[c] for c in CATEGORIES), (0,) * (len(weapons) if isinstance(weapons, list) else 0)
        )
    except ValueError as error:
        raise ValueError(
            f"config.edition {name!r} is not one of {sorted(core.EDITIONS)}, so cards are a custom edition's, "
            f"and they are not one: {error}"
        ) from None


@functools.lru_cache(maxsize=64)
def _rules(written: str) -> _Rules:
    """The ``_Rules`` of a task's ``config`` and ``cards`` (``written``: their JSON)."""
    config, cards = json.loads(written)
    if not isinstance(config, dict):
        raise ValueError(
            f"config must be a dict of the GameConfig fields {list(_CONFIG_FIELDS)}, got {config!r}"
        )
    unknown = sorted(set(config) - set(_CONFIG_FIELDS))
    missing = [name for name in _CONFIG_FIELDS if name not in config and name not in LATER_FIELDS]
    if unknown or missing:
        raise ValueError(
            f"config must hold every GameConfig field {list(_CONFIG_FIELDS)} (but {list(LATER_FIELDS)}, "
            f"which may be left out) and no other: unknown {unknown}, missing {missing}"
        )
    edition = _edition(config, cards)
    try:
        game = core.GameConfig(**read_fields({**config, "edition": edition}))
        names = CardNames(edition.suspects, edition.weapons, edition.rooms)
    except ValueError as error:
        raise ValueError(f"config: {error}") from None
    setup = setup_of(game)
    order = tuple(owner_order(setup))
    owners = tuple(setup.owner_name(o) for o in order)
    return _Rules(game, names, setup, order, owners, rules_summary(game), written)


def check_task(task: Any) -> None:
    """Refuse a task that is not one ``make_task`` could have written: a task file from elsewhere is read
    through this (``cluedo_env.reasoning.splits.read_tasks``), so that a typo or an edit in it stops the
    reading, by the task and its field, rather than reaching a solver or the scorer.

    Checked, for both schemas: the fields (those of the version, no other); ``config`` (every
    ``GameConfig`` field, valid); ``cards`` (a registered edition's own lists; a custom edition, named by a
    name ``core.EDITIONS`` does not know, is read from them); ``players``, ``hand_sizes`` (as the game
    deals them) and ``observer``; ``history`` (``deduce_named``'s entries, each checked against the rules,
    written as ``make_task`` writes them: every key of its kind, the cards as the edition spells them),
    and that the entries contradict neither each other nor the hand sizes (the ``seen`` and
    ``crossing_off`` rungs); ``hand`` (its ``hand`` entry) and ``num_records``; ``text``: ``v2``'s first
    lines (who the observer plays, its hand, the hand sizes) and every line of its history are those of
    ``observer``, ``hand``, ``hand_sizes`` and ``history`` (in order; the other lines are the start and
    the other players' looks at face-down cards, and ``v1``'s deals and turns), and ``rules`` is
    ``rules_summary`` of ``config``; ``answers``: every (card, owner) in ``facts`` or ``unknown``, once;
    the facts of the ``seen`` and ``crossing_off`` rungs those the history states; the probabilities 1
    for a held fact, 0 for one not held, between for an unknown pair, each card's summing to 1 and each
    owner's to its number of cards; ``envelope`` the envelope's facts; ``num_deals`` a positive
    integer; ``hardest`` and ``tier`` those of the facts; ``game.seed``, where given, a whole number.
    Not checked: the facts that only the stronger rungs find, the probabilities' values beyond their
    sums, and the board and decision of ``v2``'s text, which only the game holds (a split's pinned
    checksum vouches for them).

    Raises:
        ValueError: naming the task (its ``id``), the field, the value and what is accepted.
    """
    name = task.get("id") if isinstance(task, Mapping) else None
    try:
        _check_task(task)
    except ValueError as error:
        raise ValueError(f"task {name!r}: {error}") from None


def _same(value: Any, expected: Any) -> bool:
    """Whether ``value`` is ``expected`` as JSON writes it: ``5.0`` is not ``5``, nor ``true`` ``1``."""
    try:
        return json.dumps(value, sort_keys=True) == json.dumps(expected, sort_keys=True)
    except (TypeError, ValueError):  # (not JSON: not what a task holds)
        return False


def _check_task(task: Any) -> None:
    if not isinstance(task, dict):
        raise ValueError(f"a task must be a JSON object, got {type(task).__name__}")
    version = task.get("version")
    if version not in SCHEMA_VERSIONS:
        raise ValueError(f"version must be one of {list(SCHEMA_VERSIONS)}, got {version!r}")
    wanted = [f for f in SOLVER_FIELDS + ANSWER_FIELDS + PROVENANCE_FIELDS if f != "rules" or version != "v1"]
    unknown, missing = sorted(set(task) - set(wanted)), [f for f in wanted if f not in task]
    if unknown or missing:
        raise ValueError(f"a {version} task has the fields {wanted}: unknown {unknown}, missing {missing}")
    if not isinstance(task["id"], str):
        raise ValueError(f"id must be a string, got {task['id']!r}")
    try:
        written = json.dumps([task["config"], task["cards"]], sort_keys=True)
    except (TypeError, ValueError):
        raise ValueError(
            f"config and cards must be JSON values, got {task['config']!r} and {task['cards']!r}"
        ) from None
    rules = _rules(written)
    setup = rules.setup
    players = list(rules.owners[: setup.num_players])
    if not _same(task["players"], players):
        raise ValueError(
            f"players must be {players} (config.num_players = {setup.num_players}), got {task['players']!r}"
        )
    if not _same(task["hand_sizes"], list(setup.hand_sizes)):
        raise ValueError(
            f"hand_sizes must be {list(setup.hand_sizes)}: the {sum(setup.hand_sizes)} cards outside the envelope"
            + (f" and the {setup.num_face_down} face down" if setup.num_face_down else "")
            + f" dealt one by one from player 0, got {task['hand_sizes']!r}"
        )
    observer = task["observer"]
    if not is_whole(observer) or not 0 <= observer < setup.num_players:
        raise ValueError(f"observer must be a player in [0, {setup.num_players}), got {observer!r}")
    records, grids = _check_history(task, rules)
    _check_text(task, rules, records)
    _check_answers(task, rules, records, grids)
    game = task["game"]
    if not isinstance(game, dict):
        raise ValueError(f"game must be a dict (the task's provenance), got {game!r}")
    if "seed" in game and not (is_whole(game["seed"]) and game["seed"] >= 0):
        raise ValueError(f"game.seed must be a whole number >= 0 (the deal's seed), got {game['seed']!r}")


def _check_history(task: dict, rules: _Rules) -> tuple[list[Record], list[np.ndarray]]:
    """The records of the task's ``history``, checked (``check_task``), with ``hand`` and ``num_records``;
    and the grids of the ``seen`` and ``crossing_off`` rungs (``ladder.rung_status``)."""
    setup, names, observer, history = rules.setup, rules.names, task["observer"], task["history"]
    try:
        records = named_records(names, setup, observer, history)
    except (TypeError, ValueError) as error:
        raise ValueError(str(error)) from None
    for index, (entry, record) in enumerate(zip(history, records, strict=True)):
        written = named_entry(record, names.names, setup)
        if entry != written:
            raise ValueError(
                f"history entry {index} {entry!r} is not written as a task writes it (every key of its kind, "
                f"the cards as the {rules.config.cards.name} edition spells them): it reads {written!r}"
            )
    try:
        grids = [
            rung_status(setup, observer, records, rung) for rung in range(LABELS.index("crossing_off") + 1)
        ]
    except ValueError:
        raise ValueError(_contradiction(rules, observer, history, records)) from None
    status = grids[-1]
    for owner in setup.owners:
        held, possible = (status[:, owner] == HELD).sum(), (status[:, owner] != NOT_HELD).sum()
        if held > setup.owner_size(owner) or possible < setup.owner_size(owner):
            raise ValueError(
                f"history: no deal is consistent with it: the {setup.owner_name(owner)} holds "
                f"{setup.owner_size(owner)} cards, the entries say it holds {held} and could hold at most {possible}"
            )
    hand = next((entry["hand"] for entry in history if "hand" in entry), [])
    if not _same(task["hand"], hand):
        raise ValueError(f"hand must be the history's hand entry {hand!r}, got {task['hand']!r}")
    if not _same(task["num_records"], len(history)):
        raise ValueError(
            f"num_records must be the history's length {len(history)}, got {task['num_records']!r}"
        )
    return records, grids


def _statements(record: Record, setup: Setup) -> list[tuple[int, int, bool]]:
    """What a record says outright, as ``(card, owner, holds)``."""
    if isinstance(record, OwnHand):
        return [(c, record.player, c in record.cards) for c in range(setup.deck.num_cards)]
    if isinstance(record, Seen):
        return [(record.card, record.owner, True)]
    if isinstance(record, Accusation):
        return [(c, setup.envelope, True) for c in record.cards] if record.correct else []
    shown = [] if record.shown_card is None else [(record.shown_card, record.shown_by, True)]
    return shown + [(c, player, False) for player in record.passed for c in record.cards]


def _contradiction(rules: _Rules, observer: int, history: list, records: list[Record]) -> str:
    """What is wrong with a history whose records contradict each other (``ladder.rung_status`` raised):
    its first entry that the entries before it rule out, and what it says that they rule out."""
    rung = LABELS.index("crossing_off")
    end = next(
        end for end in range(1, len(records) + 1) if not _possible(rules.setup, observer, records[:end], rung)
    )
    before = rung_status(rules.setup, observer, records[: end - 1], rung)
    said = f"history entry {end - 1} {history[end - 1]!r}"
    for card, owner, holds in _statements(records[end - 1], rules.setup):
        if before[card, owner] == (NOT_HELD if holds else HELD):
            return (
                f"{said} says that the {rules.setup.owner_name(owner)} {'holds' if holds else 'does not hold'} "
                f"{rules.names.names[card]!r}, which the entries before it rule out"
            )
    return f"{said} contradicts the entries before it"


def _possible(setup: Setup, observer: int, records: list[Record], rung: int) -> bool:
    """Whether ``rung_status`` finds no contradiction in ``records``."""
    try:
        rung_status(setup, observer, records, rung)
    except ValueError:
        return False
    return True


def _history_rows(records: list[Record]) -> np.ndarray:
    """The event rows of the suggestions and accusations of ``records``, as the observer saw them."""
    rows = []
    for record in records:
        if isinstance(record, Suggestion):
            rows.append([ev.SUGGEST, record.suggester, *record.cards, -1, -1])
            rows += [[ev.PASS, player, record.suggester, -1, -1, -1, -1] for player in record.passed]
            if record.shown_by is None:
                rows.append([ev.NO_REFUTE, record.suggester, -1, -1, -1, -1, -1])
            else:
                card = -1 if record.shown_card is None else record.shown_card
                rows.append([ev.SHOW, record.shown_by, record.suggester, -1, -1, -1, card])
        elif isinstance(record, Accusation):
            rows.append([ev.ACCUSE, record.player, *record.cards, int(record.correct), -1])
    return np.array(rows, dtype=np.int64).reshape(-1, 7)


@functools.lru_cache(maxsize=64)
def _lines(
    written: str, version: str
) -> tuple[frozenset[str], dict[str, int], dict[str, tuple[int, int, int]], int | None]:
    """The lines of a text history of a task's ``config`` and ``cards`` (``written``) that no history entry
    states: the start's, by every player; the others' deals (``v1``) and looks at face-down cards, by
    player; the observer's own, by line: ``(player, kind, card)``; and where the text has the turns' lines
    (``v1``), the number of its first turn (``_turn_line``), else None."""
    config = _rules(written).config
    skip, first_turn = (TEXT_SKIPPED, 0) if version == "v1" else (HISTORY_SKIP, 1)
    kinds = [kind for kind in (ev.DEAL, ev.PEEK) if kind not in skip and (kind == ev.DEAL or config.duel)]

    def line(kind: int, player: int, a: int = -1, card: int = -1) -> str:
        return describe_event(config, (kind, player, a, -1, -1, -1, card), first_turn)

    common: set[str] = set()
    hidden: dict[str, int] = {}
    named: dict[str, tuple[int, int, int]] = {}
    for player in range(config.num_players):
        common.add(line(ev.START, player, player))
        for kind in kinds:
            for a in range(config.cards.num_rooms) if kind == ev.PEEK else [-1]:
                hidden[line(kind, player, a)] = player
                named.update(
                    {line(kind, player, a, c): (player, kind, c) for c in range(config.cards.num_cards)}
                )
    return frozenset(common), hidden, named, None if ev.TURN in skip else first_turn


def _turn_line(config: core.GameConfig, line: str, first_turn: int) -> bool:
    """Whether ``line`` is the line of a turn (below ``max_turns``) of a player, as ``describe_event`` words
    it with turns counted from ``first_turn``: read back from its numbers, as listing every turn's line of
    every player would take seconds and megabytes at a ``max_turns`` of thousands."""
    numbers = re.match(r"turn ([0-9]{1,9}): P([0-9]{1,9}) ", line)
    if numbers is None:
        return False
    turn, player = int(numbers[1]) - first_turn, int(numbers[2])
    return (
        0 <= turn < config.max_turns
        and player < config.num_players
        and line == describe_event(config, (ev.TURN, player, turn, -1, -1, -1, -1), first_turn)
    )


def _check_text(task: dict, rules: _Rules, records: list[Record]) -> None:
    """``text`` and ``rules`` say what the other fields do (``check_task``)."""
    config, observer, text, version = rules.config, task["observer"], task["text"], task["version"]
    hand = [rules.names.card(name) for name in task["hand"]]
    if version == "v1":
        if not isinstance(text, list) or not all(isinstance(line, str) for line in text):
            raise ValueError(f"text of a v1 task must be a list of sentences (strings), got {text!r}")
        lines = text
    else:
        if not isinstance(text, str):
            raise ValueError(f"text of a {version} task must be a string (the text view), got {text!r}")
        if task["rules"] != rules.summary:
            raise ValueError(
                f"rules must be the rules summary of config {rules.summary!r}, got {task['rules']!r}"
            )
        deal = [
            [ev.DEAL, p, -1, -1, -1, -1, c]
            for p in range(config.num_players)
            for c in (hand if p == observer and hand else [-1] * task["hand_sizes"][p])
        ]
        head = seat_text(config, observer, np.array(deal, dtype=np.int64).reshape(-1, 7)) + "\n\n"
        if not text.startswith(head):
            raise ValueError(
                f"text must begin as observer, hand and hand_sizes say, {head!r}, got {text[: len(head)]!r}"
            )
        block = text[len(head) :].split("\n\n", 1)[0]
        lines = read_history_text(block)
        if lines is None:
            raise ValueError(f"text: its first lines must be followed by its history, got {block[:200]!r}")
    common, hidden, named, first_turn = _lines(rules.written, version)
    stated, own = [], []
    for line in lines:
        if line in common or hidden.get(line, observer) != observer:
            continue
        if first_turn is not None and _turn_line(config, line, first_turn):
            continue
        if named.get(line, (observer + 1,))[0] == observer:
            own.append(named[line][1:])
        else:
            stated.append(line)
    expected = story(config, _history_rows(records))
    if stated != expected:
        k = next(
            k
            for k in range(len(stated) + 1)
            if k == len(stated) or k == len(expected) or stated[k] != expected[k]
        )
        if k < len(stated) and k < len(expected):
            raise ValueError(
                f"text: its history says {stated[k]!r} where the history's entries say {expected[k]!r}"
            )
        if k < len(expected):
            raise ValueError(
                f"text: its history ends before {expected[k]!r}, which the history's entries say"
            )
        raise ValueError(f"text: its history says {stated[k]!r}, which no history entry says")
    seen = sorted(record.card for record in records if isinstance(record, Seen))
    named_cards = [(ev.PEEK, seen, "seen entries")] + (
        [(ev.DEAL, sorted(hand), "hand")] if version == "v1" else []
    )
    for kind, cards, what in named_cards:  # the observer's own looks at face-down cards (v1: and deals)
        written = sorted(card for of_kind, card in own if of_kind == kind)
        if written != cards:
            raise ValueError(
                f"text: its history names {[rules.names.names[c] for c in written]} where the {what} name "
                f"{[rules.names.names[c] for c in cards]}"
            )


def _number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (an int or a float, not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_answers(task: dict, rules: _Rules, records: list[Record], grids: list[np.ndarray]) -> None:
    """``answers``, ``hardest`` and ``tier`` are an answer key of the task (``check_task``); ``grids``: the
    ``seen`` and ``crossing_off`` rungs' (``_check_history``)."""
    answers, names, owners = task["answers"], rules.names.names, rules.owners
    if not isinstance(answers, dict) or sorted(answers) != sorted(ANSWER_KEY_FIELDS):
        raise ValueError(f"answers must be a dict of {list(ANSWER_KEY_FIELDS)}, got {answers!r}")
    card_of, column_of = {n: c for c, n in enumerate(names)}, {o: k for k, o in enumerate(owners)}
    label_of = {name: k for k, name in enumerate(LABELS)}
    cells: dict[
        tuple[int, int], tuple[int, bool]
    ] = {}  # (card, owner column) -> (label, or -1 if unknown; held)
    for part, form in (("facts", "[card, owner, holds, label]"), ("unknown", "[card, owner]")):
        entries, size = answers[part], len(form.split(","))
        if not isinstance(entries, list):
            raise ValueError(f"answers.{part} must be a list of {form}, got {entries!r}")
        for k, entry in enumerate(entries):
            if not (
                isinstance(entry, list)
                and len(entry) == size
                and isinstance(entry[0], str)
                and entry[0] in card_of
                and isinstance(entry[1], str)
                and entry[1] in column_of
                and (
                    size == 2
                    or (isinstance(entry[2], bool) and isinstance(entry[3], str) and entry[3] in label_of)
                )
            ):
                raise ValueError(
                    f"answers.{part}[{k}] must be {form} (a card of the edition, an owner of {list(owners)}"
                    + (f", true or false, a label of {list(LABELS)}" if part == "facts" else "")
                    + f"), got {entry!r}"
                )
            cell = (card_of[entry[0]], column_of[entry[1]])
            if cell in cells:
                raise ValueError(
                    f"answers.{part}[{k}] {entry!r}: ({entry[0]!r}, {entry[1]!r}) is in the key twice"
                )
            cells[cell] = (label_of[entry[3]], entry[2]) if size == 4 else (-1, False)
    label = np.full((len(names), len(owners)), -2)  # -2: in neither list; -1: unknown; else the fact's label
    held = np.zeros(label.shape, dtype=bool)
    if cells:
        where = tuple(np.array(list(cells)).T)
        label[where], held[where] = np.array(list(cells.values())).T
    missing = np.argwhere(label == -2)
    if len(missing):
        c, o = missing[0]
        raise ValueError(
            f"answers: every card and owner is in facts or unknown; ({names[c]!r}, {owners[o]!r}) is in neither "
            f"({len(missing)} pairs are missing)"
        )
    # The facts the history states outright (the seen and crossing-off rungs) are the key's, so labelled.
    grids = [grid[:, list(rules.order)] for grid in grids]
    stated = np.select([grid != UNKNOWN for grid in grids], range(len(grids)), -1)
    stated_held = grids[-1] == HELD
    key_low = np.where(label <= LABELS.index("crossing_off"), label, -1)
    wrong = np.argwhere((stated != key_low) | ((stated >= 0) & (stated_held != held)))
    if len(wrong):
        c, o = wrong[0]
        said = (
            [names[c], owners[o], bool(stated_held[c, o]), LABELS[stated[c, o]]]
            if stated[c, o] >= 0
            else None
        )
        key = [names[c], owners[o]] + ([bool(held[c, o]), LABELS[label[c, o]]] if label[c, o] >= 0 else [])
        raise ValueError(
            f"answers: the history's entries state {said!r}, the key has {key!r} (in "
            f"{'facts' if label[c, o] >= 0 else 'unknown'})"
            if said
            else f"answers: the key has {key!r}, which the history's entries do not state (a {LABELS[label[c, o]]} fact)"
        )
    probabilities = answers["probabilities"]
    if not isinstance(probabilities, dict) or sorted(probabilities) != sorted(names):
        raise ValueError(
            f"answers.probabilities must have a row for every card of the edition {list(names)}, and no other, "
            f"got {sorted(probabilities) if isinstance(probabilities, dict) else probabilities!r}"
        )
    rows = []
    for card in names:
        row = probabilities[card]
        if not isinstance(row, dict) or sorted(row) != sorted(owners):
            raise ValueError(
                f"answers.probabilities[{card!r}] must give every owner of {list(owners)} one, got {row!r}"
            )
        rows.append([row[owner] for owner in owners])
        bad = next((k for k, value in enumerate(rows[-1]) if not _number(value) or not 0 <= value <= 1), None)
        if bad is not None:
            raise ValueError(
                f"answers.probabilities[{card!r}][{owners[bad]!r}] must be a number in [0, 1], got {rows[-1][bad]!r}"
            )
    p = np.array(rows, dtype=np.float64)
    wrong = np.argwhere(np.where(label >= 0, p != held, (p <= 0) | (p >= 1)))
    if len(wrong):
        c, o = wrong[0]
        what = f"a fact ({'held' if held[c, o] else 'not held'})" if label[c, o] >= 0 else "unknown"
        raise ValueError(
            f"answers.probabilities[{names[c]!r}][{owners[o]!r}] is {float(p[c, o])!r}, but ({names[c]!r}, {owners[o]!r}) "
            f"is {what}: a held fact has probability 1, one not held 0, an unknown pair one between"
        )
    for c, total in enumerate(p.sum(axis=1)):
        if not math.isclose(total, 1, abs_tol=1e-9):
            raise ValueError(f"answers.probabilities[{names[c]!r}] sums to {float(total)!r}, not 1")
    envelope = rules.order.index(rules.setup.envelope)
    for k, owner in enumerate(rules.order):
        groups = rules.setup.deck.categories if owner == rules.setup.envelope else [range(len(names))]
        size = 1 if owner == rules.setup.envelope else rules.setup.owner_size(owner)
        for cards in groups:
            total = p[list(cards), k].sum()
            if not math.isclose(total, size, abs_tol=1e-9):
                raise ValueError(
                    f"answers.probabilities: the {owners[k]}'s sum to {float(total)!r}"
                    + (f" over the {names[cards[0]]!r} category" if k == envelope else "")
                    + f", but it holds {size} card(s) there"
                )
    solved = [names[c] for c in np.flatnonzero((label[:, envelope] >= 0) & held[:, envelope])]
    expected = solved if len(solved) == 3 else "not yet"
    if answers["envelope"] != expected:
        raise ValueError(
            f"answers.envelope must be {expected!r}, as the envelope's facts say, got {answers['envelope']!r}"
        )
    deals = answers["num_deals"]
    if not (
        isinstance(deals, str)
        and deals.isascii()
        and deals.isdigit()
        and deals == str(int(deals))
        and deals != "0"
    ):
        raise ValueError(
            f"answers.num_deals must be a positive whole number as a decimal string, got {deals!r}"
        )
    hardest = int(label.max())
    if task["hardest"] != LABELS[hardest]:
        raise ValueError(
            f"hardest must be the hardest label of the facts, {LABELS[hardest]!r}, got {task['hardest']!r}"
        )
    if not _same(task["tier"], tier_of(hardest, len(records))):
        raise ValueError(
            f"tier must be {tier_of(hardest, len(records))} (hardest {LABELS[hardest]!r}, {len(records)} records), "
            f"got {task['tier']!r}"
        )
