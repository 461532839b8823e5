"""What the core asks of numba before its first compiled function is defined: compiling on, and a
folder to cache the compiled rules in. Importing this module makes both checks; ``cluedo_env.core``
imports it first.

The core cannot run uncompiled: its views of the state (``views.py``) and its cache check
(``batched.check_cache``) are numba intrinsics, which have no pure-Python form. ``NUMBA_DISABLE_JIT=1``
is refused at import, in one line, instead of failing deep inside the first step.

numba caches a function beside its source (``__pycache__``) or, where that folder cannot be written,
in the user's cache folder (``~/.cache/numba``); where neither can be made (a read-only install run by
a user without a writable home, as in some Docker images), numba refuses to define the function at
all. There the core points numba at a new temporary folder, with one line on standard error: the
rules compile at each start (about half a minute) and run as usual. ``NUMBA_CACHE_DIR`` names a
folder that keeps them.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

import numba
from numba.core import caching

__all__ = ["ensure_cache_folder", "refuse_disabled_jit"]


def refuse_disabled_jit() -> None:
    """Raise ``RuntimeError`` (one line) where numba is told not to compile (``NUMBA_DISABLE_JIT``)."""
    if numba.config.DISABLE_JIT:
        raise RuntimeError(
            "cluedo_env.core cannot run with NUMBA_DISABLE_JIT=1: the rules core is only written to be "
            "compiled (its numba intrinsics have no pure-Python form); unset NUMBA_DISABLE_JIT"
        )


def _probe() -> None:
    """A function of the core's folder: numba is asked where it would cache it."""


def has_cache_folder() -> bool:
    """Whether numba finds a folder to cache the core's functions in, as it decides when ``@njit(cache=True)``
    defines one: ``NUMBA_CACHE_DIR``, the core's ``__pycache__``, the user's cache folder."""
    try:
        caching.FunctionCache(_probe)
    except RuntimeError:  # numba's "cannot cache function ...: no locator available for file ..."
        return False
    return True


def ensure_cache_folder(stream=None) -> str | None:
    """Where numba has no folder to cache the core in, set ``NUMBA_CACHE_DIR`` (numba's setting and the
    environment, which worker processes inherit) to a new temporary folder, removed at exit, and say so
    in one line on ``stream`` (standard error). Returns that folder, or ``None`` where numba has one."""
    if has_cache_folder():
        return None
    folder = tempfile.mkdtemp(prefix="cluedo-numba-cache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    tried = "the package's __pycache__, the user's cache folder" + (
        f", NUMBA_CACHE_DIR={numba.config.CACHE_DIR}" if numba.config.CACHE_DIR else ""
    )
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"] = folder
    print(
        f"cluedo_env: warning: numba has no folder it can write to cache the compiled rules ({tried}): "
        f"they are compiled into {folder} for this run only; set NUMBA_CACHE_DIR to a folder you can write "
        "to keep them",
        file=stream or sys.stderr,
        flush=True,
    )
    return folder


refuse_disabled_jit()
ensure_cache_folder()
