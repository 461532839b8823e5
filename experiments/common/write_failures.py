"""Results that cannot be written (a full disk, a folder made read-only while a run goes on): the run
stops with one line naming the file and the error, and keeps what it wrote before.

``writing(path)`` wraps the code that writes one results file; an ``OSError`` raised there becomes
``NotWritten``, which the tournament, ``reasoning_bench`` and ``expert_dataset`` print as
``error: cannot write <file> (<why>); <what is kept and the command that resumes>``, exit status 1.
Only writes are wrapped: an ``OSError`` of anything else (reading a file, an agent's own) is not one.
The output folder's lock file, written before anything else, is reported in the same form by every
command that takes it (``experiments.common.folder_lock.LockNotWritten``: the run has not started).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["NotWritten", "writing"]


class NotWritten(RuntimeError):
    """A results file could not be written: ``cannot write <file> (<the error's strerror>)``. The
    results written before it are kept."""


@contextmanager
def writing(path: str | Path, partial: Path | None = None) -> Iterator[None]:
    """Raise ``NotWritten`` for an ``OSError`` raised in the block, which writes ``path``: a file, or a
    folder of files (then the file the error names, where it names one). ``partial``: a folder the block
    fills before renaming it to ``path``, removed then (it would hold the room a full disk lacks)."""
    try:
        yield
    except OSError as error:
        if partial is not None:
            shutil.rmtree(partial, ignore_errors=True)
        if Path(path).is_dir():  # the file the error names, else the folder
            path = error.filename or f"a file in {path}"
        raise NotWritten(f"cannot write {path} ({error.strerror or error})") from error
