"""The compiled rules and numba's cache: where compiled code goes when the package folder is read-only.

numba keeps the machine code of ``cache=True`` functions in ``__pycache__`` beside their source; where
that folder cannot be written (a system-wide or read-only install) it falls back to a user-wide folder
(``~/.cache/numba``; ``NUMBA_CACHE_DIR`` overrides both). The first test checks that fallback on a small
module of the same kind (compiling the whole core cold takes minutes); the others that every compiled
function of the core is cached.
"""

from __future__ import annotations

import importlib
import os
import platform
import stat
import subprocess
import sys
import textwrap

import pytest
from numba.core.registry import CPUDispatcher

from agents.baselines import random_agent
from cluedo_env.core import batched, movement, rules, threading_layer

MODULE = textwrap.dedent(
    """
    from numba import njit

    @njit(cache=True, nogil=True)
    def twice(x):
        return 2 * x
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and cache folder")
def test_a_read_only_install_caches_in_the_user_wide_folder(tmp_path):
    package = tmp_path / "installed"
    package.mkdir()
    (package / "compiled.py").write_text(MODULE)
    # Nothing can be written beside the source: a read-only folder (root writes there all the same,
    # so a file also stands where numba would make its __pycache__ folder).
    (package / "__pycache__").write_text("")
    package.chmod(stat.S_IRUSR | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(package))
    try:
        for _ in range(2):  # compiled and cached, then loaded from the cache
            run = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import compiled; print(compiled.twice(21), sum(compiled.twice.stats.cache_hits.values()))",
                ],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
    finally:
        package.chmod(stat.S_IRWXU)
    assert (package / "__pycache__").is_file()  # untouched
    assert list((home / ".cache" / "numba").rglob("*.nbi")), "nothing cached in the user-wide folder"
    value, hits = run.stdout.split()
    assert value == "42" and int(hits) == 1, "the second process compiled again instead of loading"


@pytest.mark.parametrize("module", [rules, batched, movement])
def test_every_compiled_function_of_the_core_is_cached(module):
    compiled = [v for v in vars(module).values() if isinstance(v, CPUDispatcher)]
    assert compiled
    for function in compiled:
        assert type(function._cache).__name__ == "FunctionCache", f"{function.__name__} is not cached"
        assert function.targetoptions.get("nogil"), f"{function.__name__} holds the GIL"


# (core.observe is the function: the module is found by its name)
COMPILED_MODULES = (
    rules,
    batched,
    movement,
    importlib.import_module("cluedo_env.core.observe"),
    random_agent,
)


def test_only_python_calls_the_parallel_entries():
    """numba caches with a parallel function the call that starts its threads when it is loaded,
    but not with a function compiled to call it in a process that loaded it from the cache
    (numba#8578): loaded in turn by a later process, that caller would call into threads never
    started (rc 139). So no compiled function of the core calls a parallel one (the orders of
    compiling that broke the cache: tests/core/test_cache_order.py)."""
    compiled = {
        f"{module.__name__}.{name}": value
        for module in COMPILED_MODULES
        for name, value in vars(module).items()
        if isinstance(value, CPUDispatcher)
    }
    parallel = {name.rsplit(".", 1)[1] for name, f in compiled.items() if f.targetoptions.get("parallel")}
    assert "_write_rows_in_parallel" in parallel  # (the test sees the parallel functions)
    for name, function in compiled.items():
        calls = parallel & set(function.py_func.__code__.co_names)
        assert not calls, f"{name} calls the parallel {sorted(calls)}"


FORK_AFTER_A_PARALLEL_STEP = textwrap.dedent(
    """
    import multiprocessing
    import numpy as np
    from cluedo_env import core

    def play(seed):
        state = core.init(core.GameConfig(), np.arange(seed, seed + 512))  # a batch run on every core
        for _ in range(5):
            state = core.step(state, core.legal_action_mask(state).argmax(axis=1))
        return int(state.turn_player.sum())

    if __name__ == "__main__":
        play(0)
        import numba
        print(numba.threading_layer())
        with multiprocessing.get_context("fork").Pool(2) as pool:
            print(pool.map(play, [0, 512]) == [play(0), play(512)])
    """
)


def test_a_process_forked_after_a_parallel_step_can_step_in_parallel_too(tmp_path):
    """numba's OpenMP layer aborts such a child ("fork() called from a process already using GNU
    OpenMP"); the core therefore picks TBB where installed, else the workqueue layer, unless the
    user has chosen one (``core/threading_layer.py``)."""
    script = tmp_path / "fork.py"
    script.write_text(FORK_AFTER_A_PARALLEL_STEP)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    layer = "tbb" if threading_layer.load_tbb() else "workqueue"
    assert done.stdout.split() == [layer, "True"], done.stdout + done.stderr


def test_tbb_loads_where_the_dependency_installs_it():
    """pyproject.toml asks for ``tbb`` on Linux and Windows x86-64; on Linux (where this is tested)
    its library must load from where pip put it. (Elsewhere a failure only means the workqueue layer.)"""
    if (sys.platform, platform.machine()) == ("linux", "x86_64"):
        assert threading_layer.load_tbb()


def test_the_compiled_rules_are_recompiled_when_the_sources_they_hold_change(monkeypatch):
    """numba keys cached code on its own file; the entries of ``core/batched.py`` hold the rules, the
    layout and the movement of other files: ``check_cache`` recompiles every compiled function of
    ``rules`` and ``batched``, and the observation writer (which views the state as they do), when
    the digest their code carries is not the sources' one."""
    from cluedo_env import core

    core.rules_for(core.GameConfig())  # (checks the cache once per process)
    assert batched.compiled_digest() == batched.source_digest()  # what this process runs is current
    recompiled = []
    compiled = [
        f for module in (rules, batched) for f in vars(module).values() if isinstance(f, CPUDispatcher)
    ]
    compiled += batched._ELSEWHERE
    assert {f.__name__ for f in batched._ELSEWHERE} == {"_write_rows", "_write_rows_in_parallel"}
    for function in compiled:
        monkeypatch.setattr(function, "recompile", lambda f=function: recompiled.append(f))
    monkeypatch.setattr(batched, "_checked", False)
    batched.check_cache()
    assert recompiled == []  # the same sources: nothing to do
    monkeypatch.setattr(batched, "_checked", False)
    monkeypatch.setattr(batched, "source_digest", lambda: -1)  # a source edited since
    batched.check_cache()
    assert set(recompiled) == set(compiled) and "step_games" in {f.__name__ for f in recompiled}
    batched.check_cache()  # once per process
    assert len(recompiled) == len(compiled)
