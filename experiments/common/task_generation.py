"""Frozen task splits: games played on the core, cut at decision points, written as gzip JSON Lines.

A split is a function of its ``SplitSpec`` only: batch ``k`` plays
``games_per_batch`` games of setting ``settings[k % len(settings)]`` (rules and
line-up) with deal seeds ``seed * SEED_STRIDE + k * games_per_batch + b`` and
the line-up rotated by ``k``. A game is cut at decision points, the acting
player being the observer: the game's last accusation (usually the winner's,
a solved position) or, without one, its last turn; and ``tasks_per_game - 1``
turn starts before it drawn with ``numpy.random.default_rng([seed, k, b])``.
``game["cut"]`` is the number of event rows the task's observer has seen; a
``v2`` split also keeps the game's state at each decision point, for the text
view at the cut. ``checksum`` is the SHA-256 of the canonical JSON of the
tasks, one line each, so two runs agree exactly when their tasks do.

Generating ``v2`` plays the PPO agent, so it needs torch (the ``train``
extra); its checksums were made with torch 2.13.0 on CPU, one thread. Another
torch release may sample PPO's moves differently and so change the tasks: the
checksum check says so.

The pinned checksums live in ``data/checksums.json``. ``v1`` is frozen: its
splits must regenerate to their checksums forever. ``v2`` (line-ups with the
PPO and belief agents; the text view as a task's text) follows its agents
until it is released: when the belief agent's play or the PPO model changes,
the ``v2`` tasks change, and one command per split regenerates and re-pins them
(the belief agent's options are named in full, ``SplitSpec.agent_options``, so
a change of its defaults alone leaves them as they are)::

    nice -n 10 python -m experiments.reasoning_splits --version v2 --split dev --write
    nice -n 10 python -m experiments.reasoning_splits --version v2 --split test --write

(``dev`` is written into the package, ``test`` into ``--cache``; both pin their
new checksum in ``data/checksums.json``.) Without ``--write`` the command
regenerates and checks against the pinned checksum.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.arena import play_batch
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.state import Phase
from cluedo_env.reasoning.splits import SEED_STRIDE, SplitSpec
from cluedo_env.reasoning.tasks import make_task
from experiments.common.extras import worker_pool

__all__ = ["batch_tasks", "generate", "play_task_games"]


def play_task_games(
    config: core.GameConfig,
    lineup: Sequence[str],
    seeds: np.ndarray,
    rotation: int,
    *,
    snapshots: bool = False,
    agent_options: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[list[np.ndarray], list[dict[int, core.State]]]:
    """Play one batch: each game's event rows and, with ``snapshots``, its decision points' states.

    Returns:
        ``(events, states)``: ``events[b]`` the ``int16[n, 7]`` rows of game ``b``;
        ``states[b]`` maps an event count to the game (a batch of one) when it stood
        there before a start-of-turn or end-of-move decision (empty without ``snapshots``).
    """
    options = agent_options or {}
    agents = [make_agent(name, seed=k, **options.get(name, {})) for k, name in enumerate(lineup)]
    for agent in agents:
        with warnings.catch_warnings():
            # A model playing rules it was not trained on would make the split's games depend on
            # untested play: a setting may seat an agent only where it plays its own rules.
            warnings.simplefilter("error")
            agent.check_config(config)
    logs: list[list[np.ndarray]] = [[] for _ in seeds]
    counts = np.zeros(len(seeds), dtype=np.int64)
    states: list[dict[int, core.State]] = [{} for _ in seeds]

    def record(state: core.State) -> None:
        for b, log in enumerate(logs):
            rows = state.step_events(b)
            log.append(rows[rows[:, ev.KIND] >= 0].copy())
            counts[b] += len(log[-1])
        if snapshots:
            deciding = np.flatnonzero(~state.done & np.isin(state.phase, (Phase.TURN, Phase.ACCUSE)))
            for b in deciding.tolist():
                states[b][int(counts[b])] = state.take([b])

    play_batch(config, agents, seeds, rotation=rotation, on_step=record)
    for agent in agents:
        agent.close()
    events = [np.concatenate(log) if log else np.zeros((0, 7), np.int16) for log in logs]
    return events, states


def generate(spec: SplitSpec, progress: bool = True, workers: int = 1) -> Iterator[dict[str, Any]]:
    """The tasks of a split, in order (see the module docstring).

    Args:
        spec: The split.
        progress: Show a progress bar.
        workers: Processes playing batches at once (the tasks do not depend on it).
    """
    if not spec.settings:
        raise ValueError(f"split {spec.name!r} has no settings")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    made = 0
    bar = tqdm(total=spec.num_tasks, desc=f"{spec.version}/{spec.name}", disable=not progress)
    for tasks in _batches(spec, workers):
        for task in tasks:
            if made == spec.num_tasks:
                break
            task["id"] = f"{spec.version}-{spec.name}-{made:05d}"
            yield task
            made += 1
            bar.update()
        if made == spec.num_tasks:
            break
    bar.close()


def _batches(spec: SplitSpec, workers: int) -> Iterator[list[dict[str, Any]]]:
    """``batch_tasks(spec, 0)``, ``batch_tasks(spec, 1)``, ...: in this process, or ``workers`` at a time."""
    if workers == 1:
        yield from (batch_tasks(spec, k) for k in itertools.count())
        return
    # spawned, not forked from a process that may hold torch threads; each exits if this one is killed
    with worker_pool(workers) as pool:
        for first in itertools.count(0, 4 * workers):
            yield from pool.map(batch_tasks, itertools.repeat(spec), range(first, first + 4 * workers))


def batch_tasks(spec: SplitSpec, batch: int) -> list[dict[str, Any]]:
    """The tasks of batch ``batch`` of a split, in order, their ids not yet set (``generate`` numbers them).

    Batches are independent, so they may be computed in any order or in parallel.
    """
    setting = spec.settings[batch % len(spec.settings)]
    config = setting.config()
    first = spec.seed * SEED_STRIDE + batch * spec.games_per_batch
    seeds = np.arange(first, first + spec.games_per_batch, dtype=np.int64)
    rotation = batch % config.num_players
    tasks = []
    v1 = spec.schema == "v1"
    played, states = play_task_games(
        config, setting.lineup, seeds, rotation=rotation, snapshots=not v1, agent_options=spec.agent_options
    )
    for b, events in enumerate(played):
        # Decision points: the start of a turn (cut after the TURN row) and the moment of an
        # accusation (cut before the ACCUSE row); the acting player is the observer. The cuts are
        # the game's last accusation (usually its winner's: a solved position), else its last
        # turn, and tasks_per_game - 1 other turns drawn at random.
        turns = np.flatnonzero(events[:, ev.KIND] == ev.TURN) + 1
        accusations = np.flatnonzero(events[:, ev.KIND] == ev.ACCUSE)
        final = accusations[-1] if len(accusations) else turns[-1]
        rng = np.random.default_rng([spec.seed, batch, b])
        pool = turns[turns < final]
        others = rng.choice(pool, size=min(spec.tasks_per_game - 1, len(pool)), replace=False)
        for cut in np.sort(np.append(others, final)):
            acting = events[cut - 1] if events[cut - 1, ev.KIND] == ev.TURN else events[cut]
            game = {
                "seed": int(seeds[b]),
                "lineup": list(setting.lineup),
                "rotation": rotation,
                "cut": int(cut),
            }
            state = None if v1 else states[b][int(cut)]
            task = make_task(
                config, int(acting[ev.PLAYER]), events[:cut], version=spec.schema, state=state, game=game
            )
            tasks.append(task)
    return tasks
