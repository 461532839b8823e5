"""The reasoning benchmark as an Inspect AI task, ``cluedo_reasoning``, scored by the project's own scorer.

    pip install -e ".[evals]"
    python -m experiments.serve_model --no-logprobs --port 8011     # the local model, in another shell
    LOCAL_API_KEY=none inspect eval cluedo_reasoning -T limit=20 -T prompt=plain \\
        --model openai-api-completions/local/local --model-base-url http://127.0.0.1:8011/v1 --max-tokens 256

One sample per task of a split (``cluedo_env.reasoning.splits.load_split``; ``limit`` draws the same
tier-stratified sample as ``python -m experiments.reasoning_bench limit=N``, which Inspect's own
``--limit``, the first samples, does not). A sample's input is the LLM solver's prompt
(``agents.llm.solver.solver_messages``: the rules in the system message, the task's public view and
the answer's form in the user message), its target the envelope answer, its metadata the task's id,
tier and version. The solver asks the model as ``agents.llm.solver.LLMSolver`` does: a reply holding
no JSON object is answered with the reason (``retry.txt``) up to ``max_invalid_replies`` times.
``prompt="plain"`` sends the conversation as one plain prompt (``agents.llm.chat.plain_prompt``), the
form a base model is asked in through ``/v1/completions`` (Inspect's ``openai-api-completions``
provider takes a single user message); ``"chat"`` sends the messages to a chat model. A reply may
have 4096 tokens, the solver's default (``--max-tokens`` overrides it).

The scorer reads the answer of the last reply holding one (``agents.llm.solver.read_answer``; none:
an empty answer) and scores it with ``cluedo_env.reasoning.score.score_answer`` against the split's
answer key; the sample's score is its log-loss, and its metadata the per-task figures. The metric
``pooled`` is ``cluedo_env.reasoning.score.summarize`` of them: precision, recall, F1, solved, Brier,
log-loss and excess log-loss pooled over the tasks (with ``--epochs N``, over every epoch's answer: N
per task), each with its 95% bootstrap interval over the tasks' games (``_low``, ``_high``), and
``tasks``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from experiments.evals import missing_harness

try:
    from inspect_ai import Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        GenerateConfig,
        get_model,
    )
    from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
    from inspect_ai.solver import Generate, TaskState, solver
except ModuleNotFoundError as error:  # pragma: no cover - the message is the point
    raise missing_harness(error, "Inspect AI") from None

from agents.llm.chat import plain_prompt
from agents.llm.llm_agent import load_prompts
from agents.llm.solver import PROMPT_FILES, PROMPTS_DIR, read_answer, solver_messages
from cluedo_env.reasoning.score import public_view, score_answer, summarize, task_game
from experiments.evals.benchmark_tasks import DEFAULT_CACHE, split_key, split_tasks

__all__ = [
    "POOLED",
    "PROMPT_FORMS",
    "answer_of",
    "ask_as_the_llm_solver",
    "cluedo_reasoning",
    "pooled",
    "project_scorer",
]

PROMPT_FORMS = ("chat", "plain")
# The pooled figures the metric reports (those of python -m experiments.reasoning_bench's table).
# Tokens a reply may have: the LLM solver's default (an answer lists many facts). Some providers
# default to far fewer (openai-api-completions: one token).
SOLVER_MAX_TOKENS = 4096
POOLED = ("precision", "recall", "f1", "solved", "brier", "log_loss", "excess_log_loss")


def _sample(item: Mapping[str, Any], prompts: Mapping[str, Any]) -> Sample:
    view = public_view(item)  # what a solver is given, nothing of the answer key
    system, user = solver_messages(view, prompts)
    return Sample(
        id=item["id"],
        input=[ChatMessageSystem(content=system["content"]), ChatMessageUser(content=user["content"])],
        target=json.dumps(item["answers"]["envelope"]),
        metadata={"id": item["id"], "tier": item["tier"], "version": item["version"]},
    )


@solver
def ask_as_the_llm_solver(retry: str, prompt: str = "chat", max_invalid_replies: int = 1):
    """Ask the model the sample's messages; a reply without a JSON object is answered with ``retry``
    (a template of ``$error``) and asked again, up to ``max_invalid_replies`` times."""
    from string import Template

    again = Template(retry)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        for attempt in range(max_invalid_replies + 1):
            if prompt == "plain":
                conversation = [{"role": m.role, "content": m.text} for m in state.messages]
                output = await model.generate([ChatMessageUser(content=plain_prompt(conversation))])
            else:
                output = await model.generate(state.messages)
            state.output = output
            state.messages.append(ChatMessageAssistant(content=output.completion))
            try:
                read_answer(output.completion)
                break
            except ValueError as error:
                if attempt < max_invalid_replies:
                    state.messages.append(ChatMessageUser(content=again.substitute(error=error)))
        return state

    return solve


def answer_of(replies: list[str]) -> dict[str, Any] | None:
    """The answer of the last reply holding a JSON object (``read_answer``), or None."""
    for reply in reversed(replies):
        try:
            return read_answer(reply)
        except ValueError:
            continue
    return None


@metric(scores="unreduced")
def pooled(seed: int = 0) -> Metric:
    """The project's pooled figures (``summarize``) over the per-task scores of every epoch, with
    intervals bootstrapped with ``seed`` (the task's, as ``experiments.reasoning_bench`` bootstraps with
    its own), and ``tasks``, the number of tasks (each answered once per epoch).

    The metric reads the scores unreduced, one per sample and epoch: Inspect's epoch reducers average a
    sample's values but keep the first epoch's metadata, which holds the per-task figures pooled here.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:  # Inspect asks before any sample is scored
            return {"tasks": 0.0}
        per_task = [s.score.metadata["scores"] for s in scores]
        games = [s.score.metadata.get("game") for s in scores]  # a task's epochs share its game
        tiers = [s.score.metadata["tier"] for s in scores]
        summary = summarize(per_task, tiers, games=games, seed=seed)["overall"]
        figures: dict[str, float] = {"tasks": float(len({s.sample_id for s in scores}))}
        for name in POOLED:
            for part, key in (("value", name), ("low", f"{name}_low"), ("high", f"{name}_high")):
                value = summary[name][part]
                if math.isfinite(value):  # a ratio of nothing (no claim, no certain fact) is left out
                    figures[key] = value
        return figures

    return compute


