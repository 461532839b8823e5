"""The tournament's bar keeps its clock running while no chunk finishes (``experiments/common/progress_clock.py``)."""

from __future__ import annotations

import contextlib
import io
import time

import pytest
from tqdm import tqdm

from cluedo_env.core import compile_notice
from experiments.common.progress_clock import COMPILING, ticking


def waiting_bar(monkeypatch, clock: bool, compiling: bool, first_games: bool = False) -> str:
    """What a bar at 0 of 10 writes in 0.4 s of waiting (with ``ticking`` every 0.05 s, or not),
    then, with ``first_games``, in 0.2 s after its first update."""
    monkeypatch.setattr(compile_notice, "compiling_here", lambda: compiling)
    stream = io.StringIO()
    bar = tqdm(total=10, file=stream, desc="tournament", mininterval=0, ascii=True)
    with ticking(bar, every=0.05) if clock else contextlib.nullcontext():
        time.sleep(0.4)
        if first_games:
            bar.update(1)
            time.sleep(0.2)
    bar.close()
    return stream.getvalue()


def test_without_the_clock_a_waiting_bar_says_nothing_new(monkeypatch):  # the control: what the clock fixes
    assert waiting_bar(monkeypatch, clock=False, compiling=True).count("\r") <= 2  # drawn, then closed


@pytest.mark.parametrize("compiling", [True, False], ids=["cold-cache", "warm-cache"])
def test_the_clock_redraws_a_waiting_bar_and_says_why_only_on_a_cold_cache(monkeypatch, compiling):
    written = waiting_bar(monkeypatch, clock=True, compiling=compiling)
    assert written.count("\r") >= 4
    assert (COMPILING in written) == compiling


def test_the_first_games_clear_the_reason(monkeypatch):
    written = waiting_bar(monkeypatch, clock=True, compiling=True, first_games=True)
    assert COMPILING in written.split("1/10", 1)[0]
    assert COMPILING not in written.rsplit("1/10", 1)[1]
