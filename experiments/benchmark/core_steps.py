"""The ``core`` and ``observe`` sections: agent-steps/s of the rules core (mask + step + re-deals, with or
without the acting player's observation) at steady state, optionally beside an earlier revision's core."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from cluedo_env import core
from experiments.benchmark.baseline import Baseline
from experiments.benchmark.random_play import RandomBatch, game_length

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def measure_core(
    config: core.GameConfig,
    batch: int,
    steps: int,
    seed: int,
    observe: bool = False,
    warmup_cycles: int = 1,
) -> dict:
    """Agent-steps/s of mask + step (+ observation of the acting player) of ``cluedo_env.core`` at
    steady state (in a baseline's worker process, that revision's core).

    A freshly dealt batch holds only games at their start, which step faster than games under way;
    timing those would flatter the core. So the batch is first played until ``warmup_cycles *
    batch`` games have finished (each slot re-dealt once on average for 1: the batch then holds
    games of every age), and only then are ``steps`` steps timed. The first ``steps`` steps of the
    warm-up are timed too, apart: what timing a fresh batch reads, for comparison.

    Returns:
        ``agent_steps_per_s`` (timed steps), ``choose_actions_s_per_step`` (the random player, not
        counted), ``core_s_per_step``, ``state_bytes_per_game`` (None where the core cannot tell); the warm-up: ``warmup_steps``,
        ``warmup_finished_games``, ``fresh_agent_steps_per_s`` over its first ``fresh_steps``
        steps; and the spread of the games' ages (decisions since their deal) when timing starts:
        ``age_min``, ``age_p10``, ``age_median``, ``age_p90``, ``age_max``, and
        ``redealt_fraction`` (the share of games dealt during the warm-up).
    """
    return steady_state(RandomBatch(config, batch, seed, observe), batch, steps, warmup_cycles)


def steady_state(games: RandomBatch, batch: int, steps: int, warmup_cycles: int = 1) -> dict:
    """``measure_core``'s figures of any batch of games stepped by ``games.step()`` (a
    ``RandomBatch``: its policy, fused mask or not): warm-up until ``warmup_cycles * batch`` games
    have finished, then ``steps`` timed steps. Besides ``measure_core``'s figures,
    ``loop_agent_steps_per_s``: the agent-steps over core and choosing time together (the whole
    loop, policy included)."""
    if isinstance(warmup_cycles, bool) or not isinstance(warmup_cycles, int) or warmup_cycles < 1:
        raise ValueError(
            f"warmup_cycles must be an int >= 1 (games finished per batch slot), got {warmup_cycles!r}"
        )
    games.warm_up()  # the first calls of the core's functions, paid before any timing
    warmup_steps = warmup_finished = 0
    fresh_time = 0.0
    while warmup_finished < warmup_cycles * batch:
        core_s, _, finished = games.step()
        if warmup_steps < steps:
            fresh_time += core_s
        warmup_finished += finished
        warmup_steps += 1
    fresh_steps = min(steps, warmup_steps)
    ages = games.age.copy()
    redealt_fraction = float(games.redealt.mean())
    core_time = choose_time = 0.0
    for _ in range(steps):
        core_s, choose_s, _ = games.step()
        core_time += core_s
        choose_time += choose_s
    return {
        "agent_steps_per_s": steps * batch / core_time,
        "loop_agent_steps_per_s": steps * batch / (core_time + choose_time),
        "choose_actions_s_per_step": choose_time / steps,
        "core_s_per_step": core_time / steps,
        "state_bytes_per_game": (
            games.state.nbytes_per_game() if hasattr(games.state, "nbytes_per_game") else None
        ),
        "warmup_steps": warmup_steps,
        "warmup_finished_games": warmup_finished,
        "fresh_steps": fresh_steps,
        "fresh_agent_steps_per_s": fresh_steps * batch / fresh_time,
        "age_min": float(ages.min()),
        "age_p10": float(np.percentile(ages, 10)),
        "age_median": float(np.median(ages)),
        "age_p90": float(np.percentile(ages, 90)),
        "age_max": float(ages.max()),
        "redealt_fraction": redealt_fraction,
    }


def side_by_side(repeats: int, run: Callable[[int], dict], baseline: Baseline | None, **job) -> dict:
    """The median of each figure of ``repeats`` runs of ``run(repeat)`` (this code's core) and, with a
    ``baseline``, its ``agent_steps_per_s`` for the same ``job`` (``measure_core``'s arguments but
    the seed) as ``baseline_agent_steps_per_s`` and the ratio ``speedup``; runs of the two
    alternate, so both see the machine alike."""
    runs, baseline_rates = [], []
    for r in range(repeats):
        runs.append(run(r))
        if baseline is not None:
            baseline_rates.append(
                baseline.measure_core(**{**job, "seed": job["seed"] + r})["agent_steps_per_s"]
            )
    figures = {
        key: None if runs[0][key] is None else float(np.median([f[key] for f in runs])) for key in runs[0]
    }
    if baseline is not None:
        rate = float(np.median(baseline_rates))
        figures |= {"baseline_agent_steps_per_s": rate, "speedup": figures["agent_steps_per_s"] / rate}
    return figures


def rows(cfg: BenchmarkConfig, observe: bool) -> list[dict]:
    """The section's rows: every (players, batch) of ``cfg`` (a ``BenchmarkConfig``)."""
    rows = []
    jobs = [(p, b) for p in cfg.players for b in cfg.batch_sizes]
    lengths = {p: game_length(core.GameConfig(num_players=p), 256, cfg.seed) for p in cfg.players}
    with contextlib.ExitStack() as stack:
        baseline = stack.enter_context(Baseline(cfg.baseline)) if cfg.baseline else None
        for p, b in tqdm(jobs, desc="observe" if observe else "core", unit="config"):
            config = core.GameConfig(num_players=p)
            steps = max(cfg.steps, -(-cfg.min_agent_steps // b))  # (rounded up)
            row = {"players": p, "batch": b, "observe": observe, "decisions_per_game": lengths[p]}
            job = {
                "num_players": p,
                "batch": b,
                "steps": steps,
                "seed": cfg.seed,
                "observe": observe,
                "warmup_cycles": cfg.warmup_cycles,
            }
            row.update(
                side_by_side(
                    cfg.repeats,
                    lambda r, config=config, b=b, steps=steps: measure_core(
                        config, b, steps, cfg.seed + r, observe, cfg.warmup_cycles
                    ),
                    baseline,
                    **job,
                )
            )
            if baseline is not None:
                row["baseline"] = baseline.revision
            row["games_per_s"] = row["agent_steps_per_s"] / lengths[p]
            rows.append(row)
    return rows


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    """Prints the section's rows."""
    observe = rows[0]["observe"] if rows else False
    print(f"\ncore{' with observations of the acting player' if observe else ''}: mask + step + re-deals")
    _print_core(rows)
    _print_steady_state(rows, cfg.warmup_cycles)


def _print_core(rows: list[dict]) -> None:
    baseline = bool(rows) and "baseline" in rows[0]
    print(
        f"{'players':>7s} {'batch':>6s} {'agent-steps/s':>14s} {'games/s':>9s} {'decisions/game':>15s} "
        f"{'bytes/game':>10s}" + (f" {'baseline':>12s} {'speed-up':>9s}" if baseline else "")
    )
    for row in rows:
        print(
            f"{row['players']:7d} {row['batch']:6d} {row['agent_steps_per_s']:14,.0f} {row['games_per_s']:9.1f} "
            f"{row['decisions_per_game']:15.1f} {row['state_bytes_per_game'] or 0:10.0f}"
            + (f" {row['baseline_agent_steps_per_s']:12,.0f} {row['speedup']:8.1f}x" if baseline else "")
        )
    if baseline:
        print(f"baseline: the core of revision {rows[0]['baseline']}, runs alternating with this code's")


def _print_steady_state(rows: list[dict], warmup_cycles: int) -> None:
    """How far each timed batch was from a fresh deal: the warm-up and the games' ages at timing."""
    if not rows:
        return
    print(
        f"\nsteady state: timing starts once {warmup_cycles} x B games have finished; "
        "age = decisions since the game's deal, when timing starts; fresh = the same number of "
        "steps timed from the first deal"
    )
    print(
        f"{'players':>7s} {'batch':>6s} {'warm-up steps':>13s} {'re-dealt':>8s} {'age p10':>8s} {'median':>7s} "
        f"{'p90':>6s} {'max':>6s} {'fresh / steady':>15s}"
    )
    for row in rows:
        fresh = row["fresh_agent_steps_per_s"] / row["agent_steps_per_s"]
        print(
            f"{row['players']:7d} {row['batch']:6d} {row['warmup_steps']:13,.0f} {row['redealt_fraction']:8.0%} "
            f"{row['age_p10']:8.0f} {row['age_median']:7.0f} {row['age_p90']:6.0f} {row['age_max']:6.0f} "
            f"{fresh:14.2f}x"
        )
