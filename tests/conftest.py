"""What the tests share: the repository's root folder, ``ROOT``, and how many workers ``-n auto`` starts.

Import ``ROOT`` as ``from tests.conftest import ROOT``. pytest itself loads this file as the module
``conftest`` (tests/ has no ``__init__.py``), so that import makes a second copy of the module:
this file holds constants and a hook only, no fixtures or state, for which the two copies would differ.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MAX_WORKERS = 4  # each worker holds torch and the compiled rules (about 0.9 GB, more with Ray's tests)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pytest-xdist): a worker per core this process may run on, at most ``MAX_WORKERS``."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(MAX_WORKERS, cores)


def sigint_as_from_a_shell() -> None:
    """A child process's SIGINT as a shell starts a command: the default action, unblocked (``preexec_fn``).

    The tests of Ctrl-C send it to a command they start; a process inherits an ignored SIGINT, and a
    test run's process may ignore it (some test of the suite leaves it so in its xdist worker)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def config_without_deal(settings: object, deal: str | None = None) -> str:
    """The YAML of a command's ``settings`` as a run folder written before ``GameConfig.deal`` existed holds
    them (no ``game.deal``), or with ``game.deal`` set to ``deal``."""
    from omegaconf import OmegaConf

    saved = OmegaConf.to_container(OmegaConf.structured(settings))
    del saved["game"]["deal"]
    if deal is not None:
        saved["game"]["deal"] = deal
    return OmegaConf.to_yaml(saved)
