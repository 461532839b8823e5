"""Belief features: what logic and exact counting infer, as observation pieces for learners.

The core's observation (``core.observe``) holds what a player has seen: the
notepad's open lines, who passed and who showed on which cards. A learner with
``NetworkSettings.belief_features`` also reads what follows from it, appended
after the core's pieces (``learner_pieces(config, True)`` gives the index
table: the core's ``core.observation_pieces(config)`` then these):

=====================  ==========  ===============================================
piece                  shape       meaning
=====================  ==========  ===============================================
``belief_envelope``    C           P(card c is in the envelope), exact
                                   (``cluedo_env.inference.beliefs``, the counting model)
``belief_players``     P x C       P(player j holds card c), player axis
                                   relative to the viewer as in the core
``belief_face_down``   C           P(card c lies face down) (duel; else 0)
``certain_envelope``   C           +1 entailed in the envelope, -1 entailed not,
                                   0 open (the facts of ``cluedo_env.inference``)
``certain_players``    P x C       the same for player j holding card c
``certain_face_down``  C           the same for lying face down (duel; else 0)
=====================  ==========  ===============================================

The facts are those the SAT notepad (``cluedo_env.inference.Notepad``) entails:
exact counting gives a fact probability exactly 1 or 0 where, and only where,
deduction entails it (``cluedo_env.inference.beliefs``; ``tests/agents/test_ppo_features.py``
compares both on whole games), so they are read from the same posterior rather
than from a second solver per game.

``BeliefFeatures`` computes them for one seat in each game of a batch, from
that seat's private view of the events only (it applies ``core.private_view``
itself, so it may be given the full event log). It is incremental and lazy: a
game's records are collected as events arrive, and the posterior is counted
when the features of that game are asked for and new records came in since
(one ``Beliefs.add`` for one new record, a count from scratch, which costs about
as much, for several). The learner asks once per decision, so a game's
posterior is counted about once per turn of the learner, not once per record.
The core stays free of the deduction library: only the agents layer (the PPO
agent, ``agents.ppo.games``) appends these pieces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cluedo_env import core
from cluedo_env.inference import HELD, NOT_HELD, Record
from cluedo_env.inference.beliefs import Beliefs
from cluedo_env.inference.from_events import (
    RECORD_EVENT_KINDS,
    RecordMaker,
    plain_record,
    record_from_plain,
    setup_of,
)

__all__ = [
    "BELIEF_PIECES",
    "BeliefFeatures",
    "belief_pieces",
    "learner_observation",
    "learner_observation_size",
    "learner_pieces",
]

BELIEF_PIECES = (
    "belief_envelope",
    "belief_players",
    "belief_face_down",
    "certain_envelope",
    "certain_players",
    "certain_face_down",
)


def belief_pieces(config: core.GameConfig) -> list[tuple[str, tuple[int, ...], int]]:
    """``(name, shape, offset)`` of the belief pieces, offsets following the core's observation."""
    C, P = config.cards.num_cards, config.num_players
    shapes = {"players": (P, C), "envelope": (C,), "face_down": (C,)}
    offset, pieces = core.observation_size(config), []
    for name in BELIEF_PIECES:
        shape = shapes[name.split("_", 1)[1]]
        pieces.append((name, shape, offset))
        offset += int(np.prod(shape))
    return pieces


def learner_pieces(config: core.GameConfig, belief_features: bool) -> list[tuple[str, tuple[int, ...], int]]:
    """The index table of a learner's observation: the core's pieces, then the belief pieces if used."""
    return [*core.observation_pieces(config)] + (belief_pieces(config) if belief_features else [])


def learner_observation_size(config: core.GameConfig, belief_features: bool) -> int:
    """The length of a learner's observation (``learner_pieces``)."""
    _name, shape, offset = learner_pieces(config, belief_features)[-1]
    return offset + int(np.prod(shape))


