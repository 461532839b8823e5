"""A 0.1.0 PPO checkpoint (format cluedo-ppo-checkpoint-v1: its games a pickle) is refused as a checkpoint of an
earlier version, in one line naming the model file a new run can start from; nothing of it is unpickled, and any
other function or class a file names is still refused as one torch.save never writes."""

from __future__ import annotations

import codecs
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.ppo.pickle_scan import RefusedGlobal, check_pickle  # noqa: E402
from experiments.learning.checkpoints import load_checkpoint  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

TAMPERED = "names {}, which torch.save writes in no such file; nothing of it was unpickled"


class Payload:
    """What unpickling would run: a file touched."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def checkpoint_010(games: object, **changes: object) -> dict:
    """A checkpoint laid out as 0.1.0's train_ppo saved it (save_checkpoint there): its games a pickle."""
    return {
        "format": "cluedo-ppo-checkpoint-v1",
        "update": 2,
        "global_step": 256,
        "model": {"state_dict": {"policy.weight": torch.zeros(2, 3)}, "settings": {"hidden": [16]}},
        "optimizer": {"state": {}, "param_groups": [{"lr": 0.00025, "params": [0]}]},
        "torch_rng": torch.zeros(8, dtype=torch.uint8),
        "torch_global_rng": torch.zeros(8, dtype=torch.uint8),
        "snapshots": [],
        "games": games,
        "config": {"num_envs": 8, "seed": 1},
        "elapsed": 1.5,
        **changes,
    }


def run_of_010(folder: Path, games: object, updates: int = 2, **changes: object) -> Path:
    """A run folder holding ``updates`` such checkpoints."""
    for update in range(1, updates + 1):
        path = folder / "checkpoints" / f"update_{update:06d}.pt"
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(checkpoint_010(games, update=update, **changes), path)
    return folder


def test_a_checkpoint_of_010_is_refused_as_one_of_an_earlier_version(tmp_path):
    marker = tmp_path / "ran"
    run = run_of_010(tmp_path / "run", pickle.dumps(Payload(marker)))
    with warnings.catch_warnings():
        warnings.simplefilter(
            "error"
        )  # its earlier checkpoints are of 0.1.0 too: no "the checkpoint before it"
        with pytest.raises(ValueError) as refused:
            load_checkpoint(run)
    message = str(refused.value)
    assert message.startswith(f"{run / 'checkpoints' / 'update_000002.pt'}: its pickle names _codecs.encode")
    assert "most likely a checkpoint of that earlier version, which this version cannot resume" in message
    assert "cluedo-ppo-checkpoint-v1 (0.1.0's)" in message and "nothing of it was unpickled" in message
    assert f"init_from={run / 'model.pt'}" in message
    assert "writes in no such file" not in message  # not the message of a tampered file
    assert not marker.exists()
    from agents.ppo.model import load_model  # init_from= and make_agent("ppo", checkpoint=) read it so

    with pytest.raises(ValueError) as refused:
        load_model(run / "checkpoints" / "update_000001.pt")
    message = str(refused.value)
    assert "most likely a checkpoint of that earlier version, which this version cannot read" in message
    assert f"init_from={run / 'model.pt'}" in message and "writes in no such file" not in message
    assert not marker.exists()


def test_a_resume_of_a_010_run_stops_in_one_line_naming_its_model_file(tmp_path):
    run = run_of_010(tmp_path / "run", pickle.dumps({"games": "in progress"}))
    done = subprocess.run([sys.executable, "-m", "experiments.train_ppo", f"resume={run}", "progress=false"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: {run / 'checkpoints' / 'update_000002.pt'}: its pickle names"), (
        line
    )
    assert "earlier version" in line and line.endswith(
        f"init_from={run / 'model.pt'} (written when a 0.1.0 run ends)"
    )


@pytest.mark.parametrize(
    ("where", "named"),
    [
        ("bytes in its config", "_codecs.encode"),
        ("bytes inside its games", "_codecs.encode"),
        ("an object as its games", "(posix|os).system"),
    ],
)
def test_any_other_function_a_checkpoint_names_is_refused_as_torch_save_never_writes_it(
    tmp_path, where, named
):
    marker = tmp_path / "ran"
    games, changes = {
        "bytes in its config": ({"state": []}, {"config": {"num_envs": b"8"}}),
        "bytes inside its games": ({"state": b"a pickle"}, {}),
        "an object as its games": (Payload(marker), {}),
    }[where]
    run = run_of_010(tmp_path / "run", games, updates=1, **changes)
    with pytest.raises(ValueError, match=TAMPERED.format(named)) as refused:
        load_checkpoint(run)
    assert "earlier version" not in str(refused.value)
    assert not marker.exists()


def test_the_scan_names_the_top_key_whose_value_a_refused_name_begins(tmp_path):
    for data, key in [
        ({"format": "x", "games": b"pickled"}, "games"),
        ({"games": b"pickled"}, "games"),  # one item: SETITEM, no mark
        ({"name": "games", "games": b"pickled"}, "games"),  # the key written once, read from the memo
        ({"games": {}, "state": b"pickled"}, "state"),
        ({"games": {"state": b"pickled"}}, None),  # the same instructions as the one above, up to b"pickled"
        ({"games": (b"pickled", 1)}, None),
        ({"games": codecs.encode}, None),  # the function itself, not what a call of it makes
        ({"games": [b"pickled"]}, None),
        (["games", b"pickled"], None),
    ]:
        path = tmp_path / "file.pt"
        torch.save(data, path)
        with pytest.raises(RefusedGlobal, match=TAMPERED.format("_codecs.encode")) as refused:
            check_pickle(path, "file.pt")
        assert (refused.value.name, refused.value.key) == ("_codecs.encode", key), data
