"""Files written whole or not at all: a run killed while writing one leaves the file as it was (or
absent), never half of the new one; two processes writing one file at once each rename a whole file of
their own over it."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["whole_file", "write_whole"]


@contextmanager
def whole_file(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new bytes into: ``<name>.<pid>.<8 hex digits>.tmp`` beside it (its
    own, were two threads writing ``path`` at once), synced and renamed
    over ``path`` when the block ends (the rename replaces a link at ``path``, it does not write through
    it). A block that fails (a full disk, an exception, Ctrl-C) removes the temporary file and leaves
    ``path`` as it was; a killed process leaves its temporary file."""
    path = Path(path)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with temporary.open("wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_whole(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole (``whole_file``)."""
    with whole_file(path) as file:
        file.write(data.encode() if isinstance(data, str) else data)
