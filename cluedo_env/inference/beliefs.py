"""Exact beliefs: the probability of every card's place, from one observer's records, counted exactly.

``cluedo_env.inference`` answers what is certain; this module answers how likely.
It takes the same inputs (a ``Setup``, an observer, ``Record`` s; or card
names; or a game's events) and returns a ``Posterior``:

- ``num_deals``: the exact number of deals consistent with the records (a
  Python int);
- ``probabilities()``: ``P(card c lies with owner o)`` for every card and owner
  (owners as in ``cluedo_env.inference``: players, envelope, table), float64 by
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

Method: exact counting, designed for this problem (no sampling, no SAT)
    1. *Propagation.* The records become, per card, the set of owners it may
       have; "player p holds at least one of these cards" (a show the
       observer did not see); "not all three in the envelope" (a wrong
       accusation); and, in the weighted model, "weight 1/(k0 + number of
       these cards p holds)". Unit rules (a card with one possible owner, a
       hand or an envelope category whose candidates exactly fill it, a
       satisfied or single-card clause) fix what they can.
    2. *Envelope by types.* Cards are grouped into *types*: same category,
       same possible owners, in no open constraint; cards of a type are
       exchangeable. For two categories, each pair of envelope-candidate
       types is a row of a batch: one card of each goes to the envelope
       (times the number of such card pairs). In the third category, the one
       with the most types, the envelope is an owner of the dynamic programme
       below with room for one card; its mass per card and row is the joint
       distribution. A wrong accusation bars its third card from the envelope
       in the one row that holds its other two (its cards are single-card
       types), so excluded triples are never counted.
    3. *Dealing the rest.* A dynamic programme over the cards, type by type,
       whose state is the number of cards each owner has received so far,
       plus one small counter per open constraint (held yet or not; for a
       weighted show, how many of its cards the refuter holds), opened at its
       first card and closed, with its weight, after its last; the cards are
       ordered greedily to keep few counters open at once. A type of ``n``
       cards enters at once. The owner with the most cards left needs no
       state axis: it gets what the others do not. States are dense numpy
       arrays with a leading batch axis (int64 when a proven bound on every
       value fits, Python ints otherwise). A forward and a backward pass give
       the count and, at every type, the number of deals in which a given
       card goes to each owner. Cards that cannot be in the envelope come
       last and are shared by all rows: their backward pass is computed once,
       and their forward pass once on the multiplicity-weighted sum of the
       rows' states.
    4. *Incremental.* ``Beliefs.add`` starts from the previous posterior: its
       zeros are entailed facts, which shrink the possible owners and close
       constraints; a record that changes nothing reuses the posterior.

Cost, and its worst case
    The work is about (type pairs of two categories) x (unknown cards) x
    (possible owners) x (states), where states = 2 x prod over the players
    whose hands are unknown, but one, of (cards left to place + 1) (4^4 for six
    players at the start), times 2 per open "holds one of" constraint (up to 4
    per open weighted show) open at the same time. So it grows with the
    number of players whose hands are still unknown, with the number of
    envelope-candidate types (1 per category at the start, when all unknown
    cards are alike; at most suspects x weapons pairs), and exponentially
    with the number of constraints open at once, which is the worst case:
    many shows not yet explained, sharing cards (random players suggesting
    at random produce them). Constraints close as soon as their cards are
    known or they are satisfied; after propagation a classic game has rarely
    more than ten open, and fewer open at once. Memory: the forward states of
    one batch of rows (batches are cut to ``_BATCH_ELEMENTS`` values), and one
    backward state per shared type.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.inference import (
    HELD,
    NOT_HELD,
    UNKNOWN,
    Accusation,
    Knowledge,
    OwnHand,
    Record,
    RecordBook,
    Setup,
    Suggestion,
    _CardNames,
    _named_records,
    check_record,
)
from cluedo_env.inference.from_events import RecordMaker, checked_private_view, setup_of

__all__ = ["MODELS", "Beliefs", "Posterior", "beliefs", "beliefs_from_events", "beliefs_named"]

MODELS = ("counting", "weighted")

# Values are exact: int64 when a bound on every DP value is below this, Python ints otherwise.
_INT64_SAFE = 2**62
# Rows (envelope type pairs) are counted in batches of at most this many state values (memory).
_BATCH_ELEMENTS = 2**19


def _check_model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}")
    return model


# ---------------------------------------------------------------------------
# Constraints: what the records say, reduced by propagation
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Show:
    """A show whose card the observer saw: weight ``1 / (number of the named cards the refuter holds)``."""

    player: int
    card: int
    named: tuple[int, int, int]


@dataclass
class _Store:
    """The records as constraints on the deal.

    Attributes:
        allowed: ``bool[cards, owners]``: the owners each card may have.
        clauses: ``(player, cards)``: the player holds at least one of the cards.
        wrong: Triples not all in the envelope (wrong accusations).
        shows: Shows seen (weights of the weighted model; as facts they are in ``allowed``).
    """

    allowed: np.ndarray
    clauses: set[tuple[int, frozenset[int]]] = field(default_factory=set)
    wrong: set[tuple[int, int, int]] = field(default_factory=set)
    shows: list[_Show] = field(default_factory=list)

    def copy(self) -> _Store:
        return _Store(self.allowed.copy(), set(self.clauses), set(self.wrong), list(self.shows))

    def key(self, weighted: bool) -> tuple:
        """What the posterior depends on (shows only weigh in the weighted model)."""
        shows = tuple(self.shows) if weighted else ()
        return (self.allowed.tobytes(), frozenset(self.clauses), frozenset(self.wrong), shows)


def _inconsistent(observer: int, records: int) -> ValueError:
    return ValueError(f"no deal is consistent with the {records} records of observer {observer}")


def _apply(store: _Store, setup: Setup, record: Record) -> None:
    """Adds one (checked) record's constraints to the store."""
    allowed = store.allowed
    if isinstance(record, OwnHand):
        mine = np.zeros(setup.deck.num_cards, dtype=bool)
        mine[list(record.cards)] = True
        allowed[mine, : record.player] = False
        allowed[mine, record.player + 1 :] = False
        allowed[~mine, record.player] = False
    elif isinstance(record, Suggestion):
        cards = list(record.cards)
        for player in record.passed:
            allowed[cards, player] = False
        if record.shown_card is not None:
            allowed[record.shown_card] = False
            allowed[record.shown_card, record.shown_by] = True
            store.shows.append(_Show(record.shown_by, record.shown_card, record.cards))
        elif record.shown_by is not None:
            store.clauses.add((record.shown_by, frozenset(cards)))
    elif isinstance(record, Accusation):
        if record.correct:
            allowed[list(record.cards)] = False
            allowed[list(record.cards), setup.envelope] = True
        else:
            store.wrong.add(tuple(sorted(record.cards)))
    else:  # Seen
        allowed[record.card] = False
        allowed[record.card, record.owner] = True


