"""What the commands share before any extra is imported: the extra that installs a missing
module, named in a clear error, and the processes of their worker pools.

The library (``cluedo_env``, ``agents``) needs only the core dependencies; the commands of
``experiments`` need extras (in a checkout, ``pip install -e ".[experiments,train]"``). This module uses
the standard library only: it runs where an extra's import has just failed.

``worker_pool`` builds the commands' process pools (the tournament's, the expert dataset's, the
reasoning splits'; ``experiments.imitate`` forks its own): its workers are new processes (spawn), not
copies of the command (fork), and each exits when the command that started it is gone, killed or not
(``watch_parent``): a killed parent can no longer stop its workers, and they would wait for work forever.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cluedo_env.optional_modules import missing_extra_text

__all__ = ["PARENT_POLL_S", "WorkerLost", "missing_extra", "watch_parent", "worker_pool"]

# Seconds between a worker's checks that its parent is alive.
PARENT_POLL_S = 0.5


def missing_extra(error: ModuleNotFoundError, command: bool = False) -> BaseException:
    """``error`` restated with the extra that installs the missing module and the command to install it.

    With ``command`` (the module runs as a command: ``__name__ == "__main__"``), or under an installed
    ``cluedo-*`` command, a ``SystemExit`` whose message is that one line: Python prints it, without a
    traceback, and exits with status 1. An import from a user's own code gets the
    ``ModuleNotFoundError``, which it can catch.
    An error about a module that no extra provides is returned unchanged.
    """
    text = missing_extra_text(error.name)
    if text is None:
        return error
    named = ModuleNotFoundError(text, name=error.name)
    command = command or Path(sys.argv[0]).name.startswith("cluedo-")  # an installed command's script
    return SystemExit(f"ModuleNotFoundError: {named}") if command else named


class WorkerLost(RuntimeError):
    """A worker process died (killed, out of memory) while playing; the work written so far is kept."""


def watch_parent(parent: int) -> None:
    """Make this process (a pool's worker) exit when process ``parent`` is gone.

    A thread checks every ``PARENT_POLL_S`` seconds that this process's parent is still
    ``parent``: the parent's death (SIGKILL included) reparents the worker, and it exits at once.
    A pool's ``initializer``, with ``initargs=(os.getpid(),)`` (a parent that died before the
    worker started is noticed too). POSIX: Windows keeps a dead parent's id.
    """
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_exit_without_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _exit_without_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)  # nobody is left to take this worker's results


def worker_pool(
    workers: int, *, ignore_interrupt: bool = False, quiet_compile: bool = False
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, each started by spawn (a new interpreter that imports what it
    runs) and exiting when this process is gone (``watch_parent``).

    Not by fork, Linux's default: a fork of a process where torch has run (a ``ppo`` agent's model
    loaded) hangs for ever at its first parallel torch operation, waiting on OpenMP threads the fork
    did not copy. What a spawned worker runs must be importable: a script that starts a pool needs its
    ``if __name__ == "__main__":`` guard. A worker takes SIGTERM even where this process blocked it
    while the worker started (the worker inherits the mask).

    Args:
        workers: The number of processes, an int >= 1.
        ignore_interrupt: The workers ignore Ctrl-C (SIGINT, which a terminal sends to every process
            of the command): this process stops them (the tournament's ``run_local``).
        quiet_compile: The workers print no notice when they compile the rules core
            (``cluedo_env.core.compile_notice``): this process says it.

    Raises:
        ValueError: ``workers`` is not an int >= 1.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    context = multiprocessing.get_context("spawn")
    setup = (os.getpid(), ignore_interrupt, quiet_compile)
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=setup)


def _start_worker(parent: int, ignore_interrupt: bool, quiet_compile: bool) -> None:
    """A ``worker_pool`` worker's start (its ``initializer``): see ``worker_pool``."""
    if ignore_interrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # (POSIX; Windows has no signal masks)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    if quiet_compile:  # (imported here: the worker loads the core anyway, this module needs no numba)
        from cluedo_env.core import compile_notice

        os.environ[compile_notice.QUIET] = "1"
    watch_parent(parent)
