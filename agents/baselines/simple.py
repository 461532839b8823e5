"""``simple_actions``: a stateless player for examples, one decision per row of (observation, mask).

A uniformly random legal action is no player of Cluedo: a turn offers 324
accusations next to one roll, so everyone accuses wrongly within a few steps
and the game ends without a winner. ``simple_actions`` plays at random among
the useful actions and reads the one thing it needs from its own observation
(the ``unseen`` piece: the cards it has not seen), so it needs no memory and
fits in a loop over ``core.step`` or a PettingZoo ``agent_iter``::

    rng = np.random.default_rng(0)
    mask = core.legal_action_mask(state)
    live = np.flatnonzero(~state.done)  # a finished game has no acting player to observe
    actions = np.zeros(len(mask), dtype=np.int64)
    obs = core.observe(state, state.current_player[live], games=live)
    actions[live] = simple_actions(obs, mask[live], config, rng)
    state = core.step(state, actions)

What it does, where the move is legal: it enters a room when the roll reaches
one, suggests a suspect and weapon it has not seen when there are such, and
accuses only when its unseen cards are one suspect, one weapon and one room
(then they are the envelope, so it never accuses wrongly); otherwise a
uniformly random legal action other than an accusation.
"""

from __future__ import annotations

import numpy as np

from agents.baselines.random_agent import sample_legal
from cluedo_env import core

__all__ = ["simple_actions"]


def simple_actions(
    observation: np.ndarray, mask: np.ndarray, config: core.GameConfig, rng: np.random.Generator
) -> np.ndarray | int:
    """One action per row: random useful play, accusing only the envelope its observation pins down.

    Args:
        observation: ``float[B, D]`` (or ``[D]``): ``core.observe`` of the deciding player
            (``kind="player"`` or ``"seer"``; only the ``unseen`` piece is read).
        mask: ``[B, A]`` (or ``[A]``) legal actions, bool or 0/1 (``core.legal_action_mask``, or
            a PettingZoo ``action_mask``).
        config: The game's rules.
        rng: The generator of the random choices.

    Returns:
        ``int64[B]`` actions (an ``int`` for one row). A row without a legal action
        (a game that is over) gets 0, which ``core.step`` ignores.
    """
    one = np.ndim(mask) == 1
    obs = np.atleast_2d(np.asarray(observation))
    legal = np.atleast_2d(np.asarray(mask)).astype(bool)
    layout = core.ActionLayout(config)
    if obs.shape[0] != legal.shape[0] or legal.shape[1] != layout.num_actions:
        raise ValueError(
            f"need one observation per mask row and {layout.num_actions} actions per row, "
            f"got observations {obs.shape} and mask {legal.shape}"
        )
    cards = config.cards
    S, W, R = cards.num_suspects, cards.num_weapons, cards.num_rooms
    offset = next(o for name, _shape, o in core.observation_pieces(config) if name == "unseen")
    unseen = obs[:, offset : offset + S + W + R] > 0
    suspects, weapons, rooms = unseen[:, :S], unseen[:, S : S + W], unseen[:, S + W :]
    rows = np.arange(len(legal))

    choice = legal.copy()
    choice[:, layout.ACCUSE : layout.ACCUSE + S * W * R] = False
    # Suggestions naming a suspect and a weapon it has not seen, where there are such.
    suggest = slice(layout.SUGGEST, layout.SUGGEST + S * W)
    fresh = (suspects[:, :, None] & weapons[:, None, :]).reshape(len(legal), S * W) & choice[:, suggest]
    has_fresh = fresh.any(axis=1)
    choice[has_fresh, suggest] = fresh[has_fresh]
    # Entering a room, where the roll reaches one.
    enter = slice(layout.ENTER, layout.ENTER + R)
    can_enter = choice[:, enter].any(axis=1)
    entering = np.zeros_like(choice[can_enter])
    entering[:, enter] = choice[can_enter, enter]
    choice[can_enter] = entering
    # Only accusations legal (no other way on): any legal action.
    stuck = ~choice.any(axis=1)
    choice[stuck] = legal[stuck]

    actions = np.zeros(len(legal), dtype=np.int64)
    live = np.flatnonzero(choice.any(axis=1))
    actions[live] = sample_legal(rng, choice[live])
    # The envelope, where the unseen cards are one of each category and accusing is legal now.
    pinned = (suspects.sum(1) == 1) & (weapons.sum(1) == 1) & (rooms.sum(1) == 1)
    envelope = layout.ACCUSE + (suspects.argmax(1) * W + weapons.argmax(1)) * R + rooms.argmax(1)
    accuse = pinned & legal[rows, np.where(pinned, envelope, 0)]
    actions[accuse] = envelope[accuse]
    return int(actions[0]) if one else actions
