"""Which of numba's threading layers runs the compiled rules over the cores: TBB where it is installed,
else numba's built-in workqueue.

A parallel step hands each thread one run of games (``game.PARALLEL_BATCH``). Before any work, a
call costs what the layer takes to wake its threads: about 4 µs with TBB, about 100 µs with the
workqueue, which goes through the kernel at every call and so costs more than half a step of
1,024 games on two cores. numba's OpenMP layer is never chosen: it kills a process forked after a
parallel call (``multiprocessing``'s default start on Linux) and spins its idle threads on shared
cores.

pip installs TBB's library (the ``tbb`` package, a dependency where it has wheels) beside the
environment's Python (``<prefix>/lib``), where the system's loader, which numba asks, does not
look; ``choose`` loads it by its path first. A layer chosen by the user (``NUMBA_THREADING_LAYER``)
is kept.
"""

from __future__ import annotations

import ctypes
import os
from importlib import metadata

import numba

__all__ = ["choose", "load_tbb"]

TBB_LIBRARIES = ("libtbb.so.12", "libtbb.12.dylib", "tbb12.dll")  # the names numba loads


def load_tbb() -> bool:
    """Load the library of pip's ``tbb`` package, if installed, so that numba finds it; whether it loaded."""
    try:
        files = metadata.files("tbb") or []
    except metadata.PackageNotFoundError:
        return False
    for file in files:
        if file.name in TBB_LIBRARIES:
            try:
                ctypes.CDLL(str(file.locate()), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                return False
            return True
    return False


def choose() -> None:
    """Set numba's threading layer before its first parallel call: TBB if it loads, else workqueue
    (numba falls back to the next of its priority list when a layer cannot be loaded); the user's
    ``NUMBA_THREADING_LAYER``, when set, is kept."""
    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    load_tbb()
    numba.config.THREADING_LAYER_PRIORITY = ["tbb", "workqueue", "omp"]  # (numba wants all three)
    numba.config.THREADING_LAYER = "default"  # the first of the priority list that loads
