"""The flat action space: named ranges, ``encode``/``decode`` and ``action_to_string``.

Every decision of the game is one integer action. The ranges, in order:

=================  =====================  ==============================================
range              size                   meaning
=================  =====================  ==============================================
``roll``           1                      roll the dice (start of a turn)
``passage``        1                      take the secret passage instead of rolling
``stay``           1                      stay in the room (to suggest there again)
``no_move``        1                      after a roll with every way blocked: stay put
``enter``          R                      enter room r (after a roll; with
                                          ``board="none"``: go to room r, any turn)
``toward``         R (compact)            head toward room r: stop on the reachable
                                          square nearest to r (fewest moves into r;
                                          ties to the lowest square number)
``square``         N squares (squares)    stop on playable square k
``suggest``        S x W                  suggest suspect s with weapon w in this room
``no_suggestion``  1                      end the move without suggesting
``show``           C                      (refuter) show card c to the suggester
``accuse``         S x W x R              accuse suspect s, weapon w, room r
``end_turn``       1                      end the turn without accusing
=================  =====================  ==============================================

``toward`` exists in ``movement="compact"``, ``square`` in ``movement="squares"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluedo_env.core.board import classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.integers import ONE_INTEGER, one_integer

__all__ = ["INDEXED", "RANGE_NAMES", "ActionLayout"]

RANGE_NAMES = (
    "roll",
    "passage",
    "stay",
    "no_move",
    "enter",
    "toward",
    "square",
    "suggest",
    "no_suggestion",
    "show",
    "accuse",
    "end_turn",
)
INDEXED = ("enter", "toward", "square", "show")  # one argument: a room, a square or a card (even of one)


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of the named action ranges for one game config.

    ``layout.sizes[name]`` and ``layout.offsets[name]`` give each range;
    ``layout.ROLL``, ``layout.ACCUSE``, ... are the offsets as attributes.
    """

    config: GameConfig
    sizes: dict[str, int] = field(init=False, repr=False, compare=False)
    offsets: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        e = self.config.cards
        s, w, r = e.num_suspects, e.num_weapons, e.num_rooms
        compact = self.config.movement == "compact"
        sizes = {
            "roll": 1,
            "passage": 1,
            "stay": 1,
            "no_move": 1,
            "enter": r,
            "toward": r if compact else 0,
            "square": 0 if compact else classic_board().num_squares,
            "suggest": s * w,
            "no_suggestion": 1,
            "show": e.num_cards,
            "accuse": s * w * r,
            "end_turn": 1,
        }
        offsets, start = {}, 0
        for name in RANGE_NAMES:
            offsets[name] = start
            object.__setattr__(self, name.upper(), start)
            start += sizes[name]
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "offsets", offsets)

    @property
    def num_actions(self) -> int:
        return self.offsets["end_turn"] + 1

    def encode(self, kind: str, *args: int) -> int:
        """The action id of ``kind`` with its arguments.

        ``encode("suggest", s, w)``, ``encode("accuse", s, w, r)`` (``s``, ``w``,
        ``r`` are indices within their category), ``encode("show", card)``,
        ``encode("enter", room)``, ``encode("roll")`` ... Each argument is one integer
        (``integers.one_integer``: an int, a numpy integer, or an array or tensor of one integer; not a
        bool); the action is a Python int.
        """
        if kind not in RANGE_NAMES or self.sizes[kind] == 0:
            available = [n for n in RANGE_NAMES if self.sizes[n]]
            raise ValueError(f"action kind must be one of {available}, got {kind!r}")
        e = self.config.cards
        dims = {
            "suggest": (e.num_suspects, e.num_weapons),
            "accuse": (e.num_suspects, e.num_weapons, e.num_rooms),
        }.get(kind, (self.sizes[kind],) if kind in INDEXED else ())
        values = [one_integer(a) for a in args]
        if len(args) != len(dims) or not all(
            a is not None and 0 <= a < d for a, d in zip(values, dims, strict=True)
        ):
            raise ValueError(
                f"{kind} takes one integer argument per range of {dims} ({ONE_INTEGER} each), got {args}"
            )
        index = 0
        for a, d in zip(values, dims, strict=True):
            index = index * d + a
        return self.offsets[kind] + index

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """The inverse of ``encode``: ``(kind, args)``, of Python ints, for one integer ``action``
        (``integers.one_integer``: an int, a numpy integer, or an array or tensor of one integer, as
        ``predict()`` gives it; not a bool)."""
        value = one_integer(action)
        if value is None or not 0 <= value < self.num_actions:
            raise ValueError(f"action must be {ONE_INTEGER} in [0, {self.num_actions}), got {action!r}")
        action = value
        kind = next(n for n in reversed(RANGE_NAMES) if self.sizes[n] and self.offsets[n] <= action)
        index = action - self.offsets[kind]
        e = self.config.cards
        if kind == "suggest":
            return kind, divmod(index, e.num_weapons)
        if kind == "accuse":
            sw, r = divmod(index, e.num_rooms)
            return kind, (*divmod(sw, e.num_weapons), r)
        return kind, ((index,) if kind in INDEXED else ())

    def action_to_string(self, action: int) -> str:
        """A readable description in the edition's card names."""
        kind, args = self.decode(action)
        e = self.config.cards
        if kind == "suggest":
            return f"suggest {e.suspects[args[0]]} with the {e.weapons[args[1]]}"
        if kind == "accuse":
            return f"accuse {e.suspects[args[0]]} with the {e.weapons[args[1]]} in the {e.rooms[args[2]]}"
        if kind == "show":
            return f"show {e.cards[args[0]]}"
        if kind in ("enter", "toward"):
            return f"{kind} {e.rooms[args[0]]}"
        if kind == "square":
            row, col = classic_board().squares[args[0]]
            return f"move to square ({row},{col})"
        return kind.replace("_", " ")
