"""The ``rollouts`` section: a game under way cloned, redealt from the acting player's view and played to its end, as a search agent does.

Two ways, in the same run on the same clones: stepped from Python (the benchmark's random play, one
batched ``core.step`` of all clones per decision) and compiled (``core.play_out``: every clone
played to its end inside one compiled call, on one thread, by the simple policy).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from cluedo_env import core
from experiments.benchmark.machine import median_of
from experiments.benchmark.random_play import RandomBatch, parallel_from, random_choice

if TYPE_CHECKING:
    from experiments.benchmark import BenchmarkConfig


def measure_rollouts(config: core.GameConfig, n: int, turn: int, seed: int, warm: bool = True) -> dict:
    """Rollouts from a game under way, as a search agent makes them: one game is played (the benchmark's
    random play) to ``turn``; then, timed, it is cloned into ``n`` games (``core.clone``), their
    hidden cards and dice redealt from the acting player's view (``core.redeal``: the true deal, which
    is one consistent with that view, and new seeds, so each clone rolls other dice), and every clone
    played to its end by the same random play.

    Returns:
        ``rollouts_per_s`` (clones played to their end per second, all of it counted),
        ``setup_s`` (clone + redeal), ``agent_steps`` (decisions played in the clones),
        ``core_agent_steps_per_s`` (of the steps alone: mask + step), ``choose_actions_s`` (the
        random play's share) and ``mean_decisions_per_rollout``; and the same of the compiled rollouts
        (``compiled_*``: ``core.play_out`` on clones redealt the same way, one thread, the simple
        policy; ``compiled_agent_steps_per_s`` is of ``play_out`` alone, ``compiled_rollouts_per_s``
        counts the clone and redeal too).

    With ``warm`` the same is done first, untimed, with two clones, or with ``parallel_from()`` where
    ``n`` reaches it (the core then masks and steps the clones on numba's threads): the first calls of
    the compiled functions in a process cost milliseconds, which a single timing would count.
    """
    if warm:
        parallel = parallel_from()
        measure_rollouts(config, 2 if parallel is None or n < parallel else parallel, turn, seed, warm=False)
    games = RandomBatch(config, 1, seed)
    while games.state.turn[0] < turn:
        games.step()  # (a game ending first is dealt again: its next game gets there)
    state = games.state
    player = int(state.current_player[0])
    start = time.perf_counter()
    clones = core.clone(state, 0, n)
    core.redeal(clones, player, np.repeat(state._owner[:1], n, axis=0), seed * 1_000_003 + np.arange(n))
    mask = core.legal_action_mask(clones)
    setup = time.perf_counter() - start
    core_time = choose_time = 0.0
    agent_steps = 0
    while not clones.done.all():
        chosen = time.perf_counter()
        live = ~clones.done
        actions = np.zeros(n, dtype=np.int64)  # (a finished game ignores its action)
        actions[live] = random_choice(games.rng, mask[live], games.accuse)
        stepped = time.perf_counter()
        agent_steps += int(live.sum())
        core.step(clones, actions, check=False, mask=mask)
        end = time.perf_counter()
        choose_time += stepped - chosen
        core_time += end - stepped
    total = setup + core_time + choose_time
    compiled = _compiled_rollouts(state, player, n, seed)
    return {
        "clones": n,
        "rollouts_per_s": n / total,
        "setup_s": setup,
        "agent_steps": agent_steps,
        "core_agent_steps_per_s": agent_steps / core_time,
        "choose_actions_s": choose_time,
        "mean_decisions_per_rollout": agent_steps / n,
        **compiled,
    }


def _compiled_rollouts(state: core.State, player: int, n: int, seed: int) -> dict:
    """``n`` clones of game 0 of ``state`` redealt as ``measure_rollouts`` does, played out by ``core.play_out``."""
    start = time.perf_counter()
    clones = core.clone(state, 0, n)
    core.redeal(clones, player, np.repeat(state._owner[:1], n, axis=0), seed * 1_000_003 + np.arange(n))
    # imported here: the baseline worker imports this package over an earlier core, which has no rollout module
    from cluedo_env.core.rollout import rollout_keys

    keys = rollout_keys(seed, n)
    played = time.perf_counter()
    steps = core.play_out(clones, keys)
    end = time.perf_counter()
    if not clones.done.all():
        raise AssertionError(f"play_out left {int((~clones.done).sum())} of {n} clones unfinished")
    return {
        "compiled_rollouts_per_s": n / (end - start),
        "compiled_setup_s": played - start,
        "compiled_agent_steps": int(steps.sum()),
        "compiled_agent_steps_per_s": int(steps.sum()) / (end - played),
        "compiled_mean_decisions_per_rollout": float(steps.mean()),
    }


def rows(cfg: BenchmarkConfig) -> list[dict]:
    def figure(p: int, n: int) -> dict:
        return median_of(
            cfg.repeats,
            lambda r: measure_rollouts(core.GameConfig(num_players=p), n, cfg.rollout_turn, cfg.seed + r),
        )

    return [{"players": p, **figure(p, n)} for p in cfg.players for n in cfg.rollout_clones]


def show(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print(
        f"\nrollouts from a game at turn {cfg.rollout_turn}: clone, redeal from the acting player's view, "
        "random play to the end"
    )
    for row in rows:
        print(
            f"  {row['players']} players, {row['clones']:5.0f} clones: {row['rollouts_per_s']:,.0f} rollouts/s "
            f"(setup {row['setup_s'] * 1e3:.2f} ms; core {row['core_agent_steps_per_s']:,.0f} agent-steps/s; "
            f"{row['mean_decisions_per_rollout']:.0f} decisions per rollout)"
        )
        print(
            f"  {'':9}{'':13}compiled (core.play_out, simple policy, one thread): "
            f"{row['compiled_rollouts_per_s']:,.0f} rollouts/s (setup {row['compiled_setup_s'] * 1e3:.2f} ms; "
            f"{row['compiled_agent_steps_per_s']:,.0f} agent-steps/s, "
            f"{row['compiled_agent_steps_per_s'] / row['core_agent_steps_per_s']:.1f}x the batched step's; "
            f"{row['compiled_mean_decisions_per_rollout']:.0f} decisions per rollout)"
        )
