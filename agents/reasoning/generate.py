"""Frozen task splits: games played on the core, cut at decision points, written as gzip JSON Lines.

A split is a function of its ``SplitSpec`` only: batch ``k`` plays
``games_per_batch`` games of setting ``settings[k % len(settings)]`` (rules and
line-up) with deal seeds ``seed * SEED_STRIDE + k * games_per_batch + b`` and
the line-up rotated by ``k``. A game is cut at decision points, the acting
player being the observer: the game's last accusation (usually the winner's,
a solved position) or, without one, its last turn; and ``tasks_per_game - 1``
turn starts before it drawn with ``numpy.random.default_rng([seed, k, b])``.
``game["cut"]`` is the number of event rows the task's observer has seen. ``checksum`` is the SHA-256 of the canonical JSON of the
tasks, one line each, so two runs agree exactly when their tasks do.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.arena import play_batch
from agents.reasoning.tasks import make_task
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.core import events as ev

__all__ = [
    "CHECKSUMS",
    "SEED_STRIDE",
    "SPLITS",
    "Setting",
    "SplitSpec",
    "batch_tasks",
    "checksum",
    "generate",
    "load_split",
    "read_tasks",
    "write_tasks",
]

SEED_STRIDE = 1_000_000
DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Setting:
    """Rules and line-up of some of a split's games.

    Attributes:
        edition: An edition of ``core.EDITIONS``.
        board: ``"classic"`` or ``"none"``.
        lineup: One registered agent name per player (3 to 6).
        max_turns: Games are truncated after this many turns.
    """

    edition: str
    board: str
    lineup: tuple[str, ...]
    max_turns: int = 100

    def config(self) -> core.GameConfig:
        """The game rules of this setting."""
        return core.GameConfig(
            edition=self.edition, board=self.board, num_players=len(self.lineup), max_turns=self.max_turns
        )


@dataclass(frozen=True)
class SplitSpec:
    """Everything a split is generated from.

    Attributes:
        version: Benchmark version (``"v1"``).
        name: Split name (``"dev"``, ``"test"``).
        seed: Seed of the split's deals and cuts (different splits, different seeds).
        num_tasks: Tasks in the split.
        tasks_per_game: Cuts drawn per game (fewer when a game has fewer turns).
        games_per_batch: Games played together on the batched core.
        settings: The rules and line-ups, used in turn.
    """

    version: str
    name: str
    seed: int
    num_tasks: int
    tasks_per_game: int = 3
    games_per_batch: int = 8
    settings: tuple[Setting, ...] = field(default_factory=tuple)

    def path(self) -> Path:
        """Where the split is stored: ``agents/reasoning/data/<version>/<name>.jsonl.gz``."""
        return DATA / self.version / f"{self.name}.jsonl.gz"


_V1_SETTINGS = (
    Setting("classic", "classic", ("sat", "notepad", "random")),
    Setting("classic", "none", ("notepad", "sat", "random", "notepad")),
    Setting("classic_fr", "classic", ("sat", "random", "notepad", "sat", "random")),
    Setting("de_2023", "none", ("random", "notepad", "sat", "random", "notepad", "sat")),
    Setting("classic_fr_1999", "none", ("sat", "sat", "notepad")),
    Setting("classic", "classic", ("notepad", "random", "sat", "notepad", "random", "sat")),
    Setting("classic_fr_2000", "classic", ("random", "sat", "notepad", "sat")),
    Setting("classic", "none", ("sat", "notepad", "notepad", "random", "sat")),
)

# The frozen splits: a change of the generator that changes a task must bump the version.
CHECKSUMS = {
    ("v1", "dev"): "1b04372236cce0d36376b50f5e73f63f5bf07da85a6daf218d78fad2f52a98d0",
    ("v1", "test"): "f27fbaf32464057a43038617943b0af5abc4c0842d0567bcd32843dacc58c89c",
}

SPLITS = {
    ("v1", "dev"): SplitSpec("v1", "dev", seed=1, num_tasks=500, settings=_V1_SETTINGS),
    ("v1", "test"): SplitSpec("v1", "test", seed=2, num_tasks=10_000, settings=_V1_SETTINGS),
}


def _game_events(config: core.GameConfig, lineup: Sequence[str], seeds: np.ndarray, rotation: int) -> list:
    agents = [make_agent(name, seed=k) for k, name in enumerate(lineup)]
    logs: list[list[np.ndarray]] = [[] for _ in seeds]

    def record(state: core.State) -> None:
        for b, log in enumerate(logs):
            rows = state.events[b, : state.num_events[b]]
            log.append(rows[rows[:, 0] >= 0].copy())

    play_batch(config, agents, seeds, rotation=rotation, on_step=record)
    for agent in agents:
        if hasattr(agent, "close"):
            agent.close()
    return [np.concatenate(log) if log else np.zeros((0, 7), np.int16) for log in logs]


def generate(spec: SplitSpec, progress: bool = True) -> Iterator[dict[str, Any]]:
    """The tasks of a split, in order (see the module docstring).

    Args:
        spec: The split.
        progress: Show a progress bar.
    """
    if not spec.settings:
        raise ValueError(f"split {spec.name!r} has no settings")
    made, batch = 0, 0
    bar = tqdm(total=spec.num_tasks, desc=f"{spec.version}/{spec.name}", disable=not progress)
    while made < spec.num_tasks:
        for task in batch_tasks(spec, batch):
            if made == spec.num_tasks:
                break
            task["id"] = f"{spec.version}-{spec.name}-{made:05d}"
            yield task
            made += 1
            bar.update()
        batch += 1
    bar.close()


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
    for b, events in enumerate(_game_events(config, setting.lineup, seeds, rotation=rotation)):
        # Decision points: the start of a turn (cut after the TURN row) and the moment of an
        # accusation (cut before the ACCUSE row); the acting player is the observer. The cuts are
        # the game's last accusation (usually its winner's: a solved position), else its last
        # turn, and tasks_per_game - 1 other turns drawn at random.
        turns = np.flatnonzero(events[:, 0] == ev.TURN) + 1
        accusations = np.flatnonzero(events[:, 0] == ev.ACCUSE)
        final = accusations[-1] if len(accusations) else turns[-1]
        rng = np.random.default_rng([spec.seed, batch, b])
        pool = turns[turns < final]
        others = rng.choice(pool, size=min(spec.tasks_per_game - 1, len(pool)), replace=False)
        for cut in np.sort(np.append(others, final)):
            acting = events[cut - 1] if events[cut - 1, 0] == ev.TURN else events[cut]
            game = {
                "seed": int(seeds[b]),
                "lineup": list(setting.lineup),
                "rotation": rotation,
                "cut": int(cut),
            }
            tasks.append(make_task(config, int(acting[1]), events[:cut], game=game))
    return tasks


def _line(task: dict[str, Any]) -> str:
    return json.dumps(task, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def checksum(tasks: Sequence[dict[str, Any]]) -> str:
    """SHA-256 (hex) of the tasks' canonical JSON lines."""
    digest = hashlib.sha256()
    for task in tasks:
        digest.update(_line(task).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def write_tasks(tasks: Sequence[dict[str, Any]], path: str | Path) -> str:
    """Write tasks as gzip JSON Lines (reproducible bytes: no file name or time in the header); the checksum."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0) as out:
        for task in tasks:
            out.write((_line(task) + "\n").encode())
    return checksum(tasks)


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Tasks from a gzip JSON Lines file (plain JSON: nothing is executed).

    Raises:
        ValueError: naming the file and line of a line that is not a JSON object.
    """
    tasks = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                task = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number} is not JSON: {error}") from error
            if not isinstance(task, dict):
                raise ValueError(f"{path}:{number} is not a JSON object")
            tasks.append(task)
    return tasks


