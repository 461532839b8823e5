"""The dynamic programme that deals the cards type by type: step 3 of exact counting.

A ``DealStep`` deals exchangeable cards at once; a ``ConstraintCounter`` tracks an open
constraint (a show not yet explained, a weighted show) from its first card to its last;
``order_few_open`` orders the steps to keep few counters open at once and
``mark_open_counters`` says which are open during each step; ``DealProgramme`` runs the
forward and backward passes over dense numpy states. ``cluedo_env.inference.counting``
builds the steps from the constraints and counts with them (its docstring describes the
whole method).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ConstraintCounter", "DealProgramme", "DealStep", "mark_open_counters", "order_few_open"]


@dataclass(frozen=True)
class ConstraintCounter:
    """An open constraint: ``player`` holds ``count`` of ``cards`` (saturating at ``len(weights) - 1``);
    a deal weighs ``weights[count]``."""

    player: int
    cards: frozenset[int]
    weights: tuple[int, ...]


@dataclass
class DealStep:
    """``len(cards)`` exchangeable cards dealt at once, each to one of ``owners`` (state axes)."""

    cards: list[int]
    owners: list[int]
    bumps: dict[int, list[int]]  # owner axis -> counters bumped when the (single) card goes there
    opens: list[int] = field(default_factory=list)  # counters whose first card this step deals
    closes: list[int] = field(default_factory=list)  # counters whose last card this step deals


def order_few_open(items: list, counters: list[ConstraintCounter], cards_of: Any) -> list:
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


def mark_open_counters(steps: list[DealStep], counters: list[ConstraintCounter]) -> list[list[int]]:
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


class DealProgramme:
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
        counters: list[ConstraintCounter],
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
        """Forward value before the first step: 1 where no owner has a card yet (``batch`` rows)."""
        shape = [c + 1 for c in self.explicit] + [len(self.counters[j].weights) for j in layout]
        state = np.zeros([batch] * self.lead + shape, dtype=self.dtype)
        state[(Ellipsis, *(0,) * len(shape))] = 1
        return state

    def end(self) -> np.ndarray:
        """Backward value after the last step: 1 where every owner got exactly its cards."""
        state = np.zeros([c + 1 for c in self.explicit], dtype=self.dtype)
        state[tuple(self.explicit)] = 1
        return state

    def owner_axis(self, owner: int) -> int:
        """The state axis of an explicit owner (not the implicit one)."""
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
            index[self.owner_axis(owner)] = part
        return tuple(index)

    def _bar(self, moved: np.ndarray, owner: int, barred: np.ndarray | None) -> np.ndarray:
        """Zero the batch rows where the step's cards may not go to the envelope."""
        if barred is None or owner != self.envelope or not barred.any():
            return moved
        return moved * ~barred.reshape((-1,) + (1,) * (moved.ndim - 1))

    def _moved(
        self,
        array: np.ndarray,
        step: DealStep,
        owner: int,
        layout: list[int],
        barred: np.ndarray | None = None,
    ) -> np.ndarray:
        """Forward: one card to ``owner``; the result is indexed from 0 = (that owner had 0 before)."""
        moved = array[self._slice(array.ndim, owner, slice(None, -1))]
        for j in step.bumps.get(owner, ()):
            moved = self._bump(moved, self._axis(layout, j), len(self.counters[j].weights))
        return self._bar(moved, owner, barred)

    def push(
        self,
        state: np.ndarray,
        step: DealStep,
        layout: list[int],
        cards: int,
        barred: np.ndarray | None = None,
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

    def open(self, state: np.ndarray, step: DealStep) -> np.ndarray:
        """Forward: a new counter axis (at the end) for each counter opened at this step, at 0."""
        for j in step.opens:
            grown = np.zeros((*state.shape, len(self.counters[j].weights)), dtype=state.dtype)
            grown[..., 0] = state
            state = grown
        return state

    def unopen(self, back: np.ndarray, step: DealStep) -> np.ndarray:
        """Backward: before the step, the counters it opens are at 0 (they are the last axes)."""
        for _ in step.opens:
            back = back[..., 0]
        return back

    def close(self, state: np.ndarray, step: DealStep, layout: list[int]) -> tuple[np.ndarray, list[int]]:
        """Forward: weigh and drop the counters whose last card was this step's."""
        for j in step.closes:
            weights = np.array(self.counters[j].weights, dtype=self.dtype)
            state = np.tensordot(state, weights, axes=([self._axis(layout, j)], [0]))
            layout = [i for i in layout if i != j]
        return state, layout

    def reopen(self, back: np.ndarray, step: DealStep, layout: list[int]) -> np.ndarray:
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
        self,
        back: np.ndarray,
        step: DealStep,
        layout: list[int],
        cards: int,
        barred: np.ndarray | None = None,
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
        step: DealStep,
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
