"""experiments.imitate started again in a run folder whose decisions other code recorded.

A run reused the teacher's decisions of its folder whatever code had recorded them: a folder of the
2026-12-05 revision (whose determinize teacher made 99 decisions in 4 games, where this code's makes
87) trained the network on the old decisions without a word. Each run now records its code in
``run.json``, and a run whose folder holds batches of other code, or of an imitate that recorded none,
says so in one warning line naming both.
"""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

import experiments.imitate as imitate  # noqa: E402
import experiments.learning.imitation_sessions as imitation_sessions  # noqa: E402
from agents.ppo.network import NetworkSettings  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import train_config  # noqa: E402

A, B, C = "a" * 40, "b" * 40, "c" * 40  # three revisions
UNRECORDED = "unrecorded code (no readable run.json names it: an imitate older than run.json wrote none)"
ADVICE = (
    "The teacher's play can change with the code, so the network is fitted to decisions this code's teacher "
    "may not make; give this run another exp_name to record them again under this code\n"
)


def tiny(tmp_path):
    """Two batches of two games: the notepad agent's decisions against random agents, no evaluation."""
    return train_config(
        config_name="imitate", exp_name="reuse", runs_dir=str(tmp_path), progress=False, init_from=None,
        teacher=OpponentSettings("notepad"), opponents=[OpponentSettings("random")], games=4, batch=2,
        workers=1, network=NetworkSettings(hidden=[16], card_hidden=8), epochs=1, final_eval_games=0,
    )  # fmt: skip


def under(monkeypatch, revision: str, dirty: bool | None, version: str = "0.2.0") -> None:
    """Runs from now on record ``revision`` as the code's git revision and ``version`` as the package's."""
    monkeypatch.setattr(imitation_sessions, "git_revision", lambda: {"revision": revision, "dirty": dirty})
    monkeypatch.setattr(imitation_sessions, "__version__", version)


def session(revision: str, found: int, version: str = "0.2.0", dirty: bool | None = False) -> dict:
    """A session of ``run.json`` as a run of ``revision`` that found ``found`` batches writes it."""
    return {"started": "2026-12-05T10:00:00", "version": version, "git": {"revision": revision, "dirty": dirty},
            "batches_found": found, "batches_to_play": max(0, 2 - found)}  # fmt: skip


def warnings(said: str) -> list[str]:
    return [line for line in said.splitlines(keepends=True) if line.startswith("warning")]


@pytest.mark.parametrize(
    ("run_json", "recorded"),
    [
        ({"sessions": [session(B, 0)]}, f"2 batches by revision {B}"),
        (None, f"2 batches by {UNRECORDED}"),
        ("{not json", f"2 batches by {UNRECORDED}"),
    ],
)
def test_decisions_of_other_code_are_reused_with_one_warning_naming_both(
    tmp_path, capsys, run_json, recorded
):
    """The folder's decisions recorded by revision B, by an imitate that wrote no run.json (0.1.0's, and
    that of every revision before it wrote one), or with a run.json that cannot be read: the run trains on
    them, but says which code recorded them and which code it is (this checkout's own revision)."""
    args = tiny(tmp_path)
    folder = imitate.run(args)
    (folder / "run.json").unlink(missing_ok=True)
    if run_json is not None:
        (folder / "run.json").write_text(run_json if isinstance(run_json, str) else json.dumps(run_json))
    capsys.readouterr()
    imitate.run(args)
    said = capsys.readouterr().out
    (line,) = warnings(said)
    assert line.startswith(
        f"warning: {folder / 'decisions'} holds decisions of the teacher recorded by other code than this "
        f"run's: {recorded}; this run is revision "
    )
    assert line.endswith(ADVICE)
    assert said.index(line) < said.index("decisions of the teacher in 4 games")  # before the training


@pytest.mark.parametrize(("revision", "dirty"), [(B, False), (A, True)])
def test_a_run_resumed_under_other_code_names_each_codes_batches(
    tmp_path, monkeypatch, capsys, revision, dirty
):
    """Batch 0 recorded at revision A, the run killed before batch 1; batch 1 recorded at another revision
    or with uncommitted changes. Each run after says how many batches each code recorded."""
    args = tiny(tmp_path)
    under(monkeypatch, A, False)
    folder = imitate.run(args)
    (folder / "decisions" / "batch_00001.npz").unlink()  # the first run, killed after one batch
    assert warnings(capsys.readouterr().out) == []
    under(monkeypatch, revision, dirty)
    imitate.run(args)
    now = f"revision {revision}" + (" with uncommitted changes" if dirty else "")
    (line,) = warnings(capsys.readouterr().out)
    assert f"than this run's: 1 batch by revision {A}; this run is {now}. " in line
    imitate.run(args)  # the same code again: one batch is still of revision A
    (line,) = warnings(capsys.readouterr().out)
    assert f"than this run's: 1 batch by revision {A}; 1 batch by {now}; this run is {now}. " in line
    sessions = json.loads((folder / "run.json").read_text())["sessions"]
    assert [
        (s["git"]["revision"], s["git"]["dirty"], s["batches_found"], s["batches_to_play"]) for s in sessions
    ] == [
        (A, False, 0, 2),
        (revision, dirty, 1, 1),
        (revision, dirty, 2, 0),
    ]


