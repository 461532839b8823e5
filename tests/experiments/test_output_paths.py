"""Where training runs and their plots write: a folder of each run's own, and never through a link.

Two runs started in the same second with the same ``exp_name`` and seed (a sweep's jobs) shared one
run folder, each writing over the other's files. A plot of a run folder wrote its figure into it by
default, through a symbolic link there: a downloaded run folder could have it written over any file
of the user's.
"""

from __future__ import annotations

import itertools
import json
import time

import pytest

from experiments.learning.run_logs import new_run_folder
from experiments.learning.run_settings import RunSettings
from tests.conftest import ROOT

pytest.importorskip("matplotlib")
pytest.importorskip("omegaconf")

VICTIM_TEXT = "a file of the user's\n"


def same_second(monkeypatch) -> None:
    """The clock moves on (by microseconds), but every run starts in one second."""
    clock = itertools.count(1_800_000_000.0, 1e-6)
    monkeypatch.setattr(time, "time", lambda: next(clock))


def test_two_runs_started_in_the_same_second_get_a_folder_each(tmp_path, monkeypatch):
    same_second(monkeypatch)
    made = [
        new_run_folder(RunSettings(exp_name="sweep", seed=1, runs_dir=str(tmp_path / "runs")), "sb3")
        for _ in range(3)
    ]
    assert [folder.name for folder in made] == [
        "sb3__sweep__1__1800000000",
        "sb3__sweep__1__1800000000__2",
        "sb3__sweep__1__1800000000__3",
    ]
    assert all((folder / "checkpoints").is_dir() and (folder / "config.yaml").exists() for folder in made)


def test_two_train_ppo_runs_started_in_the_same_second_get_a_folder_each(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from experiments.learning.ppo_training import train, train_config

    same_second(monkeypatch)
    values = dict(
        runs_dir=str(tmp_path / "runs"), exp_name="sweep", total_timesteps=8, num_envs=1, num_steps=8,
        num_minibatches=1, update_epochs=1, eval_every=0, final_eval_games=0, checkpoint_every=1,
        progress=False, seed=1,
    )  # fmt: skip
    first = train(train_config(**values, learning_rate=1e-3))
    second = train(train_config(**values, learning_rate=3e-4))
    assert (first.name, second.name) == (
        "cluedo_v0__sweep__1__1800000000",
        "cluedo_v0__sweep__1__1800000000__2",
    )
    for folder, rate in ((first, 0.001), (second, 0.0003)):
        assert f"learning_rate: {rate}" in (folder / "config.yaml").read_text()
        assert (folder / "model.pt").exists()


def linked_run(tmp_path, files: dict[str, str], figure: str):
    """A run folder from elsewhere whose figure is a link to a file of the user's."""
    run = tmp_path / "downloaded"
    run.mkdir()
    for name, text in files.items():
        (run / name).write_text(text)
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    (run / figure).symlink_to(victim)
    return run, victim


def refused(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line, no traceback
    return err


def test_plot_training_refuses_to_write_its_figure_through_a_link(tmp_path, capsys):
    pytest.importorskip("yaml")
    from experiments.plot_training import main

    shipped = ROOT / "agents/ppo/shipped"
    files = {name: (shipped / name).read_text() for name in ("training_curves.json", "train_ppo.yaml")}
    run, victim = linked_run(tmp_path, files, "learning_curve.png")
    err = refused(main, [str(run)], capsys)
    assert err == (
        f"error: the figure path {run / 'learning_curve.png'} is a symbolic link: the figure would be written "
        "over the file it points to. Remove the link, or give --png another path\n"
    )
    assert victim.read_text() == VICTIM_TEXT
    refused(main, [str(run), "--png", str(run / "learning_curve.png")], capsys)  # named, but a link
    assert victim.read_text() == VICTIM_TEXT
    # a run folder that is itself a link: the default figure would go where it points; --png is the user's
    (run / "learning_curve.png").unlink()
    (tmp_path / "link").symlink_to(run)
    assert "the run folder" in refused(main, [str(tmp_path / "link")], capsys)
    assert not (run / "learning_curve.png").exists()
    main([str(tmp_path / "link"), "--png", str(tmp_path / "mine.png")])
    assert (tmp_path / "mine.png").stat().st_size > 10_000


def test_plot_sb3_refuses_to_write_its_figure_through_a_link(tmp_path, capsys):
    from experiments.plot_sb3 import main

    evaluation = {"agent_steps": 500, "results": {"random_never": {"wins": 3, "games": 10}}}
    files = {"config.yaml": "policy: card\ngamma: 0.999\n", "evaluations.json": json.dumps(evaluation) + "\n"}
    run, victim = linked_run(tmp_path, files, "sb3_vs_ppo.png")
    assert "is a symbolic link" in refused(main, [str(run)], capsys)
    assert victim.read_text() == VICTIM_TEXT
    (run / "sb3_vs_ppo.png").unlink()
    main([str(run)])  # no link: the default figure, as before
    assert (run / "sb3_vs_ppo.png").stat().st_size > 0


def test_plot_rllib_refuses_to_write_its_figure_through_a_link(tmp_path, capsys):
    from experiments.plot_rllib import main

    point = {"agent_steps": 1000, "wins": 8, "games": 10, "win_rate": 0.8, "low": 0.49, "high": 0.94}
    points = tmp_path / "points.json"
    points.write_text(
        json.dumps(
            {
                "throughput": {"RLlib": {"agent_steps": [1000], "agent_steps_per_second": [50.0]}},
                "win_rates": {"RLlib": {"notepad": [point]}},
            }
        )
    )
    run, victim = linked_run(tmp_path, {}, "rllib_vs_ppo.png")
    assert "is a symbolic link" in refused(
        main, ["--points", str(points), "--png", str(run / "rllib_vs_ppo.png")], capsys
    )
    assert victim.read_text() == VICTIM_TEXT
    (tmp_path / "link").symlink_to(run)  # the run folder a link, the default figure in it
    assert "the run folder" in refused(main, [str(tmp_path / "link"), "--ppo-run", str(run)], capsys)
    main(["--points", str(points), "--png", str(tmp_path / "mine.png")])
    assert (tmp_path / "mine.png").stat().st_size > 0


def test_plot_imitation_refuses_to_write_its_figure_through_a_link(tmp_path, capsys, monkeypatch):
    """Its default figure, imitation.png in the current folder: a downloaded folder of runs, the command run
    in it as its docstring shows, could hold that name as a link to a file of the user's."""
    pytest.importorskip("yaml")
    from experiments.plot_imitation import main

    result = {"games": 10, "win_rate": 0.5, "win_low": 0.2, "win_high": 0.8}
    files = {
        "config.yaml": "exp_name: imitate\ngame:\n  num_players: 3\n",
        "history.json": json.dumps([{"epoch": 1, "holdout_loss": 1.0, "holdout_agreement": 0.5}]),
        "evaluation.json": json.dumps({"evaluation": {"random_never": result}}),
    }
    run, victim = linked_run(tmp_path, files, "imitation.png")
    monkeypatch.chdir(run)
    err = refused(main, ["."], capsys)
    assert err == (
        "error: the figure path imitation.png is a symbolic link: the figure would be written over the file it "
        "points to. Remove the link, or give --png another path\n"
    )
    assert victim.read_text() == VICTIM_TEXT
    (run / "imitation.png").unlink()
    main(["."])  # no link: the default figure, as before
    assert (run / "imitation.png").stat().st_size > 10_000
