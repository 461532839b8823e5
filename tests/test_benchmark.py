"""experiments/benchmark.py: the core sections, the machine probe and the ppo section (PPO training throughput at the shipped config)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

pytest.importorskip("torch")

from experiments.benchmark import (
    SECTIONS,
    BenchmarkConfig,
    main_with,
    ppo_benchmark_config,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "experiments" / "configs"
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

    shipped = OmegaConf.load(CONFIGS / "train_ppo.yaml")
    args = ppo_benchmark_config(cfg.ppo_updates, str(tmp_path), cfg.ppo_overrides)
    for key in (
        "num_envs",
        "num_steps",
        "torch_threads",
        "update_threads",
        "num_minibatches",
        "update_epochs",
    ):
        assert getattr(args, key) == shipped[key], key
    assert args.network.hidden == list(shipped.network.hidden)
    assert [o.display for o in args.opponents] == [o.get("label") or o.name for o in shipped.opponents]
    # only the budget is cut, and nothing but a temporary folder is written
    assert args.num_updates == 1 + cfg.ppo_updates
    assert args.eval_every == args.final_eval_games == args.snapshot_every == args.checkpoint_every == 0
    assert args.runs_dir == str(tmp_path)


def test_ppo_section_with_a_tiny_budget_reports_positive_figures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    output = tmp_path / "benchmark.json"
    cfg = BenchmarkConfig(sections=["ppo"], repeats=1, ppo_updates=2, ppo_overrides=TINY, output=str(output))
    main_with(cfg)
    ppo = json.loads(output.read_text())["ppo"]
    assert ppo["num_envs"] == 8 and ppo["num_steps"] == 16 and ppo["measured_updates"] == 2
    assert ppo["agent_steps_per_update"] == 8 * 16
    for key in (
        "agent_steps_per_s",
        "learner_decisions_per_s",
        "rollout_s_per_update",
        "update_s_per_update",
        "total_s_per_update",
        "learner_decisions_per_update",
    ):
        assert ppo[key] > 0, key
    assert ppo["learner_decisions_per_s"] < ppo["agent_steps_per_s"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["benchmark.json"]  # nothing left behind


def test_core_sections_write_figures_and_the_machine_probe(tmp_path):
    output = tmp_path / "benchmark.json"
    cfg = BenchmarkConfig(
        sections=["core", "reference"],
        players=[3],
        batch_sizes=[8],
        steps=20,
        min_agent_steps=0,
        repeats=1,
        reference_games=2,
        output=str(output),
    )
    main_with(cfg)
    report = json.loads(output.read_text())
    machine = report["machine"]
    assert machine["probe_us_per_call_before"] > 0 and machine["probe_us_per_call_after"] > 0
    assert machine["one_pawn_table_fill_s"] > 0  # filled before timing
    (row, reference) = report["core"]
    assert row["batch"] == 8 and row["agent_steps_per_s"] > 0 and 0 < row["state_bytes_per_game"] <= 4096
    assert reference["batch"] == "reference" and reference["agent_steps_per_s"] > 0