def test_a_batch_deleted_and_played_again_is_the_later_runs(tmp_path, monkeypatch, capsys):
    """Four batches recorded at revision A, a run of B that found them all, batch 3 deleted: the batches
    were given to the runs by their count (4 by A, where the folder held 3), and once C played batch 3
    again and batch 0 was deleted, batches 1 to 3 were still all A's. Each run records the numbers of the
    batches it found missing, and a batch is the last run's that played it."""
    args = tiny(tmp_path)
    args.games = 8  # batches 0 to 3
    under(monkeypatch, A, False)
    folder = imitate.run(args)
    under(monkeypatch, B, False)
    imitate.run(args)  # found all four: plays none
    capsys.readouterr()
    (folder / "decisions" / "batch_00003.npz").unlink()
    under(monkeypatch, C, False)
    imitate.run(args)
    (line,) = warnings(capsys.readouterr().out)
    assert f"than this run's: 3 batches by revision {A}; this run is revision {C}. " in line
    (folder / "decisions" / "batch_00000.npz").unlink()
    imitate.run(args)  # plays batch 0 again
    (line,) = warnings(capsys.readouterr().out)
    assert (
        f"than this run's: 2 batches by revision {A}; 1 batch by revision {C}; this run is revision {C}. "
        in line
    )
    sessions = json.loads((folder / "run.json").read_text())["sessions"]
    assert [(s["batches_found"], s["batches_missing"]) for s in sessions] == [
        (0, [0, 1, 2, 3]),
        (4, []),
        (3, [3]),
        (3, [0]),
    ]


def test_a_folder_of_this_code_gets_no_warning(tmp_path, monkeypatch, capsys):
    args = tiny(tmp_path)
    under(monkeypatch, A, True)
    folder = imitate.run(args)
    imitate.run(args)
    assert warnings(capsys.readouterr().out) == []
    sessions = json.loads((folder / "run.json").read_text())["sessions"]
    assert [(s["version"], s["git"], s["batches_found"]) for s in sessions] == [
        ("0.2.0", {"revision": A, "dirty": True}, 0),
        ("0.2.0", {"revision": A, "dirty": True}, 2),
    ]
    (folder / "decisions" / "batch_00000.npz").unlink()
    (folder / "decisions" / "batch_00001.npz").unlink()
    under(monkeypatch, B, False)
    imitate.run(args)  # nothing recorded is reused: the earlier runs are dropped
    assert warnings(capsys.readouterr().out) == []
    assert [s["git"]["revision"] for s in json.loads((folder / "run.json").read_text())["sessions"]] == [B]


@pytest.mark.parametrize(
    ("run_json", "recorded"),
    [
        ({"sessions": [session("unknown", 0, "0.2.0", None)]}, None),
        ({"sessions": [session("unknown", 0, "0.1.0", None)]}, "2 batches by revision unknown (cluedo-env 0.1.0)"),
        ({"sessions": [session("\x1b[2J" + A, 0)]}, f"2 batches by {UNRECORDED}"),
        ({"sessions": [session("unknown", 0, "0.2.0\x1b[2J", None)]}, f"2 batches by {UNRECORDED}"),
        ({"sessions": [session("unknown", 1, "0.1.0", None)]}, f"1 batch by {UNRECORDED}; 1 batch by revision "
         "unknown (cluedo-env 0.1.0)"),
        ({"sessions": [session(A, 0), session(B, 3)]}, f"2 batches by revision {A}"),  # one deleted since
        ({"sessions": [session(A, 0) | {"batches_missing": [0, 1]}, session(B, 1)]}, f"1 batch by revision {A}; "
         f"1 batch by revision {B}"),  # one deleted, then played again by an imitate older than batches_missing
    ],
)  # fmt: skip
def test_the_code_of_a_scripted_folder(tmp_path, monkeypatch, capsys, run_json, recorded):
    """Without git (an installed package: revision "unknown") the package versions name the code. A
    run.json whose revision or version holds a control character (it would reach the terminal) is not
    one this code writes: its batches count as unrecorded. A first session that found a batch: that one
    is of code that recorded none. Sessions of an imitate that recorded only how many batches they found
    are given the batches by count, never more than the folder holds (3 by A, where it holds 2). Such a
    session after one that named the batches it played took none of them: the batch it played again was
    the earlier session's."""
    args = tiny(tmp_path)
    (tmp_path / "decisions").mkdir()
    for k in (0, 1):
        (tmp_path / "decisions" / f"batch_{k:05d}.npz").write_bytes(b"")  # (only counted here)
    (tmp_path / "run.json").write_text(json.dumps(run_json))
    under(monkeypatch, "unknown", None, "0.2.0")
    imitation_sessions.record_session(tmp_path, imitate.batch_paths(tmp_path / "decisions", args))
    said = warnings(capsys.readouterr().out)
    assert said == ([] if recorded is None else [
        f"warning: {tmp_path / 'decisions'} holds decisions of the teacher recorded by other code than this "
        f"run's: {recorded}; this run is revision unknown (cluedo-env 0.2.0). {ADVICE}"
    ])  # fmt: skip
    last = json.loads((tmp_path / "run.json").read_text())["sessions"][-1]
    assert last.pop("started").endswith("+00:00") and last == {  # in UTC, with the offset
        "version": "0.2.0", "git": {"revision": "unknown", "dirty": None}, "batches_found": 2, "batches_to_play": 0,
        "batches_missing": [],
    }  # fmt: skip
