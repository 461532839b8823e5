"""Files written whole or not at all (``cluedo_env.whole_files``)."""

from __future__ import annotations

import errno
import os

import pytest

from cluedo_env import whole_files
from cluedo_env.whole_files import write_whole


def test_a_file_is_replaced_whole(tmp_path):
    path = tmp_path / "report.json"
    path.write_text("old")
    write_whole(path, "new")
    assert path.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_write_that_fails_leaves_the_file_as_it_was_and_no_temporary_file(tmp_path, monkeypatch):
    """A full disk left ``report.json.<pid>.<hex>.tmp`` beside the file."""
    path = tmp_path / "report.json"
    path.write_text("old")

    def full(descriptor):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(whole_files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_whole(path, "new")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
