"""The frozen, validated configuration of a game (every variant switch of docs/RULES.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from cluedo_env.core.editions import CATEGORIES, EDITIONS, Edition, get_edition
from cluedo_env.core.presets import PRESETS

__all__ = [
    "CONFIGS_KEPT",
    "CORNER_ROOMS",
    "DEALS",
    "LATER_FIELDS",
    "MAX_TURNS",
    "GameConfig",
    "check_choice",
    "config_fields",
    "read_fields",
    "written_fields",
]

BOARDS = ("classic", "none")
START_PLAYERS = ("dice", "scarlet", "random")
MOVEMENTS = ("compact", "squares")
DEALS = ("keys", "uniform")
# Fields added after configs were first written to files (game records, reasoning tasks, the hashes of
# tournament runs), with the value every earlier file meant: a file writes such a field only where it
# differs (``written_fields``), so that the files and hashes of everything played before stay the same.
LATER_FIELDS = {"deal": "keys"}
CLASSIC_BOARD_SUSPECTS = 6
CLASSIC_BOARD_ROOMS = 9
DUEL_FACE_DOWN_CARDS = 4
CORNER_ROOMS = (0, 2, 6, 8)  # Kitchen, Conservatory, Lounge, Study: the duel's face-down cards
MAX_TURNS = 2**15 - 1  # the turn number travels in int16 event fields
# How many configs a process keeps what it derived from (the rules' tables, about 0.6 MB each on the
# classic board, command words, card names), the least recently used forgotten first: a curriculum over
# max_turns or decks drawn at random stays within this many, and a config forgotten is derived again.
CONFIGS_KEPT = 64
INTEGER_FIELDS = ("num_players", "dice", "max_turns")
BOOL_FIELDS = ("stay_in_room", "accuse_anywhere", "duel", "auto_refute")


@dataclass(frozen=True)
class GameConfig:
    """Rules of a game. Defaults are the classic 1996 rules of ``docs/RULES.md``.

    ``GameConfig.preset(name)`` gives an edition as its booklet plays it (``PRESETS``).

    Attributes:
        edition: Name of an edition in ``EDITIONS`` (or an ``Edition``: one named as an edition of
            ``EDITIONS`` has its cards, as a name means one deck).
        num_players: 3 to 6; 2 only with ``duel``. Player ``i`` plays suspect ``i``.
        board: ``"classic"`` (24 x 25 grid, dice, corridors) or ``"none"`` (each
            turn the player picks any room to suggest in).
        dice: Number of dice rolled to move, 1 or 2.
        stay_in_room: Whether a player may stay in their room and suggest again.
        accuse_anywhere: Whether an accusation may be made outside a room.
        start_player: ``"dice"`` (highest roll starts, ties re-rolled),
            ``"scarlet"`` (player 0) or ``"random"``.
        duel: The 2-player duel variant: 4 cards lie face down on the 4 corner
            rooms and are looked at by whoever enters.
        max_turns: Games still running after this many turns are truncated
            (1 to ``MAX_TURNS`` = 32,767).
        movement: Movement action mode, ``"compact"`` (enter a reachable room or
            head toward a room) or ``"squares"`` (every reachable square).
        auto_refute: Whether a refuter holding exactly one named card shows it
            without a decision step of its own. Whether it decided is then public
            (the step, the phase and the player to act show it), so every player
            learns whether it held exactly one of the named cards; the event log
            does not record it, so ``cluedo_env.inference`` does not use it.
        deal: How the cards left after the envelope is filled are ordered for dealing:
            ``"keys"`` (the default, kept so that every published game replays) deals them in
            the order of the random keys that chose the envelope, whose largest key of each
            category went there: the leftover suspects and weapons tend to come before the rooms,
            so a seat's share of rooms depends slightly on where it sits (``docs/RULES.md``);
            ``"uniform"`` deals them in the order of fresh keys, a uniform shuffle (the deal
            exact beliefs assume).
    """

    edition: str | Edition = "classic"
    num_players: int = 4
    board: str = "classic"
    dice: int = 2
    stay_in_room: bool = True
    accuse_anywhere: bool = True
    start_player: str = "dice"
    duel: bool = False
    max_turns: int = 500
    movement: str = "compact"
    auto_refute: bool = False
    deal: str = "keys"
    _edition: Edition = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Integer-like values (numpy integers) become Python ints and numpy bools become bools,
        # once, here: every later use sees one type. Floats, strings and bools-as-integers are refused.
        for name in INTEGER_FIELDS:
            object.__setattr__(self, name, _integer(name, getattr(self, name)))
        for name in BOOL_FIELDS:
            value = getattr(self, name)
            if isinstance(value, np.bool_):
                object.__setattr__(self, name, bool(value))
        edition = self.edition if isinstance(self.edition, Edition) else None
        registered = EDITIONS.get(edition.name) if edition is not None else None
        if registered is not None and registered.cards != edition.cards:  # a name means one deck
            category = next(c for c in CATEGORIES if getattr(edition, c) != getattr(registered, c))
            raise ValueError(
                f"edition: an Edition named {edition.name!r} must have that edition's {category} "
                f"{list(getattr(registered, category))} (tasks, records and reports name an edition by its name), "
                f"got {list(getattr(edition, category))}; give a custom edition a name not in {sorted(EDITIONS)}"
            )
        if registered is not None and registered == edition:
            object.__setattr__(self, "edition", edition.name)  # a registered edition compares by name
        if edition is None:
            if not isinstance(self.edition, str) or self.edition not in EDITIONS:
                raise ValueError(
                    f"edition must be one of {sorted(EDITIONS)} or an Edition, got {self.edition!r}"
                )
            edition = get_edition(self.edition)
        object.__setattr__(self, "_edition", edition)
        for name in BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        check_choice("board", self.board, BOARDS)
        check_choice("start_player", self.start_player, START_PLAYERS)
        check_choice("movement", self.movement, MOVEMENTS)
        check_choice("deal", self.deal, DEALS)
        check_choice("dice", self.dice, (1, 2))
        if self.duel:
            check_choice("num_players", self.num_players, (2,), " with duel=True")
        else:
            check_choice("num_players", self.num_players, (3, 4, 5, 6), " (2 needs duel=True)")
        if not 1 <= self.max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns must be an integer in [1, {MAX_TURNS}], got {self.max_turns!r}")
        if edition.num_suspects < self.num_players:
            raise ValueError(
                f"num_players must be at most the edition's {edition.num_suspects} suspects, "
                f"got {self.num_players}"
            )
        if self.board == "classic" and (
            edition.num_suspects != CLASSIC_BOARD_SUSPECTS or edition.num_rooms != CLASSIC_BOARD_ROOMS
        ):
            raise ValueError(
                f"board='classic' needs an edition with 6 suspects and 9 rooms, got edition "
                f"{edition.name!r} with {edition.num_suspects} and {edition.num_rooms}; use board='none'"
            )
        if self.duel and self.num_hidden_cards < DUEL_FACE_DOWN_CARDS + 2:
            raise ValueError(f"duel needs at least 6 cards outside the envelope, got {self.num_hidden_cards}")
        if self.duel and edition.num_rooms <= max(CORNER_ROOMS):
            raise ValueError(
                f"duel needs an edition with the corner rooms {list(CORNER_ROOMS)} (at least "
                f"{max(CORNER_ROOMS) + 1} rooms), got edition {edition.name!r} with {edition.num_rooms}"
            )

    @property
    def cards(self) -> Edition:
        """The edition's card set."""
        return self._edition

    @property
    def num_hidden_cards(self) -> int:
        """Cards outside the envelope (dealt, or face down on rooms in the duel)."""
        return self._edition.num_cards - 3

    @property
    def num_face_down(self) -> int:
        """Cards lying face down on rooms (duel variant), else 0."""
        return DUEL_FACE_DOWN_CARDS if self.duel else 0

    @classmethod
    def preset(cls, name: str, **changes: object) -> GameConfig:
        """The rules of a named preset (``PRESETS``: ``"classic"``, ``"fr_1996"``, ``"de_2023"``,
        ``"de_2023_duel"``), with ``changes`` to its fields (validated as any config).

        Example: ``GameConfig.preset("de_2023", num_players=3)``.
        """
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
        return cls().replace(**{**PRESETS[name].fields, **changes})

    def replace(self, **changes: object) -> GameConfig:
        """A copy with some fields changed (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        unknown = sorted(set(changes) - set(values))
        if unknown:
            raise ValueError(f"unknown GameConfig field(s) {unknown}; fields are {sorted(values)}")
        values.update(changes)
        return GameConfig(**values)  # type: ignore[arg-type]


def _integer(name: str, value: object) -> int:
    """``value`` as a Python int if it is an integer (``int`` or a numpy integer, not a bool)."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return int(value)
    raise ValueError(f"{name} must be an integer (int or numpy integer), got {value!r}")


