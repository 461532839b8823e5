"""What the tests share: the repository's root folder, ``ROOT``, and how many workers ``-n auto`` starts.

Import ``ROOT`` as ``from tests.conftest import ROOT``. pytest itself loads this file as the module
``conftest`` (tests/ has no ``__init__.py``), so that import makes a second copy of the module:
this file holds constants and a hook only, no fixtures or state, for which the two copies would differ.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MAX_WORKERS = 4  # each worker holds torch and the compiled rules (about 0.9 GB, more with Ray's tests)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pytest-xdist): a worker per core this process may run on, at most ``MAX_WORKERS``."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(MAX_WORKERS, cores)
