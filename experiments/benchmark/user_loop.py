"""The ``user_loop`` section: a numpy random policy over the legal actions from ``legal_action_mask``
called apart from ``step`` (*apart*), the same policy over the fused ``step(..., mask=)`` (*fused*), and
the core section's compiled-sampler loop, timed side by side at steady state.

*fused* makes the README's step (``core.step(state, actions, check=False, mask=mask)``); the README's
loop also observes the deciding players (``core.observe``) and picks by ``simple_actions``, which no
loop here does (the ``observe`` section times the core with observations).

Each figure is agent-steps/s over the core's time (legal actions + ``step`` + re-deals, as the ``core``
section counts) and over the whole loop (the policy's time too); the loops' runs alternate, repeat by
repeat, so their ratios are fair on a shared machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from cluedo_env import core
from experiments.benchmark.core_steps import measure_core, steady_state
from experiments.benchmark.random_play import ACCUSE_RATE, RandomBatch, game_length

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig

# The loops timed: (name, fused mask, step's check) for the numpy policy; "compiled" is measure_core's.
NUMPY_LOOPS = (
    ("apart", False, True),  # legal_action_mask, then step(state, actions) (its default check=True)
    ("apart_unchecked", False, False),  # the same with step(..., check=False)
    ("fused", True, False),  # step(..., mask=m, check=False), the README's step, and reset(..., mask=m)
)
LOOPS = tuple(name for name, _, _ in NUMPY_LOOPS) + ("compiled",)


def numpy_choice(rng: np.random.Generator, mask: np.ndarray, accuse: slice) -> np.ndarray:
    """A random legal action per game as a user writes it in numpy: the argmax of uniform noise times
    the mask, accusations left out unless drawn (``ACCUSE_RATE``, as the benchmark's random play) or
    nothing else is legal."""
    calm = mask.copy()
    calm[:, accuse] = False
    use_calm = calm.any(axis=1) & (rng.random(len(mask)) >= ACCUSE_RATE)
    legal = np.where(use_calm[:, None], calm, mask)
    return np.argmax(rng.random(mask.shape) * legal, axis=1)


def measure_user_loops(
    config: core.GameConfig, batch: int, steps: int, seed: int, repeats: int, warmup_cycles: int = 1
) -> dict:
    """Medians over ``repeats`` runs of each loop of ``LOOPS`` (runs alternating loop by loop):
    ``<loop>_agent_steps_per_s`` (core time), ``<loop>_loop_agent_steps_per_s`` (core + policy
    time), ``<loop>_choose_actions_s_per_step``, and the ratios ``fused_over_apart``,
    ``compiled_over_fused``, ``compiled_over_apart`` of the core-time figures and the same with
    ``loop_`` in front of the whole-loop figures."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    runs: dict[str, list[dict]] = {name: [] for name in LOOPS}
    for r in range(repeats):
        for name, fused, check in NUMPY_LOOPS:
            games = RandomBatch(config, batch, seed + r, choose=numpy_choice, fused=fused, check=check)
            runs[name].append(steady_state(games, batch, steps, warmup_cycles))
        runs["compiled"].append(measure_core(config, batch, steps, seed + r, False, warmup_cycles))
    figures: dict = {}
    for name, results in runs.items():
        for key in ("agent_steps_per_s", "loop_agent_steps_per_s", "choose_actions_s_per_step"):
            figures[f"{name}_{key}"] = float(np.median([result[key] for result in results]))
    for prefix in ("", "loop_"):
        rate = {name: figures[f"{name}_{prefix}agent_steps_per_s"] for name in LOOPS}
        figures[f"{prefix}fused_over_apart"] = rate["fused"] / rate["apart"]
        figures[f"{prefix}compiled_over_fused"] = rate["compiled"] / rate["fused"]
        figures[f"{prefix}compiled_over_apart"] = rate["compiled"] / rate["apart"]
    figures["warmup_steps"] = float(np.median([result["warmup_steps"] for result in runs["fused"]]))
    return figures


def rows(cfg: BenchmarkConfig) -> list[dict]:
    """The section's rows: every (players, batch) of ``cfg`` (a ``BenchmarkConfig``)."""
    rows = []
    jobs = [(p, b) for p in cfg.players for b in cfg.batch_sizes]
    lengths = {p: game_length(core.GameConfig(num_players=p), 256, cfg.seed) for p in cfg.players}
    for p, b in tqdm(jobs, desc="user_loop", unit="config"):
        steps = max(cfg.steps, -(-cfg.min_agent_steps // b))  # (rounded up)
        row = {
            "players": p,
            "batch": b,
            "steps": steps,
            "repeats": cfg.repeats,
            "decisions_per_game": lengths[p],
        }
        row.update(
            measure_user_loops(
                core.GameConfig(num_players=p), b, steps, cfg.seed, cfg.repeats, cfg.warmup_cycles
            )
        )
        rows.append(row)
    return rows


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    """Prints the section's rows: agent-steps/s of each loop (core time, then whole loop) and ratios."""
    print(
        "\nuser loop: a numpy random policy with legal_action_mask apart from step (apart; with "
        "check=False: apart_unchecked), the same policy over step(mask=, check=False) (fused: the "
        "README's step, without its observe and simple_actions), the core section's compiled "
        f"sampler (compiled); medians of {cfg.repeats} alternating runs, agent-steps/s"
    )
    for prefix, what in (
        ("", "core time (mask + step + re-deals)"),
        ("loop_", "whole loop (policy included)"),
    ):
        print(f"{what}:")
        print(
            f"{'players':>7s} {'batch':>6s} "
            + " ".join(f"{name:>15s}" for name in LOOPS)
            + f" {'fused/apart':>11s} {'compiled/fused':>14s}"
        )
        for row in rows:
            print(
                f"{row['players']:7d} {row['batch']:6d} "
                + " ".join(f"{row[f'{name}_{prefix}agent_steps_per_s']:15,.0f}" for name in LOOPS)
                + f" {row[f'{prefix}fused_over_apart']:10.2f}x {row[f'{prefix}compiled_over_fused']:13.2f}x"
            )
