"""A tournament's report is UTF-8 whatever the locale's encoding, and a report that cannot be written
leaves the one before.

``report.md`` holds "±" and "→"; it was written in the locale's encoding, so under an ASCII locale
(``LC_ALL=C PYTHONUTF8=0``) or Windows' cp1252 the tournament crashed at its very end, and
``cluedo-stats`` on a finished folder cut a good ``report.md`` to 0 bytes (the file was opened, so
emptied, before its text failed to encode).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.common import llm_report
from experiments.common.report import write_report
from tests.conftest import ROOT

TOURNAMENT = ["-m", "experiments.tournament", "lineup.agents=[{name: random}, {name: notepad}]",
              "game.num_players=3", "game.max_turns=40", "games_per_lineup=6", "batch_size=1", "workers=0",
              "progress=false", "plots=false"]  # fmt: skip
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}


def python(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONPATH")}
    env |= ASCII_LOCALE | {"PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, timeout=300)


def test_a_tournament_and_cluedo_stats_write_utf8_under_an_ascii_locale(tmp_path):
    locale = python(["-c", "import locale; print(locale.getpreferredencoding(False))"], tmp_path)
    if locale.stdout.decode().strip().lower().replace("-", "") == "utf8":
        pytest.skip("the C locale's encoding is UTF-8 here: there is no ASCII locale to write under")
    out = tmp_path / "run"
    run = python([*TOURNAMENT, f"output_dir={out}"], tmp_path)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    report = (out / "report.md").read_bytes().decode("utf-8")
    assert "## 3 players" in report and "±" in report
    assert "rating mu ? sigma" in run.stdout.decode("ascii")  # the leaderboard on the terminal: "?" for "±"

    stats = python(["-m", "experiments.common.stats", str(out), "--no-plots"], tmp_path)
    assert stats.returncode == 0, stats.stderr.decode(errors="replace")
    assert (out / "report.md").read_bytes().decode("utf-8") == report


class FullDisk:
    """A file on a full disk: every write fails with ENOSPC."""

    def __init__(self, file):
        self.file = file

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


def game(seats, winner_seat, deal=0):
    return {
        "config": "test", "lineup": "+".join(seats), "deal": deal, "seed": deal, "rotation": 0,
        "players": len(seats), "seats": list(seats), "turns": 30, "truncated": False, "decisions": 0,
        "winner": seats[winner_seat], "winner_seat": winner_seat,
        "accusations": [1] * len(seats), "wrong_accusations": [0] * len(seats),
    }  # fmt: skip


def test_a_report_that_cannot_be_written_leaves_the_one_before(tmp_path, monkeypatch):
    """A full disk when ``report.md`` is written again (``cluedo-stats`` on a finished run): the earlier
    report stays whole, and no temporary file is left beside it."""
    write_report([game(("Révérend", "notepad"), 0, deal=d) for d in range(4)], tmp_path, plots=False)
    before = (tmp_path / "report.md").read_bytes()
    assert "Révérend" in before.decode("utf-8")
    assert "Révérend" in (tmp_path / "seats.csv").read_bytes().decode("utf-8")
    opened = Path.open

    def open_on_a_full_disk(path, mode="r", *args, **kwargs):
        file = opened(path, mode, *args, **kwargs)
        return FullDisk(file) if path.name.startswith("report.md") else file

    monkeypatch.setattr(Path, "open", open_on_a_full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        write_report([game(("Révérend", "notepad"), 1, deal=d) for d in range(4)], tmp_path, plots=False)
    monkeypatch.undo()
    assert (tmp_path / "report.md").read_bytes() == before
    assert sorted(path.name for path in tmp_path.glob("report.md*")) == ["report.md"]


def test_the_language_model_section_that_cannot_be_added_leaves_the_report_before(tmp_path, monkeypatch):
    """``report.md`` of a run with llm seats gets a section appended (``llm_report.write``): on a full disk
    the report stays as it was, not emptied."""
    write_report([game(("Révérend", "llm"), 0, deal=d) for d in range(4)], tmp_path, plots=False)
    before = (tmp_path / "report.md").read_bytes()
    counts = dict.fromkeys(("decisions", "replies", "invalid_replies", "fallbacks", "forfeited"), 1)
    counts |= {"prompt_tokens": 10, "completion_tokens": 2, "milliseconds": 2000}
    summary = llm_report.summarise([{"seats": ["Révérend", "llm"], "llm": {"1": counts}}] * 4)
    opened = Path.open

    def open_on_a_full_disk(path, mode="r", *args, **kwargs):
        file = opened(path, mode, *args, **kwargs)
        return FullDisk(file) if path.name.startswith("report.md") and "r" not in mode else file

    monkeypatch.setattr(Path, "open", open_on_a_full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        llm_report.write(summary, tmp_path)
    monkeypatch.undo()
    assert (tmp_path / "report.md").read_bytes() == before
    assert sorted(path.name for path in tmp_path.glob("report.md*")) == ["report.md"]
    llm_report.write(summary, tmp_path)  # with room: the section follows the report
    assert (
        (tmp_path / "report.md")
        .read_text(encoding="utf-8")
        .startswith(before.decode("utf-8") + "\n## Language")
    )


def test_a_config_yaml_an_earlier_version_wrote_in_the_locale_s_encoding_still_says_its_rules(
    tmp_path, monkeypatch
):
    # Before the files were UTF-8, a run on Windows wrote config.yaml in cp1252: a path or a label with an
    # accent made it unreadable as UTF-8, and a run that says nothing is pooled with runs of other rules.
    from experiments.common.run_config import run_agents, run_rules

    text = "output_dir: C:\\Users\\José\\runs\ngame: {max_turns: 40}\nlineup: {agents: [{name: sat, label: Révérend}]}\n"
    (tmp_path / "config.yaml").write_bytes(text.encode("cp1252"))
    monkeypatch.setattr("locale.getpreferredencoding", lambda do_setlocale=True: "cp1252")
    assert run_rules(tmp_path)["max_turns"] == 40
    assert list(run_agents(tmp_path)) == ["Révérend"]
