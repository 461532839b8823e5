"""The belief agent: plays by the exact odds of every card's place (``agents.beliefs``).

Knowledge: one incremental ``beliefs.Beliefs`` per game (the counting model),
fed with the records of the agent's own event views (``records.RecordMaker``),
as the SAT agent feeds its solver. Its posterior gives the envelope's joint
distribution and, by ``sample_deals``, deals drawn with exactly the posterior's
probabilities. Everything derived from a posterior (the deals drawn, the value
of every suggestion) is cached until a record changes the posterior, so most
decisions cost a dictionary look-up.

What to ask: expected information (``info_suggestions=True``)
    The value of suggesting ``(s, w, r)`` is the mutual information, in bits,
    between the answer and the envelope: ``I = H(X) - E_A[H(X | A)]``
    (``expected_information``). The answer ``A`` is who shows and which of the
    three cards (or that nobody can): the players are asked clockwise, the
    first holding any named card shows one, each of its named cards equally
    likely. ``X`` is which of the three named cards lie in the envelope (8
    values): the part of the envelope the answer speaks to directly. ``I``
    is a lower bound of the information about the whole triple (``X`` is a
    function of it) and close to it: an answer moves the other cards'
    probabilities only through hand sizes. Why not the whole triple: the
    expectation runs over ``samples`` deals drawn from the posterior, and
    the plug-in estimate of ``I(E; A)`` on a few hundred deals spread over
    up to 324 triples is biased toward answers of high entropy, while ``X``
    has 8 values and is estimated well. On a set of deals with weights (all
    deals of a small deck, say) both are computed exactly
    (``about="envelope"`` or ``"named"``); the tests check them against brute
    force.

    Where to go: a room is worth its best suggestion, discounted by
    ``(1 - move_discount) ** moves`` to get there (``agents.moves``): on the
    classic board two dice carry a pawn about seven moves a turn, so the
    default 0.05 trades about 30% of a suggestion's information for a turn of
    walking. With ``info_suggestions=False`` (the ablation) it asks for the
    most likely envelope triple of the room instead, and walks toward the
    room most likely in the envelope.

When to accuse: a decision under risk (``risk_accusations=True``)
    It accuses the most likely triple when its probability is 1. With the
    risk rule it also accuses when that probability ``p`` beats its estimated
    chance of winning by waiting until it is sure: waiting takes about ``T =
    max(1, H(E) / bits_per_turn)`` more turns of its own (``H(E)`` the
    envelope's entropy in bits), during which each opponent still in the game
    takes ``T`` turns, each of which it ends by accusing rightly with the
    hazard ``h = min(1, hazard_per_answer * answers + hazard_unrefuted *
    unrefuted)``: ``answers`` counts the suggestions of that opponent that
    somebody refuted (each showed it a card: its progress, as the agent sees
    it) and ``unrefuted`` those nobody could refute (the opponent may well be
    sure now). It accuses when ``p > prod over opponents (1 - h) ** T``. On
    the last turn before ``max_turns`` it accuses the most likely triple
    whatever its probability. Without the risk rule it accuses only when the
    posterior is certain, so never wrongly.

What to show: ``refute_strategy=True``
    The card already shown to the suggester (it learns nothing), else a card
    it has shown to anybody (more players may know it already), else one at
    random; with ``refute_strategy=False`` any matching card at random.
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import Agent
from agents.beliefs import Beliefs, Posterior
from agents.deduction import Setup
from agents.moves import move_toward
from agents.records import RECORD_EVENT_KINDS, RecordMaker, setup_of
from cluedo_env import core
from cluedo_env.core import events as ev

__all__ = ["ABOUT", "BeliefAgent", "expected_information"]

ABOUT = ("named", "envelope")


def expected_information(
    setup: Setup,
    suggester: int,
    deals: np.ndarray,
    weights: np.ndarray | None = None,
    about: str = "named",
) -> np.ndarray:
    """The expected information of every suggestion's answer, in bits, under a distribution of deals.

    The answer to ``suggester`` suggesting ``(s, w, r)``: the other players are
    asked clockwise from the suggester; the first holding any of the three
    cards shows one of those it holds, each equally likely, and the suggester
    learns who showed which card; or nobody can, and it learns that.

    Args:
        setup: The game's set-up.
        suggester: The player who suggests (the observer).
        deals: ``int[M, num_cards]``, the owner of every card in each deal
            (``Posterior.sample_deals``'s layout).
        weights: ``float[M]``, the probability of each deal (normalised here);
            ``None``: equally likely.
        about: ``"named"``: the information about which of the three named cards
            are in the envelope; ``"envelope"``: about the whole envelope triple.

    Returns:
        ``float64[S, W, R]``: ``I(answer; about)`` for each suggestion (category-local indices).

    Raises:
        ValueError: For an unknown ``about``, deals of the wrong shape, or weights that do not match.
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
        if weights.shape != (M,) or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"weights must be {M} non-negative floats with a positive sum")
        weights = weights / weights.sum()
    S, W, R = setup.deck.sizes
    P = setup.num_players
    asked = [(suggester + i) % P for i in range(1, P)]
    rank = np.full(setup.num_owners, P - 1)  # P - 1: never asked (the suggester, envelope, table)
    rank[asked] = np.arange(P - 1)
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
    px = joint.sum(axis=2, keepdims=True)
    pa = joint.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(joint > 0, joint * np.log2(joint / (px * pa)), 0.0)
    return np.maximum(terms.sum(axis=(1, 2)), 0.0).reshape(S, W, R)


