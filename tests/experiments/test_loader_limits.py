"""Files from elsewhere that the loaders read: a run folder's ``config.yaml`` is data (no
interpolation is resolved), a model or checkpoint file's declared size is bounded before torch
allocates it, and the benchmark's exported baseline lives in a folder only this user can write."""

from __future__ import annotations

import json
import os
import stat
import struct
import subprocess
import tempfile
import zipfile

import pytest

pytest.importorskip("yaml")

from experiments.learning.curves import ppo_run_points, sb3_name

SECRET = "sk-secret-123"


def imitation_run(folder, exp_name: str):
    folder.mkdir()
    (folder / "config.yaml").write_text(f'exp_name: "{exp_name}"\ngame:\n  num_players: 3\n')
    (folder / "history.json").write_text(
        json.dumps([{"epoch": 1, "holdout_loss": 1.0, "holdout_agreement": 0.5}])
    )
    result = {"games": 10, "win_rate": 0.5, "win_low": 0.2, "win_high": 0.8}
    (folder / "evaluation.json").write_text(json.dumps({"evaluation": {"random_never": result}}))
    return folder


def test_a_plotted_run_config_with_an_interpolation_is_refused_not_resolved(tmp_path, monkeypatch, capsys):
    """``${oc.env:...}`` in a downloaded run's config.yaml drew the environment variable as the legend."""
    pytest.importorskip("matplotlib")
    from experiments.plot_imitation import load_run, main

    monkeypatch.setenv("MY_API_KEY", SECRET)
    run = imitation_run(tmp_path / "run", "${oc.env:MY_API_KEY}")
    with pytest.raises(ValueError, match=r"exp_name is an interpolation \('\$\{oc.env:MY_API_KEY\}'\)"):
        load_run(run)
    with pytest.raises(SystemExit):
        main([str(run), "--png", str(tmp_path / "leak.png")])
    assert "exp_name is an interpolation" in capsys.readouterr().err
    assert not (tmp_path / "leak.png").exists()
    plain = load_run(imitation_run(tmp_path / "plain", "imitate"))
    assert (plain["name"], plain["players"]) == ("imitate", 3)


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("history.json", '{"epoch": 1}', "history.json: not a list of epochs"),
        ("history.json", '[{"epoch": 1, "holdout_loss": "low"}]', "history.json: not a list of epochs"),
        ("history.json", "[" * 100_000, "history.json: not readable JSON"),
        ("evaluation.json", "[]", "evaluation.json: not an object whose evaluation"),
        ("evaluation.json", '{"evaluation": {"sat": {"games": 10}}}', "evaluation.json: not an object whose"),
    ],
)
def test_a_plotted_imitation_run_of_another_shape_is_refused_in_one_line(tmp_path, capsys, name, text, said):
    """history.json = {"epoch": 1} stopped plot_imitation in a TypeError."""
    pytest.importorskip("matplotlib")
    from experiments.plot_imitation import main

    run = imitation_run(tmp_path / "run", "imitate")
    (run / name).write_text(text)
    with pytest.raises(SystemExit):
        main([str(run), "--png", str(tmp_path / "i.png")])
    err = capsys.readouterr().err
    assert f"error: {run / said}" in err.splitlines()[-1] and "Traceback" not in err
    assert not (tmp_path / "i.png").exists()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[]", "not the points of an earlier --json"),
        ('{"throughput": {}, "win_rates": {"x": {"notepad": [{"agent_steps": 1}]}}}', "not the points"),
        ('{"throughput": {"x": {"agent_steps": [1]}}, "win_rates": {}}', "not the points"),
        ("{", "not readable JSON"),
    ],
)
def test_plot_rllib_refuses_points_of_another_shape_in_one_line(tmp_path, capsys, text, said):
    """--points on a file holding [] stopped in a TypeError."""
    pytest.importorskip("matplotlib")
    from experiments.plot_rllib import main

    points = tmp_path / "points.json"
    points.write_text(text)
    with pytest.raises(SystemExit):
        main(["--points", str(points), "--png", str(tmp_path / "p.png")])
    err = capsys.readouterr().err
    assert f"error: {points}: {said}" in err.splitlines()[-1] and "Traceback" not in err
    assert not (tmp_path / "p.png").exists()


