"""Scoring a solver's answers to reasoning tasks against the exact answers.

An answer is a dict (every key optional; what is missing or malformed is
scored as given, never crashed on, and reported in ``problems``):

- ``facts``: ``[[card, owner, holds], ...]``, the facts the solver claims are
  certain (``owner`` as ``"player 2"`` or ``"envelope"``, ``holds`` a bool);
- ``envelope``: ``[suspect, weapon, room]`` if the solver claims it is
  determined, else ``"not yet"``;
- ``probabilities``: ``{card: {owner: p}}``, the solver's distribution of each
  card's owner: ``p`` any real number (``float``, ``int``, ``np.float32``, ...);
  owners left out get 0; a row not summing to 1 is rescaled (one whose sum
  overflows to infinity too). A row with an unknown owner or an entry that is
  not a finite number >= 0 (a string, NaN, infinity, a negative number), or
  one summing to 0, is rejected: that card is scored as uniform, and the
  rejection is reported in ``problems`` and counted (``rejected_rows``, and
  ``rejected_probability_rows`` in the summary's problems).

Metrics (per task, then pooled over tasks):

- facts: precision, recall and F1 of the claimed facts against the certain
  ones (a claimed fact that is not certain, or malformed, counts as wrong),
  pooled over tasks; recall by difficulty label;
- ``solved``: accuracy of the envelope answer ("not yet" or the triple);
- ``brier``: the expected Brier score of the owner distributions when the deal
  is drawn from the exact posterior, ``sum_o (q_o - p_o)^2 + p_o (1 - p_o)``,
  mean over cards; its floor ``brier_floor`` (the second sum) is reached only
  by the exact probabilities;
- ``log_loss``: cross-entropy ``-sum_o p_o log max(q_o, EPS)``, mean over
  cards; its floor is the posterior's entropy (``entropy``), and
  ``excess_log_loss`` (the KL divergence) is 0 only for the exact answer;
- calibration: each card's probability of lying in the envelope, binned by
  the solver's probability, against the exact mean probability per bin;
  ``ece`` the count-weighted mean gap. Every card counts but one whose exact
  probability is 0 or 1 and whose answer is that same 0 or 1 (a certain fact
  got right, which says nothing of calibration); a certain claim that is wrong
  (1 for a card that cannot be in the envelope, 0 for one that is) counts, in
  the bin of its claim. A solver uniform over a superset of the candidates is
  calibrated on average but has little resolution: Brier and log-loss see it,
  ECE does not.

Every pooled figure comes with a bootstrap 95% interval: over games where the tasks say which game
they were cut from (``task_game``; the tasks of a game are not independent), else over tasks. A share
(precision, recall, F1, solved) of exactly 0 or 1 leaves the bootstrap nothing to resample: every
resample is 0 or 1 too, an interval of no width that reads as certainty. Its interval is then Wilson's
with each game (or task) holding any of the share's denominator one trial, all of them failed or all
passed: the bound that holds even if a game's tasks always agree (1.000 from 167 games: [0.978, 1.000]).
A figure that is not a share keeps the bootstrap's interval, of no width where every game has the same
value (the exact solver's excess log-loss is 0 by construction, not by sampling). A share with a few
misses keeps the bootstrap's interval too, which is then narrower than Wilson's at 0 or 1 (one fact
missed in one of 167 games: about [0.999, 1.000]): near 0 or 1, compare solvers by their games and facts.
Precision claims nothing of a solver that claims no fact: it is NaN (``n/a`` in a table), not 1.
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cluedo_env.intervals import wilson_interval
from cluedo_env.reasoning.ladder import LABELS
from cluedo_env.reasoning.tasks import SOLVER_FIELDS

__all__ = [
    "ANSWER_KEYS",
    "EPS",
    "METRICS",
    "SCORE_VERSION",
    "public_view",
    "score_answer",
    "summarize",
    "task_game",
]

ANSWER_KEYS = ("facts", "envelope", "probabilities")  # what an answer dict may hold
# The version of score_answer's figures, which a stopped run keeps and goes on from: a change to them
# makes older ones another run's. 2: the calibration pairs keep a certain claim that is wrong.
SCORE_VERSION = 2
EPS = 1e-6
CALIBRATION_BINS = 10
# Pooled metrics: name -> (numerator field, denominator field) of the per-task scores.
_RATIOS = {
    "precision": ("tp", "claimed"),
    "recall": ("tp", "certain"),
    "solved": ("solved", "one"),
    "brier": ("brier", "one"),
    "brier_floor": ("brier_floor", "one"),
    "log_loss": ("log_loss", "one"),
    "entropy": ("entropy", "one"),
    "excess_log_loss": ("excess_log_loss", "one"),
}
METRICS = ("precision", "recall", "f1", *list(_RATIOS)[2:], *(f"recall_{label}" for label in LABELS))
# The shares, each with the per-task fields that make its denominator: a game (or task) whose
# denominator is 0 holds no trial of it.
_SHARES = {
    "precision": ("claimed",),
    "recall": ("certain",),
    "f1": ("claimed", "certain"),
    "solved": ("one",),
} | {f"recall_{label}": (f"certain_{label}",) for label in LABELS}


def task_game(task: Mapping[str, Any]) -> int | None:
    """The game a task was cut from, for ``summarize``'s bootstrap: its deal's seed (the tasks of one
    deal share the hands, whatever the seats' rotation); None for a task that does not say."""
    seed = (task.get("game") or {}).get("seed")
    return None if seed is None else int(seed)


def public_view(task: Mapping[str, Any]) -> dict[str, Any]:
    """The task as a solver sees it: its ``SOLVER_FIELDS`` only (``cluedo_env.reasoning.tasks``).

    Left out: the answer key (``answers``, ``hardest``, ``tier``), the provenance
    (``game``, whose deal seed would re-deal the game) and any field not named in
    ``SOLVER_FIELDS``. A deep copy: a solver that changes its view (``players.append(...)``) changes
    nothing that scores it.
    """
    return copy.deepcopy({k: task[k] for k in SOLVER_FIELDS if k in task})


def _facts(claimed: Any, problems: list[str]) -> tuple[set, int]:
    """The well-formed claimed facts, and how many entries were malformed."""
    if claimed is None:
        problems.append("no facts")
        return set(), 0
    if not isinstance(claimed, (list, tuple)):
        problems.append(f"facts is not a list: {type(claimed).__name__}")
        return set(), 1
    facts, bad = set(), 0
    for entry in claimed:
        if (
            isinstance(entry, (list, tuple))
            and len(entry) >= 3
            and isinstance(entry[0], str)
            and isinstance(entry[1], str)
            and isinstance(entry[2], (bool, np.bool_))
        ):
            facts.add((entry[0], entry[1], bool(entry[2])))
        else:
            bad += 1
    if bad:
        problems.append(f"{bad} malformed fact(s), counted wrong")
    return facts, bad


def _short(value: Any) -> str:
    """``repr(value)``, cut to 40 characters (a solver's answer may hold anything)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _probability(value: Any) -> float | None:
    """A probability as a float: any real number (``int``, ``float``, ``np.float32``, ...), else None.

    Booleans are not probabilities; neither is an int too large for a float.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _distribution(row: Any, owners: Sequence[str], problems: list[str], card: str) -> np.ndarray | None:
    """The owner distribution of one card's row, or None for a rejected row (reported in ``problems``)."""
    if not isinstance(row, Mapping):
        problems.append(f"rejected probabilities of {card!r}: not a dict: {type(row).__name__}")
        return None
    q = np.zeros(len(owners))
    for owner, value in row.items():
        p = _probability(value)
        if owner not in owners or p is None:
            problems.append(
                f"rejected probabilities of {card!r}: bad entry {_short(owner)} -> {_short(value)}"
            )
            return None
        if not (math.isfinite(p) and p >= 0):
            problems.append(
                f"rejected probabilities of {card!r}: {owner!r} -> {value!r} is not finite and >= 0"
            )
            return None
        q[owners.index(owner)] = p
    with np.errstate(over="ignore"):
        total = q.sum()
    if total <= 0:
        problems.append(f"rejected probabilities of {card!r}: they sum to 0")
        return None
    if abs(total - 1) > 1e-6:
        problems.append(f"probabilities of {card!r} sum to {total:.6g}: rescaled")
        if not math.isfinite(total):  # finite entries whose sum overflows: their ratios are still the answer
            q = q / q.max()
        return q / q.sum()
    return q  # rounding-level sums are left alone: the exact answer scores exactly the floor


def score_answer(task: Mapping[str, Any], answer: Any) -> dict[str, Any]:
    """Score one answer against one task's exact answers (see the module docstring).

    Returns:
        Per-task figures (``tp``, ``claimed``, ``certain``, ``found_<label>``,
        ``certain_<label>``, ``solved``, ``brier``, ``brier_floor``, ``log_loss``,
        ``entropy``, ``excess_log_loss``, ``rejected_rows``), the calibration pairs ``pairs``
        (``[q, p]``: the claimed and the exact probability that a card is in the envelope, for every
        card but those whose answer is the exact 0 or 1) and ``problems`` (what was wrong with the
        answer).
    """
    problems: list[str] = []
    if not isinstance(answer, Mapping):
        problems.append(f"answer is not a dict: {type(answer).__name__}; scored as empty")
        answer = {}
    truth = task["answers"]
    certain = {(c, o, h): label for c, o, h, label in truth["facts"]}
    claimed, bad = _facts(answer.get("facts"), problems)
    tp = len(claimed & certain.keys())
    scores: dict[str, Any] = {"tp": tp, "claimed": len(claimed) + bad, "certain": len(certain), "one": 1}
    for label in LABELS:
        of_label = [f for f, lab in certain.items() if lab == label]
        scores[f"certain_{label}"] = len(of_label)
        scores[f"found_{label}"] = sum(f in claimed for f in of_label)
    envelope = answer.get("envelope")
    if isinstance(envelope, np.ndarray):  # a Python solver's array of names: its list
        envelope = envelope.tolist()
    expected = truth["envelope"]
    if envelope is None:
        problems.append("no envelope answer")
    elif not (envelope == "not yet" or (isinstance(envelope, (list, tuple)) and len(envelope) == 3)):
        problems.append(f"envelope must be 'not yet' or three card names, got {_short(envelope)}")
    if expected == "not yet":
        scores["solved"] = float(envelope == "not yet")
    else:
        scores["solved"] = float(
            isinstance(envelope, (list, tuple)) and sorted(map(str, envelope)) == sorted(expected)
        )
    owners = task["players"] + ["envelope"] + (["table"] if task["config"].get("duel") else [])
    given = answer.get("probabilities")
    if given is None or (isinstance(given, Mapping) and not given):
        problems.append("no probabilities: uniform used")
        given = {}
    elif not isinstance(given, Mapping):
        problems.append(f"probabilities is not a dict: {type(given).__name__}: uniform used")
        given = {}
    brier = floor = loss = entropy = excess = 0.0
    rejected = 0
    pairs = []
    cards = list(truth["probabilities"])
    for card in cards:
        p = np.array([truth["probabilities"][card][o] for o in owners])
        q = _distribution(given[card], owners, problems, card) if card in given else None
        if q is None:
            if card in given:
                rejected += 1
            elif given:
                problems.append(f"no probabilities for {card!r}: uniform used")
            q = np.full(len(owners), 1 / len(owners))
        brier += float(((q - p) ** 2).sum() + (p * (1 - p)).sum())
        floor += float((p * (1 - p)).sum())
        positive = p > 0
        log_q, log_p = np.log(np.maximum(q[positive], EPS)), np.log(p[positive])
        loss += float(-(p[positive] * log_q).sum())
        entropy += float(-(p[positive] * log_p).sum())
        excess += float((p[positive] * (log_p - log_q)).sum())  # exactly 0 when q == p
        e = len(task["players"])  # the envelope's column
        if not (q[e] == p[e] and p[e] in (0, 1)):  # all but a certain fact got right
            pairs.append((float(q[e]), float(p[e])))
    n = len(cards)
    if rejected:
        problems.append(f"probability rows rejected, uniform used: {rejected}")
    unknown_cards = sorted(map(repr, set(given) - set(cards))) if isinstance(given, Mapping) else []
    if unknown_cards:
        problems.append(f"probabilities for unknown cards {unknown_cards[:3]}: ignored")
    scores.update(
        brier=brier / n,
        brier_floor=floor / n,
        log_loss=loss / n,
        entropy=entropy / n,
        excess_log_loss=excess / n,
        rejected_rows=rejected,
        pairs=pairs,
        problems=sorted(set(problems)),
    )
    return scores


def _pooled(table: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """Pooled metrics of the tasks ``rows`` (``[..., n]`` index arrays: one resample per leading index)."""
    sums = {k: v[rows].sum(axis=-1) for k, v in table.items()}
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, (num, den) in _RATIOS.items():
            out[name] = sums[num] / sums[den]
        out["f1"] = 2 * sums["tp"] / (sums["claimed"] + sums["certain"])
        for label in LABELS:
            out[f"recall_{label}"] = sums[f"found_{label}"] / sums[f"certain_{label}"]
    return out


def summarize(
    scores: Sequence[Mapping[str, Any]],
    tiers: Sequence[int],
    *,
    games: Sequence[Any] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Pooled metrics with bootstrap 95% intervals, overall and per tier, plus calibration and problems.

    Args:
        scores: ``score_answer`` results, one per task.
        tiers: Each task's tier.
        games: Each task's game (``task_game``; None: a game of its own). The tasks cut from one game
            share its deal and its history, so they are not independent: the bootstrap then resamples
            games, each drawn game with all its tasks (of the group). None: it resamples tasks.
        resamples: Bootstrap resamples (with replacement).
        seed: Seed of the bootstrap.

    Returns:
        ``{"overall": {...}, "tiers": {tier: {...}}, "calibration": {...},
        "problems": {...}}``; each group maps a metric to ``{"value", "low",
        "high"}`` and holds ``tasks``, its number of tasks, and ``games``, its number of games
        (with ``games``); a recall by reasoning (``recall_<label>``) also holds ``facts``, the
        facts of that label, and ``units``, the games (or tasks) holding any.
    """
    if len(scores) != len(tiers) or not scores:
        raise ValueError(f"need one tier per score and at least one task, got {len(scores)} and {len(tiers)}")
    if games is not None and len(games) != len(scores):
        raise ValueError(f"need one game per score, got {len(games)} for {len(scores)} scores")
    keys = [k for k, v in scores[0].items() if isinstance(v, (int, float))]
    table = {k: np.array([s[k] for s in scores], dtype=np.float64) for k in keys}
    tiers = np.asarray(tiers)
    if games is None:
        units = np.arange(len(scores))
    else:
        names = [f"task {i}" if g is None else repr(g) for i, g in enumerate(games)]
        _, first, inverse = np.unique(names, return_index=True, return_inverse=True)
        units = np.argsort(np.argsort(first))[inverse]  # numbered in the order the games first come
    rng = np.random.default_rng(seed)

    def group(rows: np.ndarray) -> dict[str, Any]:
        point = _pooled(table, rows)
        # the bootstrap's units (tasks or games) of the group, and each row's
        drawn, unit_of_row = np.unique(units[rows], return_inverse=True)
        sums = {k: np.bincount(unit_of_row, weights=v[rows], minlength=len(drawn)) for k, v in table.items()}
        boot = _pooled(sums, rng.integers(0, len(drawn), size=(resamples, len(drawn))))
        result: dict[str, Any] = {"tasks": len(rows)} | ({} if games is None else {"games": len(drawn)})
        for name in METRICS:
            low, high = (
                np.nanpercentile(boot[name], [2.5, 97.5]) if np.isfinite(boot[name]).any() else (np.nan,) * 2
            )
            if name in _SHARES and point[name] in (0.0, 1.0):  # every resample alike: Wilson's over units
                trials = int((sum(sums[field] for field in _SHARES[name]) > 0).sum())
                low, high = wilson_interval(int(point[name]) * trials, trials)
            result[name] = {"value": float(point[name]), "low": float(low), "high": float(high)}
        for label in LABELS:  # a recall's own evidence: the facts of that label and the units holding any
            certain = sums[f"certain_{label}"]
            result[f"recall_{label}"] |= {"facts": int(certain.sum()), "units": int((certain > 0).sum())}
        return result

    summary = {"overall": group(np.arange(len(scores))), "tiers": {}}
    for tier in sorted(set(tiers.tolist())):
        summary["tiers"][int(tier)] = group(np.flatnonzero(tiers == tier))
    pairs = np.array([pair for s in scores for pair in s["pairs"]], dtype=np.float64).reshape(-1, 2)
    # (np.linspace's 0.30000000000000004 would put a claimed 0.3 in the bin below)
    edges = np.arange(CALIBRATION_BINS + 1) / CALIBRATION_BINS
    which = np.clip(np.digitize(pairs[:, 0], edges[1:-1]), 0, CALIBRATION_BINS - 1)
    bins = []
    for b in range(CALIBRATION_BINS):
        inside = which == b
        if inside.any():
            bins.append(
                {
                    "low": float(edges[b]),
                    "high": float(edges[b + 1]),
                    "count": int(inside.sum()),
                    "mean_claimed": float(pairs[inside, 0].mean()),
                    "mean_exact": float(pairs[inside, 1].mean()),
                }
            )
    ece = sum(b["count"] * abs(b["mean_claimed"] - b["mean_exact"]) for b in bins) / max(len(pairs), 1)
    problems: dict[str, int] = {}
    for s in scores:
        for problem in s["problems"]:
            kind = problem.split(":")[0] if "'" not in problem else problem.split("'")[0].strip() + " ..."
            problems[kind] = problems.get(kind, 0) + 1
    summary["calibration"] = {"bins": bins, "ece": float(ece), "pairs": len(pairs)}
    summary["problems"] = {
        "tasks_with_problems": int(sum(bool(s["problems"]) for s in scores)),
        "rejected_probability_rows": int(sum(s.get("rejected_rows", 0) for s in scores)),
        "kinds": dict(sorted(problems.items(), key=lambda kv: -kv[1])[:20]),
    }
    return summary
