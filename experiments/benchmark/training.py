"""The ``ppo`` and ``league`` sections: PPO training throughput at the shipped config, and the league's config beside it."""

from __future__ import annotations

import contextlib
import io
import logging
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from experiments.benchmark.machine import median_of

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def shipped_train_config(overrides: Sequence[str] = (), config_name: str = "train_ppo"):
    """``configs/<config_name>.yaml`` (with hydra ``overrides``) as the ``TrainConfig`` that
    training gets (``experiments.learning.ppo_training.train_config``)."""
    from experiments.learning.ppo_training import train_config

    return train_config(overrides, config_name)


def ppo_benchmark_config(
    updates: int,
    runs_dir: str,
    overrides: Sequence[str] = (),
    *,
    warmup_updates: int,
    config_name: str = "train_ppo",
    snapshots: bool = False,
):
    """A training config (default: the shipped one) with only the budget cut: ``warmup_updates`` and
    ``updates`` measured updates, no evaluations or periodic checkpoints, files under ``runs_dir``.

    Snapshots of the learner are off unless ``snapshots``: then the config's schedule is scaled to the
    cut budget, as its curriculum windows are (they are fractions of training): a snapshot every
    ``snapshot_every * cut updates / the config's updates`` updates (rounded, at least 1), from the same
    fraction ``snapshot_start``, the latest ``max_snapshots`` kept. ``train_ppo_league.yaml`` (183 updates,
    one every 20 from 30%) cut to 12 + 4 updates takes one after updates 6, 8, ..., 16: three in the
    pool from update 11 on.
    """
    args = shipped_train_config(overrides, config_name)
    every = args.snapshot_every if snapshots else 0
    config_updates = args.num_updates if every else None  # (before the cut; validated later, as the rest)
    args.total_timesteps = (warmup_updates + updates) * args.num_envs * args.num_steps
    args.exp_name, args.runs_dir, args.resume, args.progress = "benchmark", runs_dir, None, False
    args.eval_every = args.final_eval_games = args.checkpoint_every = 0
    args.snapshot_every = max(1, round(every * args.num_updates / config_updates)) if every else 0
    return args


def snapshots_in_pool(args, update: int) -> int:
    """Snapshots of the learner in the pool of ``args``'s run when ``update`` starts (taken after
    updates ``u < update`` with ``u % snapshot_every == 0`` and ``u / num_updates >= snapshot_start``,
    the latest ``max_snapshots`` kept; ``experiments.learning.league.snapshot_due``)."""
    from experiments.learning.league import snapshot_due

    taken = sum(snapshot_due(args, u, args.num_updates) for u in range(1, update))
    return min(taken, args.max_snapshots)


