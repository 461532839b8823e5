"""A reasoning task as a solver gets it cannot re-deal its game.

``core.init(config, [seed])`` deals every hand and the envelope from the seed
alone, so a task that showed its solver the deal seed would show it the whole
deal. A solver gets ``score.public_view(task)`` (``SOLVER_FIELDS`` only); the
seed stays in the task's provenance (``game``), for the generator and the
scorer. For every task of the shipped splits, every number in the solver's form
is tried as a seed, in every way a solver could read one: each integer field,
each run of digits in a string, the digits of each word joined (``"3,000,002"``,
``"v2-dev-00012"``), negated; none deals the task's game. The deal from the
provenance's seed is checked to be the task's own (it deals the observer the
task's hand), and leaky controls show the search has teeth: the seed added as a
field, hidden in the id or in the text, and the solver's form as it was before
(every field but the answer key), each re-deal every game.

What is left to a solver that runs the generator itself (a split's seeds are in
``SPLITS``, public by design) is reading the answer key: outside any task.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from agents.solvers import SOLVERS
from cluedo_env import core
from cluedo_env.core.game import SEED_BOUND
from cluedo_env.reasoning.score import public_view
from cluedo_env.reasoning.splits import SPLITS, read_tasks
from cluedo_env.reasoning.tasks import ANSWER_FIELDS, PROVENANCE_FIELDS, SOLVER_FIELDS

SHIPPED = [key for key, spec in SPLITS.items() if spec.shipped]


@pytest.fixture(scope="module", params=SHIPPED, ids="/".join)
def tasks(request) -> list[dict[str, Any]]:
    return read_tasks(SPLITS[request.param].path())


def numbers_in(value: Any) -> Iterator[int]:
    """Every integer a solver could read off ``value``: fields, digit runs, the digits of a word joined."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, float) and value.is_integer():
        yield int(value)
    elif isinstance(value, str):
        yield from (int(run) for run in re.findall(r"\d+", value))
        for word in value.split():
            digits = re.sub(r"\D", "", word)
            if digits:
                yield int(digits)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers_in(key)
            yield from numbers_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from numbers_in(item)


def seeds_in(view: dict[str, Any]) -> np.ndarray:
    """The numbers of ``view`` that are seeds ``core.init`` takes, as they are and negated."""
    found = {abs(n) for n in numbers_in(view)}
    return np.array(sorted(n for n in found if n < SEED_BOUND), dtype=np.int64)


def deals(task: dict[str, Any], seeds: np.ndarray) -> np.ndarray:
    """``int[len(seeds), C]``: who holds each card (a player or the envelope) in the game of each seed."""
    return core.init(core.GameConfig(**task["config"]), seeds)._owner.astype(np.int64)


def true_deal(task: dict[str, Any]) -> np.ndarray:
    return deals(task, np.array([task["game"]["seed"]]))[0]


def re_dealing_seeds(task: dict[str, Any], view: dict[str, Any]) -> list[int]:
    """The numbers of ``view`` that, as a seed, deal exactly the task's game."""
    seeds = seeds_in(view)
    if not len(seeds):
        return []
    return seeds[(deals(task, seeds) == true_deal(task)).all(axis=1)].tolist()


def test_the_provenance_seed_deals_the_tasks_game(tasks):
    # The threat is real: the seed in a task's provenance gives the whole deal, the observer's hand first.
    for task in tasks:
        owner = true_deal(task)
        names = core.GameConfig(**task["config"]).cards.cards
        held = {names[c] for c in np.flatnonzero(owner == task["observer"])}
        assert held == set(task["hand"]), task["id"]


def test_no_number_a_solver_is_given_deals_its_game(tasks):
    tried = 0
    for task in tasks:
        view = public_view(task)
        assert re_dealing_seeds(task, view) == [], task["id"]
        tried += len(seeds_in(view))
    assert tried > 10 * len(tasks)  # the search does look at many numbers per task


LEAKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    # The solver's form with the seed added as a field.
    "a seed field": lambda task: {**public_view(task), "seed": task["game"]["seed"]},
    # Hidden in the id, as a generator might name a task.
    "the seed in the id": lambda task: {**public_view(task), "id": f"{task['id']}-s{task['game']['seed']}"},
    # Written in the text with thousands separators.
    "the seed in the text": lambda task: {
        **public_view(task),
        "text": f"{task['text']}\nGame {task['game']['seed']:,}.",
    },
    # The solver's form before issue #39: everything but the answer key, provenance included.
    "all but the answer key": lambda task: {k: v for k, v in task.items() if k not in ANSWER_FIELDS},
}


@pytest.mark.parametrize("leak", list(LEAKS))
def test_a_leaky_task_is_caught(tasks, leak):
    caught = [task["game"]["seed"] in re_dealing_seeds(task, LEAKS[leak](task)) for task in tasks]
    assert all(caught)


def test_a_solver_is_given_its_fields_only(tasks):
    task = tasks[0]
    assert set(task) == {*SOLVER_FIELDS, *ANSWER_FIELDS, *PROVENANCE_FIELDS} - (
        {"rules"} if task["version"] == "v1" else set()
    )
    view = public_view(task)
    assert set(view) == set(SOLVER_FIELDS) & set(task)
    # A field a task file adds (a newer generator, an altered file) reaches no solver.
    assert "deal" not in public_view({**task, "deal": task["game"]["seed"]})


def test_the_runner_gives_every_solver_the_solver_fields_only(tasks, tmp_path, monkeypatch):
    from experiments.reasoning_bench import ReasoningBenchConfig, run

    given: list[dict[str, Any]] = []

    def recording(task: dict[str, Any]) -> dict[str, Any]:
        given.append(json.loads(json.dumps(task)))
        return {}

    monkeypatch.setitem(SOLVERS, "recording", recording)
    version, split = tasks[0]["version"], tasks[0]["id"].split("-")[1]
    run(
        ReasoningBenchConfig(
            solver="recording",
            version=version,
            split=split,
            resamples=10,
            progress=False,
            output_dir=str(tmp_path / "out"),
            leaderboard=str(tmp_path / "board.jsonl"),
        )
    )
    assert len(given) == len(tasks)
    for task, view in zip(tasks, given):
        assert set(view) <= set(SOLVER_FIELDS)
        assert re_dealing_seeds(task, view) == [], task["id"]
