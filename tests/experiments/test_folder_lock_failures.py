"""An output folder's lock file that cannot be made or written (a full disk, a read-only folder): the run
stops before it starts, in one line naming the file and the error as for the other files it writes, and the
folder is left unlocked. The holder line's write raised a bare ``OSError`` (a traceback through Hydra), and a
lock the file system refused (``ENOLCK``) was reported as a folder in use by another run."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.common.folder_lock import LOCK_FILE, FolderInUse, FolderRefused, lock_folder
from experiments.common.games_file import read_games
from tests.conftest import ROOT

OPEN = Path.open
NOTHING_RUN = (
    "nothing was run: make room on the disk or make the folder writable, or choose another output folder"
)
TOURNAMENT = ["experiments.tournament", "lineup.agents=[{name: random}, {name: notepad}]", "game.num_players=3",
              "game.max_turns=40", "games_per_lineup=6", "batch_size=1", "workers=0", "progress=false",
              "plots=false", "output_dir=OUT"]  # fmt: skip
REASONING = ["experiments.reasoning_bench", "solver=uniform", "limit=2", "resamples=10", "progress=false",
             "output_dir=OUT", "leaderboard=OUT/board.jsonl"]  # fmt: skip


class FullDisk:
    """A file on a full disk: a write fails with ENOSPC (``short``: writes 5 bytes and says so, as a write
    the disk filled part-way through)."""

    short = False

    def __init__(self, file):
        self.file = file

    def write(self, data):
        if self.short:
            return self.file.write(data[:5])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self.file, name)


def open_on_a_full_disk(path, mode="r", *args, **kwargs):
    """``Path.open`` where the lock file is on a full disk."""
    file = OPEN(path, mode, *args, **kwargs)
    return FullDisk(file) if path.name == LOCK_FILE else file


# python -c ON_A_FULL_DISK MODULE ARGS...: python -m MODULE ARGS... with the lock file on a full disk
ON_A_FULL_DISK = (
    "import pathlib, runpy, sys; from tests.experiments.test_folder_lock_failures import open_on_a_full_disk; "
    "pathlib.Path.open = open_on_a_full_disk; sys.argv = sys.argv[1:]; "
    "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)"
)


@pytest.mark.parametrize("short", [False, True], ids=["no room", "room for part of it"])
def test_a_holder_line_that_cannot_be_written_stops_the_run_and_leaves_the_folder_free(
    tmp_path, monkeypatch, short
):
    monkeypatch.setattr(Path, "open", open_on_a_full_disk)
    monkeypatch.setattr(FullDisk, "short", short)
    ran = []
    with pytest.raises(FolderRefused) as refused, lock_folder(tmp_path):
        ran.append(True)
    assert ran == [] and not isinstance(refused.value, FolderInUse)  # not taken for another run's lock
    path = tmp_path / LOCK_FILE
    assert str(refused.value) == f"cannot write {path} (No space left on device); {NOTHING_RUN}"
    monkeypatch.undo()
    assert path.read_text() == ""  # no half line: a run finding it taken would show it as the holder
    with lock_folder(tmp_path):  # no lock left behind: the next run takes the folder
        line = path.read_text()
        assert line.startswith(f"pid {os.getpid()} on ")
        assert re.search(r", started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$", line)  # in UTC, as run.json's


def test_a_lock_file_that_cannot_be_made_is_named_in_one_line(tmp_path, monkeypatch):
    """A read-only folder (made so after the command's first check): the open itself fails."""

    def read_only(path, mode="r", *args, **kwargs):
        if path.name == LOCK_FILE:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return OPEN(path, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", read_only)
    with pytest.raises(FolderRefused) as refused, lock_folder(tmp_path):
        pass
    assert str(refused.value) == f"cannot write {tmp_path / LOCK_FILE} (Permission denied); {NOTHING_RUN}"
    assert not isinstance(refused.value, FolderInUse) and list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_lock_the_file_system_refuses_is_not_taken_for_another_runs(tmp_path, monkeypatch):
    """A network disk without locks (ENOLCK) said "in use by another run (another process)"."""
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(FolderRefused) as refused, lock_folder(tmp_path):
        pass
    assert not isinstance(refused.value, FolderInUse)
    assert str(refused.value) == (
        f"cannot lock {tmp_path / LOCK_FILE} (No locks available): the file system of {tmp_path} may not "
        "support locks; choose an output folder on a local disk"
    )


@pytest.mark.parametrize(
    "command, status", [(TOURNAMENT, 1), (REASONING, 2)], ids=["tournament", "reasoning_bench"]
)
def test_a_command_whose_lock_file_cannot_be_written_stops_in_one_line_and_runs_once_it_can(
    tmp_path, command, status
):
    out = tmp_path / "out"
    command = [word.replace("OUT", str(out)) for word in command]
    stopped = subprocess.run([sys.executable, "-c", ON_A_FULL_DISK, *command], cwd=ROOT, capture_output=True,
                             text=True, timeout=300)  # fmt: skip
    assert stopped.returncode == status and "Traceback" not in stopped.stderr, stopped.stderr[-3000:]
    (lock,) = out.rglob(LOCK_FILE)
    assert stopped.stderr.splitlines() == [
        f"error: cannot write {lock} (No space left on device); {NOTHING_RUN}"
    ]
    assert sorted(path.name for path in lock.parent.iterdir()) == [LOCK_FILE]  # nothing run
    again = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    if command[0] == "experiments.tournament":
        assert len(read_games(out / "games.jsonl")) == 12
