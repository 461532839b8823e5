"""The provisional leaderboard a tournament prints while it runs (``experiments/common/provisional.py``)."""

from __future__ import annotations

from experiments.common.chunks import Chunk
from experiments.common.provisional import ProvisionalLeaderboard

# Two line-ups of 2 players, both rotations, deals 0-3 in blocks of 2: 16 games, 2 blocks of 8.
LINEUPS = [("sat", "random"), ("notepad", "random")]
CHUNKS = [Chunk(lineup, rotation, first, 2) for first in (0, 2) for lineup in LINEUPS for rotation in (0, 1)]


def game(lineup, deal, rotation, winner):
    seats = [lineup[(seat - rotation) % 2] for seat in range(2)]
    return {"lineup": "+".join(lineup), "deal": deal, "rotation": rotation, "seats": seats, "winner": winner}


def block(first):
    """The 8 games of one block: the first agent of each line-up wins, except notepad on deal 1."""
    return [
        game(lineup, deal, rotation, None if (lineup[0], deal) == ("notepad", 1) else lineup[0])
        for lineup in LINEUPS
        for rotation in (0, 1)
        for deal in (first, first + 1)
    ]


def test_a_line_comes_when_a_block_is_complete_and_counts_only_complete_blocks():
    board = ProvisionalLeaderboard(CHUNKS)
    first, second = block(0), block(2)
    assert board.add(first[:7] + second[:5]) is None  # no block complete yet
    line = board.add(first[7:])
    assert line == (
        "provisional, 8 of 16 games (every line-up and seat, deals up to 1): sat 100.0% [51.0, 100.0]; "
        "notepad 50.0% [15.0, 85.0]; random 0.0% [0.0, 32.4] (win share, 95% Wilson)"
    )  # the 5 games of the second block wait for the rest of it
    assert board.add(second[5:]) is None  # the last block completes the tournament: the report follows


def test_games_found_at_a_resume_count_and_foreign_games_do_not():
    board = ProvisionalLeaderboard(CHUNKS)
    assert board.add(block(0)[:4] + [game(("sat", "random"), 9, 0, "sat")]) is None  # deal 9 is not planned
    assert board.add(block(0)[4:]).startswith("provisional, 8 of 16 games")


def test_a_game_recorded_twice_counts_once():
    """A resumed folder may hold a game twice (identical copies): half a block twice is half a block."""
    board = ProvisionalLeaderboard(CHUNKS)
    first = block(0)
    assert board.add(first[:4] * 2) is None
    assert board.add(first[4:]).startswith("provisional, 8 of 16 games")
