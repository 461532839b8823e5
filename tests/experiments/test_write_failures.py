"""A results file that cannot be written part-way (a full disk, a folder made read-only): the tournament,
the reasoning benchmark and the expert dataset stop in one line naming the file and the error, keep what
they wrote, and the command they name goes on from it. Each gave a chained traceback; the expert dataset
also left ``minari.partial/`` behind.

The commands run on a disk that fills (``FULL_DISK``): once a few writes to the results file have been
made, the next fails with ENOSPC, as a write to a full disk does."""

from __future__ import annotations

import errno
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.common.games_file import read_games
from tests.conftest import ROOT

pytest.importorskip("pyarrow")

FULL_DISK = '''"""python FULL_DISK PATTERN ROOM MODULE ARGS...: ``python -m MODULE ARGS...`` on a disk that fills after
ROOM writes to the files named like PATTERN (``Path.open``): each write after those fails with ENOSPC."""
import errno, fnmatch, os, pathlib, runpy, sys

pattern, room, module = sys.argv[1], [int(sys.argv[2])], sys.argv[3]
sys.argv = [module, *sys.argv[4:]]
sys.path[0] = os.getcwd()  # as python -m has it
opened = pathlib.Path.open


class Filling:
    def __init__(self, file):
        self.file = file

    def write(self, text):
        room[0] -= 1
        if room[0] < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.file.write(text)

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


def open_on_a_filling_disk(path, mode="r", *args, **kwargs):
    file = opened(path, mode, *args, **kwargs)
    return Filling(file) if fnmatch.fnmatch(path.name, pattern) and mode[0] in "wa" else file


pathlib.Path.open = open_on_a_filling_disk
runpy.run_module(module, run_name="__main__", alter_sys=True)
'''
TOURNAMENT = ["lineup.agents=[{name: random}, {name: notepad}]", "game.num_players=3", "game.max_turns=40",
              "games_per_lineup=6", "batch_size=1", "workers=0", "progress=false", "plots=false"]  # fmt: skip


