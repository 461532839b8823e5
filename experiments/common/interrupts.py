"""Ctrl-C in a command that keeps its results as they come (``expert_dataset``, ``reasoning_bench``): it
stops at once, with one line saying what is kept and the command that goes on from it, and exit status
130 (``INTERRUPTED``), as the tournament does (``experiments.tournament``).

``pool_results`` (and ``run_in_pool``) plays calls in a ``worker_pool`` whose workers ignore Ctrl-C (a terminal sends it to every
process of the command): this process stops them, the calls under way and the calls not started alike,
instead of waiting for every queued call to end (``ProcessPoolExecutor.shutdown`` waits for them); the
tournament's local pool is the same (``experiments.common.backends.run_local``).
``hydra_command`` is the command line of a Hydra command, for the line to give.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import as_completed
from typing import Any

from experiments.common.extras import worker_pool
from experiments.common.url_credentials import hide_url_credentials

__all__ = ["INTERRUPTED", "hydra_command", "pool_results", "run_in_pool"]

INTERRUPTED = 128 + signal.SIGINT  # a command's exit status at Ctrl-C: 130, as a shell gives it


def pool_results(
    workers: int, call: Callable[..., Any], arguments: Sequence[tuple], *, quiet_compile: bool = False
) -> Iterator[Any]:
    """``call(*a)`` for each ``a`` of ``arguments`` in a ``worker_pool`` of at most ``workers`` processes;
    yields each result as it comes (in the order the calls end). ``quiet_compile``: the workers leave the
    notice of a first compilation to this process (``worker_pool``).

    The workers ignore Ctrl-C. Where this process stops (Ctrl-C, SIGTERM turned into an exception, an
    exception of a call, or the caller's: closing the generator), the workers are stopped at once
    (terminated) and the calls not started are cancelled, then the exception goes on: what a call had
    written whole stays, and what it was writing is its own to leave whole or not at all. Unlike
    ``multiprocessing.Pool``, which waits for ever for the call of a worker that died, the executor fails
    every pending call. SIGINT and SIGTERM are blocked while the workers start (the workers inherit the
    mask): a worker cannot get Ctrl-C before it ignores it, nor this process stop halfway through writing
    a worker's start-up data (the worker would fail reading it: "EOFError: Ran out of input"); this process
    gets either signal once the mask is restored, a worker gets SIGTERM once its start unblocks it.

    Raises:
        BrokenProcessPool: a worker died (killed, out of memory).
    """
    if not arguments:
        return
    pool = worker_pool(min(workers, len(arguments)), ignore_interrupt=True, quiet_compile=quiet_compile)
    finished = False
    try:
        blocked = hasattr(signal, "pthread_sigmask")  # (POSIX; Windows has no signal masks)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) if blocked else None
        try:
            futures = [pool.submit(call, *given) for given in arguments]
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for future in as_completed(futures):
            yield future.result()
        finished = True
    finally:
        if not finished:  # stop the calls under way instead of waiting for them
            for process in (pool._processes or {}).values():  # no public way to stop them before 3.14
                process.terminate()
        # Waiting joins the pool's manager thread. Left running, it could close its wake-up pipe while
        # the interpreter's exit writes to it (CPython 3.11: "OSError: Bad file descriptor" at SIGTERM).
        pool.shutdown(wait=True, cancel_futures=True)


def run_in_pool(
    workers: int, call: Callable[..., Any], arguments: Sequence[tuple], done: Callable[[Any], None]
) -> None:
    """``pool_results``, each result given to ``done`` as it comes; an exception of ``done`` stops the
    workers as any other does.

    Raises:
        BrokenProcessPool: a worker died (killed, out of memory).
    """
    results = pool_results(workers, call, arguments)
    try:
        for result in results:
            done(result)
    finally:
        results.close()


def hydra_command(module: str, config_name: str, leave_out: Iterable[str] = ()) -> str:
    """The command line that runs Hydra command ``module`` (``python -m <module>``) as it was run: the
    config folders and config the command line named (``--config-dir``, ``--config-name`` where not
    ``config_name``, the command's own) and its overrides but those of the keys of ``leave_out``
    (``resume``: a run that went on from nothing would start over), each quoted for a shell, a URL's
    credentials hidden (``hide_url_credentials``). Inside the command's ``@hydra.main`` function only."""
    from hydra.core.hydra_config import HydraConfig

    hydra_config = HydraConfig.get()
    skipped = set(leave_out)
    overrides = [o for o in hydra_config.overrides.task if o.partition("=")[0].lstrip("+~") not in skipped]
    folders = [s.path for s in hydra_config.runtime.config_sources if s.provider == "command-line"]
    options = [word for folder in folders for word in ("--config-dir", folder)]
    if hydra_config.job.config_name != config_name:
        options += ["--config-name", hydra_config.job.config_name]
    words = ["python", "-m", module, *options, *overrides]
    return hide_url_credentials(" ".join(shlex.quote(word) for word in words))
