"""The information-set MCTS agent: a search over its own decisions, from deals drawn from its posterior.

Single-observer information-set Monte Carlo tree search (Cowling, Powley and Whitehouse,
2012) on the core's compiled rollouts (``core.play_out``). At each decision with a choice,
the agent grows one tree over *its own* decisions, keyed by the sequence of its actions
from the decision (an information set of its own: what it did, not what the clone hides),
and runs ``iterations`` iterations, each:

1. **Determinisation**: a deal drawn exactly from its posterior
   (``Posterior.sample_deals``; the other players' shown cards by
   ``agents.reasoners.determinize.sample_shown``; while a suggestion is being answered,
   the posterior given the passes already announced), the game cloned and redealt from
   it (``core.clone``, ``core.redeal``, with fresh dice). ``determinization="uniform"``
   (the ablation) draws from the posterior of its records less what it did not see of
   the shows (a show between two other players keeps only its passes: the refuter no
   longer holds one of the named cards), and the clones' players keep only what the
   agent showed them.
2. **Selection and expansion**: from the root, among the candidates (below) legal in
   this clone, the one of highest PUCT score ``mean + c P sqrt(available) / (1 +
   visits)`` (``selection="puct"``): ``P`` the prior, ``prior`` for the belief agent's own
   choice (the first candidate) and the rest shared evenly by the others, so the search
   leaves the belief agent's choice only where the rollouts find another better;
   ``available`` the iterations in which the candidate was legal (the subset-armed
   bandit of IS-MCTS); an unvisited candidate's mean is the node's mean so far; ``c`` is
   ``exploration``. ``selection="ucb1"``: an untried candidate first (in the belief agent's
   order), else the highest ``mean + c sqrt(ln(available) / visits)``. The chosen action is
   played in the clone with the core's step; the descent stops at a node just expanded
   (one per iteration), at the end of the agent's turn (``end_turn``, an accusation,
   the game over), or after its suggestion: its answer changes the agent's posterior,
   which the tree does not follow (the candidates of a node come from the posterior of
   the decision searched).
3. **Simulation**: the clone played to its end in one compiled call (``core.play_out``)
   by the *simple* policy for every player (``agents.baselines.simple.simple_actions``:
   it enters rooms, suggests unseen cards and accuses only what its own observation pins
   down), the agent's own policy counting as seen the cards its posterior rules out of
   the envelope now. This is the opponent model, and the agent's model of itself after
   the tree. ``opponents="deducing"``: each other player's policy also counts as seen, in
   each deal, the holders it could deduce from the shows and passes so far
   (``agents.reasoners.determinize.deduced_seen``). ``opponent_knowledge`` > 0 gives the
   other players a head start on top (``peer_seen``): each also counts as seen random cards
   of the clone's deal out of the envelope, until it knows that many times as many as the
   agent's posterior rules out now (a reasoning opponent deduces about as much as the agent).
   ``self_guess=p``: the agent's own policy also counts as seen every card of a category but
   the most likely where that one is at least ``p`` likely (guesses, not counted in the
   opponents' head start; each of these measured worse than the default).
4. **Back-up**: the agent's final reward (+1 win, -1 loss or out, 0 truncated) added to
   every node of the descent.

The iterations run in waves of ``wave`` clones (one clone, redeal and ``play_out`` call
per wave); the nodes a wave passes are counted visited as it descends (no value yet, a
"virtual loss" of 0), so the clones of a wave spread over the candidates. It plays the
root candidate visited most (ties: the higher mean, then the belief agent's order). Each
search's root (``SearchResult``: candidates, visits, values) is kept for the decisions of
the last ``act`` (``searches``); its visit shares (``SearchResult.policy``) are the policy
targets of expert iteration (``agents.ppo.imitation``, ``experiments.imitate targets=visits``).

Candidates (the progressive limits that keep the tree narrow), the belief agent's choice first:

- **accusations**: only the posterior's most likely triple, and only when the accusation
  rule admits it this turn (``accuse_rule``): ``"risk"`` (default), where the belief agent's
  risk rule would accuse it (its probability beats the estimated chance of winning by
  waiting; it is then the belief agent's choice); ``"probability"``, where its probability
  is at least ``min_probability``. A triple the posterior is sure of is accused at once
  without search, and with the risk rule on (``risk_accusations``, the default) the most
  likely one is on the last turn before ``max_turns``, as the belief agent does (without
  it, neither accuses there). So the agent never accuses a triple its posterior does not rank
  first, and accuses it only where the rule admits it and the tree values accusing
  (``+1`` in the deals whose envelope it names, ``-1`` in the others: ``2 p - 1`` on
  average) above every way of going on;
- **suggestions**: the ``suggestions`` best of the room by the belief agent's screen of
  expected information (``screen_information``), the belief agent's own choice first (in
  the tree below the root, the screen's best);
- **movement** (and the start of a turn: roll, passage, stay): every legal action but the
  ``square`` ones (``movement="squares"``: only the square the belief agent's
  ``choose_move`` picks among them), its choice first;
- **showing**: every card it may show, the belief agent's choice first (the least revealing,
  ``agents.showing``; with ``refute_strategy=False`` one at random).

A decision with one candidate (most decisions: rolling the dice, ending a turn when no
accusation is admitted), or of a kind not in ``searched``, gets the belief agent's choice
without search. With ``time_ms`` the search also stops after the first wave that ends past
that many milliseconds; such a search depends on the machine's speed, so only the iteration
budget is deterministic under the seed (``time_ms=None``, the default).

Known biases: the simple policy is a weaker player than the agent and than its SAT or
belief opponents, so the rollouts value the future against slower opponents and a
slower self (the determinising agent's bias); the tree does not see what a suggestion's
answer would teach (it stops there and lets the rollout play on). ``docs/guides/agents.md``
has its measured strength and latency.

Games with ``auto_refute=True`` are refused (``ValueError`` from ``check_config`` and ``reset``): there
whether a refuter decided tells every player whether it held one named card or several, a fact the
posterior (hence the determinisations) does not count, so the deals would contradict what it saw.

The determinising agent (``DeterminizeAgent``, registered as ``determinize``) is a special case:
this search restricted to accusing or waiting, with its former settings (16 iterations, an
accusation a candidate where the most likely triple is at least 0.25 likely, ``ucb1`` selection,
the start and end of its turns searched); ``DETERMINIZE`` holds those options.
"""

