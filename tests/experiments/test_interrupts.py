"""Ctrl-C in expert_dataset and reasoning_bench: one line saying what is kept and the command that resumes,
exit status 130, and the resumed run's results are an uninterrupted run's.

Both printed a KeyboardInterrupt traceback; with SIGINT to its main process alone (``kill -INT``, an IDE's
stop), expert_dataset played every queued shard before it stopped (its pool's shutdown waited for them).
And expert_dataset wrote settings.json in place: a run stopped while writing it left an empty file, and
the next run said only "error: Expecting value: line 1 column 1 (char 0)".
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, sigint_as_from_a_shell

TIMEOUT_S = 300


def slow_uniform(task: dict) -> dict:
    """The uniform solver, a quarter of a second a task (time to stop a run part-way)."""
    from agents.solvers import load_solver

    time.sleep(0.25)
    return load_solver("uniform")(task)


def interrupt_once(
    command: list[str], written: Callable[[], bool], group: bool = False
) -> subprocess.CompletedProcess:
    """``command`` run in its own session, SIGINT sent once ``written()`` holds: to its process alone
    (``kill -INT``, an IDE's stop), or to its process group, as a terminal's Ctrl-C (``group``)."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=sigint_as_from_a_shell)  # fmt: skip
    deadline = time.monotonic() + TIMEOUT_S
    while not written() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before it could be interrupted"
    if group:
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=TIMEOUT_S)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def one_line(stopped: subprocess.CompletedProcess) -> str:
    assert stopped.returncode == 130, stopped.stderr[-3000:]
    assert "Traceback" not in stopped.stdout + stopped.stderr
    (line,) = (stopped.stdout + stopped.stderr).strip().splitlines()
    return line


def dataset_files(folder: Path) -> dict[str, bytes]:
    """Every file of a dataset folder (the run's lock aside) by its relative path."""
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name != "tournament.lock"}  # fmt: skip


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, bytes]:
    """The files of the dataset of 3 games, a shard each, written in one go (in this process)."""
    pytest.importorskip("torch")
    pytest.importorskip("pyarrow")
    pytest.importorskip("minari")
    from experiments.expert_dataset import DatasetSettings, build

    folder = tmp_path_factory.mktemp("expert") / "alone"
    build(DatasetSettings(games=3, shard_games=1, minari_episodes=0), folder, workers=0, progress=False)
    return dataset_files(folder)


@pytest.mark.parametrize("group", [False, True], ids=["to the process", "to its group"])
def test_expert_dataset_stops_at_ctrl_c_and_resumes_to_the_same_dataset(tmp_path, group, uninterrupted):
    out = tmp_path / "stopped"
    options = ["--out", str(out), "--games", "3", "--shard-games", "1", "--minari-episodes", "0", "--workers",
               "1", "--no-progress"]  # fmt: skip
    command = [sys.executable, "-m", "experiments.expert_dataset", *options]
    stopped = interrupt_once(command, lambda: any(out.glob("games/shard-*.parquet")), group)
    line = one_line(stopped)
    kept = sorted(path.name for path in out.glob("games/shard-*.parquet"))
    assert len(kept) < 3  # the queued shard was not played
    assert line == (
        f"interrupted: {len(kept)} of 3 shards kept in {out}; to resume: python -m experiments.expert_dataset "
        + " ".join(options)
    )
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert dataset_files(out) == uninterrupted


def test_reasoning_bench_stops_at_ctrl_c_and_resumes_to_the_same_report(tmp_path):
    pytest.importorskip("hydra")
    settings = ["solver=tests.experiments.test_interrupts:slow_uniform", "split=dev", "limit=12",
                f"output_dir={tmp_path / 'out'}", f"leaderboard={tmp_path / 'board.jsonl'}", "progress=false",
                "resume=false"]  # fmt: skip
    command = [sys.executable, "-m", "experiments.reasoning_bench", *settings]

    def scores() -> list[Path]:
        return list((tmp_path / "out").glob("*/scores-*.jsonl"))

    stopped = interrupt_once(
        command, lambda: any(len(path.read_text().splitlines()) > 1 for path in scores())
    )
    line = one_line(stopped)
    (path,) = scores()
    kept = len(path.read_text().splitlines()) - 1  # (the first line is the settings)
    assert 1 <= kept < 12
    resume = "python -m experiments.reasoning_bench " + " ".join(settings[:-1])  # resume=false left out
    assert line == f"interrupted: {kept} of 12 tasks scored are kept in {path}; to resume: {resume}"
    resumed = subprocess.run([sys.executable, "-m", "experiments.reasoning_bench", *settings[:-1]], cwd=ROOT,
                             capture_output=True, text=True, timeout=TIMEOUT_S)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming: {kept} of 12 tasks already scored" in resumed.stdout

    from experiments.reasoning_bench import ReasoningBenchConfig, run

    run(ReasoningBenchConfig(solver="tests.experiments.test_interrupts:slow_uniform", limit=12,
                             output_dir=str(tmp_path / "alone"), leaderboard=str(tmp_path / "b.jsonl"),
                             progress=False))  # fmt: skip
    (alone,) = (tmp_path / "alone").glob("*/scores-*.jsonl")
    assert path.name == alone.name  # the same settings

    def scored(path: Path) -> dict[str, dict]:
        return {row["id"]: row["scored"] for row in map(json.loads, path.read_text().splitlines()[1:])}

    assert scored(path) == scored(alone) and len(scored(path)) == 12
    report, report_alone = (json.loads((p.parent / "report.json").read_text()) for p in (path, alone))
    assert report["summary"] == report_alone["summary"] and report["tasks"] == 12


