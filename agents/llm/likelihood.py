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

from agents.llm.chat import ChatClient

__all__ = ["COUNTS", "LETTERS", "LikelihoodScorer", "letter_scores", "owner_label"]

LETTERS = "ABCDEFGHIJ"
COUNTS = (
    "tasks",
    "requests",
    "missing",
    "prompt_tokens",
    "completion_tokens",
    "network_retries",
    "milliseconds",
)


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


class LikelihoodScorer:
    """Answers reasoning tasks by the likelihood a model gives each card's owner (see the module docstring).

    Args:
        client: The endpoint (any ``api``: scoring always goes to ``/completions``), or the local model
            in this process (``agents.llm.local_logits.LocalLogits``, which also gives the letters' own
            log-probabilities, so none is missing).
        prompts: Templates ``system`` and ``question`` (``agents.llm.llm_agent.load_prompts``).
        rules_of: The rules summary of a task (``task -> str``).
        view_of: The text of a task (``task -> str``).
        top: Most likely first tokens asked for per card.
        fact_threshold: Normalised probability from which a fact is claimed (None: no facts).
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
        if fact_threshold is not None and not 0.5 < fact_threshold <= 1:
            raise ValueError(f"fact_threshold must be in (0.5, 1] or None, got {fact_threshold!r}")
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
        owners = [*task["players"], "envelope"] + (["table"] if task["config"].get("duel") else [])
        if len(owners) > len(LETTERS):
            raise ValueError(f"at most {len(LETTERS)} owners can be lettered, the task has {len(owners)}")
        letters = LETTERS[: len(owners)]
        wanted = tuple(variant for letter in letters for variant in (letter, " " + letter))
        me = task["players"][task["observer"]]
        options = "\n".join(
            f"{letter}: {owner_label(owner)}" + (" (you)" if owner == me else "")
            for letter, owner in zip(letters, owners)
        )
        head = self.prompts["system"].substitute(rules=self.rules_of(task)).strip()
        groups = [task["cards"][group] for group in ("suspects", "weapons", "rooms")]
        started = time.perf_counter()
        probabilities: dict[str, dict[str, float]] = {}
        cards_record = []
        for card in [card for group in groups for card in group]:
            question = self.prompts["question"].substitute(
                view=self.view_of(task), options=options, card=card
            )
            reply = self.client.score_next(f"{head}\n\n{question.rstrip()}", top=self.top, candidates=wanted)
            self.counts["requests"] += 1
            for name in ("prompt_tokens", "completion_tokens", "network_retries"):
                self.counts[name] += getattr(reply, name)
            scores, missing = letter_scores(reply.top_logprobs, letters)
            self.counts["missing"] += missing
            peak = max(scores)
            weights = [math.exp(s - peak) for s in scores]
            total = sum(weights)
            probabilities[card] = {owner: w / total for owner, w in zip(owners, weights)}
            cards_record.append({"card": card, "logprobs": dict(zip(owners, scores)), "missing": missing})
        self.counts["milliseconds"] += round(1000 * (time.perf_counter() - started))
        self.counts["tasks"] += 1
        answer = {"facts": [], "envelope": "not yet", "probabilities": probabilities}
        if self.fact_threshold is not None:
            for card, row in probabilities.items():
                owner = max(row, key=row.get)
                if row[owner] >= self.fact_threshold:
                    answer["facts"].append([card, owner, True])
            envelope = [
                max(group, key=lambda c: probabilities[c]["envelope"])
                for group in groups
                if max(probabilities[c]["envelope"] for c in group) >= self.fact_threshold
            ]
            if len(envelope) == 3:
                answer["envelope"] = envelope
        self.transcripts.append({"id": task.get("id", ""), "options": options, "cards": cards_record})
        return answer
