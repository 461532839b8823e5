"""The value of a suggestion's answer: the exact count against brute force, on small decks."""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from test_deduction import SMALL_SETUPS, play_random_game

from cluedo_env.inference import Deck, Setup
from cluedo_env.inference.beliefs import Beliefs
from cluedo_env.inference.exhaustive import all_deals, consistent_with
from cluedo_env.inference.information import (
    NOBODY,
    answer_deals,
    answer_information,
    expected_information,
    screen_information,
)


def brute_answers(setup: Setup, suggester: int, deals: np.ndarray, triple: tuple) -> dict:
    """``{(answer, envelope triple): probability}`` as Fractions, enumerating every deal and answer."""
    P = setup.num_players
    joint: dict = defaultdict(Fraction)
    for deal in deals:
        envelope = tuple(int(c) for c in np.flatnonzero(deal == setup.envelope))
        answers = [(NOBODY,)]
        for step in range(1, P):
            asked = (suggester + step) % P
            held = [c for c in triple if deal[c] == asked]
            if held:
                answers = [(asked, c) for c in held]  # a random refuter: each card alike
                break
        for answer in answers:
            joint[answer, envelope] += Fraction(1, len(deals) * len(answers))
    return joint


def information(joint: dict) -> float:
    """``H(E) - E_A[H(E | A)]`` in bits from a joint ``{(answer, envelope): probability}``."""
    prior: dict = defaultdict(Fraction)
    by_answer: dict = defaultdict(lambda: defaultdict(Fraction))
    for (answer, envelope), p in joint.items():
        prior[envelope] += p
        by_answer[answer][envelope] += p

    def entropy(masses: dict) -> float:
        total = sum(masses.values())
        return -sum(float(m / total) * math.log2(m / total) for m in masses.values() if m > 0)

    return entropy(prior) - sum(float(sum(d.values())) * entropy(d) for d in by_answer.values())


def positions(name: str, seed: int = 7):
    """(setup, observer, beliefs, consistent deals) at a few points of random games."""
    setup = SMALL_SETUPS[name]
    rng = np.random.default_rng(seed)
    for num_turns in (0, 2, 5):
        _, views = play_random_game(setup, rng, num_turns, accuse_rate=0.0)
        observer = num_turns % setup.num_players
        deals = all_deals(setup)
        for record in views[observer]:
            deals = deals[consistent_with(deals, setup, record)]
        yield setup, observer, Beliefs(setup, observer, views[observer]), deals


def triples(setup: Setup):
    offsets = [c.start for c in setup.deck.categories]
    for s, w, r in itertools.product(*(range(n) for n in setup.deck.sizes)):
        yield (s, w, r), (s + offsets[0], w + offsets[1], r + offsets[2])


@pytest.mark.parametrize("name", ["2-2-3x3", "2-3-3x3", "2-2-3x4", "duel-2-3-4"])
def test_the_exact_answer_distribution_equals_brute_force_exactly(name: str) -> None:
    for setup, observer, beliefs, deals in positions(name):
        offsets = [c.start for c in setup.deck.categories]
        num_deals = beliefs.posterior().num_deals
        assert num_deals == len(deals)
        for _, triple in triples(setup):
            counted = {
                (answer, (a + offsets[0], b + offsets[1], c + offsets[2])): Fraction(int(m), 6 * num_deals)
                for answer, masses in answer_deals(beliefs, triple).items()
                for (a, b, c), m in np.ndenumerate(masses)
                if m
            }
            assert counted == brute_answers(setup, observer, deals, triple)
            assert answer_information(beliefs, triple) == pytest.approx(information(counted), abs=1e-12)


@pytest.mark.parametrize("name", ["2-2-3x3", "2-3-3x3", "2-2-3x4", "duel-2-3-4"])
def test_the_deal_sum_equals_brute_force(name: str) -> None:
    for setup, observer, beliefs, deals in positions(name, seed=3):
        values = expected_information(setup, observer, deals)
        named = expected_information(setup, observer, deals, about="named")
        for index, triple in triples(setup):
            joint = brute_answers(setup, observer, deals, triple)
            assert values[index] == pytest.approx(information(joint), abs=1e-9)
            assert values[index] == pytest.approx(answer_information(beliefs, triple), abs=1e-9)
            assert named[index] <= values[index] + 1e-12  # a function of the envelope tells less


