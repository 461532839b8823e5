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

    nice -n 10 python -m agents.reasoning.generate --version v2 --split dev --write
    nice -n 10 python -m agents.reasoning.generate --version v2 --split test --write

(``dev`` is written into the package, ``test`` into ``--cache``; both pin their
new checksum in ``data/checksums.json``.) Without ``--write`` the command
regenerates and checks against the pinned checksum.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import multiprocessing
import sys
import time
import warnings
import zlib
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
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
from cluedo_env.core.state import Phase

__all__ = [
    "CHECKSUMS",
    "FROZEN_VERSIONS",
    "SEED_STRIDE",
    "SPLITS",
    "Setting",
    "SplitSpec",
    "batch_tasks",
    "checksum",
    "generate",
    "load_split",
    "main",
    "pin",
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

    def __post_init__(self) -> None:
        if not 3 <= len(self.lineup) <= 6:
            raise ValueError(f"a line-up seats 3 to 6 agents, got {self.lineup!r}")

    def config(self) -> core.GameConfig:
        """The game rules of this setting."""
        return core.GameConfig(
            edition=self.edition, board=self.board, num_players=len(self.lineup), max_turns=self.max_turns
        )


@dataclass(frozen=True)
class SplitSpec:
    """Everything a split is generated from.

    Attributes:
        version: Benchmark version (``"v1"``, ``"v2"``).
        name: Split name (``"dev"``, ``"test"``).
        seed: Seed of the split's deals and cuts (different splits, different seeds).
        num_tasks: Tasks in the split.
        tasks_per_game: Cuts drawn per game (fewer when a game has fewer turns).
        games_per_batch: Games played together on the batched core.
        settings: The rules and line-ups, used in turn.
        agent_options: Constructor options of the agents by registered name, named in full so that a
            change of an agent's defaults leaves the split's games as they were.
        schema: The task schema (``agents.reasoning.tasks``): ``"v1"`` or ``"v2"``.
        shipped: The split's file ships in the package (``path``); else it is generated into a cache.
    """

    version: str
    name: str
    seed: int
    num_tasks: int
    tasks_per_game: int = 3
    games_per_batch: int = 8
    settings: tuple[Setting, ...] = field(default_factory=tuple)
    agent_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    schema: str = "v2"
    shipped: bool = False

    def path(self) -> Path:
        """Where a shipped split is stored: ``agents/reasoning/data/<version>/<name>.jsonl.gz``."""
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

# v2: every agent of the registry that plays by itself (random, notepad, SAT, belief, PPO). The
# shipped PPO model reads 4-player games of a 6-6-9 deck (``PPOAgent.check_config``); it is seated
# only on the rules it was trained on (classic edition and board, 4 players, 500 turns), since
# ``_game_events`` refuses an agent that warns it plays untested rules.
_V2_SETTINGS = (
    Setting("classic", "classic", ("ppo", "belief", "sat", "notepad"), max_turns=500),
    Setting("classic", "none", ("belief", "notepad", "random")),
    Setting("classic_fr", "classic", ("sat", "belief", "random", "notepad", "belief")),
    Setting("de_2023", "none", ("random", "notepad", "sat", "belief", "notepad", "sat")),
    Setting("classic", "classic", ("ppo", "random", "ppo", "belief"), max_turns=500),
    Setting("classic_fr_1999", "classic", ("belief", "sat", "notepad")),
    Setting("classic", "classic", ("notepad", "random", "belief", "sat", "random", "belief")),
    Setting("classic_fr_2000", "none", ("belief", "random", "notepad", "sat")),
    Setting("classic", "none", ("sat", "belief", "notepad", "random", "sat")),
    Setting("classic", "classic", ("ppo", "sat", "notepad", "random"), max_turns=500),
)

# The belief agent of the v2 tasks: the options that were its defaults when they were pinned
# (risk rule by the SAT agent's measured hazard; ``agents.belief``).
_V2_AGENT_OPTIONS = {
    "belief": {
        "info_suggestions": True,
        "risk_accusations": True,
        "refute_strategy": True,
        "exact_candidates": 3,
        "move_discount": 0.05,
        "bits_per_turn": 1.0,
        "risk_model": "sat_hazard",
        "hazard_per_answer": 0.02,  # read by risk_model "evidence" only
        "hazard_unrefuted": 0.1,
    }
}

# Released versions: their splits must regenerate to their pinned checksums forever. A change of
# the generator that changes one of their tasks needs a new version.
FROZEN_VERSIONS = ("v1",)
_CHECKSUMS_FILE = DATA / "checksums.json"
CHECKSUMS = {tuple(key.split("/")): value for key, value in json.loads(_CHECKSUMS_FILE.read_text()).items()}

SPLITS = {
    ("v1", "dev"): SplitSpec(
        "v1", "dev", seed=1, num_tasks=500, settings=_V1_SETTINGS, schema="v1", shipped=True
    ),
    ("v1", "test"): SplitSpec("v1", "test", seed=2, num_tasks=10_000, settings=_V1_SETTINGS, schema="v1"),
    ("v2", "dev"): SplitSpec(
        "v2",
        "dev",
        seed=3,
        num_tasks=500,
        settings=_V2_SETTINGS,
        agent_options=_V2_AGENT_OPTIONS,
        shipped=True,
    ),
    ("v2", "test"): SplitSpec(
        "v2", "test", seed=4, num_tasks=10_000, settings=_V2_SETTINGS, agent_options=_V2_AGENT_OPTIONS
    ),
}


def _game_events(
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
    # spawn: the workers start clean instead of forking a process that may hold torch threads
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
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
    played, states = _game_events(
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
        ValueError: naming the file for a file that is not complete gzip of UTF-8 text
            (truncated, corrupt, not gzip), and its line for a line that is not a JSON object.
    """
    tasks = []
    number = 0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                try:
                    task = json.loads(line)
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}:{number} is not JSON: {error}") from error
                if not isinstance(task, dict):
                    raise ValueError(f"{path}:{number} is not a JSON object")
                tasks.append(task)
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(
            f"task file {path} is truncated or corrupt after {number} line(s) "
            f"({type(error).__name__}: {error}); a task file is gzip JSON Lines, one task per line: "
            "regenerate it (python -m agents.reasoning.generate)"
        ) from error
    return tasks


def load_split(version: str, name: str, cache: str | Path | None = None, progress: bool = True) -> list[dict]:
    """The tasks of a split, checked against its pinned checksum.

    A shipped split is read from the package (``SplitSpec.path``); another from
    its copy in ``cache``, or, failing that, generated into ``cache`` (minutes
    for ``test``).

    Args:
        version: ``"v1"`` or ``"v2"``.
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
    if spec.shipped:
        tasks = read_tasks(spec.path())
    elif cached is not None and cached.exists():
        tasks = read_tasks(cached)
    elif cached is not None:
        tasks = list(generate(spec, progress=progress))
        write_tasks(tasks, cached)
    else:
        raise ValueError(f"split {version}/{name} is not shipped and no cache folder was given")
    found = checksum(tasks)
    pinned = CHECKSUMS.get((version, name))
    if found != pinned:
        raise ValueError(
            f"split {version}/{name} has checksum {found}, the pinned one is {pinned}: "
            + _STALE_ADVICE.format(version=version, name=name)
        )
    return tasks


_STALE_ADVICE = (
    "the file was altered, or the generator or an agent of the split's line-ups changed. "
    "A released (frozen) version never changes: a changed generator needs a new version. "
    "An unreleased one follows its agents: regenerate and re-pin it with "
    "`nice -n 10 python -m agents.reasoning.generate --version {version} --split {name} --write` "
    "(see agents/reasoning/generate.py)."
)


def pin(version: str, name: str, digest: str) -> None:
    """Record ``digest`` as the pinned checksum of split ``version/name`` in ``data/checksums.json``.

    Raises:
        ValueError: for a frozen version whose pinned checksum differs (frozen splits never change).
    """
    if version in FROZEN_VERSIONS and CHECKSUMS.get((version, name)) != digest:
        raise ValueError(
            f"{version} is frozen: its split {name} must regenerate to {CHECKSUMS.get((version, name))}, "
            f"got {digest}. A changed generator needs a new version."
        )
    CHECKSUMS[version, name] = digest
    pinned = {f"{v}/{n}": d for (v, n), d in sorted(CHECKSUMS.items())}
    _CHECKSUMS_FILE.write_text(json.dumps(pinned, indent=1) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.reasoning.generate --version v2 --split dev [--write]``: regenerate, check, re-pin."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.reasoning.generate",
        description="Regenerate a reasoning-benchmark split; check it against its pinned checksum, "
        "or (--write) write it and pin its checksum. Run it under `nice -n 10` on a shared machine.",
    )
    parser.add_argument("--version", required=True, help=f"one of {sorted({v for v, _ in SPLITS})}")
    parser.add_argument("--split", required=True, help="dev or test")
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the split (dev: into the package; test: into --cache) and pin its checksum",
    )
    parser.add_argument("--cache", default="outputs/reasoning/splits", help="folder of splits not shipped")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games at once")
    args = parser.parse_args(argv)
    if (args.version, args.split) not in SPLITS:
        parser.error(f"unknown split {args.version}/{args.split}; splits are {sorted(SPLITS)}")
    spec = SPLITS[args.version, args.split]
    start = time.perf_counter()
    tasks = list(generate(spec, workers=args.workers))
    digest = checksum(tasks)
    pinned = CHECKSUMS.get((args.version, args.split))
    print(
        f"{args.version}/{args.split}: {len(tasks)} tasks in {time.perf_counter() - start:.0f} s, sha256 {digest}"
    )
    if not args.write:
        print("matches the pinned checksum" if digest == pinned else f"DIFFERS from the pinned {pinned}")
        return 0 if digest == pinned else 1
    pin(args.version, args.split, digest)
    path = spec.path() if spec.shipped else Path(args.cache) / args.version / f"{args.split}.jsonl.gz"
    write_tasks(tasks, path)
    print(f"wrote {path}; pinned in {_CHECKSUMS_FILE}" + ("" if digest == pinned else f" (was {pinned})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
