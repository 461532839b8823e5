"""The ``env`` section: agent-steps/s of the PettingZoo AEC env (raw and wrapped) over whole episodes.

With ``baseline=<revision>`` each run alternates with a run of that revision's env
(``experiments.benchmark.baseline``) over the same episodes, and each row carries the ratio.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

import numpy as np

from cluedo_env import core
from experiments.benchmark.baseline import Baseline
from experiments.benchmark.random_play import random_choice

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def measure_env(
    num_players: int, wrapped: bool, agent_steps: int, seed: int, warmup_episodes: int = 1
) -> dict:
    """Agent-steps/s of the PettingZoo AEC env with random legal actions (rare accusations).

    The env plays one game at a time, so timing whole episodes from the deal to the end weighs
    every age of a game as a long run does (steady state): at least ``agent_steps`` agent-steps,
    always whole episodes. ``warmup_episodes`` untimed episodes come first (first-use costs).
    """
    from cluedo_env import cluedo_v0

    env = cluedo_v0.env(num_players=num_players) if wrapped else cluedo_v0.raw_env(num_players=num_players)
    layout = core.rules_for(core.GameConfig(num_players=num_players)).layout
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    rng = np.random.default_rng(seed)

    def episode(episode_seed: int) -> tuple[int, float]:
        """One whole game: its agent-steps and the seconds spent choosing actions (not counted)."""
        steps, choose = 0, 0.0
        env.reset(seed=episode_seed)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                tick = time.perf_counter()
                mask = observation["action_mask"].astype(bool)[None, :]
                action = int(random_choice(rng, mask, accuse)[0])
                choose += time.perf_counter() - tick
            env.step(action)
            steps += action is not None  # (a finished agent's closing None is no decision)
        return steps, choose

    for k in range(warmup_episodes):
        episode(1_000_003 * (seed + 1) + k)  # seeds apart from the timed episodes' seed, seed + 1, ...
    steps, episodes, choose = 0, 0, 0.0
    start = time.perf_counter()
    while steps < agent_steps:
        episode_steps, episode_choose = episode(seed + episodes)
        steps += episode_steps
        choose += episode_choose
        episodes += 1
    elapsed = time.perf_counter() - start - choose
    return {
        "agent_steps_per_s": steps / elapsed,
        "agent_steps": steps,
        "episodes": episodes,
        "warmup_episodes": warmup_episodes,
    }


def rows(cfg: BenchmarkConfig) -> list[dict]:
    """The section's rows: ``raw_env`` and ``env()`` for every player count of ``cfg``, each the
    median of ``cfg.repeats`` runs (alternating with the baseline's, when given)."""

    def figure(p: int, wrapped: bool, baseline: Baseline | None) -> dict:
        runs, baseline_rates = [], []
        for r in range(cfg.repeats):
            job = {"num_players": p, "wrapped": wrapped, "agent_steps": cfg.env_steps, "seed": cfg.seed + r}
            runs.append(measure_env(**job))
            if baseline is not None:
                baseline_rates.append(baseline.measure_env(**job)["agent_steps_per_s"])
        row = {key: float(np.median([run[key] for run in runs])) for key in runs[0]}
        if baseline is not None:
            rate = float(np.median(baseline_rates))
            row |= {
                "baseline": baseline.revision,
                "baseline_agent_steps_per_s": rate,
                "speedup": row["agent_steps_per_s"] / rate,
            }
        return row

    with contextlib.ExitStack() as stack:
        baseline = stack.enter_context(Baseline(cfg.baseline)) if cfg.baseline else None
        return [
            {"players": p, "env": "env()" if wrapped else "raw_env", **figure(p, wrapped, baseline)}
            for p in cfg.players
            for wrapped in (False, True)
        ]


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print("\nPettingZoo AEC env (random legal actions; whole episodes after an untimed one)")
    for row in rows:
        print(
            f"  {row['env']:8s} {row['players']} players: {row['agent_steps_per_s']:,.0f} agent-steps/s "
            f"({row['agent_steps']:,.0f} agent-steps in {row['episodes']:.0f} episodes)"
            + (
                f"; baseline {row['baseline_agent_steps_per_s']:,.0f}, speed-up {row['speedup']:.2f}x"
                if "baseline" in row
                else ""
            )
        )
    if rows and "baseline" in rows[0]:
        print(f"  baseline: the env of revision {rows[0]['baseline']}, runs alternating with this code's")
