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
  the deal only how many cards have been placed. Perfect recall of the player's own actions has
  one gap: a move's event records the square it ends on, so two ``toward`` actions that stop on the
  same square give the same string. They give the same state too, so search and resampling are
  unaffected; tabular methods that assume each information state has one sequence of the player's
  own actions (CFR) would see two (``docs/guides/openspiel.md``).

The default view is the player's own (``public_info=True``, ``private_info=SINGLE_PLAYER``).
OpenSpiel's factored views split it in two (its playthroughs print both):

- public (``private_info=NONE``): the pieces every player sees alike (all but
  ``PRIVATE_PIECES``: who passed, showed and accused naming which cards, the pawns, weapons, phase, dice, turn,
  suggestion), with player axes in seat order (the view of seat 0), the same for every player;
  with perfect recall, every event with every dealt, looked-at or shown card hidden
  (``core.public_view``) and the line of who decides;
- private (``public_info=False``, ``private_info=SINGLE_PLAYER``): the player's own pieces
  (``PRIVATE_PIECES``: its hand, unseen cards, the cards shown to it, the face-down cards it
  looked at, and its pawn's distances to the rooms), player axes relative to it; with perfect
  recall, the events whose card only it (and the other side of a show) sees.

Every players' private information at once (``ALL_PLAYERS``) is refused: it is the game's state.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.config import GameConfig
from cluedo_env.core.state import Phase

__all__ = ["PRIVATE_PIECES", "CluedoObserver", "observation_tensor_size"]

PRIVATE_PIECES = ("hand", "unseen", "shown_to_me", "face_down_seen", "room_distance")  # the others are public


def observation_tensor_size(config: GameConfig) -> int:
    """Length of the tensor: the core's ``"player"`` observation."""
    return core.observation_size(config)


class CluedoObserver:
    """A player's observation, or with ``perfect_recall`` its information state; the public or
    the private part of either for OpenSpiel's factored types (see the module docstring)."""

    def __init__(self, config: GameConfig, iig_obs_type) -> None:
        private = iig_obs_type.private_info
        if private not in (pyspiel.PrivateInfoType.SINGLE_PLAYER, pyspiel.PrivateInfoType.NONE):
            raise ValueError(
                "python_cluedo observes one player's private information, or none: private_info="
                f"SINGLE_PLAYER or NONE, got private_info={private}"
            )
        self.config = config
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.public = bool(iig_obs_type.public_info)
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.pieces = [
            piece
            for piece in core.observation_pieces(config)
            if (self.private if piece[0] in PRIVATE_PIECES else self.public)
        ]
        self.columns = np.concatenate(
            [np.arange(offset, offset + int(np.prod(shape))) for _, shape, offset in self.pieces] or [[]]
        ).astype(np.intp)
        self.tensor = np.zeros(len(self.columns), dtype=np.float32)
        self.dict = {}
        start = 0
        for name, shape, _ in self.pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size

    def viewer(self, player: int) -> int:
        """The seat whose frame the pieces are read in: the player's own, seat 0's for the public part
        alone (so that it is the same for every player)."""
        return player if self.private else 0

    def set_from(self, state, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        if state.core is None:
            self.tensor[:] = 0.0
            return
        self.tensor[:] = core.observe(state.core, self.viewer(player))[0, self.columns]

    def string_from(self, state, player: int) -> str:
        """``player``'s view of ``state`` as text (see the module docstring)."""
        if self.perfect_recall:
            return self.history_string(state, player)
        if state.core is None:
            return dealing_line(state) if self.public else ""
        row = core.observe(state.core, self.viewer(player))[0]
        parts = []
        for name, shape, offset in self.pieces:
            values = row[offset : offset + int(np.prod(shape))]
            nonzero = np.flatnonzero(values)
            if len(nonzero):
                parts.append(name + " " + " ".join(f"{i}:{values[i]:.3g}" for i in nonzero))
        return "; ".join(parts)

    def history_string(self, state, player: int) -> str:
        """The events as this observer's type sees them (the information state when it is the
        player's own view)."""
        if self.public and self.private:
            return information_state_string(state, player)
        if self.public:
            return "\n".join(public_lines(state))
        if self.private and state.core is not None:
            events = np.concatenate(state.steps)
            own = ev.private_view(events, player)
            mine = own[(own[:, ev.CARD] >= 0) & (core.public_view(events)[:, ev.CARD] < 0)]
            return "\n".join([f"player {player}", *map(str, core.read_events(mine))])
        return ""


def information_state_string(state, player: int) -> str:
    """Every event so far as ``player`` sees it, one per line (see the module docstring)."""
    if state.core is None:
        return "\n".join([f"player {player}", dealing_line(state)])
    events = [str(event) for event in core.read_events(state.private_events(player))]
    return "\n".join([f"player {player}", *events, *decision_line(state)])


def public_lines(state) -> list[str]:
    """Every event with the private cards hidden, one a line, then the decision's line; during the
    deal how many cards are placed."""
    if state.core is None:
        return [dealing_line(state)]
    events = core.read_events(core.public_view(np.concatenate(state.steps)))
    return [*map(str, events), *decision_line(state)]


def dealing_line(state) -> str:
    """How far the deal is (all that anyone sees of it)."""
    return f"dealing: {len(state.envelope) + len(state.order)} cards placed"


def decision_line(state) -> list[str]:
    """Whether the turn player chose to roll, or who decides now and in which phase (nothing once
    the game is over). Public, and apart from the events: declining to suggest writes none."""
    phase = int(state.core.phase[0])
    if state.rolling:
        return ["rolling"]
    if phase == Phase.OVER:
        return []
    return [f"now: player {int(state.core.current_player[0])} decides ({Phase.NAMES[phase]})"]
