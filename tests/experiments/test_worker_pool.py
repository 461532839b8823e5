"""The commands' process pools (``experiments.common.extras.worker_pool``): spawned workers that exit when
their parent is killed, and the tournament's workers that leave Ctrl-C to it.

The tournament's own pool killed (SIGKILL, SIGTERM) is in ``test_process_faults.py``; its Ctrl-C in
``test_tournament_cli.py``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from experiments.common.extras import worker_pool
from tests.conftest import ROOT
from tests.experiments.test_process_faults import alive

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


def pid_then_sleep(spec: object, batch: int) -> list[int]:
    """A batch of tasks standing in for ``task_generation.batch_tasks``: batch 0 is this worker's id, the
    others never finish (a worker stays busy playing)."""
    if batch:
        time.sleep(600)
    return [os.getpid()]


def worker_state(_: int) -> tuple[bool, bool, bool]:
    """In a worker: whether it ignores SIGINT, blocks SIGTERM, and silences the compile notice."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    quiet = bool(os.environ.get("CLUEDO_QUIET_COMPILE"))
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN, signal.SIGTERM in mask, quiet


# A parent printing a busy worker's id, then waiting to be killed.
POOL_PARENT = """
    import os, sys, time
    from experiments.common.extras import worker_pool
    pool = worker_pool(1{options})
    print(pool.submit(os.getpid).result(), flush=True)
    pool.submit(time.sleep, 600)
    time.sleep(600)
"""
SPLITS_PARENT = """
    from experiments.common import task_generation
    from tests.experiments.test_worker_pool import pid_then_sleep
    task_generation.batch_tasks = pid_then_sleep  # (the workers get it by name: this test module's)
    for tasks in task_generation._batches(None, 2):
        print(tasks[0], flush=True)
    """


def pool_workers(pid: int) -> list[int]:
    """The live pool workers (spawned) whose parent is ``pid``: not its resource tracker."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            spawned = b"spawn_main" in (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and spawned and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def workers_after_parent_killed(script: str, count: int) -> None:
    """Run ``script``, whose first line is a busy worker's id, then SIGKILL it: its ``count`` workers
    must all exit within 10 s."""
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        busy = int(parent.stdout.readline())
        workers = pool_workers(parent.pid)
        assert busy in workers and len(workers) == count, (busy, workers)
        os.kill(parent.pid, signal.SIGKILL)  # no atexit, no shutdown: the workers must notice by themselves
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [pid for pid in workers if alive(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"workers {left} outlived their killed parent by 10 s"
    finally:
        parent.kill()
        parent.wait()


@pytest.mark.parametrize(
    "options", ["", ", ignore_interrupt=True, quiet_compile=True"], ids=["plain", "tournament"]
)
def test_a_pool_worker_exits_when_its_parent_is_killed(options):
    workers_after_parent_killed(POOL_PARENT.format(options=options), 1)


def test_a_reasoning_splits_worker_exits_when_its_parent_is_killed():
    # The pool of generate(spec, workers=N) had no parent watch: its workers played on after a kill.
    workers_after_parent_killed(SPLITS_PARENT, 2)


def test_the_tournament_workers_leave_ctrl_c_and_the_compile_notice_to_the_parent():
    # The tournament starts its workers with SIGINT and SIGTERM blocked (backends.run_local): they inherit
    # the mask, and must take SIGTERM again.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        tournament = worker_pool(1, ignore_interrupt=True, quiet_compile=True)
        started = tournament.submit(worker_state, 0)
        plain = worker_pool(1)
        plain_started = plain.submit(worker_state, 0)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    with tournament, plain:
        assert started.result(timeout=120) == (True, False, True)
        assert plain_started.result(timeout=120) == (False, False, False)


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True, None])
def test_a_pool_of_no_workers_is_refused_naming_the_value(workers):
    with pytest.raises(ValueError, match=re.escape(f"workers must be an int >= 1, got {workers!r}")):
        worker_pool(workers)


def test_a_tournament_with_workers_plays_where_signals_cannot_be_masked(tmp_path):
    # Windows has no signal.pthread_sigmask: the tournament's pool started its workers under a mask
    # only POSIX has, and died with an AttributeError before any game.
    script = textwrap.dedent(f"""
        import runpy, signal, sys
        del signal.pthread_sigmask
        sys.argv = ["experiments.tournament", "lineup.agents=[{{name: random}}, {{name: notepad}}]",
                    "game.num_players=3", "game.max_turns=40", "games_per_lineup=6", "batch_size=3", "workers=1",
                    "progress=false", "plots=false", "output_dir={tmp_path / "out"}"]
        runpy.run_module("experiments.tournament", run_name="__main__", alter_sys=True)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len((tmp_path / "out" / "games.jsonl").read_text().splitlines()) == 12