def _propagate(store: _Store, setup: Setup) -> bool:
    """Applies the unit rules until nothing changes; False if a contradiction shows up."""
    allowed = store.allowed
    envelope = setup.envelope
    sizes = [setup.owner_size(o) for o in range(setup.num_owners)]
    categories = [list(cards) for cards in setup.deck.categories]
    changed = True
    while changed:
        changed = False
        options = allowed.sum(axis=1)
        if (options == 0).any():
            return False
        fixed = options == 1
        for owner in range(setup.num_owners):
            if owner == envelope:
                continue
            held = fixed & allowed[:, owner]
            possible = allowed[:, owner].copy()
            num_held, num_possible = int(held.sum()), int(possible.sum())
            if num_held > sizes[owner] or num_possible < sizes[owner]:
                return False
            if num_held == sizes[owner] and num_possible > num_held:
                allowed[possible & ~held, owner] = False  # the hand is full
                changed = True
            elif num_possible == sizes[owner] and num_held < num_possible:
                allowed[possible] = False  # the candidates exactly fill the hand
                allowed[possible, owner] = True
                changed = True
        if changed:
            continue
        for cards in categories:
            in_envelope = allowed[cards, envelope]
            held = fixed[cards] & in_envelope
            if held.sum() > 1 or not in_envelope.any():
                return False
            if held.sum() == 1 and in_envelope.sum() > 1:
                allowed[[c for c, h in zip(cards, held) if not h], envelope] = False
                changed = True
            elif in_envelope.sum() == 1 and not held.any():
                card = cards[int(np.argmax(in_envelope))]
                allowed[card] = False
                allowed[card, envelope] = True
                changed = True
        if changed:
            continue
        clauses = set()
        for player, cards in store.clauses:
            possible = frozenset(c for c in cards if allowed[c, player])
            if any(fixed[c] for c in possible):
                continue  # satisfied
            if not possible:
                return False
            if len(possible) == 1:
                (card,) = possible
                allowed[card] = False
                allowed[card, player] = True
                changed = True
                continue
            clauses.add((player, possible))
        # A clause whose cards include all of another's (same player) says nothing more.
        store.clauses = {(p, s) for p, s in clauses if not any(q == p and t < s for q, t in clauses)}
        if changed:
            continue
        wrong = set()
        for triple in store.wrong:
            if not allowed[list(triple), envelope].all():
                continue  # some card is not in the envelope: satisfied
            in_envelope = [c for c in triple if fixed[c]]
            if len(in_envelope) == 3:
                return False
            if len(in_envelope) == 2:
                (card,) = set(triple) - set(in_envelope)
                allowed[card, envelope] = False
                changed = True
                continue
            wrong.add(triple)
        store.wrong = wrong
    return True


