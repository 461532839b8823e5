"""experiments.imitate side by side: one run at a time in a run folder (``imitate__<exp_name>__<seed>``).

Two runs of one exp_name and seed shared the folder with no lock: the config of one, the model and history
of the other, and the curves of both."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from agents.ppo.network import NetworkSettings  # noqa: E402
from experiments.common.folder_lock import FolderInUse, lock_folder  # noqa: E402
from experiments.imitate import run, run_name  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import train_config  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

TINY = ["teacher.name=notepad", "opponents=[{name: random}]", "eval_opponents=[{name: random}]", "games=4",
        "batch=4", "workers=1", "epochs=2", "final_eval_games=2", "init_from=null", "network.hidden=[16,16]",
        "network.card_hidden=8", "progress=false", "exp_name=side"]  # fmt: skip


def tiny(tmp_path):
    return train_config(
        config_name="imitate", exp_name="side", runs_dir=str(tmp_path), progress=False, init_from=None,
        teacher=OpponentSettings("notepad"), opponents=[OpponentSettings("random")], games=4, batch=4, workers=1,
        network=NetworkSettings(hidden=[16, 16], card_hidden=8), epochs=2,
        eval_opponents=[OpponentSettings("random")], final_eval_games=2,
    )  # fmt: skip


def test_a_run_holds_its_folder_from_its_config_to_its_evaluation(tmp_path, monkeypatch):
    import experiments.imitate as imitate

    args, tried = tiny(tmp_path), []
    folder = tmp_path / run_name(args)
    evaluate = imitate.evaluate

    def evaluate_and_try_the_folder(*given, **options):
        with pytest.raises(FolderInUse), lock_folder(folder):  # (a second run of the same exp_name)
            pass
        tried.append(True)
        return evaluate(*given, **options)

    monkeypatch.setattr(imitate, "evaluate", evaluate_and_try_the_folder)
    assert run(args) == folder and tried == [True]
    with lock_folder(folder):  # free once the run has ended
        pass


def test_a_second_run_of_one_exp_name_is_refused_before_it_writes_anything(tmp_path):
    args = tiny(tmp_path)
    folder = tmp_path / run_name(args)
    folder.mkdir()
    with (
        lock_folder(folder),
        pytest.raises(FolderInUse, match="Wait for it to finish, or give this run another exp_name"),
    ):
        run(args)
    assert [path.name for path in folder.iterdir()] == ["tournament.lock"]  # no config, decisions or events


def test_the_command_refuses_a_folder_in_use_in_one_line(tmp_path):
    folder = tmp_path / "imitate__side__1"
    folder.mkdir()
    command = [sys.executable, "-m", "experiments.imitate", *TINY, f"runs_dir={tmp_path}"]
    with lock_folder(folder):  # another run of exp_name=side, seed 1
        refused = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1, refused.stderr[-3000:]
    (line,) = refused.stderr.splitlines()  # one line, no traceback
    assert re.fullmatch(
        rf"error: {re.escape(str(folder))} is in use by another run \(pid {os.getpid()} on .*\); two runs writing "
        r"into one folder would do the same work twice and mix their files\. Wait for it to finish, or give this "
        r"run another exp_name",
        line,
    )
    assert [path.name for path in folder.iterdir()] == ["tournament.lock"]


def test_a_ppo_opponent_plays_in_the_forked_workers(tmp_path):
    """The expert dataset's forked workers hung where a ppo agent's model had been loaded (torch's OpenMP
    threads, which a fork does not copy). The imitation's workers are forked too, after the config's check
    loads the ppo opponent: they set torch to one thread first, and finish (without that, a run of
    torch_threads=2 hangs)."""
    overrides = [
        *TINY,
        "opponents=[{name: ppo}]",
        "final_eval_games=0",
        "torch_threads=2",
        f"runs_dir={tmp_path}",
    ]
    try:
        done = subprocess.run([sys.executable, "-m", "experiments.imitate", *overrides], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("the imitation with a ppo opponent and workers=1 did not finish in 300 s (a hung worker)")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "imitate__side__1" / "decisions" / "batch_00000.npz").is_file()
