"""What the answer to a suggestion is worth: its expected information about the envelope.

The suggester names ``(s, w, r)``; the other players are asked clockwise from
its left, and the first who holds any of the three cards shows one of those it
holds, each equally likely (a refuter who picks at random), to the suggester
alone; or nobody can. The answer ``A`` is who showed which card, or nobody.
Its value is the mutual information, in bits, between ``A`` and the envelope
triple ``E``::

    I(E; A) = H(E) - sum over answers a of P(a) H(E | A = a)

the expected entropy reduction of the envelope distribution. Three ways to
compute it, one quantity:

``answer_information(beliefs, triple)``: exact, from the exact posterior
    Every answer is a set of facts about where the named cards lie ("players
    1 and 2 hold none of them, player 3 holds exactly these"), so the posterior
    conditioned on it is ``Beliefs.given`` of those facts: exact deal counts per
    envelope triple. An answer "player ``j`` showed ``c``" sums over the sets
    ``H`` of named cards ``j`` may hold (``c`` in ``H``), each weighing ``1 /
    |H|`` (``answer_deals``). At most ``1 + 7 (P - 1)`` conditioned counts per
    suggestion (fewer: sets the posterior rules out are skipped before any
    counting), a few milliseconds each on the classic deck.

``expected_information(setup, suggester, deals, weights)``: on a set of deals
    The same sums over explicit deals with their probabilities, for every
    suggestion at once: on all deals of a small deck it is exact (the tests'
    reference), on deals drawn from a posterior an estimate.

``screen_information(setup, suggester, probabilities)``: a cheap screen
    For every suggestion at once, from each card's owner probabilities alone,
    taking the three named cards' owners as independent, the information
    about which of the named cards are in the envelope (8 values). An
    approximation, used to choose the few suggestions worth the exact count
    and to value rooms the agent might walk to.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable

import numpy as np

from cluedo_env.inference.beliefs import Beliefs
from cluedo_env.inference.cards import Setup, is_whole
from cluedo_env.inference.records import asking_order

__all__ = [
    "ABOUT",
    "NOBODY",
    "answer_deals",
    "answer_information",
    "expected_information",
    "screen_information",
]

ABOUT = ("named", "envelope")
NOBODY = "nobody"  # the answer when no asked player holds any named card
# Answer masses are counted in sixths of a deal: a refuter holding k of the named cards shows each
# with probability 1/k, and 6/k is an integer for k = 1, 2, 3, so the masses stay exact integers.
SIXTHS = 6


def _asked(setup: Setup, suggester: int) -> list[int]:
    """The players asked, in order: clockwise from the suggester's left (a list, to index arrays)."""
    return list(asking_order(setup, suggester))