from __future__ import annotations

import math
import time

import numpy as np

from agents.base import last_own_turn
from agents.reasoners.belief_agent import BeliefAgent, number_option
from agents.reasoners.determinize import deduced_seen, sample_shown
from cluedo_env import core
from cluedo_env.inference import NOT_HELD, Suggestion
from cluedo_env.inference.beliefs import Beliefs

__all__ = [
    "ACCUSE_RULES",
    "DECISIONS",
    "DETERMINIZATIONS",
    "DETERMINIZE",
    "OPPONENTS",
    "SEARCHED",
    "SELECTIONS",
    "DeterminizeAgent",
    "ISMCTSAgent",
    "SearchResult",
]

ACCUSE_RULES = ("risk", "probability")  # when the most likely triple's accusation is a candidate
SELECTIONS = ("puct", "ucb1")  # how a node chooses among its candidates
DETERMINIZATIONS = ("posterior", "uniform")  # where the deals come from
OPPONENTS = ("simple", "deducing")  # what the other players of the rollouts count as seen
DEALS_PER_DRAW = (
    64  # deals drawn at once (the sampler's cost is per envelope triple; a timed search draws no more)
)
DECISIONS = ("turn", "move", "suggest", "refute", "accuse")  # the kinds of decision it may search (phases)
# Searched by default: the start and end of a turn (roll, passage or stay; accuse or not). Searching
# movement, suggestions and shows too lost games against SAT agents (docs/guides/agents.md).
SEARCHED = ("turn", "accuse")
# The determinising agent's settings (``DeterminizeAgent``): accuse or wait, by rollouts.
DETERMINIZE = {
    "iterations": 16,
    "min_probability": 0.25,
    "accuse_rule": "probability",
    "selection": "ucb1",
    "searched": SEARCHED,
}