def test_the_learning_curves_read_a_run_config_as_data(tmp_path, monkeypatch):
    """``sb3_name`` drew ``policy``, and ``ppo_run_points`` read ``eval_games``, through OmegaConf's resolver."""
    monkeypatch.setenv("MY_API_KEY", SECRET)
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text('policy: "${oc.env:MY_API_KEY}"\ngamma: 0.99\n')
    with pytest.raises(ValueError, match=r"policy is an interpolation") as refused:
        sb3_name(run)
    assert SECRET not in str(refused.value)
    (run / "config.yaml").write_text("policy: card\ngamma: 0.99\neval_games: '${oc.env:MY_API_KEY}'\n")
    with pytest.raises(ValueError, match=r"eval_games is an interpolation"):
        ppo_run_points(run, "random_never")
    (run / "config.yaml").write_text("policy: card\ngamma: 0.99\nnested:\n  - {a: '${x.y}'}\n")
    with pytest.raises(ValueError, match=r"nested\[0\]\.a is an interpolation"):
        sb3_name(run)
    (run / "config.yaml").write_text("policy: card\ngamma: '0.99'\n")
    with pytest.raises(ValueError, match=r"gamma is '0.99'; it must be of type int \| float"):
        sb3_name(run)
    (run / "config.yaml").write_text("policy: card\ngamma: 0.99\n")
    assert sb3_name(run) == "SB3 MaskablePPO, CardPolicy, gamma 0.99 (train_sb3)"


# -- Model and checkpoint files: the sizes a zip archive declares are bounded before torch reads it --

BOMB_BYTES = 2**29 + 2**20  # past both bounds: MAX_MODEL_BYTES (~401 MB) and MAX_CHECKPOINT_BYTES (512 MiB)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    """A torch.save file of about 2 MB whose tensor member declares (and holds) 513 MiB of zeros."""
    torch = pytest.importorskip("torch")
    import io
    import zipfile

    genuine = io.BytesIO()
    torch.save({"x": torch.zeros(4, dtype=torch.uint8)}, genuine)
    path = tmp_path_factory.mktemp("bomb") / "bomb.pt"
    with (
        zipfile.ZipFile(genuine) as source,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out,
    ):
        for name in source.namelist():
            if not name.endswith("/data/0"):
                out.writestr(name, source.read(name))
                continue
            chunk = bytes(2**24)
            with out.open(name, "w", force_zip64=True) as member:
                for start in range(0, BOMB_BYTES, len(chunk)):
                    member.write(chunk[: BOMB_BYTES - start])
    return path


@pytest.fixture
def no_torch_load(monkeypatch):
    """torch.load fails the test: the refusal must come before it."""
    import torch

    def refused(*args, **kwargs):
        raise AssertionError("torch.load was called on a file past its bound")

    monkeypatch.setattr(torch, "load", refused)


def past_bound(path, limit: int, what: str) -> str:
    return (
        rf"{path.name}: its contents declare [\d,]{{11}} bytes uncompressed, more than the {limit:,} {what}"
    )


def test_a_small_model_file_declaring_a_huge_tensor_is_refused_before_torch_reads_it(bomb, no_torch_load):
    """A 2 MB file made torch.load allocate its 513 MiB (the review's 1.4 MB file: 3.27 GB at the peak)."""
    from agents.ppo.model import MAX_MODEL_BYTES, load_model

    assert bomb.stat().st_size < 2**22
    with pytest.raises(ValueError, match=past_bound(bomb, MAX_MODEL_BYTES, "a model file may hold")):
        load_model(bomb)


