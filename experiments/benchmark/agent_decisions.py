"""The ``agents`` section: each agent's decision latency, the time it spends following the game, and games per second."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cluedo_env import core

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def measure_agents(num_players: int, games: int, seed: int, names: Sequence[str]) -> list[dict]:
    """Each agent of ``names`` (registered names, at their default options), seated with copies of
    itself: decision latency and games per second.

    Latency is timed per decision on games played one at a time (a batch of one), so it is what
    one decision costs; games per second are measured on one batch of ``games`` games. The time an
    agent spends following the game (``observe``, after every step; the belief agent updates its
    posterior there) is timed per call beside it.
    """
    from agents.arena import play_batch
    from agents.registry import make_agent

    config = core.GameConfig(num_players=num_players)
    rows = []
    for name in names:
        latencies: list[float] = []
        observing: list[float] = []
        for game in range(games):
            agents = [make_agent(name, seed=seed + k) for k in range(num_players)]
            for agent in agents:
                _time_act(agent, latencies)
                _time_observe(agent, observing)
            play_batch(config, agents, [seed + game])
        agents = [make_agent(name, seed=seed + k) for k in range(num_players)]
        start = time.perf_counter()
        result = play_batch(config, agents, np.arange(seed, seed + games))
        elapsed = time.perf_counter() - start
        per_decision = np.array(latencies)
        rows.append(
            {
                "agent": name,
                "players": num_players,
                "decision_median_ms": float(np.median(per_decision) * 1e3),
                "decision_p99_ms": float(np.percentile(per_decision, 99) * 1e3),
                "decisions_timed": len(per_decision),
                # An agent that does not follow the game (``observes`` false, e.g. random) is never
                # called to observe: no time to report.
                "observe_median_ms": float(np.median(observing) * 1e3) if observing else None,
                "observe_p99_ms": float(np.percentile(observing, 99) * 1e3) if observing else None,
                "games_per_s": games / elapsed,
                "decisions_per_game": float(result.decisions.mean()),
            }
        )
    return rows


def _time_act(agent, latencies: list[float]) -> None:
    """Wrap ``agent.act`` to record the time of each call (one decision in a batch of one)."""
    act = agent.act

    def timed(state, games, mask):
        start = time.perf_counter()
        actions = act(state, games, mask)
        latencies.append((time.perf_counter() - start) / len(games))
        return actions

    agent.act = timed


def _time_observe(agent, times: list[float]) -> None:
    """Wrap ``agent.observe`` to record the time of each call (one step of a batch of one)."""
    observe = agent.observe

    def timed(state, events):
        start = time.perf_counter()
        observe(state, events)
        times.append(time.perf_counter() - start)

    agent.observe = timed


def rows(cfg: BenchmarkConfig) -> list[dict]:
    return [row for p in cfg.players for row in measure_agents(p, cfg.agent_games, cfg.seed, cfg.agent_names)]


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print("\nagents (each seated with copies of itself, classic board)")
    print(
        f"  {'agent':8s} {'players':>7s} {'median ms':>10s} {'p99 ms':>8s} "
        f"{'observe median':>15s} {'observe p99':>12s} {'games/s':>8s}"
    )
    for row in rows:
        observe = [
            "-" if row[key] is None else f"{row[key]:.3f}" for key in ("observe_median_ms", "observe_p99_ms")
        ]
        print(
            f"  {row['agent']:8s} {row['players']:7d} {row['decision_median_ms']:10.3f} "
            f"{row['decision_p99_ms']:8.3f} {observe[0]:>15s} {observe[1]:>12s} {row['games_per_s']:8.2f}"
        )