class SearchResult:
    """The root of one search: its candidates, their visits and mean values, the iterations run.

    Attributes:
        candidates: ``int[k]``: the root's candidate actions, in the belief agent's order.
        visits: ``int[k]``: iterations that chose each.
        values: ``float[k]``: each one's mean reward over its visits (0 where never visited).
        iterations: Iterations run.
        action: The action played.
    """

    def __init__(self, candidates, visits, values, iterations, action) -> None:
        self.candidates = np.asarray(candidates, dtype=np.int64)
        self.visits = np.asarray(visits, dtype=np.int64)
        self.values = np.asarray(values, dtype=np.float64)
        self.iterations = int(iterations)
        self.action = int(action)

    def policy(self) -> np.ndarray:
        """``float[k]``: each candidate's share of the root's visits (expert iteration's policy target)."""
        return self.visits / self.visits.sum()

    def __repr__(self) -> str:
        rows = ", ".join(
            f"{a}: {n} x {v:+.2f}" for a, n, v in zip(self.candidates, self.visits, self.values, strict=True)
        )
        return f"SearchResult(action={self.action}, iterations={self.iterations}, {rows})"


def _seen_only(record):
    """``record`` without the fact the observer did not see: a show between two other players becomes
    the passes before it (the form of an answer still pending: the refuter holds one of the cards no more)."""
    if isinstance(record, Suggestion) and record.shown_by is not None and record.shown_card is None:
        return Suggestion(record.suggester, record.cards, record.passed)
    return record


def _positive_int(name: str, value: object) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return int(value)