def lying_directory(archive: bytes) -> bytes:
    """``archive`` with a second copy of its directory, every member's size set to 1 byte, and of its end
    record after it: Python's zipfile reads the copy (taking the archive for a prefix), torch's reader
    the directory the end record states, the true one."""
    end = archive.rfind(b"PK\x05\x06")
    size, offset = struct.unpack_from("<II", archive, end + 12)
    directory = bytearray(archive[offset : offset + size])
    at = 0
    while at < len(directory):
        struct.pack_into("<I", directory, at + 24, 1)  # uncompressed size
        at += 46 + sum(struct.unpack_from("<HHH", directory, at + 28))
    return archive + bytes(directory) + archive[end : end + 22]


def test_a_model_file_whose_directories_disagree_is_refused_before_torch_reads_it(tmp_path, no_torch_load):
    """The bound counted the directory Python's reader finds; torch reads the one the end record states:
    a copied directory of 1-byte members let a 1.4 MB file through to allocate 1.5 GB (a review's file).
    And torch's format before 1.6, which is no zip, read as a model behind an empty zip's end record."""
    import io

    import torch

    from agents.ppo.model import SHIPPED, load_model, zip_bytes

    real = (SHIPPED / "cluedo_ppo_4p.pt").read_bytes()
    lying = tmp_path / "lying.pt"
    lying.write_bytes(lying_directory(real))
    assert zipfile.ZipFile(lying).infolist()[0].file_size == 1  # what the bound used to count
    with pytest.raises(
        ValueError, match=r"lying\.pt is not a PPO model file: .*its end records put its directory"
    ):
        load_model(lying)
    legacy = tmp_path / "legacy.pt"
    buffer = io.BytesIO()
    torch.save({"x": torch.zeros(3)}, buffer, _use_new_zipfile_serialization=False)
    empty = io.BytesIO()
    zipfile.ZipFile(empty, "w").close()
    legacy.write_bytes(buffer.getvalue() + empty.getvalue())
    with pytest.raises(
        ValueError, match=r"legacy\.pt is not a PPO model file: .*does not start with a zip member"
    ):
        load_model(legacy)
    assert zip_bytes(SHIPPED / "cluedo_ppo_4p.pt") > 300_000  # a real model passes (its zip64 records agree)


def test_a_checkpoint_declaring_more_than_a_checkpoint_holds_is_refused_before_torch_reads_it(
    bomb, no_torch_load, tmp_path
):
    from experiments.learning.checkpoints import MAX_CHECKPOINT_BYTES, load_checkpoint

    with pytest.raises(
        ValueError, match=past_bound(bomb, MAX_CHECKPOINT_BYTES, "a training checkpoint may hold")
    ):
        load_checkpoint(bomb)
    (tmp_path / "update_000001.pt").write_bytes(b"not a zip")
    with pytest.raises(
        ValueError, match=r"update_000001\.pt cannot be read as a checkpoint: torch\.save writes a zip"
    ):
        load_checkpoint(tmp_path / "update_000001.pt")


def test_an_sb3_zip_whose_policy_declares_a_huge_tensor_is_refused_before_torch_reads_it(
    bomb, no_torch_load, tmp_path
):
    """The SB3 zip's policy.pth is itself a torch zip: its members count too (and the zip's own)."""
    pytest.importorskip("sb3_contrib")
    import io
    import zipfile

    import torch

    from agents.integrations.sb3_agent import load_policy
    from agents.ppo.model import MAX_MODEL_BYTES
    from cluedo_env import core

    empty = io.BytesIO()
    torch.save({}, empty)  # a small policy.pth
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as archive:  # policy.pth stored as it is: its own zip declares the size
        archive.writestr("data", json.dumps({"policy_kwargs": {}}))
        archive.write(bomb, "policy.pth")
    with pytest.raises(ValueError, match=past_bound(path, MAX_MODEL_BYTES, "a model file may hold")):
        load_policy(path, core.GameConfig())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:  # a huge data member
        with archive.open("data", "w", force_zip64=True) as data:
            spaces = b" " * 2**24
            for start in range(0, MAX_MODEL_BYTES + 1, len(spaces)):
                data.write(spaces[: MAX_MODEL_BYTES + 1 - start])
        archive.writestr("policy.pth", empty.getvalue())
    with pytest.raises(ValueError, match=past_bound(path, MAX_MODEL_BYTES, "a model file may hold")):
        load_policy(path, core.GameConfig())


