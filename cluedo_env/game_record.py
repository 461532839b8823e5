"""Game records: a game's actions and events, recorded (``GameRecorder``), saved as JSON Lines and read back.

A game is a function of its config, seed and actions, so a record holds just
those, plus every step's full (unfiltered) events to check a replay against.
The file format (``.jsonl``, one JSON object per line):

- line 1, the header: ``{"format": "cluedo-replay", "version": 2, "config": {...},
  "seed": int, "initial_events": [[7 ints], ...]}``; ``config`` has every
  ``GameConfig`` field (the edition by name, or spelled out when the config was
  built from an ``Edition`` object), ``initial_events`` are the deal's events;
- then one line per step: ``{"step": i, "player": acting player, "action": int,
  "action_text": str, "events": [[7 ints], ...]}``;
- last, the end line: ``{"end": {"steps": n, "finished": bool, "sha256": hex}}``:
  the number of steps, whether the game was over, and the SHA-256 digest of
  every byte before this line.

The end line makes damage detectable: a file cut anywhere (even at a line
boundary) lacks it and loads as *incomplete*: its last line is the header or a
whole or partial step line, as a cut leaves it. A changed, added or removed line
breaks the digest or the step count and loads as *altered*, as does a last line
that no cut leaves (a damaged end line: not JSON, or an object that is not a
step) and a step the rules would not allow (replayed by
``cluedo_env.replay.verify``, which also refuses steps after the game's end).
A header that is not one (not JSON, another format or version) makes the file
*not a record* (``ValueError``; ``--verify`` exits with status 2), unless the
file ends with an end line whose digest the lines before it do not match: then
the header was damaged, and the file loads as *altered*. The digest guards
against accidents and casual edits, not against a forger who rewrites it: it is
no signature. So every value is also
checked as it is read, before it is used: integers are JSON integers in their
range (a seed in ``[0, 2**63)``, a player, an action id, events in int16's
range; never a float, a bool or a string taken for one), the lines hold exactly
their fields, and ``action_text`` is its action's; a forged value loads as
*altered*, naming the line and the field.

Version 1 (cluedo-env 0.1.0) is version 2 without the end line: the same header
(``"version": 1``) and step lines, and nothing after the last step. Such a record
is read as it is: whether it is whole cannot be told from a digest (a file cut at
a line boundary reads as a shorter game), and it does not say whether the game
was over (``Replay.finished`` is None). A last line cut short is *incomplete*, an
end line in it is *altered*, and replaying it checks every step's events against
the rules as for version 2 (a changed step, or a game of other rules, is refused
naming the step).

``cluedo_env.replay`` replays and verifies records, and is their command line.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.actions import ActionLayout
from cluedo_env.core.config import GameConfig, config_fields
from cluedo_env.core.editions import Edition
from cluedo_env.core.game import init
from cluedo_env.core.rng import SEED_BOUND
from cluedo_env.core.state import State

__all__ = [
    "FORMAT",
    "VERSION",
    "AlteredRecord",
    "GameRecorder",
    "IncompleteRecord",
    "Replay",
    "as_replay",
    "config_from_json",
    "config_to_json",
    "game_events",
    "load_jsonl",
]


FORMAT = "cluedo-replay"
VERSION = 2  # 2: the end line (steps, finished, sha256)
VERSIONS = (1, VERSION)  # read; 1 (cluedo-env 0.1.0) has no end line
EVENT_WIDTH = len(ev.EVENT_FIELDS)
EVENT_MIN, EVENT_MAX = int(np.iinfo(np.int16).min), int(np.iinfo(np.int16).max)  # events are int16 rows
HEADER_FIELDS = ("format", "version", "config", "seed", "initial_events")
STEP_FIELDS = ("step", "player", "action", "action_text", "events")
SHOWN_CHARS = 80  # of a value from the file quoted in a message
EXPECTED = f"a JSON Lines record starting with a header {{'format': '{FORMAT}', 'version': {VERSION}, ...}}"


class IncompleteRecord(ValueError):
    """A record file that ends before its end line: it was cut (a crash, a partial copy)."""


class AlteredRecord(ValueError):
    """A record whose lines do not match its end line, or whose steps the rules do not replay."""


@dataclass
class Replay:
    """One recorded game.

    Attributes:
        config: The rules.
        seed: The game's seed.
        initial_events: ``int16[n, 7]`` events of the deal (``core.init``).
        players: The acting player of each step.
        actions: The action of each step.
        events: ``int16[n_i, 7]`` full events of each step.
        finished: Whether the game was over after the last step (``GameRecorder`` keeps it);
            None where the record does not say: a version-1 record, which has no end line.
    """

    config: GameConfig
    seed: int
    initial_events: np.ndarray
    players: list[int] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    events: list[np.ndarray] = field(default_factory=list)
    finished: bool | None = False

    @property
    def num_steps(self) -> int:
        return len(self.actions)

    def to_jsonl(self, path: str | Path) -> None:
        """Write the record as JSON Lines, version 2 (see the module docstring for the format).

        Raises:
            ValueError: ``finished`` is None (a version-1 record read back): the end line must say it.
        """
        if self.finished is None:
            raise ValueError(
                "finished is None (a version-1 record does not say whether the game was over): set it to "
                "True or False before writing the record (bool(cluedo_env.replay.verify(record).done[0]))"
            )
        layout = ActionLayout(self.config)
        header = {
            "format": FORMAT,
            "version": VERSION,
            "config": config_to_json(self.config),
            "seed": int(self.seed),
            "initial_events": self.initial_events.tolist(),
        }
        lines = [header] + [
            {
                "step": i,
                "player": player,
                "action": action,
                "action_text": layout.action_to_string(action),
                "events": events.tolist(),
            }
            for i, (player, action, events) in enumerate(zip(self.players, self.actions, self.events))
        ]
        body = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
        body = body.encode("utf-8")
        end = {"end": {"steps": self.num_steps, "finished": bool(self.finished), "sha256": _digest(body)}}
        Path(path).write_bytes(body + json.dumps(end, separators=(",", ":")).encode("utf-8") + b"\n")


def _digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


class GameRecorder:
    """Collects one game's actions and full events, step by step.

    The recorder deals the game itself from ``(config, seed)`` to know the deal's
    events and the first player; the game being recorded may be game ``i`` of a
    batch (``append(..., game=i)``), since a game depends only on its own seed.

    Attributes:
        record: The ``Replay`` built so far.
    """

    def __init__(self, config: GameConfig, seed: int) -> None:
        state = init(config, [seed])
        self.record = Replay(config=config, seed=int(seed), initial_events=game_events(state, 0))
        self._next_player = int(state.current_player[0])

    def append(self, action: int, state_after: State, game: int = 0) -> None:
        """Record the step that applied ``action`` and led to ``state_after``.

        Args:
            action: The action applied to the recorded game.
            state_after: The state after ``core.step`` (read, not kept).
            game: Which game of ``state_after``'s batch is the recorded one.
        """
        if self.record.finished:
            raise ValueError(
                f"the recorded game ended at step {self.record.num_steps - 1}; "
                "append only the steps of games still running"
            )
        if int(state_after.seed[game]) != self.record.seed or state_after.config != self.record.config:
            raise ValueError(
                f"game {game} of this state has seed {int(state_after.seed[game])} or another config; "
                f"the recorder records seed {self.record.seed} with {self.record.config}"
            )
        self.record.players.append(self._next_player)
        self.record.actions.append(int(action))
        self.record.events.append(game_events(state_after, game))
        self._next_player = int(state_after.current_player[game])
        self.record.finished = bool(state_after.done[game])

    def to_jsonl(self, path: str | Path) -> None:
        """Write the record (see ``Replay.to_jsonl``)."""
        self.record.to_jsonl(path)


def game_events(state: State, game: int) -> np.ndarray:
    """``int16[n, 7]``: a copy of the full events of game ``game``'s last step (or of its deal)."""
    return state.step_events(game).astype(np.int16).copy()


