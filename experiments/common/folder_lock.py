"""Output folders: one run at a time in one (a tournament, the expert dataset, a reasoning run, an
imitation run, a PPO run and its resumes), by the folder's OS lock (``tournament.lock``, its name from
the first command that took it); the symbolic links a run would write through; whether this process can
write there at all (``unwritable``); the refusals of a folder (``FolderRefused``), among them one that
holds another command's files (``FolderOfOthers``).

A lock file that cannot be made or written (a full disk, a read-only folder) stops the run before it
starts, in one line as the other write failures (``LockNotWritten``); a lock the file system refuses (no
locks on some network disks) is not taken for one held by another run.

On Windows the lock (``msvcrt.locking``) is mandatory: no other process may read the bytes it holds. It
holds one byte far past the holder line (``LOCKED_BYTE``), so that a second run reads who holds the
folder; a lock of the line itself (an earlier version's) leaves the holder unnamed ("another process").

An output folder outside ASCII that pyarrow or TensorBoard write to (``unwritable(...,
utf8_writers=True)``: the expert dataset, imitation and training runs) is refused where Python's file
names are not UTF-8 (a Latin-1 locale on Linux): they write to a path's UTF-8 bytes, which name another
file there; a UTF-8 locale, or ``PYTHONUTF8=1``, makes them one."""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from experiments.common.code_revision import utc_now

__all__ = [
    "IN_USE",
    "LOCK_FILE",
    "FolderInUse",
    "FolderOfOthers",
    "FolderRefused",
    "FolderWithLinks",
    "LockNotWritten",
    "links_in",
    "links_text",
    "lock_folder",
    "unwritable",
]

LOCK_FILE = "tournament.lock"
IN_USE = "Wait for it to finish, or choose another output_dir"  # what to do instead (lock_folder's advice)
# What a run whose lock file cannot be written is told to do (it has not started).
NO_LOCK = (
    "nothing was run: make room on the disk or make the folder writable, or choose another output folder"
)
# The errors of a lock another process holds (flock: EWOULDBLOCK; msvcrt.locking: EACCES or EDEADLOCK).
HELD = {errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)}
# The byte msvcrt.locking locks (Windows allows locking past the end of a file): not one of the holder
# line's, which another process could not read while the lock holds it.
LOCKED_BYTE = 1 << 30


class FolderRefused(RuntimeError):
    """An output folder a run may not write into (``FolderInUse``, ``FolderWithLinks``,
    ``LockNotWritten``), or whose file system refuses a lock."""


class FolderWithLinks(FolderRefused):
    """The output folder holds symbolic links: a run's writes would follow them out of it."""


class FolderOfOthers(FolderRefused):
    """The output folder holds files the command did not write (another command's, the user's): it would
    write over those of the same name (``experiments.common.output_paths.others_in``)."""


class FolderInUse(FolderRefused):
    """Another run is writing into the same ``output_dir``."""


class LockNotWritten(FolderRefused):
    """The lock file could not be made or written (a full disk, a read-only folder): ``cannot write
    <out>/tournament.lock (<the error's strerror>); <what to do>``, as a results file that cannot be
    written (``experiments.common.write_failures``). The run has not started, and the folder is left
    unlocked: the lock file stays (empty, or as it was), and the next run takes it."""


