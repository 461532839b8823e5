"""Where the project's code is, and which git revision it is (recorded with each tournament run, imitate
run and training run, and named in words by ``code_name``); the sessions of an imitate or training run's
``run.json`` (``read_sessions``), and the time a session records (``utc_now``).

``REPO_ROOT`` is the folder above the project's packages: a checkout's root, or site-packages for
an installed package.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "REPO_ROOT",
    "code_name",
    "code_of",
    "git_revision",
    "read_sessions",
    "readable_code",
    "same_code",
    "utc_now",
]

REPO_ROOT = Path(__file__).resolve().parents[2]


def git_revision(root: Path = REPO_ROOT) -> dict:
    """The code's git revision and whether the working tree has uncommitted changes.

    ``{"revision": "unknown", "dirty": None}`` where git or the repository is missing, as for an
    installed package (``run.json`` records the package version then).
    """

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        # git writes a path as the file system's bytes (UTF-8 on Windows): read as ``root`` was read, not
        # in the locale's encoding, which under an ASCII locale failed on an "é" of the checkout's path
        return os.fsdecode(out.stdout).strip() if out.returncode == 0 else None

    # Only a checkout of this project: an installed copy may lie inside another repository.
    top = git("rev-parse", "--show-toplevel")
    revision = git("rev-parse", "HEAD") if top and Path(top).resolve() == root.resolve() else None
    status = git("status", "--porcelain") if revision else None  # untracked code counts too
    return {"revision": revision or "unknown", "dirty": None if status is None else bool(status)}


def code_name(code: dict, quote: str = "") -> str:
    """A code version in words: ``revision <revision>`` (with the package version where git was missing),
    and "with uncommitted changes" where the working tree had some; ``unrecorded code`` for the
    revision ``"unrecorded"`` (games no recorded session played).

    ``code``: ``git_revision``'s ``revision`` and ``dirty``, and ``version`` (the package's) where the
    revision is ``"unknown"``; ``quote`` goes on both sides of the revision (a backtick in Markdown).
    """
    if code["revision"] == "unrecorded":
        return "unrecorded code"
    name = f"revision {quote}{code['revision']}{quote}"
    if code["revision"] == "unknown" and code.get("version"):
        name += f" (cluedo-env {code['version']})"
    return name + (" with uncommitted changes" if code.get("dirty") else "")


def code_of(git: dict, version: str | None) -> dict:
    """A session's code as ``code_name`` and ``same_code`` read it: ``git`` (``git_revision``'s, or a
    ``run.json``'s; no revision: ``"unrecorded"``) and the package ``version``."""
    return {"revision": git.get("revision", "unrecorded"), "dirty": git.get("dirty"), "version": version}


def same_code(code: dict) -> tuple:
    """What two sessions of one code version share: the revision and whether the tree had uncommitted
    changes (the changes themselves are not recorded), and the package version where git was missing."""
    return code["revision"], code["dirty"], code["version"] if code["revision"] == "unknown" else None


def readable_code(git: object, version: object) -> bool:
    """Whether a ``run.json`` session's code is one this code writes (a file from elsewhere is printed in
    warnings): a revision of hex digits or ``"unknown"``, ``dirty`` a bool or None, and the package
    version None or at most 64 printable characters."""
    return (
        isinstance(git, dict)
        and isinstance(git.get("revision"), str)
        and re.fullmatch(r"[0-9a-f]{7,64}|unknown", git["revision"]) is not None
        and isinstance(git.get("dirty"), (bool, type(None)))
        and (version is None or (isinstance(version, str) and len(version) <= 64 and version.isprintable()))
    )


def read_sessions(path: Path, fits: Callable[[dict], bool]) -> list[dict]:
    """The sessions of ``path``, an imitate or training run's ``run.json`` (``{"sessions": [...]}``); none
    where it is missing, over 16 MiB or not one this code writes: each session an object with a package
    ``version`` and a ``git`` that ``readable_code`` reads (warnings print them), and that ``fits`` (the
    command's own fields of a session)."""
    try:
        with path.open("rb") as file:
            data = file.read(2**24 + 1)
        sessions = json.loads(data)["sessions"] if len(data) <= 2**24 else None
    except (OSError, ValueError, RecursionError, TypeError, KeyError):  # missing, not JSON, not an object
        return []
    good = isinstance(sessions, list) and all(
        isinstance(s, dict) and isinstance(s.get("version"), str) and readable_code(s.get("git"), s["version"])
        and fits(s)
        for s in sessions
    )  # fmt: skip
    return sessions if good else []


def utc_now() -> str:
    """The time now as ``run.json`` (each session's ``started``, a tournament session's ``finished``) and
    the reasoning files record it: ISO 8601 in UTC with its offset, to the second
    (``2026-12-05T10:00:00+00:00``), so that sessions recorded on machines in other time zones, or either
    side of a change of the clock, are ordered by it. Earlier files hold local time without an offset;
    they are read as before (nothing is computed from these times)."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
