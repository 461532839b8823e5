"""Exact counting in int64 (``cluedo_env/inference/counting.py``): the bound that picks it.

The counting programme runs on int64 when ``_value_bound`` (proved in its docstring) is below
2**63, on Python ints otherwise. On random games with 5 and 6 players and decks of 29 and 35
cards, near and past the product bound used before: int64 counts equal Python-int counts
exactly, and no value the programme holds or sums exceeds the bound.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_deduction import play_random_game

import cluedo_env.inference.counting as counting
import cluedo_env.inference.programme as programme
from cluedo_env.inference import Deck, OwnHand, Setup
from cluedo_env.inference.beliefs import Beliefs
from cluedo_env.inference.information import answer_deals

SETUPS = {
    "5x29": Setup.dealt(Deck(8, 9, 12), 5),
    "6x29": Setup.dealt(Deck(8, 9, 12), 6),
    "5x35": Setup.dealt(Deck(10, 10, 15), 5),
    "6x35": Setup.dealt(Deck(10, 10, 15), 6),
}
OLD_LIMIT = 2**62  # the product bound used before fell back to Python ints from here


def old_bound(problem: counting.CountingProblem) -> int:
    """The bound used before: the possible owners of every unknown card, times the counters' weights."""
    options = problem.allowed.sum(axis=1)
    bound = 1
    for card in np.flatnonzero(~problem.fixed):
        bound *= int(options[card])
    for counter in problem.counters:
        bound *= max(counter.weights)
    return bound


def record_problems(monkeypatch: pytest.MonkeyPatch) -> list[counting.CountingProblem]:
    """The problems solved from now on, in order."""
    solved: list[counting.CountingProblem] = []
    solve = counting.CountingProblem.solve

    def recorded(self: counting.CountingProblem) -> counting.Masses:
        solved.append(self)
        return solve(self)

    monkeypatch.setattr(counting.CountingProblem, "solve", recorded)
    return solved


def games(name: str, seeds: range, num_turns: int = 4):
    """(setup, observer, records) of random games played a few turns."""
    setup = SETUPS[name]
    for seed in seeds:
        _, views = play_random_game(setup, np.random.default_rng(seed), num_turns)
        observer = seed % setup.num_players
        yield setup, observer, views[observer]


def exact(beliefs: Beliefs, triple: tuple[int, int, int] | None) -> tuple:
    """Everything exact the beliefs give: deals, marginals, envelope joint and answer masses."""
    posterior = beliefs.posterior()
    answers = {}
    if triple is not None:
        answers = {key: value.tolist() for key, value in answer_deals(beliefs, triple).items()}
    return (
        posterior.num_deals,
        posterior.probabilities(exact=True).tolist(),
        posterior.envelope(exact=True).tolist(),
        answers,
    )


def check_int64_equals_python_ints(name: str, seeds: range, answers: bool, monkeypatch) -> None:
    solved = record_problems(monkeypatch)
    triple = tuple(int(category[-1]) for category in SETUPS[name].deck.categories)
    for setup, observer, records in games(name, seeds):
        for model in ("counting", "weighted"):
            asked = triple if answers and model == "counting" else None
            monkeypatch.setattr(counting, "_INT64_SAFE", 2**63)
            chosen = exact(Beliefs(setup, observer, records, model=model), asked)
            monkeypatch.setattr(counting, "_INT64_SAFE", 0)  # every problem on Python ints
            assert chosen == exact(Beliefs(setup, observer, records, model=model), asked), (name, model)
    by_int64 = [p for p in solved if p.dtype is np.int64]
    assert by_int64, f"{name}: no problem counted in int64"
    if name == "6x35":  # past the old bound (these fell back to Python ints before), near the new one
        assert any(old_bound(p) >= OLD_LIMIT for p in by_int64), name
        assert max(p.bound for p in by_int64) >= 2**62, name


