"""Simulation from a player's view: clone a game, then redeal what that player cannot see.

Search agents (determinisation, information-set MCTS) play many possible
continuations of the game they are in. ``clone`` copies one game of a batch
into a batch of ``n`` identical games; ``redeal`` then replaces, in those
clones, everything a given player cannot see by deals the caller supplies, so
that each clone is a full game consistent with that player's knowledge, which
the core's ``step`` plays on like any other::

    clones = core.clone(state, game, n)
    core.redeal(clones, player, deals, seeds)  # deals: int8[n, C]; seeds: n ints
    # ... core.step(clones, actions) to the end of the games

What ``redeal`` replaces (the hidden fields of ``State``):

- who holds every card the player has not seen (``_owner``), the envelope
  (``_envelope``), and the face-down cards on rooms (``_face_down``, duel):
  from ``deals``, which must agree with what the player knows;
- the dice to come: the game's random key (``_key``) and ``seed`` are those of
  ``seeds`` (``seed`` is public in the state, but the deal is a function of
  it, so it goes too); the draw counter (``_draws``, how many dice were rolled)
  is public and stays;
- the other players' private knowledge: ``_shown_to`` (who showed them which
  card) keeps only what the player knows (the cards it showed them itself) plus
  what the caller supplies in ``shown``, consistent with the deal; ``_peeked``
  (duel: the face-down cards they looked at) follows the deal, room by room
  (which rooms each player looked at is public);
- the last step's events (``events``): cards the player cannot see are
  rewritten from the new deal (other players' ``DEAL`` and ``PEEK`` cards, the
  card of a ``SHOW`` between two other players).

Everything else (pawns, weapons, turn, phase, passes, shows and accusations as
public facts, the player's own hand and what it has seen) is public or the
player's own and stays as it is. The result depends only on the player's view
of the source game, ``deals``, ``seeds``, ``face_down`` and ``shown``: nothing
of the true hidden cards passes into the clones (``tests/core/test_simulate.py``
checks this, and that a clone given the true deal and seed replays exactly).

Where deals come from: ``cluedo_env.inference.beliefs.Posterior.sample_deals(n, rng)`` draws
deals exactly from a player's posterior, in this module's owner codes (players
``0..P-1``, ``ENVELOPE``, ``FACE_DOWN``: the inference library uses the same). The core checks the facts the state holds per card (the
player's hand, cards shown to or peeked at by it, public passes, wrong
accusations); the facts it holds only as events ("somebody showed one of these
three cards") are the sampler's to honour. With ``auto_refute=True`` the player also
knows, from the steps, whether each refuter decided (a step of its own: it held several
named cards) or not (one), which no event and no record holds: ``sample_deals`` does not
count it, so its deals can contradict the player's view there, and
``core.rollout(player=...)`` and the search agents refuse such games.
"""

from __future__ import annotations

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.config import GameConfig
from cluedo_env.core.game import check_seeds
from cluedo_env.core.rng import draw, game_key
from cluedo_env.core.rules import SHUFFLE_DRAWS
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase, State

__all__ = ["clone", "redeal", "require_sampled_view"]


def require_sampled_view(config: GameConfig, who: str, hint: str = "") -> None:
    """Refuse rules under which deals drawn from a player's posterior can contradict what it saw.

    With ``auto_refute=True`` whether a refuter decided is public and tells whether it held exactly one
    named card, which no event and no record holds, so ``Posterior.sample_deals`` does not count it (the
    module docstring). The search agents, ``core.rollout(player=...)`` and the OpenSpiel resampler call this.

    Raises:
        ValueError: ``"<who> needs auto_refute=False, got auto_refute=True: ..."`` and ``hint``.
    """
    if config.auto_refute:
        raise ValueError(
            f"{who} needs auto_refute=False, got auto_refute=True: whether a refuter decided tells how many "
            f"named cards it holds, which deals drawn from the posterior do not count{hint}"
        )


