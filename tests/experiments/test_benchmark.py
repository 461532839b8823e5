"""experiments/benchmark: the core sections at steady state, the machine probe and the ppo section (PPO training throughput at the shipped config)."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

pytest.importorskip("torch")

from cluedo_env import core
from cluedo_env.core import batched
from cluedo_env.core.game import PARALLEL_BATCH
from experiments.benchmark import SECTIONS, BenchmarkConfig, main_with
from experiments.benchmark.agent_decisions import measure_agents
from experiments.benchmark.baseline import Baseline
from experiments.benchmark.clone_rollouts import measure_rollouts
from experiments.benchmark.core_steps import measure_core
from experiments.benchmark.env_steps import measure_env
from experiments.benchmark.random_play import RandomBatch
from experiments.benchmark.startup import measure_main_command, measure_startup
from experiments.benchmark.training import (
    finished_games_per_update,
    ppo_benchmark_config,
    snapshots_in_pool,
)
from experiments.benchmark.user_loop import LOOPS, NUMPY_LOOPS, numpy_choice
from experiments.benchmark.user_loop import show as show_user_loop
from experiments.learning.league import OpponentPool
from tests.conftest import ROOT

CONFIGS = ROOT / "configs"
TINY = [
    "num_envs=8",
    "num_steps=16",
    "num_minibatches=2",
    "update_epochs=1",
    "network.hidden=[16]",
    "network.card_hidden=8",
]


def test_default_benchmark_config_measures_ppo_at_the_shipped_config(tmp_path):
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = compose("benchmark")
    assert "ppo" in SECTIONS and "ppo" in cfg.sections
    assert cfg.ppo_updates >= 1 and list(cfg.ppo_overrides) == []
    assert cfg.warmup_cycles >= 1 and cfg.ppo_warmup_updates >= 1  # steady state by default

    shipped = OmegaConf.load(CONFIGS / "train_ppo.yaml")
    args = ppo_benchmark_config(
        cfg.ppo_updates, str(tmp_path), cfg.ppo_overrides, warmup_updates=cfg.ppo_warmup_updates
    )
    for key in (
        "num_envs",
        "num_steps",
        "torch_threads",
        "update_threads",
        "precision",
        "compile",
        "num_minibatches",
        "update_epochs",
    ):
        assert getattr(args, key) == shipped[key], key
    assert args.network.hidden == list(shipped.network.hidden)
    assert [o.display for o in args.opponents] == [o.get("label") or o.name for o in shipped.opponents]
    # only the budget is cut, and nothing but a temporary folder is written
    assert args.num_updates == cfg.ppo_warmup_updates + cfg.ppo_updates
    assert args.eval_every == args.final_eval_games == args.snapshot_every == args.checkpoint_every == 0
    assert args.runs_dir == str(tmp_path)


def benchmark_in(folder: Path, monkeypatch, **settings) -> dict:
    """The JSON report of a benchmark run in ``folder`` (the working directory) with these settings."""
    monkeypatch.chdir(folder)
    output = folder / "benchmark.json"
    main_with(BenchmarkConfig(output=str(output), **settings))
    return json.loads(output.read_text())


def test_ppo_section_with_a_tiny_budget_reports_positive_figures(tmp_path, monkeypatch):
    settings = dict(sections=["ppo"], repeats=1, ppo_warmup_updates=3, ppo_updates=2, ppo_overrides=TINY)
    ppo = benchmark_in(tmp_path, monkeypatch, **settings)["ppo"]
    assert ppo["num_envs"] == 8 and ppo["num_steps"] == 16 and ppo["measured_updates"] == 2
    # How far the warm-up got, from the run's own log: games finished per game slot.
    assert ppo["warmup_updates"] == 3
    assert ppo["warmup_finished_games"] >= 0 and ppo["measured_finished_games"] >= 0
    assert ppo["warmup_cycles"] == ppo["warmup_finished_games"] / 8
    assert ppo["agent_steps_per_update"] == 8 * 16
    for key in (
        "agent_steps_per_s",
        "learner_decisions_per_s",
        "rollout_s_per_update",
        "update_s_per_update",
        "total_s_per_update",
        "agent_steps_per_cpu_s",
        "learner_decisions_per_update",
    ):
        assert ppo[key] > 0, key
    assert ppo["learner_decisions_per_s"] < ppo["agent_steps_per_s"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["benchmark.json"]  # nothing left behind


def test_league_section_times_the_league_config_beside_todays(tmp_path, monkeypatch):
    """The league's run has snapshots of the learner in its pool in the measured updates, as late in
    the real run (train_ppo_league.yaml: one every 20 updates from 30% of training, 3 kept); today's
    run is timed as the ppo section times it, without them."""
    assert "league" in SECTIONS and "league" in BenchmarkConfig().sections
    pools: dict[OpponentPool, list[list[str]]] = {}  # each run's pool: the labels of its kinds, call by call
    kinds = OpponentPool.kinds

    def recorded(pool, network, fraction):
        chosen, weights = kinds(pool, network, fraction)
        pools.setdefault(pool, []).append([kind.label for kind in chosen])
        return chosen, weights

    monkeypatch.setattr(OpponentPool, "kinds", recorded)
    overrides = [*TINY, "game.max_turns=10"]
    settings = dict(sections=["league"], ppo_warmup_updates=2, ppo_updates=1, league_overrides=overrides)
    league = benchmark_in(tmp_path, monkeypatch, **settings)["league"]
    assert (league["today"]["config"], league["league"]["config"]) == ("train_ppo", "train_ppo_league")
    today, theirs = pools.values()  # (runs in this order; the first call draws the first deal's opponents)
    snapshots = [[label for label in labels if label.startswith("snapshot")] for labels in theirs]
    assert len(theirs) == 1 + 3 and snapshots[3] == ["snapshot_1", "snapshot_2"]  # the measured update's
    assert not any(label.startswith("snapshot") for labels in today for label in labels)
    assert (league["league"]["snapshots_in_pool"], league["today"]["snapshots_in_pool"]) == (2, 0)
    for key in ("today", "league"):
        assert league[key]["agent_steps_per_update"] == 8 * 16
        assert league[key]["agent_steps_per_s"] > 0
    assert league["slowdown"] == pytest.approx(
        league["today"]["agent_steps_per_s"] / league["league"]["agent_steps_per_s"]
    )
    assert league["cpu_slowdown"] == pytest.approx(
        league["today"]["agent_steps_per_cpu_s"] / league["league"]["agent_steps_per_cpu_s"]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["benchmark.json"]


def test_the_leagues_snapshot_schedule_is_scaled_to_the_cut_budget(tmp_path):
    """train_ppo_league.yaml: 183 updates, a snapshot every 20 from 30% of training, 3 kept. Cut to
    12 + 4 updates: one every 2 from 30% (after updates 6, 8, 10, ...), three in the pool from update 11."""
    args = ppo_benchmark_config(
        4, str(tmp_path), warmup_updates=12, config_name="train_ppo_league", snapshots=True
    )
    assert (args.snapshot_every, args.snapshot_start, args.max_snapshots) == (2, 0.3, 3)
    assert [snapshots_in_pool(args, update) for update in (6, 7, 9, 11, 13)] == [0, 1, 2, 3, 3]
    assert ppo_benchmark_config(4, str(tmp_path), warmup_updates=12).snapshot_every == 0  # (default: none)


def test_league_configs_are_the_league_run_and_its_two_ablations_at_one_budget(tmp_path):
    league = ppo_benchmark_config(1, str(tmp_path), warmup_updates=1, config_name="train_ppo_league")
    assert league.network.belief_features and league.pool_sampling == "pfsp"
    assert {"random", "notepad", "sat", "belief"} <= {o.name for o in league.opponents}
    assert {o.name for o in league.eval_opponents} == {"random", "notepad", "sat", "belief"}
    budgets = set()
    for name in ("train_ppo_league", "train_ppo_league_no_beliefs", "train_ppo_league_no_sat"):
        with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
            cfg = OmegaConf.to_object(compose(name))
        budgets.add(cfg.total_timesteps)
        if name.endswith("no_beliefs"):
            assert not cfg.network.belief_features and cfg.opponents == league.opponents
        if name.endswith("no_sat"):
            assert cfg.network.belief_features and "sat" not in {o.name for o in cfg.opponents}
        assert cfg.game == league.game and cfg.game.num_players == 4
    assert len(budgets) == 1


def test_core_sections_write_figures_and_the_machine_probe(tmp_path):
    output = tmp_path / "benchmark.json"
    cfg = BenchmarkConfig(
        sections=["core", "observe"],
        players=[3],
        batch_sizes=[8],
        steps=20,
        min_agent_steps=0,
        repeats=1,
        output=str(output),
    )
    main_with(cfg)
    report = json.loads(output.read_text())
    machine = report["machine"]
    assert machine["probe_us_per_call_before"] > 0 and machine["probe_us_per_call_after"] > 0
    (row,) = report["core"]
    assert row["batch"] == 8 and row["agent_steps_per_s"] > 0 and 0 < row["state_bytes_per_game"] <= 4096
    assert "baseline_agent_steps_per_s" not in row  # no baseline named: this code's core alone
    (observed,) = report["observe"]
    assert observed["observe"] and not row["observe"] and observed["agent_steps_per_s"] > 0
    # Steady state: timed after B games have finished, and the report says how far from a fresh deal.
    assert report["config"]["warmup_cycles"] == 1
    assert row["warmup_finished_games"] >= 8 and row["warmup_steps"] > 0
    assert row["fresh_steps"] == min(20, row["warmup_steps"]) and row["fresh_agent_steps_per_s"] > 0
    assert 0 < row["redealt_fraction"] <= 1
    ages = [row[key] for key in ("age_min", "age_p10", "age_median", "age_p90", "age_max")]
    assert ages == sorted(ages) and 0 < row["age_max"] <= row["warmup_steps"]


def test_user_loop_section_times_the_numpy_loops_beside_the_compiled_one(tmp_path, monkeypatch):
    settings = dict(
        sections=["user_loop"], players=[3], batch_sizes=[8], steps=10, min_agent_steps=0, repeats=2
    )
    report = benchmark_in(tmp_path, monkeypatch, **settings)
    assert "user_loop" in SECTIONS and "user_loop" in BenchmarkConfig().sections
    (row,) = report["user_loop"]
    assert row["players"] == 3 and row["batch"] == 8 and row["repeats"] == 2
    for name in LOOPS:
        # the whole loop counts the policy's time too: never faster than the core's time alone
        assert 0 < row[f"{name}_loop_agent_steps_per_s"] < row[f"{name}_agent_steps_per_s"], name
    rates = {name: row[f"{name}_agent_steps_per_s"] for name in LOOPS}
    assert row["fused_over_apart"] == pytest.approx(rates["fused"] / rates["apart"])
    assert row["compiled_over_fused"] == pytest.approx(rates["compiled"] / rates["fused"])
    assert report["machine"]["probe_us_per_call_after"] > 0


def test_the_user_loop_names_the_readmes_step_for_the_fused_loop(capsys):
    """The README's loop steps with the mask kept (since 6e61b5c): the section's fused loop makes that
    step, and the loop with legal_action_mask apart is not called the README's."""
    readme = (ROOT / "README.md").read_text()
    assert "core.step(state, actions, check=False, mask=mask)" in readme
    assert ("fused", True, False) in NUMPY_LOOPS and ("apart", False, True) in NUMPY_LOOPS
    show_user_loop(BenchmarkConfig(repeats=1), [])
    header = capsys.readouterr().out
    assert "fused: the README's step" in header and "README: apart" not in header


