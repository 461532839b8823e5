"""A resumed run's scores lines (``experiments.common.reasoning_scores``) are checked against their tasks:
a line with figures its task's scoring cannot give (a NaN, more facts found than the key has, a
``solved`` of 5, another ``certain``) is scored again, as a line cut short is."""

from __future__ import annotations

import json
import math

from agents.solvers import SOLVERS
from cluedo_env.reasoning.score import score_answer
from experiments.common.reasoning_scores import is_score_row, scored_before
from experiments.evals.benchmark_tasks import split_tasks

FORGED = [  # figures a scores file from elsewhere (or a damaged one) could hold
    {"tp": "certain*5", "claimed": "certain*5"},  # recall 5, every fact found five times
    {"solved": 5.0},
    {"log_loss": math.nan},
    {"certain": "certain+1"},  # the key of another task
    {"found_seen": "certain_seen+1"},
    {"brier": math.inf},
    {"pairs": [[1.5, 0.0]]},
]


def forge(scored: dict, edit: dict) -> dict:
    """``scored`` with the figures of ``edit`` (``"<figure>*k"`` and ``"<figure>+k"`` computed from it)."""
    out = dict(scored)
    for key, value in edit.items():
        if isinstance(value, str):
            name, op, k = value.partition("*") if "*" in value else value.partition("+")
            value = scored[name] * int(k) if op == "*" else scored[name] + int(k)
        out[key] = value
    return out


def row_of(task: dict) -> dict:
    """The line ``reasoning_bench`` writes for ``task`` answered by the beliefs solver, as read back."""
    scored = score_answer(task, SOLVERS["beliefs"](task))
    return json.loads(
        json.dumps({"id": task["id"], "seconds": 0.5, "scored": scored, "counts": {}, "transcripts": []})
    )


def test_a_row_is_checked_against_its_task():
    first, second = split_tasks("v2", "dev", 2)
    row = row_of(first)
    assert is_score_row(row, first)
    assert row["scored"]["certain"] != score_answer(second, {})["certain"]
    assert not is_score_row(row, second)  # its counts are another task's
    for edit in FORGED:
        assert not is_score_row(dict(row, scored=forge(row["scored"], edit)), first), edit
    assert not is_score_row(dict(row, seconds=math.nan), first)


def test_impossible_rows_are_scored_again_on_resuming(tmp_path, monkeypatch):
    from experiments.reasoning_bench import ReasoningBenchConfig, run

    seen = []
    monkeypatch.setitem(
        SOLVERS, "counted", lambda task: (seen.append(task["id"]), SOLVERS["beliefs"](task))[1]
    )
    common = dict(limit=len(FORGED), resamples=50, progress=False, leaderboard=str(tmp_path / "board.jsonl"))
    cfg = ReasoningBenchConfig(solver="counted", output_dir=str(tmp_path / "out"), **common)
    first = run(cfg)
    (scores,) = (tmp_path / "out" / "counted").glob("scores-*.jsonl")
    header, *lines = scores.read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    forged = [dict(row, scored=forge(row["scored"], edit)) for row, edit in zip(rows, FORGED, strict=True)]
    scores.write_text("\n".join([header, *map(json.dumps, forged)]) + "\n")
    seen.clear()
    resumed = run(cfg)
    assert sorted(seen) == sorted(row["id"] for row in rows)  # every forged row scored again
    assert json.dumps(resumed["summary"]) == json.dumps(first["summary"])
    assert resumed["summary"]["overall"]["recall"]["value"] <= 1
    seen.clear()
    run(cfg)  # the rows scored again are the ones gone on from now
    assert seen == []


def test_rows_of_no_task_of_the_run_or_a_negative_time_are_not_gone_on_from(tmp_path):
    task = split_tasks("v2", "dev", 1)[0]
    settings = {"solver": "beliefs"}
    good = row_of(task)
    rows = [dict(good, id="v2-dev-99999"), dict(good, seconds=-1.0), good]
    path = tmp_path / "scores.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [{"settings": settings}, *rows]) + "\n")
    assert scored_before(path, settings, True, {task["id"]: task}) == {task["id"]: good}
    path.write_text("\n".join(json.dumps(r) for r in [{"settings": settings}, *rows[:2]]) + "\n")
    assert scored_before(path, settings, True, {task["id"]: task}) == {}