@contextmanager
def lock_folder(out: Path, within: Path | None = None, advice: str = IN_USE) -> Iterator[None]:
    """Hold an exclusive OS lock on ``out/tournament.lock`` for the block.

    ``within``: the folder the user named, where ``out`` is a sub-folder the command picks
    (``<output_dir>/<solver>``); ``out`` and the folders between may not be links then (the named
    folder itself may). ``advice``: the message's last sentence, what to do instead (a command whose
    folder is not named by ``output_dir`` says its own).

    The lock is the operating system's (``flock``; ``msvcrt.locking`` on Windows), so it ends
    with the process that holds it: a killed run leaves the file but never a held lock. The file
    says who holds it (its process, host and start: ``utc_now``, as ``run.json``'s), for the message of
    a run that finds it taken; a run that could not write that line stops at once (``LockNotWritten``)
    and leaves the file empty and unlocked.

    Raises:
        FolderInUse: Another process holds the lock.
        LockNotWritten: The lock file could not be made or written (a full disk, a read-only folder);
            the folder is not locked, and the run has not started.
        FolderRefused: The file system refused the lock for another reason than another run's lock
            (``ENOLCK``: some network disks have no locks).
        FolderWithLinks: The folder holds symbolic links (checked first; a folder from elsewhere could
            point the lock file, the records or the reports at any file of the user).
    """
    links = links_in(out)
    if within is not None:  # the folders the command picked, from the named one down to out
        parts = out.relative_to(within).parts
        links += [
            within.joinpath(*parts[: k + 1])
            for k in range(len(parts))
            if within.joinpath(*parts[: k + 1]).is_symlink()
        ]
    if links:
        raise FolderWithLinks(
            f"{out} is or holds symbolic links ({links_text(links)}): "
            "a run writes its files there, and through a link it would write wherever the link points. "
            "Remove the links, or choose another output folder"
        )
    path = out / LOCK_FILE
    try:  # unbuffered: a failed write raises once, here, and not again when the file is closed
        file = path.open("a+b", buffering=0)
    except OSError as error:
        raise LockNotWritten(f"cannot write {path} ({error.strerror or error}); {NO_LOCK}") from error
    locked = False
    try:
        try:
            _lock(file)
            locked = True
        except OSError as error:
            if error.errno not in HELD:  # the file system's failure, not another run's lock
                raise FolderRefused(
                    f"cannot lock {path} ({error.strerror or error}): the file system of {out} may not "
                    "support locks; choose an output folder on a local disk"
                ) from error
            holder = ""
            with contextlib.suppress(OSError):  # a Windows lock of the line itself (an earlier version's)
                file.seek(0)
                holder = file.read(1000).decode("utf-8", "replace").strip()
            raise FolderInUse(
                f"{out} is in use by another run ({holder or 'another process'}); two runs writing into one "
                f"folder would do the same work twice and mix their files. {advice}"
            ) from None
        line = f"pid {os.getpid()} on {socket.gethostname()}, started {utc_now()}"  # UTC, as run.json's
        try:
            file.seek(0)
            file.truncate()
            if file.write(line.encode()) < len(line.encode()):  # the disk filled part-way
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as error:
            with contextlib.suppress(OSError):
                file.truncate(0)  # no half line for another run's message
            raise LockNotWritten(f"cannot write {path} ({error.strerror or error}); {NO_LOCK}") from error
        yield
    finally:
        if locked:
            with contextlib.suppress(OSError):  # (closing the file releases it anyway)
                _unlock(file)
        file.close()


def links_in(folder: Path) -> list[Path]:
    """The symbolic links in ``folder`` and below (not followed), as paths relative to it; ``folder``
    itself may be one (the user named it)."""
    links = []
    for root, folders, files in os.walk(folder):
        links += [
            Path(root, name).relative_to(folder)
            for name in folders + files
            if os.path.islink(Path(root, name))
        ]
    return sorted(links)


def links_text(links: list[Path]) -> str:
    """The links found, for a message: the first three, then ``...``."""
    return ", ".join(map(str, links[:3])) + (", ..." if len(links) > 3 else "")


def _lock(file) -> None:
    """Take an exclusive, non-blocking lock on an open file (``OSError`` when another process holds it)."""
    if sys.platform == "win32":
        import msvcrt

        file.seek(LOCKED_BYTE)
        msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _unlock(file) -> None:
    """Release the lock ``_lock`` took: on Windows the same byte, unlocked before the file is closed (Windows
    releases a closed file's locks in its own time); ``flock``'s ends with the file."""
    if sys.platform == "win32":
        import msvcrt

        file.seek(LOCKED_BYTE)
        msvcrt.locking(file.fileno(), msvcrt.LK_UNLCK, 1)


def unwritable(folder: str | Path, *, utf8_writers: bool = False) -> str | None:
    """Why ``folder`` cannot be created or written by this process (None: it can).

    ``utf8_writers``: whether pyarrow or TensorBoard write there (the expert dataset, imitation and
    training runs). Their writers take a path's UTF-8 bytes, which name another file where Python's file
    names are not UTF-8 (``sys.getfilesystemencoding()``: a Linux locale such as Latin-1), so there a path
    outside ASCII cannot be written by them: a run would fail late, when it first writes a table or a log.
    Python's own ``open`` (and ``torch.save``, which opens a path outside ASCII with it) writes such a path
    wherever it can be named, so a folder only they write to is not refused for it."""
    path = Path(folder).absolute()
    encoding = sys.getfilesystemencoding()
    if utf8_writers and not str(path).isascii() and codecs.lookup(encoding).name != "utf-8":
        return (
            f"{path} has characters outside ASCII, and this Python's file names are {encoding}, not UTF-8 as "
            "the Parquet and TensorBoard writers take them: run under a UTF-8 locale (LC_ALL=C.UTF-8) or with "
            "PYTHONUTF8=1"
        )
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    try:  # a file made and removed at once: the test that holds for every user and file system
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        return f"{existing} cannot be written ({error.strerror or error})"
    return None