def test_a_run_stopped_while_writing_its_settings_leaves_the_earlier_ones(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    from experiments.expert_dataset import SETTINGS, DatasetSettings, build

    settings = DatasetSettings(
        agents=("random", "random", "random"), games=1, shard_games=1, minari_episodes=0
    )
    folder = tmp_path / "dataset"
    folder.mkdir()
    earlier = json.dumps(settings.recording(), indent=1) + "\n"
    (folder / SETTINGS).write_text(earlier)  # a run's settings, written before its first shard
    opened = pathlib.Path.open

    def stop_while_writing(path, mode="r", *args, **kwargs):  # Ctrl-C (or a kill) halfway through the write
        file = opened(path, mode, *args, **kwargs)
        if path.name.startswith(SETTINGS) and "w" in mode:
            file.write(earlier[:10] if "b" not in mode else earlier[:10].encode())
            file.close()
            raise KeyboardInterrupt
        return file

    monkeypatch.setattr(pathlib.Path, "open", stop_while_writing)
    with pytest.raises(KeyboardInterrupt):
        build(settings, folder, workers=0, progress=False)
    monkeypatch.undo()
    assert (folder / SETTINGS).read_text() == earlier
    assert [path.name for path in folder.iterdir() if path.name.startswith(SETTINGS)] == [SETTINGS]


def test_settings_that_cannot_be_read_are_named_with_what_to_do(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    from experiments.expert_dataset import CARD, SETTINGS, main

    folder = tmp_path / "dataset"
    (folder / "games").mkdir(parents=True)
    (folder / "games" / "shard-00000.parquet").write_bytes(b"a shard of an earlier run")
    (folder / CARD).write_text(json.dumps({"name": "cluedo-expert-games"}))  # (a finished run's card)
    for held in ("", '{"agents": ', "[1, 2]"):  # empty (stopped as it was written), cut, not an object
        (folder / SETTINGS).write_text(held)
        for card in (True, False):  # beside the card of a finished run, or alone
            if not card:
                (folder / CARD).unlink(missing_ok=True)
            with pytest.raises(SystemExit) as stopped:
                main(["--out", str(folder), "--agents", "random,random,random", "--games", "1", "--shard-games",
                      "1", "--minari-episodes", "0", "--workers", "0", "--no-progress"])  # fmt: skip
            assert stopped.value.code == 1
            (line,) = capsys.readouterr().err.splitlines()
            assert re.fullmatch(
                rf"error: {re.escape(str(folder / SETTINGS))} cannot be read as the settings of the folder's "
                r"games \(.+\): if you ran this command into it with the same --agents, --board, --seed and "
                rf"--shard-games, remove {re.escape(str(folder / SETTINGS))} and run it again \(the shards "
                r"written are kept\); otherwise choose another --out",
                line,
            ), line
        (folder / CARD).write_text(json.dumps({"name": "cluedo-expert-games"}))


def test_ctrl_c_while_the_agents_are_checked_stops_in_one_line(tmp_path, monkeypatch, capsys):
    # (a model loads while the agents are checked: seconds in which Ctrl-C printed a traceback)
    from experiments import expert_dataset

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(expert_dataset.DatasetSettings, "validate", interrupted)
    with pytest.raises(SystemExit) as stopped:
        expert_dataset.main(["--out", str(tmp_path / "dataset"), "--agents", "random,random,random"])
    assert stopped.value.code == 130
    assert capsys.readouterr().out.strip() == "interrupted while checking the agents: nothing was written"
    assert not (tmp_path / "dataset").exists()
