"""Exact beliefs: the probability of every card's place, from one observer's records, counted exactly.

``cluedo_env.inference`` answers what is certain; this module answers how likely.
It takes the same inputs (a ``Setup``, an observer, ``Record`` s; or card
names; or a game's events) and returns a ``Posterior``:

- ``num_deals``: the exact number of deals consistent with the records (a
  Python int);
- ``probabilities()``: ``P(card c lies with owner o)`` for every card and owner
  (columns as in ``cluedo_env.inference``: players, table, envelope = ``[:, -1]``), float64 by
  default, ``fractions.Fraction`` with ``exact=True``;
- ``envelope()``: the joint distribution of the envelope over its (suspect,
  weapon, room) triples;
- ``knowledge()``: the facts of probability exactly 1 or 0, which are exactly
  the facts ``deduce`` entails (a deal has positive probability if and only if
  it is consistent);
- ``sample_deals(n, rng)``: deals drawn with exactly the posterior's
  probabilities.

``Beliefs`` is the incremental form, updated record by record like
``Notepad``; ``beliefs``, ``beliefs_named`` and ``beliefs_from_events`` are the
one-shot calls.

The probability models
    ``"counting"`` (default): every deal consistent with the records is equally
    likely, the posterior of a uniformly random deal when the records are
    read as facts (the model of the Clue literature).

    ``"weighted"``: a refuter holding ``k`` of the three named cards shows each
    with probability ``1/k``, so a record whose shown card the observer saw
    weighs each deal by ``1/k``: the true posterior against players who refute
    at random. The two agree whenever every such ``k`` is known to the
    observer (its own showings; shows where the refuter's other named cards
    are known to lie elsewhere), and differ when the refuter may hold more of
    the named cards: holding all three makes a given card less likely to be
    the one shown. Neither model reads anything into the players' choices of
    suggestions and accusations; those depend on strategies the observer does
    not know. The support, hence ``num_deals`` and ``knowledge()``, is the
    same in both.

Layout
    This module holds the public API (``Posterior``, ``Beliefs`` and the one-shot
    calls). The counting behind it: ``cluedo_env.inference.constraints`` (the
    records as constraints, unit propagation), ``cluedo_env.inference.programme``
    (the dynamic programme that deals the cards) and
    ``cluedo_env.inference.counting`` (the counting problem, whose docstring
    describes the method and its cost).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.inference.cards import Setup
from cluedo_env.inference.constraints import ConstraintStore, apply_record, propagate
from cluedo_env.inference.counting import CountingProblem, Masses, draw_index
from cluedo_env.inference.from_events import records_from_events
from cluedo_env.inference.knowledge import HELD, NOT_HELD, UNKNOWN, Knowledge
from cluedo_env.inference.names import CardNames, named_records
from cluedo_env.inference.records import Record, RecordBook, check_record

__all__ = ["MODELS", "Beliefs", "Posterior", "beliefs", "beliefs_from_events", "beliefs_named"]

MODELS = ("counting", "weighted")


def _check_model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}")
    return model


def _inconsistent(observer: int, records: int) -> ValueError:
    return ValueError(f"no deal is consistent with the {records} records of observer {observer}")


@dataclass(frozen=True, eq=False)
class Posterior:
    """Where every card lies, in probability, given one observer's records.

    Attributes:
        setup: The game's set-up.
        observer: Whose records these are.
        model: ``"counting"`` or ``"weighted"`` (see the module docstring).
        num_deals: The number of deals consistent with the records (both models).
    """

    setup: Setup
    observer: int
    model: str
    num_deals: int
    _result: Masses = field(repr=False)
    _problem: CountingProblem = field(repr=False)

    def probabilities(self, exact: bool = False) -> np.ndarray:
        """``P(card c lies with owner o)``: ``float64[num_cards, num_owners]``, or ``Fraction`` s if ``exact``.

        Each row sums to 1; the envelope column sums to 3 and player ``p``'s to
        their hand size. Probabilities are exactly 0 or 1 where, and only where,
        the fact is entailed.
        """
        mass, total = self._result.cards, self._result.total
        if exact:
            return np.vectorize(lambda m: Fraction(m, total), otypes=[object])(mass)
        return np.array([[_ratio(m, total) for m in row] for row in mass], dtype=np.float64)

    def envelope(self, exact: bool = False) -> np.ndarray:
        """The envelope's joint distribution: ``[suspect, weapon, room]`` (category-local indices)."""
        mass, total = self._result.envelope, self._result.total
        if exact:
            return np.vectorize(lambda m: Fraction(m, total), otypes=[object])(mass)
        return np.vectorize(lambda m: _ratio(m, total), otypes=[np.float64])(mass)

    def knowledge(self) -> Knowledge:
        """The entailed facts: probability 1 is ``HELD``, probability 0 is ``NOT_HELD``."""
        mass, total = self._result.cards, self._result.total
        status = np.full(mass.shape, UNKNOWN, dtype=np.int8)
        status[mass == 0] = NOT_HELD
        status[mass == total] = HELD
        return Knowledge(self.setup, status)

    def envelope_deals(self) -> np.ndarray:
        """The number of consistent deals with each envelope triple: ``object[S, W, R]`` of Python ints.

        Exact; in the ``"counting"`` model they sum to ``num_deals`` (``envelope()`` is their
        ratio to it).

        Raises:
            ValueError: In the ``"weighted"`` model, whose masses are not deal counts.
        """
        if self.model != "counting":
            raise ValueError(f"envelope_deals needs the counting model, this posterior is {self.model!r}")
        return self._result.envelope.copy()

    def support(self) -> np.ndarray:
        """``bool[num_cards, num_owners]``: the (card, owner) pairs of positive probability."""
        return self._result.cards != 0

    def sample_deals(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` deals drawn exactly from the posterior (independently).

        Returns:
            ``int8[n, num_cards]``: the owner of every card in each deal, in the
            rules core's codes (players, ``-1`` the envelope, ``-2`` the table), so
            ready for ``core.simulate``.

        Raises:
            ValueError: If ``n`` is not an int >= 0.
            TypeError: If ``rng`` is not a ``np.random.Generator`` (``np.random.default_rng(seed)`` makes one).
        """
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError(f"n must be an int >= 0, got {n!r}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"rng must be a np.random.Generator (np.random.default_rng(seed) makes one), got {rng!r:.80}"
            )
        offsets = [c.start for c in self.setup.deck.categories]
        flat = self._result.envelope.reshape(-1)
        nonzero = np.flatnonzero(flat != 0)
        weights = [int(flat[i]) for i in nonzero]
        triples: dict[tuple[int, int, int], int] = {}
        for _ in range(int(n)):
            s, w, r = np.unravel_index(int(nonzero[draw_index(rng, weights)]), self._result.envelope.shape)
            key = (int(s) + offsets[0], int(w) + offsets[1], int(r) + offsets[2])
            triples[key] = triples.get(key, 0) + 1
        parts = [self._problem.sample(t, k, rng) for t, k in triples.items()]
        if not parts:
            return np.zeros((0, self.setup.deck.num_cards), dtype=np.int8)
        deals = np.concatenate(parts)
        return deals[rng.permutation(len(deals))]


def _ratio(mass: int, total: int) -> float:
    """``mass / total`` as the nearest float (Python ints, any size)."""
    return mass / total


def _solve(setup: Setup, observer: int, store: ConstraintStore, model: str, records: int) -> Posterior:
    store = store.copy()
    if not propagate(store, setup):
        raise _inconsistent(observer, records)
    counting = CountingProblem(setup, store, weighted=False)
    try:
        result = counting.solve()
    except ValueError:
        raise _inconsistent(observer, records) from None
    problem = counting
    if model == "weighted" and store.shows:
        problem = CountingProblem(setup, store, weighted=True)
        weighted = problem.solve()
        return Posterior(setup, observer, model, result.total, weighted, problem)
    return Posterior(setup, observer, model, result.total, result, problem)


class Beliefs(RecordBook):
    """The exact posterior of one observer, updated record by record.

    Example:
        >>> from cluedo_env.inference import Deck, OwnHand
        >>> setup = Setup.dealt(Deck(6, 6, 9), num_players=4)
        >>> state = Beliefs(setup, observer=0)
        >>> state.add(OwnHand(0, (0, 6, 12, 13, 14)))
        >>> float(state.posterior().probabilities()[1, setup.envelope])  # one of 5 suspects
        0.2
    """

    def __init__(
        self, setup: Setup, observer: int, records: Iterable[Record] = (), *, model: str = "counting"
    ) -> None:
        """Builds the beliefs of ``observer`` from ``records`` (counted once, at the end).

        Raises:
            ValueError: If a record is malformed or no deal is consistent with them.
        """
        super().__init__(setup, observer)
        self._model = _check_model(model)
        self._store = ConstraintStore(np.ones((setup.deck.num_cards, setup.num_owners), dtype=bool))
        for record in records:
            check_record(setup, self._observer, record)
            apply_record(self._store, setup, record)
            self._records.append(record)
        self._posterior = _solve(setup, self._observer, self._store, model, len(self._records))
        self._tighten()

    def _tighten(self) -> None:
        self._store.allowed &= self._posterior.support()  # its zeros are entailed facts
        propagate(self._store, self._setup)
        self._key = self._store.key(self._model == "weighted")

    @property
    def model(self) -> str:
        """``"counting"`` or ``"weighted"``."""
        return self._model

    def add(self, record: Record) -> None:
        """Adds one record and updates the posterior.

        Raises:
            ValueError: If the record is malformed, or no deal is consistent with the
                records once it is added; the beliefs are then left as they were.
        """
        check_record(self._setup, self._observer, record)
        store = self._store.copy()
        apply_record(store, self._setup, record)
        if not propagate(store, self._setup):
            raise _inconsistent(self._observer, len(self._records) + 1)
        if store.key(self._model == "weighted") != self._key:  # else nothing new: same posterior
            posterior = _solve(self._setup, self._observer, store, self._model, len(self._records) + 1)
            self._posterior = posterior
        self._store = store
        self._records.append(record)
        self._tighten()

    def posterior(self) -> Posterior:
        """The posterior given the records so far."""
        return self._posterior

    def given(self, allowed: np.ndarray) -> Posterior | None:
        """The posterior if, on top of the records, every card ``c`` lay with one of the owners ``allowed[c]``.

        A hypothesis, for what-if questions (what would an answer teach me?): the beliefs are
        unchanged. Facts of this form are what an answer to a suggestion says (a player holds a
        card; holds none of some cards). In the ``"counting"`` model, ``num_deals`` of the result
        over this posterior's is the hypothesis's probability. In the ``"weighted"`` model that
        ratio is only the share of the consistent deals that fit the hypothesis, not its
        probability, which weighs the deals (see the module docstring); for one fact (card ``c``
        lies with owner ``o``) read ``probabilities()[c, o]`` of this posterior.

        Args:
            allowed: ``bool[num_cards, num_owners]``.

        Returns:
            The posterior, or None if no deal is consistent with the records and the hypothesis.

        Raises:
            ValueError: If ``allowed`` has the wrong shape.
        """
        allowed = np.asarray(allowed)
        if allowed.shape != self._store.allowed.shape or allowed.dtype != bool:
            raise ValueError(
                f"allowed must be bool{list(self._store.allowed.shape)}, got {allowed.dtype}{list(allowed.shape)}"
            )
        store = self._store.copy()
        store.allowed &= allowed
        if not propagate(store, self._setup):
            return None
        if store.key(self._model == "weighted") == self._key:
            return self._posterior
        try:
            return _solve(self._setup, self._observer, store, self._model, len(self._records) + 1)
        except ValueError:  # no deal
            return None

    def __repr__(self) -> str:
        return (
            f"Beliefs(observer={self._observer}, model={self._model!r}, records={len(self._records)}, "
            f"deals={self._posterior.num_deals})"
        )


def beliefs(setup: Setup, observer: int, records: Iterable[Record], *, model: str = "counting") -> Posterior:
    """The exact posterior of ``observer`` given ``records`` (a one-shot ``Beliefs``).

    Raises:
        ValueError: If a record is malformed or no deal is consistent with them.
    """
    return Beliefs(setup, observer, records, model=model).posterior()


def beliefs_from_events(
    config: core.GameConfig, player: int, events: np.ndarray, *, model: str = "counting"
) -> Posterior:
    """The exact posterior of ``player`` from its view of a game's events (see ``deduce_from_events``).

    Args:
        config: The game's rules (``cluedo_env.core.GameConfig``).
        player: The observer.
        events: ``int[n, 7]`` event rows of one game in order; a full log is filtered to the
            player's view here.
        model: ``"counting"`` or ``"weighted"``.

    Raises:
        ValueError: as ``deduce_from_events`` (a player not of the game, rows that are not events
            of this game, out of order, or dealing the player more cards than its hand holds, each
            naming the row), or when no deal fits the events.
    """
    setup, records = records_from_events(config, player, events)
    return beliefs(setup, player, records, model=model)


def beliefs_named(
    suspects: Sequence[str],
    weapons: Sequence[str],
    rooms: Sequence[str],
    num_players: int,
    hand_sizes: Sequence[int],
    observer: int,
    history: Iterable[Mapping[str, Any]],
    *,
    num_face_down: int = 0,
    model: str = "counting",
    exact: bool = False,
) -> dict[str, Any]:
    """The posterior of ``observer`` from a history written with card names (``deduce_named``'s inputs).

    Returns:
        ``{"deals": int, "cards": {card: {owner: probability}}, "envelope": [[suspect,
        weapon, room, probability], ...]}``: owners named ``"player 2"``, ``"envelope"``
        or ``"table"`` and listed only where the probability is positive; envelope
        triples of positive probability, most likely first. Probabilities are floats,
        or ``Fraction`` s if ``exact``.

    Raises:
        ValueError: Naming a bad card name (and the accepted ones), a bad entry, or an
            inconsistent history.
    """
    cards = CardNames(suspects, weapons, rooms)
    setup = Setup(cards.deck, num_players, tuple(hand_sizes), num_face_down)
    records = named_records(cards, setup, observer, history)
    posterior = beliefs(setup, observer, records, model=model)
    probabilities = posterior.probabilities(exact=exact)
    joint = posterior.envelope(exact=exact)
    offsets = [c.start for c in setup.deck.categories]
    triples = [
        [
            cards.names[s + offsets[0]],
            cards.names[w + offsets[1]],
            cards.names[r + offsets[2]],
            joint[s, w, r],
        ]
        for s, w, r in zip(*np.nonzero(joint != 0))
    ]
    triples.sort(key=lambda t: -t[3])
    return {
        "deals": posterior.num_deals,
        "cards": {
            name: {setup.owner_name(o): probabilities[c, o] for o in setup.owners if probabilities[c, o] != 0}
            for c, name in enumerate(cards.names)
        },
        "envelope": triples,
    }
