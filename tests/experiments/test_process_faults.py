"""Faults of processes: a killed command leaves no worker behind; each stop or fault says one line.

- A tournament killed (SIGKILL or SIGTERM) leaves no pool worker waiting for work; SIGTERM prints
  the command that resumes it and exits with status 143.
- A killed worker of ``experiments.imitate`` stops it with one line; running it again resumes.
- An output folder that cannot be written stops tournament, train_ppo and imitate with one line
  naming it.
- Ctrl-C at the human's prompt of ``experiments.play`` exits with one line, no traceback.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, sigint_as_from_a_shell

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


def children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            state, parent = stat.rpartition(")")[2].split()[:2]
            if int(parent) == pid and state != "Z":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def start_tournament(out: Path) -> subprocess.Popen:
    """A long tournament on two pool workers (far more games than the test waits for)."""
    command = [
        sys.executable, "-m", "experiments.tournament", "lineup=baselines", "game.num_players=3",
        "games_per_lineup=30000", "batch_size=4", "workers=2", "progress=false", "plots=false",
        f"output_dir={out}",
    ]  # fmt: skip
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def command_line(pid: int) -> bytes:
    """The process's command line; empty once it has ended (a short-lived child may end between
    listing the children and reading this)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def workers_of(process: subprocess.Popen) -> list[int]:
    """The pool's workers, once both run (the spawn workers, not the resource tracker)."""

    def spawned() -> list[int]:
        pids = [p for p in children(process.pid) if b"spawn_main" in command_line(p)]
        return pids if len(pids) == 2 else []

    return wait_for(spawned, 120, "two pool workers")


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_tournament_leaves_no_worker_behind(tmp_path, stop):
    process = start_tournament(tmp_path / "out")
    try:
        workers = workers_of(process)
        wait_for(lambda: (tmp_path / "out" / "games.jsonl").exists(), 120, "the first games")
        process.send_signal(stop)
        stdout, stderr = process.communicate(timeout=60)
        wait_for(lambda: not any(alive(p) for p in workers), 10, f"workers {workers} to exit")
    finally:
        process.kill()
        process.wait()
    if stop == signal.SIGTERM:
        assert process.returncode == 143, stderr[-3000:]
        assert "Traceback" not in stderr, stderr[-3000:]
        (line,) = [line for line in stdout.splitlines() if line.startswith("terminated:")]
        assert (
            f"games kept in {tmp_path / 'out' / 'games.jsonl'}; to resume: python -m experiments.tournament"
            in line
        )
        assert f"output_dir={tmp_path / 'out'}" in line and "games_per_lineup=30000" in line


def test_a_killed_imitate_worker_stops_it_in_one_line_and_a_rerun_resumes(tmp_path):
    command = [
        sys.executable, "-m", "experiments.imitate", f"runs_dir={tmp_path}", "exp_name=fault", "games=8",
        "batch=4", "workers=2", "teacher.name=notepad", "opponents=[{name: random, options: {accuse: never}}]",
        "game.max_turns=60", "epochs=1", "final_eval_games=0", "init_from=null", "network.belief_features=false",
        "network.hidden=[16]", "progress=false",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:

        def pythons() -> list[int]:  # the pool's workers, not the git that records the run's revision
            return [p for p in children(process.pid) if b"python" in command_line(p).split(b"\0")[0]]

        worker = wait_for(pythons, 120, "a worker")[0]
        os.kill(worker, signal.SIGKILL)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("error: a worker process died") and "run the same command again" in last
    assert str(tmp_path / "imitate__fault__1" / "decisions") in last
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(list((tmp_path / "imitate__fault__1" / "decisions").glob("batch_*.npz"))) == 2
    assert (tmp_path / "imitate__fault__1" / "model.pt").is_file()


# -- a folder that cannot be written ---------------------------------------------------------------


def as_another_user() -> list[str]:
    """The prefix that runs a command as a user the folder's mode applies to (root writes anywhere)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root, and no setpriv to run the command as another user")
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import cluedo_env"], cwd=ROOT, capture_output=True
    )
    if probe.returncode != 0:  # (an interpreter under /root, such as pyenv's, cannot load as another user)
        pytest.skip(f"this Python cannot run as another user: {probe.stderr.decode(errors='replace')[-200:]}")
    return prefix


@pytest.mark.parametrize(
    ("module", "key", "others"),
    [
        ("tournament", "output_dir", ["workers=0"]),
        ("train_ppo", "runs_dir", []),
        ("imitate", "runs_dir", []),
    ],
)
@pytest.mark.parametrize("exists", [True, False])
def test_an_unwritable_output_folder_is_one_line(module, key, others, exists):
    prefix = as_another_user()
    top = Path(tempfile.mkdtemp(prefix="unwritable-"))  # pytest's tmp_path is closed to other users
    try:
        top.chmod(0o755)
        locked = top / "locked"
        locked.mkdir(mode=0o555)
        folder = locked if exists else locked / "new" / "out"
        numba = top / "numba"
        numba.mkdir(mode=0o777)
        numba.chmod(0o777)
        done = subprocess.run(
            [*prefix, sys.executable, "-m", f"experiments.{module}", f"{key}={folder}", *others],
            cwd=ROOT, env={**os.environ, "NUMBA_CACHE_DIR": str(numba)}, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(top)
    assert done.returncode == 1, done.stderr[-3000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: cannot write {key}={folder}: {locked} cannot be written"), line


# -- Ctrl-C at the human's prompt ------------------------------------------------------------------


def test_ctrl_c_at_the_human_prompt_is_one_line():
    # The same game played through first: on a cold numba cache (a fresh checkout) the compiling is done
    # before the Ctrl-C, which is then the prompt's, not the compiler's.
    warm = [sys.executable, "-m", "experiments.play", "--players", "3", "--games", "1", "--quiet"]
    subprocess.run(warm, cwd=ROOT, capture_output=True, timeout=300, check=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "experiments.play", "--human", "0", "--players", "3"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=sigint_as_from_a_shell,
    )  # fmt: skip
    try:
        seen = b""
        deadline = time.monotonic() + 120
        while not seen.endswith(b"> ") and time.monotonic() < deadline:  # the prompt, waiting for a line
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
        assert seen.endswith(b"> "), seen[-500:]
        process.send_signal(signal.SIGINT)
        # wait for the exit with stdin left open: communicate() would close it, and an end of input
        # that the prompt reads before the signal is handled says "the input ended" instead
        process.wait(timeout=30)
        stderr = process.stderr.read()
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, stderr.decode()[-2000:]
    assert stderr.decode().strip().splitlines() == ["interrupted: game abandoned"]
