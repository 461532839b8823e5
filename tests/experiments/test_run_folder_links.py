"""Training run folders written into again (``train_ppo resume=``, a reused ``imitate`` folder) that hold
symbolic links: a downloaded folder's ``model.pt`` or ``checkpoints/update_<n>.partial`` could point at any
file of the user's, which the run overwrote. The commands refuse them before anything is written."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from agents.ppo.network import NetworkSettings
from experiments.common.output_folders import refuse_links
from experiments.learning.checkpoints import run_folder
from experiments.learning.ppo_training import train, train_config
from tests.conftest import ROOT

MINE = "the user's own file\n"


def command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def refused(done: subprocess.CompletedProcess, folder: Path, *links: str) -> None:
    """Status 1 and one line ``error: ...`` naming the folder and the links, no traceback."""
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(errors) == 1 and "holds symbolic links" in errors[0] and str(folder) in errors[0], done.stderr
    assert all(link in errors[0] for link in links), errors[0]


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory) -> Path:
    """A run of 2 updates of one game x 8 steps, with checkpoints of both."""
    values = dict(
        runs_dir=str(tmp_path_factory.mktemp("runs")), exp_name="links", total_timesteps=16, num_envs=1,
        num_steps=8, num_minibatches=1, update_epochs=1, network=NetworkSettings(hidden=[16], card_hidden=8),
        eval_every=0, final_eval_games=0, checkpoint_every=1, keep_checkpoints=10, progress=False, seed=1,
    )  # fmt: skip
    return train(train_config(**values))


@pytest.mark.parametrize("layout", ["files", "checkpoints folder", "resume=checkpoints/"])
def test_a_resumed_run_folder_with_links_is_refused_and_nothing_written_through_them(
    tmp_path, ppo_run, layout
):
    """The run wrote ``model.pt`` and ``checkpoints/update_<n>.partial`` through links (exit status 0, both
    files of the user's overwritten), and its checkpoints into a linked ``checkpoints/``'s folder."""
    run = shutil.copytree(ppo_run, tmp_path / "downloaded")
    victim, other = tmp_path / "victim.txt", tmp_path / "other.txt"
    victim.write_text(MINE)
    other.write_text(MINE)
    resume, links = run, ["model.pt"]
    if layout == "checkpoints folder":  # the checkpoints stand in a folder of the user's
        shutil.move(run / "checkpoints", tmp_path / "elsewhere")
        (run / "checkpoints").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
        links = ["checkpoints"]
    else:
        (run / "model.pt").unlink()
        (run / "model.pt").symlink_to(victim)
        # the file the next checkpoint is written to before it is renamed
        (run / "checkpoints" / "update_000003.partial").symlink_to(other)
        if layout == "files":
            links.append("update_000003.partial")
        else:  # the checkpoints' folder named: the run writes to the folder above it all the same
            resume = run / "checkpoints"
    before = sorted(p.name for p in run.iterdir())
    done = command("experiments.train_ppo", f"resume={resume}", "total_timesteps=32", "progress=false")
    refused(done, run, *links)
    assert victim.read_text() == other.read_text() == MINE
    assert sorted(p.name for p in run.iterdir()) == before  # no events file, nothing else either
    if layout == "checkpoints folder":
        assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == [
            "update_000001.pt",
            "update_000002.pt",
        ]


def test_a_resumed_run_folder_of_ones_own_goes_on(tmp_path, ppo_run):
    run = shutil.copytree(ppo_run, tmp_path / "mine")
    done = command("experiments.train_ppo", f"resume={run}", "total_timesteps=24", "progress=false")
    assert done.returncode == 0, done.stderr
    assert (run / "checkpoints" / "update_000003.pt").is_file()


def test_the_folder_a_resume_writes_to_is_the_run_folder_of_its_checkpoint(tmp_path):
    (tmp_path / "run" / "checkpoints").mkdir(parents=True)
    (tmp_path / "run" / "checkpoints" / "update_000002.pt").write_bytes(b"")
    assert run_folder(tmp_path / "run" / "checkpoints") == run_folder(tmp_path / "run") == tmp_path / "run"
    assert run_folder(tmp_path / "none") == tmp_path / "none"


@pytest.mark.parametrize("layout", ["files", "the run folder"])
def test_a_reused_imitate_folder_with_links_is_refused_and_nothing_is_written_through_them(tmp_path, layout):
    """A downloaded ``imitate__<exp_name>__<seed>`` put in ``runs_dir`` for its recorded decisions: its
    ``history.json`` and ``model.pt``, or the folder itself, led the run's files to the user's."""
    runs, victim = tmp_path / "runs", tmp_path / "victim.txt"
    victim.write_text(MINE)
    folder = runs / "imitate__i__1"
    if layout == "files":
        folder.mkdir(parents=True)
        (folder / "history.json").symlink_to(victim)
        (folder / "model.pt").symlink_to(victim)
        links = ["imitate__i__1/history.json", "imitate__i__1/model.pt"]
    else:  # the folder itself points at one of the user's, which holds a model.pt
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "model.pt").write_text(MINE)
        runs.mkdir()
        folder.symlink_to(tmp_path / "mine", target_is_directory=True)
        links = ["imitate__i__1"]
    done = command("experiments.imitate", f"runs_dir={runs}", "exp_name=i", "seed=1", "teacher.name=notepad",
                   "games=4", "batch=4", "workers=1", "epochs=1", "final_eval_games=0", "progress=false")  # fmt: skip
    refused(done, runs, *links)
    assert victim.read_text() == MINE
    if layout == "files":
        assert sorted(p.name for p in folder.iterdir()) == ["history.json", "model.pt"]
    else:
        assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["model.pt"]
        assert (tmp_path / "mine" / "model.pt").read_text() == MINE


def test_the_folder_named_may_be_a_link_the_folder_picked_in_it_may_not(tmp_path, capsys):
    (tmp_path / "runs" / "imitate__i__1" / "decisions").mkdir(parents=True)
    (tmp_path / "runs" / "unrelated").symlink_to(tmp_path)  # another run's business: not searched
    (tmp_path / "named").symlink_to(tmp_path / "runs", target_is_directory=True)
    refuse_links({"runs_dir": tmp_path / "named"}, sub_folder="imitate__i__1")  # passes
    (tmp_path / "runs" / "imitate__i__1" / "decisions" / "batch_00000.npz").symlink_to(tmp_path / "victim")
    with pytest.raises(SystemExit) as stopped:
        refuse_links({"runs_dir": tmp_path / "named"}, sub_folder="imitate__i__1")
    assert stopped.value.code == 1
    link = "imitate__i__1/decisions/batch_00000.npz"
    assert f"error: runs_dir={tmp_path / 'named'} holds symbolic links ({link})" in capsys.readouterr().err
