"""The ``beliefs`` section: exact beliefs of seat 0 updated event by event through whole games, and their memory."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from cluedo_env import core
from experiments.benchmark.machine import memory_mib, reset_peak_memory

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def measure_beliefs(num_players: int, lineup: str, games: int, seed: int) -> dict:
    """Exact beliefs (``cluedo_env.inference.beliefs``) of seat 0 through whole classic games of ``lineup`` agents.

    The games are played first; then seat 0's view of each is replayed event by event, timing the
    incremental update after each event: ``RecordMaker.add`` and, when the event completes a record,
    ``Beliefs.add`` plus reading the posterior (every card's probabilities and the envelope's joint
    distribution). Figures per event and per record (the events that change something), and of a
    from-scratch ``beliefs`` call on each game's history at its middle and at its end. Memory: the
    peak resident size of this process while replaying (its peak is reset after the games are
    played, where Linux allows), next to its size before: an upper bound on what any one update used;
    both None where they cannot be measured (``machine.memory_mib``: Windows).
    """
    from agents.arena import EventLog, play_batch
    from agents.registry import make_agent
    from cluedo_env.core.events import read_events
    from cluedo_env.inference.beliefs import Beliefs, beliefs
    from cluedo_env.inference.from_events import RecordMaker, setup_of

    config = core.GameConfig(num_players=num_players)
    setup = setup_of(config)
    seeds = np.arange(seed, seed + games)
    logs = EventLog(games)
    agents = [make_agent(lineup, seed=seed + k) for k in range(num_players)]
    play_batch(config, agents, seeds, on_step=logs)
    event_s, record_s, scratch_s, records_per_game = [], [], [], []
    resident_mib = memory_mib("VmRSS")
    reset_peak_memory()
    for log in tqdm(logs, desc=f"beliefs {num_players}p {lineup}", unit="game", leave=False):
        view = core.private_view(log, 0)
        maker, state, records = RecordMaker(setup, 0), Beliefs(setup, 0), []
        for event in read_events(view):
            start = time.perf_counter()
            record = maker.add(event)
            if record is not None:
                state.add(record)
                posterior = state.posterior()
                posterior.probabilities()
                posterior.envelope()
            elapsed = time.perf_counter() - start
            event_s.append(elapsed)
            if record is not None:
                record_s.append(elapsed)
                records.append(record)
        records_per_game.append(len(records))
        for history in (records[: len(records) // 2], records):
            start = time.perf_counter()
            posterior = beliefs(setup, 0, history)
            posterior.probabilities()
            posterior.envelope()
            scratch_s.append(time.perf_counter() - start)
    row = {"players": num_players, "lineup": lineup, "games": games}
    for name, times in (("event", event_s), ("record", record_s), ("scratch", scratch_s)):
        ms = np.array(times) * 1e3
        row |= {
            f"{name}s_timed": len(ms),
            f"{name}_median_ms": float(np.median(ms)),
            f"{name}_p99_ms": float(np.percentile(ms, 99)),
            f"{name}_max_ms": float(ms.max()),
        }
    row["records_per_game"] = float(np.mean(records_per_game))
    row["rss_before_mib"] = resident_mib
    row["peak_rss_mib"] = memory_mib("VmHWM")
    return row


def rows(cfg: BenchmarkConfig) -> list[dict]:
    return [
        measure_beliefs(p, lineup, cfg.beliefs_games, cfg.seed)
        for p in cfg.players
        for lineup in cfg.beliefs_lineups
    ]


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print(f"\nexact beliefs of seat 0, classic board, {cfg.beliefs_games} games per row (ms)")
    print(
        f"  {'players':>7s} {'lineup':8s} {'event med':>9s} {'p99':>7s} {'max':>8s} "
        f"{'record med':>10s} {'p99':>7s} {'max':>8s} {'scratch med':>11s} {'max':>8s} {'MiB':>5s} {'peak':>5s}"
    )
    for row in rows:
        print(
            f"  {row['players']:7d} {row['lineup']:8s} {row['event_median_ms']:9.3f} "
            f"{row['event_p99_ms']:7.2f} {row['event_max_ms']:8.1f} {row['record_median_ms']:10.3f} "
            f"{row['record_p99_ms']:7.2f} {row['record_max_ms']:8.1f} {row['scratch_median_ms']:11.2f} "
            f"{row['scratch_max_ms']:8.1f} {_mib(row['rss_before_mib'])} {_mib(row['peak_rss_mib'])}"
        )
    if any(row["peak_rss_mib"] is None for row in rows):
        print("  MiB, peak: not measured (this Python has neither /proc nor the resource module)")


def _mib(value: float | None) -> str:
    """A memory figure of the table, ``-`` where it was not measured."""
    return f"{'-':>5s}" if value is None else f"{value:5.0f}"