def as_replay(record: Replay | GameRecorder) -> Replay:
    """The ``Replay`` of a record, or of what a recorder has recorded so far."""
    return record.record if isinstance(record, GameRecorder) else record


# --- the file format -------------------------------------------------------------------


def config_to_json(config: GameConfig) -> dict:
    """A header's ``config``: every ``GameConfig`` field (those of ``LATER_FIELDS`` where they differ
    from what files before them meant), the edition by name or spelled out."""
    values = config_fields(config)
    edition = config.edition
    if isinstance(edition, Edition):  # spelled out, so that the loaded config equals this one
        values["edition"] = {f.name: getattr(edition, f.name) for f in fields(edition)}
    return values


def config_from_json(values: object) -> GameConfig:
    """The ``GameConfig`` of a header's ``config``; ``ValueError`` naming a field that is not one."""
    if not isinstance(values, dict):
        raise ValueError(f"config must be a JSON object of GameConfig fields, got {_shown(values)}")
    values = dict(values)
    known = {f.name for f in fields(GameConfig) if f.init}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown config field(s) {_shown(unknown)}; fields are {sorted(known)}")
    edition = values.get("edition")
    if isinstance(edition, dict):  # spelled out: each field checked by Edition itself
        names = [f.name for f in fields(Edition)]
        if sorted(edition) != sorted(names):
            raise ValueError(f"config edition must have the fields {names}, got {_shown(sorted(edition))}")
        values["edition"] = Edition(**{k: tuple(v) if isinstance(v, list) else v for k, v in edition.items()})
    return GameConfig(**values)  # checks every value (types, ranges), naming the field


