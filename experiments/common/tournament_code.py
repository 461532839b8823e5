"""Which code played a tournament folder's games, read from its ``run.json`` (``RUN_FILE``).

``experiments.common.tournament_run`` records each session of a run there (its git revision, whether
the tree had uncommitted changes, the package version, and the games the folder held when it started)
and lists in the run's report the code versions that played its games (``code_versions``).
``run_code`` reads them from a folder for ``experiments.compare`` and a pooled ``cluedo-stats`` report,
which say where the runs' code differs or is unknown (``runs_code_note``, each run's code in words by
``versions_name``); ``run_record``, the folder's ``run.json``, for a run's report written again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from experiments.common.code_revision import code_name, code_of, readable_code, same_code
from experiments.common.games_file import record_key

__all__ = ["RUN_FILE", "code_versions", "run_code", "run_record", "runs_code_note", "versions_name"]

RUN_FILE = "run.json"


def code_versions(sessions: list[dict], records: list[dict], keep: set | None = None) -> list[dict]:
    """Which code played a folder's games: ``{"revision", "dirty", "version", "games"}`` for each code
    version (``git_revision`` and the package version), in the order they first played.

    A session records the number of games the folder held when it started (``games_found``), and
    games are appended in the order played, so the records of ``games.jsonl`` (``records``, in file
    order) from one session's ``games_found`` up to the next session's are that session's games, even
    where it was killed before recording how many it played. Games before the first recorded
    session's (its ``run.json`` lost) count under revision ``"unrecorded"``. A game written twice
    counts once; with ``keep``, only the games whose ``record_key`` is in it count. Sessions of one
    revision count as one code version where their ``dirty`` flags agree (the uncommitted changes
    themselves are not recorded), and where the revision is ``"unknown"`` (no git) as one where
    their package versions agree.
    """
    starts = [int(s.get("games_found", 0)) for s in sessions]
    versions: dict[tuple, dict] = {}
    seen: set = set()
    for place, record in enumerate(records):
        key = record_key(record)
        if key in seen or (keep is not None and key not in keep):
            continue
        seen.add(key)
        # The session that wrote it: the last one that began with at most ``place`` games in the file.
        number = max((n for n, start in enumerate(starts) if start <= place), default=-1)
        session = sessions[number] if number >= 0 else {}
        code = code_of(session.get("git") or {"revision": "unrecorded"}, session.get("version"))
        entry = versions.setdefault(same_code(code), code | {"games": 0})
        entry["games"] += 1
    return list(versions.values())


def run_code(folder: Path, records: Sequence[dict], keep: set | None = None) -> list[dict] | None:
    """The code that played a folder's games: ``code_versions`` of the sessions of its ``run.json``.

    ``records``: the folder's games in file order; with ``keep``, only the games whose ``record_key``
    is in it count. Games before the first recorded session are of revision ``"unrecorded"``. None
    where the folder has no ``run.json`` of these games (``run_record``).
    """
    info = run_record(folder, records)
    return None if info is None else code_versions(info["sessions"], list(records), keep)


def run_record(folder: Path, records: Sequence[dict]) -> dict | None:
    """The folder's ``run.json`` (its ``config_hash`` and ``sessions``) where it is one of ``records``, the
    folder's games: None where it has none, one that cannot be read as a tournament's (sessions whose code
    ``readable_code`` reads: revisions of hex digits or ``"unknown"``), or one of another config hash."""
    try:
        info = json.loads((folder / RUN_FILE).read_bytes())
    except (OSError, ValueError, RecursionError):  # missing, or not JSON
        return None
    sessions = info.get("sessions") if isinstance(info, dict) else None
    good = (
        isinstance(sessions, list)
        and isinstance(info.get("config_hash"), str)
        and {r.get("config") for r in records} <= {info["config_hash"]}
        and all(
            isinstance(s, dict) and type(s.get("games_found", 0)) is int
            and readable_code(s.get("git"), s.get("version"))
            for s in sessions
        )
    )  # fmt: skip
    return info if good else None


def versions_name(versions: list[dict] | None, quote: str = "") -> str:
    """The code that played a run's games in words (``versions``: ``run_code``'s), with the number of
    games of each code version where there are several; ``unknown code`` for the games no recorded
    session played, and for None. ``quote`` as ``code_name``'s."""
    if versions is None:
        return "unknown code (no run.json of its games)"
    if not versions:
        return "no games"
    named = ["unknown code" if v["revision"] == "unrecorded" else code_name(v, quote) for v in versions]
    if len(versions) == 1:
        return named[0]
    return " and ".join(
        f"{name} ({v['games']} game{'s' * (v['games'] != 1)})" for name, v in zip(named, versions)
    )


def runs_code_note(names: Sequence[str], codes: Sequence[list[dict] | None]) -> str | None:
    """What is said where the games of runs ``names`` were not all played by one code version (``codes``:
    ``run_code`` of each), or may not have been (some code unknown): each run's code (``versions_name``);
    None where one known code version played them all. The caller says what may follow from it."""
    every = [v for versions in codes for v in versions or []]
    unknown = None in codes or any(v["revision"] == "unrecorded" for v in every)
    if not unknown and len({same_code(v) for v in every}) <= 1:
        return None
    played = "; ".join(f"{name} by {versions_name(versions)}" for name, versions in zip(names, codes))
    return f"{'the code of the runs may differ' if unknown else 'other code played the runs'}: {played}"
