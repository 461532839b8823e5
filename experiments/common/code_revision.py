"""Where the project's code is, and which git revision it is (recorded with each tournament run).

``REPO_ROOT`` is the folder above the project's packages: a checkout's root, or site-packages for
an installed package.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["REPO_ROOT", "git_revision"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def git_revision(root: Path = REPO_ROOT) -> dict:
    """The code's git revision and whether the working tree has uncommitted changes.

    ``{"revision": "unknown", "dirty": None}`` where git or the repository is missing, as for an
    installed package (``run.json`` records the package version then).
    """

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    # Only a checkout of this project: an installed copy may lie inside another repository.
    top = git("rev-parse", "--show-toplevel")
    revision = git("rev-parse", "HEAD") if top and Path(top).resolve() == root.resolve() else None
    status = git("status", "--porcelain") if revision else None  # untracked code counts too
    return {"revision": revision or "unknown", "dirty": None if status is None else bool(status)}
