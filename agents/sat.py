"""The SAT-reasoning agent: deduces everything logic allows, then plays for information.

Knowledge: one incremental ``deduction.Notepad`` (python-sat) per game, fed with
records built from the agent's own event views (its hand, every suggestion with
its passes and showing, the cards shown to it, wrong accusations, face-down
cards looked at). A fact is known when the solver proves its negation
unsatisfiable; ``knowledge(game)`` exposes it.

Strategy:

- **Accuse** exactly when the envelope is entailed (moving to a room first if
  accusations must be made in one), never otherwise. With
  ``gamble_at_truncation=True`` it also accuses a triple drawn from the envelope candidates on the
  last turn before ``max_turns`` (the only way left to win); off by default.
- **Suggest** the triple that maximises the expected number of candidate
  solutions (suspect x weapon x room triples not yet ruled out of the
  envelope) that the answer rules out. Each named card that is an envelope
  candidate with an unknown owner is assumed held by an asked player with
  probability ``1 - 1/k`` (``k`` = candidates left in its category); a shown
  card rules out the solutions containing it; no refutation pins those cards
  in the envelope. Its own cards add nothing and so isolate the unknown ones.
- **Move** toward the room with the best suggestion value, discounted by the
  moves needed to reach it (``move_discount`` per move); it takes a secret
  passage or stays when that room is the best.
- **Refute** with the card that reveals least: one already shown to that
  player, else one it has shown to anybody (more players may know it), else
  at random.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.deduction import HELD, NOT_HELD, Knowledge, Notepad
from agents.moves import move_toward
from agents.records import RECORD_EVENT_KINDS, RecordMaker, setup_of
from cluedo_env import core
from cluedo_env.core import events as ev

__all__ = ["SatAgent"]


class SatAgent(Agent):
    """Plays by complete deduction (see the module docstring).

    Args:
        seed: Seed for tie-breaking.
        move_discount: Fraction of a room's value lost per move needed to get there.
        gamble_at_truncation: Accuse a triple drawn from the candidates on the last turn before truncation.
    """

    name = "sat"

    def __init__(
        self, seed: int = 0, move_discount: float = 0.05, gamble_at_truncation: bool = False
    ) -> None:
        super().__init__(seed)
        if not 0.0 <= move_discount < 1.0:
            raise ValueError(f"move_discount must be in [0, 1), got {move_discount!r}")
        self.move_discount = move_discount
        self.gamble_at_truncation = gamble_at_truncation
        self.notepads: list[Notepad] = []

    # -- knowledge ---------------------------------------------------------------

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.close()
        e = config.cards
        self.setup = setup_of(config)
        self.notepads = [Notepad(self.setup, int(seat)) for seat in self.seats]
        self.makers = [RecordMaker(self.setup, int(seat)) for seat in self.seats]
        B = len(self.seats)
        self.shown_to = np.zeros((B, config.num_players, e.num_cards), dtype=bool)
        rules = core.rules_for(config)
        self.rules = rules
        self._knowledge: list[Knowledge | None] = [None] * B

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for game in np.asarray(games).tolist():
            self.notepads[game].close()
            self.notepads[game] = Notepad(self.setup, int(self.seats[game]))
            self.makers[game] = RecordMaker(self.setup, int(self.seats[game]))
            self._knowledge[game] = None
        self.shown_to[games] = False

    def close(self) -> None:
        """Free the solvers."""
        for pad in self.notepads:
            pad.close()
        self.notepads = []

    def knowledge(self, game: int) -> Knowledge:
        """Everything entailed for this agent's seat in a game (cached until a new record)."""
        if self._knowledge[game] is None:
            self._knowledge[game] = self.notepads[game].knowledge()
        return self._knowledge[game]

    def observe(self, state: core.State, events: np.ndarray) -> None:
        kind = events[:, :, 0]
        for game, row in zip(*np.nonzero(np.isin(kind, RECORD_EVENT_KINDS)), strict=True):
            record = self.makers[game].add(events[game, row])
            if record is not None:
                self.notepads[game].add(record)
                self._knowledge[game] = None
        # Remember what it showed to whom, to show it again rather than something new.
        game, row = np.nonzero((kind == ev.SHOW) & (events[:, :, 1] == self.seats[:, None]))
        self.shown_to[game, events[game, row, 2], events[game, row, 6]] = True

    # -- decisions ---------------------------------------------------------------

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        for i, game in enumerate(games):
            actions[i] = self._decide(state, int(game), mask[i])
        return actions

    def _decide(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay, rules = self.rules.layout, self.rules
        phase = int(state.phase[game])
        if phase == core.Phase.REFUTE:
            return self._refute(state, game, legal)
        knowledge = self.knowledge(game)
        solution = knowledge.solved()
        if solution is None and self.gamble_at_truncation and state.turn[game] == self.config.max_turns - 1:
            solution = self._guess(knowledge)
        if solution is not None and phase in (core.Phase.TURN, core.Phase.ACCUSE):
            s, w, r = solution
            action = lay.encode("accuse", s, w - rules.S, r - rules.S - rules.W)
            if legal[action]:
                return action
        if phase == core.Phase.SUGGEST:
            room = int(state.location[game, self.seats[game]])
            value = self._suggestion_values(knowledge, int(self.seats[game]))[:, :, room]
            best = self._argmax(value.reshape(-1))
            return lay.SUGGEST + best
        if phase == core.Phase.ACCUSE:
            return lay.END_TURN
        return self._move(state, game, legal, knowledge, solution is not None)

    def _move(
        self, state: core.State, game: int, legal: np.ndarray, knowledge: Knowledge, solved: bool
    ) -> int:
        if solved:  # only here because accusing needs a room: any room will do
            room_value = np.ones(self.rules.R)
        else:
            room_value = self._suggestion_values(knowledge, int(self.seats[game])).max(axis=(0, 1))
        here = int(state.location[game, self.seats[game]])
        return move_toward(
            self.rules, self.config.board, here, legal, room_value, self.move_discount, self.rng
        )

    def _refute(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay = self.rules.layout
        cards = np.flatnonzero(legal[lay.SHOW : lay.SHOW + self.setup.deck.num_cards])
        suggester = int(state.turn_player[game])
        to_them = cards[self.shown_to[game, suggester, cards]]
        to_anyone = cards[self.shown_to[game][:, cards].any(axis=0)]
        pool = to_them if len(to_them) else to_anyone if len(to_anyone) else cards
        return lay.SHOW + int(pool[self.rng.integers(len(pool))])

    def _suggestion_values(self, knowledge: Knowledge, seat: int) -> np.ndarray:
        """Expected candidate solutions ruled out by suggesting (s, w, r): ``float[S, W, R]``."""
        S, W, R = self.rules.S, self.rules.W, self.rules.R
        status = knowledge.status
        candidate = status[:, self.setup.envelope] != NOT_HELD
        known_owner = (status == HELD).any(axis=1)
        others = [p for p in range(self.setup.num_players) if p != seat]
        held_elsewhere = (status[:, others] == HELD).any(axis=1)  # shown again: no news
        counts = [int(candidate[lo : lo + n].sum()) for lo, n in ((0, S), (S, W), (S + W, R))]
        total = float(np.prod(counts))
        if total <= 1:
            return np.zeros((S, W, R))
        sizes = np.repeat(np.array(counts, dtype=float), [S, W, R])
        open_card = candidate & ~known_owner  # may be in the envelope, owner unknown
        p_held = np.where(open_card, 1.0 - 1.0 / sizes, 0.0)
        ruled_if_shown = np.where(open_card, total / sizes, 0.0)

        def grid(values: np.ndarray) -> np.ndarray:  # [3, S, W, R] over the named triple
            return np.stack(np.meshgrid(values[:S], values[S : S + W], values[S + W :], indexing="ij"))

        held = grid(p_held) + grid(held_elsewhere.astype(float))
        nobody = np.prod(1.0 - held, axis=0)
        # Nobody refutes: every open named card is in the envelope.
        kept = np.ones((S, W, R))
        for axis, opened in enumerate(grid(open_card.astype(float))):
            kept = kept * np.where(opened > 0, 1.0, counts[axis])
        weight = held.sum(axis=0)
        shown = (held * grid(ruled_if_shown)).sum(axis=0) / np.maximum(weight, 1e-12)
        return nobody * (total - kept) + (1.0 - nobody) * shown

    def _guess(self, knowledge: Knowledge) -> tuple[int, int, int]:
        candidates = knowledge.envelope_candidates()
        return tuple(int(self.rng.choice(c)) for c in candidates)

    def _argmax(self, values: np.ndarray) -> int:
        best = np.flatnonzero(values >= values.max() - 1e-12)
        return int(best[self.rng.integers(len(best))])

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_knowledge"] = [None] * len(state.get("_knowledge", []))
        return state
