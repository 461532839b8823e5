"""A finished web game as a tournament's game record: the person's seat is the agent label ``human``.

``game_result`` builds the record a tournament writes (``experiments.common.chunks.game_record``'s
fields, checked by ``experiments.common.games_file.check_game_record``) from a finished game's
replay record; ``append_result`` appends it to ``<folder>/games.jsonl`` (``GameWriter``; a file
whose last line was cut short, by a full disk, is first repaired as a tournament's resume repairs
it, ``load_games(..., repair=True)``: the torn line moved to ``games.jsonl.rejected``), so that
``cluedo-stats`` (``python -m experiments.common.stats FOLDER``, alone or pooled with tournament
folders) reports the person beside the agents.

How a web game maps onto the record's fields:

=====================  ========================================================================
``config``             ``web-<game id>``: each web game is a run of its own, so that two games
                       of one deal (a person may choose the seed) are two games, not two
                       different results for one
``lineup``             ``human`` first (``human_seeded`` for a game whose seed the person
                       chose: a row of its own, as the person may have seen that deal before),
                       then the agents at the following seats in turn order
``rotation``           the person's seat (line-up agent ``k`` sits at seat ``(k + seat) % players``)
``seed``, ``deal``     the deal's core seed, and it modulo ``DEAL_SEED_STRIDE``
``turns``              turns played; ``decisions`` the steps of the game (every seat's)
``accusations``        per seat, from the accusation events, as the tournament's arena counts them
=====================  ========================================================================
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.state import State
from cluedo_env.game_record import Replay
from experiments.common.games_file import (
    DEAL_SEED_STRIDE,
    GAMES_FILE,
    GameWriter,
    check_game_record,
    load_games,
)

__all__ = ["HUMAN", "HUMAN_SEEDED", "append_result", "game_result"]

HUMAN = "human"  # the person's agent label in the results
HUMAN_SEEDED = "human_seeded"  # ... in a game whose seed the person chose
_APPENDING = threading.Lock()  # games that end at once append one line each, whole


def game_result(
    game_id: str, seat: int, names: dict[int, str], record: Replay, state: State, person: str = HUMAN
) -> dict:
    """The game record of a finished game, ``person`` at ``seat`` and agent ``names[s]`` at each other seat.

    Raises:
        ValueError: the game is not over, or the record fails ``check_game_record`` (naming the field).
    """
    if not bool(state.done[0]):
        raise ValueError(f"game {game_id} is not over: only finished games join the results")
    players = record.config.num_players
    seats = [person if s == seat else names[s] for s in range(players)]
    accusations, wrong = [0] * players, [0] * players
    for rows in record.events:
        for row in rows[rows[:, ev.KIND] == ev.ACCUSE]:
            accusations[int(row[ev.PLAYER])] += 1
            wrong[int(row[ev.PLAYER])] += int(row[ev.CORRECT] == 0)
    winner = int(state.winner[0])
    result = {
        "config": f"web-{game_id}",
        "lineup": "+".join(seats[(k + seat) % players] for k in range(players)),
        "deal": record.seed % DEAL_SEED_STRIDE,
        "seed": record.seed,
        "rotation": seat,
        "players": players,
        "seats": seats,
        "winner": seats[winner] if winner >= 0 else None,
        "winner_seat": winner if winner >= 0 else None,
        "turns": int(np.asarray(state.turns_played)[0]),
        "truncated": bool(state.truncated[0]),
        "decisions": record.num_steps,
        "accusations": accusations,
        "wrong_accusations": wrong,
    }
    check_game_record(result)
    return result


def append_result(folder: Path, result: dict) -> Path:
    """Append the game record ``result`` to ``folder``'s ``games.jsonl`` (made if need be); its path.

    A file that does not end with a whole line (an append cut short) is repaired first
    (``load_games(..., repair=True)``), so that the record starts on a line of its own.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / GAMES_FILE
    with _APPENDING:
        if _torn(path):
            load_games(path, repair=True, lost="their results are not in the results folder")
        writer = GameWriter(path)
        try:
            writer.write([result])
        finally:
            writer.close()
    return path


def _torn(path: Path) -> bool:
    """Whether the file ``path`` ends in a line cut short (its last byte is not a newline)."""
    if not path.is_file() or path.stat().st_size == 0:
        return False
    with path.open("rb") as file:
        file.seek(-1, 2)
        return file.read(1) != b"\n"
