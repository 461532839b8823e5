"""Notepad: the incremental SAT knowledge of one observer, and ``deduce``, its one-shot form."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from cluedo_env.inference.cards import Setup
from cluedo_env.inference.knowledge import HELD, NOT_HELD, UNKNOWN, Knowledge
from cluedo_env.inference.records import (
    Accusation,
    OwnHand,
    Record,
    RecordBook,
    Suggestion,
    check_record,
)

# Minicard takes the cardinality constraints natively (no auxiliary variables):
# of pysat's solvers it was the fastest here, about 3x minisat22 and cadical153
# on knowledge() of a classic 4-player game.
DEFAULT_SOLVER = "minicard"


class Notepad(RecordBook):
    """The incremental SAT knowledge of one observer.

    One boolean variable per (card, owner), keyed ``("holds", card, owner)`` in
    an ``IDPool``; these take ids ``1 .. num_cards * num_owners`` in card-major
    order, the owners in column order (``Setup.owners``). The solver is kept between records: ``add`` only adds clauses, and
    facts once entailed stay entailed, so they are cached and fed back to the
    solver as unit clauses.

    Use as a context manager, or call ``close`` to free the solver. Pickling
    keeps the set-up, the observer and the records and rebuilds the solver.

    Example:
        >>> from cluedo_env.inference import Deck, OwnHand
        >>> setup = Setup.dealt(Deck(6, 6, 9), num_players=4)
        >>> with Notepad(setup, observer=0) as pad:
        ...     pad.add(OwnHand(0, (0, 6, 12, 13, 14)))
        ...     pad.knowledge().owner_of(6)
        0
    """

    def __init__(
        self,
        setup: Setup,
        observer: int,
        records: Iterable[Record] = (),
        solver: str = DEFAULT_SOLVER,
    ) -> None:
        """Builds the notepad of ``observer``, knowing only the set-up, then adds ``records``.

        Args:
            setup: The game's set-up.
            observer: The player whose knowledge this is.
            records: Records to add at once.
            solver: A pysat solver name. Solvers with native cardinality constraints
                (minicard, gluecard3, gluecard4) take them as such; for the others
                they are encoded into clauses with ``CardEnc``.
        """
        super().__init__(setup, observer)
        self._solver_name = solver
        num_cards, num_owners = setup.deck.num_cards, setup.num_owners
        self._pool = IDPool()
        self._var = np.array(
            [[self._pool.id(("holds", c, o)) for o in range(num_owners)] for c in range(num_cards)],
            dtype=np.int64,
        )
        self._status = np.full((num_cards, num_owners), UNKNOWN, dtype=np.int8)
        self._knowledge: Knowledge | None = None
        self._solver: Solver | None = Solver(name=solver)
        self._add_deal_constraints(self._solver)
        for record in records:
            self.add(record)

    # -- clauses -------------------------------------------------------------

    def variable(self, card: int, owner: int) -> int:
        """The solver variable of "``owner`` holds ``card``"."""
        return int(self._var[card, owner])

    def _add_exactly(self, solver: Solver, variables: np.ndarray, bound: int) -> None:
        """Exactly ``bound`` of ``variables`` are true: native cardinality if the solver has it."""
        lits = [int(v) for v in variables]
        if solver.supports_atmost():
            solver.add_atmost(lits, bound)
            solver.add_atmost([-v for v in lits], len(lits) - bound)
            return
        encoding = EncType.pairwise if bound == 1 and len(lits) <= 8 else EncType.seqcounter
        for clause in CardEnc.equals(lits, bound, vpool=self._pool, encoding=encoding).clauses:
            solver.add_clause(clause)

    def _add_deal_constraints(self, solver: Solver) -> None:
        """What every deal satisfies, whatever was observed."""
        setup = self._setup
        for card in range(setup.deck.num_cards):  # each card in exactly one place
            self._add_exactly(solver, self._var[card], 1)
        for cards in setup.deck.categories:  # one card of each category in the envelope
            self._add_exactly(solver, self._var[list(cards), setup.envelope], 1)
        for owner in setup.owners:  # exact hand sizes (and table size)
            if owner != setup.envelope:
                self._add_exactly(solver, self._var[:, owner], setup.owner_size(owner))

    def _record_clauses(self, record: Record) -> list[list[int]]:
        var = self._var
        if isinstance(record, OwnHand):
            hand = set(record.cards)
            return [[int(var[c, record.player]) * (1 if c in hand else -1)] for c in range(len(var))]
        if isinstance(record, Suggestion):
            # Only the players asked answer: nothing is said about the suggester's cards.
            clauses = [[-int(var[c, p])] for p in record.passed for c in record.cards]
            if record.shown_by is not None:
                clauses.append([int(var[c, record.shown_by]) for c in record.cards])
            if record.shown_card is not None:
                clauses.append([int(var[record.shown_card, record.shown_by])])
            return clauses
        if isinstance(record, Accusation):
            envelope = self._setup.envelope
            if record.correct:
                return [[int(var[c, envelope])] for c in record.cards]
            return [[-int(var[c, envelope]) for c in record.cards]]
        return [[int(var[record.card, record.owner])]]  # Seen

    # -- public API (and RecordBook's setup, observer, records) ---------------

    def add(self, record: Record) -> None:
        """Adds one record's clauses.

        Raises:
            ValueError: If the record is malformed or one the observer cannot have.
        """
        solver = self._open_solver()
        check_record(self._setup, self._observer, record)
        for clause in self._record_clauses(record):
            solver.add_clause(clause)
        self._records.append(record)
        self._knowledge = None

    def knowledge(self) -> Knowledge:
        """Every fact entailed by the set-up and the records so far (cached until the next ``add``).

        Raises:
            ValueError: If no deal is consistent with the records.
        """
        if self._knowledge is None:
            self._knowledge = Knowledge(self._setup, self._entail())
        return self._knowledge

    def close(self) -> None:
        """Frees the solver; the notepad cannot be used afterwards."""
        solver = getattr(self, "_solver", None)  # None also when __init__ failed early
        if solver is not None:
            solver.delete()
            self._solver = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {
            "setup": self._setup,
            "observer": self._observer,
            "records": tuple(self._records),
            "solver": self._solver_name,
        }

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__init__(state["setup"], state["observer"], state["records"], state["solver"])

    def __repr__(self) -> str:
        return f"Notepad(observer={self._observer}, records={len(self._records)}, setup={self._setup})"

    # -- entailment ----------------------------------------------------------

    def _open_solver(self) -> Solver:
        if self._solver is None:
            raise ValueError("this Notepad is closed")
        return self._solver

    def _learn(self, solver: Solver, literal: int, candidates: set[int]) -> None:
        """Records an entailed literal, and feeds it back to the solver to prune later searches."""
        num_owners = self._setup.num_owners
        card, owner = divmod(abs(literal) - 1, num_owners)
        if literal > 0:
            self._status[card] = NOT_HELD
            self._status[card, owner] = HELD
            candidates.difference_update(-int(v) for v in self._var[card])
        else:
            self._status[card, owner] = NOT_HELD
        candidates.discard(literal)
        solver.add_clause([literal])

    def _entail(self) -> np.ndarray:
        """Backbone of the formula restricted to the (card, owner) variables.

        A literal false in some model cannot be entailed, so the candidates
        are the literals true in every model found so far; each is tested by
        one solve under the negating assumption. The solver is told to prefer
        falsifying the candidates, so that every model found on the way rules
        out as many as it can. "Holds" candidates go first: one entailed owner
        also settles the card's other owners.
        """
        solver = self._open_solver()
        if not solver.solve():
            raise ValueError(
                f"no deal is consistent with the {len(self._records)} records of observer {self._observer}"
            )
        model = solver.get_model()
        unknown = np.flatnonzero(self._status.reshape(-1) == UNKNOWN)
        candidates = {
            model[i] for i in unknown.tolist()
        }  # holds variables are ids 1..n, so model[i] = +-(i+1)
        while candidates:
            literal = max(candidates)
            solver.set_phases([-lit for lit in candidates])
            if solver.solve(assumptions=[-literal]):
                model = solver.get_model()
                candidates = {lit for lit in candidates if model[abs(lit) - 1] == lit}
            else:
                self._learn(solver, literal, candidates)
        return self._status.copy()


def deduce(setup: Setup, observer: int, records: Iterable[Record]) -> Knowledge:
    """Everything ``observer`` can deduce from ``records`` (a one-shot ``Notepad``).

    Raises:
        ValueError: If a record is malformed or no deal is consistent with them.
    """
    with Notepad(setup, observer, records) as pad:
        return pad.knowledge()