def _from_posterior(store: _Store, support: np.ndarray) -> None:
    """Tightens the store with the entailed facts of a posterior (``support``: ``bool[cards, owners]``)."""
    store.allowed &= support


# ---------------------------------------------------------------------------
# The dynamic programme
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Counter:
    """An open constraint: ``player`` holds ``count`` of ``cards`` (saturating at ``len(weights) - 1``);
    a deal weighs ``weights[count]``."""

    player: int
    cards: frozenset[int]
    weights: tuple[int, ...]


@dataclass
class _Step:
    """``len(cards)`` exchangeable cards dealt at once, each to one of ``owners`` (state axes)."""

    cards: list[int]
    owners: list[int]
    bumps: dict[int, list[int]]  # owner axis -> counters bumped when the (single) card goes there
    opens: list[int] = field(default_factory=list)  # counters whose first card this step deals
    closes: list[int] = field(default_factory=list)  # counters whose last card this step deals


def _few_open(items: list, counters: list[_Counter], cards_of: Any) -> list:
    """The items (steps) in a greedy order that keeps few counters open at once: next, the item
    after which the fewest counters are open (ties: the earliest)."""
    left = list(items)
    dealt: set[int] = set()
    out = []

    def open_after(item: Any) -> int:
        done = dealt | set(cards_of(item))
        return sum(1 for c in counters if c.cards & done and not c.cards <= done)

    while left:
        best = min(range(len(left)), key=lambda i: open_after(left[i]))
        item = left.pop(best)
        dealt |= set(cards_of(item))
        out.append(item)
    return out


