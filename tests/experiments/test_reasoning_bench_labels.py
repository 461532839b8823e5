"""The reasoning benchmark's printed table and leaderboard line say how many games their intervals are over,
and how they were drawn."""

from __future__ import annotations

import json

from cluedo_env import __version__
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


def test_the_report_and_the_leaderboard_line_name_the_tasks_scoring_and_code_that_made_them(
    tmp_path, monkeypatch
):
    """A line said only the split and the number of tasks: after ``v2`` was pinned again with other task
    text, lines appended before and after could not be told apart. They copy the scores file's settings
    (the tasks' sha256, the scoring's version, a solver file's sha256) and name the package version."""
    solver = tmp_path / "provenance_solver.py"
    solver.write_text("def solve(task):\n    return {}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    board = tmp_path / "board.jsonl"
    for name in ("uniform", "provenance_solver:solve"):
        run(ReasoningBenchConfig(
            solver=name, split="dev", limit=4, resamples=10, progress=False,
            output_dir=str(tmp_path / "out"), leaderboard=str(board),
        ))  # fmt: skip
    lines = [json.loads(x) for x in board.read_text().splitlines()]
    for line, folder in zip(lines, ("uniform", "provenance_solver_solve-*"), strict=True):
        (out,) = (tmp_path / "out").glob(folder)
        (scores,) = out.glob("scores-*.jsonl")
        settings = json.loads(scores.read_text().splitlines()[0])["settings"]
        report = json.loads((out / "report.json").read_text())
        named = {"tasks_sha256": settings["tasks"], "score_version": settings["score_version"],
                 "cluedo_env_version": __version__} | ({"files": settings["files"]} if "files" in settings else {})  # fmt: skip
        assert {key: line.get(key) for key in named} == named
        assert {key: report.get(key) for key in named} == named
    assert "files" not in lines[0] and list(lines[1]["files"]) == [str(solver)]
    assert lines[0]["tasks_sha256"] == lines[1]["tasks_sha256"] and len(lines[0]["tasks_sha256"]) == 64
