"""Checks of configuration values: ``ConfigError``, the one error every command's settings raise.

A bad value stops a command before it plays, trains or writes anything, with a message naming the
field, the value and what is accepted (``experiments.common.settings`` for tournaments, the
training and benchmark commands for theirs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.base import Agent
    from cluedo_env.core import GameConfig

__all__ = [
    "ConfigError",
    "check_agents",
    "check_all_set",
    "check_int",
    "check_local_model",
    "check_rules",
    "check_run_name",
    "exit_on_config_error",
    "first_interpolation",
    "is_read_number",
]


class ConfigError(ValueError):
    """A configuration value that cannot be used (the message names field, value and what is accepted)."""


def is_read_number(value: object) -> bool:
    """Whether a value read from a file (JSON, YAML) is a number the code can use as a float: a float
    (NaN and infinities included), or an int a float holds (not a bool, not 10**400)."""
    return type(value) is float or (type(value) is int and abs(value) <= 2**63)


@contextlib.contextmanager
def exit_on_config_error() -> Iterator[None]:
    """A command's ``ConfigError`` as its one line ``config error: ...`` on stderr and exit status 2."""
    try:
        yield
    except ConfigError as error:
        print(f"config error: {error}", file=sys.stderr)
        sys.exit(2)


def check_all_set(config: object, how: str) -> None:
    """Refuse settings (a dataclass, nested ones included) of which a field was never given a value.

    The settings' dataclasses declare fields only (omegaconf's ``MISSING``, ``"???"``); their values
    come from the shipped YAML. Built by hand, a forgotten field would reach the run as ``"???"``.

    Raises:
        ConfigError: naming every unset field and ``how`` the settings are built with the YAML's values.
    """
    unset = []

    def walk(value: object, prefix: str) -> None:
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if isinstance(item, str) and item == "???":
                unset.append(prefix + field.name)
            elif dataclasses.is_dataclass(item) and not isinstance(item, type):
                walk(item, f"{prefix}{field.name}.")

    walk(config, "")
    if unset:
        raise ConfigError(f"{type(config).__name__} has no value for {', '.join(unset)}: build it with {how}")


def check_run_name(name: str, value: object) -> None:
    """Refuse a name that becomes part of a run folder's name (``exp_name``) but is not a plain name.

    A path separator would put the run outside ``runs_dir`` (``exp_name=../../elsewhere``).

    Raises:
        ConfigError: naming the field and the value.
    """
    if not isinstance(value, str) or not value or any(c in value for c in "/\\\0"):
        raise ConfigError(
            f"{name} must be a plain name (no /, \\ or NUL; it names the run folder inside runs_dir), got {value!r}"
        )


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """Refuse a value that is not an integer (a bool is not) of ``[low, high]`` (no ``high``: ``>= low``).

    Raises:
        ConfigError: naming the field, the value and the range accepted.
    """
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        accepted = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ConfigError(f"{name} must be an integer {accepted}, got {value!r}")


def check_agents(named: Iterable[tuple[str, str, Mapping]], game: GameConfig) -> None:
    """Refuse an agent of a config that cannot play the run's games, before any is played or anything
    is written: ``(where, name, options)`` each, the ``ConfigError`` starting with ``where``. Refused: an
    ``llm`` agent asking for the local model without the local-llm extra (``check_local_model``), one the
    registry cannot build (``where: <the agent's error>``: an unknown name or option, a bad value, or a
    file option such as ``checkpoint`` naming no file it can read: ``OSError``, as the tournament's
    check), and one whose ``check_config`` refuses the rules ``game`` (``check_rules``). Each agent is
    built with seed 0 and closed: the run builds its own."""
    from agents.registry import make_agent

    for where, name, options in named:
        check_local_model(where, name, options)
        try:
            agent = make_agent(name, seed=0, **options)
        except (TypeError, ValueError, OSError) as error:  # OSError: e.g. no model file at checkpoint
            raise ConfigError(f"{where}: {error}") from error
        try:
            check_rules(where, agent, game)
        finally:
            agent.close()


def check_local_model(where: str, name: str, options: Mapping) -> None:
    """Refuse an ``llm`` agent with ``model: local`` where a module of the ``local-llm`` extra that the
    local model needs (``agents.llm.local_model.needed_modules``) is not installed: its server starts at
    the agent's first game, after the run has begun. Looked up only for such an agent, nothing imported.

    Raises:
        ConfigError: naming the module, the extra and how to install it, then ``where``.
    """
    if name != "llm" or options.get("model") != "local":
        return
    from agents.llm.local_model import needed_modules
    from cluedo_env.optional_modules import missing_extra_text

    for module in needed_modules(options.get("model_file")):
        if importlib.util.find_spec(module) is None:
            raise ConfigError(f"{missing_extra_text(module)}; {where} plays the local model (model: local)")


def check_rules(where: str, agent: Agent, game: GameConfig) -> None:
    """Refuse an agent whose ``check_config`` refuses the rules ``game`` (e.g. ismcts with
    ``auto_refute=True``, a PPO model of another player count); its warnings pass through.

    Raises:
        ConfigError: ``<where> cannot play these rules: <the agent's reason>``.
    """
    try:
        agent.check_config(game)
    except ValueError as error:
        raise ConfigError(f"{where} cannot play these rules: {error}") from error


def first_interpolation(value: Any, key: str = "") -> tuple[str, str] | None:
    """The first string of ``value`` (plain data read from a saved config) that OmegaConf would resolve as
    an interpolation (it holds ``${``), with its dotted key below ``key``; None where there is none.

    A saved config holds resolved values, so such a string was not saved by this project, and resolving
    it could read an environment variable (``${oc.env:NAME}``)."""
    if isinstance(value, Mapping):
        items = ((f"{key}.{name}" if key else str(name), item) for name, item in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{key}[{index}]", item) for index, item in enumerate(value))
    else:
        return (key, value) if isinstance(value, str) and "${" in value else None
    return next((found for name, item in items if (found := first_interpolation(item, name))), None)
