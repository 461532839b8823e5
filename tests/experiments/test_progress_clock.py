"""The tournament's bar keeps its clock running while no chunk finishes (``experiments/common/progress_clock.py``)."""

from __future__ import annotations

import io
import time

from tqdm import tqdm

from cluedo_env.core import compile_notice
from experiments.common.progress_clock import COMPILING, ticking


def bar_on(stream: io.StringIO) -> tqdm:
    return tqdm(total=10, file=stream, desc="tournament", mininterval=0, ascii=True)


def test_without_the_clock_a_waiting_bar_says_nothing_new():  # the control: what the clock fixes
    stream = io.StringIO()
    bar = bar_on(stream)
    drawn = stream.getvalue()
    time.sleep(0.3)
    assert stream.getvalue() == drawn
    bar.close()


def test_the_clock_redraws_a_waiting_bar_and_says_the_workers_compile_on_a_cold_cache(monkeypatch):
    monkeypatch.setattr(compile_notice, "compiling_here", lambda: True)
    stream = io.StringIO()
    bar = bar_on(stream)
    with ticking(bar, every=0.05):
        time.sleep(0.4)
        waiting = stream.getvalue()
        assert waiting.count("\r") >= 4 and COMPILING in waiting
        bar.update(1)  # the first games: the reason is gone
        time.sleep(0.2)
    after = stream.getvalue()[len(waiting) :]
    assert "1/10" in after and COMPILING not in after.rsplit("1/10", 1)[1]
    bar.close()


def test_on_a_warm_cache_the_clock_only_redraws(monkeypatch):
    monkeypatch.setattr(compile_notice, "compiling_here", lambda: False)
    stream = io.StringIO()
    bar = bar_on(stream)
    with ticking(bar, every=0.05):
        time.sleep(0.3)
    assert stream.getvalue().count("\r") >= 3 and COMPILING not in stream.getvalue()
    bar.close()
