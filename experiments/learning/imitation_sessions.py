"""The sessions of an imitation run (``experiments.imitate``) in its folder's ``run.json``: each run's
start, code and the batches of the teacher's decisions it found and had to play (``record_session``),
and which code recorded the batches a folder holds (``decisions_code``), for the one warning line of a
run that reuses batches of other code.
"""

from __future__ import annotations

import json
from pathlib import Path

from cluedo_env import __version__
from cluedo_env.whole_files import write_whole
from experiments.common.code_revision import (
    code_name,
    code_of,
    git_revision,
    read_sessions,
    same_code,
    utc_now,
)

__all__ = ["RUN_FILE", "UNRECORDED", "decisions_code", "record_session"]

RUN_FILE = "run.json"  # each run of the folder: its code and the batches it found (record_session)
# An imitate older than run.json (cluedo-env 0.1.0 too) recorded no code.
UNRECORDED = f"unrecorded code (no readable {RUN_FILE} names it: an imitate older than {RUN_FILE} wrote none)"


def record_session(folder: Path, batches: list[Path]) -> None:
    """Add this run to ``folder``'s ``run.json`` (``{"sessions": [...]}``): its start (``utc_now``: UTC),
    package version, git revision (``experiments.common.code_revision.git_revision``), the number of
    batches it found and has to play, and the numbers of those it has to play (``batches_missing``).
    ``batches``: the batch files of the run's recording, written or not (``experiments.imitate.batch_paths``
    of ``folder / "decisions"``), numbered by their place. Where the batches found were recorded by other
    code (``decisions_code``), print one warning line naming each code with its batches and this run's.
    With no batch found the earlier sessions are dropped (they left no decisions); a ``run.json`` that
    cannot be read counts as none."""
    held = [number for number, path in enumerate(batches) if path.is_file()]
    missing = sorted(set(range(len(batches))) - set(held))
    sessions = _read_sessions(folder / RUN_FILE) if held else []
    code = code_of(git_revision(), __version__)
    recorded = decisions_code(sessions, held)
    if any(same_code(v) != same_code(code) for v in recorded):
        played = "; ".join(
            f"{v['batches']} batch{'es' * (v['batches'] != 1)} by "
            + (UNRECORDED if v["revision"] == "unrecorded" else code_name(v))
            for v in recorded
        )
        print(
            f"warning: {folder / 'decisions'} holds decisions of the teacher recorded by other code than this "
            f"run's: {played}; this run is {code_name(code)}. The teacher's play can change with the code, so "
            "the network is fitted to decisions this code's teacher may not make; give this run another "
            "exp_name to record them again under this code"
        )
    sessions.append(
        {
            "started": utc_now(),
            "version": __version__,
            "git": {"revision": code["revision"], "dirty": code["dirty"]},
            "batches_found": len(held),
            "batches_to_play": len(missing),
            "batches_missing": missing,
        }
    )
    write_whole(folder / RUN_FILE, json.dumps({"sessions": sessions}, indent=2) + "\n")


def decisions_code(sessions: list[dict], held: list[int]) -> list[dict]:
    """Which code recorded the batches of a folder whose numbers are ``held`` (in order): ``{"revision",
    "dirty", "version", "batches"}`` for each code version, in the order they recorded.

    A session (of ``run.json``) records the numbers of the batches missing when it started
    (``batches_missing``), which it played: a batch is the last such session's (a batch deleted and played
    again, the later one's). A session of an imitate older than ``batches_missing`` records only how many
    it played (``batches_to_play``): after sessions that name their batches, it takes that many of the
    held batches they named (which ones it does not say: the highest-numbered). A batch no session names
    is, where such a session counted it (``batches_found``: from its count up to the next such session's,
    by place, as the tournament's ``code_versions`` counts games), that session's; else of revision
    ``"unrecorded"`` (an imitate older than ``run.json``, or its file lost). As there, sessions of one
    revision and ``dirty`` flag are one code version, and of revision ``"unknown"`` those of one version."""
    writer: dict[int, int] = {}  # batch number -> the session that wrote it (-1: none recorded)
    for number, session in enumerate(sessions):
        if "batches_missing" in session:
            writer |= dict.fromkeys(session["batches_missing"], number)
        else:  # played again, after a named session, some of the batches it named
            named = sorted(batch for batch in held if batch in writer)
            writer |= dict.fromkeys(named[max(0, len(named) - session["batches_to_play"]) :], number)
    counted = [(n, s["batches_found"]) for n, s in enumerate(sessions) if "batches_missing" not in s]
    unnamed = [batch for batch in held if batch not in writer]
    for place, batch in enumerate(unnamed):
        writer[batch] = max((number for number, start in counted if start <= place), default=-1)
    versions: dict[tuple, dict] = {}
    for number in sorted(writer[batch] for batch in held):
        session = sessions[number] if number >= 0 else {"git": {"revision": "unrecorded"}, "version": None}
        code = code_of(session["git"], session["version"])
        versions.setdefault(same_code(code), code | {"batches": 0})["batches"] += 1
    return list(versions.values())


def _read_sessions(path: Path) -> list[dict]:
    """The sessions of ``path`` (a ``run.json``; ``code_revision.read_sessions``: none where it is missing,
    over 16 MiB or not one this code writes), each with the number of batches it found and the numbers of
    those it found missing or, from an imitate older than ``batches_missing``, how many (whole numbers)."""

    def fits(session: dict) -> bool:
        missing = session.get("batches_missing", [session.get("batches_to_play")])
        numbers = [session.get("batches_found"), *missing] if isinstance(missing, list) else [None]
        return all(type(n) is int and n >= 0 for n in numbers)

    return read_sessions(path, fits)
