"""The belief agent: its expected information against brute force, legal play, sure accusations, seeds."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest
from test_deduction import SMALL_SETUPS, play_random_game

from agents.arena import play_batch
from agents.belief import BeliefAgent, expected_information
from agents.deduction import Deck, Setup, _agrees, _all_deals
from agents.registry import make_agent
from cluedo_env import core

CLASSIC = core.GameConfig(num_players=4)


def entropy(masses: dict) -> float:
    total = sum(masses.values())
    return -sum(m / total * math.log2(m / total) for m in masses.values() if m > 0)


def brute_information(setup: Setup, suggester: int, deals: np.ndarray, triple: tuple, about: str) -> float:
    """``H(about) - E_A[H(about | A)]``, enumerating every deal and every answer it may give."""
    P = setup.num_players
    joint: dict = defaultdict(float)  # (answer, about value) -> probability
    for deal in deals:
        envelope = tuple(int(c) for c in np.flatnonzero(deal == setup.envelope))
        value = envelope if about == "envelope" else tuple(deal[c] == setup.envelope for c in triple)
        answer_cards: list = [("nobody",)]
        for step in range(1, P):
            asked = (suggester + step) % P
            held = [c for c in triple if deal[c] == asked]
            if held:
                answer_cards = [(asked, c) for c in held]
                break
        for answer in answer_cards:
            joint[answer, value] += 1.0 / len(deals) / len(answer_cards)
    prior: dict = defaultdict(float)
    by_answer: dict = defaultdict(lambda: defaultdict(float))
    for (answer, value), p in joint.items():
        prior[value] += p
        by_answer[answer][value] += p
    return entropy(prior) - sum(sum(d.values()) * entropy(d) for d in by_answer.values())


@pytest.mark.parametrize("name", ["2-2-3x3", "2-3-3x3", "2-2-3x4", "duel-2-3-4"])
@pytest.mark.parametrize("about", ["envelope", "named"])
def test_expected_information_equals_brute_force_on_small_decks(name: str, about: str) -> None:
    setup = SMALL_SETUPS[name]
    rng = np.random.default_rng(7)
    for num_turns in (0, 2, 5):
        _, views = play_random_game(setup, rng, num_turns, accuse_rate=0.0)
        observer = num_turns % setup.num_players
        deals = _all_deals(setup)
        for record in views[observer]:
            deals = deals[_agrees(deals, setup, record)]
        values = expected_information(setup, observer, deals, about=about)
        offsets = [c.start for c in setup.deck.categories]
        for s, w, r in itertools.product(*(range(n) for n in setup.deck.sizes)):
            triple = (s + offsets[0], w + offsets[1], r + offsets[2])
            expected = brute_information(setup, observer, deals, triple, about)
            assert values[s, w, r] == pytest.approx(expected, abs=1e-9), (num_turns, triple)


def test_the_named_cards_information_is_a_lower_bound_and_weights_count() -> None:
    setup = SMALL_SETUPS["2-2-3x3"]
    deals = _all_deals(setup)
    named = expected_information(setup, 0, deals, about="named")
    whole = expected_information(setup, 0, deals, about="envelope")
    assert (named <= whole + 1e-12).all() and named.max() > 0
    doubled = expected_information(setup, 0, np.concatenate([deals, deals[:1]]))
    weights = np.ones(len(deals))
    weights[0] = 2.0
    assert np.allclose(expected_information(setup, 0, deals, weights), doubled)


def test_a_suggestion_of_known_cards_tells_nothing() -> None:
    setup = Setup.dealt(Deck(2, 2, 2), 3)
    deal = _all_deals(setup)[:1]  # one deal: nothing left to learn
    assert (expected_information(setup, 1, deal, about="envelope") == 0).all()


def test_bad_input_is_rejected_with_the_reason() -> None:
    setup = SMALL_SETUPS["2-2-3x3"]
    deals = _all_deals(setup)
    with pytest.raises(ValueError, match="about must be one of"):
        expected_information(setup, 0, deals, about="room")
    with pytest.raises(ValueError, match="deals must be"):
        expected_information(setup, 0, deals[:, :3])
    with pytest.raises(ValueError, match="weights must be"):
        expected_information(setup, 0, deals, np.ones(3))
    with pytest.raises(ValueError, match="samples must be"):
        BeliefAgent(samples=0)
    with pytest.raises(ValueError, match="hazard_per_answer must be"):
        BeliefAgent(hazard_per_answer=2.0)


class Checked(BeliefAgent):
    """The belief agent, with every action it takes checked against the legal mask."""

    def act(self, state, games, mask):
        actions = super().act(state, games, mask)
        assert mask[np.arange(len(games)), actions].all(), "illegal action"
        return actions


def lineup(options: dict, opponents: str = "sat") -> list:
    return [Checked(seed=0, **options)] + [make_agent(opponents, seed=k) for k in range(1, 4)]


def test_registered_as_belief() -> None:
    assert isinstance(make_agent("belief", risk_accusations=False), BeliefAgent)


@pytest.mark.parametrize(
    "config",
    [
        CLASSIC,
        core.GameConfig(num_players=3, board="none"),
        core.GameConfig(num_players=4, movement="squares", accuse_anywhere=False),
        core.GameConfig(num_players=2, duel=True),
    ],
    ids=["classic4", "none3", "squares4", "duel"],
)
def test_legal_actions_and_sure_accusations_only_without_the_risk_rule(config) -> None:
    P = config.num_players
    agents = [Checked(seed=0, risk_accusations=False)] + [make_agent("sat", seed=k) for k in range(1, P)]
    seeds = np.arange(8)
    result = play_batch(config.replace(max_turns=150), agents, seeds, rotation=seeds % P)
    assert result.wrong_accusations[:, 0].sum() == 0
    assert (result.winner == 0).any()


def test_every_ablation_plays_legally() -> None:
    seeds = np.arange(8)
    for options in (
        {"info_suggestions": False},
        {"refute_strategy": False},
        {"risk_accusations": True},
    ):
        result = play_batch(CLASSIC, lineup(options), seeds, rotation=seeds % 4)
        assert not result.truncated.any()


def test_deterministic_for_a_fixed_seed() -> None:
    seeds = np.arange(6)
    first = play_batch(CLASSIC, lineup({}), seeds, rotation=seeds % 4)
    again = play_batch(CLASSIC, lineup({}), seeds, rotation=seeds % 4)
    for field in ("winner", "turns", "decisions", "accusations"):
        assert np.array_equal(getattr(first, field), getattr(again, field))


def test_never_wrong_without_the_risk_rule_in_a_few_dozen_games() -> None:
    seeds = np.arange(32)
    result = play_batch(CLASSIC, lineup({"risk_accusations": False}), seeds, rotation=seeds % 4)
    assert result.wrong_accusations[:, 0].sum() == 0
    assert result.accusations[:, 0].sum() > 0


@pytest.mark.slow
def test_never_wrong_without_the_risk_rule_in_2000_games() -> None:
    seeds = np.arange(2000)
    result = play_batch(CLASSIC, lineup({"risk_accusations": False}), seeds, rotation=seeds % 4)
    assert result.wrong_accusations[:, 0].sum() == 0
