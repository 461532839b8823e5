"""PPO checkpoints: plain data only (a crafted file runs no code), exact continuation, what a resume may change."""

from __future__ import annotations

import io
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")

from agents.baselines.random_agent import sample_legal  # noqa: E402
from agents.ppo.games import LearnerGames, OpponentKind  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from cluedo_env import core  # noqa: E402
from experiments.common.settings import MAX_SEED, GameSettings  # noqa: E402
from experiments.learning.checkpoints import CHECKPOINT_FORMAT, load_checkpoint, to_arrays, to_tensors  # noqa: E402
from experiments.learning.league import snapshot_network  # noqa: E402
from experiments.learning.ppo_training import TrainConfig, train, train_config  # noqa: E402
from experiments.learning.resume import RESUMABLE  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

SMALL_NET = NetworkSettings(hidden=[16, 16], card_hidden=8)


def tiny(runs: Path, updates: int = 2, **changes) -> TrainConfig:
    """A run of a few updates of 8 games x 16 steps, checkpointed after each update."""
    values = dict(
        runs_dir=str(runs), exp_name="tiny", total_timesteps=updates * 8 * 16, num_envs=8, num_steps=16,
        num_minibatches=2, update_epochs=1, network=SMALL_NET, game=GameSettings(max_turns=12),
        eval_every=0, final_eval_games=0, checkpoint_every=1, keep_checkpoints=10, progress=False,
    )  # fmt: skip
    return train_config(**{**values, **changes})


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return train(tiny(tmp_path_factory.mktemp("runs")))


def through_a_checkpoint_file(state: dict) -> dict:
    """What a checkpoint gives back: saved with torch.save, read with weights_only=True."""
    buffer = io.BytesIO()
    torch.save({"games": to_tensors(state)}, buffer)
    buffer.seek(0)
    return to_arrays(torch.load(buffer, weights_only=True)["games"])


# -- 1: plain data, exact continuation ------------------------------------------------------------


def test_the_games_continue_exactly_from_their_plain_state():
    config = core.GameConfig(max_turns=14)
    torch.manual_seed(0)
    learner = ActorCritic(config, SMALL_NET)
    snapshot = snapshot_network(learner, {k: v + 0.01 for k, v in learner.state_dict().items()})
    kinds = [
        OpponentKind("random", "random"),
        OpponentKind("notepad", "notepad"),
        OpponentKind("sat", "sat"),
        OpponentKind("snapshot_1", network=snapshot, group="snapshot"),
    ]
    games = LearnerGames(config, num_games=12, seed=5, wrong_accusation_penalty=-0.5)
    games.set_pool(kinds, [1.0, 1.0, 1.0, 1.0])
    games.start()
    rng = np.random.default_rng(1)
    for _ in range(40):
        _ids, _obs, mask = games.learner_turn()
        games.step(sample_legal(rng, mask))
    games.pop_finished()
    state = through_a_checkpoint_file(games.state_dict())
    assert all(not isinstance(v, torch.Tensor) for v in state.values())

    resumed = LearnerGames(config, num_games=12, seed=5, wrong_accusation_penalty=-0.5)
    resumed.load_state_dict(state, network=lambda weights: snapshot_network(learner, weights))
    assert resumed.state == games.state
    assert [kind.label for kind in resumed.table.kinds.values()] == ["random", "notepad", "sat", "snapshot_1"]
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    redealt = 0
    for _ in range(120):
        ids_a, obs_a, mask_a = games.learner_turn()
        ids_b, obs_b, mask_b = resumed.learner_turn()
        assert (
            np.array_equal(ids_a, ids_b) and np.array_equal(obs_a, obs_b) and np.array_equal(mask_a, mask_b)
        )
        reward_a, over_a = games.step(sample_legal(rng_a, mask_a))
        reward_b, over_b = resumed.step(sample_legal(rng_b, mask_b))
        assert np.array_equal(reward_a, reward_b) and np.array_equal(over_a, over_b)
        assert resumed.state == games.state
        redealt += int(over_a.sum())
    finished_a, finished_b = games.pop_finished(), resumed.pop_finished()
    assert all(np.array_equal(finished_a[k], finished_b[k]) for k in finished_a)
    assert redealt > 12 and set(finished_a["group"]) >= {"random", "notepad", "sat"}


