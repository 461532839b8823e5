"""The state of a batch of games: plain numpy arrays, batch dimension first, laid out in one byte buffer
as ``core/layout.py`` says (``STATE_FIELDS``)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from cluedo_env.core import layout
from cluedo_env.core.board import classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.layout import STATE_FIELDS

__all__ = ["ENVELOPE", "FACE_DOWN", "NOBODY", "Phase", "State", "field_shapes", "game_indices", "put_rows"]


def put_rows(array: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``array[rows] = values`` for the rows of a C-contiguous array, copied as opaque bytes.

    Same result as the plain assignment (``values`` of shape ``[len(rows), *array.shape[1:]]``
    and ``array``'s dtype); faster from a few hundred rows, so fewer are assigned plainly.
    """
    if len(rows) < 512:  # below, the views cost about what they save
        array[rows] = values
        return
    width = array[:1].nbytes
    values = np.asarray(values)
    if array.ndim == 1 or width == 0 or not array.flags.c_contiguous or values.shape[1:] != array.shape[1:]:
        array[rows] = values
        return
    row = np.dtype((np.void, width))
    values = np.ascontiguousarray(values, dtype=array.dtype)
    array.reshape(len(array), -1).view(row)[rows, 0] = values.reshape(len(values), -1).view(row)[:, 0]


def field_shapes(config: GameConfig, batch_size: int) -> dict[str, tuple[int, ...]]:
    """The shape of every array field of a state of ``batch_size`` games of ``config`` (``STATE_FIELDS``)."""
    edition = config.cards
    C, P = edition.num_cards, config.num_players
    sizes = {
        "C": C,
        "P": P,
        "S": edition.num_suspects,
        "W": edition.num_weapons,
        "R": edition.num_rooms,
        "N": classic_board().num_squares if config.board == "classic" else 0,
        "E": max(C, P + 4),  # events of a step: a deal's, or a suggestion's (P + 4 at most)
    }
    return {field.name: (batch_size, *field.shape_for(sizes)) for field in STATE_FIELDS}


def game_indices(games: object, batch_size: int, distinct: bool = False) -> np.ndarray:
    """``int64[n]``: ``games`` as indices of games of a batch of ``batch_size``, checked.

    ``games`` is a list or 1-D integer array of indices in ``[0, batch_size)`` (each at most once
    with ``distinct``); anything else raises, naming the value and what is accepted: a bool mask,
    floats or another shape ``TypeError``, an index outside the batch or given twice ``ValueError``.
    """
    array = np.asarray(games)
    if array.ndim != 1 or array.dtype == bool or (array.dtype.kind not in "iu" and array.size):
        what = "a bool mask" if array.dtype == bool else f"{array.dtype} of shape {array.shape}"
        raise TypeError(
            f"games must be a list or 1-D integer array of game indices in [0, {batch_size}) "
            f"(for a bool mask, pass np.flatnonzero(mask)), got {what}: {_shown(games)}"
        )
    if array.size and (array.min() < 0 or array.max() >= batch_size):
        raise ValueError(f"games must be indices in [0, {batch_size}), got {_shown(array.tolist())}")
    array = np.ascontiguousarray(array, dtype=np.int64)
    if distinct and len(array) > 1:
        selected = np.zeros(batch_size, dtype=bool)
        selected[array] = True
        if np.count_nonzero(selected) < len(array):
            values, counts = np.unique(array, return_counts=True)
            repeated = int(np.flatnonzero(counts > 1)[0])
            raise ValueError(
                f"games must be distinct game indices (each at most once), got {_shown(array.tolist())}: "
                f"game {int(values[repeated])} {int(counts[repeated])} times"
            )
    return array


def _shown(value: object) -> str:
    """``repr(value)``, cut to its first 200 characters."""
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


_FIELD_NAMES = frozenset(field.name for field in STATE_FIELDS)


