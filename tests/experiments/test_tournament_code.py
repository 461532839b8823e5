"""The code that played a tournament's games: a run resumed under another revision warns, and the
report lists each revision with its number of games."""

from __future__ import annotations

import json

import pytest
from hydra import compose, initialize_config_dir
from test_tournament import SMALL

from experiments.common import tournament_run
from experiments.common.settings import load_config
from experiments.common.tournament_code import code_versions
from experiments.common.tournament_run import run_tournament
from tests.conftest import ROOT

A, B = "a" * 40, "b" * 40  # two revisions


def settings(*overrides: str):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        return load_config(compose("tournament", overrides=list(overrides)))


def under(monkeypatch, revision: str, dirty: bool) -> None:
    """Runs from now on record ``revision`` as the code's git revision."""
    monkeypatch.setattr(tournament_run, "git_revision", lambda: {"revision": revision, "dirty": dirty})


def killed_after(out, games: int) -> None:
    """The folder as a run killed after ``games`` games leaves it: those lines, the session unfinished."""
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(lines[:games]))
    run = json.loads((out / "run.json").read_text())
    for key in ("games_played", "elapsed_s", "finished"):
        del run["sessions"][-1][key]
    (out / "run.json").write_text(json.dumps(run))


def played_by(out) -> list[tuple]:
    meta = json.loads((out / "stats.json").read_text())["meta"]
    return [(code["revision"], code["dirty"], code["games"]) for code in meta["revisions"]]


@pytest.mark.parametrize(("revision", "dirty"), [(B, False), (A, True)])
def test_a_run_resumed_under_other_code_warns_and_its_report_names_each_revision(
    tmp_path, monkeypatch, capsys, revision, dirty
):
    """12 games (2 line-ups x 2 deals x 3 rotations): 5 played at revision A, the run killed, the other
    7 played at another revision or with uncommitted changes. The resumed run plays them, but says so,
    and the report counts each code's games (the killed session's from the next one's games_found)."""
    s = settings(*SMALL, "workers=0")
    out = tmp_path / "run"
    under(monkeypatch, A, False)
    run_tournament(s, out)
    killed_after(out, 5)
    capsys.readouterr()
    under(monkeypatch, revision, dirty)
    run_tournament(s, out)
    said = capsys.readouterr().out
    now = f"revision {revision}" + (" with uncommitted changes" if dirty else "")
    assert f"warning: {out / 'games.jsonl'} holds games played by other code than this run's: " in said
    assert f": 5 games by revision {A}; this run plays 7 by {now}." in said
    assert played_by(out) == [(A, False, 5), (revision, dirty, 7)]
    now = f"revision `{revision}`" + (" with uncommitted changes" if dirty else "")
    report = (out / "report.md").read_text()
    assert f"played by revision `{A}` (5 games); {now} (7 games)\n" in report
    assert "**Note:** the games were not all played by one recorded code version (above)" in report
    run_tournament(s, out)  # the same code again: the report keeps both, nothing more is said
    assert "warning" not in capsys.readouterr().out
    assert played_by(out) == [(A, False, 5), (revision, dirty, 7)]


def test_a_run_resumed_under_the_same_code_names_one_revision(tmp_path, monkeypatch, capsys):
    """One line as before; a later session of other code that plays nothing leaves it naming the code
    that played the games, not itself."""
    s = settings(*SMALL, "workers=0")
    out = tmp_path / "run"
    under(monkeypatch, A, True)
    run_tournament(s, out)
    killed_after(out, 5)
    run_tournament(s, out)
    under(monkeypatch, B, False)
    run_tournament(s, out)  # nothing to play
    assert "warning" not in capsys.readouterr().out
    report = (out / "report.md").read_text()
    assert f", code revision `{A}` (uncommitted changes)\n" in report and "**Note:**" not in report
    assert played_by(out) == [(A, True, 12)]


def test_games_no_recorded_session_played_count_as_unrecorded_code(tmp_path, monkeypatch, capsys):
    s = settings(*SMALL, "workers=0")
    out = tmp_path / "run"
    under(monkeypatch, A, False)
    run_tournament(s, out)
    killed_after(out, 5)
    (out / "run.json").unlink()  # lost
    under(monkeypatch, B, False)
    run_tournament(s, out)
    assert "warning" not in capsys.readouterr().out  # no session to compare with
    assert played_by(out) == [("unrecorded", None, 5), (B, False, 7)]
    report = (out / "report.md").read_text()
    assert f"played by unrecorded code (5 games); revision `{B}` (7 games)\n" in report
    assert "**Note:** the games were not all played by one recorded code version" in report


def test_code_versions_give_each_session_the_games_from_its_start_to_the_next_ones():
    """Sessions found 0, 2, 2 and 5 games (the second played none); the records in file order. A game
    written twice counts once; ``keep`` leaves games out; one revision with the same dirty flag is one
    code version however many sessions ran it."""
    sessions = [
        {"games_found": 0, "git": {"revision": A, "dirty": False}, "version": "1"},
        {"games_found": 2, "git": {"revision": B, "dirty": False}, "version": "1"},
        {"games_found": 2, "git": {"revision": A, "dirty": False}, "version": "1"},
        {"games_found": 5, "git": {"revision": "unknown", "dirty": None}, "version": "2"},
    ]
    records = [{"config": "c", "lineup": "x+y", "deal": deal, "rotation": 0} for deal in (0, 1, 2, 2, 3, 4)]
    assert code_versions(sessions, records) == [
        {"revision": A, "dirty": False, "version": "1", "games": 4},
        {"revision": "unknown", "dirty": None, "version": "2", "games": 1},
    ]
    keep = {("x+y", deal, 0) for deal in (1, 4)}
    assert [c["games"] for c in code_versions(sessions, records, keep)] == [1, 1]
