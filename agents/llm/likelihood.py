"""Likelihood scoring of reasoning tasks: a base model's probability of each card's owner, normalised.

A base model cannot be asked for a JSON answer, but it can be asked how
likely each answer is. For each card of a task, ``LikelihoodScorer`` sends one
plain prompt to ``/completions`` (``agents.llm.chat.ChatClient.score_next``):
the rules, the task's text (the player's view), the owners as lettered options
(``A: P0``, ..., ``the envelope``; ``the table`` in a duel) and ``Card: <card>.
Holder:``, asking for one token and its ``top`` most likely first tokens. An
owner's score is the probability of its letter (the token ``"A"`` or ``" A"``,
summed); a letter outside the top tokens gets the smallest probability
among them (an upper bound on its own), and is counted in ``missing``. The
scores of a card, normalised to sum to 1, are its ``probabilities``: the
benchmark's scorer (``cluedo_env.reasoning.score``) gives their log-loss,
Brier score and calibration against the exact posterior. Facts are claimed
where a normalised probability reaches ``fact_threshold`` (a card's holder;
the envelope's three cards when each category has one), none with ``None``.

The prompts share everything but the card's line, so a server that reuses its
cached prefix (llama.cpp does) reads the view once per task. Only one token is
scored per card: with llama-cpp-python, logprobs cost about 0.35 s per token
on 2 cores (it sorts the whole vocabulary), so short answers are the cheap ones.

Prompt templates (``string.Template``): ``system.txt`` (``$rules``) and
``question.txt`` (``$view``, ``$options``, ``$card``) of
``agents/llm/solver_prompts/likelihood/`` or of a folder of your own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from string import Template
from typing import Any

from agents.llm.chat import REPLY_COUNTS, ChatClient, ChatReplyError, add_reply_counts, check_top

__all__ = [
    "COUNTS",
    "LETTERS",
    "LIKELIHOOD_PROMPT_FILES",
    "LikelihoodScorer",
    "card_prompts",
    "letter_scores",
    "likelihood_answer",
    "normalised",
    "owner_label",
]

# The templates of a likelihood prompt set, with the placeholders each may use (``card_prompts``).
LIKELIHOOD_PROMPT_FILES = {"system": ("rules",), "question": ("view", "options", "card")}

LETTERS = "ABCDEFGHIJ"
COUNTS = ("tasks", "requests", "missing", "unanswered", *REPLY_COUNTS, "milliseconds")


def owner_label(owner: str) -> str:
    """An owner of the answers (``"player 2"``, ``"envelope"``, ``"table"``) as the text view names it."""
    if owner.startswith("player "):
        return "P" + owner.removeprefix("player ")
    return f"the {owner}"


def letter_scores(top_logprobs: Mapping[str, float], letters: str) -> tuple[list[float], int]:
    """Each letter's log-probability among the first tokens (``"A"`` and ``" A"`` summed), and how many
    were not among them (each of those gets the smallest log-probability seen)."""
    floor = min(top_logprobs.values()) if top_logprobs else 0.0
    scores, missing = [], 0
    for letter in letters:
        found = [value for token, value in top_logprobs.items() if token.strip() == letter]
        if found:
            peak = max(found)
            scores.append(peak + math.log(sum(math.exp(v - peak) for v in found)))
        else:
            scores.append(floor)
            missing += 1
    return scores, missing


def normalised(logprobs: list[float]) -> list[float]:
    """Log-probabilities (or any log-scores) as probabilities summing to 1."""
    peak = max(logprobs)
    weights = [math.exp(s - peak) for s in logprobs]
    total = sum(weights)
    return [w / total for w in weights]


def card_prompts(
    task: Mapping[str, Any], prompts: Mapping[str, Template], rules_of: Any, view_of: Any
) -> tuple[list[str], str, str, list[tuple[str, str]]]:
    """What a task asks card by card (see the module docstring).

    Returns:
        The owners of the answers (``"player 0"``, ..., ``"envelope"``, ``"table"`` in a duel), their
        letters, the options text, and each card with its prompt (ending ``Holder:``), in the order
        suspects, weapons, rooms.

    Raises:
        ValueError: the task has more owners than letters.
    """
    owners = [*task["players"], "envelope"] + (["table"] if task["config"].get("duel") else [])
    if len(owners) > len(LETTERS):
        raise ValueError(f"at most {len(LETTERS)} owners can be lettered, the task has {len(owners)}")
    letters = LETTERS[: len(owners)]
    me = task["players"][task["observer"]]
    options = "\n".join(
        f"{letter}: {owner_label(owner)}" + (" (you)" if owner == me else "")
        for letter, owner in zip(letters, owners)
    )
    head = prompts["system"].substitute(rules=rules_of(task)).strip()
    view = view_of(task)
    questions = [
        (card, f"{head}\n\n{prompts['question'].substitute(view=view, options=options, card=card).rstrip()}")
        for group in ("suspects", "weapons", "rooms")
        for card in task["cards"][group]
    ]
    return owners, letters, options, questions


def likelihood_answer(
    task: Mapping[str, Any], probabilities: Mapping[str, Mapping[str, float]], fact_threshold: float | None
) -> dict[str, Any]:
    """The answer dict of ``cluedo_env.reasoning.score`` from each card's owner distribution: facts where a
    holder's probability reaches ``fact_threshold`` (none with None), the envelope when each category's
    most likely envelope card reaches it."""
    answer: dict[str, Any] = {"facts": [], "envelope": "not yet", "probabilities": dict(probabilities)}
    if fact_threshold is None:
        return answer
    for card, row in probabilities.items():
        owner = max(row, key=row.get)
        if row[owner] >= fact_threshold:
            answer["facts"].append([card, owner, True])
    groups = [
        [c for c in task["cards"][group] if c in probabilities] for group in ("suspects", "weapons", "rooms")
    ]
    envelope = [
        max(group, key=lambda c: probabilities[c]["envelope"])
        for group in groups
        if group and max(probabilities[c]["envelope"] for c in group) >= fact_threshold
    ]
    if len(envelope) == 3:
        answer["envelope"] = envelope
    return answer


class LikelihoodScorer:
    """Answers reasoning tasks by the likelihood a model gives each card's owner (see the module docstring).

    Args:
        client: The endpoint (any ``api``: scoring always goes to ``/completions``), or the local model
            in this process (``agents.llm.local_logits.LocalLogits``, which also gives the letters' own
            log-probabilities, so none is missing).
        prompts: Templates ``system`` and ``question`` (``agents.llm.llm_agent.load_prompts``).
        rules_of: The rules summary of a task (``task -> str``).
        view_of: The text of a task (``task -> str``).
        top: Most likely first tokens asked for per card (an integer in ``[1, agents.llm.chat.MAX_TOP]``).
        fact_threshold: Normalised probability from which a fact is claimed (None: no facts).

    Counts (``counts``, ``COUNTS``): tasks, requests sent (with their ``network_retries``), letters not
    among a reply's first tokens (``missing``), tasks left unanswered because a request got no usable reply
    (``ChatReplyError``, raised again once counted), tokens and milliseconds. ``transcripts`` holds per task
    its id, the options and each card scored (with ``error`` where a card's request failed).
    """

    def __init__(
        self,
        client: ChatClient,
        prompts: Mapping[str, Template],
        rules_of: Any,
        view_of: Any,
        top: int = 20,
        fact_threshold: float | None = 0.99,
    ) -> None:
        if fact_threshold is not None and (
            isinstance(fact_threshold, bool)
            or not isinstance(fact_threshold, int | float)
            or not 0.5 < fact_threshold <= 1
        ):
            raise ValueError(f"fact_threshold must be in (0.5, 1] or None, got {fact_threshold!r}")
        check_top(top)  # here, not at the first request of a run
        self.client = client
        self.prompts = prompts
        self.rules_of = rules_of
        self.view_of = view_of
        self.top = top
        self.fact_threshold = fact_threshold
        self.counts = dict.fromkeys(COUNTS, 0)
        self.transcripts: list[dict[str, Any]] = []

    def __call__(self, task: Mapping[str, Any]) -> dict[str, Any]:
        """The answer to one task (its public view): probabilities for every card, facts above the threshold."""
        owners, letters, options, questions = card_prompts(task, self.prompts, self.rules_of, self.view_of)
        wanted = tuple(variant for letter in letters for variant in (letter, " " + letter))
        started = time.perf_counter()
        probabilities: dict[str, dict[str, float]] = {}
        record: dict[str, Any] = {"id": task.get("id", ""), "options": options, "cards": []}
        self.counts["tasks"] += 1
        for card, prompt in questions:
            self.counts["requests"] += 1
            try:
                reply = self.client.score_next(prompt, top=self.top, candidates=wanted)
            except ChatReplyError as error:  # no usable reply: the task is unanswered, what it cost counted
                self.counts["network_retries"] += error.network_retries
                self.counts["unanswered"] += 1
                record["cards"].append({"card": card, "error": str(error)})
                self._keep(record, started)
                raise
            add_reply_counts(self.counts, reply)
            scores, missing = letter_scores(reply.top_logprobs, letters)
            self.counts["missing"] += missing
            probabilities[card] = dict(zip(owners, normalised(scores)))
            record["cards"].append({"card": card, "logprobs": dict(zip(owners, scores)), "missing": missing})
        self._keep(record, started)
        return likelihood_answer(task, probabilities, self.fact_threshold)

    def _keep(self, record: dict[str, Any], started: float) -> None:
        """Keep a task's record and count the time it waited on the model."""
        self.counts["milliseconds"] += round(1000 * (time.perf_counter() - started))
        self.transcripts.append(record)
