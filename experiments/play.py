"""Play a few complete games between random players and print each game's story.

python -m experiments.play --games 3 --players 4 --seed 0
python -m experiments.play --human 0        # play seat 0 yourself, in words (agents/human.py)
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from agents.arena import play_batch
from agents.human import HumanAgent
from agents.random_agent import RandomAgent
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.transcript import story


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games to play (default 3)")
    parser.add_argument("--players", type=int, default=4, help="players, 3 to 6 (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument("--board", default="classic", help="classic or none")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    parser.add_argument("--human", type=int, metavar="SEAT", help="play seat SEAT yourself (one game)")
    args = parser.parse_args(argv)
    if args.human is not None:
        if not 0 <= args.human < args.players:
            parser.error(f"--human must be a seat in [0, {args.players}), got {args.human}")
        args.games = 1
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    try:
        config = core.GameConfig(num_players=args.players, board=args.board)
    except ValueError as error:
        parser.error(str(error))

    logs: list[list[np.ndarray]] = [[] for _ in range(args.games)]

    def record(state: core.State) -> None:
        for game in range(args.games):
            logs[game].append(state.events[game, : state.num_events[game]].copy())

    agents = [RandomAgent(seed=args.seed * 100 + k) for k in range(args.players)]
    if args.human is not None:
        agents[args.human] = HumanAgent()
    seeds = np.arange(args.seed, args.seed + args.games)
    result = play_batch(config, agents, seeds, on_step=record)
    quiet_kinds = (ev.DEAL, ev.ROLL, ev.MOVE, ev.WEAPON, ev.TURN)
    for game in range(args.games):
        if not args.quiet:
            print(f"=== game {game} (seed {seeds[game]}) ===")
            for line in story(config, np.concatenate(logs[game]), skip=quiet_kinds):
                print("  " + line)
    outcomes = Counter(
        f"P{w} won" if w >= 0 else ("truncated" if t else "nobody won")
        for w, t in zip(result.winner_seat, result.truncated, strict=True)
    )
    print(f"=== summary: {args.games} games, {args.players} random players, {config.board} board ===")
    print(f"  outcomes: {dict(sorted(outcomes.items()))}")
    print(f"  turns: mean {result.turns.mean():.1f}, decisions per game: mean {result.decisions.mean():.1f}")
    print(f"  accusations: {int(result.accusations.sum())}, wrong: {int(result.wrong_accusations.sum())}")


if __name__ == "__main__":
    main()
