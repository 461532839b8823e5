"""The belief agent: plays by the exact odds of every card's place (``cluedo_env.inference.beliefs``).

Knowledge: one incremental ``beliefs.Beliefs`` per game (the counting model),
fed with the records of the agent's own event views (``records.RecordMaker``),
as the SAT agent feeds its solver. Everything derived from a posterior (the
envelope's distribution, the value of suggestions) is cached until a record
changes the posterior, so most decisions cost a dictionary look-up.

What to ask: expected information (``info_suggestions=True``)
    The value of suggesting ``(s, w, r)`` is the expected entropy reduction of
    the envelope distribution, ``I(E; A) = H(E) - E_A[H(E | A)]``, over the
    answers ``A`` it may receive (who shows which card, or nobody; a refuter
    holding several of the named cards shows each alike), under the exact
    posterior (``cluedo_env.inference.information``). Counting it exactly takes a few
    conditioned posteriors per answer, so the agent screens first: the cheap
    ``screen_information`` (the named cards' owners taken as independent)
    values all suggestions of the room it is in, and the ``exact_candidates``
    best of the screen are counted exactly; it makes the best of those. On
    positions of SAT games (``docs/results/2026-12-01-belief-vs-sat/screen_vs_exact.py``), the
    screen's best 3 held the exact best of the room's 36 suggestions in 27
    of 30 positions at 4 players and 21 of 24 at 6, losing 0.012 and 0.004
    bits on average (the best is worth about 1 bit); counting all 36 costs 12
    times as much. ``tests/agents/test_belief_agent.py`` checks that the choice is
    the exact best when all are counted.

    Where to go: a room is worth the screen's best suggestion there,
    discounted by ``(1 - move_discount) ** moves`` to get there
    (``agents.moves``, the movement the SAT agent uses, around standing pawns
    in the duel): on the classic board two dice carry a pawn about seven moves
    a turn, so the default 0.05 trades about 30% of a suggestion's
    information for a turn of walking. Standing in the room worth most, it
    stays or rolls away half the time each: the roll is valued as if it
    could come back into that room, though it never can.
    ``stay_in_best_room=True`` values a roll by the rooms it can reach, so the
    agent stays; it is off by default because every published figure with
    the agent was measured without it (and replays so). With ``info_suggestions=False`` (the
    ablation) it asks for the most likely envelope triple of the room instead,
    and walks toward the room most likely in the envelope.

When to accuse: a decision under risk (``risk_accusations=True``)
    It accuses the most likely triple when its probability is 1. With the
    risk rule it also accuses when that probability ``p`` beats its chance of
    winning by waiting, an optimal-stopping estimate. Its own progress: each
    turn of its own gains about ``bits_per_turn`` bits about the envelope, so
    after ``k`` more turns the best triple's probability is about ``p_k =
    min(1, p 2^(k bits_per_turn))``, and it is sure after ``T = ceil(H(E) /
    bits_per_turn)`` turns (``H(E)`` the envelope's entropy; ``p_T = 1``). The
    opponents' progress: each opponent still in the game accuses rightly on
    its next turn with a hazard ``h_i(t)`` (``agents.reasoners.risk``), so the chance
    that none does within ``k`` turns is ``S_k = prod over opponents i, over
    t < k of (1 - h_i(t))``, and waiting is worth ``max over k = 1 .. T of
    S_k p_k`` (waiting ``k`` turns, then accusing). It accuses when ``p`` is
    larger. The hazard, ``risk_model``:

    - ``"evidence"`` (default): read from what the agent sees of each
      opponent, ``h_i = min(1, hazard_per_answer * answers_i +
      hazard_unrefuted * unrefuted_i)``, held for the turns ahead:
      ``answers_i`` counts the opponent's suggestions that somebody refuted
      (the answers it received; each narrows its candidates), ``unrefuted_i``
      those that nobody could (it may well be sure now). The rule so waits
      where the opponents have learnt little, which is what a hard deal
      looks like from outside. The hazards (0.02 and 0.1 per opponent per
      turn) are set by the sweep ``lineup=belief_risk_sweep`` against SAT
      agents (``docs/results/2026-12-01-belief-vs-sat``; ``bits_per_turn`` 1.5 is the first
      version's, not swept again):
      half these hazards did better at 4 players, one and a half times them
      at 6 (more opponents make waiting costlier), neither resolved by the
      sweep's 200 and 120 games; the middle is kept. Measured against SAT
      agents: 38.7% [36.6, 40.9] of 2,000 4-player games won (4.0% ended in
      a wrong accusation), 28.8% [26.1, 31.7] of 1,002 6-player games (7.9%).
    - ``"sat_hazard"``: a SAT agent's hazard by the turns the opponent has
      taken (``agents.reasoners.risk.hazard``, measured in SAT self-play), the same
      for every deal. Against SAT agents it accused too early, wrongly in 18%
      of 4-player games and 54% of 6-player ones (``docs/results/2026-12-01-belief-vs-sat``): in
      a position still unsure late in the game, a hard deal, the opponents
      are slower than the average hazard says. The v2 reasoning tasks were
      generated with it (``bits_per_turn=1.0``).

    ``suggest_first=True`` (off by default) moves the rule's accusation from the
    start of the turn to its end, after the answer to the agent's own suggestion:
    nobody else plays in between, and the answer can only sharpen the odds
    (where the rules allow an accusation from anywhere; elsewhere it accuses at
    the start of the turn as before). With it, and the hazards doubled (0.04
    and 0.2), it won 44.1% of 2,000 games against three SAT agents (41.0%
    without either on the same games) and 27.9% against three default belief
    agents, but lost 9 points against players who never accuse, whose answers
    the hazards read as progress (``docs/results/2026-12-04-suggest-first``).
    ``ignore_naive=True`` (off by default) leaves out of the rule the *naive*
    opponents (``naive``): those that repeated a suggestion somebody had
    refuted, or named a suspect or weapon the agent had shown them, which
    players who keep notes never do. With the options above it won 94.8% of
    2,000 games against players who never accuse (+5.4 points), and the same
    games against SAT and notepad agents, whom it never flagged
    (``docs/results/2026-12-05-ignore-naive``).
    ``racer_prior=π`` (1 by default) takes each opponent for one that accuses
    as its hazard says with prior chance ``π``, and for one that never does
    otherwise; each turn it takes without accusing at hazard ``h`` weighs the
    odds that it races by ``1 - h`` (``quiet``), and its hazard ahead is
    weighted by the chance that it does. With all the options above and
    ``racer_prior=0.9`` the agent, against the default on the same 2,000
    games each, won 43.1% against three SAT agents (+2.1 points), 26.7%
    against three belief agents (+0.9), 98.5% against players who never
    accuse (-0.1) and 70.3% against notepad agents (-1.1, not resolved)
    (``docs/results/2026-12-05-racer-prior``).

    On the last turn before ``max_turns`` it accuses the most likely triple
    whatever its probability. Without the risk rule it accuses only when the
    posterior is certain, so never wrongly.

What to show: ``refute_strategy=True``
    The card that reveals least (``agents.showing``, as the SAT agent); with
    ``refute_strategy=False`` any matching card at random.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.base import GameByGameAgent, last_own_turn
from agents.moves import choose_move
from agents.reasoners.risk import RISK_MODELS, evidence_hazard, hazard
from agents.routes import Routes
from agents.showing import least_revealing
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference import Suggestion
from cluedo_env.inference.beliefs import Beliefs, Posterior
from cluedo_env.inference.from_events import (
    RECORD_EVENT_KINDS,
    RecordMaker,
    plain_record,
    record_from_plain,
    setup_of,
)
from cluedo_env.inference.information import answer_information, screen_information

__all__ = ["BeliefAgent", "number_option"]


def entropy_bits(p: np.ndarray) -> float:
    """The entropy of a distribution, in bits."""
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def number_option(name: str, value: object, accepted: str, ok: Callable[[float], bool]) -> None:
    """Raise ``ValueError`` naming option ``name`` unless ``value`` is a number (an int or a float, not a
    bool) for which ``ok`` holds; ``accepted`` says which numbers are (``"in [0, 1]"``)."""
    number = isinstance(value, int | float | np.integer | np.floating)
    if not (number and not isinstance(value, bool | np.bool_) and ok(value)):
        raise ValueError(f"{name} must be {accepted}, got {value!r}")


class BeliefAgent(GameByGameAgent):
    """Plays by the exact posterior (see the module docstring).

    Args:
        seed: Seed for tie-breaking.
        info_suggestions: Suggest and walk by expected information (else by the most likely triple).
        risk_accusations: Accuse before certainty when the odds beat the risk of waiting.
        refute_strategy: Show the card that reveals least (else any matching card at random).
        exact_candidates: Suggestions of the room (the screen's best) whose information is counted
            exactly before choosing.
        move_discount: Fraction of a room's value lost per move needed to get there.
        bits_per_turn: Envelope information the agent expects to gain per turn of its own.
        risk_model: How it reads the opponents' progress (``agents.reasoners.risk.RISK_MODELS``): ``"evidence"``,
            from their answers and unrefuted suggestions; ``"sat_hazard"``, a SAT agent's hazard by
            the turns they have taken.
        hazard_per_answer: ``"evidence"``: an opponent's hazard per suggestion of its that was refuted.
        hazard_unrefuted: ``"evidence"``: the same, per suggestion of its that nobody could refute.
        suggest_first: Make a risk accusation at the end of its turn, after its suggestion's
            answer, rather than at the start (where accusations are allowed from anywhere).
        ignore_naive: Leave out of the risk rule the naive opponents: those that have repeated a
            suggestion somebody had refuted, or named a suspect or weapon the agent had shown them
            (players who keep no notes of what they are shown; reasoning players do neither).
        racer_prior: The prior chance that an opponent accuses as its hazard says (1: every one does).
            Each turn it took without accusing, where its hazard was ``h``, weighs the odds that it
            races by ``1 - h``; its hazard ahead is weighted by the chance that it does.
        stay_in_best_room: ``agents.moves.choose_move``'s option, as the SAT agent takes it (off
            by default, as the published figures were measured).
    """

    name = "belief"

    def __init__(
        self,
        seed: int = 0,
        info_suggestions: bool = True,
        risk_accusations: bool = True,
        refute_strategy: bool = True,
        exact_candidates: int = 3,
        move_discount: float = 0.05,
        bits_per_turn: float = 1.5,
        risk_model: str = "evidence",
        hazard_per_answer: float = 0.02,
        hazard_unrefuted: float = 0.1,
        suggest_first: bool = False,
        ignore_naive: bool = False,
        racer_prior: float = 1.0,
        stay_in_best_room: bool = False,
    ) -> None:
        super().__init__(seed)
        if (
            not isinstance(exact_candidates, int)
            or isinstance(exact_candidates, bool)
            or exact_candidates < 1
        ):
            raise ValueError(f"exact_candidates must be an int >= 1, got {exact_candidates!r}")
        number_option("move_discount", move_discount, "in [0, 1)", lambda x: 0 <= x < 1)
        number_option("bits_per_turn", bits_per_turn, "a finite number > 0", lambda x: 0 < x < math.inf)
        switches = {
            "info_suggestions": info_suggestions,
            "risk_accusations": risk_accusations,
            "refute_strategy": refute_strategy,
            "suggest_first": suggest_first,
            "ignore_naive": ignore_naive,
            "stay_in_best_room": stay_in_best_room,
        }
        for option, value in switches.items():
            if not isinstance(value, bool | np.bool_):
                raise ValueError(f"{option} must be True or False, got {value!r}")
        if risk_model not in RISK_MODELS:
            raise ValueError(f"risk_model must be one of {RISK_MODELS}, got {risk_model!r}")
        for option, value in (
            ("hazard_per_answer", hazard_per_answer),
            ("hazard_unrefuted", hazard_unrefuted),
            ("racer_prior", racer_prior),
        ):
            number_option(option, value, "in [0, 1]", lambda x: 0 <= x <= 1)
        self.info_suggestions = bool(info_suggestions)
        self.risk_accusations = bool(risk_accusations)
        self.refute_strategy = bool(refute_strategy)
        self.exact_candidates = exact_candidates
        self.move_discount = move_discount
        self.bits_per_turn = bits_per_turn
        self.risk_model = risk_model
        self.hazard_per_answer = hazard_per_answer
        self.hazard_unrefuted = hazard_unrefuted
        self.suggest_first = bool(suggest_first)
        self.ignore_naive = bool(ignore_naive)
        self.racer_prior = racer_prior
        self.stay_in_best_room = bool(stay_in_best_room)

    # -- knowledge ---------------------------------------------------------------

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        if self.risk_accusations and self.risk_model == "sat_hazard":
            hazard(config.num_players, np.zeros(1))  # refuses, before any game, a table it has no model for
        self.setup = setup_of(config)
        self.rules = core.rules_for(config)
        self.routes = Routes(config) if config.board == "classic" else None
        B, P, C = len(self.seats), config.num_players, config.cards.num_cards
        self.beliefs: list[Beliefs | None] = [None] * B
        self.makers = [RecordMaker(self.setup, int(seat)) for seat in self.seats]
        self.shown_to = np.zeros((B, P, C), dtype=bool)  # cards I showed to each player
        self.turns_taken = np.zeros((B, P), dtype=np.int64)  # turns each player has begun
        self.answers = np.zeros((B, P), dtype=np.int64)  # each player's suggestions that somebody refuted
        self.unrefuted = np.zeros((B, P), dtype=np.int64)  # ... that nobody could refute
        self.out = np.zeros((B, P), dtype=bool)  # accused wrongly
        # repeated a refuted suggestion, or named a suspect or weapon it was shown by me
        self.naive = np.zeros((B, P), dtype=bool)
        self.hazard_at_turn = np.zeros((B, P))  # each player's hazard when its last turn began
        self.quiet = np.zeros((B, P))  # log of the chance a racer takes the turns it took without accusing
        self._cache: list[tuple[Posterior, dict] | None] = [None] * B

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for game in np.asarray(games).tolist():
            self.beliefs[game] = None
            self.makers[game] = RecordMaker(self.setup, int(self.seats[game]))
            self._cache[game] = None
        notes = (self.shown_to, self.turns_taken, self.answers, self.unrefuted, self.out, self.naive)
        for note in (*notes, self.hazard_at_turn, self.quiet):
            note[games] = 0

    def state_dict(self) -> dict[str, Any]:
        """Its records of each game (the posteriors are counted again from them), half-built records,
        the cards it showed, the opponents' turns, answers and unrefuted suggestions, who is out, who is
        naive, and how quiet each has been."""
        return {
            **super().state_dict(),
            "records": [None if b is None else [plain_record(r) for r in b.records] for b in self.beliefs],
            "makers": [maker.state_dict() for maker in self.makers],
            "shown_to": self.shown_to.copy(),
            "turns_taken": self.turns_taken.copy(),
            "answers": self.answers.copy(),
            "unrefuted": self.unrefuted.copy(),
            "out": self.out.copy(),
            "naive": self.naive.copy(),
            "hazard_at_turn": self.hazard_at_turn.copy(),
            "quiet": self.quiet.copy(),
        }

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        self.beliefs = [
            None if records is None else Beliefs(self.setup, int(seat), map(record_from_plain, records))
            for seat, records in zip(self.seats, state["records"], strict=True)
        ]
        for maker, saved in zip(self.makers, state["makers"], strict=True):
            maker.load_state_dict(saved)
        self._cache = [None] * len(self.seats)
        self.shown_to[...] = state["shown_to"]
        self.turns_taken[...] = state["turns_taken"]
        self.answers[...] = state["answers"]
        self.unrefuted[...] = state["unrefuted"]
        self.out[...] = state["out"]
        if "naive" in state:  # else saved before ignore_naive: no flags, read from the next answers on
            self.naive[...] = state["naive"]
        if "quiet" in state:  # else saved before racer_prior: every opponent counted quiet from here on
            self.hazard_at_turn[...] = state["hazard_at_turn"]
            self.quiet[...] = state["quiet"]

    def observe(self, state: core.State, events: np.ndarray) -> None:
        kind = events[:, :, ev.KIND]
        for game, row in zip(*np.nonzero(np.isin(kind, RECORD_EVENT_KINDS)), strict=True):
            record = self.makers[game].add(events[game, row])
            if record is not None:
                if isinstance(record, Suggestion):
                    self._note_answer(game, record)
                if self.beliefs[game] is None:
                    self.beliefs[game] = Beliefs(self.setup, int(self.seats[game]), [record])
                else:
                    self.beliefs[game].add(record)
        # The opponents' progress, as far as the risk rule reads it: their turns, the answers they
        # received, their suggestions nobody refuted, and who is out.
        game, row = np.nonzero(kind == ev.TURN)
        player = events[game, row, ev.PLAYER]
        if self.racer_prior < 1:  # a player beginning a turn took its last one without accusing rightly,
            with np.errstate(divide="ignore"):  # at the hazard it had then; now the hazard of this one
                self.quiet[game, player] += np.log1p(-self.hazard_at_turn[game, player])
            self.hazard_at_turn[game, player] = self._hazards(game, player, 1)[:, 0]
        np.add.at(self.turns_taken, (game, player), 1)
        game, row = np.nonzero(kind == ev.SHOW)
        np.add.at(self.answers, (game, events[game, row, ev.SUGGESTER]), 1)
        game, row = np.nonzero(kind == ev.NO_REFUTE)
        np.add.at(self.unrefuted, (game, events[game, row, ev.PLAYER]), 1)
        game, row = np.nonzero((kind == ev.ACCUSE) & (events[:, :, ev.CORRECT] == 0))
        self.out[game, events[game, row, ev.PLAYER]] = True

    def _note_answer(self, game: int, record: Suggestion) -> None:
        """A suggestion answered (before it joins the game's records): its suggester is naive if it had
        made the same suggestion before and somebody refuted it, or named a suspect or weapon the agent
        had shown it (the room is where it stands); the card the agent showed, if it did."""
        player, (suspect, weapon, _room) = record.suggester, record.cards
        earlier = self.beliefs[game].records if self.beliefs[game] is not None else ()
        self.naive[game, player] |= bool(self.shown_to[game, player, [suspect, weapon]].any()) or any(
            isinstance(r, Suggestion)
            and r.suggester == player
            and r.cards == record.cards
            and r.shown_by is not None
            for r in earlier
        )
        if record.shown_by == self.seats[game]:
            self.shown_to[game, player, record.shown_card] = True

    def _beliefs(self, game: int) -> Beliefs:
        if self.beliefs[game] is None:
            self.beliefs[game] = Beliefs(self.setup, int(self.seats[game]))
        return self.beliefs[game]

    def posterior(self, game: int) -> Posterior:
        """The agent's exact posterior in one game."""
        return self._beliefs(game).posterior()

    def _derived(self, game: int) -> dict:
        """What the decisions read from the posterior, computed once per posterior."""
        posterior = self.posterior(game)
        cached = self._cache[game]
        if cached is None or cached[0] is not posterior:
            joint = posterior.envelope()
            cached = (posterior, {"envelope": joint, "solved": posterior.knowledge().solved(), "exact": {}})
            self._cache[game] = cached
        return cached[1]

    def screen(self, game: int) -> np.ndarray:
        """``float[S, W, R]``: the screen's value of every suggestion (bits; see the module docstring)."""
        derived = self._derived(game)
        if "screen" not in derived:
            seat = int(self.seats[game])
            derived["screen"] = screen_information(self.setup, seat, self.posterior(game).probabilities())
        return derived["screen"]

    def exact_value(self, game: int, suggestion: tuple[int, int, int]) -> float:
        """The exact expected information of a suggestion (category-local indices), in bits."""
        exact = self._derived(game)["exact"]
        if suggestion not in exact:
            offsets = [c.start for c in self.setup.deck.categories]
            triple = tuple(i + o for i, o in zip(suggestion, offsets, strict=True))
            exact[suggestion] = answer_information(self._beliefs(game), triple)
        return exact[suggestion]

    # -- decisions ---------------------------------------------------------------

    def decide(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay = self.rules.layout
        phase = int(state.phase[game])
        if phase == core.Phase.REFUTE:
            return self._refute(state, game, legal)
        accusation = self._accusation(state, game)
        if accusation is not None and phase in (core.Phase.TURN, core.Phase.ACCUSE) and legal[accusation]:
            return accusation
        if phase == core.Phase.SUGGEST:
            room = int(state.location[game, self.seats[game]])
            s, w = self._suggestion(game, room)
            return lay.SUGGEST + s * self.rules.W + w
        if phase == core.Phase.ACCUSE:
            return lay.END_TURN
        return self.walk(state, game, int(self.seats[game]), legal, self.room_values(game, accusation))

    def walk(self, state: core.State, game: int, seat: int, legal: np.ndarray, room_value: np.ndarray) -> int:
        """The movement action toward the rooms of ``room_value`` (``agents.moves.choose_move``, with this
        agent's discount, routes, generator and ``stay_in_best_room``)."""
        return choose_move(
            state,
            game,
            seat,
            legal,
            room_value,
            room_value,
            self.move_discount,
            self.routes,
            self.rng,
            stay_in_best_room=self.stay_in_best_room,
        )

    def room_values(self, game: int, accusation: int | None) -> np.ndarray:
        """What each room is worth to walk to in game ``game``: any room alike where an ``accusation``
        is due and only a room allows it; else its best suggestion's screen value
        (``info_suggestions``), or the chance that it is the envelope's room."""
        if accusation is not None and not self.config.accuse_anywhere:  # here to accuse: any room will do
            return np.ones(self.rules.R)
        if self.info_suggestions:
            return self.screen(game).max(axis=(0, 1))
        return self._derived(game)["envelope"].sum(axis=(0, 1))

    def _suggestion(self, game: int, room: int) -> tuple[int, int]:
        """The suspect and weapon to name in ``room`` (see the module docstring)."""
        if not self.info_suggestions:
            return np.unravel_index(
                self._argmax(self._derived(game)["envelope"][:, :, room].reshape(-1)),
                (self.rules.S, self.rules.W),
            )
        screen = self.screen(game)[:, :, room].reshape(-1)
        candidates = np.argsort(-screen, kind="stable")[: self.exact_candidates]
        exact = np.array([self.exact_value(game, (*divmod(int(q), self.rules.W), room)) for q in candidates])
        return divmod(int(candidates[self._argmax(exact)]), self.rules.W)

    def _accusation(self, state: core.State, game: int) -> int | None:
        """The accusation action it would make now, or None to wait (see the module docstring)."""
        derived = self._derived(game)
        joint = derived["envelope"]
        if derived["solved"] is not None:
            s, w, r = np.unravel_index(int(joint.argmax()), joint.shape)
        elif not self.risk_accusations:
            return None
        else:
            best = int(joint.argmax())
            p = float(joint.reshape(-1)[best])
            last_turn = last_own_turn(state, game)
            if not last_turn and (self._suggests_first(state, game) or p <= self.waiting_value(game, p)):
                return None
            s, w, r = np.unravel_index(best, joint.shape)
        return self.rules.layout.encode("accuse", int(s), int(w), int(r))

    def _suggests_first(self, state: core.State, game: int) -> bool:
        """Whether a risk accusation waits for this turn's suggestion (``suggest_first``): at the start
        of the turn, where the end of the turn allows one anywhere (the answer can only sharpen the
        odds, and nobody else plays in between)."""
        return (
            self.suggest_first
            and int(state.phase[game]) == core.Phase.TURN
            and bool(self.config.accuse_anywhere)
        )

    def waiting_value(self, game: int, p: float) -> float:
        """The estimated chance of winning by waiting, when the best triple has probability ``p``.

        ``max over k = 1 .. T`` of (no opponent accuses rightly in its next ``k`` turns) x (the
        best triple's probability after ``k`` more turns of its own, ``min(1, p 2^(k b))``, and 1
        at ``T``): see the module docstring.
        """
        b = self.bits_per_turn
        turns = max(1, math.ceil(entropy_bits(self._derived(game)["envelope"]) / b - 1e-9))
        turns = min(turns, self.config.max_turns)  # no game lasts longer
        others = np.ones(self.config.num_players, dtype=bool)
        others[self.seats[game]] = False
        others &= ~self.out[game]
        if self.ignore_naive:
            others &= ~self.naive[game]
        hazards = self._hazards(game, np.flatnonzero(others), turns)
        if self.racer_prior < 1:  # weighted by the chance each races, given the turns it stayed quiet
            racer = self.racer_prior * np.exp(self.quiet[game, others])
            hazards *= (racer / (racer + 1 - self.racer_prior))[:, None]
        survive = np.cumprod(np.prod(1.0 - hazards, axis=0))  # [T]
        k = np.arange(1, turns + 1)
        later = np.minimum(1.0, p * 2.0 ** (k * b))
        later[-1] = 1.0
        return float((survive * later).max())

    def _hazards(self, game: int | np.ndarray, players: np.ndarray, turns: int) -> np.ndarray:
        """``[players, turns]``: each player's chance to accuse rightly on each of its next ``turns`` turns,
        by ``risk_model`` (``game``: one, or each player's)."""
        if self.risk_model == "sat_hazard":
            ahead = self.turns_taken[game, players][:, None] + np.arange(turns)[None, :]
            return hazard(self.config.num_players, ahead)
        now = evidence_hazard(  # "evidence": what it has seen of each player, held for the turns ahead
            self.answers[game, players],
            self.unrefuted[game, players],
            self.hazard_per_answer,
            self.hazard_unrefuted,
        )
        return np.repeat(now[:, None], turns, axis=1).astype(float)

    def _refute(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay = self.rules.layout
        cards = np.flatnonzero(legal[lay.SHOW : lay.SHOW + self.setup.deck.num_cards])
        return lay.SHOW + self.card_to_show(game, cards, int(state.turn_player[game]))

    def card_to_show(self, game: int, cards: np.ndarray, suggester: int) -> int:
        """The card it shows ``suggester`` in game ``game`` among ``cards`` (those it may show): the
        least revealing (``refute_strategy``), else one at random."""
        if self.refute_strategy:
            return least_revealing(cards, self.shown_to[game], suggester, self.rng)
        return int(cards[self.rng.integers(len(cards))])

    def _argmax(self, values: np.ndarray) -> int:
        best = np.flatnonzero(values >= values.max() - 1e-12)
        return int(best[self.rng.integers(len(best))])