def clone(state: State, game: int, n: int) -> State:
    """``n`` copies of game ``game`` of ``state``: every field, its randomness and last events included.

    Args:
        state: A batch of games (left unchanged).
        game: The index of the game to copy, in ``[0, state.batch_size)``.
        n: How many copies, an int >= 1.

    Returns:
        A new state of ``n`` games, each equal to game ``game`` of ``state``: stepped
        with the same actions they play exactly as it would.
    """
    if not isinstance(game, int | np.integer) or isinstance(game, bool) or not 0 <= game < state.batch_size:
        raise ValueError(f"game must be an int in [0, {state.batch_size}), got {game!r}")
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    return state.take(np.full(int(n), int(game), dtype=np.int64))


def redeal(
    state: State,
    player: int,
    deals: np.ndarray,
    seeds: np.ndarray | list[int],
    *,
    face_down: np.ndarray | None = None,
    shown: np.ndarray | None = None,
) -> State:
    """Replace, in every game of ``state``, what ``player`` cannot see (in place; see the module docstring).

    Args:
        state: Games still in play (clones of one game, usually); updated in place and returned.
        player: The player whose view the games keep.
        deals: ``int[B, C]``: the owner of every card in each game: a player ``0..P-1``,
            ``ENVELOPE`` (-1) or ``FACE_DOWN`` (-2). Each player keeps its hand size, the
            envelope holds one card of each category, and the player's own hand, the
            cards shown to it and those it peeked at stay where it knows them to be.
        seeds: ``B`` integer seeds in ``[0, 2**63)``: the randomness to come (dice).
        face_down: ``int[B, R]`` (duel): the card lying face down on each room (-1 none),
            the ``FACE_DOWN`` cards of ``deals`` on the rooms that hold face-down cards
            now, those the player peeked at on their rooms. None: the cards it has not
            peeked at go on the other such rooms in a random order drawn from ``seeds``,
            the order the game's own deal from that seed lays them in (for either ``deal``).
        shown: ``int[B, P, C]``: who showed each other player each card (-1 nobody),
            consistent with ``deals`` (``shown[b, q, c] = r`` needs ``deals[b, c] == r``).
            The cards ``player`` showed them are known to it and kept (-1 there is fine);
            row ``player`` is ignored (its own knowledge stays). None: nothing more.

    Returns:
        ``state``, redealt.

    Raises:
        ValueError: Naming the game and the fact, for arrays of the wrong shape or values,
            finished games, or a deal that contradicts what ``player`` knows.
        TypeError: Arrays that are not integers.
    """
    config = state.config
    B, P, C = state.batch_size, config.num_players, config.cards.num_cards
    S, W = config.cards.num_suspects, config.cards.num_weapons
    if not isinstance(player, int | np.integer) or isinstance(player, bool) or not 0 <= player < P:
        raise ValueError(f"player must be an int in [0, {P}), got {player!r}")
    player = int(player)
    if state.done.any():
        raise ValueError(
            f"games {np.flatnonzero(state.done).tolist()} are over: their envelope is public, nothing to redeal"
        )
    deals = _int_array(deals, "deals", (B, C), "one owner per card per game")
    seeds = check_seeds(seeds)
    if len(seeds) != B:
        raise ValueError(f"seeds must be {B} integers in [0, 2**63), one per game, got {seeds.tolist()!r}")
    rooms = state._face_down.shape[1]

    # The deal agrees with what the player knows, and with the public facts the state holds per card.
    owner = state._owner
    allowed = np.arange(FACE_DOWN if config.num_face_down else ENVELOPE, P)
    _require(
        deals,
        ~np.isin(deals, allowed),
        f"owners must be in {allowed.tolist()} (players, ENVELOPE, FACE_DOWN)",
    )
    _require(deals, (deals == player) != (owner == player), f"player {player}'s hand must stay its own")
    seen = state._shown_to[:, player]
    _require(
        deals, (seen >= 0) & (deals != seen), f"a card shown to player {player} must stay with who showed it"
    )
    peeked = state._peeked[:, player]
    _require(deals, peeked & (deals != FACE_DOWN), f"a card player {player} peeked at must stay face down")
    for q in range(P):
        _require(
            deals, state.passed[:, q] & (deals == q), f"player {q} passed on a suggestion naming the card"
        )
        counts = (deals == q).sum(axis=1)
        _check_counts(counts, (owner == q).sum(axis=1), f"player {q}'s hand size")
    envelope = deals == ENVELOPE
    for name, lo, hi in (("suspect", 0, S), ("weapon", S, S + W), ("room", S + W, C)):
        _check_counts(envelope[:, lo:hi].sum(axis=1), 1, f"envelope {name}s")
    _check_counts((deals == FACE_DOWN).sum(axis=1), config.num_face_down, "face-down cards")
    wrong = state.accused & state.eliminated[:, :, None]  # [B, P, C]: each wrong accusation's three cards
    named = (wrong & envelope[:, None, :]).sum(axis=2) == 3
    if named.any():
        b, q = np.argwhere(named)[0]
        raise ValueError(f"game {b}: the envelope is the triple player {q} accused wrongly")

    refuting = np.flatnonzero(state.phase == Phase.REFUTE)  # the refuter holds a named card: it is asked
    for b in refuting.tolist():
        if not (deals[b, state.suggestion[b]] == state.current_player[b]).any():
            raise ValueError(
                f"deals contradict the game: game {b}: player {state.current_player[b]} is to show a card "
                f"of {state.suggestion[b].tolist()} and holds none of them in deals"
            )

    if face_down is None:
        face_down = _place_face_down(state, player, deals, seeds)
    else:
        face_down = _int_array(face_down, "face_down", (B, rooms), "the card on each room or -1")
        for b in range(B):
            on_rooms = np.sort(face_down[b][face_down[b] >= 0])
            if not np.array_equal(
                np.flatnonzero(face_down[b] >= 0), np.flatnonzero(state._face_down[b] >= 0)
            ):
                raise ValueError(f"game {b}: face_down must hold cards on the same rooms as now")
            if not np.array_equal(on_rooms, np.flatnonzero(deals[b] == FACE_DOWN)):
                raise ValueError(f"game {b}: face_down must hold exactly the FACE_DOWN cards of deals")
            mine = np.isin(state._face_down[b], np.flatnonzero(peeked[b]))
            if (face_down[b][mine] != state._face_down[b][mine]).any():
                raise ValueError(f"game {b}: a card player {player} peeked at must stay on its room")

    known = np.where(state._shown_to == player, player, -1)  # the cards the player showed others
    if shown is not None:
        shown = _int_array(shown, "shown", (B, P, C), "who showed each player each card or -1")
        _require_shown(shown, deals, player, P)
        invented = (shown == player) & (state._shown_to != player)
        invented[:, player] = False
        if invented.any():
            b, q, c = np.argwhere(invented)[0]
            raise ValueError(f"shown: game {b}, player {player} never showed player {q} card {c}")
        known = np.where(known >= 0, known, shown)
    known[:, player] = state._shown_to[:, player]

    # Others' peeks follow the cards to their rooms: which rooms they looked at is public.
    peeked_at = np.zeros_like(state._peeked)
    has_card = state._face_down >= 0
    b, room = np.nonzero(has_card)
    peeked_at[b, :, face_down[b, room]] = state._peeked[b, :, state._face_down[b, room]]
    peeked_at[:, player] = state._peeked[:, player]

    events = _rewrite_events(state, player, deals, face_down, known)  # may still refuse: before any write
    state.events[...] = events
    state._owner[...] = deals
    state._envelope[...] = np.nonzero(envelope)[1].reshape(B, 3)  # three cards each, in card order
    state._face_down[...] = face_down
    state._shown_to[...] = known
    state._peeked[...] = peeked_at
    state.seed[...] = seeds
    state._key[...] = game_key(seeds.astype(np.uint64))
    return state


