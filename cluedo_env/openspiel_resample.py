"""``resample_from_infostate`` for ``python_cluedo``: a full state drawn from a player's posterior.

What a player does not know of a game is the deal (who holds each card it has not seen, the
envelope, the face-down cards of the duel), the order in which the other players were dealt
their cards, and which card a refuter showed in a suggestion between two other players. The
resampled state:

- draws the deal exactly from the player's posterior (``cluedo_env.inference``:
  ``beliefs_from_events(...).sample_deals``, in the core's owner codes: players, ``-1`` the
  envelope, ``-2`` the face-down table), given every event the player has seen;
- deals each other player its cards in a uniformly random order (the player's own in the order it
  was dealt them), and lays the face-down cards it has not looked at on their rooms in a random
  order;
- (while a refuter decides which card to show) counts that it holds one of the named cards,
  which is public before any event says it; (once the game is over) keeps the envelope the end
  showed everybody;
- replays the game's public history on that deal: the same starting player, the same actions and
  dice. A refuter in a suggestion between two other players shows a card it holds in the drawn
  deal, uniformly among the named ones (the true choice was that player's, not chance).

With ``auto_refute`` whether a refuter decided is public, and says whether it held one named card
or several, a fact the inference library's records cannot state: resampling refuses such games
(``ValueError``) rather than draw from a wider set than the posterior.

The posterior is the inference library's counting model: every deal consistent with the events
is equally likely, i.e. the other players' decisions are taken to carry no further information
about their cards. Under that model the deal is exact. During the deal (before the cards are all
placed) the player knows nothing: the state is dealt again, uniformly, to the same point.
"""

from __future__ import annotations

import numpy as np

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase
from cluedo_env.inference.beliefs import beliefs_from_events

__all__ = ["deal_outcomes", "resample_state"]


def resample_state(
    state, player: int, rng: np.random.Generator | None = None, deal: np.ndarray | None = None
):
    """A new state of ``state``'s game, consistent with ``player``'s information (module docstring).

    Args:
        state: A ``CluedoState``.
        player: The player whose information the new state keeps, in ``[0, P)``.
        rng: Randomness of the draw (default: a fresh generator).
        deal: ``int[C]``: a deal to use instead of one drawn from the posterior (owner codes as
            ``sample_deals`` gives them; for tests).

    Raises:
        ValueError: a player not of the game, a game with ``auto_refute=True``, or a state without
            the history to replay (``CluedoState.from_core``).
    """
    P = state.config.num_players
    core.require_sampled_view(state.config, "resample_from_infostate")
    if isinstance(player, bool) or not isinstance(player, int | np.integer) or not 0 <= player < P:
        raise ValueError(f"player must be an int in [0, {P}), got {player!r}")
    state.require_history(
        "resample the core game it was made from, with cluedo_env.inference's sample_deals and core.redeal"
    )
    history = state.history()
    rng = rng if rng is not None else np.random.default_rng()
    game = state.get_game()
    new = game.new_initial_state()
    if state.core is None:  # still dealing: nothing is known yet
        for _ in history:
            outcomes, probabilities = zip(*new.chance_outcomes())
            new.apply_action(int(rng.choice(outcomes, p=probabilities)))
        return new
    events = np.concatenate(state.steps)
    if _refuting(state):  # the refuter holds a named card: public, though no event says it yet
        refuter = np.full((1, events.shape[1]), -1, dtype=events.dtype)
        refuter[0, ev.KIND], refuter[0, ev.PLAYER] = ev.SHOW, state.current_player()
        refuter[0, ev.SUGGESTER] = state.core.turn_player[0]
        events = np.concatenate([events, refuter])
    over = events[events[:, ev.KIND] == ev.GAME_OVER]
    if len(over):  # the end shows everybody the envelope: in the posterior's words, a right accusation
        known = over[:1].copy()
        known[0, ev.KIND], known[0, ev.PLAYER], known[0, ev.CORRECT] = ev.ACCUSE, player, 1
        events = np.concatenate([events, known])
    if deal is None:
        deal = beliefs_from_events(state.config, int(player), events).sample_deals(1, rng)[0]
    for outcome in deal_outcomes(state, int(player), np.asarray(deal), rng):
        new.apply_action(outcome)
    _replay(new, history[len(new.history()) :], int(player), rng)
    return new


def deal_outcomes(state, player: int, deal: np.ndarray, rng: np.random.Generator) -> list[int]:
    """The deal's chance outcomes of a new state with owners ``deal``: the envelope, the face-down
    cards room by room, the dealt cards in dealing order, and ``state``'s starting player."""
    config = state.config
    P, F = config.num_players, config.num_face_down
    view = state.private_events(player)
    deals = view[view[:, ev.KIND] == ev.DEAL]
    mine = deals[deals[:, ev.PLAYER] == player, ev.CARD].tolist()  # the player's hand, in its order
    outcomes = sorted(np.flatnonzero(deal == ENVELOPE).tolist())  # suspect, weapon, room
    if F:
        peeks = view[(view[:, ev.KIND] == ev.PEEK) & (view[:, ev.PLAYER] == player)]
        known = {int(room): int(card) for room, card in zip(peeks[:, ev.PEEKED_ROOM], peeks[:, ev.CARD])}
        rest = [c for c in np.flatnonzero(deal == FACE_DOWN).tolist() if c not in known.values()]
        rest = [rest[i] for i in rng.permutation(len(rest))]
        outcomes += [known[room] if room in known else rest.pop() for room in core.CORNER_ROOMS[:F]]
    hands = []
    for q in range(P):
        cards = np.flatnonzero(deal == q).tolist()
        hands.append(mine if q == player else [cards[i] for i in rng.permutation(len(cards))])
    outcomes += [hands[k % P][k // P] for k in range(config.num_hidden_cards - F)]
    if config.start_player != "scarlet":
        outcomes.append(int(state.start))
    return outcomes


def _replay(new, actions: list[int], player: int, rng: np.random.Generator) -> None:
    """Play ``actions`` (the true game's after its deal) on ``new``: a refuter's show between two
    other players is drawn from the cards it holds in ``new`` (module docstring)."""
    for action in actions:
        if _refuting(new) and player not in (new.current_player(), int(new.core.turn_player[0])):
            legal = new.legal_actions()
            action = legal[rng.integers(len(legal))]
        new.apply_action(int(action))


def _refuting(state) -> bool:
    return state.core is not None and not state.rolling and int(state.core.phase[0]) == Phase.REFUTE
