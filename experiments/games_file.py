"""The results file of a tournament, ``games.jsonl``: one game record (a JSON object) per line.

``read_games`` reads it back, skipping (and with ``repair`` moving aside) the lines that are
not game records; ``GameWriter`` appends records, synced per chunk so that a killed run
loses at most the line it was writing. ``experiments.tournament`` writes the file and
``experiments.stats`` reads it; neither imports the other.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

__all__ = ["RECORD_FIELDS", "REJECTED_SUFFIX", "GameWriter", "read_games"]

REJECTED_SUFFIX = ".rejected"
RECORD_FIELDS = ("config", "lineup", "deal", "rotation", "players", "seats", "winner_seat")


def read_games(path: Path, repair: bool = False) -> list[dict]:
    """The games of a ``games.jsonl``; lines that are not game records are skipped with a warning.

    A bad line is a torn record (a writer killed mid-line), garbage, or JSON without
    the fields of a game record. Its game is then missing, so a resumed run plays it again.

    Args:
        path: The file (missing: no games).
        repair: Also move the bad lines out of the file, appending them to ``games.jsonl.rejected``
            beside it (the file is rewritten atomically), so that appends start on a clean line.
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    records, good, bad = [], [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        record = _game_record(line)
        if record is None:
            bad.append((number, line))
        else:
            records.append(record)
            good.append(line)
    if bad:
        numbers = ", ".join(str(number) for number, _ in bad[:10]) + (" ..." if len(bad) > 10 else "")
        where = f"moved to {path.name}{REJECTED_SUFFIX}" if repair else "left in place"
        warnings.warn(
            f"{path}: {len(bad)} line(s) are not game records (line {numbers}); skipped and {where}, "
            "their games are played again on resume",
            RuntimeWarning,
            stacklevel=2,
        )
    clean = b"".join(line + b"\n" for line in good)
    if repair and data != clean:
        if bad:
            with path.with_name(path.name + REJECTED_SUFFIX).open("ab") as rejected:
                rejected.write(b"".join(line + b"\n" for _, line in bad))
                rejected.flush()
                os.fsync(rejected.fileno())
        partial = path.with_name(path.name + ".partial")
        with partial.open("wb") as file:
            file.write(clean)
            file.flush()
            os.fsync(file.fileno())
        partial.replace(path)  # a kill now leaves the old file or the clean one, never half of each
    return records


def _game_record(line: bytes) -> dict | None:
    """The record on one line of ``games.jsonl``, or None when the line is not one."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or any(name not in record for name in RECORD_FIELDS):
        return None
    if not isinstance(record["lineup"], str) or not all(
        isinstance(record[name], int) and not isinstance(record[name], bool) for name in ("deal", "rotation")
    ):
        return None
    return record


class GameWriter:
    """Appends game records to ``games.jsonl``, one line each, flushed and synced per chunk."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("a", encoding="utf-8")

    def write(self, records: list[dict]) -> None:
        self.file.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()
