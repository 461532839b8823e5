"""experiments/expert_dataset.py's worker processes start afresh (spawn), so a ``ppo`` seat plays in them.

The pool forked the command, where ``DatasetSettings.validate`` had loaded the ppo agent's model: the
worker waited for ever on torch's OpenMP threads, which a fork does not copy, and the command with its
default ``--workers 1`` hung without a word. With workers it now writes the folder it writes without.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the ppo agent, and the recorder (agents.ppo.imitation)
pytest.importorskip("pyarrow")
pytest.importorskip("minari")

from experiments.common.folder_lock import LOCK_FILE
from experiments.expert_dataset import DatasetSettings, build, verify
from tests.conftest import ROOT

LINEUP = ("ppo", "sat", "sat", "notepad")  # the ppo agent loads its torch model before the workers start
SETTINGS = DatasetSettings(agents=LINEUP, games=2, shard_games=1, minari_episodes=0)
TIMEOUT_S = 300  # the command takes seconds: a worker that hangs fails the test instead of the suite


def files(folder: Path) -> dict[str, bytes]:
    """Every file of a dataset folder (the run's lock aside) by its relative path."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != LOCK_FILE
    }


def test_a_ppo_seat_plays_in_worker_processes_and_the_folder_is_the_one_written_without(tmp_path):
    alone = tmp_path / "workers0"
    build(SETTINGS, alone, workers=0, progress=False)
    assert verify(alone) == []
    for workers in (1, 2):
        out = tmp_path / f"workers{workers}"
        argv = ["--out", str(out), "--agents", ",".join(LINEUP), "--games", "2", "--shard-games", "1",
                "--minari-episodes", "0", "--workers", str(workers), "--no-progress"]  # fmt: skip
        try:
            done = subprocess.run([sys.executable, "-m", "experiments.expert_dataset", *argv], cwd=ROOT,
                                  capture_output=True, text=True, timeout=TIMEOUT_S)  # fmt: skip
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"--workers {workers} with a ppo seat did not finish in {TIMEOUT_S} s (a hung worker)"
            )
        assert done.returncode == 0, done.stderr
        assert files(out) == files(alone), workers
