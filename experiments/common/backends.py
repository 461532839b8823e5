"""Where a tournament's chunks are played: in this process, a local process pool, or Ray.

Both backends play the same chunks (``experiments.common.chunks``) and yield each chunk's records
as it finishes, so the games are the same whichever plays them; only the calling process writes
results.

- ``run_local``: a process pool of ``workers`` processes (``workers=0`` plays in this process).
- ``run_ray``: one Ray task per chunk, joining a cluster (``address``) or starting Ray here; the
  project's code travels with the job (``ray_code_env``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from experiments.common.chunks import AgentFailed, Chunk, Job, play_chunk
from experiments.common.code_revision import REPO_ROOT
from experiments.common.extras import WorkerLost
from experiments.common.interrupts import pool_results
from experiments.common.value_checks import ConfigError

__all__ = ["RAY_EXCLUDES", "ray_code_env", "run_local", "run_ray"]

# Shipped to a remote Ray cluster with the code (working_dir) minus these.
RAY_EXCLUDES = [".git", ".venv", "results", "outputs", "multirun", "runs", "**/__pycache__"]


def run_local(job: Job, chunks: list[Chunk], workers: int) -> Iterator[list[dict]]:
    """Play chunks in this process (``workers=0``) or a pool of processes; yields each chunk's records.

    Raises:
        WorkerLost: A pool process died; its chunk (and those not yet finished) were not played.
        AgentFailed: An agent failed in a chunk (``play_chunk``); the chunks under way are stopped.
    """
    if workers == 0:
        for chunk in chunks:
            yield play_chunk(job, chunk)
        return
    # Spawned workers start clean, as on Ray, and exit when this process is gone, even killed; Ctrl-C
    # reaches every process of the terminal: the workers ignore it and this process stops them
    # (pool_results); they leave the notice of a first compilation to this process.
    try:
        yield from pool_results(workers, play_chunk, [(job, chunk) for chunk in chunks], quiet_compile=True)
    except BrokenProcessPool as error:
        raise WorkerLost(f"a worker process of the pool died ({error})") from error


def ray_code_env(root: Path) -> dict:
    """The Ray ``runtime_env`` that ships this project's code to a cluster's nodes.

    From a checkout, its folder (``working_dir``) minus ``RAY_EXCLUDES``; from an installed
    package (``root`` is then site-packages), the project's three packages (``py_modules``).
    """
    if (root / "pyproject.toml").is_file():
        return {"working_dir": str(root), "excludes": RAY_EXCLUDES}
    import agents
    import cluedo_env
    import experiments

    return {"py_modules": [cluedo_env, agents, experiments]}


def run_ray(job: Job, chunks: list[Chunk], address: str | None, workers: int) -> Iterator[list[dict]]:
    """Play chunks as Ray tasks (joining ``address`` or starting Ray here); yields each chunk's records.

    Raises:
        AgentFailed: An agent failed in a chunk (``play_chunk``), as the local pool raises it.
    """
    import ray

    started = False
    if not ray.is_initialized():
        if address:
            # The cluster's nodes get this project's code with the job (they need its dependencies).
            try:
                ray.init(address=address, runtime_env=ray_code_env(REPO_ROOT), log_to_driver=False)
            except ConnectionError as error:  # no cluster there: the user's to fix, said in a line
                raise ConfigError(
                    f"ray_address={address!r}: no Ray cluster answers there ({error})"
                ) from error
        else:
            # Local workers import this project from the repository, like the driver does.
            path = os.environ.get("PYTHONPATH", "")
            os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), path) if p)
            ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        play = ray.remote(num_cpus=1)(play_chunk)
        job_ref = ray.put(job)
        pending = [play.remote(job_ref, chunk) for chunk in chunks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    records = ray.get(ref)
                except ray.exceptions.RayTaskError as error:
                    if isinstance(error.cause, AgentFailed):  # said in its one line, as from the pool
                        raise error.cause from None
                    raise
                yield records
    finally:
        if started:
            ray.shutdown()
