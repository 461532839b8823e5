"""The reasoning benchmark's solver, checked before a run: a bad one is refused in one line
(``config error: ...``) before a split is loaded or anything written.

``experiments.reasoning_bench`` checks the solver in ``ReasoningBenchConfig.validate``, which the
command runs after ``experiments.common.trust`` has refused what a config file from elsewhere gives and
the command line does not repeat: a solver given by import path is imported here only once it is the
command line's (or ``trust_files=true``).
"""

from __future__ import annotations

from typing import Any

from agents.solvers import SOLVERS, load_solver
from cluedo_env.optional_modules import missing_extra_text
from experiments.common.url_credentials import hide_url_credentials
from experiments.common.value_checks import ConfigError

__all__ = ["check_import_path", "check_llm_options", "known_solvers"]


def known_solvers() -> list[str]:
    """The solvers a run takes by name: the built-in ones and ``llm``."""
    return [*sorted(SOLVERS), "llm"]


def check_import_path(name: str) -> None:
    """Refuse a solver given by import path (``package.module:function``) that does not lead to a
    callable: a path not of that form, a module that cannot be imported, a name the module does not
    have, an object that is not callable. The module is imported (its code runs, as the run would run it).

    Raises:
        ConfigError: ``solver: <why>; ...`` naming the path and what is accepted.
    """
    accepted = f"solver must be one of {known_solvers()} or 'package.module:function' naming a callable"
    module, _, function = name.partition(":")
    if not (all(part.isidentifier() for part in module.split(".")) and function.isidentifier()):
        raise ConfigError(f"solver: {name!r} is not an import path 'package.module:function'; {accepted}")
    try:
        load_solver(name)
    except ValueError as error:  # a module not found, a name it lacks, an object not callable
        raise ConfigError(f"solver: {error}; {accepted}") from error


def check_llm_options(options: dict[str, Any]) -> None:
    """Refuse what the llm solver refuses of ``options``, in one line naming the option (credentials
    hidden). The solver is built and closed: it sends nothing, and the local model waits for the first task.

    Raises:
        ConfigError: ``llm: <the solver's reason>``, or the extra to install.
    """
    try:
        solver = load_solver("llm", options)
    except ModuleNotFoundError as error:  # httpx, of the llm extra
        text = missing_extra_text(error.name)
        if text is None:
            raise
        raise ConfigError(f"{text}; solver=llm asks a model over HTTP") from error
    except (ValueError, OSError) as error:
        raise ConfigError(hide_url_credentials(f"llm: {error}")) from error
    solver.close()
