"""Files written whole or not at all: a run killed while writing one leaves the file as it was (or
absent), never half of the new one."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_whole"]


def write_whole(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path``: into ``<name>.<pid>.tmp`` beside it, synced, then
    renamed over it (the rename replaces a link at ``path``, it does not write through it). A write that
    fails (a full disk) removes the temporary file and leaves ``path`` as it was."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as file:
            file.write(data.encode() if isinstance(data, str) else data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