class Phase:
    """What the acting player decides now."""

    TURN = 0  # start of a turn: roll, passage, stay (or pick a room), or accuse
    MOVE = 1  # after a roll: where to go
    SUGGEST = 2  # in a room just entered: suggest or not
    REFUTE = 3  # the refuter picks which named card to show
    ACCUSE = 4  # end of a turn: accuse or end the turn
    OVER = 5  # the game has ended (terminated or truncated)
    NAMES = ("turn", "move", "suggest", "refute", "accuse", "over")


ENVELOPE = -1  # owner code of the three solution cards
FACE_DOWN = -2  # owner code of a card lying face down on a room (duel)
NOBODY = -1


@dataclass(eq=False)
class State:
    """A batch of B games. Fields starting with ``_`` are hidden information, and so are
    ``events`` (the last step's raw events: every player's dealt cards, the card of every
    show) and ``seed`` (``init`` deals each game again from it). A user of the core sees
    everything; a player reads its own views of the events (``private_view``; an agent's
    ``observe`` is given them) and decides on neither (``agents.base``).

    The core updates a state in place (``step`` returns the same object); use
    ``copy()`` to branch. Every array field is a C-contiguous view of one byte buffer,
    ``_buffer``, laid out as ``STATE_FIELDS`` says (made so on construction, with each
    field cast to its dtype and checked against its shape): the compiled rules read
    the whole batch through it. Assigning a field (``state.location = array``) copies
    the array into a new buffer, so the buffer and the fields always agree; a refused one
    (a wrong shape) leaves the state as it was.
    Locations are board locations (rooms ``0..R-1``, then squares), cards are
    edition card ids.

    Attributes:
        config: The rules every game of the batch follows.
        seed: ``int64[B]`` the seed each game was dealt from (hidden: it deals the game again).
        phase: ``int8[B]`` a ``Phase`` value.
        current_player: ``int8[B]`` who decides now (-1 once the game is over).
        turn_player: ``int8[B]`` whose turn it is.
        turn: ``int32[B]`` turns begun so far, minus one.
        location: ``int16[B, S]`` location of every suspect's pawn.
        weapon_room: ``int8[B, W]`` the room each weapon is in.
        dice: ``int8[B, 2]`` the last roll of the turn player (-1 when unused).
        suggestion: ``int16[B, 3]`` card ids of the current suggestion (-1 none).
        may_suggest: ``bool[B]`` the turn player may suggest this turn.
        summoned: ``bool[B, P]`` a suggestion moved this player's pawn since
            its last turn.
        eliminated: ``bool[B, P]`` accused wrongly (still refutes).
        reachable: ``bool[B, N]`` squares the rolled pawn may stop on.
        enterable: ``bool[B, R]`` rooms the rolled pawn may enter.
        terminated: ``bool[B]`` ended by an accusation.
        truncated: ``bool[B]`` ended by ``max_turns``.
        winner: ``int8[B]`` the winner, or -1.
        rewards: ``float32[B, P]`` rewards of the last step.
        passed: ``bool[B, P, C]`` player q passed on a suggestion naming card c
            (public knowledge).
        showed: ``uint8[B, P, C]`` times player q showed a card for a
            suggestion naming card c (public: which card stays hidden).
        accused: ``bool[B, P, C]`` player q accused wrongly naming card c.
        events: ``int16[B, E, 7]`` events of the last step (see ``events``), every card in
            them shown (hidden: ``private_view`` gives a player's view).
        num_events: ``int8[B]`` rows used in ``events``.
        _key: ``uint64[B]`` random key; ``_draws``: ``uint32[B]`` draws used.
        _owner: ``int8[B, C]`` who holds each card: a player, ``ENVELOPE`` or
            ``FACE_DOWN``.
        _envelope: ``int16[B, 3]`` the solution's card ids.
        _face_down: ``int16[B, R]`` the face-down card on each room (-1 none).
        _shown_to: ``int8[B, P, C]`` private knowledge of each viewer: who showed
            it card c (-1 nobody); ``_peeked``: ``bool[B, P, C]`` face-down cards
            the viewer looked at (duel).
    """

    config: GameConfig
    seed: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    turn_player: np.ndarray
    turn: np.ndarray
    location: np.ndarray
    weapon_room: np.ndarray
    dice: np.ndarray
    suggestion: np.ndarray
    may_suggest: np.ndarray
    summoned: np.ndarray
    eliminated: np.ndarray
    reachable: np.ndarray
    enterable: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    winner: np.ndarray
    rewards: np.ndarray
    passed: np.ndarray
    showed: np.ndarray
    accused: np.ndarray
    events: np.ndarray
    num_events: np.ndarray
    _key: np.ndarray
    _draws: np.ndarray
    _owner: np.ndarray
    _envelope: np.ndarray
    _face_down: np.ndarray
    _shown_to: np.ndarray
    _peeked: np.ndarray

    def __post_init__(self) -> None:
        shapes = field_shapes(self.config, len(self.seed))
        arrays = []
        for name, dtype, _ in STATE_FIELDS:
            array = np.asarray(getattr(self, name))
            if array.shape != shapes[name]:
                raise ValueError(
                    f"State.{name} must have shape {shapes[name]} for this config and batch, got {array.shape}"
                )
            arrays.append(array.astype(dtype, copy=False))
        buffer, views = layout.pack(arrays, numbers=[len(self.seed)])  # (the batch: layout.BATCH)
        object.__setattr__(self, "_buffer", buffer)
        for (name, _, _), view in zip(STATE_FIELDS, views):
            object.__setattr__(self, name, view)

    def __setattr__(self, name: str, value: object) -> None:
        if name not in _FIELD_NAMES or "_buffer" not in self.__dict__:
            object.__setattr__(self, name, value)
            return
        old = getattr(self, name)  # a field replaced after construction: a new buffer, or none if refused
        object.__setattr__(self, name, value)
        try:
            self.__post_init__()
        except Exception:
            object.__setattr__(self, name, old)  # (a view of the buffer, which a refusal leaves as it was)
            raise

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_buffer"}

    def __setstate__(self, fields: dict) -> None:
        self.__dict__.update(fields)
        self.__post_init__()

    @property
    def batch_size(self) -> int:
        return len(self.seed)

    @property
    def done(self) -> np.ndarray:
        """``bool[B]``: terminated or truncated."""
        return self.terminated | self.truncated

    @property
    def turns_played(self) -> np.ndarray:
        """``int64[B]``: turns begun so far, the one under way included; a game truncated at
        ``max_turns`` played ``max_turns`` (its ``turn`` counts the turn it did not begin)."""
        return np.where(self.truncated, self.turn, self.turn + 1).astype(np.int64)

    def step_events(self, game: int) -> np.ndarray:
        """``int16[n, 7]``: the events of game ``game``'s last step (a view of ``events``;
        ``events.read_events`` reads them by name)."""
        return self.events[game, : self.num_events[game]]

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array field by name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "config"}

    def copy(self) -> State:
        """A deep copy."""
        return State(config=self.config, **{k: v.copy() for k, v in self.arrays().items()})

    def take(self, games: np.ndarray | list[int]) -> State:
        """The sub-batch of the given game indices (``game_indices``; repeats allowed), as a new state."""
        games = game_indices(games, self.batch_size)
        return State(config=self.config, **{k: v[games].copy() for k, v in self.arrays().items()})

    def put(self, games: np.ndarray | list[int], other: State) -> None:
        """Overwrite the games of the given indices (``game_indices``, each at most once) with the games
        of ``other`` (same config), in order."""
        if other.config != self.config:
            raise ValueError("cannot put games of another config into this state")
        games = game_indices(games, self.batch_size, distinct=True)
        for name, array in self.arrays().items():
            put_rows(array, games, getattr(other, name))

    def nbytes_per_game(self, include_events: bool = False) -> float:
        """Bytes of state per game (the last step's events excluded by default)."""
        total = sum(
            a.nbytes for k, a in self.arrays().items() if include_events or k not in ("events", "num_events")
        )
        return total / self.batch_size

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State) or other.config != self.config:
            return NotImplemented if not isinstance(other, State) else False
        return all(np.array_equal(v, getattr(other, k)) for k, v in self.arrays().items())

    __hash__ = None  # type: ignore[assignment]
