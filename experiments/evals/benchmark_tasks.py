"""The tasks of a reasoning-benchmark split for a harness: all, or a sample drawn as the benchmark runner draws it."""

from __future__ import annotations

from functools import cache
from typing import Any

from cluedo_env.reasoning.splits import SPLITS, load_split, sample_tasks

__all__ = ["DEFAULT_CACHE", "split_key", "split_tasks"]

DEFAULT_CACHE = "outputs/reasoning/splits"  # experiments.reasoning_bench's default


@cache
def _split(version: str, split: str, cache_dir: str) -> tuple[dict[str, Any], ...]:
    if (version, split) not in SPLITS:
        raise ValueError(f"no split {version}/{split}; the splits are {sorted(SPLITS)}")
    from experiments.common.task_generation import generate  # only a split that is not shipped needs it

    return tuple(load_split(version, split, cache=cache_dir, progress=False, generate=generate))


def split_tasks(
    version: str = "v2",
    split: str = "dev",
    limit: int | None = None,
    seed: int = 0,
    cache_dir: str = DEFAULT_CACHE,
) -> list[dict[str, Any]]:
    """The tasks of a split (checked against its pinned checksum; one not shipped is generated into
    ``cache_dir`` on first use), or ``limit`` of them drawn as ``python -m experiments.reasoning_bench
    limit=N seed=S`` draws them (``sample_tasks``: stratified by tier).

    Raises:
        ValueError: an unknown split, or a ``limit`` that is not a positive integer.
    """
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
    tasks = list(_split(version, split, cache_dir))
    return tasks if limit is None else sample_tasks(tasks, limit, seed=seed)


@cache
def split_key(version: str, split: str, cache_dir: str = DEFAULT_CACHE) -> dict[str, dict[str, Any]]:
    """The tasks of a split by id: the answer key a harness's scorer reads."""
    return {item["id"]: item for item in _split(version, split, cache_dir)}
