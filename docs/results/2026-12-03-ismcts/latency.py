"""The IS-MCTS agent's decision latency against three SAT agents: every decision, and the searched ones.

    python docs/results/2026-12-03-ismcts/latency.py --games 40 --iterations 64 --output latency.json

Games are played one at a time (a batch of one, as the benchmark's ``agents`` section times its
agents), 4 players, the agent in seat ``game % 4``; each ``act`` call is timed (one decision), and
so is each search (the decisions with more than one candidate). Prints and writes the medians and
99th percentiles in milliseconds with the counts, and the machine's load (``os.getloadavg``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from agents.arena import play_batch
from agents.reasoners.ismcts import ISMCTSAgent
from agents.registry import make_agent
from cluedo_env import core


def measure(games: int, iterations: int, seed: int) -> dict:
    """Median and p99 decision time (ms) of the agent over ``games`` games against three SAT agents."""
    config = core.GameConfig(num_players=4)
    decisions: list[float] = []
    searches: list[float] = []
    load_before = os.getloadavg()
    for game in range(games):
        agent = ISMCTSAgent(seed=seed + game, iterations=iterations)
        act, search = agent.act, agent.search

        def timed_act(state, chosen, mask, act=act):
            start = time.perf_counter()
            actions = act(state, chosen, mask)
            decisions.append((time.perf_counter() - start) / len(chosen))
            return actions

        def timed_search(state, index, search=search):
            start = time.perf_counter()
            result = search(state, index)
            searches.append(time.perf_counter() - start)
            return result

        agent.act, agent.search = timed_act, timed_search
        field = [make_agent("sat", seed=seed + 100 + k) for k in range(3)]
        seat = game % 4
        players = [*field[:seat], agent, *field[seat:]]
        play_batch(config, players, [seed + game])

    def summary(times: list[float]) -> dict:
        ms = np.array(times) * 1e3
        return {"count": len(ms), "median_ms": float(np.median(ms)), "p99_ms": float(np.percentile(ms, 99))}

    return {
        "games": games,
        "iterations": iterations,
        "players": 4,
        "opponents": "3 sat",
        "decisions": summary(decisions),
        "searched_decisions": summary(searches),
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=None, help="a JSON file to write the figures to")
    args = parser.parse_args()
    result = measure(args.games, args.iterations, args.seed)
    print(json.dumps(result, indent=2))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as file:
            json.dump(result, file, indent=2)


if __name__ == "__main__":
    main()