def test_a_crafted_checkpoint_cannot_run_code(run_dir, tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return os.system, (f"touch {marker}",)

    _, genuine = load_checkpoint(run_dir)
    # The old format's hole: the games as a pickle inside an otherwise genuine checkpoint.
    pickled = tmp_path / "pickled_games.pt"
    torch.save({**genuine, "games": pickle.dumps(Payload())}, pickled)
    # (bytes where 0.1.0 held its pickled games: refused as an earlier version's, before torch reads the file)
    with pytest.raises(ValueError, match=r"names _codecs\.encode for its games .* earlier version"):
        train(tiny(tmp_path, resume=str(pickled)))
    # An object with a side effect anywhere in the file: refused before torch's weights_only reader would.
    crafted = tmp_path / "crafted.pt"
    torch.save({**genuine, "games": {"state": Payload()}}, crafted)
    with pytest.raises(
        ValueError, match=r"names (posix|os)\.system, which torch\.save writes in no such file"
    ):
        train(tiny(tmp_path, resume=str(crafted)))
    assert not marker.exists()
    old = tmp_path / "old.pt"
    torch.save({**genuine, "format": "cluedo-ppo-checkpoint-v1"}, old)
    with pytest.raises(ValueError, match=f"not a training checkpoint of format {CHECKPOINT_FORMAT}"):
        load_checkpoint(old)


@pytest.mark.parametrize("content", ["garbage", "crafted", "no config"])
def test_a_file_that_is_no_checkpoint_stops_a_resume_in_one_line(run_dir, tmp_path, content):
    """Not a traceback, and never torch's advice to load it with weights_only=False."""
    _, genuine = load_checkpoint(run_dir)
    path = tmp_path / "run" / "checkpoints" / "update_000001.pt"
    path.parent.mkdir(parents=True)
    if content == "garbage":
        path.write_bytes(b"not a checkpoint at all")
    elif content == "crafted":
        torch.save({**genuine, "games": {"state": ValueError("an object")}}, path)
    else:
        torch.save({key: value for key, value in genuine.items() if key != "config"}, path)
    done = subprocess.run([sys.executable, "-m", "experiments.train_ppo", f"resume={tmp_path / 'run'}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: {path}") and "weights_only=False" not in line, line


def test_a_checkpoint_cannot_make_a_resume_import_code(run_dir, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    (tmp_path / "planted.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
        "from agents.baselines.random_agent import RandomAgent as Agent\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    _, genuine = load_checkpoint(run_dir)
    planted = {
        "name": "planted:Agent",
        "options": {},
        "label": "planted",
        "weight": 1.0,
        "start": 0.0,
        "stop": 1.0,
    }
    config = {**genuine["config"], "opponents": [*genuine["config"]["opponents"], planted]}
    crafted = tmp_path / "config.pt"
    torch.save({**genuine, "config": config}, crafted)
    with pytest.raises(ValueError, match=r"names agents by import path \['planted:Agent'\]"):
        train(tiny(tmp_path, resume=str(crafted)), resume_overrides=[f"resume={crafted}"])
    kinds = genuine["games"]["table"]["kinds"]
    games = {
        **genuine["games"],
        "table": {**genuine["games"]["table"], "kinds": [{**kinds[0], "name": "planted:Agent"}]},
    }
    crafted = tmp_path / "games.pt"
    torch.save({**genuine, "games": games}, crafted)
    with pytest.raises(
        ValueError, match=r"games hold opponents .*'planted:Agent'.* that its config does not name"
    ):
        train(tiny(tmp_path, resume=str(crafted)), resume_overrides=[f"resume={crafted}"])
    assert not marker.exists()


def test_a_checkpoint_cannot_make_a_resume_read_an_environment_variable(run_dir, tmp_path, monkeypatch):
    """A saved config holds resolved values: an interpolation (here ``oc.env``) is refused, by key."""
    monkeypatch.setenv("SOME_SECRET", "the secret")
    _, genuine = load_checkpoint(run_dir)
    crafted = tmp_path / "env.pt"
    torch.save({**genuine, "config": {**genuine["config"], "exp_name": "${oc.env:SOME_SECRET}"}}, crafted)
    with pytest.raises(ValueError, match=r"checkpoint's config\.exp_name is an interpolation") as refused:
        train(tiny(tmp_path, resume=str(crafted)), resume_overrides=[f"resume={crafted}"])
    assert "the secret" not in str(refused.value)


def test_an_optimizer_state_that_is_not_the_networks_is_refused_before_it_is_built(run_dir, tmp_path):
    """One of Adam's moments, 8 bytes in the file expanded to 2**30 elements (plain torch.save), was cast
    to float32 whole by the resume (4.7 GB) before the first step failed in a traceback."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    crafted, genuine = load_checkpoint(copy)
    genuine["optimizer"]["state"][0]["exp_avg"] = torch.zeros(1, dtype=torch.float64).expand(2**30)
    torch.save(genuine, crafted)
    assert crafted.stat().st_size < 2 * (run_dir / "checkpoints/update_000002.pt").stat().st_size
    with pytest.raises(
        ValueError, match=r"\.pt: its optimizer state 'exp_avg' of parameter 0 is \(1073741824,\)"
    ):
        train(tiny(tmp_path, resume=str(crafted)), resume_overrides=[f"resume={crafted}"])


@pytest.mark.parametrize("shape", ["shared", "deep", "key"])
def test_a_checkpoint_config_past_any_runs_size_is_refused_before_it_is_walked(run_dir, tmp_path, shape):
    """Ten references to ten references ... to ten strings: a small file (pickle writes each list once)
    that expanded value by value in OmegaConf.merge (10**6 strings: still merging after 300 s, 2.5 GB);
    nested 300 deep, it stopped in a RecursionError (now refused with the whole checkpoint, past 64 deep:
    40 deep is within that, past the config's 32)."""
    import time

    _, genuine = load_checkpoint(run_dir)
    if shape == "shared":
        notes = ["x"] * 10
        for _ in range(3):  # 10**4 strings once walked
            notes = [notes] * 10
    elif shape == "deep":
        notes = []
        for _ in range(40):
            notes = [notes]
    else:
        notes = {("a", "tuple"): 1}
    config = {
        **genuine["config"],
        "opponents": [{**genuine["config"]["opponents"][0], "options": {"notes": notes}}],
    }
    crafted = tmp_path / "bomb.pt"
    torch.save({**genuine, "config": config}, crafted)
    assert crafted.stat().st_size < 2 * (run_dir / "checkpoints/update_000002.pt").stat().st_size
    start = time.monotonic()
    said = (  # a tuple key: refused before torch reads the file (agents.ppo.pickle_scan)
        "gives a dict a key that is neither a string nor a number"
        if shape == "key"
        else "resume: the checkpoint's config holds more than 10,000 values or is nested"
    )
    with pytest.raises(ValueError, match=said):
        train(tiny(tmp_path, resume=str(crafted)), resume_overrides=[f"resume={crafted}"])
    assert time.monotonic() - start < 2.0


@pytest.mark.parametrize("where", ["games", "league", "snapshots", "itself", "deep"])
def test_a_checkpoint_past_any_runs_size_is_refused_before_anything_walks_it(run_dir, tmp_path, where):
    """A review's route: only the config was bounded. Ten references to ten references ... (7 deep) to a
    list among the games is a small file that restoring the games (``to_arrays``) walked copy by copy: 25
    deep, a 1 MB checkpoint never resumed. The league's estimates and the snapshots were not bounded
    either; a list holding itself stopped the walk in a RecursionError, 100 lists deep would have passed."""
    import time

    _, genuine = load_checkpoint(run_dir)
    junk = [0]
    for _ in range(7):  # 1.1 * 10**7 values once walked
        junk = [junk] * 10
    if where == "itself":
        junk = [1]
        junk.append(junk)
    elif where == "deep":
        junk = []
        for _ in range(100):
            junk = [junk]
    crafted = tmp_path / "run" / "checkpoints" / "update_000002.pt"
    crafted.parent.mkdir(parents=True)
    if where == "snapshots":
        snapshot = {"label": "s", "update": 1, "state_dict": genuine["model"]["state_dict"], "notes": junk}
        saved = {**genuine, "snapshots": [snapshot]}
    else:
        key = "league" if where == "league" else "games"
        saved = {**genuine, key: {**genuine.get(key, {}), "notes": junk}}
    torch.save(saved, crafted)
    assert crafted.stat().st_size < 2 * (run_dir / "checkpoints/update_000002.pt").stat().st_size
    start = time.monotonic()
    with pytest.raises(ValueError, match=rf"^{crafted}: its plain data holds more than 10,000,000 values, is "
                       "nested more than 64 deep or holds itself"):  # fmt: skip
        train(tiny(tmp_path, resume=str(crafted)), resume_overrides=[f"resume={crafted}"])
    assert time.monotonic() - start < 2.0
    assert load_checkpoint(run_dir)[1]["update"] == 2  # a run's own checkpoint is well within the bounds


# -- 5: what a resume may change; a cut checkpoint -------------------------------------------------


def test_resume_refuses_a_change_of_what_the_run_learns(run_dir):
    with pytest.raises(
        ValueError, match=r"cannot change learning_rate \(the run has 0.00025, got 0.001\)"
    ) as error:
        train(
            tiny(run_dir.parent, resume=str(run_dir), learning_rate=1e-3),
            resume_overrides=["learning_rate=0.001"],
        )
    assert all(name in str(error.value) for name in RESUMABLE)
    with pytest.raises(ValueError, match=r"network.hidden \(the run has \[16, 16\], got \[32\]\)"):
        train(tiny(run_dir.parent, resume=str(run_dir), network=NetworkSettings(hidden=[32])),
              resume_overrides=["network.hidden=[32]"])  # fmt: skip
    # The precision is the run's too: its updates' arithmetic is part of what it learned.
    with pytest.raises(
        ValueError, match=r"cannot change precision \(the run has 'float32', got 'bfloat16'\)"
    ):
        train(
            tiny(run_dir.parent, resume=str(run_dir), precision="bfloat16"),
            resume_overrides=["precision=bfloat16"],
        )
    # The size of the evaluations during training: the learning curves read it from config.yaml.
    with pytest.raises(ValueError, match=r"cannot change eval_games \(the run has"):
        train(tiny(run_dir.parent, resume=str(run_dir), eval_games=12), resume_overrides=["eval_games=12"])
    # Without a list of overrides (the Python API) every value that differs counts.
    with pytest.raises(ValueError, match=r"cannot change num_envs \(the run has 8, got 16\)"):
        train(tiny(run_dir.parent, resume=str(run_dir), num_envs=16))


def test_resume_applies_a_larger_budget_from_the_command_line(run_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    command = [
        sys.executable,
        "-m",
        "experiments.train_ppo",
        f"resume={copy}",
        f"total_timesteps={3 * 8 * 16}",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"resume: total_timesteps {2 * 8 * 16} -> {3 * 8 * 16}" in done.stdout
    path, last = load_checkpoint(copy)
    assert path.name == "update_000003.pt" and last["update"] == 3 and last["global_step"] == 3 * 8 * 16
    assert last["config"]["total_timesteps"] == 3 * 8 * 16  # a later resume keeps the new budget
    assert (
        yaml.safe_load((copy / "config.yaml").read_text())["total_timesteps"] == 3 * 8 * 16
    )  # as it goes on

    refused = subprocess.run([*command, "learning_rate=0.001", "num_steps=32"], cwd=ROOT, capture_output=True,
                             text=True, timeout=300)  # fmt: skip
    assert refused.returncode != 0
    assert (
        "cannot change learning_rate (the run has 0.00025, got 0.001), num_steps (the run has 16, got 32)"
        in (refused.stderr)
    )
    assert (
        yaml.safe_load((copy / "config.yaml").read_text())["learning_rate"] == 0.00025
    )  # refused: untouched


def test_a_cut_latest_checkpoint_falls_back_to_the_one_before(run_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    latest = copy / "checkpoints" / "update_000002.pt"
    data = latest.read_bytes()
    latest.write_bytes(data[: len(data) // 2])
    with pytest.warns(RuntimeWarning, match=r"update_000002.pt cannot be read .*the checkpoint before it"):
        path, checkpoint = load_checkpoint(copy)
    assert path.name == "update_000001.pt" and checkpoint["update"] == 1
    with pytest.raises(ValueError, match=r"update_000002\.pt cannot be read as a checkpoint"):
        load_checkpoint(latest)  # a file named explicitly is that file or nothing


def test_a_run_and_its_resume_hold_the_run_folder_to_the_end(tmp_path):
    """A resume of a run still training was let run beside it: their checkpoints, curves and model mixed."""
    from experiments.common.folder_lock import FolderInUse, lock_folder

    held = []

    def try_the_folder(timing: dict) -> None:
        (folder,) = tmp_path.glob("cluedo_v0__*")
        with pytest.raises(FolderInUse), lock_folder(folder):
            pass
        held.append(timing["update"])

    folder = train(tiny(tmp_path), on_update=try_the_folder)
    train(tiny(tmp_path, updates=3, resume=str(folder)), on_update=try_the_folder)
    assert held == [1, 2, 3]
    with lock_folder(folder):  # free once the run has ended
        pass


def test_a_resume_of_a_folder_in_use_is_refused_in_one_line_before_it_changes_anything(run_dir, tmp_path):
    """Two resumes of one run folder both ran, setting aside each other's checkpoints: the curves were one
    run's and the model the other's."""
    import shutil

    from experiments.common.folder_lock import lock_folder

    def files(folder: Path) -> dict[Path, bytes]:
        return {
            path: path.read_bytes() for path in folder.rglob("*") if path.is_file() and path.suffix != ".lock"
        }

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    before = files(copy)
    command = [
        sys.executable,
        "-m",
        "experiments.train_ppo",
        f"resume={copy}",
        f"total_timesteps={3 * 8 * 16}",
    ]
    with lock_folder(copy):  # the run, or another resume of it, still training
        refused = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1, refused.stderr[-3000:]
    (line,) = refused.stderr.splitlines()  # one line, no traceback
    assert re.fullmatch(
        rf"error: {re.escape(str(copy))} is in use by another run \(pid {os.getpid()} on .*\); two runs writing "
        r"into one folder would do the same work twice and mix their files\. Wait for it to finish, or stop it, "
        r"before resuming",
        line,
    )
    assert files(copy) == before  # no checkpoint set aside or written, no events, config.yaml as it was


def test_training_seed_range():
    with pytest.raises(ValueError, match=rf"seed must be an integer in \[0, {MAX_SEED}\]"):
        tiny(Path("."), seed=MAX_SEED + 1).validate()


def test_a_last_minibatch_of_one_decision_joins_the_one_before(tmp_path):
    """An update's decisions split every ceil(n / num_minibatches); a last minibatch of one has no
    advantage spread, and its normalised advantages were NaN, then every weight."""
    from experiments.learning.ppo_training import minibatch_starts

    assert minibatch_starts(50, 7) == [0, 7, 14, 21, 28, 35, 42]  # 7 x 7 and 8, not 7 x 7 and 1
    assert minibatch_starts(48, 6) == [0, 6, 12, 18, 24, 30, 36, 42]  # whole minibatches as before
    assert minibatch_starts(1, 1) == [0]
    run = train(tiny(tmp_path, updates=4, num_envs=4, num_steps=8, num_minibatches=8))
    weights = torch.load(run / "model.pt", weights_only=True)["state_dict"].values()
    assert weights and all(torch.isfinite(w).all() for w in weights)


@pytest.mark.parametrize(("target_kl", "steps"), [(None, 3 * 2), (1e-9, 2)])
def test_target_kl_stops_an_updates_epochs_after_the_first_past_it(tmp_path, target_kl, steps):
    """Adam counts the optimizer's steps: 3 epochs of 2 minibatches, or one epoch when the approximate KL
    passes target_kl (after the first epoch's steps it is above 1e-9)."""
    run = train(tiny(tmp_path, updates=1, update_epochs=3, target_kl=target_kl))
    (checkpoint,) = run.glob("checkpoints/update_*.pt")
    optimizer = torch.load(checkpoint, weights_only=True)["optimizer"]
    assert {int(state["step"]) for state in optimizer["state"].values()} == {steps}
