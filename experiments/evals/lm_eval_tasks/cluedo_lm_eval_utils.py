"""The lm-evaluation-harness task ``cluedo_reasoning``'s results: each card's choices, scored per task by the project's scorer.

``process_results`` keeps, for each question (one card of a task), the loglikelihood of each choice
(the owner's letter after ``Holder:``) with the card and the task it belongs to, and ``acc``: whether
the most likely choice is an owner most likely under the exact posterior (``exact``; where several
tie, any of them is right, ``target`` being the first). The other
metrics are aggregated per task: a card's owner distribution is its choices' likelihoods normalised
(``agents.llm.likelihood.normalised``), a task's answer is what the likelihood solver answers from
them (``agents.llm.likelihood.likelihood_answer``: facts and envelope from probability 0.99), scored
by ``cluedo_env.reasoning.score.score_answer`` against the split's answer key and pooled by
``summarize``: ``log_loss``, ``brier``, ``excess_log_loss``, ``recall``, ``solved``, each with its 95%
interval over the tasks' games (``_low``, ``_high``: bootstrap; Wilson's for a share of 0 or 1), and
``tasks``, the tasks scored.

``missing_cards`` counts the cards of the scored tasks that no question answered: lm-eval's own
``--limit`` keeps the first questions, which can cut a task short, and its missing cards are scored as
uniform. A count above 0 is also logged as a warning.

Every line is checked (``check_doc``) when lm-eval reads the data (``process_docs``, before any model
call) and again in ``process_results``: a line is refused, in one line, unless its task is in the split
and its fields but ``prompt``, ``cache`` and ``seed`` are what ``experiments.evals.lm_eval_data`` writes
for that task now (``task_sha256``, the task's digest, included). A data file written before the split
was regenerated, or from another split, stops the run instead of being scored against other tasks.
The answer key of a split that is not shipped is read from (or generated into) the folder of
``CLUEDO_LM_EVAL_CACHE`` (default ``outputs/reasoning/splits``, the data command's ``--cache``), never
from a folder a data line names: a line written from another folder is refused, naming it.

Few-shot prompting is refused by the task's few-shot sampler (``cluedo_lm_eval_shots.NoShots``, its own
file: these scoring functions load without lm-evaluation-harness).
"""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import Any

from agents.llm.likelihood import likelihood_answer, normalised
from cluedo_env.reasoning.score import score_answer, summarize, task_game
from cluedo_env.reasoning.splits import SPLITS
from experiments.evals.benchmark_tasks import DEFAULT_CACHE, split_key
from experiments.evals.lm_eval_data import card_docs

FACT_THRESHOLD = 0.99  # the likelihood solver's default (agents.llm.solver.LLMSolver)
POOLED = ("log_loss", "brier", "excess_log_loss", "recall", "solved")
TIE = 1e-9  # exact probabilities this close are a tie (they are fractions of deal counts)
LOG = logging.getLogger(__name__)
CACHE_ENV = "CLUEDO_LM_EVAL_CACHE"  # the folder of generated splits the answer key is read from
CHECKED = (
    "version",
    "split",
    "task_id",
    "tier",
    "card",
    "choices",
    "owners",
    "target",
    "exact",
    "task_sha256",
)
WRITE_AGAIN = "write the data file again with python -m experiments.evals.lm_eval_data"


def cache_folder() -> str:
    """The folder of generated splits the answer key is read from: ``CLUEDO_LM_EVAL_CACHE``, or the
    data command's default."""
    return os.environ.get(CACHE_ENV) or DEFAULT_CACHE


@cache
def _written(version: str, split: str, folder: str, task_id: str) -> dict[str, dict[str, Any]]:
    """Per card, the checked fields of the line the data command writes now for task ``task_id``."""
    key = split_key(version, split, folder)
    if task_id not in key:
        raise ValueError(
            f"data line names task {task_id!r}, which {version}/{split} does not have; {WRITE_AGAIN}"
        )
    return {doc["card"]: {k: doc[k] for k in CHECKED} for doc in card_docs(key[task_id], split)}


