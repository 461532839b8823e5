"""experiments.imitate started again in its run folder, and stopped part-way.

A run started again (same exp_name and seed, another number of epochs) wrote its config, history and model
over the earlier run's and its evaluation last: stopped before that, the folder held the earlier run's
evaluation.json (its games and agreement) beside the new model, and plot_imitation drew it as finished.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

torch = pytest.importorskip("torch")

import experiments.imitate as imitate  # noqa: E402
from agents.ppo.network import NetworkSettings  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import train_config  # noqa: E402


class Stopped(Exception):
    """The run stopped during its evaluation (a kill, Ctrl-C)."""


def test_a_rerun_stopped_after_its_model_leaves_no_evaluation_of_the_earlier_run(
    tmp_path, monkeypatch, capsys
):
    args = train_config(
        config_name="imitate", exp_name="again", runs_dir=str(tmp_path), progress=False, init_from=None,
        teacher=OpponentSettings("notepad"), opponents=[OpponentSettings("random")], games=4, batch=4, workers=1,
        network=NetworkSettings(hidden=[16], card_hidden=8), epochs=1,
        eval_opponents=[OpponentSettings("random")], final_eval_games=2,
    )  # fmt: skip
    folder = imitate.run(args)
    earlier = {name: (folder / name).read_bytes() for name in ("evaluation.json", "history.json", "model.pt")}
    earlier_config = (folder / "config.yaml").read_text()
    assert "set aside" not in capsys.readouterr().out  # nothing earlier to move

    def stop(*given, **options):
        assert (folder / "model.pt").read_bytes() != earlier["model.pt"]  # the new model is written
        raise Stopped

    monkeypatch.setattr(imitate, "evaluate", stop)
    with pytest.raises(Stopped):
        imitate.run(dataclasses.replace(args, epochs=2, final_eval_games=4))
    assert not (folder / "evaluation.json").exists()  # the folder is an unfinished run, not the earlier one
    assert [row["epoch"] for row in json.loads((folder / "history.json").read_text())] == [1, 2]
    (aside,) = folder.glob("superseded_*")  # the earlier run, whole: its results, events and config
    assert {name: (aside / name).read_bytes() for name in earlier} == earlier
    assert (aside / "config.yaml").read_text() == earlier_config
    assert list(aside.glob("events.out.tfevents.*")) and len(list(folder.glob("events.out.tfevents.*"))) == 1
    assert f"set aside in {aside}" in capsys.readouterr().out

    from experiments.plot_imitation import main as plot_imitation

    with pytest.raises(SystemExit) as refused:  # not drawn as a finished run
        plot_imitation([str(folder), "--png", str(tmp_path / "imitation.png")])
    assert refused.value.code == 2
    assert "is not a finished experiments.imitate run (no evaluation.json)" in capsys.readouterr().err

    monkeypatch.undo()  # the same command again finishes the run; the first run stays aside alone
    imitate.run(dataclasses.replace(args, epochs=2, final_eval_games=4))
    report = json.loads((folder / "evaluation.json").read_text())
    assert report["imitation"]["epoch"] == 2 and report["evaluation"]["random"]["games"] == 4
    assert len(list(folder.glob("superseded_*"))) == 2  # the stopped run's history and model, kept too