@pytest.mark.parametrize(("batch", "observe", "fused"), [(PARALLEL_BATCH, False, True), (300, True, False)])
def test_the_warm_up_makes_the_parallel_steps_first_calls(monkeypatch, batch, observe, fused):
    """A batch the core steps on numba's threads (PARALLEL_BATCH games or more) has the parallel
    entries called in its untimed warm-up: their first call in a process (24 ms) is not timed."""
    called = parallel_calls(monkeypatch)
    games = RandomBatch(core.GameConfig(num_players=4), batch, 0, observe=observe, fused=fused)
    called.clear()
    games.warm_up()
    expected = {"step_games_parallel"} | ({"_write_rows_in_parallel"} if observe else set())
    assert expected | ({"legal_games_parallel"} if not fused else set()) <= set(called)
    small = RandomBatch(core.GameConfig(num_players=4), 64, 0)
    called.clear()
    small.warm_up()
    assert called == []  # (a batch under PARALLEL_BATCH is stepped on this thread: nothing to warm)


def test_the_rollouts_warm_up_makes_the_parallel_steps_first_calls(monkeypatch):
    """1,024 clones are stepped on numba's threads: the untimed warm-up steps a parallel batch too."""
    called = parallel_calls(monkeypatch)
    cloned = []  # (clones made, parallel calls before): the timed part starts with the first 1,024
    clone = core.clone

    def recorded(state, game, n):
        cloned.append((n, len(called)))
        return clone(state, game, n)

    monkeypatch.setattr(core, "clone", recorded)
    measure_rollouts(core.GameConfig(num_players=4), n=1024, turn=5, seed=0)
    before_timing = next(calls for n, calls in cloned if n == 1024)
    assert "step_games_parallel" in called[:before_timing]


