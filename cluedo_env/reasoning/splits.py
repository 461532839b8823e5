"""The reasoning benchmark's splits: what each one is (``SplitSpec``), their pinned checksums, and their files.

A split is a function of its ``SplitSpec`` only (``experiments.common.task_generation``
plays it): batch ``k`` plays ``games_per_batch`` games of setting
``settings[k % len(settings)]`` (rules and line-up) with deal seeds
``seed * SEED_STRIDE + k * games_per_batch + b`` and the line-up rotated by ``k``.
``checksum`` is the SHA-256 of the canonical JSON of the tasks, one line each, so
two runs agree exactly when their tasks do.

The pinned checksums live in ``data/checksums.json``. ``v1`` is frozen: its
splits must regenerate to their checksums forever. ``v2`` follows its agents
until it is released; ``python -m experiments.reasoning_splits`` regenerates,
checks and re-pins a split. Task files are gzip JSON Lines: reading one executes nothing, and
every task of a file that is not a pinned split's is checked (``read_tasks``, ``task_check.check_task``).
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.reasoning.task_check import check_task
from cluedo_env.whole_files import whole_file

__all__ = [
    "CHECKSUMS",
    "FROZEN_VERSIONS",
    "SEED_STRIDE",
    "SPLITS",
    "Setting",
    "SplitSpec",
    "checksum",
    "load_split",
    "pin",
    "read_tasks",
    "sample_tasks",
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
        schema: The task schema (``cluedo_env.reasoning.tasks``): ``"v1"`` or ``"v2"``.
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
        """Where a shipped split is stored: ``cluedo_env/reasoning/data/<version>/<name>.jsonl.gz``."""
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
# ``play_task_games`` refuses an agent that warns it plays untested rules.
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
# (risk rule by the SAT agent's measured hazard; ``agents.reasoners.belief_agent``).
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
        "suggest_first": False,
        "ignore_naive": False,
        "racer_prior": 1.0,
        "stay_in_best_room": False,
    }
}

# Released versions: their splits must regenerate to their pinned checksums forever. A change of
# the generator that changes one of their tasks needs a new version.
FROZEN_VERSIONS = ("v1",)
CHECKSUMS_FILE = DATA / "checksums.json"
CHECKSUMS = {
    tuple(key.split("/")): value
    for key, value in json.loads(CHECKSUMS_FILE.read_text(encoding="utf-8")).items()
}

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


def _line(task: dict[str, Any]) -> str:
    return json.dumps(task, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def checksum(tasks: Iterable[dict[str, Any]]) -> str:
    """SHA-256 (hex) of the tasks' canonical JSON lines."""
    digest = hashlib.sha256()
    for task in tasks:
        digest.update(_line(task).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def write_tasks(tasks: Sequence[dict[str, Any]], path: str | Path) -> str:
    """Write tasks as gzip JSON Lines (reproducible bytes: no file name or time in the header); the checksum.

    The file is written whole or not at all (``cluedo_env.whole_files``): a run stopped while writing
    leaves ``path`` as it was (a killed one, its temporary file too), and two runs writing at once each
    rename a whole file of their own."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with whole_file(path) as raw, gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0) as out:
        for task in tasks:
            out.write((_line(task) + "\n").encode())
    return checksum(tasks)


# What a task file is read up to, uncompressed (a cached split may come from elsewhere): the shipped
# dev splits' longest line is 23 KB, their 500 tasks 6.9 MB, so a 10,000-task test split about 140 MB.
MAX_LINE_BYTES = 4 * 2**20
MAX_FILE_BYTES = 2**30
_REGENERATE = (
    "regenerate it with python -m experiments.reasoning_splits --version <version> --split <split> --write "
    "(and --cache <folder> for a split not shipped)"
)


def _regenerate(version: str, name: str, cache: str | Path | None) -> str:
    """The command that writes split ``version/name`` afresh (into ``cache`` for a split not shipped)."""
    where = "" if SPLITS[version, name].shipped else f" --cache {cache}"
    return f"python -m experiments.reasoning_splits --version {version} --split {name} --write{where}"


def read_tasks(path: str | Path, regenerate: str = _REGENERATE) -> list[dict[str, Any]]:
    """Tasks from a gzip JSON Lines file (plain JSON: nothing is executed), each checked.

    A line is read up to ``MAX_LINE_BYTES`` and the file up to ``MAX_FILE_BYTES`` (uncompressed): a
    file from elsewhere cannot make the reading hold more. A file whose lines are a pinned split's
    (``checksum`` in ``CHECKSUMS``: the split as generated) is that split; the tasks of any other file
    must each be one ``make_task`` could have written (``cluedo_env.reasoning.task_check.check_task``: its
    names those of its edition, its players and hand sizes those of its config, its history possible,
    its text and answer key saying what its other fields do), each with an id of its own.

    Raises:
        ValueError: naming the file for a file that is not complete gzip of UTF-8 text
            (truncated, corrupt, not gzip) or is longer than ``MAX_FILE_BYTES``, and its line for a
            line that is not a JSON object (nested too deeply included), is longer than ``MAX_LINE_BYTES``,
            or holds a task ``check_task`` refuses (the message names the task, the field and the value)
            or an id a line before it has.
            A damaged or over-long file's message ends with ``regenerate``, what to do about it
            (``load_split`` gives the command that writes the split afresh over the file).
    """
    digest = hashlib.sha256()
    tasks = list(_tasks(path, regenerate, digest))
    if digest.hexdigest() not in CHECKSUMS.values():  # (a pinned split's file holds the canonical lines)
        lines: dict[str, int] = {}
        for number, task in enumerate(tasks, 1):
            try:
                check_task(task)
            except ValueError as error:
                raise ValueError(f"{path}:{number}: {error}") from None
            if task["id"] in lines:
                raise ValueError(
                    f"{path}:{number}: task id {task['id']!r} is that of line {lines[task['id']]} too"
                )
            lines[task["id"]] = number
    return tasks


def _tasks(path: str | Path, regenerate: str = _REGENERATE, digest: Any = None) -> Iterator[dict[str, Any]]:
    """The tasks of ``read_tasks``, one at a time (its errors, as the reading reaches them), unchecked;
    ``digest``, a ``hashlib`` hash, is updated with each line as read."""
    number = size = 0
    try:
        with gzip.open(path, "rb") as lines:
            while line := lines.readline(MAX_LINE_BYTES + 1):
                number += 1
                size += len(line)
                if digest is not None:
                    digest.update(line)
                if len(line) > MAX_LINE_BYTES:
                    raise ValueError(
                        f"{path}:{number} is longer than {MAX_LINE_BYTES} bytes (the shipped splits' longest task "
                        f"is 23 KB): not a split's task file; {regenerate}"
                    )
                if size > MAX_FILE_BYTES:
                    raise ValueError(
                        f"task file {path} is longer than {MAX_FILE_BYTES} bytes uncompressed (the shipped "
                        f"splits' 500 tasks are 6.9 MB): not a split's task file; {regenerate}"
                    )
                text = line.decode("utf-8")
                try:
                    task = json.loads(text)
                except (ValueError, RecursionError) as error:  # (RecursionError: nested too deeply)
                    raise ValueError(f"{path}:{number} is not JSON: {error}") from error
                if not isinstance(task, dict):
                    raise ValueError(f"{path}:{number} is not a JSON object")
                yield task
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(
            f"task file {path} is truncated or corrupt after {number} line(s) "
            f"({type(error).__name__}: {error}); a task file is gzip JSON Lines, one task per line: {regenerate}"
        ) from error


def load_split(
    version: str,
    name: str,
    cache: str | Path | None = None,
    progress: bool = True,
    generate: Callable[..., Iterable[dict[str, Any]]] | None = None,
) -> list[dict]:
    """The tasks of a split, checked against its pinned checksum.

    A shipped split is read from the package (``SplitSpec.path``); another from
    its copy in ``cache``, or, failing that, generated into ``cache`` (minutes
    for ``test``; written whole, ``write_tasks``). A copy in ``cache`` may come from elsewhere: its checksum is
    compared with the pinned one as it is read, one task at a time and no more
    tasks than the split's, before its tasks are kept (``read_tasks``' bounds). A copy that cannot be read
    (cut by a run stopped while writing it, damaged) or holds other tasks is generated again in its place
    where ``generate`` is given, with a ``RuntimeWarning`` naming the file and what is wrong with it.

    Args:
        version: ``"v1"`` or ``"v2"``.
        name: ``"dev"`` or ``"test"``.
        cache: Folder for splits not shipped with the package.
        progress: Show a progress bar while generating.
        generate: What generates a split that is neither shipped nor in ``cache``, or whose copy there
            is refused (``experiments.common.task_generation.generate``: it plays the split's agents).

    Raises:
        ValueError: for an unknown split, tasks whose checksum is not the pinned one, a shipped file
            ``read_tasks`` refuses, or (without ``generate``) a copy in ``cache`` that is refused or missing.
    """
    if (version, name) not in SPLITS:
        raise ValueError(f"unknown split {version}/{name}; splits are {sorted(SPLITS)}")
    spec = SPLITS[version, name]
    cached = None if cache is None else Path(cache) / version / f"{name}.jsonl.gz"
    tasks = None
    if spec.shipped:
        command = _regenerate(version, name, cache)
        tasks = read_tasks(spec.path(), f"regenerate the split, which replaces the file: {command}")
    elif cached is not None and cached.exists():
        tasks = _read_cached(cached, spec, cache, generate is not None)
    if tasks is None and cached is not None and generate is not None:
        tasks = list(generate(spec, progress=progress))
        _check_pinned(tasks, version, name)  # before it is kept: a cached file of other tasks would stay
        write_tasks(tasks, cached)
    elif tasks is None:
        raise ValueError(
            f"split {version}/{name} is not shipped, and is not in the cache folder {cache}: "
            + _generated_by(version, name, cache)
        )
    _check_pinned(tasks, version, name)
    return tasks


def _generated_by(version: str, name: str, cache: str | Path | None) -> str:
    """What writes split ``version/name`` into ``cache`` as its pinned checksum says (re-pinning nothing)."""
    return (
        f"load_split with a generator writes it (python -m experiments.reasoning_bench version={version} "
        f"split={name} cache={cache} does, before it scores)"
    )


def _read_cached(path: Path, spec: SplitSpec, cache: str | Path, regenerate: bool) -> list[dict] | None:
    """The tasks of ``spec``'s copy at ``path``, checked against the pinned checksum as they are read (one
    task held at a time, and no more than the split's: other tasks are refused before they are kept).

    A copy that cannot be read or holds other tasks: None where ``regenerate`` (the caller generates the
    split over it), with a one-line ``RuntimeWarning`` naming the file; else ``ValueError`` naming it and
    what writes the split again."""
    again = (
        "the split is generated again in its place"
        if regenerate
        else f"remove it: {_generated_by(spec.version, spec.name, cache)}"
    )
    try:
        _check_pinned(itertools.islice(_tasks(path, again), spec.num_tasks + 1), spec.version, spec.name,
                      f"{path} holds other tasks (altered, or written by other code): {again}")  # fmt: skip
        return read_tasks(path, again)
    except ValueError as error:
        if not regenerate:
            raise
        warnings.warn(str(error), RuntimeWarning, stacklevel=3)
        return None


def _check_pinned(tasks: Iterable[dict], version: str, name: str, advice: str | None = None) -> None:
    """Raise ``ValueError`` where the tasks' checksum is not the pinned one of split ``version/name``
    (``advice``, what to do, by default ``_STALE_ADVICE``'s)."""
    found = checksum(tasks)
    pinned = CHECKSUMS.get((version, name))
    if found != pinned:
        raise ValueError(
            f"split {version}/{name} has checksum {found}, the pinned one is {pinned}: "
            + (advice or _STALE_ADVICE.format(version=version, name=name))
        )


_STALE_ADVICE = (
    "the file was altered, or the generator or an agent of the split's line-ups changed. "
    "A released (frozen) version never changes: a changed generator needs a new version. "
    "An unreleased one follows its agents: regenerate and re-pin it with "
    "`nice -n 10 python -m experiments.reasoning_splits --version {version} --split {name} --write` "
    "(see experiments/reasoning_splits.py)."
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
    CHECKSUMS_FILE.write_text(json.dumps(pinned, indent=1) + "\n", encoding="utf-8")


def sample_tasks(tasks: Sequence[dict], n: int, seed: int = 0) -> list[dict]:
    """``n`` of ``tasks`` drawn without replacement, stratified by tier, in their original order.

    Each tier gets its share of ``n`` (largest remainders, ties to the larger tier), so a small run
    has the split's mix of tiers rather than its first tasks' (the splits are sorted by game).
    ``n`` at or above ``len(tasks)`` gives every task.

    Raises:
        ValueError: ``n`` is not a positive integer.
    """
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if n >= len(tasks):
        return list(tasks)
    tiers = sorted({task["tier"] for task in tasks})
    members = {tier: [k for k, task in enumerate(tasks) if task["tier"] == tier] for tier in tiers}
    quota = {tier: n * len(members[tier]) / len(tasks) for tier in tiers}
    counts = {tier: int(quota[tier]) for tier in tiers}
    by_remainder = sorted(tiers, key=lambda t: (quota[t] - counts[t], len(members[t])), reverse=True)
    for tier in by_remainder[: n - sum(counts.values())]:
        counts[tier] += 1
    rng = np.random.default_rng(seed)
    chosen = [k for tier in tiers for k in rng.choice(members[tier], counts[tier], replace=False).tolist()]
    return [tasks[k] for k in sorted(chosen)]
