"""What the core asks of numba at import (``cluedo_env/core/numba_setup.py``): compiling on, and a
folder to cache the compiled rules in.

A read-only install run by a user whose home cannot be written (a Docker image run as another user)
has no folder numba can cache in: numba refused to define the core's first compiled function
("RuntimeError: cannot cache function 'reach': no locator available"), so the import failed. The core
now gives numba a temporary folder, with one warning line. ``NUMBA_DISABLE_JIT=1`` failed deep in the
first step (a numba intrinsic "is not usable in pure-python"); the import now refuses it in one line.
Each runs in a fresh Python, as a user would start it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

# where numba caches the core's first compiled function, the folder it was given, and whether that
# folder is still there when the process ends (it is not: it is removed at exit)
WHERE_CACHED = (
    "import json, os, numba; from cluedo_env import core; from cluedo_env.core import movement; "
    "print(json.dumps([movement.reach._cache._cache_path, numba.config.CACHE_DIR, "
    "os.environ.get('NUMBA_CACHE_DIR')]))"
)


def fresh_python(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def environment(**given: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and k != "PYTHONPATH"}
    return env | given


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX home and cache folders")
def test_a_read_only_install_without_a_writable_home_compiles_into_a_temporary_folder(tmp_path):
    """The core copied to a folder where numba's ``__pycache__`` cannot be made (a file stands there, so
    that root, who writes in read-only folders, cannot either), and a home whose cache folder cannot be
    made (under a file): the import warns once, naming the folder and ``NUMBA_CACHE_DIR``."""
    installed = tmp_path / "site-packages"
    shutil.copytree(
        ROOT / "cluedo_env" / "core",
        installed / "cluedo_env" / "core",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "cluedo_env" / "__init__.py", installed / "cluedo_env")
    (installed / "cluedo_env" / "core" / "__pycache__").write_text("")
    home = tmp_path / "home"
    home.write_text("")  # a file: nothing can be made under it
    env = environment(HOME=str(home / "user"), XDG_CACHE_HOME=str(home / "cache"), PYTHONPATH=str(installed))
    run = fresh_python(WHERE_CACHED, env, tmp_path)
    assert run.returncode == 0, run.stderr
    cached, folder, inherited = json.loads(run.stdout)
    assert Path(cached).is_relative_to(folder) and inherited == folder  # (workers inherit the folder)
    assert Path(folder).parent == Path(tempfile.gettempdir())
    assert run.stderr.splitlines()[0] == (
        "cluedo_env: warning: numba has no folder it can write to cache the compiled rules (the package's "
        f"__pycache__, the user's cache folder): they are compiled into {folder} for this run only; set "
        "NUMBA_CACHE_DIR to a folder you can write to keep them"
    )
    assert not Path(folder).exists()  # removed at exit

    given = tmp_path / "numba-cache"  # the remedy the line names: no warning, the folder kept
    run = fresh_python(WHERE_CACHED, env | {"NUMBA_CACHE_DIR": str(given)}, tmp_path)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert Path(json.loads(run.stdout)[0]).is_relative_to(given)


def test_a_writable_cache_folder_is_used_without_a_word(tmp_path):
    run = fresh_python(WHERE_CACHED, environment(PYTHONPATH=str(ROOT)), tmp_path)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    cached, folder, inherited = json.loads(run.stdout)
    assert folder == "" and inherited is None
    assert Path(cached) == ROOT / "cluedo_env" / "core" / "__pycache__"


def test_numba_disable_jit_is_refused_at_import_in_one_line(tmp_path):
    """The core cannot run uncompiled (its numba intrinsics have no pure-Python form)."""
    env = environment(PYTHONPATH=str(ROOT), NUMBA_DISABLE_JIT="1")
    run = fresh_python("from cluedo_env import core", env, tmp_path)
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        "RuntimeError: cluedo_env.core cannot run with NUMBA_DISABLE_JIT=1: the rules core is only written "
        "to be compiled (its numba intrinsics have no pure-Python form); unset NUMBA_DISABLE_JIT"
    )