def load_split(version: str, name: str, cache: str | Path | None = None, progress: bool = True) -> list[dict]:
    """The tasks of a frozen split, checked against its pinned checksum.

    The shipped file (``SplitSpec.path``) is read if present, else the copy in
    ``cache``; failing both, the split is generated into ``cache`` (minutes
    for ``test``).

    Args:
        version: ``"v1"``.
        name: ``"dev"`` or ``"test"``.
        cache: Folder for splits not shipped with the package.
        progress: Show a progress bar while generating.

    Raises:
        ValueError: for an unknown split, or tasks whose checksum is not the pinned one.
    """
    if (version, name) not in SPLITS:
        raise ValueError(f"unknown split {version}/{name}; splits are {sorted(SPLITS)}")
    spec = SPLITS[version, name]
    cached = None if cache is None else Path(cache) / version / f"{name}.jsonl.gz"
    if spec.path().exists():
        tasks = read_tasks(spec.path())
    elif cached is not None and cached.exists():
        tasks = read_tasks(cached)
    elif cached is not None:
        tasks = list(generate(spec, progress=progress))
        write_tasks(tasks, cached)
    else:
        raise ValueError(
            f"split {version}/{name} is not shipped at {spec.path()} and no cache folder was given"
        )
    found = checksum(tasks)
    if found != CHECKSUMS[version, name]:
        raise ValueError(
            f"split {version}/{name} has checksum {found}, the pinned one is {CHECKSUMS[version, name]}: "
            "the file was altered or the generator changed (a changed generator needs a new version)"
        )
    return tasks