def test_the_screen_sees_nothing_where_the_answer_is_known_and_something_where_it_is_not() -> None:
    # The screen (owners taken as independent) is an approximation; where every named card's
    # place is known it is exactly 0, as is the exact information, and it is positive where the
    # exact information is.
    for setup, observer, beliefs, _ in positions("2-3-3x3", seed=5):
        screen = screen_information(setup, observer, beliefs.posterior().probabilities())
        for index, triple in triples(setup):
            exact = answer_information(beliefs, triple)
            assert 0 <= screen[index] <= 3
            assert (screen[index] > 1e-12) == (exact > 1e-12), (index, screen[index], exact)


def test_weights_count_as_repeated_deals() -> None:
    setup = SMALL_SETUPS["2-2-3x3"]
    deals = all_deals(setup)
    doubled = expected_information(setup, 0, np.concatenate([deals, deals[:1]]))
    weights = np.ones(len(deals))
    weights[0] = 2.0
    assert np.allclose(expected_information(setup, 0, deals, weights), doubled)


def test_a_suggestion_of_known_cards_tells_nothing() -> None:
    setup = Setup.dealt(Deck(2, 2, 2), 3)
    deal = all_deals(setup)[:1]  # one deal: nothing left to learn
    assert (expected_information(setup, 1, deal) == 0).all()


def test_bad_input_is_rejected_with_the_reason() -> None:
    setup = SMALL_SETUPS["2-2-3x3"]
    deals = all_deals(setup)
    with pytest.raises(ValueError, match="about must be one of"):
        expected_information(setup, 0, deals, about="room")
    with pytest.raises(ValueError, match="deals must be"):
        expected_information(setup, 0, deals[:, :3])
    with pytest.raises(ValueError, match="weights must be"):
        expected_information(setup, 0, deals, np.ones(3))
    with pytest.raises(ValueError, match="a suspect, a weapon and a room"):
        answer_deals(Beliefs(setup, 0), (0, 1, 4))
    with pytest.raises(ValueError, match="counting model"):
        answer_deals(Beliefs(setup, 0, model="weighted"), (0, 2, 4))
    with pytest.raises(ValueError, match="allowed must be bool"):
        Beliefs(setup, 0).given(np.ones((2, 2), dtype=bool))


@pytest.mark.parametrize(
    "triple", [(1.7, 2.2, 4.9), (0.0, 2.0, 4.0), (True, 2, 4), np.array([0.0, 2.0, 4.0]), (0, 2), 0]
)
def test_a_triple_of_floats_or_bools_is_refused_naming_it_not_read_as_card_ids(triple) -> None:
    """``int(c)`` read (1.7, 2.2, 4.9) as cards (1, 2, 4) and True as card 1."""
    beliefs = Beliefs(SMALL_SETUPS["2-2-3x3"], 0)
    answer_information(beliefs, (0, 2, 4))  # (the ints are a triple)
    shown = re.escape(repr(triple))
    for read in (answer_deals, answer_information):
        with pytest.raises(
            ValueError, match=rf"triple must be a suspect, a weapon and a room card \(ints\), got {shown}"
        ):
            read(beliefs, triple)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -1.0])
def test_weights_that_are_not_finite_and_non_negative_are_refused(bad: float) -> None:
    # NaN and infinite weights passed the check (a NaN is neither < 0 nor is its sum <= 0) and
    # every suggestion got 0 bits, silently.
    setup = SMALL_SETUPS["2-2-3x3"]
    deals = all_deals(setup)
    weights = np.ones(len(deals))
    weights[3] = bad
    with pytest.raises(ValueError, match=rf"weights must be finite and non-negative, got {bad} for deal 3"):
        expected_information(setup, 0, deals, weights)
    with pytest.raises(ValueError, match="weights must have a positive sum"):
        expected_information(setup, 0, deals, np.zeros(len(deals)))


def test_the_screen_refuses_probabilities_of_the_wrong_shape_and_a_suggester_who_is_not_a_player() -> None:
    # Both returned numbers: a column short, and a suggester 3 of a 3-player game.
    setup = SMALL_SETUPS["2-2-3x3"]
    probabilities = Beliefs(setup, 0).posterior().probabilities()
    assert screen_information(setup, 0, probabilities).shape == setup.deck.sizes
    with pytest.raises(
        ValueError, match=r"probabilities must be float\[7, 4\] \(cards, owners\), got shape \(7, 3\)"
    ):
        screen_information(setup, 0, probabilities[:, :3])
    with pytest.raises(ValueError, match=r"suggester must be a player in \[0, 3\), got 3"):
        screen_information(setup, 3, probabilities)