def check_choice(name: str, value: object, allowed: tuple, extra: str = "") -> None:
    """Refuse ``value`` unless it is one of ``allowed`` (a bool is not a number here).

    Raises:
        ValueError: naming ``name``, the values accepted (then ``extra``) and the value given.
    """
    if (isinstance(value, bool) and not all(isinstance(a, bool) for a in allowed)) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}{extra}, got {value!r}")


def config_fields(config: GameConfig) -> dict[str, object]:
    """``config``'s fields by name (the edition as given), as files and hashes write them (``written_fields``)."""
    return written_fields({f.name: getattr(config, f.name) for f in fields(config) if f.init})


def written_fields(values: dict[str, object]) -> dict[str, object]:
    """A config's fields by name, as files and hashes write them: less the ``LATER_FIELDS`` that hold
    the value every file written before them meant."""
    return {
        name: value
        for name, value in values.items()
        if name not in LATER_FIELDS or LATER_FIELDS[name] != value
    }


def read_fields(values: dict[str, object]) -> dict[str, object]:
    """A config's fields by name as a file holds them, with the ``LATER_FIELDS`` it lacks at the value it
    meant (a file written before a field existed): ``written_fields``'s inverse, to compare files."""
    return {**{name: value for name, value in LATER_FIELDS.items() if name not in values}, **values}
