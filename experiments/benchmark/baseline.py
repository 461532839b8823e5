"""An earlier revision's rules core, timed beside this code's by the same loop (``baseline=<revision>``).

The revision's ``cluedo_env`` package is exported from this repository (``git archive``) into a folder
kept between runs (``<temp>/cluedo-benchmark-baselines/<commit>``, so its numba cache is kept too), and
a worker process (``baseline_worker``) imports it ahead of this checkout's: the worker runs this code's benchmark loops
(``core_steps.measure_core``, and ``env_steps.measure_env`` over that revision's PettingZoo env) and
answers one request per line on its standard streams. The core sections and the env section alternate
runs of this code and of the worker, so both see the machine alike.

``baseline`` may also name a folder holding a ``cluedo_env`` package (an unpacked earlier release).
The earlier core needs the API the loop uses: ``GameConfig``, ``init``, ``legal_action_mask``,
``step``, ``reset``, ``observe``, ``observation_size`` and ``rules_for(config).layout`` (every
revision since the batched numpy core, for example ``3cd9623``, the last one with it).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


class Baseline:
    """A worker process timing an earlier revision's core; a context manager (the worker stops on exit).

    Attributes:
        revision: The commit (or folder) whose core is timed.
    """

    def __init__(self, revision: str) -> None:
        self.revision, self.folder = _tree(str(revision))
        self._worker: subprocess.Popen | None = None

    def __enter__(self) -> Baseline:
        # The worker starts in the baseline's folder (first on its path), this checkout's experiments
        # and agents next, where this code runs from a checkout (else from its install).
        checkout = [str(CHECKOUT)] if (CHECKOUT / "experiments").is_dir() else []
        paths = [
            str(self.folder),
            *checkout,
            *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)),
        ]
        self._worker = subprocess.Popen(
            [sys.executable, "-m", "experiments.benchmark.baseline_worker", str(self.folder)],
            cwd=self.folder,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._worker is not None:
            self._worker.stdin.close()
            self._worker.wait(timeout=60)
            self._worker = None

    def measure_core(self, **job) -> dict:
        """``core_steps.measure_core`` of the baseline's core: ``num_players`` (classic board), ``batch``,
        ``steps``, ``seed``, ``observe``, ``warmup_cycles``."""
        return self._ask(job)

    def measure_env(self, **job) -> dict:
        """``env_steps.measure_env`` of the baseline's PettingZoo env: ``num_players``, ``wrapped``,
        ``agent_steps``, ``seed``."""
        return self._ask({**job, "section": "env"})

    def _ask(self, job: dict) -> dict:
        """The worker's answer to one request."""
        if self._worker is None:
            raise RuntimeError("Baseline is a context manager: use it in a with statement")
        self._worker.stdin.write(json.dumps(job) + "\n")
        self._worker.stdin.flush()
        line = self._worker.stdout.readline()
        if not line:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._worker.wait(timeout=10)
            raise RuntimeError(
                f"the baseline worker for {self.revision} stopped (rc {self._worker.poll()}): its core "
                "may lack the API the benchmark loop uses (see experiments/benchmark/baseline.py)"
            )
        return json.loads(line)


def check_baseline(revision: str) -> str | Path:
    """The folder holding ``revision``'s ``cluedo_env``, or the commit it names in this checkout.

    Raises:
        ValueError: it is neither (naming it and what is accepted).
    """
    given = Path(revision).expanduser()
    if (given / "cluedo_env" / "__init__.py").is_file():
        return given.resolve()
    found = subprocess.run(
        ["git", "-C", str(CHECKOUT), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        raise ValueError(
            f"baseline={revision!r} is neither a commit of the git checkout at {CHECKOUT} nor a folder "
            "holding a cluedo_env package"
        )
    return found.stdout.strip()


def _tree(revision: str) -> tuple[str, Path]:
    """(the commit or folder, a folder holding its ``cluedo_env``), exported on first use."""
    commit = check_baseline(revision)
    if isinstance(commit, Path):
        return str(commit), commit
    folder = Path(tempfile.gettempdir()) / "cluedo-benchmark-baselines" / commit
    if not (folder / "cluedo_env" / "__init__.py").is_file():
        archive = subprocess.run(
            ["git", "-C", str(CHECKOUT), "archive", "--format=tar", commit, "cluedo_env"],
            capture_output=True,
            check=True,
        ).stdout
        folder.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f"{commit}.", dir=folder.parent))
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        try:
            partial.rename(folder)  # whole or not at all: a concurrent run may have made it first
        except OSError:
            if not (folder / "cluedo_env" / "__init__.py").is_file():
                raise
    return commit[:12], folder