def check_doc(doc: dict[str, Any]) -> None:
    """Refuse a data line that is not what the data command writes for its task (see the module docstring).

    Raises:
        ValueError: an unknown split or task id, a split not shipped written from another folder than
            ``cache_folder()``, or a field that differs from the task's in the split.
    """
    version, split, task_id = (doc.get(k) for k in ("version", "split", "task_id"))
    if not all(isinstance(v, str) for v in (version, split, task_id)) or (version, split) not in SPLITS:
        raise ValueError(
            f"data line of version {version!r}, split {split!r}, task {task_id!r}: the splits are "
            f"{sorted(SPLITS)} and a task id is a string; {WRITE_AGAIN}"
        )
    folder, written_from = cache_folder(), doc.get("cache", DEFAULT_CACHE)
    if not SPLITS[version, split].shipped and os.path.normpath(str(written_from)) != os.path.normpath(folder):
        raise ValueError(
            f"data line of {version}/{split} was written from the splits in {written_from!r}; the answer key "
            f"is read from {folder!r}: set {CACHE_ENV}={written_from} if that folder is yours"
        )
    expected = _written(version, split, folder, task_id).get(doc.get("card"))
    differ = ["card"] if expected is None else [k for k in CHECKED if doc.get(k) != expected[k]]
    if differ:
        raise ValueError(
            f"data line of task {task_id!r}, card {doc.get('card')!r} is not that task's in {version}/{split} "
            f"(differs in {', '.join(differ)}): the data file is of another version of the split; {WRITE_AGAIN}"
        )


def process_docs(dataset: Any) -> Any:
    """The data as lm-eval read it, every line checked (``check_doc``) before any model call."""
    for doc in dataset:
        check_doc(doc)
    return dataset


def process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    """One question's metrics: ``acc`` and, for every pooled metric, the item its aggregation reads
    (the line checked first, ``check_doc``)."""
    check_doc(doc)
    lls = tuple(float(r[0] if isinstance(r, (tuple, list)) else r) for r in results)
    item = (doc["version"], doc["split"], cache_folder(), doc["task_id"], doc["card"],
            tuple(doc["owners"]), lls, doc.get("seed", 0))  # fmt: skip
    best = max(range(len(lls)), key=lls.__getitem__)
    exact = [float(p) for p in doc["exact"]]
    figures: dict[str, Any] = {"acc": float(exact[best] >= max(exact) - TIE)}
    for name in POOLED:
        for key in (name, f"{name}_low", f"{name}_high"):
            figures[key] = item
    figures["tasks"] = figures["missing_cards"] = item
    return figures


def task_answers(items: list[tuple] | tuple[tuple, ...]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each task of the items with the likelihood solver's answer from its cards' choices, in task order."""
    cards: dict[tuple[str, str, str, str], dict[str, dict[str, float]]] = {}
    for version, split, folder, task_id, card, owners, lls, _seed in items:
        cards.setdefault((version, split, folder, task_id), {})[card] = dict(
            zip(owners, normalised(list(lls)))
        )
    answers = []
    for (version, split, folder, task_id), probabilities in cards.items():
        task = split_key(version, split, folder)[task_id]
        answers.append((task, likelihood_answer(task, probabilities, FACT_THRESHOLD)))
    return answers


@cache
def _summary(items: tuple[tuple, ...]) -> dict[str, Any]:
    pairs = task_answers(items)
    scores = [score_answer(task, answer) for task, answer in pairs]
    tiers, games = [task["tier"] for task, _ in pairs], [task_game(task) for task, _ in pairs]
    summary = summarize(scores, tiers, games=games, seed=items[0][-1] if items else 0)["overall"]
    short = {
        task["id"]: len(task["answers"]["probabilities"]) - len(answer["probabilities"])
        for task, answer in pairs
        if len(answer["probabilities"]) < len(task["answers"]["probabilities"])
    }
    if short:
        LOG.warning(
            "%d card(s) of %d task(s) have no question answered, scored as uniform (%s); lm-eval's "
            "--limit keeps the first questions and cuts tasks short: limit the tasks with "
            "python -m experiments.evals.lm_eval_data --limit instead",
            sum(short.values()),
            len(short),
            ", ".join(f"{task_id}: {n}" for task_id, n in short.items()),
        )
    return summary | {"missing_cards": sum(short.values())}


def _figure(name: str, part: str):
    def aggregate(items: list[tuple]) -> float:
        return _summary(tuple(items))[name][part]

    aggregate.__name__ = name if part == "value" else f"{name}_{part}"
    return aggregate


log_loss, log_loss_low, log_loss_high = (_figure("log_loss", p) for p in ("value", "low", "high"))
brier, brier_low, brier_high = (_figure("brier", p) for p in ("value", "low", "high"))
excess_log_loss, excess_log_loss_low, excess_log_loss_high = (
    _figure("excess_log_loss", p) for p in ("value", "low", "high")
)
recall, recall_low, recall_high = (_figure("recall", p) for p in ("value", "low", "high"))
solved, solved_low, solved_high = (_figure("solved", p) for p in ("value", "low", "high"))


def tasks(items: list[tuple]) -> int:
    """The number of tasks the items come from."""
    return _summary(tuple(items))["tasks"]


def missing_cards(items: list[tuple]) -> int:
    """The number of cards of those tasks that no item answers (scored as uniform; logged as a warning)."""
    return _summary(tuple(items))["missing_cards"]