def parallel_calls(monkeypatch) -> list[str]:
    """The names of the core's parallel entries, as they are called from now on (in this test)."""
    called: list[str] = []
    for module, name in (
        (batched, "step_games_parallel"),
        (batched, "legal_games_parallel"),
        (sys.modules["cluedo_env.core.observe"], "_write_rows_in_parallel"),
    ):
        function = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, f=function, n=name: called.append(n) or f(*a))
    return called


def test_the_numpy_policy_picks_legal_actions_and_accuses_rarely():
    config = core.GameConfig(num_players=4)
    layout = core.rules_for(config).layout
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    state = core.init(config, np.arange(256))
    rng = np.random.default_rng(0)
    accusations = decisions = 0
    for _ in range(30):
        mask = core.legal_action_mask(state)
        actions = numpy_choice(rng, mask, accuse)
        live = ~state.done
        assert mask[np.arange(256)[live], actions[live]].all()
        accusations += int(((actions >= accuse.start) & (actions < accuse.stop) & live).sum())
        decisions += int(live.sum())
        core.step(state, actions, check=False)
    assert decisions > 0 and accusations / decisions < 0.05  # drawn at 2% where one is legal


NUMPY_CORE = "3cd9623"  # the last revision with the batched numpy core the compiled core replaced


def test_a_baseline_revision_is_timed_by_the_same_loop_in_a_worker():
    """baseline=<revision>: that revision's core, exported from git, plays the benchmark's random play
    in a worker process; at the numpy core's revision it plays the very games this core plays."""
    try:
        baseline = Baseline(NUMPY_CORE)
    except ValueError:
        pytest.skip(f"revision {NUMPY_CORE} is not in this checkout's history (a shallow clone?)")
    config = core.GameConfig(num_players=4)
    with baseline:
        theirs = baseline.measure_core(
            num_players=4, batch=16, steps=30, seed=3, observe=False, warmup_cycles=1
        )
    ours = measure_core(config, batch=16, steps=30, seed=3)
    assert theirs["agent_steps_per_s"] > 0
    for key in ("warmup_steps", "warmup_finished_games", "age_median", "redealt_fraction"):
        assert theirs[key] == ours[key], key  # same deals, same random play, same games


