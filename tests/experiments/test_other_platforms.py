"""What a platform other than Linux under a UTF-8 locale does to the commands, emulated where it cannot run here.

Found by reading the code for Windows and macOS, and by running under a Latin-1 locale: on Windows a second
run into a locked folder read the byte its first run had locked (Windows locks are mandatory) and ended in a
``PermissionError`` traceback instead of "in use by another run"; ``cluedo-bench``'s beliefs section read
macOS's peak memory, in bytes, as KiB (1024 times too much) and died on Windows, which has no ``resource``
module; a path outside ASCII, which Hydra reads only quoted, was refused with a hint naming spaces and
brackets alone; and where Python's file names are not UTF-8, a folder outside ASCII was taken, then pyarrow
and TensorBoard, which write to a path's UTF-8 bytes, failed once the work was done (a folder only Python's
own ``open`` writes to is taken).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from experiments.common.command_line import refuse_bad_override_syntax
from experiments.common.folder_lock import LOCK_FILE, FolderInUse, lock_folder, unwritable
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT

OPEN = Path.open


# -- Windows: the folder lock ------------------------------------------------------------------------


class WindowsLocks:
    """``msvcrt`` with Windows' byte-range locks, which are mandatory: ``locking`` locks ``nbytes`` from the
    file's position for that handle alone; another handle's lock, read or write of a locked byte fails
    (EACCES, as ``LK_NBLCK`` does); ``LK_UNLCK`` must name a range the handle locked; closing a handle ends
    its locks."""

    LK_UNLCK, LK_NBLCK = 0, 2

    def __init__(self) -> None:
        self.held: dict[tuple[int, int, int], int] = {}  # (file, first byte, bytes) -> the handle (fd)

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        start = os.lseek(fd, 0, os.SEEK_CUR)
        key = (os.fstat(fd).st_ino, start, nbytes)
        if mode == self.LK_UNLCK:
            if self.held.get(key) != fd:
                raise OSError(errno.EACCES, "Permission denied")
            del self.held[key]
        elif self.blocks(fd, start, nbytes):
            raise OSError(errno.EACCES, "Permission denied")
        else:
            self.held[key] = fd

    def blocks(self, fd: int, start: int, size: int) -> bool:
        """Whether another handle's lock holds a byte of ``[start, start + size)`` of ``fd``'s file."""
        file = os.fstat(fd).st_ino
        return any(
            f == file and holder != fd and first < start + size and start < first + n
            for (f, first, n), holder in self.held.items()
        )

    def closed(self, fd: int) -> None:
        self.held = {key: holder for key, holder in self.held.items() if holder != fd}


class WindowsFile:
    """The lock file opened on Windows: reading or writing a byte another handle locked fails."""

    def __init__(self, file, locks: WindowsLocks) -> None:
        self.file, self.locks = file, locks

    def read(self, size: int) -> bytes:
        if self.locks.blocks(self.file.fileno(), self.file.tell(), size):
            raise PermissionError(errno.EACCES, "Permission denied")
        return self.file.read(size)

    def write(self, data: bytes) -> int:
        if self.locks.blocks(self.file.fileno(), self.file.tell(), len(data)):
            raise PermissionError(errno.EACCES, "Permission denied")
        return self.file.write(data)

    def close(self) -> None:
        self.locks.closed(self.file.fileno())
        self.file.close()

    def __getattr__(self, name):
        return getattr(self.file, name)


@pytest.fixture
def windows(monkeypatch) -> WindowsLocks:
    """This process as on Windows, for ``lock_folder``: ``sys.platform``, ``msvcrt`` and its locks."""
    locks = WindowsLocks()

    def open_on_windows(path, *args, **kwargs):
        file = OPEN(path, *args, **kwargs)
        return WindowsFile(file, locks) if path.name == LOCK_FILE else file

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "msvcrt", locks)
    monkeypatch.setattr(Path, "open", open_on_windows)
    return locks


def test_a_second_run_on_windows_is_told_the_folder_is_in_use_and_by_whom(windows, tmp_path):
    in_use = pytest.raises(FolderInUse, match=rf"in use by another run \(pid {os.getpid()} on ")
    with lock_folder(tmp_path), in_use, lock_folder(tmp_path):
        pytest.fail("two runs in one folder")
    assert windows.held == {}  # the first run unlocked the byte it locked
    with lock_folder(tmp_path):  # the next run takes the folder
        pass


def test_a_holder_line_that_cannot_be_read_is_another_process(windows, tmp_path):
    other = (tmp_path / LOCK_FILE).open("a+b", buffering=0)  # a process that locks every byte, its line too
    try:
        other.write(b"pid 1 on elsewhere")
        other.seek(0)
        windows.locking(other.fileno(), windows.LK_NBLCK, 1 << 31)
        in_use = pytest.raises(FolderInUse, match=r"in use by another run \(another process\)")
        with in_use, lock_folder(tmp_path):
            pytest.fail("two runs in one folder")
    finally:
        other.close()


# -- cluedo-bench's memory figures -------------------------------------------------------------------


def without_proc(monkeypatch) -> None:
    """No /proc, as on macOS and Windows."""
    read_text, write_text = Path.read_text, Path.write_text

    def no_proc(method):
        def call(path, *args, **kwargs):
            if str(path).startswith("/proc/"):
                raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
            return method(path, *args, **kwargs)

        return call

    monkeypatch.setattr(Path, "read_text", no_proc(read_text))
    monkeypatch.setattr(Path, "write_text", no_proc(write_text))


def test_peak_memory_on_macos_is_read_in_bytes_elsewhere_in_kib(monkeypatch):
    from experiments.benchmark.machine import memory_mib

    without_proc(monkeypatch)
    usage = SimpleNamespace(ru_maxrss=300 * 2**20)
    monkeypatch.setitem(sys.modules, "resource", SimpleNamespace(RUSAGE_SELF=0, getrusage=lambda who: usage))
    monkeypatch.setattr(sys, "platform", "darwin")
    assert memory_mib("VmHWM") == 300
    monkeypatch.setattr(sys, "platform", "freebsd14")
    usage.ru_maxrss = 300 * 2**10
    assert memory_mib("VmHWM") == 300


def test_the_beliefs_section_on_windows_finishes_and_says_memory_was_not_measured(monkeypatch, capsys):
    from experiments.benchmark.belief_updates import measure_beliefs, show

    without_proc(monkeypatch)
    monkeypatch.setitem(sys.modules, "resource", None)  # import resource: ModuleNotFoundError
    row = measure_beliefs(3, "random", games=1, seed=0)
    assert row["rss_before_mib"] is None and row["peak_rss_mib"] is None
    assert json.loads(json.dumps(row, allow_nan=False))["peak_rss_mib"] is None  # null in the report
    show(SimpleNamespace(beliefs_games=1), [row])
    table = capsys.readouterr().out
    assert "MiB, peak: not measured (this Python has neither /proc nor the resource module)" in table


# -- a path outside ASCII ----------------------------------------------------------------------------


def test_a_value_outside_ascii_is_told_to_be_quoted():
    with pytest.raises(ConfigError) as refused:
        refuse_bad_override_syntax(["output_dir=results/Küche"])
    hint = "quoting a value with spaces, brackets or characters outside ASCII, e.g. 'key=\"a b\"'"
    assert hint in str(refused.value)
    refuse_bad_override_syntax(['output_dir="results/Küche"'])  # quoted, Hydra reads it


def test_an_output_path_outside_ascii_is_refused_where_file_names_are_not_utf8(monkeypatch, tmp_path):
    folder = tmp_path / "Küche"
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "utf-8")
    assert unwritable(folder, utf8_writers=True) is None
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "iso8859-1")  # a Latin-1 locale on Linux
    assert unwritable(folder, utf8_writers=True) == (
        f"{folder} has characters outside ASCII, and this Python's file names are iso8859-1, not UTF-8 as "
        "the Parquet and TensorBoard writers take them: run under a UTF-8 locale (LC_ALL=C.UTF-8) or with "
        "PYTHONUTF8=1"
    )
    assert unwritable(tmp_path / "Kueche", utf8_writers=True) is None


def test_a_folder_only_python_writes_to_is_not_refused_for_being_outside_ascii(monkeypatch, tmp_path):
    """Python's own ``open`` names such a path as the system does: only where pyarrow or TensorBoard write
    is it refused (every command's folder was, with a message blaming their writers)."""
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "iso8859-1")
    assert unwritable(tmp_path / "Küche") is None


