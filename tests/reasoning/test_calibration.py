"""Calibration (ECE) of a solver's envelope probabilities: every card counts but a certain fact got right.

It counted only the cards where the truth or the solver was uncertain, so a certain claim that was wrong
(1 for a card that cannot be in the envelope, 0 for one that is) never reached it: a solver exact on the
uncertain cards that reversed every certain one scored ECE 0.0000, as the exact answer does.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from agents.solvers import SOLVERS
from cluedo_env.reasoning.score import public_view, score_answer, summarize, task_game
from cluedo_env.reasoning.splits import SPLITS, read_tasks


@pytest.fixture(scope="module")
def dev() -> list[dict]:
    return read_tasks(SPLITS["v2", "dev"].path())[:100]


def reverses_the_certain_cards(task: dict) -> dict:
    """The exact answer, but every card certainly not in the envelope claimed in it for certain, and every
    card certainly in it claimed held by the observer for certain."""
    answer = SOLVERS["beliefs"](task)
    me = task["players"][task["observer"]]
    for card, row in answer["probabilities"].items():
        if row.get("envelope", 0) == 0:
            answer["probabilities"][card] = {"envelope": 1.0}
        elif row["envelope"] == 1:
            answer["probabilities"][card] = {me: 1.0}
    return answer


def calibration(tasks: list[dict], solve) -> dict:
    scores = [score_answer(t, solve(public_view(t))) for t in tasks]
    return summarize(scores, [t["tier"] for t in tasks], games=[task_game(t) for t in tasks], resamples=10)[
        "calibration"
    ]


def test_certain_wrong_claims_count_and_the_exact_answer_stays_calibrated(dev):
    cards = sum(len(t["answers"]["probabilities"]) for t in dev)
    uncertain = sum(0 < row["envelope"] < 1 for t in dev for row in t["answers"]["probabilities"].values())
    exact = calibration(dev, SOLVERS["beliefs"])
    assert exact["ece"] == 0 and exact["pairs"] == uncertain  # its certain cards are right: left out
    reversed_ = calibration(dev, reverses_the_certain_cards)
    assert reversed_["pairs"] == cards  # (it is certain and wrong on every card it leaves uncertain)
    assert reversed_["ece"] > 0.5


def test_the_ece_of_a_small_case_by_hand():
    """Six cards of a two-player task, by the exact probability that each lies in the envelope."""
    exact = {"Rope": 1.0, "Knife": 0.0, "Wrench": 0.0, "Pipe": 0.25, "Candlestick": 0.5, "Revolver": 1.0}
    task = {
        "players": ["player 0", "player 1"],
        "config": {},
        "answers": {  # (the calibration reads the probabilities only)
            "facts": [],
            "envelope": "not yet",
            "probabilities": {
                card: {"player 0": 0.0, "player 1": 1 - p, "envelope": p} for card, p in exact.items()
            },
        },
    }
    answer = {
        "probabilities": {
            "Rope": {"player 0": 1.0},  # certain and wrong: 0 for a card in the envelope
            "Knife": {"envelope": 1.0},  # certain and wrong: 1 for a card that cannot be there
            "Wrench": {"player 1": 1.0},  # certain and right: left out
            "Pipe": {"player 1": 0.95, "envelope": 0.05},
            "Candlestick": {"player 1": 0.5, "envelope": 0.5},
            "Revolver": {"envelope": 1.0},  # certain and right: left out
        }
    }
    scored = score_answer(task, answer)
    assert scored["pairs"] == [(0.0, 1.0), (1.0, 0.0), (0.05, 0.25), (0.5, 0.5)]
    result = summarize([scored], [1], resamples=10)["calibration"]
    # bin [0, 0.1): Rope and Pipe, claimed 0.025 on average against 0.625: a gap of 0.6, twice;
    # bin [0.5, 0.6): Candlestick, no gap; bin [0.9, 1]: Knife, a gap of 1. (1.2 + 0 + 1) / 4 cards.
    assert [(b["low"], b["count"]) for b in result["bins"]] == [(0.0, 2), (0.5, 1), (0.9, 1)]
    assert result["pairs"] == 4 and result["ece"] == pytest.approx(0.55)


def test_a_scores_file_of_an_earlier_scoring_is_scored_again_not_gone_on_from(tmp_path, capsys):
    """Its lines hold the calibration pairs as the earlier scoring chose them: going on from them would mix
    two rules in one figure."""
    from cluedo_env.reasoning.score import SCORE_VERSION
    from experiments.reasoning_bench import ReasoningBenchConfig, run

    cfg = ReasoningBenchConfig(
        solver="uniform", limit=3, resamples=10, progress=False,
        output_dir=str(tmp_path / "out"), leaderboard=str(tmp_path / "b.jsonl"),
    )  # fmt: skip
    run(cfg)
    (path,) = (tmp_path / "out" / "uniform").glob("scores-*.jsonl")
    lines = path.read_text().splitlines()
    settings = json.loads(lines[0])["settings"]
    assert settings["score_version"] == SCORE_VERSION
    del settings["score_version"]  # the file as the scoring before the version wrote it
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    path.unlink()
    (path.parent / f"scores-{digest}.jsonl").write_text(
        "\n".join([json.dumps({"settings": settings}), *lines[1:]]) + "\n"
    )
    capsys.readouterr()
    run(cfg)
    assert "resuming" not in capsys.readouterr().out
    assert len(list(path.parent.glob("scores-*.jsonl"))) == 2
