"""A progress bar that keeps its clock running while nothing finishes, so a long wait is never silent.

tqdm redraws a bar only when it is updated. A tournament's bar is updated when a chunk of games
finishes, and the first chunk of a first run comes only after the workers have compiled the rules
(about half a minute on 2 cores; the workers stay quiet, ``cluedo_env.core.compile_notice``): the bar
would sit unchanged at 0 for that long. ``ticking`` redraws it every few seconds (its elapsed time
moves) and, before the first game on a cold cache, says why it waits.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm

from cluedo_env.core import compile_notice

__all__ = ["COMPILING", "ticking"]

COMPILING = "the workers are compiling the rules (a first run)"


@contextmanager
def ticking(bar: tqdm, every: float = 5.0) -> Iterator[None]:
    """Redraw ``bar`` every ``every`` seconds while the body runs.

    While the bar is at 0 and this process found numba's cache cold (``compile_notice.compiling_here``:
    the workers are compiling too), its postfix says so; the first update clears it.
    """
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(every):
            waiting = bar.n == 0 and compile_notice.compiling_here()
            if waiting or bar.postfix:
                bar.set_postfix_str(COMPILING if waiting else "", refresh=False)
            bar.refresh()

    clock = threading.Thread(target=tick, name="progress-clock", daemon=True)
    clock.start()
    try:
        yield
    finally:
        stop.set()
        clock.join()
