"""The counting engine of exact beliefs: the deals consistent with a propagated store, counted exactly.

``CountingProblem`` takes a ``ConstraintStore`` (``cluedo_env.inference.constraints``) and a
model; ``solve`` returns the ``Masses`` (the number, or weight, of the consistent deals, per
(card, owner) and per envelope triple) and ``sample`` draws deals given an envelope triple.
``cluedo_env.inference.beliefs`` turns them into a ``Posterior``.

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
       value, ``_value_bound``, fits; Python ints otherwise). A forward and a
       backward pass give the count and, at every type, the number of deals
       in which a given card goes to each owner. Cards that cannot be in the
       envelope come last and are shared by all rows: their backward pass is
       computed once, and their forward pass once on the multiplicity-weighted
       sum of the rows' states.
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
    backward state per shared type."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from cluedo_env.inference.cards import Setup
from cluedo_env.inference.constraints import ConstraintStore
from cluedo_env.inference.programme import (
    ConstraintCounter,
    DealProgramme,
    DealStep,
    mark_open_counters,
    order_few_open,
)

__all__ = ["CountingProblem", "Masses", "draw_index"]

# Values are exact: int64 when the bound on every DP value (``_value_bound``) is below this
# (int64 holds up to 2**63 - 1), Python ints otherwise.
_INT64_SAFE = 2**63
# Rows (envelope type pairs) are counted in batches of at most this many state values (memory).
_BATCH_ELEMENTS = 2**19


@dataclass
class Masses:
    """Unnormalised masses: ``total``, ``cards[c, o]`` and ``envelope[s, w, r]`` (Python ints)."""

    total: int
    cards: np.ndarray
    envelope: np.ndarray


class CountingProblem:
    """One counting problem: a propagated store, a model, and how to count it."""

    def __init__(self, setup: Setup, store: ConstraintStore, weighted: bool) -> None:
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
        for owner in setup.owners:
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
        counters: list[ConstraintCounter] = [
            ConstraintCounter(p, cards, (0, 1)) for p, cards in sorted(store.clauses, key=repr)
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
                counters.append(ConstraintCounter(show.player, open_cards, tuple(lcm // k for k in ks)))
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
        candidate_steps = order_few_open(candidate_steps, counters, lambda item: item[0].cards)
        self.steps: list[DealStep] = [step for step, _, _ in candidate_steps]
        self.category_of = [category for _, category, _ in candidate_steps]
        self.type_index = [t for _, _, t in candidate_steps]  # of each candidate step, within its category
        self.num_candidate_steps = len(self.steps)
        rest = [c for c in unknown if c not in candidate_set]
        for card in order_few_open([c for c in rest if c in special], counters, lambda card: [card]):
            self.steps.append(self._step([card], axis_of))
        free: dict[tuple, list[int]] = {}
        for card in rest:
            if card not in special:
                free.setdefault(tuple(allowed[card]), []).append(card)
        for cards in free.values():
            self.steps.append(self._step(cards, axis_of))
        self.during = mark_open_counters(self.steps, counters)
        self.unclosed = [j for j in range(len(counters)) if not any(j in step.opens for step in self.steps)]
        # The owner with the most cards left has no state axis (see DealProgramme).
        self.implicit = int(np.argmax(self.caps))
        # A proven bound on every value of the programme picks exact int64 or Python ints.
        a, b = self.enumerated
        pairs = sum(map(len, self.candidates[a])) * sum(map(len, self.candidates[b]))
        self.bound = _value_bound(self.caps, self.implicit, counters, pairs)
        row_cards = sum(len(step.cards) for step in self.steps) - 2  # the bound's proof needs sum(caps)
        self.dtype = np.int64 if row_cards == sum(self.caps) and self.bound < _INT64_SAFE else object

    def _step(self, cards: list[int], axis_of: dict[int, int], envelope: bool = False) -> DealStep:
        """A step of these cards; the envelope is one of its owners only if ``envelope``."""
        places = [self.setup.owners[column] for column in np.flatnonzero(self.allowed[cards[0]])]
        owners = [axis_of[o] for o in places if o in axis_of and (envelope or o != self.setup.envelope)]
        bumps: dict[int, list[int]] = {}
        if len(cards) == 1:
            for j, counter in enumerate(self.counters):
                if cards[0] in counter.cards and counter.player in axis_of:
                    bumps.setdefault(axis_of[counter.player], []).append(j)
        return DealStep(cards, owners, bumps)

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

    def solve(self) -> Masses:
        """Total mass, per (card, owner) mass and the envelope's joint mass."""
        setup, steps, layouts = self.setup, self.steps, self.during
        m = self.num_candidate_steps
        options = {"implicit": self.implicit, "envelope": self.envelope_axis}
        shared = DealProgramme(self.caps, self.counters, self.dtype, **options)
        batched = DealProgramme(self.caps, self.counters, self.dtype, lead=1, **options)
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
        return Masses(total, cards_mass, envelope_mass)

    def sample(self, triple: tuple[int, int, int], n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` deals with this envelope card triple, drawn exactly from the posterior given it (owner codes)."""
        setup = self.setup
        deals = np.zeros((n, setup.deck.num_cards), dtype=np.int8)  # every card is set below
        for card in np.flatnonzero(self.fixed).tolist():
            deals[:, card] = setup.owners[int(np.argmax(self.allowed[card]))]
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
        layouts = mark_open_counters(steps, self.counters)
        programme = DealProgramme(caps, self.counters, object, implicit=implicit)
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
                        axis = programme.owner_axis(owner)
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
                owner, index = options[draw_index(rng, weights)]
                deals[i, step.cards[0]] = self.player_owners[owner]
                owned = index[: programme.k]
                for position, j in enumerate(layout):
                    count[j] = index[programme.k + position]
        return deals


def _value_bound(caps: list[int], implicit: int, counters: list[ConstraintCounter], pairs: int) -> int:
    """A bound on every value ``CountingProblem.solve`` holds or sums in its programme:
    ``max(pairs x M, M1) x W``. ``M = N! / prod(caps[i]!)``, ``N = sum(caps)``; ``M1``: the same
    with one more card for the ``implicit`` owner; ``W = prod(max(counter.weights))``; ``pairs``:
    the envelope card pairs of the two enumerated categories (the product of their candidates).

    Why, in short (``solve`` checks that a row deals ``N`` cards: the unknown ones and those
    fixed in the envelope, less the row's two envelope cards):

    - A forward value counts the ways to give the ``k`` cards dealt so far, ``b_i`` to each owner
      (the implicit owner gets what the others do not), times the weights of the counters
      closed; a backward value, the ways to give the cards left likewise, times the weights of
      the counters closed later. So each is at most ``k! / prod(b_i!) x W``, ``k <= N``.
      ``solve`` also makes, and drops, values with one card too many (a chosen type's cards all
      pushed or pulled; a one-card chosen type's masses, multiplied by 0): ``k <= N + 1``.
    - Lemma: ``k! / prod(b_i!) <= K! / prod(c_i!)`` for caps ``c_i`` of sum ``K >= k``, the
      implicit owner's the largest, when ``b_i <= c_i`` for every other owner. If the implicit
      owner has ``b > c``, another owner ``j`` has ``b_j < c_j <= c < b``, and moving a card to
      ``j`` multiplies by ``b / (b_j + 1) >= 1``. Then, while some ``b_i < c_i``, a card more
      there multiplies by ``(k + 1) / (b_i + 1) >= 1``, up to ``b = c``. With ``c = caps`` this
      is ``M`` (``k <= N``); with one more for the implicit owner, ``M1 >= M`` (``k <= N + 1``).
    - A forward value times a backward one, and their sum over states (a row's count, a card's
      mass), count whole deals of the row's cards (``M x W`` at most) or, in the dropped
      values, of one card more (``M1 x W``): the owners with an axis end full, the implicit
      owner gets the rest.
    - The shared cards' pass starts from the rows' states (``k <= N``) summed with their
      multiplicities, card pairs, which add up to ``pairs``: its values, products and sums are
      at most ``pairs x M x W``.
    - All terms are non-negative, so a partial sum is at most its sum. The rest (counters never
      opened, multiplicities of the masses, sums over several problems as in ``answer_deals``)
      is done in Python ints.
    """
    deals = math.factorial(sum(caps))
    for cap in caps:
        deals //= math.factorial(cap)
    one_more = deals * (sum(caps) + 1) // (caps[implicit] + 1)  # M1, exactly
    weights = math.prod(max(counter.weights) for counter in counters)
    return max(pairs * deals, one_more) * weights


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


def draw_index(rng: np.random.Generator, weights: Sequence[int]) -> int:
    """An index drawn with probability ``weights[i] / sum(weights)``, exactly."""
    value = _uniform_below(rng, sum(weights))
    for index, weight in enumerate(weights):
        if value < weight:
            return index
        value -= weight
    raise AssertionError("unreachable")
