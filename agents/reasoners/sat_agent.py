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
  In the duel a card may also lie face down: it is there with probability
  (face-down cards not yet located) / (those + the opponent's cards not yet
  located), and an unrefuted card that may lie face down rules nothing out
  until the face-down cards are seen.
- **Look** (duel): a face-down card it has not seen is worth what a card
  shown to it would be (the solutions it rules out, averaged over the cards
  that may lie face down), so a corner room whose card it has not seen is
  worth that on top of its suggestions. Every arrival in a corner room looks
  at its card, however the pawn comes in (walking, by the passage, or
  brought there by a suggestion); staying does not, so the look counts in
  the value of arriving in a room, never in that of staying.
- **Move** toward the room with the best value (suggestion, plus the look in
  the duel), discounted by the moves needed to reach it (``move_discount``
  per move); it takes a secret passage when the room beyond is the best.
  Standing in the room it values most, it stays or rolls away half the time
  each (``agents.moves``): the roll is valued as if it could come back into
  that room, though it never can. ``stay_in_best_room=True`` values a roll by
  the rooms it can reach, so the agent stays; it is off by default because
  every published figure with the SAT agent was measured without it (and
  replays so). In the duel it counts the moves around pawns that never move
  on their own (``agents.routes``); when one is in some way it values a move
  by where it ends and a passage by the rooms beyond it.
- **Refute** with the card that reveals least: one already shown to that
  player, else one it has shown to anybody (more players may know it), else
  at random.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import GameByGameAgent, last_own_turn, option_number, option_switch
from agents.moves import choose_move
from agents.routes import Routes
from agents.showing import least_revealing
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference import (
    HELD,
    NOT_HELD,
    UNKNOWN,
    Knowledge,
    Notepad,
)
from cluedo_env.inference.from_events import (
    RECORD_EVENT_KINDS,
    RecordMaker,
    plain_record,
    record_from_plain,
    setup_of,
)

__all__ = ["SatAgent"]


@dataclass(frozen=True)
class CardOdds:
    """One seat's odds about every card, from which suggestions and looks are valued.

    Attributes:
        open: ``bool[C]`` an envelope candidate whose owner is unknown.
        p_held: ``float[C]`` probability that a player this seat asks holds the card.
        p_face_down: ``float[C]`` probability that it lies face down (duel; else 0).
        held_elsewhere: ``bool[C]`` known to be held by another player (shown again: no news).
        ruled: ``float[C]`` candidate solutions ruled out on seeing the card outside the envelope.
        counts: ``int[3]`` envelope candidates per category.
        total: Candidate solutions (suspect x weapon x room triples).
    """

    open: np.ndarray
    p_held: np.ndarray
    p_face_down: np.ndarray
    held_elsewhere: np.ndarray
    ruled: np.ndarray
    counts: np.ndarray
    total: float