@pytest.mark.slow  # the worker compiles that revision's core on a cold cache: a minute or more
def test_a_baseline_revisions_env_plays_the_same_episodes_in_the_worker():
    """baseline= covers the env section: the worker runs ``measure_env`` over that revision's
    PettingZoo env (d80bb8d, the env before issue #40's work), the same episodes as this one's."""
    try:
        baseline = Baseline("d80bb8d")
    except ValueError:
        pytest.skip("revision d80bb8d is not in this checkout's history (a shallow clone?)")
    with baseline:
        theirs = baseline.measure_env(num_players=3, wrapped=True, agent_steps=50, seed=0)
    ours = measure_env(3, wrapped=True, agent_steps=50, seed=0)
    assert theirs["agent_steps_per_s"] > 0
    assert (theirs["agent_steps"], theirs["episodes"]) == (ours["agent_steps"], ours["episodes"])


def test_a_baseline_that_is_no_revision_is_named():
    with pytest.raises(ValueError, match="'no-such-revision' is neither a commit"):
        Baseline("no-such-revision")


# An env's and a training loop's first calls of the core, in a fresh process that prints what numba compiled.
USERS_CALLS = """
import json
import numpy as np
from numba.core import event

compiled = []


class Compiled(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        function = ev.data["dispatcher"].py_func
        if function.__module__.startswith("cluedo_env"):
            compiled.append(f"{function.__module__}.{function.__name__}")


event.register("numba:compile", Compiled())
from cluedo_env import core, cluedo_v0

env = cluedo_v0.env(num_players=4)  # a game through PettingZoo's wrappers
env.reset(seed=0)
for agent in env.agent_iter(max_iter=300):
    observation, reward, termination, truncation, info = env.last()
    env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
config = core.GameConfig(num_players=4)  # a training loop: the mask kept by the step, rows, re-deals
state = core.init(config, np.arange(512))
mask = core.legal_action_mask(state)
rows = np.empty((512, core.observation_size(config)), dtype=np.float32)
for step in range(5):
    core.observe(state, 0, out=rows)
    core.step(state, mask.argmax(axis=1), check=False, mask=mask)
    core.reset(state, [step], [1000 + step], mask=mask)
live = np.flatnonzero(~state.done)  # the README's loop
core.observe(state, state.current_player[live], games=live)
core.step(state, mask.argmax(axis=1), check=False, mask=mask)
small = core.init(config, np.arange(8))  # a small batch, checked
core.step(small, core.legal_action_mask(small).argmax(axis=1))
print(json.dumps(compiled))
"""


