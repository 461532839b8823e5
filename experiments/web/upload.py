"""A replay uploaded to the web app: untrusted bytes checked as ``python -m cluedo_env.replay --verify``
checks a file, then kept in the replay folder under a name the server makes.

``store_upload`` takes the bytes (at most ``MAX_UPLOAD_BYTES``), writes them to a hidden
temporary file of the folder, reads it with the project's own reader
(``cluedo_env.game_record.load_jsonl``: JSON values type- and range-checked, the end line's
step count and digest) and replays it through the rules core (``cluedo_env.replay.verify``:
every step's player, legality and events); only a record that passes, of a game the page can
draw (the classic edition on the classic board), is renamed to ``upload-<hex>.jsonl``, the hex
the start of the bytes' SHA-256: the same file uploaded again is the same replay, kept once. The
folder keeps at most ``MAX_UPLOADS`` uploads. Nothing read is unpickled or run. A refused upload
raises ``UploadRefused`` with the HTTP status to answer and a message naming what was wrong and
what is accepted.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from pathlib import Path

from cluedo_env import core
from cluedo_env.game_record import Replay, load_jsonl
from cluedo_env.replay import verify

__all__ = ["MAX_UPLOADS", "MAX_UPLOAD_BYTES", "UploadRefused", "check_drawable", "store_upload"]

MAX_UPLOAD_BYTES = 4 * 2**20  # a 6-player game of the full 500 turns is about 1.5 MB
MAX_UPLOADS = 256  # uploads kept in the replay folder (at most 1 GiB)
_KEEPING = threading.Lock()  # uploads checked at once are counted and kept one at a time
CLASSIC = core.GameConfig()


class UploadRefused(ValueError):
    """An upload that is not kept: ``status`` is the HTTP status to answer (400, 413 or 507)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def check_drawable(record: Replay) -> None:
    """Refuse a record the page cannot draw: another edition's cards or another board than the classic
    one (an upload, and a file of the replay folder when it is opened)."""
    config = record.config
    if config.board != CLASSIC.board or config.cards.cards != CLASSIC.cards.cards:
        raise UploadRefused(
            f"the page draws the classic edition on the classic board; this game has board "
            f"{config.board!r} and {config.cards.num_cards} cards ({config.cards.name!r})"
        )


def store_upload(folder: Path, data: bytes) -> str:
    """Check the uploaded replay ``data`` and keep it in ``folder``; the name it is kept under.

    Raises:
        UploadRefused: too big (413), empty, not a cluedo-replay record, cut, altered, a step the
            rules refuse, or a game the page cannot draw (400), or a folder that holds ``MAX_UPLOADS``
            uploads already (507); naming what was wrong.
    """
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadRefused(
            f"the upload is {len(data)} bytes; at most {MAX_UPLOAD_BYTES} bytes are accepted", status=413
        )
    if not data.strip():
        raise UploadRefused("the upload is empty; expected a .jsonl cluedo-replay record")
    name = f"upload-{hashlib.sha256(data).hexdigest()[:16]}.jsonl"
    if (folder / name).is_file():  # this very file, uploaded before (and checked then)
        return name
    _refuse_if_full(folder)  # before the check's work; counted again when kept
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(8)
    part = folder / f".upload-{token}.part"  # not a replay name: never listed or served
    part.write_bytes(data)
    try:
        try:
            record = load_jsonl(part)
            verify(record)
        except ValueError as error:  # not a record, incomplete or altered (load_jsonl, verify)
            message = str(error).replace(f"{part}: ", "").replace(f"{part}, ", "")
            raise UploadRefused(f"the upload is not a valid replay: {message}") from None
        check_drawable(record)
        with _KEEPING:
            if not (folder / name).is_file():  # (the same file, uploaded at once twice, is kept once)
                _refuse_if_full(folder)
                part.rename(folder / name)
    finally:
        part.unlink(missing_ok=True)
    return name


def _refuse_if_full(folder: Path) -> None:
    """Refuse an upload (507) when ``folder`` keeps ``MAX_UPLOADS`` uploads already."""
    kept = sum(1 for _ in folder.glob("upload-*.jsonl")) if folder.is_dir() else 0
    if kept >= MAX_UPLOADS:
        raise UploadRefused(
            f"the replay folder keeps {kept} uploads, the most it keeps ({MAX_UPLOADS}); "
            "watch a saved game, or ask the server's keeper to clear old uploads",
            status=507,
        )