def _shown(value: object) -> str:
    """``repr(value)``, cut to ``SHOWN_CHARS``: a message quotes the file, never all of a long value."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _integer(value: object, name: str, low: int, high: int) -> int:
    """``value`` if it is an int (not a bool, a float or a string) in ``[low, high)``; else ``ValueError``."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}), got {_shown(value)}")
    return value


def _event_rows(value: object, where: str) -> np.ndarray:
    """``int16[n, 7]`` events from a JSON list of rows of 7 integers, each in int16's range."""
    expected = f"events must be a list of rows of {EVENT_WIDTH} integers in [{EVENT_MIN}, {EVENT_MAX}]"
    if not isinstance(value, list):
        raise ValueError(f"{where}: {expected}, got {_shown(value)}")
    for k, row in enumerate(value):
        if not isinstance(row, list) or len(row) != EVENT_WIDTH:
            raise ValueError(f"{where}: {expected}; row {k} is {_shown(row)}")
        for column, entry in enumerate(row):
            if not isinstance(entry, int) or isinstance(entry, bool) or not EVENT_MIN <= entry <= EVENT_MAX:
                raise ValueError(f"{where}: {expected}; row {k}, column {column} is {_shown(entry)}")
    return np.array(value, dtype=np.int16).reshape(len(value), EVENT_WIDTH)


def _json_line(line: bytes) -> object:
    """A line's JSON value; ``ValueError`` when it is not JSON (or nests or counts beyond the parser's limits)."""
    try:
        return json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise ValueError(f"not JSON ({type(error).__name__}: {_shown(str(error))})") from None