@pytest.mark.slow  # a cold start compiles the core: a minute or more
def test_startup_is_timed_in_a_fresh_process_with_the_cache_given(tmp_path):
    """Warm start on a cache folder filled by a cold start (both fresh processes); the cold start compiled
    every core function an env's and a training loop's first run calls (observations included): a fresh
    process making those calls on that cache compiles nothing more."""
    cold = measure_startup(batch=2, cache_dir=str(tmp_path))
    assert any(tmp_path.rglob("*.nbi"))  # the cold start filled the cache given
    warm = measure_startup(batch=2, cache_dir=str(tmp_path))
    for figures in (cold, warm):
        assert figures["import_s"] > 0 and figures["first_steps_s"] > 0
        assert figures["process_s"] > figures["import_s"] + figures["first_steps_s"]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    users = subprocess.run(
        [sys.executable, "-c", USERS_CALLS], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(users.stdout.strip().splitlines()[-1]) == []


def test_the_main_command_timed_by_the_startup_section_runs():
    """The tournament options of ``MAIN_COMMAND`` are still the tournament's (a changed option would
    fail here, not in a benchmark run), timed in a fresh process on this process's numba cache."""
    assert measure_main_command(cache_dir=None)["process_s"] > 0


def test_core_timing_starts_once_the_first_deal_cycle_is_over():
    config = core.GameConfig(num_players=3)
    figures = measure_core(config, batch=32, steps=5, seed=0)
    # As many games finished as the batch holds: most slots were dealt again, at different steps.
    assert figures["warmup_finished_games"] >= 32
    assert 0.5 <= figures["redealt_fraction"] < 1
    assert figures["age_p10"] < figures["age_median"] < figures["age_p90"]
    # Two cycles: the warm-up is longer still.
    longer = measure_core(config, batch=32, steps=5, seed=0, warmup_cycles=2)
    assert longer["warmup_finished_games"] >= 64 and longer["warmup_steps"] > figures["warmup_steps"]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="warmup_cycles must be an int >= 1"):
            measure_core(config, batch=4, steps=1, seed=0, warmup_cycles=bad)


