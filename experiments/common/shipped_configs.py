"""The project's own Hydra configs: where they are, and the resolver their ``--help`` headers use.

``SHIPPED_CONFIGS`` is the ``config_path`` of every command's ``@hydra.main``, and what the checks of
``experiments.common.trust`` compare a config file's folder with: a file found elsewhere is a user's.
Importing this module registers ``${cluedo_env_version:}`` (the package version, in the ``--help``
header of every experiment command).
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import OmegaConf

from cluedo_env import __version__

__all__ = ["SHIPPED_CONFIGS"]

# The shipped configs: the checkout's top-level configs/ folder, which an installed wheel holds as
# the package experiments.configs (pyproject.toml maps one onto the other).
_INSTALLED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"
SHIPPED_CONFIGS = (
    _INSTALLED_CONFIGS if _INSTALLED_CONFIGS.is_dir() else Path(__file__).resolve().parents[2] / "configs"
)

# ``${cluedo_env_version:}``: the package version, in the --help header of every experiment command.
OmegaConf.register_new_resolver("cluedo_env_version", lambda: __version__, replace=True)