def _int_array(values: object, name: str, shape: tuple[int, ...], what: str) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(f"{name} must be integers ({what}), got {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape} ({what}), got {array.shape}")
    return array.astype(np.int64)


def _require(deals: np.ndarray, bad: np.ndarray, fact: str) -> None:
    """Raise naming the first game and card where ``bad`` holds."""
    if bad.any():
        b, c = np.argwhere(bad)[0]
        raise ValueError(f"deals contradict the game: game {b}, card {c} (owner {deals[b, c]}): {fact}")


def _check_counts(counts: np.ndarray, expected: np.ndarray | int, what: str) -> None:
    bad = counts != expected
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        want = expected if np.isscalar(expected) else int(expected[b])
        raise ValueError(f"deals: game {b} has {int(counts[b])} {what}, must have {want}")


def _require_shown(shown: np.ndarray, deals: np.ndarray, player: int, P: int) -> None:
    others = np.ones(P, dtype=bool)
    others[player] = False
    rows = shown[:, others]  # row `player` is ignored
    if ((rows < -1) | (rows >= P)).any():
        raise ValueError(f"shown must hold players in [0, {P}) or -1, got {np.unique(rows).tolist()}")
    viewer = np.arange(P)[others][None, :, None]
    if ((rows == viewer) & (rows >= 0)).any():
        raise ValueError("shown: nobody shows itself a card")
    wrong = (rows >= 0) & (rows != deals[:, None, :])
    if wrong.any():
        b, q, c = np.argwhere(wrong)[0]
        raise ValueError(
            f"shown: game {b}, player {int(np.arange(P)[others][q])} was shown card {c} by player "
            f"{rows[b, q, c]}, who does not hold it in deals"
        )


