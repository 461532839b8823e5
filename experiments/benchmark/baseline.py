"""An earlier revision's rules core, timed beside this code's by the same loop (``baseline=<revision>``).

The revision's ``cluedo_env`` package is exported from this repository (``git archive``) into a folder
kept between runs (``$XDG_CACHE_HOME/cluedo-env/benchmark-baselines/<commit>``, by default under
``~/.cache``, so its numba cache is kept too), and a worker process (``baseline_worker``) imports it ahead of this checkout's: the worker runs this code's benchmark loops
(``core_steps.measure_core``, and ``env_steps.measure_env`` over that revision's PettingZoo env) and
answers one request per line on its standard streams. The core sections and the env section alternate
runs of this code and of the worker, so both see the machine alike.

The worker imports whatever the folder holds, so only this user may write there: the folder of exports
is made with mode 0700, and one that is not the user's or that others may write to is refused (as is
its ``cluedo-env`` folder); an export is used again only where this code finished it (its marker,
written last, is there), else it is exported anew.

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
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
EXPORTED = ".exported"  # the marker of a finished export, written last (it holds the commit)


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


def exports_folder() -> Path:
    """The user's folder of exported revisions, ``$XDG_CACHE_HOME/cluedo-env/benchmark-baselines``
    (``~/.cache`` where ``XDG_CACHE_HOME`` is unset or not absolute), made with mode 0700.

    The ``cluedo-env`` folder above it, which other commands make too (the local model's cache, under
    the user's umask), is closed to others' writing when it is the user's; the exports folder itself must
    already be closed, since what stands in it was written by whoever could.

    Raises:
        PermissionError: it, or its ``cluedo-env`` folder, is not the user's, or others may write to it
            (anyone who can write there chooses the code a baseline's worker imports).
    """
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    folder = base / "cluedo-env" / "benchmark-baselines"
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if hasattr(os, "getuid") and folder.parent.stat().st_uid == os.getuid():
        folder.parent.chmod(folder.parent.stat().st_mode & 0o755)  # (before the exports folder is looked at)
    folder.mkdir(mode=0o700, exist_ok=True)
    for checked in (folder.parent, folder) if hasattr(os, "getuid") else ():  # (Windows: the profile's ACLs)
        info = checked.stat()
        if info.st_uid != os.getuid():
            raise PermissionError(
                f"{checked} belongs to uid {info.st_uid}, not to you (uid {os.getuid()}): the baseline's code "
                "is exported there, so it must be yours; remove it, or set XDG_CACHE_HOME to a folder of yours"
            )
        if info.st_mode & 0o022:
            raise PermissionError(
                f"{checked} has mode {info.st_mode & 0o777:o}: others may write to it, and the baseline's code "
                "is exported there, so it must be writable by you alone; remove it (what stands in it may "
                "not be yours), or set XDG_CACHE_HOME to a folder of yours"
            )
    return folder


def _tree(revision: str) -> tuple[str, Path]:
    """(the commit or folder, a folder holding its ``cluedo_env``), exported on first use."""
    commit = check_baseline(revision)
    if isinstance(commit, Path):
        return str(commit), commit
    exports = exports_folder()
    folder = exports / commit
    if not _finished(folder, commit):
        archive = subprocess.run(
            ["git", "-C", str(CHECKOUT), "archive", "--format=tar", commit, "cluedo_env"],
            capture_output=True,
            check=True,
        ).stdout
        partial = Path(tempfile.mkdtemp(prefix=f"{commit}.", dir=exports))
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        (partial / EXPORTED).write_text(commit, encoding="utf-8")
        if folder.exists() and not _finished(folder, commit):
            shutil.rmtree(folder)  # a tree this code did not finish
        try:
            partial.rename(folder)  # whole or not at all: a concurrent run may have made it first
        except OSError:
            shutil.rmtree(partial)
            if not _finished(folder, commit):
                raise
    return commit[:12], folder


def _finished(folder: Path, commit: str) -> bool:
    """Whether ``folder`` is an export of ``commit`` this code finished (its marker is written last)."""
    marker = folder / EXPORTED
    return marker.is_file() and marker.read_text(encoding="utf-8") == commit
