"""Game records: record a game's actions and events, save them as JSON Lines, replay and verify them.

The records and their file are ``cluedo_env.game_record``'s (its names are importable from here
too); this module replays them (``replay``, ``verify``), tells them (``transcript``), records
random games and is the command line.

A game is a function of its config, seed and actions, so a record holds just those, plus every
step's full (unfiltered) events to check a replay against; ``cluedo_env.game_record`` describes
the file (a header, one line per step, an end line with the SHA-256 digest of the rest) and
how a cut or altered file is told apart. A version-1 record (cluedo-env 0.1.0) has no end line:
it is replayed and checked step by step all the same, and the command line says once that whether
the file is whole cannot be told.

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
[--viewer 2] [--transcript out.txt] [--every N] [--scale 16]``; ``python -m cluedo_env.replay
RECORD.jsonl --verify`` checks a record and says "verified", "incomplete" or "altered". The outputs
are checked before any work: one that is the record itself, empty, a folder for ``--gif`` or
``--transcript`` or a file for ``--frames`` is refused in one line naming the option, and so is a
``--scale`` whose picture would pass ``cluedo_env.render_image.MAX_PIXELS`` (92 on the classic board).
``--gif`` writes a GIF whatever the file's extension. A terminal
that cannot show a character of the transcript (an ASCII one, ``PYTHONIOENCODING=ascii``) shows "?" in its place.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from cluedo_env.console import replace_unencodable
from cluedo_env.core import events as ev
from cluedo_env.core.config import GameConfig
from cluedo_env.core.game import init, legal_action_mask, rules_for, step
from cluedo_env.core.integers import ONE_INTEGER, one_integer
from cluedo_env.core.state import State
from cluedo_env.game_record import (
    FORMAT,
    VERSION,
    AlteredRecord,
    GameRecorder,
    IncompleteRecord,
    Replay,
    as_replay,
    game_events,
    load_jsonl,
)
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

VERSION_1_NOTE = (
    "a version-1 record (cluedo-env 0.1.0) has no end line: whether the file is whole cannot be told"
)
RANDOM_ACCUSE_RATE = 0.01  # record_random_game accuses with this probability when it may
GIF_FRAME_MS = 250
GIF_LAST_FRAME_MS = 2500
GIF_COLOURS = 128


# --- replaying ---------------------------------------------------------------------------


def replay(record: Replay | GameRecorder) -> Iterator[State]:
    """Re-run a record with ``core.init`` and ``core.step``.

    Yields:
        The state after the deal, then a copy of the state after each recorded
        step (``num_steps + 1`` single-game states in all).
    """
    record = as_replay(record)
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
            after the game's end, or a game that ends (or not) unlike the record says (a
            version-1 record, ``finished`` None, does not say).
    """
    record = as_replay(record)
    state = init(record.config, [record.seed])
    _compare("the deal (initial events)", record.initial_events, game_events(state, 0))
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
        _compare(f"step {i}", expected, game_events(state, 0))
    if record.finished is not None and bool(state.done[0]) != record.finished:
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
        viewer: The player whose view is told, one integer (``core.integers.one_integer``: an int, a
            numpy integer, or an array or tensor of one integer; cards it may not see
            read "a card", other players' deals are left out, and so is the seed, which deals
            every hand again); ``None`` tells everything, the seed too.

    Returns:
        A title line (``"Game of 4 players, as seen by P1 (Colonel Mustard)"``; ``"Game of 4
        players, seed 7, as seen by everyone"``), then one line per event: ``"deal: ..."`` for
        the deal, ``"<step>: ..."`` after.

    Raises:
        ValueError: A viewer that is not a player (a float or a bool is refused, not read as one).
    """
    record = as_replay(record)
    config = record.config
    player = None if viewer is None else one_integer(viewer)
    if viewer is not None and (player is None or not 0 <= player < config.num_players):
        raise ValueError(
            f"viewer must be a player in [0, {config.num_players}) ({ONE_INTEGER}) or None, got {viewer!r}"
        )
    viewer = player
    who = "everyone" if viewer is None else f"P{viewer} ({config.cards.suspects[viewer]})"
    seed = f", seed {record.seed}" if viewer is None else ""  # a player may not know it: it deals every hand
    lines = [f"Game of {config.num_players} players{seed}, as seen by {who}"]
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


# What each output option takes, for its refusals.
OUTPUTS = {
    "--gif": "a file for the GIF (e.g. game.gif)",
    "--frames": "a folder for the PNG frames (made if missing)",
    "--transcript": "a file for the transcript (e.g. game.txt)",
}


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output that is empty, the record itself (the same file, whatever its
    path), a folder for ``--gif`` or ``--transcript``, or a file for ``--frames``: ``ValueError`` naming
    the option and what it takes."""
    for option, accepts in OUTPUTS.items():
        value = getattr(args, option[2:])
        if value is None:
            continue
        path = Path(value)
        if not value.strip():
            raise ValueError(f"{option} is empty: give {accepts}")
        if path.exists() and Path(args.record).exists() and path.samefile(args.record):
            raise ValueError(f"{option} {value} is the record itself, which it would replace: give {accepts}")
        if option == "--frames" and path.exists() and not path.is_dir():
            raise ValueError(f"--frames {value} is not a folder: give {accepts}")
        if option != "--frames" and path.is_dir():
            raise ValueError(f"{option} {value} is a folder: give {accepts}")


def _write_outputs(args: argparse.Namespace) -> None:
    from PIL import Image

    from cluedo_env.render import render_rgb
    from cluedo_env.render_image import MAX_PIXELS, MIN_SCALE, max_scale

    _check_outputs(args)
    record = load_jsonl(args.record)
    if record.finished is None:
        print(f"warning: {args.record}: {VERSION_1_NOTE}", file=sys.stderr)
    if args.viewer is not None and not 0 <= args.viewer < record.config.num_players:
        raise ValueError(f"--viewer must be a player in [0, {record.config.num_players}), got {args.viewer}")
    if args.every is not None and args.every < 1:
        raise ValueError(f"--every must be a positive number of steps, got {args.every}")
    top = max_scale(record.config)
    if (args.gif or args.frames) and not MIN_SCALE <= args.scale <= top:
        raise ValueError(
            f"--scale must be from {MIN_SCALE} to {top} pixels per board cell (a picture of at most "
            f"{MAX_PIXELS:,} pixels), got {args.scale}"
        )
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
        gif_frames[0].save(  # a GIF whatever the name's extension (or none)
            args.gif, format="GIF", save_all=True, append_images=gif_frames[1:], duration=durations, loop=0,
            optimize=False,
        )  # fmt: skip
    print(
        f"{args.record}: {record.num_steps} steps"
        + (f", GIF of {len(gif_frames)} frames -> {args.gif}" if args.gif else "")
        + (f", PNG frames -> {frames_dir}" if frames_dir else "")
        + (f", transcript -> {args.transcript}" if args.transcript else "")
    )


def _verify_file(path: str) -> int:
    """``--verify``: print what the record is; 0 verified, 1 incomplete or altered, 2 not a record. The line
    of a verified version-1 record says that whether the file is whole cannot be told."""
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
    if final.done[0]:
        winner = int(final.winner[0])
        outcome = f"player {winner} won" if winner >= 0 else "nobody won"
        ending = f"the game ended ({outcome})" if not final.truncated[0] else "the game was truncated"
    elif record.finished is None:
        ending = "the game is still running after the last step"
    else:
        ending = "the game was still running when it was saved"
    note = f"; {VERSION_1_NOTE}" if record.finished is None else ""
    print(f"{path}: verified: {record.num_steps} steps; {ending}{note}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    replace_unencodable()
    parser = argparse.ArgumentParser(
        prog="python -m cluedo_env.replay",
        description="Turn a cluedo-replay record (.jsonl) into a GIF, PNG frames and/or a transcript.",
    )
    parser.add_argument("record", help="the record, as written by GameRecorder.to_jsonl")
    parser.add_argument("--gif", help="write an animated GIF here")
    parser.add_argument("--frames", help="write one PNG per frame into this folder")
    parser.add_argument(
        "--viewer",
        type=int,
        help="tell the game as this player sees it, the seed left out (default: everything, the seed too)",
    )
    parser.add_argument("--transcript", help="write the transcript here (default: print it when no picture)")
    parser.add_argument(
        "--every", type=int, help="a frame every N steps (default: each step that moved a piece)"
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=16,
        help="pixels per board cell, 8 to 92 on the classic board (default 16)",
    )
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