def test_random_batch_tracks_the_age_of_each_game():
    games = RandomBatch(core.GameConfig(num_players=3), batch=16, seed=1)
    finished = 0
    for step in range(1, 400):
        _, _, done = games.step()
        finished += done
        # A game's age is the decisions since its deal: the step count until it is dealt again.
        assert (games.age[~games.redealt] == step).all()
        assert (games.age <= step).all()
    assert finished >= games.redealt.sum() > 0


def test_rollouts_play_every_clone_of_a_game_under_way_to_its_end():
    figures = measure_rollouts(core.GameConfig(num_players=3), n=16, turn=5, seed=2)
    assert figures["clones"] == 16 and figures["rollouts_per_s"] > 0 and figures["setup_s"] > 0
    # Every clone was played on from turn 5 to its end: at least a decision each.
    assert figures["agent_steps"] >= 16 and figures["mean_decisions_per_rollout"] >= 1
    assert figures["core_agent_steps_per_s"] > 0 and figures["choose_actions_s"] > 0
    # The same clones played out in one compiled call, beside it.
    assert figures["compiled_rollouts_per_s"] > 0 and figures["compiled_agent_steps_per_s"] > 0
    assert figures["compiled_mean_decisions_per_rollout"] >= 1
    assert figures["compiled_agent_steps"] == 16 * figures["compiled_mean_decisions_per_rollout"]


def test_env_is_timed_over_whole_episodes_after_an_untimed_one():
    figures = measure_env(3, wrapped=False, agent_steps=50, seed=0)
    assert figures["warmup_episodes"] == 1 and figures["episodes"] >= 1
    assert figures["agent_steps"] >= 50 and figures["agent_steps_per_s"] > 0


def test_finished_games_are_read_per_update_from_the_training_log(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp_path / "run"))
    writer.add_scalar("charts/SPS", 1000, 128)
    assert finished_games_per_update(tmp_path, 128) == {}  # no game finished yet
    for update, episodes in ((1, 2), (3, 5), (4, 1)):  # train_ppo logs at global_step = update * B * steps
        writer.add_scalar("charts/episodes", episodes, update * 128)
    writer.close()
    assert finished_games_per_update(tmp_path, 128) == {1: 2, 3: 5, 4: 1}