def _mark(steps: list[_Step], counters: list[_Counter]) -> list[list[int]]:
    """Sets each step's ``opens`` and ``closes`` (a counter is open from its first card's step to
    its last card's); returns the counters open during each step, in axis order."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for index, step in enumerate(steps):
        for j, counter in enumerate(counters):
            if counter.cards & set(step.cards):
                first.setdefault(j, index)
                last[j] = index
    layout: list[int] = []
    during = []
    for index, step in enumerate(steps):
        step.opens = [j for j in sorted(first) if first[j] == index]
        step.closes = [j for j in sorted(last) if last[j] == index]
        layout = layout + step.opens
        during.append(layout)
        layout = [j for j in layout if j not in step.closes]
    return during


class _Programme:
    """Forward and backward passes over a list of steps.

    State axes: ``lead`` batch axes (one per envelope triple of a batch, or none),
    then one per owner that still gets cards (``caps[i] + 1`` values: cards received
    so far) except the ``implicit`` one, then one per open counter, in the order of
    ``layout``. The implicit owner has no axis: it gets what the others do not (a
    state where it would hold too many has no completion, so the backward values
    are 0 there and no count is wrong); this divides the states by its cap + 1.
    """

    def __init__(
        self,
        caps: list[int],
        counters: list[_Counter],
        dtype: type,
        lead: int = 0,
        implicit: int | None = None,
        envelope: int | None = None,
    ) -> None:
        self.envelope = envelope  # the envelope's owner index, if it is one
        self.caps = caps
        self.counters = counters
        self.dtype = dtype
        self.lead = lead
        self.implicit = implicit
        self.explicit = [c for i, c in enumerate(caps) if i != implicit]
        self.k = len(self.explicit)

    def start(self, layout: list[int], batch: int = 1) -> np.ndarray:
        shape = [c + 1 for c in self.explicit] + [len(self.counters[j].weights) for j in layout]
        state = np.zeros([batch] * self.lead + shape, dtype=self.dtype)
        state[(Ellipsis, *(0,) * len(shape))] = 1
        return state

    def end(self) -> np.ndarray:
        """Backward value after the last step: 1 where every owner got exactly its cards."""
        state = np.zeros([c + 1 for c in self.explicit], dtype=self.dtype)
        state[tuple(self.explicit)] = 1
        return state

    def _owner_axis(self, owner: int) -> int:
        return self.lead + owner - (self.implicit is not None and owner > self.implicit)

    def _axis(self, layout: list[int], counter: int) -> int:
        return self.lead + self.k + layout.index(counter)

    def _bump(self, array: np.ndarray, axis: int, size: int) -> np.ndarray:
        """Forward: counter + 1, saturating at ``size - 1``."""
        lead = (slice(None),) * axis
        out = np.empty_like(array)
        out[(*lead, 0)] = 0
        if size > 2:
            out[(*lead, slice(1, size - 1))] = array[(*lead, slice(0, size - 2))]
        np.add(array[(*lead, size - 2)], array[(*lead, size - 1)], out=out[(*lead, size - 1)])
        return out

    def _unbump(self, back: np.ndarray, axis: int, size: int) -> np.ndarray:
        """Backward: the value at counter + 1, saturating (a view where it can be)."""
        lead = (slice(None),) * axis
        if size == 2:  # both counts lead to "at least one"
            return np.broadcast_to(back[(*lead, slice(1, 2))], back.shape)
        return back.take(np.minimum(np.arange(size) + 1, size - 1), axis=axis)

    def _slice(self, ndim: int, owner: int, part: slice) -> tuple:
        index = [slice(None)] * ndim
        if owner != self.implicit:
            index[self._owner_axis(owner)] = part
        return tuple(index)

    def _bar(self, moved: np.ndarray, owner: int, barred: np.ndarray | None) -> np.ndarray:
        """Zero the batch rows where the step's cards may not go to the envelope."""
        if barred is None or owner != self.envelope or not barred.any():
            return moved
        return moved * ~barred.reshape((-1,) + (1,) * (moved.ndim - 1))

    def _moved(
        self, array: np.ndarray, step: _Step, owner: int, layout: list[int], barred: np.ndarray | None = None
    ) -> np.ndarray:
        """Forward: one card to ``owner``; the result is indexed from 0 = (that owner had 0 before)."""
        moved = array[self._slice(array.ndim, owner, slice(None, -1))]
        for j in step.bumps.get(owner, ()):
            moved = self._bump(moved, self._axis(layout, j), len(self.counters[j].weights))
        return self._bar(moved, owner, barred)

    def push(
        self, state: np.ndarray, step: _Step, layout: list[int], cards: int, barred: np.ndarray | None = None
    ) -> np.ndarray:
        """Forward through ``cards`` cards of the step (no closing); ``barred``: batch rows
        where they may not go to the envelope."""
        for _ in range(cards):
            out = np.zeros_like(state)
            for owner in step.owners:
                dst = self._slice(state.ndim, owner, slice(1, None))
                out[dst] += self._moved(state, step, owner, layout, barred)
            state = out
        return state

    def open(self, state: np.ndarray, step: _Step) -> np.ndarray:
        """Forward: a new counter axis (at the end) for each counter opened at this step, at 0."""
        for j in step.opens:
            grown = np.zeros((*state.shape, len(self.counters[j].weights)), dtype=state.dtype)
            grown[..., 0] = state
            state = grown
        return state

    def unopen(self, back: np.ndarray, step: _Step) -> np.ndarray:
        """Backward: before the step, the counters it opens are at 0 (they are the last axes)."""
        for _ in step.opens:
            back = back[..., 0]
        return back

    def close(self, state: np.ndarray, step: _Step, layout: list[int]) -> tuple[np.ndarray, list[int]]:
        """Forward: weigh and drop the counters whose last card was this step's."""
        for j in step.closes:
            weights = np.array(self.counters[j].weights, dtype=self.dtype)
            state = np.tensordot(state, weights, axes=([self._axis(layout, j)], [0]))
            layout = [i for i in layout if i != j]
        return state, layout

    def reopen(self, back: np.ndarray, step: _Step, layout: list[int]) -> np.ndarray:
        """Backward: the value after the step in the layout during the step (closed counters weighed)."""
        positions, current = [], list(layout)
        for j in step.closes:  # where close() found each counter's axis, in its order
            positions.append(self._axis(current, j))
            current.remove(j)
        for j, axis in zip(reversed(step.closes), reversed(positions)):
            shape = [1] * (back.ndim + 1)
            shape[axis] = len(self.counters[j].weights)
            weights = np.array(self.counters[j].weights, dtype=self.dtype).reshape(shape)
            back = np.expand_dims(back, axis) * weights
        return back

    def pull(
        self, back: np.ndarray, step: _Step, layout: list[int], cards: int, barred: np.ndarray | None = None
    ) -> np.ndarray:
        """Backward through ``cards`` cards of the step."""
        for _ in range(cards):
            out = np.zeros_like(back)
            for owner in step.owners:
                moved = back[self._slice(back.ndim, owner, slice(1, None))]
                for j in step.bumps.get(owner, ()):
                    moved = self._unbump(moved, self._axis(layout, j), len(self.counters[j].weights))
                out[self._slice(back.ndim, owner, slice(None, -1))] += self._bar(moved, owner, barred)
            back = out
        return back

    def marginals(
        self,
        before: np.ndarray,
        step: _Step,
        layout: list[int],
        back: np.ndarray,
        barred: np.ndarray | None = None,
    ) -> dict[int, Any]:
        """Deals in which one given card of the step goes to each owner (``before``: the state
        with the step's other cards dealt; ``back``: after the step, in the layout during it).
        One value per owner, or one per batch row."""
        out = {}
        axes = tuple(range(self.lead, before.ndim))
        for owner in step.owners:
            dst = self._slice(back.ndim, owner, slice(1, None))
            out[owner] = (self._moved(before, step, owner, layout, barred) * back[dst]).sum(axis=axes)
        return out


