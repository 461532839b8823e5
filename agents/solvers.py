"""Built-in solvers of reasoning tasks, and loading a user's solver by ``"module:function"``.

A solver is a function ``solve(task) -> answer``: it gets the task's solver
fields, without its answers or provenance (``score.public_view``), and returns the answer dict of
``cluedo_env.reasoning.score``. The built-in ones:

- ``sat``: the SAT library's certain facts (``deduce_named``); probabilities
  uniform over the owners it has not ruled out;
- ``beliefs``: the exact posterior (``beliefs_named``) and the facts of
  probability 0 or 1: the perfect answer;
- ``notepad``: the notepad agent's bookkeeping (``agents.baselines.notepad_agent``): its own
  cards and the cards shown to it are crossed off (held by whoever showed
  them); when nobody refutes its own suggestion, the named cards it does not
  hold are in the envelope; probabilities uniform over the envelope candidates
  left and, for the rest, over the players it has not seen hold them;
- ``uniform``: the first two rungs of the ladder (``seen`` and
  ``crossing_off``) as facts, and each card's owner uniform over the owners
  they do not rule out;
- ``llm``: a chat model answering from the task's text
  (``agents.llm.solver.LLMSolver``; its options, such as
  ``base_url`` and ``model``, go to ``load_solver``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.registry import load_named
from cluedo_env.core.config import DUEL_FACE_DOWN_CARDS
from cluedo_env.inference import HELD, NOT_HELD, UNKNOWN, Deck, Setup
from cluedo_env.inference.beliefs import beliefs_named
from cluedo_env.inference.names import CardNames, named_record
from cluedo_env.reasoning.ladder import LABELS, rung_status

__all__ = ["SOLVERS", "load_solver"]

Solver = Callable[[Mapping[str, Any]], Any]


def _names(task: Mapping[str, Any]) -> tuple[list[str], list[str], list[str]]:
    cards = task["cards"]
    return cards["suspects"], cards["weapons"], cards["rooms"]


def _face_down(task: Mapping[str, Any]) -> int:
    """Cards lying face down on the rooms in the task's game: the duel's 4, else 0.

    Read from the task's ``config["duel"]``, not by rebuilding its ``GameConfig``: a task names a
    custom edition by its name only, which ``GameConfig`` does not know (the task's ``cards`` list its cards).
    """
    return DUEL_FACE_DOWN_CARDS if task["config"].get("duel") else 0


def _setup(task: Mapping[str, Any]) -> tuple[CardNames, Setup, list[str]]:
    cards = CardNames(*_names(task))
    setup = Setup(
        Deck(*cards.deck.sizes),
        len(task["players"]),
        tuple(task["hand_sizes"]),
        num_face_down=_face_down(task),
    )
    owners = [setup.owner_name(o) for o in setup.owners]  # the columns of a status grid
    return cards, setup, owners


def _answer_from_status(task: Mapping[str, Any], status: np.ndarray, q: np.ndarray) -> dict[str, Any]:
    cards, setup, owners = _setup(task)
    facts = [
        [cards.names[c], owners[o], bool(status[c, o] == HELD)]
        for c, o in zip(*np.nonzero(status != UNKNOWN))
    ]
    in_envelope = [cards.names[c] for c in np.flatnonzero(status[:, setup.envelope] == HELD)]
    return {
        "facts": facts,
        "envelope": in_envelope if len(in_envelope) == 3 else "not yet",
        "probabilities": {
            name: {owners[o]: float(q[c, o]) for o in range(len(owners))}
            for c, name in enumerate(cards.names)
        },
    }


def _uniform_over_possible(status: np.ndarray) -> np.ndarray:
    possible = (status != NOT_HELD).astype(np.float64)
    return possible / possible.sum(axis=1, keepdims=True)


def _status_of_rung(task: Mapping[str, Any], rung: int) -> np.ndarray:
    cards, setup, _ = _setup(task)
    records = [named_record(entry, cards, setup, task["observer"]) for entry in task["history"]]
    return rung_status(setup, task["observer"], records, rung)


def solve_sat(task: Mapping[str, Any]) -> dict[str, Any]:
    """Every certain fact (the SAT library); owners uniform over those not ruled out."""
    status = _status_of_rung(task, len(LABELS) - 1)
    return _answer_from_status(task, status, _uniform_over_possible(status))


def solve_uniform(task: Mapping[str, Any]) -> dict[str, Any]:
    """The crossing-off rung's facts; owners uniform over those it does not rule out."""
    status = _status_of_rung(task, LABELS.index("crossing_off"))
    return _answer_from_status(task, status, _uniform_over_possible(status))


def solve_beliefs(task: Mapping[str, Any]) -> dict[str, Any]:
    """The exact posterior (``cluedo_env.inference.beliefs``) and the facts of probability 0 or 1."""
    cards, _, owners = _setup(task)
    posterior = beliefs_named(
        *_names(task),
        len(task["players"]),
        task["hand_sizes"],
        task["observer"],
        task["history"],
        num_face_down=_face_down(task),
        exact=True,
    )
    q = np.zeros((len(cards.names), len(owners)))
    status = np.full(q.shape, NOT_HELD, dtype=np.int8)
    for c, name in enumerate(cards.names):
        for owner, p in posterior["cards"][name].items():
            o = owners.index(owner)
            q[c, o] = float(p)
            status[c, o] = HELD if p == 1 else UNKNOWN
    return _answer_from_status(task, status, q)


def solve_notepad(task: Mapping[str, Any]) -> dict[str, Any]:
    """The notepad agent's bookkeeping (see the module docstring)."""
    cards, setup, owners = _setup(task)
    me, env, C = task["observer"], setup.envelope, len(cards.names)
    status = np.full((C, len(owners)), UNKNOWN, dtype=np.int8)
    in_envelope: set[int] = set()
    for entry in task["history"]:
        if "hand" in entry:
            status[:, me] = NOT_HELD
            for name in entry["hand"]:
                status[cards.card(name)] = NOT_HELD
                status[cards.card(name), me] = HELD
        elif "suggest" in entry and entry.get("card") is not None:
            c = cards.card(entry["card"])
            status[c] = NOT_HELD
            status[c, entry["shown_by"]] = HELD
        elif "suggest" in entry and entry["by"] == me and entry.get("shown_by") is None:
            in_envelope.update(cards.card(n) for n in entry["suggest"])
        elif "seen" in entry:  # a card looked at where it lies (the duel's face-down cards)
            c = cards.card(entry["seen"])
            status[c] = NOT_HELD
            status[c, owners.index(entry["owner"])] = HELD
    crossed = (status == HELD).any(axis=1)
    # an unrefuted card is in the envelope, unless cards lie face down on the table: it may be there
    for c in in_envelope - set(np.flatnonzero(crossed).tolist()) if setup.table is None else ():
        status[c] = NOT_HELD
        status[c, env] = HELD
    for category in setup.deck.categories:
        settled = [c for c in category if status[c, env] == HELD]
        if settled:
            status[[c for c in category if c not in settled], env] = NOT_HELD
    q = np.zeros(status.shape)
    for category in setup.deck.categories:
        candidates = [c for c in category if status[c, env] != NOT_HELD]
        for c in category:
            if (status[c] == HELD).any():
                q[c] = status[c] == HELD
                continue
            others = [o for o in range(len(owners) - 1) if status[c, o] != NOT_HELD]  # all but the envelope
            q[c, env] = 1 / len(candidates) if c in candidates and others else float(c in candidates)
            if others:
                q[c, others] = (1 - q[c, env]) / len(others)
    return _answer_from_status(task, status, q)


SOLVERS: dict[str, Solver] = {
    "sat": solve_sat,
    "beliefs": solve_beliefs,
    "notepad": solve_notepad,
    "uniform": solve_uniform,
}


def load_solver(name: str, options: Mapping[str, Any] | None = None) -> Solver:
    """A built-in solver by name, ``"llm"`` with its options, or a user's function by ``"package.module:function"``.

    Args:
        name: ``sat``, ``beliefs``, ``notepad``, ``uniform``, ``llm`` or an import path.
        options: Keyword arguments of ``LLMSolver`` (``llm`` only; the others take none).

    Raises:
        ValueError: for an unknown name, a path that does not lead to a callable, or options
            given to a solver that takes none.
    """
    known = [*sorted(SOLVERS), "llm"]
    if not isinstance(name, str):
        raise ValueError(f"solver must be one of {known} or 'module:function', got {name!r}")
    if name == "llm":
        from agents.llm.solver import LLMSolver  # httpx only when a model is asked

        try:
            return LLMSolver(**dict(options or {}))
        except TypeError as error:
            raise ValueError(f"bad options for the llm solver {dict(options or {})!r}: {error}") from error
    if options:
        raise ValueError(f"solver {name!r} takes no options, got {dict(options)!r}")
    if name in SOLVERS:
        return SOLVERS[name]
    if ":" not in name:
        raise ValueError(f"solver must be one of {known} or 'module:function', got {name!r}")
    solve = load_named(name, f"solver {name!r}")
    if not callable(solve):
        raise ValueError(f"solver {name!r} is not callable")
    return solve