class SatAgent(GameByGameAgent):
    """Plays by complete deduction (see the module docstring).

    Args:
        seed: Seed for tie-breaking.
        move_discount: Fraction of a room's value lost per move needed to get there.
        gamble_at_truncation: Accuse a triple drawn from the candidates on the last turn before truncation.
        stay_in_best_room: Stay in the room it values most rather than roll away from it half the
            time (``agents.moves``; off as the published figures were measured).
    """

    name = "sat"

    def __init__(
        self,
        seed: int = 0,
        move_discount: float = 0.05,
        gamble_at_truncation: bool = False,
        stay_in_best_room: bool = False,
    ) -> None:
        super().__init__(seed)
        if not 0.0 <= option_number("move_discount", move_discount) < 1.0:
            raise ValueError(f"move_discount must be in [0, 1), got {move_discount!r}")
        self.move_discount = move_discount
        self.gamble_at_truncation = option_switch("gamble_at_truncation", gamble_at_truncation)
        self.stay_in_best_room = option_switch("stay_in_best_room", stay_in_best_room)
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
        # Rooms with a face-down card (duel) and those whose card this seat has looked at.
        self.face_down_room = np.zeros(rules.R, dtype=bool)
        if config.duel:
            self.face_down_room[list(core.CORNER_ROOMS)] = True
        self.looked = np.zeros((B, rules.R), dtype=bool)
        self.routes = Routes(config) if config.board == "classic" else None

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for game in np.asarray(games).tolist():
            self.notepads[game].close()
            self.notepads[game] = Notepad(self.setup, int(self.seats[game]))
            self.makers[game] = RecordMaker(self.setup, int(self.seats[game]))
            self._knowledge[game] = None
        self.shown_to[games] = False
        self.looked[games] = False

    def close(self) -> None:
        """Free the solvers."""
        for pad in self.notepads:
            pad.close()
        self.notepads = []

    def state_dict(self) -> dict[str, Any]:
        """Its records of each game (the solvers are rebuilt from them), half-built records, shown cards."""
        return {
            **super().state_dict(),
            "records": [[plain_record(r) for r in pad.records] for pad in self.notepads],
            "makers": [maker.state_dict() for maker in self.makers],
            "shown_to": self.shown_to.copy(),
            "looked": self.looked.copy(),
        }

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        self.close()
        self.notepads = [
            Notepad(self.setup, int(seat), [record_from_plain(entry) for entry in records])
            for seat, records in zip(self.seats, state["records"], strict=True)
        ]
        for maker, saved in zip(self.makers, state["makers"], strict=True):
            maker.load_state_dict(saved)
        self.shown_to[...] = state["shown_to"]
        self.looked[...] = state["looked"]

    def knowledge(self, game: int) -> Knowledge:
        """Everything entailed for this agent's seat in a game (cached until a new record)."""
        if self._knowledge[game] is None:
            self._knowledge[game] = self.notepads[game].knowledge()
        return self._knowledge[game]

    def observe(self, state: core.State, events: np.ndarray) -> None:
        kind = events[:, :, ev.KIND]
        for game, row in zip(*np.nonzero(np.isin(kind, RECORD_EVENT_KINDS)), strict=True):
            record = self.makers[game].add(events[game, row])
            if record is not None:
                self.notepads[game].add(record)
                self._knowledge[game] = None
        # Remember what it showed to whom, to show it again rather than something new.
        game, row = np.nonzero((kind == ev.SHOW) & (events[:, :, ev.PLAYER] == self.seats[:, None]))
        self.shown_to[game, events[game, row, ev.SUGGESTER], events[game, row, ev.CARD]] = True
        game, row = np.nonzero((kind == ev.PEEK) & (events[:, :, ev.PLAYER] == self.seats[:, None]))
        self.looked[game, events[game, row, ev.PEEKED_ROOM]] = True

    # -- decisions ---------------------------------------------------------------

    def decide(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay, rules = self.rules.layout, self.rules
        phase = int(state.phase[game])
        if phase == core.Phase.REFUTE:
            return self._refute(state, game, legal)
        knowledge = self.knowledge(game)
        solution = knowledge.solved()
        if solution is None and self.gamble_at_truncation and last_own_turn(state, game):
            solution = self._guess(knowledge)
        if solution is not None and phase in (core.Phase.TURN, core.Phase.ACCUSE):
            s, w, r = solution
            action = lay.encode("accuse", s, w - rules.S, r - rules.S - rules.W)
            if legal[action]:
                return action
        if phase == core.Phase.SUGGEST:
            room = int(state.location[game, self.seats[game]])
            value = self._suggestion_values(self._odds(knowledge, int(self.seats[game])))[:, :, room]
            best = self._argmax(value.reshape(-1))
            return lay.SUGGEST + best
        if phase == core.Phase.ACCUSE:
            return lay.END_TURN
        return self._move(state, game, legal, knowledge, solution is not None)

    def _move(
        self, state: core.State, game: int, legal: np.ndarray, knowledge: Knowledge, solved: bool
    ) -> int:
        R = self.rules.R
        if solved:  # only here because accusing needs a room: any room will do
            room_value = stay_value = np.ones(R)
        else:
            odds = self._odds(knowledge, int(self.seats[game]))
            stay_value = self._suggestion_values(odds).max(axis=(0, 1))
            # Arriving in a room with a face-down card not yet seen looks at it; staying does not.
            unseen = self.face_down_room & ~self.looked[game]
            room_value = stay_value + unseen * self._look_value(odds)
        return choose_move(
            state,
            game,
            int(self.seats[game]),
            legal,
            room_value,
            stay_value,
            self.move_discount,
            self.routes,
            self.rng,
            stay_in_best_room=self.stay_in_best_room,
        )

    def _refute(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay = self.rules.layout
        cards = np.flatnonzero(legal[lay.SHOW : lay.SHOW + self.setup.deck.num_cards])
        return lay.SHOW + least_revealing(cards, self.shown_to[game], int(state.turn_player[game]), self.rng)

    def _odds(self, knowledge: Knowledge, seat: int) -> CardOdds:
        """The seat's odds about every card (a heuristic model; see the module docstring)."""
        S, W, R = self.rules.S, self.rules.W, self.rules.R
        setup, status = self.setup, knowledge.status
        candidate = status[:, setup.envelope] != NOT_HELD
        known_owner = (status == HELD).any(axis=1)
        others = [p for p in range(setup.num_players) if p != seat]
        held_elsewhere = (status[:, others] == HELD).any(axis=1)  # shown again: no news
        counts = np.array([int(candidate[lo : lo + n].sum()) for lo, n in ((0, S), (S, W), (S + W, R))])
        total = float(np.prod(counts))
        sizes = np.repeat(counts.astype(float), [S, W, R])
        open_card = candidate & ~known_owner  # may be in the envelope, owner unknown
        p_envelope = np.where(open_card, 1.0 / np.maximum(sizes, 1.0), 0.0)
        p_face_down = np.zeros(len(status))
        # Cards an asked player may hold. Outside the duel only the open ones count (a card known
        # out of the envelope but not located is not counted as a likely refutation: a
        # simplification the classic figures in the README were measured with).
        unplaced = open_card
        if setup.table is not None:
            # Each unlocated card lies face down as often as face-down places are left among the
            # places left (face down, or in the asked players' hands) that may hold it.
            may_lie = status[:, setup.table] == UNKNOWN
            table_left = setup.num_face_down - int((status[:, setup.table] == HELD).sum())
            hands_left = np.array(
                [setup.hand_sizes[p] - int((status[:, p] == HELD).sum()) for p in others], dtype=float
            )
            may_hold = status[:, others] == UNKNOWN
            slots = table_left + may_hold @ hands_left
            p_face_down = np.where(may_lie, (1.0 - p_envelope) * table_left / np.maximum(slots, 1.0), 0.0)
            # In the duel a card out of the envelope but not located is the opponent's unless face down.
            unplaced = ~known_owner
        p_held = np.where(unplaced, 1.0 - p_envelope - p_face_down, 0.0)
        return CardOdds(
            open=open_card,
            p_held=p_held,
            p_face_down=p_face_down,
            held_elsewhere=held_elsewhere,
            ruled=np.where(open_card, total / np.maximum(sizes, 1.0), 0.0),
            counts=counts,
            total=total,
        )

    def _suggestion_values(self, odds: CardOdds) -> np.ndarray:
        """Expected candidate solutions ruled out by suggesting (s, w, r): ``float[S, W, R]``."""
        S, W, R = self.rules.S, self.rules.W, self.rules.R
        total, counts = odds.total, odds.counts
        if total <= 1:
            return np.zeros((S, W, R))

        def grid(values: np.ndarray) -> np.ndarray:  # [3, S, W, R] over the named triple
            return np.stack(np.meshgrid(values[:S], values[S : S + W], values[S + W :], indexing="ij"))

        held = grid(odds.p_held) + grid(odds.held_elsewhere.astype(float))
        nobody = np.prod(1.0 - held, axis=0)
        # Nobody refutes: every open named card is in the envelope, unless it may lie face down.
        pinned = odds.open & (odds.p_face_down == 0.0)
        kept = np.ones((S, W, R))
        for axis, is_pinned in enumerate(grid(pinned.astype(float))):
            kept = kept * np.where(is_pinned > 0, 1.0, counts[axis])
        weight = held.sum(axis=0)
        shown = (held * grid(odds.ruled)).sum(axis=0) / np.maximum(weight, 1e-12)
        return nobody * (total - kept) + (1.0 - nobody) * shown

    def _look_value(self, odds: CardOdds) -> float:
        """Expected candidate solutions ruled out by looking at a face-down card not yet seen."""
        where = odds.p_face_down
        if odds.total <= 1 or where.sum() == 0.0:
            return 0.0
        return float((where * odds.ruled).sum() / where.sum())

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
