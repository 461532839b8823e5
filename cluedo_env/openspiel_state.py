"""A state of ``python_cluedo``: one game of the compiled core (B=1) behind OpenSpiel's ``State``.

Chance is explicit, in three kinds of chance node (``Chance`` below):

- **the deal**: one node per card placed, in the core's order: the envelope's suspect, weapon and
  room (each uniform in its category), then, of the cards left, the face-down ones (duel), then
  those dealt round the table from player 0, each drawn uniformly from the cards not yet placed.
  This is the distribution the core deals from with ``deal="uniform"`` (``core/rules.py``: the
  largest random key of a category goes into the envelope, the others are dealt in the order of
  fresh keys); its default ``"keys"`` deals rooms slightly later (``docs/RULES.md``, Set-up).
- **who starts** (unless ``start_player="scarlet"``): one node of ``P`` equally likely players.
  The core's ``"dice"`` rule (highest roll, ties rolled again) and ``"random"`` rule are uniform
  over the players up to a bias below 1e-15; the starting rolls appear in no event, so the
  player who starts is all a player learns of them.
- **the dice**: choosing ``roll`` makes the next node a chance node of 36 (two dice) or 6 (one
  die) equally likely faces; its outcome is then rolled.

The core draws its randomness from a counter-based key (``core/rng.py``) and has no entry that
takes a deal or a roll, so the state sets them through the key: the game is dealt by
``core.init`` from the first seed whose starting player is the one drawn, then the drawn deal is
written into the hidden fields the deal fills (``_owner``, ``_envelope``, ``_face_down``) and into
the ``DEAL`` events; before a roll the key (``_key``) is replaced by the first key, from a fixed
sequence, whose next draws are the faces drawn. Both are functions of the chance outcomes alone,
so the game is a function of its action history (serialisation replays it). Nothing else of the
core's state is touched.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pyspiel

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.rng import die_faces, draw, game_key
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase

__all__ = ["CluedoState", "dice_faces", "key_for_roll", "seed_for_start"]

_SEARCH = 4096  # candidate keys tried at once when looking for a seed or a key


def dice_faces(outcome: int, dice: int) -> tuple[int, ...]:
    """The faces (1..6) of a dice chance outcome: ``6 * (first - 1) + (second - 1)`` for two dice."""
    return (outcome // 6 + 1, outcome % 6 + 1) if dice == 2 else (outcome + 1,)


@cache
def key_for_roll(faces: tuple[int, ...], draws: int) -> np.uint64:
    """The first key of the fixed sequence ``game_key(0, 1, ...)`` whose draws number ``draws``,
    ``draws + 1`` ... are the die faces ``faces`` (as ``core/rules.py``'s ``roll`` draws them)."""
    for start in range(0, 1 << 20, _SEARCH):
        keys = game_key(np.arange(start, start + _SEARCH, dtype=np.uint64))
        hit = np.ones(_SEARCH, dtype=bool)
        for k, face in enumerate(faces):
            hit &= die_faces(draw(keys, np.full(_SEARCH, draws + k, dtype=np.uint64))) == face
        if hit.any():
            return keys[int(np.argmax(hit))]
    raise AssertionError(f"no key rolls {faces} at draw {draws}")  # (odds below 1e-300)


@cache
def seed_for_start(config: core.GameConfig, start: int) -> int:
    """The first seed from which the core deals a game of ``config`` that ``start`` begins."""
    for first in range(0, 1 << 20, 64):
        games = core.init(config, np.arange(first, first + 64))
        hits = np.flatnonzero(games.current_player == start)
        if len(hits):
            return first + int(hits[0])
    raise AssertionError(f"no seed of 2**20 lets player {start} start")  # (odds below 1e-300)


class Chance:
    """What the next chance node draws."""

    ENVELOPE = 0  # the envelope's card of category ``len(envelope)``
    CARD = 1  # the next card placed (face down, then dealt round the table)
    START = 2  # who starts
    DICE = 3  # the roll just chosen


class CluedoState(pyspiel.State):
    """A game of ``python_cluedo``: the chance nodes of the deal, then the core's game (see the
    module docstring). Actions of the players are the core's action ids (``core.ActionLayout``)."""

    def __init__(self, game) -> None:
        super().__init__(game)
        self.config = game.config
        self._edition = self.config.cards
        self.envelope: list[int] = []  # the envelope's cards drawn so far
        self.order: list[int] = []  # the other cards, in the order placed
        self.start: int | None = None
        self.core: core.State | None = None
        self.rolling = False  # the turn player chose ``roll``: the dice are the next node
        self.steps: list[np.ndarray] = []  # every core step's events (the deal's first), true cards
        self._returns = np.zeros(self.config.num_players)

    @classmethod
    def from_core(cls, game, state: core.State, steps: list[np.ndarray]) -> CluedoState:
        """A state of ``game`` at one running core game (``state``, B=1, taken over), with
        ``steps`` as its event log. Its history is empty: it is a root to search from, which
        ``serialize`` and ``resample_from_infostate`` refuse (they replay the history; give a
        searcher a resampler of its own, and pickle the state to keep it)."""
        if state.batch_size != 1 or state.config != game.config:
            raise ValueError(
                f"from_core takes one game of {game.config}, got {state.batch_size} of {state.config}"
            )
        new = cls(game)
        owner = state._owner[0]
        new.envelope = np.flatnonzero(owner == ENVELOPE).tolist()
        new.order = np.flatnonzero(owner != ENVELOPE).tolist()
        new.start = int(steps[0][steps[0][:, ev.KIND] == ev.START][0, ev.PLAYER]) if steps else 0
        new.core = state
        new.steps = list(steps)
        return new

    # --- OpenSpiel's State -------------------------------------------------------------------

    def current_player(self) -> int:
        """The acting player, ``pyspiel.PlayerId.CHANCE`` or ``pyspiel.PlayerId.TERMINAL``."""
        if self.core is None or self.rolling:
            return pyspiel.PlayerId.CHANCE
        if self.core.phase[0] == Phase.OVER:
            return pyspiel.PlayerId.TERMINAL
        return int(self.core.current_player[0])

    def chance_kind(self) -> int:
        """The ``Chance`` kind of the next chance node (a ``ValueError`` elsewhere)."""
        if not (self.core is None or self.rolling):
            raise ValueError(
                f"not a chance node: player {self.current_player()} is to act (or the game is over)"
            )
        if self.rolling:
            return Chance.DICE
        if len(self.envelope) < 3:
            return Chance.ENVELOPE
        if len(self.order) < self.config.num_hidden_cards:
            return Chance.CARD
        return Chance.START

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the chance node: card ids, players or dice faces (a
        ``ValueError`` at a player's decision or the end, as OpenSpiel's own games refuse it)."""
        kind = self.chance_kind()
        e = self._edition
        if kind == Chance.ENVELOPE:
            first = (0, e.num_suspects, e.num_suspects + e.num_weapons, e.num_cards)[len(self.envelope)]
            last = (e.num_suspects, e.num_suspects + e.num_weapons, e.num_cards)[len(self.envelope)]
            outcomes = list(range(first, last))
        elif kind == Chance.CARD:
            placed = set(self.envelope) | set(self.order)
            outcomes = [c for c in range(e.num_cards) if c not in placed]
        elif kind == Chance.START:
            outcomes = list(range(self.config.num_players))
        else:
            outcomes = list(range(6**self.config.dice))
        return [(o, 1.0 / len(outcomes)) for o in outcomes]

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(core.legal_action_mask(self.core)[0]).tolist()

    def _apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise ValueError(f"the game is over: no action ({action}) can be applied")
        if self.is_chance_node():
            self._apply_chance(int(action))
            return
        if action == self.core_rules.layout.ROLL and core.legal_action_mask(self.core)[0, action]:
            self.rolling = True  # the dice are the next node (an illegal roll: the core refuses it below)
            return
        self._step(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.chance_to_string(action)
        return self.core_rules.layout.action_to_string(int(action))

    def chance_to_string(self, outcome: int) -> str:
        """A chance outcome in words (unique among the node's outcomes)."""
        kind = self.chance_kind()
        cards = self._edition.cards
        if kind == Chance.ENVELOPE:
            return f"envelope: {cards[outcome]}"
        if kind == Chance.CARD:
            k = len(self.order) - self.config.num_face_down
            where = "face down" if k < 0 else f"to player {k % self.config.num_players}"
            return f"deal {cards[outcome]} {where}"
        if kind == Chance.START:
            return f"player {outcome} starts"
        return "roll " + "+".join(map(str, dice_faces(outcome, self.config.dice)))

    def is_terminal(self) -> bool:
        """Whether the game has ended (an accusation, everybody out, or ``max_turns``)."""
        return self.core is not None and not self.rolling and bool(self.core.phase[0] == Phase.OVER)

    def returns(self) -> list[float]:
        """Each player's total reward so far: +1 winner, -1 the others, 0 all when truncated."""
        return self._returns.tolist()

    def rewards(self) -> list[float]:
        """The rewards of the last step (the core's ``rewards``; nonzero only on the last)."""
        if self.core is None or self.rolling:
            return [0.0] * self.config.num_players
        return self.core.rewards[0].astype(float).tolist()

    def serialize(self) -> str:
        """The state as text: its action history, one action a line (``CluedoGame.deserialize_state``
        replays it); nothing is pickled. A root made by ``from_core`` has no history to write: a
        ``ValueError`` (its text would be empty, which deserialises to the game's first chance node)."""
        self.require_history("pickle it instead (as pyspiel.serialize_game_and_state does)")
        return "".join(f"{action}\n" for action in self.history())

    def __getstate__(self) -> str:
        """Pickle and ``copy`` write the state as ``pyspiel.serialize_game_and_state`` does (the game's
        parameters, the history and the attributes); ``ValueError`` for a state of a custom
        ``Edition``'s game, whose parameters would load another (``CluedoGame.require_parameters``)."""
        self.get_game().require_parameters("pickle or copy a state of")
        return super().__getstate__()

    def require_history(self, instead: str) -> None:
        """Raise ``ValueError`` at a root made by ``from_core``: a game under way with no action
        history, which ``serialize`` (and ``openspiel_resample``'s resampling) cannot replay;
        ``instead`` says what to do instead."""
        if self.core is not None and not self.history():
            raise ValueError(
                "this state has no history to replay (CluedoState.from_core makes a root to search from): "
                + instead
            )

    def __str__(self) -> str:
        cards = self._edition.cards
        lines = ["envelope: " + ", ".join(cards[c] for c in self.envelope)]
        lines.append("placed: " + ", ".join(cards[c] for c in self.order))
        if self.core is not None:
            s = self.core
            lines.append(
                f"turn {int(s.turn[0])}, phase {Phase.NAMES[s.phase[0]]}, player {int(s.current_player[0])}"
                f", pawns {s.location[0].tolist()}, weapons {s.weapon_room[0].tolist()}"
                f", dice {s.dice[0].tolist()}, suggestion {s.suggestion[0].tolist()}"
                f", rolling {self.rolling}, winner {int(s.winner[0])}"
            )
        return "\n".join(lines)

    # --- the chance nodes --------------------------------------------------------------------

    @property
    def core_rules(self) -> core.game.Rules:
        """The core's rule tables of this config."""
        return core.rules_for(self.config)

    def _apply_chance(self, outcome: int) -> None:
        legal = [o for o, _ in self.chance_outcomes()]
        if outcome not in legal:
            raise ValueError(f"chance outcome {outcome} is not one of this node's, {legal}")
        kind = self.chance_kind()
        if kind == Chance.ENVELOPE:
            self.envelope.append(outcome)
        elif kind == Chance.CARD:
            self.order.append(outcome)
        elif kind == Chance.START:
            self.start = outcome
        else:
            self.core._key[0] = key_for_roll(dice_faces(outcome, self.config.dice), int(self.core._draws[0]))
            self.rolling = False
            self._step(self.core_rules.layout.ROLL)
            return
        if self.chance_kind() == Chance.START and self.config.start_player == "scarlet":
            self.start = 0
        if self.start is not None:
            self._deal()

    def _deal(self) -> None:
        """The core's game of the drawn deal and starting player."""
        state = core.init(self.config, [seed_for_start(self.config, self.start)])
        F = self.config.num_face_down
        owner = np.full(self._edition.num_cards, ENVELOPE, dtype=np.int8)
        owner[self.order[:F]] = FACE_DOWN
        dealt = self.order[F:]
        owner[dealt] = np.arange(len(dealt)) % self.config.num_players
        state._owner[0] = owner
        state._envelope[0] = self.envelope
        state._face_down[0] = -1
        for k, card in enumerate(self.order[:F]):
            state._face_down[0, core.CORNER_ROOMS[k]] = card
        events = state.events[0, : state.num_events[0]]
        rows = np.flatnonzero(events[:, ev.KIND] == ev.DEAL)
        state.events[0, rows, ev.CARD] = dealt
        self.core = state
        self.steps.append(state.step_events(0).copy())

    def _step(self, action: int) -> None:
        core.step(self.core, [action])
        self.steps.append(self.core.step_events(0).copy())
        self._returns += self.core.rewards[0]

    def resample_from_infostate(self, player_id: int, probability_sampler=None) -> CluedoState:
        """A state drawn from ``player_id``'s posterior given its information
        (``openspiel_resample``). ``probability_sampler`` (OpenSpiel's uniform sampler, called
        once) seeds the draw; without it the draw uses fresh randomness."""
        from cluedo_env.openspiel_resample import resample_state  # (it builds states of this module)

        seed = None if probability_sampler is None else int(probability_sampler() * 2**53)
        return resample_state(self, player_id, np.random.default_rng(seed))

    # --- views -------------------------------------------------------------------------------

    def private_events(self, player: int) -> np.ndarray:
        """``int16[n, 7]``: every event of the game so far as ``player`` sees it (``core.private_view``)."""
        if not self.steps:
            return np.zeros((0, len(core.EVENT_FIELDS)), dtype=np.int16)
        return core.private_view(np.concatenate(self.steps), player)
