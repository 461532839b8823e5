"""Play a few complete games between agents and print each game's story.

    python -m experiments.play --games 3                          # sat, notepad, random, notepad
    python -m experiments.play --agents sat,random,random --seed 7 # one name per seat: 3 players
    python -m experiments.play --agents learned,sat,sat,sat --quiet # the learning agent against 3 SAT agents
    python -m experiments.play --duel --games 1                    # the 2-player duel: sat vs notepad
    cluedo-play --players 6 --board none --quiet                   # the same, installed as a command
    python -m experiments.play --human 0                           # play seat 0 yourself, in words
    python -m experiments.play --human 0 --preset de_2023 --players 3  # ... the German edition, 3 players
    python -m experiments.play --games 2 --record games            # and save replays: games/game-0.jsonl

Agent ``k`` of ``--agents`` sits at seat ``P{k}`` in every game; ``--games`` is at most 10,000 (they
are played at once, as one batch: a tournament plays more). By default seat 0 is the SAT
agent and the others alternate notepad and random players (who accuse only rarely), so the
games end with a winner: uniformly random players accuse wrongly at once and nobody wins.
``--human SEAT`` (or the name ``human`` in ``--agents``) seats you there for one game, played in
words (``agents/human.py``: type ``help`` for the commands); after your own story of the game only
the summary is printed, as with ``--quiet`` (the whole story would show the cards the others showed
each other). Your game is dealt from a seed drawn at random, a new deal each sitting, unless ``--seed``
is given; the seed is printed in the summary when the game ends, never before (it deals every hand
again), and ``--seed`` with it deals the same game again. Games of agents alone start from seed 0
unless ``--seed`` is given, so the same command plays the same games. ``--preset NAME`` plays the
rules of a preset of ``core.PRESETS`` (``classic``, ``fr_1996``, ``de_2023``, ``de_2023_duel``: an
edition as its booklet plays it); ``--players``,
``--agents``, ``--duel`` and ``--board``, when given, override it. Ctrl-C stops the games with one
line (exit status 130). ``--record`` saves each game's replay as it ends, and a game left early
(Ctrl-C, ``quit``, the end of the input, an error) as far as it went. A terminal that cannot show a
character of the story (an ASCII one, ``PYTHONIOENCODING=ascii``: the "é" of "Révérend Olive") shows "?" in its place.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from agents.arena import EventLog, play_batch
from agents.base import Agent
from agents.llm.errors import ChatUnreachable
from agents.registry import AGENTS, make_agent
from cluedo_env import __version__, core
from cluedo_env.console import replace_unencodable
from cluedo_env.core import events as ev
from cluedo_env.game_record import GameRecorder
from cluedo_env.transcript import story

__all__ = ["default_agents", "main"]


MAX_GAMES = 10_000  # --games at most: every game is played at once (one batch, its events all kept)


def default_agents(players: int) -> list[str]:
    """The default line-up: SAT at seat 0, then notepad and random players in turn."""
    return ["sat"] + [("notepad", "random")[k % 2] for k in range(players - 1)]


def _setup(argv: list[str] | None) -> tuple[argparse.Namespace, core.GameConfig, list[str], list[Agent]]:
    """The command line read and checked: options, rules, agent names and agents (errors exit with usage)."""
    title, _, rest = __doc__.partition("\n")
    parser = argparse.ArgumentParser(
        description=f"{title} (cluedo-env {__version__})\n{rest}",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # keep the examples' lines
    )
    parser.add_argument(
        "--games", type=int, default=3, help=f"games to play, at most {MAX_GAMES} (default 3)"
    )
    parser.add_argument(
        "--agents",
        help=f"comma-separated agents, one per seat, from {sorted(AGENTS)} or 'package.module:Class' "
        "(default: sat, then notepad and random in turn; 'sb3' and 'rllib' need a trained model's path, "
        "which a tournament line-up gives as options: {path: ...})",
    )
    parser.add_argument(
        "--players", type=int, help="players, 3 to 6 (default: one per --agents name, else 4; 2 with --duel)"
    )
    parser.add_argument("--duel", action="store_true", help="the 2-player duel (4 cards face down)")
    parser.add_argument(
        "--seed",
        type=int,
        help="seed of the first game, the next games' counting up (default 0; with a human seat, drawn at "
        "random and printed when the game ends)",
    )
    parser.add_argument("--board", help="classic or none (default: the preset's, classic)")
    parser.add_argument(
        "--preset",
        default="classic",
        metavar="NAME",
        help=f"the rules of a preset, one of {sorted(core.PRESETS)} (default classic); the other options "
        "override it where given",
    )
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="save each game's replay as DIR/game-<seed>.jsonl as it ends, a game left early as far as it "
        "went (python -m cluedo_env.replay FILE --gif ...)",
    )
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    parser.add_argument("--human", type=int, metavar="SEAT", help="play seat SEAT yourself (one game)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.games > MAX_GAMES:
        parser.error(
            f"--games must be at most {MAX_GAMES} (the games are played at once, in one batch; a tournament "
            f"plays more: python -m experiments.tournament), got {args.games}"
        )
    names = [name.strip() for name in args.agents.split(",")] if args.agents is not None else None
    if names is not None and not all(names):
        parser.error(f"--agents needs comma-separated names, got {args.agents!r}")
    if args.preset not in core.PRESETS:
        parser.error(f"--preset must be one of {sorted(core.PRESETS)}, got {args.preset!r}")
    preset = core.PRESETS[args.preset].fields
    args.duel = args.duel or bool(preset.get("duel", False))
    if args.players is not None:
        players = args.players
    else:
        players = len(names) if names else 2 if args.duel else preset.get("num_players", 4)
    if names is not None and len(names) != players:
        parser.error(f"--agents names {len(names)} agents for {players} players: give one per seat")
    names = names or default_agents(players)
    if args.human is not None:  # the same as naming "human" at that seat in --agents
        if not 0 <= args.human < players:
            parser.error(f"--human must be a seat in [0, {players}), got {args.human}")
        names[args.human] = "human"
    if names.count("human") > 1:  # one terminal: each would see the other's hand and shows
        parser.error(f"one human seat a terminal, got {names.count('human')} (seats of --agents and --human)")
    if "human" in names:
        args.games = 1  # one person plays one game at a time
        if hasattr(sys.stdin, "reconfigure"):  # a byte that is no text is read as a "?" (a strict decoder
            sys.stdin.reconfigure(errors="replace")  # raises, and drops the lines it read with it)
    if args.seed is None:  # a person gets a new deal each sitting, drawn from every seed, as the web server
        # does (a smaller range could be searched for the deal that matches one's hand); agents' games seed 0
        args.seed = secrets.randbelow(core.SEED_BOUND) if "human" in names else 0
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.seed > core.SEED_BOUND - args.games:  # (checked for the default seed too)
        parser.error(
            f"--seed must be at most {core.SEED_BOUND - args.games} (2**63 - --games: the games' seeds count "
            f"up from it and stay below 2**63), got {args.seed}"
        )
    try:
        agents = [make_agent(name, seed=args.seed * 100 + k) for k, name in enumerate(names)]
    except (TypeError, ValueError) as error:
        parser.error(f"--agents: {error}")
    if players == 2 and not args.duel:
        parser.error("2 players play the duel: add --duel")
    try:
        given = {"board": args.board} if args.board is not None else {}
        config = core.GameConfig.preset(args.preset, num_players=players, duel=args.duel, **given)
    except ValueError as error:
        parser.error(
            f"--preset {args.preset} with these options: {error}" if args.preset != "classic" else str(error)
        )
    if args.record is not None:  # before any game: a replay already there is never overwritten
        if args.record.exists() and not args.record.is_dir():
            parser.error(f"--record must be a folder, got the file {args.record}")
        taken = [_record_path(args.record, seed) for seed in range(args.seed, args.seed + args.games)]
        if any(path.exists() for path in taken):
            parser.error(f"--record: {next(p for p in taken if p.exists())} exists; choose another folder")
        try:  # made now, not when the first game ends (a person's game would be played for nothing)
            args.record.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            parser.error(f"--record: cannot make the folder {args.record} ({error.strerror or error})")
    for k, agent in enumerate(agents):  # before any game, as the tournament does
        try:
            agent.check_config(config)
        except ValueError as error:
            parser.error(f"--agents: seat {k} ({names[k]}) cannot play these rules: {error}")
    return args, config, names, agents


def main(argv: list[str] | None = None) -> None:
    """Play ``--games`` games between ``--agents`` and print their stories and a summary."""
    replace_unencodable()
    args, config, names, agents = _setup(argv)

    logs = EventLog(args.games)
    seeds = args.seed + np.arange(args.games, dtype=np.int64)  # (np.arange of a seed near 2**63 gives floats)
    recorders = [GameRecorder(config, int(seed)) for seed in seeds] if args.record is not None else []

    def save(game: int) -> None:  # (into the folder _setup made)
        recorders[game].to_jsonl(_record_path(args.record, int(seeds[game])))

    def record(actions: np.ndarray, stepped: np.ndarray, state: core.State) -> None:
        for game in np.flatnonzero(stepped).tolist():
            recorders[game].append(int(actions[game]), state, game=game)
            if recorders[game].record.finished:  # saved as it ends: a later game's fault loses nothing
                save(game)

    def save_unfinished() -> None:
        """On leaving early: the games not over are saved as far as they went (``finished`` false)."""
        unfinished = [g for g, recorder in enumerate(recorders) if not recorder.record.finished]
        for game in unfinished:
            save(game)
        if unfinished:
            print(
                f"unfinished games saved as far as they went: {len(unfinished)} in {args.record}/",
                file=sys.stderr,
            )

    try:
        result = play_batch(config, agents, seeds, on_step=logs, on_action=record if recorders else None)
    except KeyboardInterrupt:  # Ctrl-C, at a human's prompt or in an agent's thinking: no traceback
        print("\ninterrupted: game abandoned", file=sys.stderr)
        sys.exit(130)
    except ChatUnreachable as error:  # an llm seat's endpoint: a wrong URL or a server not started
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    finally:  # left early (Ctrl-C, a human's quit or end of input, an error): nothing played is lost
        save_unfinished()
    seating = ", ".join(f"P{k} {name}" for k, name in enumerate(names))
    quiet_kinds = (ev.DEAL, ev.ROLL, ev.MOVE, ev.WEAPON, ev.TURN)
    for game in range(args.games):
        if not args.quiet and "human" not in names:  # a person has had their own story (agents/human.py)
            print(f"=== game {game} (seed {seeds[game]}): {seating} ===")
            for line in story(config, logs[game], skip=quiet_kinds):
                print("  " + line)
    outcomes = Counter(
        f"P{w} ({names[w]}) won" if w >= 0 else ("truncated" if t else "nobody won")
        for w, t in zip(result.winner_seat, result.truncated, strict=True)
    )
    rules = "duel" if config.duel else f"{config.num_players} players"
    rules += f", preset {args.preset}" if args.preset != "classic" else ""
    print(f"=== summary: {args.games} games, {rules}, {config.board} board: {seating} ===")
    print(f"  outcomes: {dict(sorted(outcomes.items()))}")
    print(f"  turns: mean {result.turns.mean():.1f}, decisions per game: mean {result.decisions.mean():.1f}")
    print(f"  accusations: {int(result.accusations.sum())}, wrong: {int(result.wrong_accusations.sum())}")
    if "human" in names:  # told only now, the game over: the seed deals every hand again
        print(f"  seed: {seeds[0]} (--seed {seeds[0]} deals this game again)")
    if recorders:  # (each saved as its game ended)
        first = _record_path(args.record, int(seeds[0]))
        print(
            f"  replays: {len(recorders)} in {args.record}/ (python -m cluedo_env.replay {first} --gif game.gif)"
        )


def _record_path(folder: Path, seed: int) -> Path:
    """Where ``--record`` saves the replay of the game of ``seed``."""
    return folder / f"game-{seed}.jsonl"


if __name__ == "__main__":
    main()
