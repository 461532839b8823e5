"""How fast the machine is right now, how many cores this process may use, its memory, and the median of repeated runs."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def machine_probe(calls: int = 100_000) -> float:
    """Microseconds per call of a fixed loop of small numpy calls: how fast the machine is right now.

    On a shared machine this drifts (2x within an hour here); figures of runs taken at different
    probe readings are not comparable, ratios measured side by side in one run are.
    """
    array = np.zeros(10)
    start = time.perf_counter()
    for _ in range(calls):
        np.add(array, 1.0, out=array)
    return (time.perf_counter() - start) / calls * 1e6


def cpus() -> int:

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


def memory_mib(field: str) -> float | None:
    """``VmRSS`` (resident now) or ``VmHWM`` (peak resident) of this process in MiB, from /proc;
    elsewhere the peak from ``resource`` for both (its ``ru_maxrss`` is in KiB, in bytes on macOS);
    None where Python has no ``resource`` module either (Windows): not measured."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import resource
    except ModuleNotFoundError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024**2 if sys.platform == "darwin" else peak / 1024


def reset_peak_memory() -> None:
    """Resets this process's peak resident size (Linux ``clear_refs``), where allowed."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")


def median_of(repeats: int, run: Callable[[int], dict]) -> dict:
    """Run ``repeats`` times and keep the median of every numeric figure."""
    results = [run(r) for r in range(repeats)]
    return {key: float(np.median([r[key] for r in results])) for key in results[0]}
