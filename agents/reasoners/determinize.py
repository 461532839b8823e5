"""The determinising agent: when to accuse, by simulating the game from its own view.

An example of the core's simulation API (``core.clone``, ``core.redeal``;
``docs/simulation.md``). It plays like the belief agent (``agents.reasoners.belief_agent``:
exact posterior, suggestions by expected information, refutations that reveal
least), except for the one decision it simulates: accuse now, or wait.

At each decision where it may accuse (start and end of its turn), the
candidates are the legal actions: every accusation, and going on without one.
Each is worth its mean final reward (+1 win, -1 loss, 0 truncated) over
``samples`` deals drawn exactly from its posterior (determinisations):

- an accusation ends the agent's game at once: +1 in the deals whose envelope
  it names, -1 in the others, whatever happens next. Its mean over the sampled
  deals estimates ``2 p - 1`` (``p`` its probability); the posterior gives that
  value exactly, so the agent uses it, and only the most likely triple can be
  the best accusation;
- going on: ``samples`` clones of the game, redealt from the sampled deals
  (``core.redeal``, with the other players' shown cards drawn by
  ``sample_shown``), played to the end in one compiled call (``core.play_out``) by
  the simple policy of ``agents.baselines.simple.simple_actions`` for every player
  (random useful moves, suggesting unseen cards, accusing only what its own
  observation pins down; the agent's policy also counts as seen
  the cards its posterior rules out of the envelope now), the agent's first
  action being its non-accusing one. A clone in which the agent is out is
  worth -1 at once.

It accuses when that beats waiting. Rollouts cost a few thousand compiled
steps, so they run only where accusing might win: the most likely
triple's probability at least ``min_probability`` (below it, accusing is worth
less than ``2 * min_probability - 1``, which waiting rarely is), and once per
posterior and turn. A certain triple (probability 1) is accused at once; on
the last turn before ``max_turns`` it accuses the most likely one, as the
belief agent does.

Known biases of the rollouts: every player in them plays the simple policy,
slower than the agent itself (which reads every deduction) and than a SAT
opponent, so the value of waiting is estimated against weaker opponents and
a weaker self.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.reasoners.belief_agent import BeliefAgent
from cluedo_env import core
from cluedo_env.inference import NOT_HELD, Record, Setup, Suggestion

__all__ = ["DeterminizeAgent", "rollout_values", "sample_shown"]


def sample_shown(
    setup: Setup, player: int, records: Sequence[Record], deals: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The other players' shown cards in each deal, for ``core.redeal``'s ``shown``.

    Each show ``player`` did not see (another refuter, another suggester) gets one of
    the named cards the refuter holds in the deal, each equally likely.

    Args:
        setup: The game's set-up.
        player: The observer whose records these are.
        records: Its records (``Beliefs.records``), in order.
        deals: ``int[n, C]`` deals consistent with the records (owner codes, as ``Posterior.sample_deals`` gives).
        rng: The generator of the choices.

    Returns:
        ``int8[n, P, C]``: ``shown[b, q, c] = r`` when ``r`` showed ``q`` card ``c``, else -1.
    """
    deals = np.asarray(deals)
    n, P = len(deals), setup.num_players
    shown = np.full((n, P, setup.deck.num_cards), -1, dtype=np.int8)
    rows = np.arange(n)
    for record in records:
        if not isinstance(record, Suggestion) or record.shown_by is None:
            continue
        refuter, suggester = record.shown_by, record.suggester
        if player in (refuter, suggester):
            continue
        named = np.array(record.cards)
        holds = deals[:, named] == refuter  # [n, 3]
        if not holds.any(axis=1).all():
            raise ValueError(f"a deal gives player {refuter} none of {record.cards}, which it showed")
        # The k-th named card it holds, k uniform over how many it holds.
        pick = (rng.random(n) * holds.sum(axis=1)).astype(np.int64)
        which = np.argmax(np.cumsum(holds, axis=1) > pick[:, None], axis=1)
        shown[rows, suggester, named[which]] = refuter
    return shown


