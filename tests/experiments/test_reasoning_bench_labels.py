"""The reasoning benchmark's printed table and leaderboard line say how many games their intervals are over,
and how they were drawn."""

from __future__ import annotations

import json

from experiments.reasoning_bench import ReasoningBenchConfig, run

INTERVALS = "95% intervals over games (bootstrap; Wilson's for a share of 0 or 1)"


def test_the_table_and_the_leaderboard_line_say_the_games_and_the_interval_method(tmp_path, capsys):
    """``overall | 30 | 1.000 [0.875, 1.000]`` was printed, and stored in the leaderboard line, without a word
    that the interval is Wilson's over the 27 games the 30 tasks were cut from."""
    board = tmp_path / "board.jsonl"
    cfg = ReasoningBenchConfig(
        solver="beliefs", split="dev", limit=30, resamples=10, progress=False,
        output_dir=str(tmp_path / "out"), leaderboard=str(board),
    )  # fmt: skip
    report = run(cfg)
    assert report["summary"]["overall"]["games"] == 27
    printed = capsys.readouterr().out.splitlines()
    at = next(k for k, x in enumerate(printed) if x.startswith("| group |"))  # the table, and above it:
    assert printed[at - 1].startswith("beliefs on v2/dev: 30 tasks from 27 games in ")
    assert printed[at - 1].endswith(f" s; {INTERVALS}")
    (line,) = [json.loads(x) for x in board.read_text().splitlines()]
    assert (line["tasks"], line["games"], line["intervals"]) == (30, 27, INTERVALS)
    assert line["solved"] == report["summary"]["overall"]["solved"]
