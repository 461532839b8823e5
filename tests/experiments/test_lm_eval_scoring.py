"""The lm-eval task's scoring functions (``experiments/evals/lm_eval_tasks/cluedo_lm_eval_utils.py``),
which need no lm-evaluation-harness: a tie at the top of the exact posterior, and the split's folder."""

from __future__ import annotations

import importlib.util

import pytest

from cluedo_env.reasoning.score import score_answer, summarize, task_game
from experiments.evals import benchmark_tasks
from experiments.evals.lm_eval_data import card_docs
from tests.conftest import ROOT

UTILS = ROOT / "experiments" / "evals" / "lm_eval_tasks" / "cluedo_lm_eval_utils.py"


def load_utils():
    spec = importlib.util.spec_from_file_location("cluedo_lm_eval_utils", UTILS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def questions(limit: int = 40) -> list[dict]:
    return [doc for item in benchmark_tasks.split_tasks("v2", "dev", limit) for doc in card_docs(item, "dev")]


def test_any_owner_tied_at_the_top_of_the_exact_posterior_is_right():
    utils = load_utils()
    tied = next(d for d in questions() if sorted(d["exact"])[-1] == sorted(d["exact"])[-2] > 0)
    top = max(tied["exact"])
    for choice, chance in enumerate(tied["exact"]):
        lls = [0.0 if k == choice else -5.0 for k in range(len(tied["exact"]))]  # the model picks ``choice``
        assert utils.process_results(tied, lls)["acc"] == float(chance == top), (choice, tied["exact"])


def test_the_answer_key_is_read_from_the_folder_the_questions_were_written_from(monkeypatch):
    utils = load_utils()
    item = benchmark_tasks.split_tasks("v2", "dev", 1)[0]
    docs = list(card_docs(item, "dev", cache="elsewhere/splits"))
    asked = []

    def key(version, split, cache_dir=benchmark_tasks.DEFAULT_CACHE):
        asked.append(cache_dir)
        return benchmark_tasks.split_key(version, split)

    monkeypatch.setattr(utils, "split_key", key)
    items = [utils.process_results(doc, [0.0] * len(doc["choices"]))["tasks"] for doc in docs]
    assert utils.tasks(items) == 1 and set(asked) == {"elsewhere/splits"}


@pytest.mark.parametrize("seed", [0, 1])
def test_the_intervals_are_bootstrapped_with_the_seed_the_questions_were_drawn_with(seed):
    """As ``reasoning_bench seed=S`` bootstraps with S (the aggregation used 0 whatever the draw)."""
    utils = load_utils()
    tasks = benchmark_tasks.split_tasks("v2", "dev", 12, seed)
    rng = __import__("random").Random(seed)
    items = [
        utils.process_results(doc, [rng.uniform(-5, 0) for _ in doc["choices"]])["log_loss"]
        for item in tasks
        for doc in card_docs(item, "dev", seed=seed)
    ]
    pairs = utils.task_answers(items)
    scores = [score_answer(task, answer) for task, answer in pairs]
    tiers, games = [task["tier"] for task, _ in pairs], [task_game(task) for task, _ in pairs]
    expected = summarize(scores, tiers, games=games, seed=seed)["overall"]["log_loss"]
    assert (utils.log_loss_low(items), utils.log_loss_high(items)) == (expected["low"], expected["high"])
