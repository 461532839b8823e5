"""Saved games in the browser: a replay (``cluedo_env.replay``'s file) at any step, from any seat's
view or from everyone's.

``ReplayedGame`` is a record replayed on the core to one step, seen from one seat: it holds what
``session.seat_view`` reads of a ``WebGame`` (the state, the seat's private view of the events so
far, no legal actions), so a seat's view of a replay is built exactly as the live game's is. The
omniscient view (``seat=None``) reads the full events and adds the envelope and every hand
(``session.reveal``) at every step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cluedo_env import core
from cluedo_env.game_record import Replay, load_jsonl
from cluedo_env.replay import replay
from experiments.web.session import reveal, seat_view
from experiments.web.upload import check_drawable

__all__ = ["REPLAY_NAME", "ReplayedGame", "list_replays", "replay_view"]

REPLAY_NAME = re.compile(r"[A-Za-z0-9_.-]+\.jsonl")  # a file name in the replay folder, no path


def list_replays(folder: Path) -> list[str]:
    """The replay files of ``folder`` (names only), newest first."""
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if p.is_file() and REPLAY_NAME.fullmatch(p.name)]
    return [p.name for p in sorted(files, key=lambda p: (-p.stat().st_mtime, p.name))]


class ReplayedGame:
    """Record ``record`` replayed to after step ``step`` (0: the deal), seen from ``seat`` (None: everyone).

    Raises:
        ValueError: a step or a seat out of range (naming the value and the range).
    """

    def __init__(self, name: str, record: Replay, step: int, seat: int | None) -> None:
        players = record.config.num_players
        if not 0 <= step <= record.num_steps:
            raise ValueError(f"step must be in [0, {record.num_steps}] for replay {name!r}, got {step}")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be in [0, {players}) or 'all' for replay {name!r}, got {seat}")
        self.game_id = name
        self.config = record.config
        self.seat = -1 if seat is None else seat  # -1: nobody's hand, everybody's events
        self.names = dict.fromkeys(range(players), "recorded")
        self.replay_path = None
        self.save_error = None  # (a replay is saved already)
        self.steps = step  # the actions played up to the point shown
        for k, state in enumerate(replay(record)):
            if k == step:
                self.state = state
                break
        rows = [record.initial_events, *record.events[:step]]
        self.events = rows if seat is None else [core.private_view(r, seat) for r in rows]

    @property
    def over(self) -> bool:
        return bool(self.state.done[0])

    def history(self) -> np.ndarray:
        """The viewer's events from the deal to this step."""
        return np.concatenate(self.events)

    def legal(self) -> np.ndarray:
        """None: a replay is watched, not played."""
        return np.zeros(0, dtype=np.int64)


def replay_view(
    folder: Path, name: str, step: int, seat: int | None, view: Callable[..., dict] = seat_view
) -> dict:
    """The view of replay ``name`` of ``folder`` after ``step`` steps from ``seat`` (None: everyone).

    A seat's view is ``view``'s (``session.seat_view``: only that seat's private view of the
    recorded events feeds it, its notepad and its exact posterior ``beliefs``, the page's heat
    map); another view function serves only the privacy test's leaky controls.

    Raises:
        FileNotFoundError: no replay of that name in the folder (naming it and how many there are).
        ValueError: a step or seat out of range, a file that is cut, altered or unreadable (its
            loader's error, naming the file but not the folder), or a game the page cannot draw
            (``upload.check_drawable``: another edition or board, as an upload of it is refused).
    """
    if not REPLAY_NAME.fullmatch(name) or name not in list_replays(folder):
        raise FileNotFoundError(
            f"no replay {name!r} in the replay folder ({len(list_replays(folder))} replays there: GET /api/replays)"
        )
    path = folder / name
    try:
        record = load_jsonl(path)
        check_drawable(record)
    except (OSError, ValueError) as error:  # named by the file's name: the server's folder stays its own
        said = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        said = said.replace(f"{path}: ", "").replace(f"{path}, ", "")
        kind = FileNotFoundError if isinstance(error, FileNotFoundError) else ValueError
        raise kind(f"replay {name!r}: {said}") from None
    game = ReplayedGame(name, record, step, seat)
    result = view(game)
    if seat is None:
        result.update(reveal(game))
    result.update(
        {"replay": name, "step": step, "steps": record.num_steps, "viewer": "all" if seat is None else seat}
    )
    return result
