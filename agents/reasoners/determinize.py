"""Determinisation from a player's view: the other players' shown cards of a sampled deal, and rollouts.

The helpers of the simulation API's example (``docs/simulation.md``) and of the search agent
(``agents.reasoners.ismcts``): ``sample_shown`` draws, in deals sampled from a player's posterior,
the cards it did not see shown between other players (for ``core.redeal``'s ``shown``);
``rollout_values`` plays clones to their end with the compiled simple policy (``core.play_out``)
and reads one player's final reward.

The determinising agent that lived here (the belief agent deciding when to accuse by the mean of
such rollouts) is now a special case of the search agent: ``make_agent("determinize")`` builds
``agents.reasoners.ismcts.DeterminizeAgent``, the IS-MCTS agent restricted to its accuse-or-wait
decision with the former settings (``docs/guides/agents.md``). Like the search, it refuses games
with ``auto_refute=True``, where whether a refuter decided is a fact of a player's view that the
posterior's deals, and these helpers, do not count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cluedo_env import core
from cluedo_env.inference import Record, Setup, Suggestion

__all__ = ["deduced_seen", "rollout_values", "sample_shown"]


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


def deduced_seen(
    setup: Setup,
    player: int,
    records: Sequence[Record],
    deals: np.ndarray,
    shown: np.ndarray,
    rounds: int = 2,
) -> np.ndarray:
    """The cards each other player can place outside the envelope in each deal, for ``core.play_out``'s ``seen``.

    A model of deducing opponents for rollouts from ``player``'s determinisations: in a deal,
    each other player ``q`` knows its hand and the cards shown to it (``shown``, and those
    ``player`` showed it, in ``player``'s records); a show between two others names three
    cards, and where ``q`` can rule out all but one of them for the refuter (its passes, a
    holder ``q`` knows), ``q`` knows the refuter holds that one. ``rounds`` passes over the
    shows (a card placed can pin another). Row ``player`` is left False (its own knowledge is
    the caller's).

    Args:
        setup: The game's set-up.
        player: The observer whose records these are.
        records: Its records (``Beliefs.records``), in order.
        deals: ``int[n, C]`` deals consistent with the records (owner codes).
        shown: ``int8[n, P, C]``: the other players' shown cards in each deal (``sample_shown``).
        rounds: Passes over the shows, an int >= 0.

    Returns:
        ``bool[n, P, C]``: ``True`` where player ``q`` knows who holds card ``c`` in deal ``b``.
    """
    deals = np.asarray(deals)
    P = setup.num_players
    seats = np.arange(P)[None, :, None]
    holder = np.where(deals[:, None, :] == seats, seats, -1).astype(np.int8)  # [n, P, C]: the holder q knows
    holder = np.where(np.asarray(shown) >= 0, shown, holder)
    passed = np.zeros((P, setup.deck.num_cards), dtype=bool)  # public: q said it holds none of c
    shows = []
    for record in records:
        if not isinstance(record, Suggestion):
            continue
        passed[np.ix_(list(record.passed), record.cards)] = True
        if record.shown_by == player and record.shown_card is not None:  # what it showed the suggester
            holder[:, record.suggester, record.shown_card] = player
        elif record.shown_by is not None:
            shows.append((record.suggester, record.shown_by, np.array(record.cards)))
    for _ in range(rounds):
        for suggester, refuter, cards in shows:
            known = holder[:, :, cards]  # [n, P, 3]
            possible = ~passed[refuter, cards] & ((known < 0) | (known == refuter))
            learns = (possible.sum(axis=2) == 1) & ~(known == refuter).any(axis=2)
            learns[:, [suggester, refuter, player]] = False
            b, q = np.nonzero(learns)
            holder[b, q, cards[np.argmax(possible[b, q], axis=1)]] = refuter
    seen = holder >= 0
    if setup.num_face_down == 0:  # a card no other player can hold, nor ``q``, is in the envelope
        others = np.ones((P, P), dtype=bool) ^ np.eye(P, dtype=bool)  # [q, r]: r is not q
        nobody = ~((others[:, :, None] & ~passed[None]).any(axis=1))  # [q, C]: every other passed on c
        envelope = nobody[None] & (holder < 0) & (deals[:, None, :] != seats)  # [n, P, C]
        for category in setup.deck.categories:  # the rest of its category is then out of the envelope
            cards = np.asarray(category)
            seen[:, :, cards] |= envelope[:, :, cards].any(axis=2, keepdims=True) & ~envelope[:, :, cards]
    seen[:, player] = False
    return seen


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
