"""Observers of ``python_cluedo`` (``CluedoGame.make_py_observer``).

The tensor is the core's ``"player"`` observation (``core.observe``), its named pieces in
``dict`` (``hand``, ``unseen``, ``shown_to_me`` ... as ``core.observation_pieces`` lists them),
all zeros while the cards are being dealt. It is also the information-state tensor: the core's
observation is the notepad a player keeps (what each player holds, passed on, showed, accused),
a summary of its information, not the order of events; the order is in the information-state
string.

Strings:

- observation: the observation's nonzero entries, piece by piece;
- information state (perfect recall): every event of the game as the player sees it
  (``core.private_view``: other players' cards hidden), one per line, then whether the turn player
  has chosen to roll, or who decides now and in which phase (public; it tells apart decisions
  that no event separates, such as a suggestion declined and the accusation that follows). During
  the deal only how many cards have been placed.

Only the player's own view is offered (``private_info`` ``SINGLE_PLAYER``); public-only or
all-players observation types are refused.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from cluedo_env import core
from cluedo_env.core.config import GameConfig
from cluedo_env.core.state import Phase

__all__ = ["CluedoObserver", "observation_tensor_size"]


def observation_tensor_size(config: GameConfig) -> int:
    """Length of the tensor: the core's ``"player"`` observation."""
    return core.observation_size(config)


class CluedoObserver:
    """A player's observation, or with ``perfect_recall`` its information state."""

    def __init__(self, config: GameConfig, iig_obs_type) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                "python_cluedo observes one player's own view: public_info=True and private_info="
                f"SINGLE_PLAYER, got public_info={iig_obs_type.public_info}, "
                f"private_info={iig_obs_type.private_info}"
            )
        self.config = config
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(observation_tensor_size(config), dtype=np.float32)
        self.dict = {
            name: self.tensor[offset : offset + int(np.prod(shape))].reshape(shape)
            for name, shape, offset in core.observation_pieces(config)
        }

    def set_from(self, state, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        if state.core is None:
            self.tensor[:] = 0.0
            return
        core.observe(state.core, player, out=self.tensor.reshape(1, -1))

    def string_from(self, state, player: int) -> str:
        """``player``'s view of ``state`` as text (see the module docstring)."""
        if self.perfect_recall:
            return information_state_string(state, player)
        if state.core is None:
            return f"dealing: {len(state.envelope) + len(state.order)} cards placed"
        row = core.observe(state.core, player)[0]
        parts = []
        for name, shape, offset in core.observation_pieces(self.config):
            values = row[offset : offset + int(np.prod(shape))]
            nonzero = np.flatnonzero(values)
            if len(nonzero):
                parts.append(name + " " + " ".join(f"{i}:{values[i]:.3g}" for i in nonzero))
        return "; ".join(parts)


def information_state_string(state, player: int) -> str:
    """Every event so far as ``player`` sees it, one per line (see the module docstring)."""
    placed = len(state.envelope) + len(state.order)
    lines = [f"player {player}"]
    if state.core is None:
        lines.append(f"dealing: {placed} cards placed")
        return "\n".join(lines)
    for event in core.read_events(state.private_events(player)):
        lines.append(str(event))
    phase = int(state.core.phase[0])
    if state.rolling:
        lines.append("rolling")
    elif phase != Phase.OVER:  # public, and apart from the events: declining to suggest writes none
        lines.append(f"now: player {int(state.core.current_player[0])} decides ({Phase.NAMES[phase]})")
    return "\n".join(lines)
