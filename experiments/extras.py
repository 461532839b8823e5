"""Which optional extra of ``cluedo-env`` installs a missing module, named in a clear error.

The library (``cluedo_env``, ``agents``) needs only the core dependencies; the commands of
``experiments`` need extras (``pip install "cluedo-env[experiments,train]"``). This module uses
the standard library only: it runs where an extra's import has just failed.
"""

from __future__ import annotations

__all__ = ["EXTRA_OF", "missing_extra"]

# Top-level module -> the extra of pyproject.toml that installs it.
EXTRA_OF = {
    "hydra": "experiments",
    "omegaconf": "experiments",
    "openskill": "experiments",
    "matplotlib": "experiments",
    "torch": "train",
    "tensorboard": "train",
    "ray": "ray",
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
}


def missing_extra(error: ModuleNotFoundError) -> ModuleNotFoundError:
    """``error`` restated with the extra that installs the missing module and the command to install it.

    An error about a module that no extra provides is returned unchanged.
    """
    module = (error.name or "").partition(".")[0]
    extra = EXTRA_OF.get(module)
    if extra is None:
        return error
    return ModuleNotFoundError(
        f"No module named {error.name!r}: it comes with the {extra!r} extra of cluedo-env. "
        f'Install it with: pip install "cluedo-env[{extra}]" '
        '(every command: pip install "cluedo-env[experiments,train]"; from a checkout: pip install -e ".[dev]")',
        name=error.name,
    )
