"""The git revision of a checkout whose path has a character outside ASCII is read under any locale.

``git_revision`` read git's output in the locale's encoding: under an ASCII locale (``LC_ALL=C
PYTHONUTF8=0``) the "é" of the checkout's path stopped it with a ``UnicodeDecodeError``, and on Windows
(cp1252, while git writes UTF-8) the path git named was not the checkout's, so ``run.json`` recorded
the revision as "unknown". Git's output is now read as the file system's names are.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}
READ_REVISION = (
    "import sys; from pathlib import Path; from experiments.common.code_revision import git_revision; "
    "print(git_revision(Path(sys.argv[1])))"
)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_revision_of_a_checkout_under_a_path_outside_ascii_is_read_under_an_ascii_locale(tmp_path):
    checkout = tmp_path / "Küche"
    checkout.mkdir()
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=checkout, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "first"], cwd=checkout, check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
    )

    env = {
        key: value for key, value in os.environ.items() if not key.startswith("LC_") and key != "PYTHONPATH"
    }
    env |= ASCII_LOCALE | {"PYTHONPATH": str(ROOT)}
    read = subprocess.run([sys.executable, "-c", READ_REVISION, str(checkout)],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip() == str({"revision": head.stdout.strip(), "dirty": False})
