"""The ``startup`` section: a fresh process's import and first steps, and the Quickstart's main command
(the default tournament, made small), with numba's cache empty (cold) and filled (warm)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def first_steps(core, batch: int) -> None:
    """The core calls of an env's and a training loop's first run, which ``measure_startup``'s fresh
    process makes (given the ``cluedo_env.core`` module, so that the process imports nothing more)."""
    import numpy as np

    config = core.GameConfig()
    for games in (1, 2, max(batch, core.game.PARALLEL_BATCH)):
        state = core.init(config, list(range(games)))
        mask = core.legal_action_mask(state)
        rows = np.empty((games, core.observation_size(config)), dtype=np.float32)
        for _ in range(3):
            core.observe(state, 0, out=rows)  # seat 0's view of every game, into the array given
            core.step(state, mask.argmax(axis=1), check=False, mask=mask)
        live = np.flatnonzero(~state.done)  # (a game may have ended on an accusation)
        core.observe(state, state.current_player[live], games=live)  # the deciding players', a new array
        core.step(state, mask.argmax(axis=1))
        core.reset(state, [0], [games], mask=mask)


def measure_startup(batch: int, cache_dir: str) -> dict:
    """Seconds a fresh process takes to import the core and to play its first steps, with numba's cache in
    ``cache_dir`` (``NUMBA_CACHE_DIR``).

    The first steps make the core calls of an env's and of a training loop's first run (``first_steps``):
    at a batch of one game (the single-game step), of two (the batched step) and of ``batch`` games, at
    least ``core.game.PARALLEL_BATCH`` (the parallel step, masks and observations): ``init``,
    ``legal_action_mask``, ``observe`` into a given array and into a new one, ``step`` with the mask kept
    (``check=False``) and checked (its default), and ``reset`` with the mask kept. With an empty folder
    all of it is compiled (a cold start, as on a first install); run again on the same folder, the
    compiled code is loaded from it (a warm start, as every later run). The seer's observations (an env
    option) and the search agents' compiled playouts (``core.play_out``) are compiled on their first use.
    """

    script = f"""
import json, time
start = time.perf_counter()
from cluedo_env import core
imported = time.perf_counter()
{inspect.getsource(first_steps)}
first_steps(core, {batch})
print(json.dumps({{"import_s": imported - start, "first_steps_s": time.perf_counter() - imported}}))
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    return {**figures, "process_s": time.perf_counter() - start}


# The Quickstart's main command with the default line-up and its two workers, made small: the cold
# start's extra seconds over the warm one are the workers' compilation of what the tournament uses.
MAIN_COMMAND = (
    "-m",
    "experiments.tournament",
    "games_per_lineup=8",
    "batch_size=4",
    "plots=false",
    "progress=false",
)


def measure_main_command(cache_dir: str | None) -> dict:
    """Seconds a fresh process takes to run ``MAIN_COMMAND`` (writing into a temporary folder), with
    numba's cache in ``cache_dir`` (``None``: where this process's environment says)."""
    with tempfile.TemporaryDirectory(prefix="tournament-") as output_dir:
        env = dict(os.environ) if cache_dir is None else {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, *MAIN_COMMAND, f"output_dir={output_dir}"],
            env=env,
            capture_output=True,
            check=True,
        )
        return {"process_s": time.perf_counter() - start}


def rows(cfg: BenchmarkConfig) -> list[dict]:
    rows = []
    for r in range(cfg.repeats):
        for what in ("core", "main command"):
            with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache_dir:
                for start in ("cold", "warm"):  # an empty cache, then the same cache filled
                    if what == "core":
                        figures = measure_startup(max(cfg.batch_sizes), cache_dir)
                    else:
                        figures = measure_main_command(cache_dir)
                    rows.append({"what": what, "start": start, "run": r, **figures})
    return rows


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print("\nstart-up of a fresh process (numba cache empty: cold; filled by the cold run: warm)")
    core_rows = [row for row in rows if row.get("what", "core") == "core"]
    for start in ("cold", "warm"):
        runs = [row for row in core_rows if row["start"] == start]
        print(
            f"  {start}: import {np.median([r['import_s'] for r in runs]):.2f} s, first steps "
            f"{np.median([r['first_steps_s'] for r in runs]):.2f} s, whole process "
            f"{np.median([r['process_s'] for r in runs]):.2f} s (median of {len(runs)})"
        )
    main = {
        start: [
            row["process_s"] for row in rows if row.get("what") == "main command" and row["start"] == start
        ]
        for start in ("cold", "warm")
    }
    if main["cold"]:
        cold, warm = np.median(main["cold"]), np.median(main["warm"])
        print(
            f"  the main command ({' '.join(MAIN_COMMAND[1:])}): cold {cold:.1f} s, warm {warm:.1f} s, "
            f"so {cold - warm:.1f} s of compilation (median of {len(main['cold'])})"
        )