@dataclass
class _Result:
    """Unnormalised masses: ``total``, ``cards[c, o]`` and ``envelope[s, w, r]`` (Python ints)."""

    total: int
    cards: np.ndarray
    envelope: np.ndarray


class _Problem:
    """One counting problem: a propagated store, a model, and how to count it."""

    def __init__(self, setup: Setup, store: _Store, weighted: bool) -> None:
        self.setup = setup
        allowed = store.allowed
        self.allowed = allowed
        num_cards = setup.deck.num_cards
        envelope = setup.envelope
        options = allowed.sum(axis=1)
        self.fixed = options == 1
        unknown = [c for c in range(num_cards) if not self.fixed[c]]
        # Owners (players, table) that still get cards, and how many.
        self.owners, self.caps = [], []
        for owner in range(setup.num_owners):
            if owner == envelope:
                continue
            left = setup.owner_size(owner) - int((self.fixed & allowed[:, owner]).sum())
            if left > 0:
                self.owners.append(owner)
                self.caps.append(left)
        self.player_owners, self.player_caps = list(self.owners), list(self.caps)
        # The envelope is an owner too (cap 1) for the candidates of one category, the one with
        # the most types ("the flagged category"); the other two are enumerated by type.
        self.owners.append(envelope)
        self.caps.append(1)
        self.envelope_axis = len(self.owners) - 1
        axis_of = {o: i for i, o in enumerate(self.owners)}
        # Open constraints become counters.
        counters: list[_Counter] = [
            _Counter(p, cards, (0, 1)) for p, cards in sorted(store.clauses, key=repr)
        ]
        constant = Fraction(1)
        if weighted:
            for show in store.shows:
                others = [c for c in show.named if c != show.card]
                known = sum(1 for c in others if self.fixed[c] and allowed[c, show.player])
                open_cards = frozenset(c for c in others if not self.fixed[c] and allowed[c, show.player])
                if not open_cards:
                    constant /= 1 + known
                    continue
                ks = range(1 + known, 2 + known + len(open_cards))
                lcm = math.lcm(*ks)
                counters.append(_Counter(show.player, open_cards, tuple(lcm // k for k in ks)))
                constant /= lcm
        self.counters = counters
        self.constant = constant
        self.wrong = set(store.wrong)
        special = {c for counter in counters for c in counter.cards} | {c for t in self.wrong for c in t}
        # Envelope candidates per category, grouped into types.
        self.candidates: list[list[list[int]]] = []  # [category][type] -> cards
        candidate_set = set()
        for cards in setup.deck.categories:
            types: dict[Any, list[int]] = {}
            for card in cards:
                if allowed[card, envelope]:
                    key = ("card", card) if card in special else tuple(allowed[card])
                    types.setdefault(key, []).append(card)
                    candidate_set.add(card)
            self.candidates.append(list(types.values()))
        self.flagged = int(np.argmax([len(types) for types in self.candidates]))
        self.enumerated = [k for k in range(3) if k != self.flagged]
        # Steps: candidate types first (their sizes depend on the envelope triple),
        # then the other unknown cards: constrained ones, then exchangeable groups.
        candidate_steps = []
        for category, types in enumerate(self.candidates):
            for t, cards in enumerate(types):
                step = self._step(cards, axis_of, envelope=category == self.flagged)
                candidate_steps.append((step, category, t))
        candidate_steps = _few_open(candidate_steps, counters, lambda item: item[0].cards)
        self.steps: list[_Step] = [step for step, _, _ in candidate_steps]
        self.category_of = [category for _, category, _ in candidate_steps]
        self.type_index = [t for _, _, t in candidate_steps]  # of each candidate step, within its category
        self.num_candidate_steps = len(self.steps)
        rest = [c for c in unknown if c not in candidate_set]
        for card in _few_open([c for c in rest if c in special], counters, lambda card: [card]):
            self.steps.append(self._step([card], axis_of))
        free: dict[tuple, list[int]] = {}
        for card in rest:
            if card not in special:
                free.setdefault(tuple(allowed[card]), []).append(card)
        for cards in free.values():
            self.steps.append(self._step(cards, axis_of))
        self.during = _mark(self.steps, counters)
        self.unclosed = [j for j in range(len(counters)) if not any(j in step.opens for step in self.steps)]
        # A bound on every value of the programme picks exact int64 or Python ints.
        bound = 1
        for card in unknown:
            bound *= int(options[card])
        for counter in counters:
            bound *= max(counter.weights)
        self.dtype = np.int64 if bound < _INT64_SAFE else object
        # The owner with the most cards left has no state axis (see _Programme).
        self.implicit = int(np.argmax(self.caps))

    def _step(self, cards: list[int], axis_of: dict[int, int], envelope: bool = False) -> _Step:
        """A step of these cards; the envelope is one of its owners only if ``envelope``."""
        places = np.flatnonzero(self.allowed[cards[0]]).tolist()
        owners = [axis_of[o] for o in places if o in axis_of and (envelope or o != self.setup.envelope)]
        bumps: dict[int, list[int]] = {}
        if len(cards) == 1:
            for j, counter in enumerate(self.counters):
                if cards[0] in counter.cards and counter.player in axis_of:
                    bumps.setdefault(axis_of[counter.player], []).append(j)
        return _Step(cards, owners, bumps)

    def pairs(self) -> list[tuple[dict[int, int], int, set[int]]]:
        """Envelope types of the two enumerated categories (``{category: type index}``), their
        number of card pairs, and the flagged category's cards that wrong accusations then keep
        out of the envelope."""
        a, b = self.enumerated
        out = []
        for i, first in enumerate(self.candidates[a]):
            for j, second in enumerate(self.candidates[b]):
                barred = set()
                if len(first) == len(second) == 1:
                    for triple in self.wrong:
                        if first[0] in triple and second[0] in triple:
                            barred |= set(triple) - {first[0], second[0]}
                out.append(({a: i, b: j}, len(first) * len(second), barred))
        return out

    def solve(self) -> _Result:
        """Total mass, per (card, owner) mass and the envelope's joint mass."""
        setup, steps, layouts = self.setup, self.steps, self.during
        m = self.num_candidate_steps
        options = {"implicit": self.implicit, "envelope": self.envelope_axis}
        shared = _Programme(self.caps, self.counters, self.dtype, **options)
        batched = _Programme(self.caps, self.counters, self.dtype, lead=1, **options)
        unclosed = 1
        for j in self.unclosed:
            unclosed *= self.counters[j].weights[0]
        # The cards that cannot be in the envelope: backward once.
        after: list[np.ndarray | None] = [None] * len(steps)  # backward values after each step
        back = shared.end()
        for g in range(len(steps) - 1, m - 1, -1):
            after[g] = shared.reopen(back, steps[g], layouts[g])
            back = shared.unopen(shared.pull(after[g], steps[g], layouts[g], len(steps[g].cards)), steps[g])
        boundary = back
        cards_mass = np.zeros((setup.deck.num_cards, setup.num_owners), dtype=object)
        envelope_mass = np.zeros(setup.deck.sizes, dtype=object)
        offsets = [c.start for c in setup.deck.categories]
        pairs = self.pairs()
        total = 0
        shared_start = None
        # Envelope type pairs in batches (a leading axis), to bound memory.
        explicit = int(np.prod([c + 1 for c in shared.explicit]))
        widest = max([int(np.prod([len(self.counters[j].weights) for j in lay])) for lay in layouts] + [1])
        batch = max(1, min(len(pairs), _BATCH_ELEMENTS // (explicit * widest)))
        flagged = [self.category_of[g] == self.flagged for g in range(m)]
        for first in range(0, len(pairs), batch):
            chunk = pairs[first : first + batch]
            multiplicity = [mult for _, mult, _ in chunk]
            chosen = np.array(
                [
                    [not flagged[g] and types[self.category_of[g]] == self.type_index[g] for g in range(m)]
                    for types, _, _ in chunk
                ],
                dtype=bool,
            ).reshape(len(chunk), m)
            barred = np.array(
                [[flagged[g] and steps[g].cards[0] in out for g in range(m)] for _, _, out in chunk],
                dtype=bool,
            ).reshape(len(chunk), m)
            forward, state = [], batched.start([], len(chunk))
            for g in range(m):
                step, bar = steps[g], barred[:, g]
                state = batched.open(state, step)
                forward.append(state)  # before the step, in the layout during it
                state = batched.push(state, step, layouts[g], len(step.cards) - 1, bar)
                state = _where(chosen[:, g], state, batched.push(state, step, layouts[g], 1, bar))
                state, _ = batched.close(state, step, layouts[g])
            counts = (state * boundary).sum(axis=tuple(range(1, state.ndim)))
            counts = [int(c) * unclosed for c in counts]
            total += sum(mult * count for mult, count in zip(multiplicity, counts))
            weighted = np.tensordot(np.array(multiplicity, dtype=self.dtype), state, axes=([0], [0]))
            shared_start = weighted if shared_start is None else shared_start + weighted
            # Backward over the candidate cards, with their masses, pair by pair in the batch.
            back = np.broadcast_to(boundary, (len(chunk), *boundary.shape)).copy()
            for g in range(m - 1, -1, -1):
                step, bar = steps[g], barred[:, g]
                n = len(step.cards)
                back_during = batched.reopen(back, step, layouts[g])
                others = batched.push(forward[g], step, layouts[g], max(n - 2, 0), bar)
                if n >= 2:
                    others = _where(chosen[:, g], others, batched.push(others, step, layouts[g], 1, bar))
                mass = batched.marginals(others, step, layouts[g], back_during, bar)
                if flagged[g] and self.envelope_axis in mass:
                    # The envelope's joint: each card of this step with each card pair of a row.
                    for (types, _, _), value in zip(chunk, mass[self.envelope_axis]):
                        if value:
                            index = [None, None, None]
                            for category, t in types.items():
                                index[category] = np.subtract(self.candidates[category][t], offsets[category])
                            index[self.flagged] = np.subtract(step.cards, offsets[self.flagged])
                            envelope_mass[np.ix_(*index)] = int(value) * unclosed
                # A chosen type gives the envelope one card in n; its other cards go to the players.
                rows = chosen[:, g]
                cards_mass[step.cards, setup.envelope] += sum(
                    mult * count // n for mult, count, row in zip(multiplicity, counts, rows) if row
                )
                shares = np.array(
                    [mult * (n - 1) // n if row else mult for mult, row in zip(multiplicity, rows)],
                    dtype=object,
                )
                for owner, values in mass.items():
                    cards_mass[step.cards, self.owners[owner]] += (
                        int(np.dot(shares, values.astype(object))) * unclosed
                    )
                pulled = batched.pull(back_during, step, layouts[g], n - 1, bar)
                back = _where(chosen[:, g], pulled, batched.pull(pulled, step, layouts[g], 1, bar))
                back = batched.unopen(back, step)
        if total == 0:
            raise ValueError("no deal")
        # The cards that cannot be in the envelope: forward once, on the weighted sum over pairs.
        state = shared_start
        for g in range(m, len(steps)):
            step = steps[g]
            state = shared.open(state, step)
            before = shared.push(state, step, layouts[g], len(step.cards) - 1)
            for owner, value in shared.marginals(before, step, layouts[g], after[g]).items():
                if value:
                    cards_mass[step.cards, self.owners[owner]] += int(value) * unclosed
            state = shared.push(before, step, layouts[g], 1)
            state, _ = shared.close(state, step, layouts[g])
        for card in np.flatnonzero(self.fixed).tolist():
            cards_mass[card, int(np.argmax(self.allowed[card]))] = total
        return _Result(total, cards_mass, envelope_mass)

    def sample(self, triple: tuple[int, int, int], n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` deals with this envelope card triple, drawn exactly from the posterior given it."""
        setup = self.setup
        deals = np.full((n, setup.deck.num_cards), -1, dtype=np.int8)
        for card in np.flatnonzero(self.fixed).tolist():
            deals[:, card] = int(np.argmax(self.allowed[card]))
        deals[:, list(triple)] = setup.envelope
        # Given the triple, the envelope is full: the players (and the table) get the rest.
        caps = self.player_caps
        implicit = int(np.argmax(caps)) if caps else None
        axis_of = {o: i for i, o in enumerate(self.player_owners)}
        # One card per step, in the problem's order (counters close where they did).
        steps = []
        for step in self.steps:
            for card in step.cards:
                if card not in triple:
                    steps.append(self._step([card], axis_of))
        layouts = _mark(steps, self.counters)
        programme = _Programme(caps, self.counters, object, implicit=implicit)
        after = [None] * len(steps)
        back = programme.end()
        for g in range(len(steps) - 1, -1, -1):
            after[g] = programme.reopen(back, steps[g], layouts[g])
            back = programme.unopen(programme.pull(after[g], steps[g], layouts[g], 1), steps[g])
        for i in range(n):
            owned = [0] * programme.k  # cards of each explicit owner so far
            count = dict.fromkeys(range(len(self.counters)), 0)
            for g, step in enumerate(steps):
                layout = layouts[g]
                options, weights = [], []
                for owner in step.owners:
                    index = owned + [count[j] for j in layout]
                    if owner != implicit:
                        axis = programme._owner_axis(owner)
                        if index[axis] >= caps[owner]:
                            continue
                        index[axis] += 1
                    for j in step.bumps.get(owner, ()):
                        position = programme.k + layout.index(j)
                        index[position] = min(index[position] + 1, len(self.counters[j].weights) - 1)
                    weight = int(after[g][tuple(index)])
                    if weight:
                        options.append((owner, index))
                        weights.append(weight)
                owner, index = options[_draw(rng, weights)]
                deals[i, step.cards[0]] = self.player_owners[owner]
                owned = index[: programme.k]
                for position, j in enumerate(layout):
                    count[j] = index[programme.k + position]
        return deals


def _where(rows: np.ndarray, kept: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Per batch row: ``kept`` where ``rows`` is True, else ``other``."""
    return np.where(rows.reshape((-1,) + (1,) * (kept.ndim - 1)), kept, other)


def _uniform_below(rng: np.random.Generator, n: int) -> int:
    """A uniformly random int in ``[0, n)``, exact for any size of ``n``."""
    bits = max(n.bit_length(), 1)
    while True:
        value = 0
        for _ in range(0, bits, 32):
            value = (value << 32) | int(rng.integers(0, 2**32))
        value >>= (-bits) % 32
        if value < n:
            return value


def _draw(rng: np.random.Generator, weights: Sequence[int]) -> int:
    """An index drawn with probability ``weights[i] / sum(weights)``, exactly."""
    value = _uniform_below(rng, sum(weights))
    for index, weight in enumerate(weights):
        if value < weight:
            return index
        value -= weight
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


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
    _result: _Result = field(repr=False)
    _problem: _Problem = field(repr=False)

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
            ``int8[n, num_cards]``: the owner of every card in each deal (the layout
            of ``cluedo_env.inference``'s deals).

        Raises:
            ValueError: If ``n`` is not an int >= 0.
        """
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError(f"n must be an int >= 0, got {n!r}")
        offsets = [c.start for c in self.setup.deck.categories]
        flat = self._result.envelope.reshape(-1)
        nonzero = np.flatnonzero(flat != 0)
        weights = [int(flat[i]) for i in nonzero]
        triples: dict[tuple[int, int, int], int] = {}
        for _ in range(int(n)):
            s, w, r = np.unravel_index(int(nonzero[_draw(rng, weights)]), self._result.envelope.shape)
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


def _solve(setup: Setup, observer: int, store: _Store, model: str, records: int) -> Posterior:
    store = store.copy()
    if not _propagate(store, setup):
        raise _inconsistent(observer, records)
    counting = _Problem(setup, store, weighted=False)
    try:
        result = counting.solve()
    except ValueError:
        raise _inconsistent(observer, records) from None
    problem = counting
    if model == "weighted" and store.shows:
        problem = _Problem(setup, store, weighted=True)
        weighted = problem.solve()
        return Posterior(setup, observer, model, result.total, weighted, problem)
    return Posterior(setup, observer, model, result.total, result, problem)


class Beliefs(RecordBook):
    """The exact posterior of one observer, updated record by record.

    Example:
        >>> from cluedo_env.inference import Deck
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
        self._store = _Store(np.ones((setup.deck.num_cards, setup.num_owners), dtype=bool))
        for record in records:
            check_record(setup, self._observer, record)
            _apply(self._store, setup, record)
            self._records.append(record)
        self._posterior = _solve(setup, self._observer, self._store, model, len(self._records))
        self._tighten()

    def _tighten(self) -> None:
        _from_posterior(self._store, self._posterior.support())
        _propagate(self._store, self._setup)
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
        _apply(store, self._setup, record)
        if not _propagate(store, self._setup):
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
        card; holds none of some cards); ``num_deals`` of the result over this posterior's is the
        hypothesis's probability.

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
        if not _propagate(store, self._setup):
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
        ValueError: for a player not of the game, or rows that are not events of this game
            (``cluedo_env.inference.from_events.check_events``: naming the row and what is accepted).
    """
    player, view = checked_private_view(config, player, events)
    setup = setup_of(config)
    maker = RecordMaker(setup, player)
    records = maker.add_events(view)
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
    cards = _CardNames(suspects, weapons, rooms)
    setup = Setup(cards.deck, num_players, tuple(hand_sizes), num_face_down)
    records = _named_records(cards, setup, observer, history)
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
            name: {
                setup.owner_name(o): probabilities[c, o]
                for o in range(setup.num_owners)
                if probabilities[c, o] != 0
            }
            for c, name in enumerate(cards.names)
        },
        "envelope": triples,
    }
