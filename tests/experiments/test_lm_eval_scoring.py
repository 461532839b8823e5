"""The lm-eval task's scoring functions (``experiments/evals/lm_eval_tasks/cluedo_lm_eval_utils.py``),
which need no lm-evaluation-harness: a tie at the top of the exact posterior, the split's folder, and
the refusal of a data line that is not its task's in the split."""

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


def test_the_answer_key_is_read_from_the_scorers_folder_not_from_the_line(monkeypatch):
    """The folder of generated splits is ``CLUEDO_LM_EVAL_CACHE`` (the line's ``cache`` chose it before)."""
    utils = load_utils()
    item = benchmark_tasks.split_tasks("v2", "dev", 1)[0]
    docs = list(card_docs(item, "dev", cache="elsewhere/splits"))
    asked = []

    def key(version, split, cache_dir=benchmark_tasks.DEFAULT_CACHE):
        asked.append(cache_dir)
        return benchmark_tasks.split_key(version, split)

    monkeypatch.setattr(utils, "split_key", key)
    monkeypatch.setenv("CLUEDO_LM_EVAL_CACHE", "mine/splits")
    items = [utils.process_results(doc, [0.0] * len(doc["choices"]))["tasks"] for doc in docs]
    assert utils.tasks(items) == 1 and set(asked) == {"mine/splits"}


def test_a_line_of_a_split_not_shipped_written_from_another_folder_is_refused_unread(monkeypatch):
    utils = load_utils()
    doc = dict(next(iter(questions(1))), split="test", cache="chosen/by/the/data/file")
    asked = []
    monkeypatch.setattr(utils, "split_key", lambda *args: asked.append(args) or {})
    monkeypatch.delenv("CLUEDO_LM_EVAL_CACHE", raising=False)
    with pytest.raises(ValueError, match=r"chosen/by/the/data/file.*CLUEDO_LM_EVAL_CACHE="):
        utils.process_results(doc, [0.0] * len(doc["choices"]))
    assert asked == []


def test_a_line_naming_another_task_is_refused_before_it_is_scored():
    """A data file written before the split was regenerated: its lines' ids name other tasks now."""
    utils = load_utils()
    first, second = benchmark_tasks.split_tasks("v2", "dev", 2)
    doc = dict(next(card_docs(first, "dev")), task_id=second["id"])
    with pytest.raises(ValueError, match=rf"task '{second['id']}'.*is not that task's in v2/dev"):
        utils.process_results(doc, [0.0] * len(doc["choices"]))
    with pytest.raises(ValueError, match="is not that task's"):
        utils.process_docs([*card_docs(second, "dev"), doc])


def test_a_line_naming_a_task_the_split_lacks_is_refused_before_aggregation():
    utils = load_utils()
    doc = dict(next(iter(questions(1))), task_id="v2-dev-99999")
    with pytest.raises(ValueError, match="'v2-dev-99999', which v2/dev does not have"):
        utils.process_results(doc, [0.0] * len(doc["choices"]))


@pytest.mark.parametrize(
    "edit",
    [
        {"exact": [1.0, 0.0, 0.0, 0.0, 0.0]},  # ``acc`` would be read from it
        {"card": "Nobody"},
        {"task_sha256": "0" * 64},  # the task as it was when the line was written
        {"task_sha256": None},  # a line written before lines carried the digest
    ],
)
def test_a_line_whose_fields_are_not_its_tasks_is_refused(edit):
    utils = load_utils()
    doc = next(iter(questions(1)))
    edited = dict(doc, **edit)
    if edited["task_sha256"] is None:
        del edited["task_sha256"]
    assert utils.process_results(doc, [0.0] * len(doc["choices"]))["acc"] in (0.0, 1.0)
    with pytest.raises(ValueError, match=rf"card '{edited['card']}' is not that task's .*differs in"):
        utils.process_results(edited, [0.0] * len(doc["choices"]))


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
