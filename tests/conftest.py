"""What the tests share: the repository's root folder, ``ROOT``.

Import it as ``from tests.conftest import ROOT``. pytest itself loads this file as the module
``conftest`` (tests/ has no ``__init__.py``), so that import makes a second copy of the module:
this file holds constants only, no fixtures or state, for which the two copies would differ.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