def load_jsonl(path: str | Path) -> Replay:
    """Read a record written by ``to_jsonl``, checking it against its end line.

    A version-1 record (cluedo-env 0.1.0) has no end line: it is read as it is, with ``finished``
    None, and only ``cluedo_env.replay.verify`` checks it (see the module docstring).

    Raises:
        FileNotFoundError: No file at ``path``.
        IncompleteRecord: The file ends before its end line (it was cut): its last line is
            the header, a step line or the start of a step or end line; or the last line of a
            version-1 record is cut short.
        AlteredRecord: A line was changed, added or removed (the digest or the step count
            of the end line disagrees, or the last line is one no cut leaves: a damaged end
            line; or a version-1 record holds an end line), or a line does not hold what it
            should: a header field, a step out of order, a value of the wrong type or out of
            range (a player, an action, an event that is not an int16, a seed that is not an
            integer in ``[0, 2**63)``), an ``action_text`` that is not its action's.
        ValueError: The file is not a cluedo-replay record (the message names the
            path, the line and what was expected there): line 1 is not a header of this
            format and of version 2 or 1. A damaged header reads so too, unless the file ends
            with an end line whose digest disagrees (then ``AlteredRecord``).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such replay file (expected a .jsonl cluedo-replay record)")
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    if not data.strip():
        raise ValueError(f"{path}: the file is empty; expected {EXPECTED}")
    header, problem, advice = _header_of(lines[0])
    if problem is not None:
        end = _end_of(lines[-1])
        if len(lines) > 1 and end is not None and end.get("sha256") != _digest(b"".join(lines[:-1])):
            raise AlteredRecord(
                f"{path}, line 1: altered: {problem}, and the lines before the end line do not match "
                "its sha256 digest (the header was damaged)"
            )
        raise ValueError(f"{path}, line 1: {problem}; {advice}")
    if header["version"] == 1:
        last, finished = _version_1_end(path, lines), None
    else:
        last, finished = _checked_end(path, data, lines)
    try:
        if sorted(header) != sorted(HEADER_FIELDS):
            raise ValueError(f"the header's fields are {_shown(sorted(header))}")
        config = config_from_json(header["config"])
        record = Replay(
            config=config,
            seed=_integer(header["seed"], "seed", 0, SEED_BOUND),
            initial_events=_event_rows(header["initial_events"], "initial_events"),
        )
    except (TypeError, ValueError) as error:
        raise AlteredRecord(
            f"{path}, line 1: altered: bad header ({error}); expected the fields {', '.join(HEADER_FIELDS)}"
        ) from None
    record.finished = finished
    layout = ActionLayout(record.config)
    for number, line in enumerate(lines[1:last], start=2):
        where = f"{path}, line {number}"
        try:
            player, action, events = _step_of(_json_line(line), number - 2, record.config, layout)
        except ValueError as error:
            raise AlteredRecord(
                f"{where}: altered: bad step ({error}); expected {{{', '.join(map(repr, STEP_FIELDS))}}}"
            ) from None
        record.players.append(player)
        record.actions.append(action)
        record.events.append(events)
    return record


def _checked_end(path: Path, data: bytes, lines: list[bytes]) -> tuple[int, bool]:
    """The end line's index and ``finished`` of a version-2 record, checked against the lines before it."""
    ends = [number for number, line in enumerate(lines) if _end_of(line) is not None]
    if not ends:
        if len(lines) > 1 and not _cut_line(lines[-1]):
            raise AlteredRecord(
                f"{path}, line {len(lines)}: altered: no end line, and the last line is neither a step line "
                f"nor the start of one, as a cut leaves it: the file was changed, not cut (a damaged end "
                f"line?); the line is {_shown(lines[-1])}"
            )
        cut = "" if data.endswith(b"\n") else ", the last one cut short"
        raise IncompleteRecord(
            f"{path}: incomplete: {len(lines)} lines{cut} and no end line; the file was cut after "
            f"at most {len(lines) - 1} steps"
        )
    last = ends[0]
    if last != len(lines) - 1:
        raise AlteredRecord(f"{path}, line {last + 2}: altered: a line after the end line")
    end = _end_of(lines[last])
    body = b"".join(lines[:last])
    if end.get("sha256") != _digest(body):
        raise AlteredRecord(f"{path}: altered: the lines before the end line do not match its sha256 digest")
    steps, finished = end.get("steps"), end.get("finished")
    if type(steps) is not int or steps != last - 1 or not isinstance(finished, bool) or len(end) != 3:
        raise AlteredRecord(
            f"{path}, line {last + 1}: altered: the end line says {_shown(steps)} steps (finished: "
            f"{_shown(finished)}), the file holds {last - 1}; expected {{'steps', 'finished', 'sha256'}}"
        )
    return last, finished