def answer_deals(beliefs: Beliefs, triple: tuple[int, int, int]) -> dict[tuple, np.ndarray]:
    """The exact joint distribution of the answer and the envelope, in sixths of a deal.

    Args:
        beliefs: The suggester's beliefs (counting model); their observer suggests.
        triple: The suspect, weapon and room card named (deck card ids: ints or numpy integers).

    Returns:
        ``{answer: object[S, W, R]}`` of Python ints: for each answer of positive probability
        (``(NOBODY,)`` or ``(refuter, card)``), ``6 x`` the expected number of consistent deals
        with each envelope triple that give it. Summed over the answers: ``6 x
        posterior.envelope_deals()``.

    Raises:
        ValueError: If the triple is not one card (an integer, not a float or a bool) of each
            category, or the beliefs use the weighted model.
    """
    setup = beliefs.setup
    cards = list(triple) if isinstance(triple, Iterable) and not isinstance(triple, str) else []
    if (
        len(cards) != 3
        or not all(is_whole(c) for c in cards)  # (int() would read 1.7 or True as card 1)
        or [setup.deck.category(c) for c in cards] != [0, 1, 2]
    ):
        raise ValueError(f"triple must be a suspect, a weapon and a room card (ints), got {triple!r}")
    cards = [int(c) for c in cards]
    if beliefs.model != "counting":
        raise ValueError(f"answer_deals needs the counting model, got {beliefs.model!r}")
    support = beliefs.posterior().support()
    asked = _asked(setup, beliefs.observer)
    hypothesis = np.ones_like(support)
    masses: dict[tuple, np.ndarray] = {}

    def count(answer_cards: list[tuple], facts: np.ndarray) -> None:
        posterior = beliefs.given(facts)
        if posterior is None:
            return
        deals = posterior.envelope_deals() * (SIXTHS // len(answer_cards))
        for answer in answer_cards:
            masses[answer] = masses[answer] + deals if answer in masses else deals

    facts = hypothesis.copy()
    facts[np.ix_(cards, asked)] = False
    count([(NOBODY,)], facts)
    for i, refuter in enumerate(asked):
        for size in (1, 2, 3):
            for held in itertools.combinations(cards, size):
                if not support[list(held), refuter].all():
                    continue  # the posterior already rules it out: no need to count
                facts = hypothesis.copy()
                facts[np.ix_(cards, asked[:i])] = False  # those asked before hold none of them
                facts[list(held)] = False
                facts[list(held), refuter] = True  # the refuter holds exactly these named cards
                facts[[c for c in cards if c not in held], refuter] = False
                count([(refuter, c) for c in held], facts)
    return masses


def answer_information(beliefs: Beliefs, triple: tuple[int, int, int]) -> float:
    """The exact expected information about the envelope of suggesting ``triple``, in bits.

    ``I(E; A)`` (see the module docstring) under the observer's exact posterior.

    Raises:
        ValueError: As ``answer_deals``.
    """
    masses = answer_deals(beliefs, triple)
    joint = np.array([m.reshape(-1) for m in masses.values()], dtype=np.float64)  # [answers, triples]
    return float(_mutual_information(joint[None].transpose(0, 2, 1))[0])


def _mutual_information(joint: np.ndarray) -> np.ndarray:
    """``I(X; A)`` in bits for each leading row of an unnormalised joint ``[Q, X, A]``."""
    joint = joint / joint.sum(axis=(1, 2), keepdims=True)
    px = joint.sum(axis=2, keepdims=True)
    pa = joint.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(joint > 0, joint * np.log2(joint / (px * pa)), 0.0)
    return np.maximum(terms.sum(axis=(1, 2)), 0.0)


def expected_information(
    setup: Setup,
    suggester: int,
    deals: np.ndarray,
    weights: np.ndarray | None = None,
    about: str = "envelope",
) -> np.ndarray:
    """The expected information of every suggestion's answer, in bits, under a distribution of deals.

    Args:
        setup: The game's set-up.
        suggester: The player who suggests (the observer).
        deals: ``int[M, num_cards]``, the owner of every card in each deal
            (``Posterior.sample_deals``'s layout).
        weights: ``float[M]``, the probability of each deal (normalised here);
            ``None``: equally likely.
        about: ``"envelope"``: about the whole envelope triple; ``"named"``: about which of
            the three named cards are in the envelope.

    Returns:
        ``float64[S, W, R]``: ``I(answer; about)`` for each suggestion (category-local indices).

    Raises:
        ValueError: For an unknown ``about``, a suggester who is not a player, deals of the wrong
            shape, or weights of the wrong shape, not finite, negative or of sum 0.
    """
    if about not in ABOUT:
        raise ValueError(f"about must be one of {list(ABOUT)}, got {about!r}")
    setup.check_player(suggester, "suggester")
    deals = np.asarray(deals)
    if deals.ndim != 2 or deals.shape[1] != setup.deck.num_cards or len(deals) == 0:
        raise ValueError(f"deals must be int[M >= 1, {setup.deck.num_cards}], got shape {deals.shape}")
    M = len(deals)
    if weights is None:
        weights = np.full(M, 1.0 / M)
    else:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (M,):
            raise ValueError(f"weights must be float[{M}] (one per deal), got shape {weights.shape}")
        bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
        if len(bad):
            raise ValueError(
                f"weights must be finite and non-negative, got {weights[bad[0]]} for deal {bad[0]}"
            )
        if weights.sum() <= 0:
            raise ValueError("weights must have a positive sum, got all 0")
        weights = weights / weights.sum()
    S, W, R = setup.deck.sizes
    P = setup.num_players
    rank = np.full(setup.num_owners, P - 1)  # P - 1: never asked (the suggester, envelope, table)
    rank[_asked(setup, suggester)] = np.arange(P - 1)
    ranks = rank[deals]
    rs = ranks[:, :S, None, None]
    rw = ranks[:, None, S : S + W, None]
    rr = ranks[:, None, None, S + W :]
    first = np.minimum(np.minimum(rs, rw), rr)  # [M, S, W, R]: the refuter's place in the order
    refuted = first < P - 1
    holds = [(r == first) & refuted for r in (rs, rw, rr)]
    k = np.maximum(holds[0].astype(np.int64) + holds[1] + holds[2], 1)
    envelope = deals == setup.envelope
    if about == "named":
        x = envelope[:, :S, None, None] * 4 + envelope[:, None, S : S + W, None] * 2
        x = x + envelope[:, None, None, S + W :]
        nx = 8
    else:
        s, w, r = (envelope[:, lo : lo + n].argmax(axis=1) for lo, n in ((0, S), (S, W), (S + W, R)))
        x = np.broadcast_to(((s * W + w) * R + r)[:, None, None, None], first.shape)
        nx = S * W * R
    num_answers = 1 + 3 * (P - 1)  # nobody, or (refuter, which of the three)
    q = np.arange(S * W * R).reshape(1, S, W, R)
    cell = (q * nx + x) * num_answers
    p = np.broadcast_to(weights[:, None, None, None], first.shape)
    index = [cell + 0]
    mass = [np.where(refuted, 0.0, p)]
    for j in range(3):
        index.append(cell + 1 + np.minimum(first, P - 2) * 3 + j)
        mass.append(np.where(holds[j], p / k, 0.0))
    joint = np.bincount(
        np.concatenate([i.ravel() for i in index]),
        np.concatenate([m.ravel() for m in mass]),
        minlength=S * W * R * nx * num_answers,
    ).reshape(S * W * R, nx, num_answers)
    return _mutual_information(joint).reshape(S, W, R)


@functools.cache
def _answer_table(num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each place of the three named cards, which answers it gives with which probability
    and which of the cards are in the envelope: a sparse table ``(combo, cell, weight)``.

    A card's place: the ``i``-th player asked (``0 .. P-2``), the envelope (``P-1``) or
    elsewhere (``P``: the suggester's hand or the table). A cell is ``x * answers + answer``,
    ``x`` the envelope bits of the three cards, ``answer`` 0 for nobody, else ``1 + 3 i + j``.
    """
    P = num_players
    num_answers = 1 + 3 * (P - 1)
    combos, cells, weights = [], [], []
    for combo, where in enumerate(itertools.product(range(P + 1), repeat=3)):
        x = sum(4 >> j for j in range(3) if where[j] == P - 1)
        refuter = min(where)
        held = [j for j in range(3) if where[j] == refuter] if refuter < P - 1 else []
        for answer in [1 + refuter * 3 + j for j in held] or [0]:
            combos.append(combo)
            cells.append(x * num_answers + answer)
            weights.append(1.0 / max(len(held), 1))
    return np.array(combos), np.array(cells), np.array(weights)


def screen_information(setup: Setup, suggester: int, probabilities: np.ndarray) -> np.ndarray:
    """A cheap estimate of every suggestion's information: ``float[S, W, R]`` bits.

    The information about which of the named cards are in the envelope, with the three cards'
    owners taken as independent (each by its own probabilities). Exact where the owners are in
    fact independent; an approximation in general (see the module docstring).

    Args:
        setup: The game's set-up.
        suggester: The player who suggests.
        probabilities: ``float[num_cards, num_owners]``, ``Posterior.probabilities()``.

    Raises:
        ValueError: For a suggester who is not a player, or probabilities of the wrong shape.
    """
    P = setup.num_players
    setup.check_player(suggester, "suggester")
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if probabilities.shape != (setup.deck.num_cards, setup.num_owners):
        raise ValueError(
            f"probabilities must be float[{setup.deck.num_cards}, {setup.num_owners}] (cards, owners), "
            f"got shape {probabilities.shape}"
        )
    place = np.zeros((setup.deck.num_cards, P + 1))
    place[:, : P - 1] = probabilities[:, _asked(setup, suggester)]
    place[:, P - 1] = probabilities[:, setup.envelope]
    place[:, P] = np.clip(1.0 - place[:, :P].sum(axis=1), 0.0, 1.0)
    S, W, R = setup.deck.sizes
    combo_p = (
        place[:S, None, None, :, None, None]
        * place[None, S : S + W, None, None, :, None]
        * place[None, None, S + W :, None, None, :]
    ).reshape(S * W * R, -1)
    combos, cells, weights = _answer_table(P)
    num_cells = 8 * (1 + 3 * (P - 1))
    index = np.arange(S * W * R)[:, None] * num_cells + cells[None, :]
    joint = np.bincount(
        index.ravel(), (combo_p[:, combos] * weights).ravel(), minlength=S * W * R * num_cells
    )
    return _mutual_information(joint.reshape(S * W * R, 8, -1)).reshape(S, W, R)
