"""A terminal that cannot show every character (``PYTHONIOENCODING=ascii``; under ``LANG=C`` Python itself writes UTF-8): the commands
show "?" for one, as they go on, instead of stopping.

``python -m experiments.play --preset fr_1996`` died with a ``UnicodeEncodeError`` traceback after the
games (its story names the "Révérend Olive"); ``python -m cluedo_env.replay`` printed one error line
("'ascii' codec can't encode character") instead of the transcript. A person at such a terminal can
now play and read the story, the names spelt with a "?".
"""

from __future__ import annotations

import io
import sys

from cluedo_env import replay
from experiments import play


def ascii_terminal(monkeypatch) -> io.TextIOWrapper:
    """Standard output as a terminal whose encoding is ASCII, strict as Python makes it."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    return stream


def shown(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("ascii")


def test_a_game_and_its_replay_are_told_on_an_ascii_terminal(monkeypatch, tmp_path):
    terminal = ascii_terminal(monkeypatch)
    play.main(["--games", "1", "--preset", "fr_1996", "--record", str(tmp_path)])
    story = shown(terminal)
    assert "=== game 0 (seed 0): P0 sat, P1 notepad, P2 random, P3 notepad ===" in story
    assert "P3 (R?v?rend Olive) starts" in story
    assert "=== summary: 1 games, 4 players, preset fr_1996" in story  # (the summary after the story)

    terminal = ascii_terminal(monkeypatch)
    assert replay.main([str(tmp_path / "game-0.jsonl")]) == 0
    transcript = shown(terminal)
    assert "P3 (R?v?rend Olive)" in transcript
    assert transcript.count("\n") > 20  # the whole transcript, not an error line