class BeliefFeatures:
    """The belief pieces of one seat in each game of a batch (see the module docstring).

    Args:
        config: The rules of every game.
        seats: ``int[B]``: the seat whose beliefs are computed in each game.
    """

    def __init__(self, config: core.GameConfig, seats: np.ndarray) -> None:
        self.config = config
        self.setup = setup_of(config)
        self.seats = np.array(seats, dtype=np.int64)
        B = len(self.seats)
        self.size = sum(int(np.prod(shape)) for _name, shape, _offset in belief_pieces(config))
        self.records: list[list[Record]] = [[] for _ in range(B)]
        self.makers = [RecordMaker(self.setup, int(seat)) for seat in self.seats]
        self.beliefs: list[Beliefs | None] = [None] * B
        # Each game's features, with what they were counted from: (records, pending suggestion).
        self.cached: list[tuple[tuple, np.ndarray] | None] = [None] * B

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        """Forget ``games`` (dealt again), in which the seat is now ``seats``."""
        self.seats[games] = seats
        for game, seat in zip(np.asarray(games).tolist(), np.asarray(seats).tolist(), strict=True):
            self.records[game] = []
            self.makers[game] = RecordMaker(self.setup, int(seat))
            self.beliefs[game] = None
            self.cached[game] = None

    def view(self, events: np.ndarray) -> np.ndarray:
        """The seats' private views of a step's events (``int16[B, E, 7]``)."""
        return core.private_view(events, self.seats[:, None])

    def observe(self, events: np.ndarray) -> None:
        """Take a step's events, ``int[B, E, 7]`` (the full log or the seats' views; rows of -1 skipped)."""
        view = self.view(events)
        for game, row in zip(*np.nonzero(np.isin(view[:, :, 0], RECORD_EVENT_KINDS)), strict=True):
            record = self.makers[game].add(view[game, row])
            if record is not None:
                self.records[game].append(record)

    def posterior_beliefs(self, game: int) -> Beliefs:
        """The seat's ``Beliefs`` in ``game`` with every record so far counted."""
        records, beliefs = self.records[game], self.beliefs[game]
        counted = 0 if beliefs is None else len(beliefs.records)
        if beliefs is None or counted < len(records) - 1:
            beliefs = Beliefs(self.setup, int(self.seats[game]), records)
        elif counted == len(records) - 1:
            beliefs.add(records[-1])
        self.beliefs[game] = beliefs
        return beliefs

    def features(self, games: np.ndarray) -> np.ndarray:
        """``float32[len(games), size]``: the belief pieces of each game, in ``BELIEF_PIECES`` order.

        The passes of a suggestion still waiting for its refuter count (they are facts as soon as
        they are announced, as in ``cluedo_env.inference.from_events.deduce_from_events``).
        """
        out = np.zeros((len(games), self.size), dtype=np.float32)
        for i, game in enumerate(np.asarray(games).tolist()):
            pending = self.makers[game].pending_record()
            pending = pending if pending is not None and pending.passed else None
            key = (len(self.records[game]), pending)
            if self.cached[game] is None or self.cached[game][0] != key:
                seat = int(self.seats[game])
                beliefs = self.posterior_beliefs(game)
                if pending is not None:  # its announced passes: counted apart, not kept
                    beliefs = Beliefs(self.setup, seat, [*self.records[game], pending])
                self.cached[game] = (key, self._features(beliefs, seat))
            out[i] = self.cached[game][1]
        return out

    def _features(self, beliefs: Beliefs, seat: int) -> np.ndarray:
        posterior = beliefs.posterior()
        setup, P = self.setup, self.config.num_players
        status = posterior.knowledge().status
        certain = np.where(status == HELD, 1.0, np.where(status == NOT_HELD, -1.0, 0.0))
        probability = posterior.probabilities()
        players = (seat + np.arange(P)) % P  # relative player axis: index 0 is the seat itself
        parts = []
        for values in (probability, certain):
            face_down = values[:, setup.table] if setup.table is not None else np.zeros(len(values))
            parts += [values[:, setup.envelope], values[:, players].T.ravel(), face_down]
        return np.concatenate(parts).astype(np.float32)

    def state_dict(self) -> dict[str, Any]:
        """The seats, each game's records and half-built records, as plain data (posteriors are recounted)."""
        return {
            "seats": self.seats.copy(),
            "records": [[plain_record(r) for r in records] for records in self.records],
            "makers": [maker.state_dict() for maker in self.makers],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Continue from ``state_dict``'s output (a batch of the same size).

        Raises:
            ValueError: The state is of another number of games.
        """
        if len(state["records"]) != len(self.seats):
            raise ValueError(
                f"these are belief features of {len(self.seats)} games, the state has {len(state['records'])}"
            )
        self.seats[...] = np.asarray(state["seats"], dtype=np.int64)
        self.records = [[record_from_plain(entry) for entry in records] for records in state["records"]]
        self.makers = [RecordMaker(self.setup, int(seat)) for seat in self.seats]
        for maker, saved in zip(self.makers, state["makers"], strict=True):
            maker.load_state_dict(saved)
        self.beliefs = [None] * len(self.seats)
        self.cached = [None] * len(self.seats)


def learner_observation(
    state: core.State, seats: np.ndarray, games: np.ndarray, beliefs: BeliefFeatures | None
) -> np.ndarray:
    """``float32[len(games), obs]``: the core's observation of ``seats[games]`` in ``games``, then the
    belief pieces of ``beliefs`` (the same seats) when given: what a learner's network reads."""
    obs = core.observe(state, seats[games], games)
    return obs if beliefs is None else np.concatenate([obs, beliefs.features(games)], axis=1)
