"""What the commands share before any extra is imported: the extra that installs a missing
module, named in a clear error, and the processes of their worker pools.

The library (``cluedo_env``, ``agents``) needs only the core dependencies; the commands of
``experiments`` need extras (in a checkout, ``pip install -e ".[experiments,train]"``). This module uses
the standard library only: it runs where an extra's import has just failed.

A pool's worker (``watch_parent``) exits when the command that started it is gone, killed
or not: a killed parent can no longer stop its workers, and they would wait for work forever.
``worker_pool`` starts such workers as new processes (spawn), not copies of the command (fork).
"""

from __future__ import annotations

import multiprocessing
import os
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


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, each started by spawn (a new interpreter that imports what it
    runs) and exiting when this process is gone (``watch_parent``).

    Not by fork, Linux's default: a fork of a process where torch has run (a ``ppo`` agent's model
    loaded) hangs for ever at its first parallel torch operation, waiting on OpenMP threads the fork
    did not copy. The tournament's pool starts its workers the same way
    (``experiments.common.backends``). What a spawned worker runs must be importable: a script that
    starts a pool needs its ``if __name__ == "__main__":`` guard.
    """
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(workers, mp_context=context, initializer=watch_parent, initargs=(os.getpid(),))