# -- The benchmark's baseline: exported where only this user can write, used again only when finished --


@pytest.fixture
def head(monkeypatch, tmp_path):
    """This checkout's HEAD commit, with the shared temporary folder and the user's cache in ``tmp_path``."""
    from experiments.benchmark.baseline import CHECKOUT

    if not hasattr(os, "getuid"):
        pytest.skip("POSIX owners and modes")
    found = subprocess.run(["git", "-C", str(CHECKOUT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if found.returncode != 0:
        pytest.skip("not a git checkout")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return found.stdout.strip()


def plant(folder):
    """A cluedo_env package someone else put at ``folder``."""
    (folder / "cluedo_env").mkdir(parents=True)
    (folder / "cluedo_env" / "__init__.py").write_text("raise SystemExit('planted')\n")


def test_a_baseline_planted_in_the_shared_temporary_folder_is_not_what_the_worker_imports(head, tmp_path):
    """Any local user could make <temp>/cluedo-benchmark-baselines/<commit> first: it was used as it was."""
    from experiments.benchmark.baseline import CHECKOUT, _tree

    plant(tmp_path / "tmp" / "cluedo-benchmark-baselines" / head)
    exports = tmp_path / "cache" / "cluedo-env" / "benchmark-baselines"
    assert _tree(head) == (head[:12], exports / head)
    genuine = subprocess.run(
        ["git", "-C", str(CHECKOUT), "show", f"{head}:cluedo_env/__init__.py"], capture_output=True, text=True
    ).stdout
    assert (exports / head / "cluedo_env" / "__init__.py").read_text() == genuine
    assert [stat.S_IMODE(f.stat().st_mode) for f in (exports, exports.parent)] == [0o700, 0o700]
    assert sorted(p.name for p in exports.iterdir()) == [head]  # no partial export left


def test_a_baseline_tree_this_code_did_not_finish_is_exported_anew(head, tmp_path):
    from experiments.benchmark.baseline import _tree

    exports = tmp_path / "cache" / "cluedo-env" / "benchmark-baselines"
    exports.mkdir(mode=0o700, parents=True)
    plant(exports / head)  # no marker: an export cut short, or a tree made otherwise
    _, folder = _tree(head)
    assert "planted" not in (folder / "cluedo_env" / "__init__.py").read_text()
    (folder / "cluedo_env" / "__init__.py").write_text("# kept\n")
    assert (_tree(head)[1] / "cluedo_env" / "__init__.py").read_text() == "# kept\n"  # finished: used again


def test_a_folder_of_exports_others_may_write_to_or_of_another_user_is_refused(head, tmp_path, monkeypatch):
    from experiments.benchmark.baseline import _tree

    exports = tmp_path / "cache" / "cluedo-env" / "benchmark-baselines"
    exports.mkdir(parents=True)
    exports.chmod(0o777)
    with pytest.raises(
        PermissionError, match=rf"{exports} has mode 777: others may write to it, .* by you alone"
    ):
        _tree(head)
    exports.chmod(0o700)
    # The cluedo-env folder above, made by another command under a loose umask (the local model's cache),
    # is the user's: closed to others, not refused (nothing in it is imported but the exports folder).
    exports.parent.chmod(0o775)
    _tree(head)
    assert exports.parent.stat().st_mode & 0o777 == 0o755
    monkeypatch.setattr(os, "getuid", lambda: os.stat(exports).st_uid + 1)
    with pytest.raises(PermissionError, match=r"belongs to uid \d+, not to you .* it must be yours"):
        _tree(head)