@scorer(metrics=[pooled()])
def project_scorer(version: str = "v2", split: str = "dev", cache_dir: str = DEFAULT_CACHE):
    """Score a sample's answer with ``cluedo_env.reasoning.score.score_answer`` against the split's key."""
    key = split_key(version, split, cache_dir)

    async def score(state: TaskState, target: Target) -> Score:
        item = key[state.metadata["id"]]
        replies = [m.text for m in state.messages if m.role == "assistant"]
        answer = answer_of(replies)
        figures = score_answer(item, answer)
        return Score(
            value=figures["log_loss"],
            answer=json.dumps(answer) if answer is not None else "",
            explanation="; ".join(figures["problems"]) or "no problems",
            metadata={"scores": figures, "tier": item["tier"], "game": task_game(item)},
        )

    return score


@task
def cluedo_reasoning(
    version: str = "v2",
    split: str = "dev",
    limit: int | None = None,
    seed: int = 0,
    prompts: str = "default",
    prompt: str = "chat",
    max_invalid_replies: int = 1,
    cache_dir: str = DEFAULT_CACHE,
) -> Task:
    """The reasoning benchmark's split ``version/split`` (see the module docstring).

    Args:
        version: Benchmark version (``v2``; ``v1`` stays available).
        split: ``dev`` (shipped) or ``test`` (generated into ``cache_dir`` on first use: minutes).
        limit: Tasks drawn from the split as ``experiments.reasoning_bench limit=N`` draws them (None: all).
        seed: Seed of that draw.
        prompts: The LLM solver's prompt set (``agents/llm/solver_prompts/<name>``) or a folder of yours.
        prompt: ``"chat"`` (system and user messages) or ``"plain"`` (one plain prompt, for a base model).
        max_invalid_replies: Times a reply without a JSON object is answered with the reason and asked again.
        cache_dir: Folder where a split that is not shipped is generated.

    Raises:
        ValueError: naming a bad value and what is accepted.
    """
    if prompt not in PROMPT_FORMS:
        raise ValueError(f"prompt must be one of {list(PROMPT_FORMS)}, got {prompt!r}")
    if (
        not isinstance(max_invalid_replies, int)
        or isinstance(max_invalid_replies, bool)
        or max_invalid_replies < 0
    ):
        raise ValueError(f"max_invalid_replies must be an integer >= 0, got {max_invalid_replies!r}")
    templates = load_prompts(prompts, root=PROMPTS_DIR, files=PROMPT_FILES)
    tasks = split_tasks(version, split, limit, seed, cache_dir)
    return Task(
        dataset=MemoryDataset([_sample(item, templates) for item in tasks], name=f"cluedo-{version}-{split}"),
        solver=ask_as_the_llm_solver(templates["retry"].template, prompt, max_invalid_replies),
        scorer=project_scorer(version, split, cache_dir),
        metrics=[pooled(seed)],
        config=GenerateConfig(max_tokens=SOLVER_MAX_TOKENS),  # --max-tokens overrides it
        metadata={"version": version, "split": split, "limit": limit, "seed": seed},
    )
