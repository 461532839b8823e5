"""Game records: record a game's actions and events, save them as JSON Lines, replay and verify them.

A game is a function of its config, seed and actions, so a record holds just
those, plus every step's full (unfiltered) events to check a replay against.
The file format (``.jsonl``, one JSON object per line):

- line 1, the header: ``{"format": "cluedo-replay", "version": 1, "config": {...},
  "seed": int, "initial_events": [[7 ints], ...]}``; ``config`` has every
  ``GameConfig`` field (the edition by name, or spelled out when the config was
  built from an ``Edition`` object), ``initial_events`` are the deal's events;
- then one line per step: ``{"step": i, "player": acting player, "action": int,
  "action_text": str, "events": [[7 ints], ...]}``;
- last, the end line: ``{"end": {"steps": n, "finished": bool, "sha256": hex}}``:
  the number of steps, whether the game was over, and the SHA-256 digest of
  every byte before this line.

The end line makes damage detectable: a file cut anywhere (even at a line
boundary) lacks it and loads as *incomplete*; a changed, added or removed line
breaks the digest or the step count and loads as *altered*, as does a step the
rules would not allow (replayed by ``verify``, which also refuses steps after
the game's end). The digest guards against accidents and casual edits, not
against a forger who rewrites it: it is no signature. So every value is also
checked as it is read, before it is used: integers are JSON integers in their
range (a seed in ``[0, 2**63)``, a player, an action id, events in int16's
range; never a float, a bool or a string taken for one), the lines hold exactly
their fields, and ``action_text`` is its action's; a forged value loads as
*altered*, naming the line and the field.

Typical use::

    recorder = GameRecorder(config, seed)
    state = core.init(config, [seed])
    while not state.done[0]:
        action = choose(state)
        core.step(state, [action])
        recorder.append(action, state)
    recorder.to_jsonl("game.jsonl")
    verify(load_jsonl("game.jsonl"))

Command line: ``python -m cluedo_env.replay RECORD.jsonl --gif out.gif [--frames DIR]
[--viewer 2] [--transcript out.txt] [--every N]``; ``python -m cluedo_env.replay
RECORD.jsonl --verify`` checks a record and says "verified", "incomplete" or "altered".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.actions import ActionLayout
from cluedo_env.core.config import GameConfig
from cluedo_env.core.editions import Edition
from cluedo_env.core.game import init, legal_action_mask, rules_for, step
from cluedo_env.core.rng import SEED_BOUND
from cluedo_env.core.state import State
from cluedo_env.transcript import describe_event

__all__ = [
    "FORMAT",
    "VERSION",
    "AlteredRecord",
    "GameRecorder",
    "IncompleteRecord",
    "Replay",
    "load_jsonl",
    "main",
    "record_random_game",
    "replay",
    "transcript",
    "verify",
]

FORMAT = "cluedo-replay"
VERSION = 2  # 2: the end line (steps, finished, sha256)
EVENT_WIDTH = len(ev.EVENT_FIELDS)
EVENT_MIN, EVENT_MAX = int(np.iinfo(np.int16).min), int(np.iinfo(np.int16).max)  # events are int16 rows
HEADER_FIELDS = ("format", "version", "config", "seed", "initial_events")
STEP_FIELDS = ("step", "player", "action", "action_text", "events")
SHOWN_CHARS = 80  # of a value from the file quoted in a message
RANDOM_ACCUSE_RATE = 0.01  # record_random_game accuses with this probability when it may
GIF_FRAME_MS = 250
GIF_LAST_FRAME_MS = 2500
GIF_COLOURS = 128


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
        finished: Whether the game was over after the last step (``GameRecorder`` keeps it).
    """

    config: GameConfig
    seed: int
    initial_events: np.ndarray
    players: list[int] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    events: list[np.ndarray] = field(default_factory=list)
    finished: bool = False

    @property
    def num_steps(self) -> int:
        return len(self.actions)

    def to_jsonl(self, path: str | Path) -> None:
        """Write the record as JSON Lines (see the module docstring for the format)."""
        layout = ActionLayout(self.config)
        header = {
            "format": FORMAT,
            "version": VERSION,
            "config": _config_to_json(self.config),
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
        self.record = Replay(config=config, seed=int(seed), initial_events=_game_events(state, 0))
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
        self.record.events.append(_game_events(state_after, game))
        self._next_player = int(state_after.current_player[game])
        self.record.finished = bool(state_after.done[game])

    def to_jsonl(self, path: str | Path) -> None:
        """Write the record (see ``Replay.to_jsonl``)."""
        self.record.to_jsonl(path)


def _game_events(state: State, game: int) -> np.ndarray:
    return state.step_events(game).astype(np.int16).copy()


def _as_replay(record: Replay | GameRecorder) -> Replay:
    return record.record if isinstance(record, GameRecorder) else record


# --- the file format -------------------------------------------------------------------


def _config_to_json(config: GameConfig) -> dict:
    values = {f.name: getattr(config, f.name) for f in fields(config) if f.init}
    edition = config.edition
    if isinstance(edition, Edition):  # spelled out, so that the loaded config equals this one
        values["edition"] = {f.name: getattr(edition, f.name) for f in fields(edition)}
    return values


def _config_from_json(values: object) -> GameConfig:
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

    Raises:
        FileNotFoundError: No file at ``path``.
        IncompleteRecord: The file ends before its end line (it was cut).
        AlteredRecord: A line was changed, added or removed (the digest or the step count
            of the end line disagrees), or a line does not hold what it should: a header field,
            a step out of order, a value of the wrong type or out of range (a player, an
            action, an event that is not an int16, a seed that is not an integer in
            ``[0, 2**63)``), an ``action_text`` that is not its action's.
        ValueError: The file is not a cluedo-replay record (the message names the
            path, the line and what was expected there).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such replay file (expected a .jsonl cluedo-replay record)")
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    expected = (
        f"a JSON Lines record starting with a header {{'format': '{FORMAT}', 'version': {VERSION}, ...}}"
    )
    if not data.strip():
        raise ValueError(f"{path}: the file is empty; expected {expected}")
    try:
        header = _json_line(lines[0])
    except ValueError as error:
        raise ValueError(f"{path}, line 1: {error}; expected {expected}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{path}, line 1: not a {FORMAT} header; expected {expected}")
    version = header.get("version")
    if type(version) is not int or version != VERSION:
        raise ValueError(
            f"{path}, line 1: version {_shown(version)} is not supported; expected {VERSION} "
            "(version 1 records have no end line to check them by: record the game again)"
        )
    ends = [number for number, line in enumerate(lines) if _end_of(line) is not None]
    if not ends:
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
    try:
        if sorted(header) != sorted(HEADER_FIELDS):
            raise ValueError(f"the header's fields are {_shown(sorted(header))}")
        config = _config_from_json(header["config"])
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


# --- replaying ---------------------------------------------------------------------------


def replay(record: Replay | GameRecorder) -> Iterator[State]:
    """Re-run a record with ``core.init`` and ``core.step``.

    Yields:
        The state after the deal, then a copy of the state after each recorded
        step (``num_steps + 1`` single-game states in all).
    """
    record = _as_replay(record)
    state = init(record.config, [record.seed])
    yield state.copy()
    for action in record.actions:
        step(state, [action])
        yield state.copy()


def verify(record: Replay | GameRecorder) -> State:
    """Check that replaying ``record`` gives exactly its recorded events, and ends as recorded.

    Events are what is checked: two actions with the same consequences (say
    ``toward`` two rooms whose nearest reachable square is the same) replay alike.

    Returns:
        The final state of the replayed game.

    Raises:
        AlteredRecord: Naming the first step whose player, legality or events differ, a step
            after the game's end, or a game that ends (or not) unlike the record says.
    """
    record = _as_replay(record)
    state = init(record.config, [record.seed])
    _compare("the deal (initial events)", record.initial_events, _game_events(state, 0))
    for i, (player, action, expected) in enumerate(zip(record.players, record.actions, record.events)):
        if state.done[0]:
            raise AlteredRecord(f"step {i}: recorded after the game ended (at step {i - 1})")
        acting = int(state.current_player[0])
        if acting != player:
            raise AlteredRecord(f"step {i}: recorded player {player}, but player {acting} acts in the replay")
        try:
            step(state, [action])
        except ValueError as error:
            raise AlteredRecord(f"step {i}: the recorded action cannot be replayed: {error}") from None
        _compare(f"step {i}", expected, _game_events(state, 0))
    if bool(state.done[0]) != record.finished:
        said, did = ("finished", "is still running") if record.finished else ("unfinished", "is over")
        raise AlteredRecord(
            f"the record says the game is {said} after {record.num_steps} steps; the replay {did}"
        )
    return state


def _compare(where: str, expected: np.ndarray, actual: np.ndarray) -> None:
    if expected.shape == actual.shape and np.array_equal(expected, actual):
        return
    rows = min(len(expected), len(actual))
    first = next((k for k in range(rows) if not np.array_equal(expected[k], actual[k])), rows)
    raise AlteredRecord(
        f"{where}: events differ from the record at event {first}: recorded "
        f"{expected[first : first + 1].tolist()}, replayed {actual[first : first + 1].tolist()} "
        f"({len(expected)} recorded events, {len(actual)} replayed)"
    )


def transcript(record: Replay | GameRecorder, viewer: int | None = None) -> list[str]:
    """The game as readable lines, from one player's point of view.

    Args:
        record: A recorded game.
        viewer: The player whose view is told (cards it may not see read "a card",
            and other players' deals are left out); ``None`` tells everything.

    Returns:
        One line per event: ``"deal: ..."`` for the deal, ``"<step>: ..."`` after.
    """
    record = _as_replay(record)
    config = record.config
    if viewer is not None and not 0 <= viewer < config.num_players:
        raise ValueError(f"viewer must be a player in [0, {config.num_players}) or None, got {viewer}")
    who = "everyone" if viewer is None else f"P{viewer} ({config.cards.suspects[viewer]})"
    lines = [f"Game of {config.num_players} players, seed {record.seed}, as seen by {who}"]
    for label, events in [("deal", record.initial_events), *enumerate(record.events)]:
        view = events if viewer is None else ev.private_view(events, viewer)
        for event in ev.read_events(view):
            if viewer is not None and event.kind == ev.DEAL and event.player != viewer:
                continue
            lines.append(f"{label}: {describe_event(config, event)}")
    return lines


# --- random games ---------------------------------------------------------------------


def record_random_game(
    config: GameConfig, seed: int, path: str | Path | None = None, rng_seed: int = 0
) -> Replay:
    """Play one game with uniformly random legal actions, accusing rarely, and record it.

    Each decision picks uniformly among the legal actions other than accusations;
    with probability ``RANDOM_ACCUSE_RATE`` (or when nothing else is legal) it picks
    uniformly among the legal accusations instead.

    Args:
        config: The rules.
        seed: The game's seed.
        path: Where to write the record as JSON Lines (``None``: not written).
        rng_seed: Seed of the action choices.

    Returns:
        The record.
    """
    rng = np.random.default_rng(rng_seed)
    layout = rules_for(config).layout
    accusations = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    recorder = GameRecorder(config, seed)
    state = init(config, [seed])
    while not state.done[0]:
        legal = legal_action_mask(state)[0]
        accusing = np.zeros_like(legal)
        accusing[accusations] = legal[accusations]
        calm = legal & ~accusing
        if accusing.any() and (not calm.any() or rng.random() < RANDOM_ACCUSE_RATE):
            calm = accusing
        action = int(rng.choice(np.flatnonzero(calm)))
        step(state, [action])
        recorder.append(action, state)
    if path is not None:
        recorder.to_jsonl(path)
    return recorder.record


# --- command line ------------------------------------------------------------------------


def _frames(record: Replay, every: int | None) -> Iterator[tuple[int, State]]:
    """``(step, state)`` to draw: each state whose pawns or weapons moved (or every N-th), and the last."""
    last_drawn = None
    states = replay(record)
    previous = None
    for index, state in enumerate(states):
        if every:
            wanted = index % every == 0
        else:
            wanted = last_drawn is None or not (
                np.array_equal(state.location, last_drawn.location)
                and np.array_equal(state.weapon_room, last_drawn.weapon_room)
            )
        if wanted:
            last_drawn = state
            yield index, state
        previous = (index, state)
    if previous is not None and previous[1] is not last_drawn:
        yield previous


def _write_outputs(args: argparse.Namespace) -> None:
    from PIL import Image

    from cluedo_env.render import render_rgb

    record = load_jsonl(args.record)
    if args.viewer is not None and not 0 <= args.viewer < record.config.num_players:
        raise ValueError(f"--viewer must be a player in [0, {record.config.num_players}), got {args.viewer}")
    if args.every is not None and args.every < 1:
        raise ValueError(f"--every must be a positive number of steps, got {args.every}")
    verify(record)
    if args.transcript:
        Path(args.transcript).write_text("\n".join(transcript(record, args.viewer)) + "\n", encoding="utf-8")
    elif not (args.gif or args.frames):
        print("\n".join(transcript(record, args.viewer)))
    if not (args.gif or args.frames):
        return
    frames_dir = Path(args.frames) if args.frames else None
    if frames_dir:
        frames_dir.mkdir(parents=True, exist_ok=True)
    palette = None
    gif_frames: list[Image.Image] = []
    for index, state in _frames(record, args.every):
        image = Image.fromarray(render_rgb(state, 0, scale=args.scale, viewer=args.viewer))
        if frames_dir:
            image.save(frames_dir / f"frame_{index:05d}.png")
        if args.gif:
            # One palette for every frame keeps the GIF small and its frames as compact "P" images.
            if palette is None:
                palette = image.quantize(GIF_COLOURS, dither=Image.Dither.NONE)
            gif_frames.append(image.quantize(palette=palette, dither=Image.Dither.NONE))
    if args.gif and gif_frames:
        durations = [GIF_FRAME_MS] * (len(gif_frames) - 1) + [GIF_LAST_FRAME_MS]
        gif_frames[0].save(
            args.gif, save_all=True, append_images=gif_frames[1:], duration=durations, loop=0, optimize=False
        )
    print(
        f"{args.record}: {record.num_steps} steps"
        + (f", GIF of {len(gif_frames)} frames -> {args.gif}" if args.gif else "")
        + (f", PNG frames -> {frames_dir}" if frames_dir else "")
        + (f", transcript -> {args.transcript}" if args.transcript else "")
    )


def _verify_file(path: str) -> int:
    """``--verify``: print what the record is; 0 verified, 1 incomplete or altered, 2 not a record."""
    try:
        record = load_jsonl(path)
        final = verify(record)
    except IncompleteRecord as error:
        print(error)
        return 1
    except AlteredRecord as error:
        message = str(error)
        print(message if "altered" in message else f"{path}: altered: {message}")
        return 1
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if record.finished:
        winner = int(final.winner[0])
        outcome = f"player {winner} won" if winner >= 0 else "nobody won"
        ending = f"the game ended ({outcome})" if not final.truncated[0] else "the game was truncated"
    else:
        ending = "the game was still running when it was saved"
    print(f"{path}: verified: {record.num_steps} steps; {ending}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m cluedo_env.replay",
        description="Turn a cluedo-replay record (.jsonl) into a GIF, PNG frames and/or a transcript.",
    )
    parser.add_argument("record", help="the record, as written by GameRecorder.to_jsonl")
    parser.add_argument("--gif", help="write an animated GIF here")
    parser.add_argument("--frames", help="write one PNG per frame into this folder")
    parser.add_argument(
        "--viewer", type=int, help="tell the game as this player sees it (default: everything)"
    )
    parser.add_argument("--transcript", help="write the transcript here (default: print it when no picture)")
    parser.add_argument(
        "--every", type=int, help="a frame every N steps (default: each step that moved a piece)"
    )
    parser.add_argument("--scale", type=int, default=16, help="pixels per board cell (default 16)")
    parser.add_argument(
        "--verify",
        action="store_true",
        help='only check the record: prints "verified", or "incomplete" or "altered" and why (exit status 1)',
    )
    args = parser.parse_args(argv)
    if args.verify:
        return _verify_file(args.record)
    try:
        _write_outputs(args)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