class ISMCTSAgent(BeliefAgent):
    """Information-set MCTS over its own decisions (see the module docstring).

    Args:
        seed: Seed of its generator (deals, dice of the clones, rollouts, ties).
        iterations: Iterations (determinisations, rollouts) per searched decision, an int >= 1.
        time_ms: None, or a time budget per searched decision in milliseconds (> 0): the
            search stops after the first wave that ends past it (not deterministic).
        exploration: The selection's constant ``c`` (>= 0; rewards are in [-1, 1]).
        wave: Clones played out per compiled call, an int >= 1 (at most ``iterations``).
        suggestions: Suggestions of the room searched: the screen's best, an int >= 1.
        min_probability: ``accuse_rule="probability"``: an accusation is a candidate only when
            the most likely triple is at least this likely (in [0, 1]).
        accuse_rule: When the most likely triple's accusation is a candidate (``ACCUSE_RULES``):
            ``"risk"``, where the belief agent's risk rule would accuse; ``"probability"``.
        selection: ``"puct"`` (the belief agent's choice as prior) or ``"ucb1"`` (``SELECTIONS``).
        prior: ``"puct"``: the prior of the belief agent's choice, in (0, 1]; the other
            candidates share the rest.
        searched: The kinds of decision searched, a list or tuple of ``DECISIONS`` (``"turn"``,
            ``"move"``, ``"suggest"``, ``"refute"``, ``"accuse"``, the phases; default ``SEARCHED``:
            ``"turn"`` and ``"accuse"``); the others get the belief agent's choice.
        determinization: ``"posterior"`` (exact) or ``"uniform"`` (``DETERMINIZATIONS``; see the
            module docstring).
        opponents: The other players' knowledge in the rollouts (``OPPONENTS``): ``"simple"``, the
            cards they saw; ``"deducing"``, also the holders each one can deduce in the deal from
            the shows and passes so far (``agents.reasoners.determinize.deduced_seen``).
        opponent_knowledge: The rollouts' opponent model (in [0, 4]): each other player of a clone
            starts its rollout counting as seen, besides its hand and the cards shown to it, cards
            of the clone's deal out of the envelope drawn at random, up to this times as many as the
            agent's posterior rules out of the envelope now, ``self_guess``'s guesses not counted
            (``peer_seen``); 0: only what it has seen.
        self_guess: None, or a probability in (0, 1]: the agent's own rollout policy also counts as
            seen every card of a category but the most likely one where that one is at least this
            likely (a self that accuses before certainty, wrongly where the guess is wrong).
        **options: The belief agent's options (``move_discount``, ``exact_candidates``,
            ``refute_strategy``, ``risk_accusations``, ...), used for its preferences and its fast
            paths: a decision not searched is the belief agent's with these options. It refuses
            ``auto_refute=True`` games.
    """

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        iterations: int = 64,
        time_ms: float | None = None,
        exploration: float = 1.0,
        wave: int = 16,
        suggestions: int = 3,
        min_probability: float = 0.3,
        accuse_rule: str = "risk",
        selection: str = "puct",
        prior: float = 0.8,
        searched: tuple[str, ...] | list[str] = SEARCHED,
        determinization: str = "posterior",
        opponents: str = "simple",
        opponent_knowledge: float = 0.0,
        self_guess: float | None = None,
        **options,
    ) -> None:
        super().__init__(seed, **options)
        self.iterations = _positive_int("iterations", iterations)
        self.wave = _positive_int("wave", wave)
        self.suggestions = _positive_int("suggestions", suggestions)
        if time_ms is not None:
            number_option("time_ms", time_ms, "None or a number of milliseconds > 0", lambda x: x > 0)
        number_option("exploration", exploration, "a finite number >= 0", lambda x: 0 <= x < math.inf)
        number_option("min_probability", min_probability, "in [0, 1]", lambda x: 0 <= x <= 1)
        self.time_ms = None if time_ms is None else float(time_ms)
        self.exploration = float(exploration)
        if accuse_rule not in ACCUSE_RULES:
            raise ValueError(f"accuse_rule must be one of {ACCUSE_RULES}, got {accuse_rule!r}")
        self.min_probability = float(min_probability)
        self.accuse_rule = accuse_rule
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
        number_option("prior", prior, "a number in (0, 1]", lambda x: 0 < x <= 1)
        self.selection = selection
        self.prior = float(prior)
        if not isinstance(searched, list | tuple) or not all(kind in DECISIONS for kind in searched):
            raise ValueError(f"searched must be a list of decision kinds among {DECISIONS}, got {searched!r}")
        self.searched = tuple(searched)
        if determinization not in DETERMINIZATIONS:
            raise ValueError(f"determinization must be one of {DETERMINIZATIONS}, got {determinization!r}")
        self.determinization = determinization
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {OPPONENTS}, got {opponents!r}")
        self.opponents = opponents
        number_option("opponent_knowledge", opponent_knowledge, "a number in [0, 4]", lambda x: 0 <= x <= 4)
        self.opponent_knowledge = float(opponent_knowledge)
        if self_guess is not None:
            number_option("self_guess", self_guess, "None or a probability in (0, 1]", lambda x: 0 < x <= 1)
        self.self_guess = None if self_guess is None else float(self_guess)
        self._phases = {DECISIONS.index(kind) for kind in self.searched}  # the phases' numbers
        self.last_search: SearchResult | None = None
        self.searches: list[SearchResult | None] = []

    def check_config(self, config: core.GameConfig) -> None:
        """Raise ``ValueError`` for ``auto_refute=True`` (the module docstring); ``reset`` calls it too."""
        core.require_sampled_view(config, self.name)

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self.check_config(config)
        super().reset(config, seats, seed)

    # -- decisions ---------------------------------------------------------------

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One decision per game, in order (as ``GameByGameAgent.act``); ``searches`` then holds each
        one's search, None where the decision was not searched."""
        actions = np.empty(len(games), dtype=np.int64)
        self.searches = []
        for i, game in enumerate(games):
            before = self.last_search
            actions[i] = self.decide(state, int(game), mask[i])
            self.searches.append(None if self.last_search is before else self.last_search)
        return actions

    def decide(self, state: core.State, game: int, legal: np.ndarray) -> int:
        if int(state.phase[game]) in (core.Phase.TURN, core.Phase.ACCUSE):
            sure = self._derived(game)["solved"] is not None
            accusation = self.rules.layout.ACCUSE + int(self._derived(game)["envelope"].argmax())
            last_turn = self.risk_accusations and last_own_turn(state, game)  # the belief agent's rule
            if (sure or last_turn) and legal[accusation]:
                return accusation
        accuse = self.may_accuse(state, game)
        candidates = self._candidates(state, game, game, legal, accuse, root=True)
        if len(candidates) == 1 or int(state.phase[game]) not in self._phases:
            return candidates[0]  # the belief agent's choice
        return self.search(state, game).action

    def may_accuse(self, state: core.State, game: int) -> bool:
        """Whether the most likely triple's accusation is a candidate of this turn's decisions:
        ``accuse_rule="risk"``, where the belief agent's risk rule would accuse it (its chance beats
        the estimated chance of winning by waiting); ``"probability"``, where its chance is at least
        ``min_probability``."""
        if self.accuse_rule == "risk":
            return self._accusation(state, game) is not None  # the belief agent's rule
        return float(self._derived(game)["envelope"].max()) >= self.min_probability

    def search(self, state: core.State, game: int) -> SearchResult:
        """Search the agent's decision in game ``game`` (see the module docstring); the result is
        also kept as ``last_search``."""
        seat = int(self.seats[game])
        accuse = self.may_accuse(state, game)
        candidates = self._candidates(
            state, game, game, core.legal_action_mask(state)[game], accuse, root=True
        )
        posterior = self._sampled_posterior(state, game)
        records = self.beliefs[game].records if self.beliefs[game] is not None else ()
        ruled_out = self.posterior(game).knowledge().status[:, self.setup.envelope] == NOT_HELD
        guessed = np.zeros((self.config.num_players, ruled_out.size), bool)  # self_guess's, the agent's row
        if self.self_guess is not None:  # the rest of a category whose most likely card is likely enough
            joint = self._derived(game)["envelope"]
            for axis, cards in enumerate(self.setup.deck.categories):
                marginal = joint.sum(axis=tuple(k for k in range(3) if k != axis))
                if marginal.max() >= self.self_guess:
                    guessed[seat, np.asarray(cards)[np.arange(len(cards)) != marginal.argmax()]] = True
        tree: dict[tuple[int, ...], dict[int, list]] = {}
        start, done, drawn = time.perf_counter(), 0, 0
        block = max(self.wave, DEALS_PER_DRAW)
        while done < self.iterations:
            if done == drawn:  # the next block of determinisations
                deals, shown, seeds = self._determinizations(
                    posterior, records, seat, min(block, self.iterations - done)
                )
                if self.opponents == "deducing":
                    seen = deduced_seen(self.setup, seat, records, deals, shown)
                else:
                    seen = np.zeros(
                        (len(deals), self.config.num_players, self.setup.deck.num_cards), dtype=bool
                    )
                seen[:, seat] = ruled_out
                first, drawn = done, done + len(deals)
            n = min(self.wave, drawn - done)
            wave = slice(done - first, done - first + n)
            clones = core.redeal(
                core.clone(state, game, n), seat, deals[wave], seeds[wave], shown=shown[wave]
            )
            masks = core.legal_action_mask(clones)
            paths = [self._descend(clones, masks, i, game, tree, candidates, accuse) for i in range(n)]
            keys = self.rng.integers(0, core.SEED_BOUND, size=n, dtype=np.int64)
            known = seen[wave]
            if self.opponent_knowledge:
                known = self.peer_seen(known, seat, deals[wave], shown[wave])
            if guessed.any():  # (after peer_seen: its target counts what the posterior rules out)
                known = known | guessed
            core.play_out(clones, keys, seen=known, stop_when_out=seat)
            rewards = core.final_rewards(clones)[:, seat].astype(np.float64)
            rewards[clones.eliminated[:, seat]] = -1.0
            for path, reward in zip(paths, rewards.tolist(), strict=True):
                for key, action in path:
                    tree[key][action][1] += reward
            done += n
            if self.time_ms is not None and (time.perf_counter() - start) * 1e3 > self.time_ms:
                break
        root = tree[()]
        visits = [root[a][0] for a in candidates]
        values = [root[a][1] / root[a][0] if root[a][0] else 0.0 for a in candidates]
        best = max(range(len(candidates)), key=lambda k: (visits[k], values[k], -k))
        self.last_search = SearchResult(candidates, visits, values, done, candidates[best])
        return self.last_search

    def peer_seen(self, seen: np.ndarray, seat: int, deals: np.ndarray, shown: np.ndarray) -> np.ndarray:
        """``bool[n, P, C]``: ``seen`` (``[n, P, C]``: what each player of each clone counts as seen; the
        agent's row, what it rules out of the envelope), and for every other player cards out of the
        envelope in the clone's deal (``deals``: ``int[n, C]`` owner codes; ``shown``: ``int8[n, P, C]``,
        ``sample_shown``'s), drawn at random among those it has not seen, until it knows
        ``opponent_knowledge`` times as many as the agent (at most all of them)."""
        n, P, C = seen.shape
        target = np.minimum(
            np.round(self.opponent_knowledge * seen[:, seat].sum(axis=1)).astype(np.int64), C - 3
        )
        outside = (deals != core.ENVELOPE)[:, None, :]  # [n, 1, C]
        known = (deals[:, None, :] == np.arange(P)[None, :, None]) | (shown >= 0) | seen  # [n, P, C]
        fresh = outside & ~known
        need = np.maximum(target[:, None] - (known & outside).sum(axis=2), 0)  # [n, P]
        need[:, seat] = 0
        order = np.where(fresh, self.rng.random((n, P, C)), 2.0).argsort(axis=2).argsort(axis=2)
        return seen | (fresh & (order < need[:, :, None]))

    def _determinizations(self, posterior, records, seat: int, n: int):
        """``n`` deals from ``posterior`` in random order (the sampler groups them by envelope triple),
        the other players' shown cards in each, and the clones' dice seeds."""
        deals = posterior.sample_deals(n, self.rng)
        deals = deals[self.rng.permutation(len(deals))]
        if self.determinization == "posterior":
            shown = sample_shown(self.setup, seat, records, deals, self.rng)
        else:  # a refuter may hold none of the cards it showed: the clones' players keep only what it showed them
            shown = np.full((n, self.config.num_players, self.setup.deck.num_cards), -1, dtype=np.int8)
        return deals, shown, self.rng.integers(0, core.SEED_BOUND - 1, size=n, dtype=np.int64)

    def _sampled_posterior(self, state: core.State, game: int):
        """The posterior the deals are drawn from: the agent's, and the passes of a suggestion still
        being answered (public in the state, not yet in its records, which a suggestion enters whole)."""
        beliefs = self._beliefs(game)
        if self.determinization == "uniform":
            derived = self._derived(game)
            if "uniform" not in derived:  # its records less what it did not see of the shows
                derived["uniform"] = Beliefs(
                    self.setup, int(self.seats[game]), map(_seen_only, beliefs.records)
                )
            beliefs = derived["uniform"]
        passed = state.passed[game]  # [P, C]
        if not passed.any():
            return beliefs.posterior()
        allowed = np.ones((self.setup.deck.num_cards, self.setup.num_owners), dtype=bool)
        for q in range(self.config.num_players):
            allowed[passed[q], self.setup.column(q)] = False
        given = beliefs.given(allowed)
        if given is None:
            raise ValueError(f"game {game}: the public passes contradict the agent's records")
        return given

    def _descend(
        self, clones, masks, i, game, tree, root_candidates, accuse
    ) -> list[tuple[tuple[int, ...], int]]:
        """Select and expand down the tree in clone ``i``, stepping it; the ``(node, action)`` path."""
        seat, lay = int(self.seats[game]), self.rules.layout
        stops = (
            lay.SUGGEST,
            lay.SUGGEST + lay.sizes["suggest"],
            lay.ACCUSE,
            lay.ACCUSE + lay.sizes["accuse"],
        )
        actions = np.zeros(clones.batch_size, dtype=np.int64)
        key: tuple[int, ...] = ()
        path = []
        while clones.phase[i] != core.Phase.OVER and int(clones.current_player[i]) == seat:
            here = root_candidates if not key else self._candidates(clones, game, i, masks[i], accuse)
            node = tree.setdefault(key, {})
            for action in here:
                node.setdefault(action, [0, 0.0, 0])[2] += 1
            action = self._select(node, here)
            untried = node[action][0] == 0
            node[action][0] += 1
            path.append((key, action))
            actions[i] = action
            core.step(clones, actions, check=False, games=[i], mask=masks)
            key = (*key, action)
            informed = stops[0] <= action < stops[1] or stops[2] <= action < stops[3]
            if untried or informed or action == lay.END_TURN:
                break
        return path

    def _select(self, node: dict[int, list], here: list[int]) -> int:
        """The candidate to follow among ``here`` (the belief agent's order; each child's stats are
        ``[visits, total reward, times available]``): see the module docstring."""
        c = self.exploration
        if self.selection == "ucb1":
            for action in here:  # an untried one first
                if node[action][0] == 0:
                    return action
            return max(  # the first of ties, in the belief agent's order
                here,
                key=lambda a: node[a][1] / node[a][0] + c * math.sqrt(math.log(node[a][2]) / node[a][0]),
            )
        visits = sum(node[a][0] for a in here)
        first = sum(node[a][1] for a in here) / visits if visits else 0.0  # an unvisited child's value
        rest = (1.0 - self.prior) / (len(here) - 1) if len(here) > 1 else 0.0
        best, best_score = here[0], -math.inf
        for k, action in enumerate(here):
            n, total, available = node[action]
            score = (total / n if n else first) + c * (self.prior if k == 0 else rest) * math.sqrt(
                available
            ) / (1 + n)
            if score > best_score:
                best, best_score = action, score
        return best

    def _candidates(
        self, state: core.State, game: int, at: int, legal: np.ndarray, accuse: bool, root: bool = False
    ) -> list[int]:
        """The candidate actions of the agent's decision in game ``at`` of ``state`` (a clone's
        index in the search; ``game`` itself at the root), in the belief agent's order, its
        choice first (see the module docstring); ``game``: the real game (its posterior); ``root``:
        the decision searched (its suggestion is the belief agent's, counted exactly)."""
        rules, lay = self.rules, self.rules.layout
        phase = int(state.phase[at])
        seat = int(self.seats[game])
        if phase == core.Phase.REFUTE:
            cards = np.flatnonzero(legal[lay.SHOW : lay.SHOW + rules.C])
            first = self.card_to_show(game, cards, int(state.turn_player[at]))
            return [lay.SHOW + int(first)] + [lay.SHOW + int(c) for c in cards if c != first]
        if phase == core.Phase.SUGGEST:
            room = int(state.location[at, seat])
            screen = self.screen(game)[:, :, room].reshape(-1)
            if root:  # the root: the belief agent's exact choice first
                s, w = self._suggestion(game, room)
                chosen = int(s) * rules.W + int(w)
            else:  # in the tree, the screen's best (counting exactly in every room reached costs too much)
                chosen = int(np.argmax(screen))
            ranked = [int(q) for q in np.argsort(-screen, kind="stable") if q != chosen]
            order = [lay.SUGGEST + q for q in [chosen, *ranked[: self.suggestions - 1]]]
            return [a for a in order if legal[a]] or [int(np.flatnonzero(legal)[0])]
        joint = self._derived(game)["envelope"]
        accusation = lay.ACCUSE + int(joint.argmax())
        going_on = legal.copy()
        going_on[lay.ACCUSE : lay.ACCUSE + lay.sizes["accuse"]] = False
        order: list[int] = []
        if phase == core.Phase.ACCUSE:
            order = [lay.END_TURN] if going_on[lay.END_TURN] else []
        elif going_on.any():
            preferred = int(
                self.walk(state, at, seat, going_on, self.room_values(game, accusation if accuse else None))
            )
            going_on[lay.offsets["square"] : lay.offsets["square"] + lay.sizes["square"]] = False
            order = [preferred] + [int(a) for a in np.flatnonzero(going_on) if a != preferred]
        if accuse and legal[accusation]:  # the belief agent's choice under its risk rule
            order = [accusation, *order] if self.accuse_rule == "risk" else [*order, accusation]
        return order or [int(np.flatnonzero(legal)[0])]