def on_a_filling_disk(tmp_path: Path, pattern: str, room: int, *command: str) -> subprocess.CompletedProcess:
    script = tmp_path / "full_disk.py"
    script.write_text(FULL_DISK)
    return subprocess.run([sys.executable, str(script), pattern, str(room), *command], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_a_tournament_on_a_full_disk_stops_in_one_line_and_its_command_resumes(tmp_path):
    out = tmp_path / "run"
    games = out / "games.jsonl"
    stopped = on_a_filling_disk(tmp_path, "games.jsonl", 4, "experiments.tournament", *TOURNAMENT,
                                f"output_dir={out}")  # fmt: skip
    assert stopped.returncode == 1 and "Traceback" not in stopped.stderr, stopped.stderr[-3000:]
    (line,) = stopped.stderr.splitlines()
    kept = len(read_games(games))
    assert kept == 4  # the games of the four chunks written (a game each)
    assert line.startswith(
        f"error: cannot write {games} (No space left on device); {kept} games kept in {games}; to resume: "
        "python -m experiments.tournament "
    )
    command = shlex.split(line.partition("to resume: ")[2])
    assert f"output_dir={out}" in command
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming: {kept} of the 12 games found in {games}; {12 - kept} to play" in resumed.stdout
    assert len(read_games(games)) == 12  # 2 line-ups x 2 deals x 3 rotations


def test_a_reasoning_run_on_a_full_disk_stops_in_one_line_and_goes_on_from_its_scores(tmp_path):
    bench = ["experiments.reasoning_bench", "solver=uniform", "limit=5", "resamples=10", "progress=false",
             f"output_dir={tmp_path / 'out'}", f"leaderboard={tmp_path / 'board.jsonl'}"]  # fmt: skip
    stopped = on_a_filling_disk(tmp_path, "scores-*.jsonl", 2, *bench)  # two tasks after the settings line
    assert stopped.returncode == 1 and "Traceback" not in stopped.stderr, stopped.stderr[-3000:]
    (scores,) = (tmp_path / "out" / "uniform").glob("scores-*.jsonl")
    assert stopped.stderr.splitlines() == [
        f"error: cannot write {scores} (No space left on device); the tasks scored so far are kept; the same "
        "command again goes on from them"
    ]
    assert len(scores.read_text().splitlines()) == 3 and not (tmp_path / "board.jsonl").exists()
    again = subprocess.run(
        [sys.executable, "-m", *bench], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert "resuming: 2 of 5 tasks already scored" in again.stdout
    assert json.loads((tmp_path / "board.jsonl").read_text())["tasks"] == 5


def test_a_reasoning_run_stopped_while_it_writes_its_settings_line_starts_again(tmp_path):
    """The settings line was appended: cut short, it made the next run refuse the file as one of other
    settings (with a traceback). It is written whole now, so a stop leaves no file."""
    bench = ["experiments.reasoning_bench", "solver=uniform", "limit=2", "resamples=10", "progress=false",
             f"output_dir={tmp_path / 'out'}", f"leaderboard={tmp_path / 'board.jsonl'}"]  # fmt: skip
    stopped = on_a_filling_disk(tmp_path, "scores-*.jsonl.*.tmp", 0, *bench)
    assert stopped.returncode == 1 and "Traceback" not in stopped.stderr, stopped.stderr[-3000:]
    assert not list((tmp_path / "out" / "uniform").glob("scores-*"))
    again = subprocess.run(
        [sys.executable, "-m", *bench], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr[-3000:]


def test_a_reasoning_run_beside_a_scores_file_of_other_settings_stops_in_one_line(tmp_path):
    bench = ["experiments.reasoning_bench", "solver=uniform", "limit=2", "resamples=10", "progress=false",
             f"output_dir={tmp_path / 'out'}", f"leaderboard={tmp_path / 'board.jsonl'}"]  # fmt: skip
    assert (
        subprocess.run([sys.executable, "-m", *bench], cwd=ROOT, capture_output=True, timeout=300).returncode
        == 0
    )
    (scores,) = (tmp_path / "out" / "uniform").glob("scores-*.jsonl")
    scores.write_text('{"settings": "another run"}\n')
    again = subprocess.run(
        [sys.executable, "-m", *bench], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 2 and "Traceback" not in again.stderr, again.stderr[-3000:]
    assert again.stderr.strip().splitlines() == [
        f'config error: {scores} holds a run of other settings (\'{{"settings": "another run"}}\'); move it away or '
        "pick another output_dir: it is not overwritten"
    ]


def test_an_expert_dataset_on_a_full_disk_stops_in_one_line_and_the_same_command_finishes_it(
    tmp_path, monkeypatch, capsys
):
    import minari
    import pyarrow.parquet as pq

    from experiments.expert_dataset import main, verify

    out = tmp_path / "data"
    argv = ["--out", str(out), "--agents", "random,notepad,random", "--games", "2", "--shard-games", "1",
            "--minari-episodes", "1", "--workers", "0", "--no-progress"]  # fmt: skip
    write_table, create = pq.write_table, minari.create_dataset_from_buffers
    writes = []

    def full_at_the_third_table(table, where, **options):  # shard 0's two tables, then the disk is full
        writes.append(where)
        if len(writes) > 2:
            raise OSError(
                errno.ENOSPC, f"Error writing bytes to file. Detail: [errno 28] {os.strerror(errno.ENOSPC)}"
            )
        write_table(table, where, **options)

    monkeypatch.setattr(pq, "write_table", full_at_the_third_table)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: cannot write {out / 'decisions' / 'shard-00001.parquet'} (Error writing bytes to file. Detail: "
        f"[errno 28] No space left on device); the shards written are kept in {out}: run the same command again "
        "to finish"
    ]
    assert sorted(path.name for path in (out / "games").iterdir()) == ["shard-00000.parquet"]

    monkeypatch.setattr(pq, "write_table", write_table)

    def full_in_the_minari_dataset(**options):  # a file of it written, then the disk is full
        Path(os.environ["MINARI_DATASETS_PATH"], "part-0.parquet").write_bytes(b"PAR1")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(minari, "create_dataset_from_buffers", full_in_the_minari_dataset)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        f"error: cannot write {out / 'minari'} (No space left on device); the shards written"
    )
    assert sorted(path.name for path in (out / "games").iterdir()) == [
        "shard-00000.parquet",
        "shard-00001.parquet",
    ]
    assert not (out / "minari.partial").exists()  # its half, removed: the room a full disk lacks

    monkeypatch.setattr(minari, "create_dataset_from_buffers", create)
    main(argv)  # the same command again: the Minari episodes, the card
    assert verify(out, replay=False) == []