def _place_face_down(state: State, player: int, deals: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The face-down cards on their rooms: those the player peeked at on theirs, the rest in the order
    in which the core's deal (``rules.deal``) lays them on the rooms from the seed: by the cards' keys,
    ``draw(key, card)``, or with ``deal="uniform"`` the fresh ``draw(key, SHUFFLE_DRAWS + card)``."""
    face_down = state._face_down.copy()
    if not state.config.num_face_down:
        return face_down
    C = deals.shape[1]
    counters = np.arange(C, dtype=np.uint64) + np.uint64(
        SHUFFLE_DRAWS if state.config.deal == "uniform" else 0
    )
    order = draw(game_key(seeds.astype(np.uint64))[:, None], counters[None, :])
    for b in range(state.batch_size):
        rooms = np.flatnonzero(state._face_down[b] >= 0)
        mine = state._peeked[b, player, state._face_down[b, rooms]]
        cards = np.flatnonzero((deals[b] == FACE_DOWN) & ~state._peeked[b, player])
        face_down[b, rooms[~mine]] = cards[np.argsort(order[b, cards], kind="stable")]
    return face_down


def _rewrite_events(
    state: State, player: int, deals: np.ndarray, face_down: np.ndarray, shown: np.ndarray
) -> np.ndarray:
    """A copy of the last step's events with the cards the player cannot see taken from the new deal.

    A ``SHOW`` between two other players gets a named card the refuter holds: one ``shown``
    already says it showed the suggester, else the lowest; ``shown`` records it (in place).
    """
    events = state.events.copy()
    kind, who, card = events[:, :, ev.KIND], events[:, :, ev.PLAYER], events[:, :, ev.CARD]
    for b in range(state.batch_size):
        dealt = np.flatnonzero((kind[b] == ev.DEAL) & (who[b] != player))
        for q in np.unique(who[b, dealt]).tolist():
            rows = dealt[who[b, dealt] == q]
            card[b, rows] = np.flatnonzero(deals[b] == q)[: len(rows)]
        for row in np.flatnonzero((kind[b] == ev.PEEK) & (who[b] != player)).tolist():
            card[b, row] = face_down[b, events[b, row, ev.PEEKED_ROOM]]
        for row in np.flatnonzero(kind[b] == ev.SHOW).tolist():
            refuter, suggester = int(who[b, row]), int(events[b, row, ev.SUGGESTER])
            if player in (refuter, suggester):
                continue
            named = [int(c) for c in state.suggestion[b] if c >= 0 and deals[b, c] == refuter]
            if not named:
                raise ValueError(
                    f"deals contradict the game: game {b}: player {refuter} has just shown a card of "
                    f"{state.suggestion[b].tolist()} and holds none of them in deals"
                )
            told = [c for c in named if shown[b, suggester, c] == refuter]
            card[b, row] = (told or named)[0]
            shown[b, suggester, card[b, row]] = refuter
    return events