class DeterminizeAgent(ISMCTSAgent):
    """The determinising agent: the search restricted to accusing or waiting (``DETERMINIZE``).

    Args:
        seed: Seed of its generator.
        samples: Deals drawn, hence rollouts, per searched decision (``iterations``).
        **options: ``ISMCTSAgent``'s other options, over ``DETERMINIZE``'s; it refuses ``auto_refute=True`` too.
    """

    name = "determinize"

    def __init__(self, seed: int = 0, samples: int = DETERMINIZE["iterations"], **options) -> None:
        if "iterations" in options:
            raise ValueError("determinize takes samples (its iterations), not iterations; give samples only")
        super().__init__(seed, **{**DETERMINIZE, "iterations": _positive_int("samples", samples), **options})

    def _candidates(
        self, state: core.State, game: int, at: int, legal: np.ndarray, accuse: bool, root: bool = False
    ) -> list[int]:
        """The search's candidates restricted to accusing or waiting: at the start or the end of the turn
        searched, the belief agent's choice and the accusation (where it is a candidate), so a turn with
        no accusation in view is not searched; its later decisions in the tree, the belief agent's
        choice alone."""
        order = super()._candidates(state, game, at, legal, accuse, root)
        if not root:
            return order[:1]
        if int(state.phase[at]) not in (core.Phase.TURN, core.Phase.ACCUSE):
            return order
        accusations = range(
            self.rules.layout.ACCUSE, self.rules.layout.ACCUSE + self.rules.layout.sizes["accuse"]
        )
        waiting = next((a for a in order if a not in accusations), None)
        return [a for a in order if a in accusations or a == waiting]
