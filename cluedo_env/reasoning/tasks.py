"""A reasoning task: one player's view of a game cut at one of its decisions, with exact answers.

A task is a JSON-ready dict (schemas ``v1`` and ``v2``) in three parts:

- what a solver is given (``SOLVER_FIELDS``; ``score.public_view`` keeps these
  and nothing else), built by ``make_task`` from ``core.private_view`` of the
  events only, so it holds nothing its observer could not see
  (``tests/reasoning/test_reasoning.py`` checks it by scrambling everything else, and
  ``tests/reasoning/test_task_privacy.py`` that nothing in it re-deals the game);
- the answer key (``ANSWER_FIELDS``), read by the scorer only;
- the provenance (``PROVENANCE_FIELDS``): ``game``, where the task comes
  from, for regenerating and checking a split. Its deal seed re-deals every
  hand and the envelope (``core.init(config, [seed])``): it is never shown to
  a solver. (A split file holds the answer key too: it is the benchmark's
  key, not a solver's input.)

The fields:

- ``id``, ``version``, ``config`` (every ``core.GameConfig`` field; the edition by its name, a custom
  one's too, which ``GameConfig`` does not know: read its cards from ``cards``), ``observer`` (player index);
- ``cards`` (``suspects``, ``weapons``, ``rooms``: names of the edition),
  ``players`` (``"player 0"`` ...), ``hand_sizes``, ``hand`` (card names);
- ``history``: the observer's records in ``cluedo_env.inference.deduce_named``'s
  form (``{"hand": ...}``, ``{"suggest": ..., "by", "passed", "shown_by",
  "card"}``, ``{"accuse": ..., "by", "correct"}``, ``{"seen", "owner"}``);
- ``text``: the same view in words. ``v1``: the transcript sentences of the
  view (``cluedo_env.transcript``; moves, dice and weapon tokens left out).
  ``v2``: what a language-model player is shown at that decision
  (``cluedo_env.text.text_view`` of the game's state at the cut: who plays,
  its hand, what it has seen, where the pawns and weapons are, the decision
  and its legal commands), without the notepad (it would do part of the
  bookkeeping the task asks for); ``v2`` also has ``rules``
  (``cluedo_env.text.rules_summary`` of the config, a language model's
  system message);
- ``answers``: ``facts`` (every certain ``[card, owner, holds, label]``),
  ``unknown`` (every uncertain ``[card, owner]``), ``envelope`` (the triple if
  entailed, else ``"not yet"``), ``probabilities`` (``{card: {owner: p}}``,
  every owner, exact counting posterior of ``cluedo_env.inference.beliefs``), ``num_deals``
  (a decimal string);
- ``hardest`` (the hardest label among the facts), ``num_records``, ``tier``;
- ``game``: the deal seed, line-up, rotation and cut (event rows of the game up to the decision).

``cluedo_env.reasoning.task_check.check_task`` refuses a task that ``make_task`` could not have written:
``splits.read_tasks`` checks every task of a file from elsewhere with it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.config import config_fields
from cluedo_env.inference import HELD, UNKNOWN, Accusation, OwnHand, Record, Seen, Setup, Suggestion
from cluedo_env.inference.beliefs import beliefs
from cluedo_env.inference.from_events import RecordMaker, setup_of
from cluedo_env.reasoning.ladder import LABELS, label_facts
from cluedo_env.text import rules_summary, text_view
from cluedo_env.transcript import story

__all__ = [
    "ANSWER_FIELDS",
    "ANSWER_KEY_FIELDS",
    "LONG_HISTORY",
    "PROVENANCE_FIELDS",
    "SCHEMA_VERSIONS",
    "SOLVER_FIELDS",
    "TEXT_SKIPPED",
    "make_task",
    "named_entry",
    "named_history",
    "owner_order",
    "tier_of",
]

SCHEMA_VERSIONS = ("v1", "v2")
# The parts of a task (module docstring): a solver is given the first only. Named in full, so that a
# field added to tasks reaches a solver only when it is added here.
SOLVER_FIELDS = (
    "id",
    "version",
    "config",
    "observer",
    "cards",
    "players",
    "hand_sizes",
    "hand",
    "history",
    "text",
    "rules",
    "num_records",
)
ANSWER_FIELDS = ("answers", "hardest", "tier")
PROVENANCE_FIELDS = ("game",)
# The fields of ``answers``.
ANSWER_KEY_FIELDS = ("facts", "unknown", "envelope", "probabilities", "num_deals")
# Movement, dice and weapon tokens carry nothing about the cards: left out of the text.
TEXT_SKIPPED = (ev.ROLL, ev.MOVE, ev.WEAPON)
# A history of more records than this makes its task one tier harder.
LONG_HISTORY = 30
# Tier of the hardest label: seen/crossing off 1, nobody could show/one of 2, counting 3, sat 4.
_LABEL_TIER = (1, 1, 2, 2, 3, 4)


def tier_of(hardest: int, num_records: int) -> int:
    """Tier 1 (easiest) to 4: the hardest label's tier, one more for a long history (at most 4).

    Args:
        hardest: Index in ``LABELS`` of the hardest certain fact.
        num_records: Records in the history.
    """
    return min(4, _LABEL_TIER[hardest] + (num_records > LONG_HISTORY))


def named_entry(record: Record, names: tuple[str, ...], setup: Any) -> dict[str, Any]:
    """One record as a ``deduce_named`` history entry, its cards by ``names`` (the edition's)."""
    if isinstance(record, OwnHand):
        return {"hand": [names[c] for c in record.cards]}
    if isinstance(record, Suggestion):
        return {
            "suggest": [names[c] for c in record.cards],
            "by": record.suggester,
            "passed": list(record.passed),
            "shown_by": record.shown_by,
            "card": None if record.shown_card is None else names[record.shown_card],
        }
    if isinstance(record, Accusation):
        return {"accuse": [names[c] for c in record.cards], "by": record.player, "correct": record.correct}
    if isinstance(record, Seen):
        return {"seen": names[record.card], "owner": setup.owner_name(record.owner)}
    raise TypeError(f"not a record: {record!r}")


def named_history(config: core.GameConfig, records: list[Record]) -> list[dict[str, Any]]:
    """Records as ``deduce_named`` history entries, in the edition's card names."""
    setup = setup_of(config)
    return [named_entry(r, config.cards.cards, setup) for r in records]


def owner_order(setup: Setup) -> list[int]:
    """The task format lists owners as players, envelope, table (``score.py`` reads it so): its columns,
    as owner codes of the inference's grid (players, table, envelope)."""
    return [*range(setup.num_players), setup.envelope] + ([setup.table] if setup.table is not None else [])


def _config_dict(config: core.GameConfig) -> dict[str, Any]:
    values = config_fields(config)
    values["edition"] = config.cards.name  # an unregistered Edition is named too
    return values


def make_task(
    config: core.GameConfig,
    observer: int,
    events: np.ndarray,
    *,
    version: str = "v2",
    state: core.State | None = None,
    task_id: str = "",
    game: dict | None = None,
) -> dict[str, Any]:
    """The task of ``observer`` after the event rows ``events`` (a full log is filtered to its view here).

    Args:
        config: The game's rules.
        observer: The player whose view the task is.
        events: ``int[n, 7]`` event rows of one game from the deal on.
        version: The task schema, ``"v1"`` or ``"v2"`` (see the module docstring).
        state: ``v2`` only: the game at the cut, as a batch of one game (its public fields
            give the text view's board and decision).
        task_id: The task's id.
        game: Where the task comes from (seed, line-up, cut), copied as is: provenance, never
            shown to a solver.

    Returns:
        The task dict (see the module docstring).

    Raises:
        ValueError: for an unknown version, ``v2`` without a state of one game of ``config``, or events cut
            while a suggestion is being answered (the passes announced, the refuter still to show): the
            task's ``history`` has no form for a suggestion without its answer, so a task cuts a game at a
            decision outside the refutation (the splits cut at ``TURN`` and ``ACCUSE``).
    """
    if version not in SCHEMA_VERSIONS:
        raise ValueError(f"version must be one of {SCHEMA_VERSIONS}, got {version!r}")
    if version != "v1" and (state is None or state.batch_size != 1 or state.config != config):
        raise ValueError(f"a {version} task needs the state of its game at the cut (one game of this config)")
    view = core.private_view(np.asarray(events), observer)
    return _task_from_view(config, observer, view, task_id, game, version=version, state=state)


def _task_from_view(
    config: core.GameConfig,
    observer: int,
    view: np.ndarray,
    task_id: str,
    game: dict | None,
    version: str = "v1",
    state: core.State | None = None,
) -> dict[str, Any]:
    setup = setup_of(config)
    maker = RecordMaker(setup, observer)
    view = view[view[:, 0] >= 0]
    records = [r for r in (maker.add(row) for row in view) if r is not None]
    if maker.pending_record() is not None:  # its passes are facts the history could not state
        raise ValueError(
            "the events end while a suggestion is being answered (its passes announced, the refuter still to "
            "show): a task's history has no form for it; cut the game at a decision outside the refutation"
        )
    names = config.cards.cards
    status, label = label_facts(setup, observer, records)
    posterior = beliefs(setup, observer, records)
    probabilities = posterior.probabilities()
    order = owner_order(setup)
    status, label, probabilities = status[:, order], label[:, order], probabilities[:, order]
    owners = [setup.owner_name(o) for o in order]
    facts = [
        [names[c], owners[o], bool(status[c, o] == HELD), LABELS[label[c, o]]]
        for c, o in zip(*np.nonzero(status != UNKNOWN))
    ]
    unknown = [[names[c], owners[o]] for c, o in zip(*np.nonzero(status == UNKNOWN))]
    solved = [names[c] for c in np.flatnonzero(status[:, setup.num_players] == HELD)]
    hand = next((r.cards for r in records if isinstance(r, OwnHand)), ())
    hardest = int(label.max())
    if version == "v1":
        text: Any = story(config, view, skip=TEXT_SKIPPED, first_turn=0)  # v1's released wording
    else:
        text = text_view(state, observer, view, notepad=False)
    task = {
        "id": task_id,
        "version": version,
        "config": _config_dict(config),
        "game": dict(game or {}),
        "observer": int(observer),
        "cards": {
            "suspects": list(config.cards.suspects),
            "weapons": list(config.cards.weapons),
            "rooms": list(config.cards.rooms),
        },
        "players": owners[: setup.num_players],
        "hand_sizes": list(setup.hand_sizes),
        "hand": [names[c] for c in hand],
        "history": [named_entry(r, names, setup) for r in records],
        "text": text,
        "answers": {
            "facts": facts,
            "unknown": unknown,
            "envelope": solved if len(solved) == 3 else "not yet",
            "probabilities": {
                names[c]: {owners[o]: float(probabilities[c, o]) for o in range(len(order))}
                for c in range(len(names))
            },
            "num_deals": str(posterior.num_deals),
        },
        "hardest": LABELS[hardest],
        "num_records": len(records),
        "tier": tier_of(hardest, len(records)),
    }
    if version != "v1":
        task["rules"] = rules_summary(config)
    return task