def finished_games_per_update(run_dir: Path, agent_steps_per_update: int) -> dict[int, int]:
    """Games finished in each update of a training run, read from its TensorBoard log (``charts/episodes``)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logs = sorted({path.parent for path in run_dir.rglob("events.out.tfevents*")})
    if len(logs) != 1:
        raise ValueError(f"expected the TensorBoard log of one run under {run_dir}, found {logs}")
    log = EventAccumulator(str(logs[0]), size_guidance={"scalars": 0})
    logger = logging.getLogger("tensorboard")
    level = logger.level
    logger.setLevel(logging.WARNING)  # it says at INFO that it reached the end of the file
    try:
        log.Reload()
    finally:
        logger.setLevel(level)
    if "charts/episodes" not in log.Tags()["scalars"]:
        return {}  # no game finished in the whole run
    return {
        event.step // agent_steps_per_update: int(event.value) for event in log.Scalars("charts/episodes")
    }


def measure_ppo(
    updates: int,
    overrides: Sequence[str] = (),
    *,
    warmup_updates: int,
    config_name: str = "train_ppo",
    snapshots: bool = False,
) -> dict:
    """One training run of a config (default: the shipped one) cut to ``warmup_updates`` + ``updates`` updates,
    with snapshots of the learner as ``ppo_benchmark_config`` says (``snapshots``: the config's schedule
    scaled to the cut budget; else none).

    Training starts with every game freshly dealt; games at their start step faster than games
    under way, so the figures are of the updates after the warm-up, which should see the first deal
    cycle through. How far it did is reported from the run's own log: ``warmup_finished_games``
    and ``warmup_cycles`` (games finished per game slot during the warm-up; below 1, the measured
    updates still hold games of the first deal); ``snapshots_in_pool``: the snapshots in the pool
    when the measured updates start.
    """
    import torch

    from experiments.learning.ppo_training import train

    if updates < 1:
        raise ValueError(f"ppo_updates must be >= 1, got {updates}")
    if warmup_updates < 1:
        raise ValueError(f"ppo_warmup_updates must be >= 1, got {warmup_updates}")
    records: list[dict] = []
    threads = torch.get_num_threads()  # train() sets torch's threads; put them back afterwards
    try:
        with tempfile.TemporaryDirectory(prefix="benchmark_ppo_") as runs:
            args = ppo_benchmark_config(
                updates,
                runs,
                overrides,
                warmup_updates=warmup_updates,
                config_name=config_name,
                snapshots=snapshots,
            )
            with contextlib.redirect_stdout(io.StringIO()):  # train()'s "run folder"/"model" lines
                # The process's CPU time too: on a shared machine it is what the run would take alone
                # (training runs on one thread), where wall time also counts the others' work.
                train(args, on_update=lambda record: records.append({**record, "cpu_s": time.process_time()}))
            finished = finished_games_per_update(Path(runs), args.num_envs * args.num_steps)
    finally:
        torch.set_num_threads(threads)
    measured = records[warmup_updates:]
    total = sum(r["total_s"] for r in measured)
    rollout = sum(r["rollout_s"] for r in measured)
    agent_steps = sum(r["agent_steps"] for r in measured)
    learner = sum(r["learner_decisions"] for r in measured)
    warmup_finished = sum(n for update, n in finished.items() if update <= warmup_updates)
    cpu = measured[-1]["cpu_s"] - records[warmup_updates - 1]["cpu_s"]
    return {
        "agent_steps_per_s": agent_steps / total,
        "agent_steps_per_cpu_s": agent_steps / cpu,
        "learner_decisions_per_s": learner / total,
        "rollout_agent_steps_per_s": agent_steps / rollout,
        "rollout_s_per_update": rollout / len(measured),
        "update_s_per_update": sum(r["update_s"] for r in measured) / len(measured),
        "total_s_per_update": total / len(measured),
        "agent_steps_per_update": agent_steps / len(measured),
        "learner_decisions_per_update": learner / len(measured),
        "warmup_finished_games": warmup_finished,
        "warmup_cycles": warmup_finished / args.num_envs,
        "measured_finished_games": sum(n for update, n in finished.items() if update > warmup_updates),
        "snapshots_in_pool": snapshots_in_pool(args, warmup_updates + 1),
    }


def ppo_rows(cfg: BenchmarkConfig) -> dict:
    args = shipped_train_config(cfg.ppo_overrides)
    figure = median_of(
        cfg.repeats,
        lambda r: measure_ppo(cfg.ppo_updates, cfg.ppo_overrides, warmup_updates=cfg.ppo_warmup_updates),
    )
    settings = {
        "num_envs": args.num_envs,
        "num_steps": args.num_steps,
        "num_players": args.game.num_players,
        "torch_threads": args.torch_threads,
        "update_threads": args.update_threads,
        "precision": args.precision,
        "compile": args.compile,
        "warmup_updates": cfg.ppo_warmup_updates,
        "measured_updates": cfg.ppo_updates,
        "overrides": list(cfg.ppo_overrides),
    }
    return {**settings, **figure}


def show_ppo(cfg: BenchmarkConfig, figure: dict) -> None:
    print(
        f"\nPPO training (configs/train_ppo.yaml: {figure['num_envs']} games x "
        f"{figure['num_steps']} steps, {figure['num_players']} players, "
        f"torch_threads={figure['torch_threads']}, update_threads={figure['update_threads']}, "
        f"precision={figure['precision']}, compile={figure['compile']}; median of "
        f"{cfg.repeats} runs of {cfg.ppo_warmup_updates} warm-up + {cfg.ppo_updates} measured updates)"
    )
    print(
        f"  warm-up: {cfg.ppo_warmup_updates * figure['num_steps']} steps of every game, "
        f"{figure['warmup_finished_games']:,.0f} games finished = {figure['warmup_cycles']:.2f} per game slot"
        + (
            ""
            if figure["warmup_cycles"] >= 1
            else " (under 1: the measured updates still hold games of the first deal, which run "
            "faster; raise ppo_warmup_updates)"
        )
    )
    print(
        f"  {figure['agent_steps_per_s']:,.0f} agent-steps/s, "
        f"{figure['learner_decisions_per_s']:,.0f} learner decisions/s"
    )
    print(
        f"  per update: rollout {figure['rollout_s_per_update']:.2f} s, "
        f"update {figure['update_s_per_update']:.2f} s, total {figure['total_s_per_update']:.2f} s "
        f"({figure['agent_steps_per_update']:,.0f} agent-steps, "
        f"{figure['learner_decisions_per_update']:,.0f} learner decisions)"
    )


def measure_league(cfg: BenchmarkConfig) -> dict:
    """Training throughput of the league config and of today's shipped config, runs alternating: the
    league's with its snapshots of the learner (its schedule scaled to the cut budget, so that the
    measured updates draw new games from a pool that holds them, as late in the real run), today's
    as the ppo section times it, without its snapshots."""
    names = {"today": "train_ppo", "league": cfg.league_config}
    runs: dict[str, list[dict]] = {key: [] for key in names}
    for _ in tqdm(range(cfg.league_repeats), desc="league", unit="pair"):
        for key, name in names.items():
            runs[key].append(
                measure_ppo(
                    cfg.ppo_updates,
                    cfg.league_overrides,
                    warmup_updates=cfg.ppo_warmup_updates,
                    config_name=name,
                    snapshots=key == "league",
                )
            )
    report = {
        key: {"config": names[key], **{f: float(np.median([r[f] for r in rs])) for f in rs[0]}}
        for key, rs in runs.items()
    }
    report["slowdown"] = report["today"]["agent_steps_per_s"] / report["league"]["agent_steps_per_s"]
    report["cpu_slowdown"] = (
        report["today"]["agent_steps_per_cpu_s"] / report["league"]["agent_steps_per_cpu_s"]
    )
    report["overrides"] = list(cfg.league_overrides)
    return report


def show_league(cfg: BenchmarkConfig, report: dict) -> None:
    print(
        f"\nPPO training, today's config beside the league's (median of {cfg.league_repeats} runs each of "
        f"{cfg.ppo_warmup_updates} warm-up + {cfg.ppo_updates} measured updates"
        + (f"; overrides {report['overrides']}" if report["overrides"] else "")
        + ")"
    )
    for key in ("today", "league"):
        row = report[key]
        print(
            f"  {key:6s} ({row['config']}): {row['agent_steps_per_s']:,.0f} agent-steps/s, "
            f"{row['learner_decisions_per_s']:,.0f} learner decisions/s "
            f"({row['agent_steps_per_cpu_s']:,.0f} agent-steps per CPU second); per update: rollout "
            f"{row['rollout_s_per_update']:.2f} s, update {row['update_s_per_update']:.2f} s; warm-up "
            f"{row['warmup_cycles']:.2f} games finished per game slot; "
            f"{row['snapshots_in_pool']:.0f} snapshots of the learner in the pool"
        )
    print(
        f"  the league trains {report['slowdown']:.1f} times slower "
        f"({report['cpu_slowdown']:.1f} times in CPU time)"
    )