def _version_1_end(path: Path, lines: list[bytes]) -> int:
    """Where the steps of a version-1 record end: after its last line (it has no end line).

    A last line cut short is ``IncompleteRecord`` (its writer ended every line); an end line is
    ``AlteredRecord`` (version 1 has none: line 1 or that line was changed)."""
    ends = [number for number, line in enumerate(lines) if _end_of(line) is not None]
    if ends:
        raise AlteredRecord(
            f"{path}, line {ends[0] + 1}: altered: an end line in a version-1 record, which has none "
            "(line 1 or this line was changed)"
        )
    if len(lines) > 1 and not lines[-1].endswith((b"\n", b"\r")) and _cut_line(lines[-1]):
        raise IncompleteRecord(
            f"{path}: incomplete: {len(lines)} lines, the last one cut short (a version-1 record, with no "
            f"end line); the file was cut after {len(lines) - 2} whole steps"
        )
    return len(lines)


def _step_of(
    entry: object, step: int, config: GameConfig, layout: ActionLayout
) -> tuple[int, int, np.ndarray]:
    """(player, action, events) of step line number ``step``, each field type- and range-checked."""
    if not isinstance(entry, dict) or sorted(entry) != sorted(STEP_FIELDS):
        shown = _shown(sorted(entry)) if isinstance(entry, dict) else _shown(entry)
        raise ValueError(f"a step line is a JSON object of the fields {list(STEP_FIELDS)}, got {shown}")
    if type(entry["step"]) is not int or entry["step"] != step:
        raise ValueError(f"step {_shown(entry['step'])} out of order, expected step {step}")
    player = _integer(entry["player"], "player", 0, config.num_players)
    action = _integer(entry["action"], "action", 0, layout.num_actions)
    text = layout.action_to_string(action)
    if entry["action_text"] != text:
        raise ValueError(
            f"action_text {_shown(entry['action_text'])} is not the text of action {action} ({text!r})"
        )
    return player, action, _event_rows(entry["events"], "events")


def _header_of(line: bytes) -> tuple[object, str | None, str]:
    """Line 1's JSON value, what makes it no supported header (None when it is one), and what is expected."""
    try:
        header = _json_line(line)
    except ValueError as error:
        return None, str(error), f"expected {EXPECTED}"
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return header, f"not a {FORMAT} header", f"expected {EXPECTED}"
    version = header.get("version")
    if type(version) is not int or version not in VERSIONS:
        advice = f"expected {VERSION}, or 1 (a record of cluedo-env 0.1.0, read without an end line)"
        return header, f"version {_shown(version)} is not supported", advice
    return header, None, ""


def _cut_line(line: bytes) -> bool:
    """Whether ``line``, the last of a file with no end line, is what a cut leaves: a whole step line,
    or the start of a step or end line (cut inside it, so with no line break)."""
    if line.endswith((b"\n", b"\r")):
        try:
            entry = _json_line(line)
        except ValueError:
            return False
        return isinstance(entry, dict) and "step" in entry
    start = line.lstrip()
    return any(start.startswith(prefix) or prefix.startswith(start) for prefix in (b'{"step":', b'{"end":'))


def _end_of(line: bytes) -> dict | None:
    """The contents of an end line, or None when the line is not one."""
    if not line.lstrip().startswith(b'{"end"'):  # steps are not parsed twice
        return None
    try:
        entry = _json_line(line)
    except ValueError:
        return None
    if isinstance(entry, dict) and set(entry) == {"end"} and isinstance(entry["end"], dict):
        return entry["end"]
    return None
