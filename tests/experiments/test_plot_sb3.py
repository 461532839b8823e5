"""The SB3 learning-curve plot: a run's evaluations, earlier points files, renames."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("omegaconf")

from experiments.learning.curves import earlier_series
from experiments.plot_sb3 import main


def sb3_run(tmp_path, policy: str):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(f"policy: {policy}\ngamma: 0.999\n")
    lines = [
        {"agent_steps": 500, "results": {"random_never": {"wins": 3, "games": 10}}},
        {"agent_steps": 1000, "results": {"random_never": {"wins": 80, "games": 100}}},
    ]
    (run / "evaluations.json").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return run


def test_the_plot_draws_the_run_next_to_an_earlier_file_and_writes_every_point_with_its_games(tmp_path):
    earlier = tmp_path / "earlier.json"
    old_point = {"agent_steps": 7, "wins": 0, "games": 5, "win_rate": 0.0, "low": 0.0, "high": 0.43}
    earlier.write_text(json.dumps({"old name": [old_point]}))
    out = tmp_path / "points.json"
    args = [str(sb3_run(tmp_path, "card")), "--earlier", str(earlier), "--rename", "old name=MLP"]
    main([*args, "--json", str(out), "--png", str(tmp_path / "plot.png")])
    series = json.loads(out.read_text())
    assert series["MLP"] == [old_point]
    card = series["SB3 MaskablePPO, CardPolicy, gamma 0.999 (train_sb3)"]
    assert [(p["agent_steps"], p["wins"], p["games"]) for p in card] == [(500, 3, 10), (1000, 80, 100)]
    assert all(p["low"] <= p["win_rate"] <= p["high"] for p in card)
    assert (tmp_path / "plot.png").stat().st_size > 0
    # the file this wrote already has the new name: drawing from it again needs no renaming
    assert earlier_series(out, ["old name=MLP"])["MLP"] == [old_point]


def test_a_rename_of_a_series_the_file_does_not_have_is_refused_with_the_names_it_has(tmp_path):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"a": []}))
    with pytest.raises(ValueError, match=r"OLD=NEW with OLD one of \['a'\]"):
        earlier_series(earlier, ["b=c"])
    with pytest.raises(ValueError, match="OLD=NEW"):
        earlier_series(earlier, ["a"])
