"""The times of ``run.json``: in UTC, ISO 8601 with the offset, whichever machine wrote them.

A tournament's, an imitate run's and a training run's ``run.json`` gave each session's times in the
machine's local time without a zone (``2026-12-05T10:00:00``), while the reasoning files gave UTC: a run
resumed on a machine in another time zone, or after a change of the clock, had sessions that could not
be ordered. Every writer now records ``experiments.common.code_revision.utc_now``; the files written
before, in local time, are read as they were. (An imitate run's: tests/experiments/test_imitate_reuse.py.)
"""

from __future__ import annotations

import datetime
import json

from test_tournament import SMALL, settings

from experiments.common.tournament_run import run_tournament
from experiments.learning import run_logs

EARLIER = "2026-12-05T10:00:00"  # a time as files written before gave it: local, no offset


def recorded_now(text: str, before: datetime.datetime) -> bool:
    """Whether ``text`` is a time in UTC with its offset, to the second, from ``before`` until now."""
    time = datetime.datetime.fromisoformat(text)
    now = datetime.datetime.now(datetime.UTC)
    return text.endswith("+00:00") and time.utcoffset() == datetime.timedelta(0) and before <= time <= now


def second_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0)


def test_a_tournament_records_when_each_session_started_and_finished_in_utc(tmp_path):
    out = tmp_path / "run"
    before = second_now()
    run_tournament(settings(*SMALL, "workers=0"), out)
    (session,) = json.loads((out / "run.json").read_text())["sessions"]
    assert recorded_now(session["started"], before) and recorded_now(session["finished"], before)
    assert session["started"] <= session["finished"]

    info = json.loads((out / "run.json").read_text())  # as a run of before wrote it
    info["sessions"][0] |= {"started": EARLIER, "finished": EARLIER}
    (out / "run.json").write_text(json.dumps(info))
    run_tournament(settings(*SMALL, "workers=0", "games_per_lineup=12"), out)  # resumed: read, not set aside
    earlier, resumed = json.loads((out / "run.json").read_text())["sessions"]
    assert (earlier["started"], earlier["finished"]) == (EARLIER, EARLIER)
    assert recorded_now(resumed["started"], before) and resumed["games_found"] == 12
    assert not (out / "run.json.unreadable").exists()


def test_a_training_session_records_its_start_in_utc(tmp_path):
    """``record_session`` writes ``train_ppo``'s, ``train_sb3``'s and ``train_rllib``'s sessions."""
    earlier = {"started": EARLIER, "version": "0.2.0", "git": {"revision": "a" * 40, "dirty": False},
               "trained_before": {"update": 0, "global_step": 0}}  # fmt: skip
    (tmp_path / "run.json").write_text(json.dumps({"sessions": [earlier]}))
    before = second_now()
    run_logs.record_session(tmp_path, {"update": 1, "global_step": 128})
    sessions = json.loads((tmp_path / "run.json").read_text())["sessions"]
    assert sessions[0] == earlier and len(sessions) == 2
    assert recorded_now(sessions[1]["started"], before)