def entropy_bits(p: np.ndarray) -> float:
    """The entropy of a distribution, in bits."""
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


class BeliefAgent(Agent):
    """Plays by the exact posterior (see the module docstring).

    Args:
        seed: Seed for the deals drawn and for tie-breaking.
        info_suggestions: Suggest and walk by expected information (else by the most likely triple).
        risk_accusations: Accuse before certainty when the odds beat the estimated risk of waiting.
        refute_strategy: Show the card that reveals least (else any matching card at random).
        samples: Deals drawn from the posterior to compute the expected information.
        move_discount: Fraction of a room's value lost per move needed to get there.
        bits_per_turn: Envelope information the agent expects to gain per turn of its own.
        hazard_per_answer: An opponent's chance to accuse rightly on a turn, per refuted suggestion it made.
        hazard_unrefuted: The same, per suggestion of its own that nobody could refute.
    """

    name = "belief"

    def __init__(
        self,
        seed: int = 0,
        info_suggestions: bool = True,
        risk_accusations: bool = True,
        refute_strategy: bool = True,
        samples: int = 64,
        move_discount: float = 0.05,
        bits_per_turn: float = 1.5,
        hazard_per_answer: float = 0.02,
        hazard_unrefuted: float = 0.1,
    ) -> None:
        super().__init__(seed)
        if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"samples must be an int >= 1, got {samples!r}")
        if not 0.0 <= move_discount < 1.0:
            raise ValueError(f"move_discount must be in [0, 1), got {move_discount!r}")
        if not bits_per_turn > 0:
            raise ValueError(f"bits_per_turn must be > 0, got {bits_per_turn!r}")
        for label, value in (
            ("hazard_per_answer", hazard_per_answer),
            ("hazard_unrefuted", hazard_unrefuted),
        ):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{label} must be in [0, 1], got {value!r}")
        self.info_suggestions = bool(info_suggestions)
        self.risk_accusations = bool(risk_accusations)
        self.refute_strategy = bool(refute_strategy)
        self.samples = samples
        self.move_discount = move_discount
        self.bits_per_turn = bits_per_turn
        self.hazard_per_answer = hazard_per_answer
        self.hazard_unrefuted = hazard_unrefuted

    # -- knowledge ---------------------------------------------------------------

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.setup = setup_of(config)
        self.rules = core.rules_for(config)
        B, P, C = len(self.seats), config.num_players, config.cards.num_cards
        self.beliefs: list[Beliefs | None] = [None] * B
        self.makers = [RecordMaker(self.setup, int(seat)) for seat in self.seats]
        self.shown_to = np.zeros((B, P, C), dtype=bool)  # cards I showed to each player
        self.answers = np.zeros((B, P), dtype=np.int64)  # each player's suggestions that somebody refuted
        self.unrefuted = np.zeros((B, P), dtype=np.int64)  # ... that nobody could refute
        self.out = np.zeros((B, P), dtype=bool)  # accused wrongly
        self._cache: list[tuple[Posterior, dict] | None] = [None] * B

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for game in np.asarray(games).tolist():
            self.beliefs[game] = None
            self.makers[game] = RecordMaker(self.setup, int(self.seats[game]))
            self._cache[game] = None
        for notes in (self.shown_to, self.answers, self.unrefuted, self.out):
            notes[games] = 0

    def observe(self, state: core.State, events: np.ndarray) -> None:
        kind = events[:, :, 0]
        for game, row in zip(*np.nonzero(np.isin(kind, RECORD_EVENT_KINDS)), strict=True):
            record = self.makers[game].add(events[game, row])
            if record is not None:
                if self.beliefs[game] is None:
                    self.beliefs[game] = Beliefs(self.setup, int(self.seats[game]), [record])
                else:
                    self.beliefs[game].add(record)
        game, row = np.nonzero((kind == ev.SHOW) & (events[:, :, 1] == self.seats[:, None]))
        self.shown_to[game, events[game, row, 2], events[game, row, 6]] = True
        # The opponents' progress, as far as the agent sees it.
        game, row = np.nonzero(kind == ev.SHOW)
        np.add.at(self.answers, (game, events[game, row, 2]), 1)
        game, row = np.nonzero(kind == ev.NO_REFUTE)
        np.add.at(self.unrefuted, (game, events[game, row, 1]), 1)
        game, row = np.nonzero((kind == ev.ACCUSE) & (events[:, :, 5] == 0))
        self.out[game, events[game, row, 1]] = True

    def posterior(self, game: int) -> Posterior:
        """The agent's exact posterior in one game."""
        if self.beliefs[game] is None:
            self.beliefs[game] = Beliefs(self.setup, int(self.seats[game]))
        return self.beliefs[game].posterior()

    def _derived(self, game: int) -> dict:
        """What the decisions read from the posterior, computed once per posterior."""
        posterior = self.posterior(game)
        cached = self._cache[game]
        if cached is None or cached[0] is not posterior:
            joint = posterior.envelope()
            cached = (posterior, {"envelope": joint, "solved": posterior.knowledge().solved()})
            self._cache[game] = cached
        return cached[1]

    def suggestion_values(self, game: int) -> np.ndarray:
        """``float[S, W, R]``: what each suggestion is worth now (bits, or probability in the ablation)."""
        derived = self._derived(game)
        if "values" not in derived:
            if self.info_suggestions:
                deals = self.posterior(game).sample_deals(self.samples, self.rng)
                derived["values"] = expected_information(self.setup, int(self.seats[game]), deals)
            else:
                derived["values"] = derived["envelope"]
        return derived["values"]

    # -- decisions ---------------------------------------------------------------

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        for i, game in enumerate(games):
            actions[i] = self._decide(state, int(game), mask[i])
        return actions

    def _decide(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay = self.rules.layout
        phase = int(state.phase[game])
        if phase == core.Phase.REFUTE:
            return self._refute(state, game, legal)
        accusation = self._accusation(state, game)
        if accusation is not None and phase in (core.Phase.TURN, core.Phase.ACCUSE) and legal[accusation]:
            return accusation
        if phase == core.Phase.SUGGEST:
            room = int(state.location[game, self.seats[game]])
            value = self.suggestion_values(game)[:, :, room]
            return lay.SUGGEST + self._argmax(value.reshape(-1))
        if phase == core.Phase.ACCUSE:
            return lay.END_TURN
        if accusation is not None:  # only here because accusing needs a room: any room will do
            room_value = np.ones(self.rules.R)
        elif self.info_suggestions:
            room_value = self.suggestion_values(game).max(axis=(0, 1))
        else:
            room_value = self._derived(game)["envelope"].sum(axis=(0, 1))
        here = int(state.location[game, self.seats[game]])
        return move_toward(
            self.rules, self.config.board, here, legal, room_value, self.move_discount, self.rng
        )

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
            last_turn = int(state.turn[game]) >= self.config.max_turns - 1
            if not last_turn and p <= self.waiting_odds(game):
                return None
            s, w, r = np.unravel_index(best, joint.shape)
        return self.rules.layout.encode("accuse", int(s), int(w), int(r))

    def waiting_odds(self, game: int) -> float:
        """The estimated chance that no opponent accuses rightly before the agent is sure."""
        turns = max(1.0, entropy_bits(self._derived(game)["envelope"]) / self.bits_per_turn)
        others = np.ones(self.config.num_players, dtype=bool)
        others[self.seats[game]] = False
        others &= ~self.out[game]
        hazard = np.minimum(
            1.0, self.hazard_per_answer * self.answers[game] + self.hazard_unrefuted * self.unrefuted[game]
        )[others]
        return math.prod(float(1.0 - h) ** turns for h in hazard)

    def _refute(self, state: core.State, game: int, legal: np.ndarray) -> int:
        lay = self.rules.layout
        cards = np.flatnonzero(legal[lay.SHOW : lay.SHOW + self.setup.deck.num_cards])
        pool = cards
        if self.refute_strategy:
            suggester = int(state.turn_player[game])
            to_them = cards[self.shown_to[game, suggester, cards]]
            to_anyone = cards[self.shown_to[game][:, cards].any(axis=0)]
            pool = to_them if len(to_them) else to_anyone if len(to_anyone) else cards
        return lay.SHOW + int(pool[self.rng.integers(len(pool))])

    def _argmax(self, values: np.ndarray) -> int:
        best = np.flatnonzero(values >= values.max() - 1e-12)
        return int(best[self.rng.integers(len(best))])