def rollout_values(
    clones: core.State,
    player: int,
    rng: np.random.Generator,
    first: np.ndarray | None = None,
    ruled_out: np.ndarray | None = None,
    max_steps: int = 100_000,
) -> np.ndarray:
    """``float[n]``: ``player``'s final reward in each clone, played on by the simple policy.

    The clones are played out in one compiled call (``core.play_out``: the compiled
    ``simple_actions``, every player), each from its own key drawn from ``rng``.

    Args:
        clones: Games to play on (updated in place); some may be over already.
        player: Whose reward counts; a clone where it is out is over for it: -1.
        rng: The generator of the rollouts' keys.
        first: ``bool[A]``: the actions allowed in the clones' first decision (None: all).
        ruled_out: ``bool[C]`` cards ``player`` knows are not in the envelope: its policy
            reads them as seen (the simple policy otherwise knows only the cards it saw).
        max_steps: A bound on the steps (the games end by ``max_turns`` well before).
    """
    config = clones.config
    seen = None
    if ruled_out is not None:
        seen = np.zeros((config.num_players, config.cards.num_cards), dtype=bool)
        seen[player] = ruled_out
    over = clones.done.copy()
    value = np.where(over, clones.rewards[:, player], 0.0).astype(np.float64)  # this step's, if it ended them
    keys = rng.integers(0, core.SEED_BOUND, size=clones.batch_size, dtype=np.int64)
    core.play_out(clones, keys, first=first, seen=seen, stop_when_out=player, max_steps=max_steps)
    value[~over] = core.final_rewards(clones)[~over, player]
    value[~over & clones.eliminated[:, player]] = -1.0
    return value


class DeterminizeAgent(BeliefAgent):
    """The belief agent, deciding when to accuse by simulation (see the module docstring).

    Args:
        seed: Seed of its generator (deals drawn, rollouts, ties).
        samples: Deals drawn, hence rollouts, per evaluation of waiting.
        min_probability: Roll out only when the most likely triple is at least this likely.
        **options: The belief agent's other options (``move_discount``, ...).
    """

    name = "determinize"

    def __init__(self, seed: int = 0, samples: int = 16, min_probability: float = 0.25, **options) -> None:
        super().__init__(seed, **options)
        if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"samples must be an int >= 1, got {samples!r}")
        if not 0.0 <= min_probability <= 1.0:
            raise ValueError(f"min_probability must be in [0, 1], got {min_probability!r}")
        self.rollouts = samples
        self.min_probability = min_probability

    def _accusation(self, state: core.State, game: int) -> int | None:
        derived = self._derived(game)
        joint = derived["envelope"]
        best = int(joint.argmax())
        p = float(joint.reshape(-1)[best])
        accusation = self.rules.layout.ACCUSE + best  # the accuse range is (s, w, r) in this order
        last_turn = int(state.turn[game]) >= self.config.max_turns - 1
        if derived["solved"] is not None or last_turn:
            return accusation
        if p < self.min_probability:
            return None
        key = ("wait", int(state.turn[game]))
        if key not in derived:
            derived[key] = float(self.waiting_values(state, game).mean())
        return accusation if 2.0 * p - 1.0 > derived[key] else None

    def waiting_values(self, state: core.State, game: int) -> np.ndarray:
        """``float[samples]``: the agent's final reward in each rollout where it does not accuse now."""
        seat = int(self.seats[game])
        posterior = self.posterior(game)
        deals = posterior.sample_deals(self.rollouts, self.rng)  # in the core's owner codes
        records = self.beliefs[game].records if self.beliefs[game] is not None else ()
        shown = sample_shown(self.setup, seat, records, deals, self.rng)
        seeds = self.rng.integers(0, core.SEED_BOUND - 1, size=len(deals), dtype=np.int64)
        clones = core.redeal(core.clone(state, game, len(deals)), seat, deals, seeds, shown=shown)
        layout = self.rules.layout
        first = np.ones(layout.num_actions, dtype=bool)
        first[layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
        ruled_out = posterior.knowledge().status[:, self.setup.envelope] == NOT_HELD
        return rollout_values(clones, seat, self.rng, first, ruled_out)