def test_agent_latency_is_reported_for_agents_that_do_not_follow_the_game():
    # The random agent never observes (``observes`` false): its row says so instead of failing.
    rows = {
        row["agent"]: row for row in measure_agents(4, games=1, seed=0, names=["random", "belief", "ismcts"])
    }
    assert set(rows) == {"random", "belief", "ismcts"}
    assert rows["random"]["observe_median_ms"] is None and rows["random"]["observe_p99_ms"] is None
    assert rows["belief"]["observe_median_ms"] > 0 and rows["belief"]["decision_p99_ms"] > 0


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"repeats": 0}, "repeats must be an int >= 1, got 0"),
        ({"batch_sizes": [0]}, "batch_sizes must be a list of ints >= 1, got [0]"),
        ({"steps": 0}, "steps must be an int >= 1, got 0"),
        ({"sections": ["cor"]}, "sections must be among"),
        # refused only mid-run, a traceback after the sections before (or, rollout_turn=600, never ending)
        ({"players": [7]}, "players must be player counts from 3 to 6, got [7]"),
        ({"rollout_turn": 600}, "rollout_turn must be an int in [0, 500), got 600"),
        ({"rollout_turn": -5}, "rollout_turn must be an int in [0, 500), got -5"),
        ({"agent_names": ["bogus"]}, "agent_names must be among"),
        ({"beliefs_lineups": ["bogus"]}, "beliefs_lineups must be among"),
        ({"sections": ["league"], "league_config": "nonexistent"}, "league_config must name a config of"),
        ({"sections": ["core"], "baseline": "deadbeef"}, "baseline='deadbeef' is neither a commit"),
        (
            {"sections": ["ppo"], "ppo_overrides": ["nope=1"]},
            "ppo_overrides=['nope=1'] do not make a training",
        ),
        ({"sections": ["ppo"], "ppo_overrides": ["num_envs=0"]}, "configs/train_ppo.yaml: num_envs must be"),
        (
            {"sections": ["league"], "league_overrides": ["num_steps=x"]},
            "league_overrides=['num_steps=x'] do not",
        ),
        ({"sections": []}, "sections must name at least one of ['core', 'observe', "),
        # a baseline is timed only beside the core, observe and env sections: refused without any of them
        (
            {"sections": ["rollouts", "ppo"], "baseline": "deadbeef"},
            "baseline='deadbeef' is timed only in the sections ['core', 'observe', 'env'], got "
            "sections=['rollouts', 'ppo']: add one of them",
        ),
    ],
)
def test_a_setting_out_of_range_is_refused_before_any_measurement(tmp_path, changes, said):
    output = tmp_path / "never.json"
    with pytest.raises(ValueError, match=re.escape(said)):
        main_with(BenchmarkConfig(output=str(output), **changes))
    assert not output.exists()


def test_an_output_that_cannot_be_written_is_refused_before_any_measurement(tmp_path):
    """It was found when the first section's figures were saved (and lost)."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(ValueError, match=r"output=.* cannot be written"):
        main_with(BenchmarkConfig(output=str(blocked / "b.json")))


def test_a_save_that_fails_keeps_the_sections_saved_before(tmp_path, monkeypatch):
    """The report was written in place, emptied first: a full disk while saving a later section left an
    empty file, the sections saved before lost."""
    import errno

    import experiments.benchmark as benchmark

    output, full, opened = tmp_path / "b.json", [], Path.open

    def open_on_a_full_disk(path, mode="r", *args, **kwargs):
        file = opened(path, mode, *args, **kwargs)  # (a file opened to be written is emptied)
        if full and "w" in mode:
            file.close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return file

    monkeypatch.setattr(Path, "open", open_on_a_full_disk)
    monkeypatch.setitem(
        benchmark.SECTION_STEPS, "core", (lambda cfg: [{"figure": 1}], lambda cfg, rows: None)
    )
    monkeypatch.setitem(
        benchmark.SECTION_STEPS,
        "observe",
        (lambda cfg: full.append(True) or [{"figure": 2}], lambda cfg, rows: None),
    )
    with pytest.raises(OSError, match="No space left on device"):
        main_with(BenchmarkConfig(sections=["core", "observe"], output=str(output)))
    assert json.loads(output.read_text())["core"] == [{"figure": 1}]  # the core section's save stands


def test_the_command_writes_only_its_output(tmp_path):
    """Hydra made ``outputs/benchmark/<time>/`` (a log file and ``.hydra/``) in the folder the command was
    run from, wherever ``output`` pointed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "experiments.benchmark", "sections=[observe]", "players=[4]", "batch_sizes=[64]",
         "repeats=1", "steps=20", "min_agent_steps=100", "output=out/b.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*")) == ["out", "out/b.json"]


def test_importing_the_command_module_runs_nothing(monkeypatch):
    """``experiments/benchmark/__main__.py`` ran the whole benchmark when imported: a script importing every
    module to check them wrote benchmark.json."""
    import experiments.benchmark

    ran = []
    monkeypatch.setattr(experiments.benchmark, "main", lambda: ran.append(True))
    monkeypatch.delitem(sys.modules, "experiments.benchmark.__main__", raising=False)
    try:
        importlib.import_module("experiments.benchmark.__main__")
    finally:
        sys.modules.pop("experiments.benchmark.__main__", None)  # (its main is the stand-in)
    assert ran == []