@pytest.mark.parametrize("name", ["5x29", "6x29", "5x35"])
def test_int64_counts_equal_python_int_counts(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check_int64_equals_python_ints(name, range(2), True, monkeypatch)


def test_int64_counts_equal_python_int_counts_at_six_players_on_35_cards(monkeypatch) -> None:
    # The tightest bounds (near 2**63); the answer masses on Python ints take long here (below).
    check_int64_equals_python_ints("6x35", range(2), False, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETUPS))
def test_int64_answer_masses_equal_python_int_ones_on_more_games(name: str, monkeypatch) -> None:
    check_int64_equals_python_ints(name, range(2, 6), True, monkeypatch)


def largest(value) -> int:
    """The largest number in a result of the programme (arrays, tuples of them, dicts of them)."""
    if isinstance(value, dict):
        return max(map(largest, value.values()), default=0)
    if isinstance(value, tuple):
        return largest(value[0])  # close(): (state, layout)
    return int(np.max(value)) if np.size(value) else 0


@pytest.mark.parametrize("name", list(SETUPS))
def test_the_bound_is_at_least_every_value_the_programme_holds(name: str, monkeypatch) -> None:
    # On Python ints (exact), every array the programme makes, and each count's total.
    seen: list[int] = []
    for method in ("start", "end", "open", "unopen", "close", "reopen", "push", "pull", "marginals"):
        original = getattr(programme.DealProgramme, method)

        def watched(self, *args, _original=original, **kwargs):
            out = _original(self, *args, **kwargs)
            seen.append(largest(out))
            return out

        monkeypatch.setattr(programme.DealProgramme, method, watched)
    monkeypatch.setattr(counting, "_INT64_SAFE", 0)
    solve = counting.CountingProblem.solve
    checked = 0
    closest = 0.0

    def checked_solve(self: counting.CountingProblem) -> counting.Masses:
        nonlocal checked, closest
        seen.clear()
        masses = solve(self)
        most = max(seen + [masses.total])
        assert most <= self.bound, (name, most.bit_length(), self.bound.bit_length())
        checked += 1
        closest = max(closest, most / self.bound)
        return masses

    monkeypatch.setattr(counting.CountingProblem, "solve", checked_solve)
    for setup, observer, records in games(name, range(2)):
        Beliefs(setup, observer, records, model="weighted").posterior()
    # Conditioned counts: the hand and one suggestion; naming cards of the hand keeps them few.
    hand = next(record for record in records if isinstance(record, OwnHand))
    suggestion = next(record for record in records if not isinstance(record, OwnHand))
    triple = tuple(
        next((c for c in hand.cards if c in category), category[0]) for category in setup.deck.categories
    )
    answer_deals(Beliefs(setup, observer, [hand, suggestion]), triple)
    assert checked >= 5
    assert closest > 2**-4  # and not far above them: within a factor 16 here


@pytest.mark.parametrize("deck", [Deck(8, 9, 12), Deck(10, 10, 15)])
def test_six_players_with_only_their_hand_known_count_in_int64(deck: Deck) -> None:
    # The old product bound (6 possible owners for each of 24 or 29 cards) chose Python ints here.
    setup = Setup.dealt(deck, 6)
    hand = OwnHand(0, tuple(range(0, deck.num_cards, 6))[: setup.owner_size(0)])
    problem = Beliefs(setup, 0, [hand]).posterior()._problem
    assert problem.dtype is np.int64
    assert problem.bound < 2**63 and old_bound(problem) >= OLD_LIMIT


def test_a_bound_past_int64_still_counts_in_python_ints() -> None:
    setup = Setup.dealt(Deck(12, 12, 16), 6)
    hand = OwnHand(0, tuple(range(0, 40, 6)))
    posterior = Beliefs(setup, 0, [hand]).posterior()
    assert posterior._problem.bound >= 2**63
    assert posterior._problem.dtype is object
    assert posterior.num_deals >= 2**63  # more deals than int64 holds, counted exactly