OUTSIDE_ASCII = [  # (command writing with pyarrow or TensorBoard, its arguments with its output folder OUT, the key said)
    ("expert_dataset", ["--out", "OUT", "--games", "8", "--shard-games", "8"], "--out"),
    ("imitate", ['runs_dir="OUT"'], "runs_dir="),
    ("train_ppo", ['runs_dir="OUT"'], "runs_dir="),
    ("train_sb3", ['runs_dir="OUT"'], "runs_dir="),
    ("train_rllib", ['runs_dir="OUT"'], "runs_dir="),
]  # fmt: skip


@pytest.mark.skipif(sys.platform != "linux", reason="file names are UTF-8 on macOS and Windows")
@pytest.mark.parametrize(("command", "args", "said"), OUTSIDE_ASCII, ids=[c[0] for c in OUTSIDE_ASCII])
def test_a_command_refuses_an_output_folder_outside_ascii_under_an_ascii_locale(
    tmp_path, command, args, said
):
    pytest.importorskip({"train_sb3": "sb3_contrib", "train_rllib": "ray.rllib"}.get(command, "torch"))
    out = tmp_path / "Küche"
    words = [arg.replace("OUT", str(out)) for arg in args]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C", "PYTHONUTF8": "0"}  # file names: ASCII
    done = subprocess.run([sys.executable, "-m", f"experiments.{command}", *words],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode in (1, 2), done.stdout + done.stderr
    assert f"cannot write {said}" in done.stderr and "has characters outside ASCII" in done.stderr
    assert "run under a UTF-8 locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


@pytest.mark.skipif(sys.platform != "linux", reason="file names are UTF-8 on macOS and Windows")
def test_a_tournament_writes_an_output_folder_outside_ascii_under_an_ascii_locale(tmp_path):
    """Its files are written with Python's own ``open``, which names the folder by the bytes it was given:
    it was refused, with a message blaming the Parquet and TensorBoard writers, which it does not use."""
    out = tmp_path / "Küche"
    args = [f'output_dir="{out}"', "lineup.agents=[{name: random}, {name: notepad}]", "game.num_players=3",
            "game.max_turns=40", "games_per_lineup=2", "workers=0", "progress=false", "plots=false"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C", "PYTHONUTF8": "0"}  # file names: ASCII
    done = subprocess.run([sys.executable, "-m", "experiments.tournament", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "report.md").is_file() and (out / "games.jsonl").read_text(encoding="utf-8").strip()
