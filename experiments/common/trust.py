"""Files from elsewhere: what a command takes from a file it did not write, and what it refuses.

An option that reaches the network, the file system or code is never
taken from a file the user may have downloaded: a config file of a folder other than the
project's own (Hydra's ``--config-dir``; ``experiments.common.shipped_configs.SHIPPED_CONFIGS`` is the
project's), a training checkpoint or run folder. Of an agent, these
are ``agents.registry.outside_options`` (an llm agent, its ``base_url``, ``api_key_env``,
``prompts``, ``record_dir``; a model path; an agent by import path); of a command, the settings
it names (a file it reads, a folder it writes, an endpoint, a solver by import path: ``init_from``,
``runs_dir``, ``output_dir``, ``resume``, ...) when the file sets them to other than the command's
own default. The command line must repeat them, or say ``trust_files=true`` (read from the command
line only); ``refuse_untrusted_options`` is the one check every command uses, and its error names
the option and the file.

What Hydra itself carries out while it composes a config (its own settings, objects to instantiate,
environment variables, configs chosen outside the folders) comes before any of these checks:
``checked_main`` refuses it from the command line first (``experiments.common.command_line``), unless
the command line says ``trust_files=true``.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from agents.registry import outside_options
from cluedo_env.console import replace_unencodable
from experiments.common.command_line import (
    TRUST_FLAG,
    refuse_bad_override_syntax,
    refuse_experimental_rerun,
    refuse_hydra_actions_from_elsewhere,
)
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.value_checks import ConfigError, exit_on_config_error

__all__ = [
    "Entrant",
    "UntrustedOption",
    "checked_main",
    "command_settings",
    "config_files_from_elsewhere",
    "refuse_from_elsewhere",
    "refuse_untrusted_options",
    "trusted_by_command_line",
]


class UntrustedOption(ConfigError):
    """An agent option that reaches outside the game, given by a file the command line did not confirm."""


Entrant = tuple[str, str, Mapping[str, Any]]  # (where in the config, agent name, options)


def refuse_untrusted_options(
    entrants: Iterable[Entrant],
    file: str | Path,
    confirmed: Callable[[str, str, str, Any], bool],
    how: str = "repeat them on the command line",
    settings: Iterable[str] = (),
) -> None:
    """Refuse what ``file`` gives that reaches outside the game, unless the command line confirms it.

    The one check of every command (tournament, train_ppo, imitate, reasoning_bench, train_sb3,
    train_rllib) for what it reads from a file it did not write: a user's config folder, a checkpoint.

    Args:
        entrants: ``(where, name, options)`` of each agent ``file`` gives; ``where`` is its place
            in the config (``lineup.agents.1``, ``opponents.0``).
        file: The file they come from, named in the error.
        confirmed: ``confirmed(where, name, key, value)``: the command line gives the same ``value``
            for ``key`` (``"name"`` or ``"options.<option>"``, see ``agents.registry.outside_options``).
        how: How the user confirms them, for the error.
        settings: Keys of the command's own settings that reach outside (``init_from``,
            ``output_dir``, ``llm.base_url``) that ``file`` gives and the command line does not.

    Raises:
        UntrustedOption: Naming every unconfirmed option and ``file``.
    """
    refused = []
    for where, name, options in entrants:
        for key in outside_options(name, options):
            value = name if key == "name" else options[key.partition(".")[2]]
            if not confirmed(where, name, key, value):
                refused.append(f"{where}.{key}")
    refused += settings
    if refused:
        raise UntrustedOption(
            f"{', '.join(refused)} given by {file}: options that reach the network, the file system "
            "or code (an endpoint, the environment variable of a key, a file read or a folder written, "
            f"an import path) are not taken from a file from elsewhere. If you trust {file}, {how} "
            f"(e.g. {refused[0]}=...) or add {TRUST_FLAG}"
        )


def config_files_from_elsewhere(hydra_config: Any) -> dict[str, str]:
    """The config files of a hydra run read from a folder that is not the project's own.

    Which files the run's config was composed from, and where in it each one's content went, are
    Hydra's to say: its defaults list of the run (the primary config, each group's chosen option, with
    the package its defaults entry or its ``# @package`` line gives it, in any form Hydra reads), made
    again from the run's config sources, config name and overrides. Each file is looked up as Hydra
    does, in the first source of the search path that has it; a file whose real path is outside
    ``configs`` (found in ``--config-dir``, ``--config-path``, ``hydra.searchpath``, or through a
    ``..`` of a config name or option) is from elsewhere.

    Returns:
        The package each such file fills (``""``: the whole config, as a primary config or a
        ``# @package _global_`` file does; ``"lineup"``) -> the file. A package that is not a plain
        dotted key (``lineup.agents[1]``) is taken as the whole config.
    """
    from hydra._internal.config_repository import CachingConfigRepository, ConfigRepository
    from hydra._internal.config_search_path_impl import ConfigSearchPathImpl
    from hydra._internal.defaults_list import create_defaults_list
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.plugins.config_source import ConfigSource
    from hydra.types import RunMode

    search_path = ConfigSearchPathImpl()
    for source in hydra_config.runtime.config_sources:
        search_path.append(source.provider, f"{source.schema}://{source.path}")
    repository = ConfigRepository(search_path)
    overrides = OverridesParser.create().parse_overrides(
        [*hydra_config.overrides.hydra, *hydra_config.overrides.task]
    )
    defaults = create_defaults_list(
        repo=CachingConfigRepository(repository),
        config_name=hydra_config.job.config_name,
        overrides_list=overrides,
        prepend_hydra=True,
        skip_missing=hydra_config.mode == RunMode.MULTIRUN,
    ).defaults
    sources = list(
        zip(repository.get_sources(), map(_source_folder, hydra_config.runtime.config_sources), strict=True)
    )
    found = {}
    for default in defaults:
        if not default.config_path:
            continue
        # the folder of the source Hydra reads it from: the first that has it
        folder = next((folder for source, folder in sources if source.is_config(default.config_path)), None)
        if folder is None:
            continue
        file = Path(os.path.normpath(folder / ConfigSource._normalize_file_name(default.config_path)))
        # where Hydra opens it: the shipped folder's source follows ``..`` (and links) out of the folder
        if not Path(os.path.realpath(file)).is_relative_to(SHIPPED_CONFIGS):
            package = default.package or ""
            found[package if _PLAIN_KEY.fullmatch(package) else ""] = str(file)
    return found


# A dotted key as the checks name one (``lineup.agents.1.options.base_url``).
_PLAIN_KEY = re.compile(r"[\w-]+(\.[\w-]+)*")


def _source_folder(source: Any) -> Path | None:
    """The folder of a hydra config source (None: structured configs, hydra's own, unreadable)."""
    if source.schema == "file":
        return Path(source.path)
    if source.schema == "pkg" and source.path != "hydra.conf":
        try:
            return Path(str(importlib.resources.files(source.path.replace("/", "."))))
        except (ImportError, TypeError):  # a package that is not there provides nothing
            return None
    return None


def _command_line_keys(hydra_config: Any) -> set[str]:
    """The keys whose values the command line gives (``lineup.agents.1.options.base_url``; no group choices)."""
    keys = set()
    for override in hydra_config.overrides.task:
        key = override.partition("=")[0]
        if key.startswith("~") or key in hydra_config.runtime.choices:
            continue
        keys.add(re.sub(r"\[(\d+)\]", r".\1", key.lstrip("+")))
    return keys


def _given_by(keys: set[str], path: str) -> bool:
    return any(path == key or path.startswith(f"{key}.") for key in keys)


def trusted_by_command_line(cfg: DictConfig, hydra_config: Any) -> bool:
    """``trust_files`` as the command line says it (a file cannot vouch for itself)."""
    return bool(cfg.get("trust_files")) and _given_by(_command_line_keys(hydra_config), "trust_files")


def refuse_from_elsewhere(
    cfg: DictConfig, hydra_config: Any, agents: Sequence[str] = (), settings: Sequence[str] = ()
) -> None:
    """Refuse what a user's config file gives that reaches outside and the command line does not repeat.

    A file of a config group (``lineup/mine.yaml``) gives the keys of its package; a primary
    config or a ``# @package _global_`` file gives every key. A setting the file leaves at the
    command's own default (the schema's value) or null reads and writes nothing new and passes.

    Args:
        cfg: The composed config of a hydra command.
        hydra_config: Its ``HydraConfig.get()``.
        agents: Where its agents are: lists of ``{name, options}`` (``lineup.agents``) or one
            (``teacher``).
        settings: Keys of its settings that reach the network, the file system or code in this
            run (``output_dir``, ``init_from``, ``llm.base_url``).

    Raises:
        UntrustedOption: see ``refuse_untrusted_options``.
    """
    elsewhere = config_files_from_elsewhere(hydra_config)
    if not elsewhere or trusted_by_command_line(cfg, hydra_config):
        return
    keys = _command_line_keys(hydra_config)
    composed, own = _raw_config(cfg), _own_defaults(cfg, hydra_config)
    changed = [
        key
        for key in settings
        if not _given_by(keys, key)
        and _raw(composed, key) is not None
        and all(_raw(composed, key) != _raw(defaults, key) for defaults in own)
    ]
    specs = []
    for path in agents:
        node = OmegaConf.select(cfg, path)
        if node is None:
            continue
        node = OmegaConf.to_container(node, resolve=True)
        for index, spec in list(enumerate(node)) if isinstance(node, list) else [(None, node)]:
            specs.append((path if index is None else f"{path}.{index}", spec))
    for package, file in elsewhere.items():
        refuse_untrusted_options(
            [
                (where, spec.get("name", ""), spec.get("options") or {})
                for where, spec in specs
                if _in_package(where, package)
            ],
            file,
            lambda where, _name, key, _value: _given_by(keys, f"{where}.{key}"),
            settings=[key for key in changed if _in_package(key, package)],
        )


def command_settings(
    cfg: DictConfig,
    agents: Sequence[str] = (),
    settings: Sequence[str] | Callable[[Any], Sequence[str]] = (),
    check: Callable[[Any], None] | None = None,
) -> tuple[Any, Any]:
    """The settings of a hydra command's run, once what a user's config file gives has passed.

    ``cfg`` as its schema's dataclass (``OmegaConf.to_object``), with ``trust_files`` as the command
    line says it (``trusted_by_command_line``); then ``refuse_from_elsewhere`` of ``agents`` and
    ``settings`` (a list, or a function of the settings giving it) and ``check`` of the settings.
    A ``ConfigError`` of either exits with ``config error: ...`` and status 2 (``exit_on_config_error``).

    Returns:
        The settings and the run's ``HydraConfig.get()``.
    """
    from hydra.core.hydra_config import HydraConfig

    hydra_config = HydraConfig.get()
    with exit_on_config_error():  # a settings class's own checks (``__post_init__``), in one line too
        try:
            args = OmegaConf.to_object(cfg)
        except ValueError as error:  # (a nested settings class's check, e.g. network.hidden)
            raise ConfigError(str(error)) from error
    args.trust_files = trusted_by_command_line(cfg, hydra_config)
    # before any agent or file: what a user's config file names that reaches outside
    with exit_on_config_error():
        refuse_from_elsewhere(cfg, hydra_config, agents, settings(args) if callable(settings) else settings)
        if check is not None:
            check(args)
    return args, hydra_config


def _in_package(key: str, package: str) -> bool:
    """Whether a file filling ``package`` (``""``: the whole config) gives ``key``."""
    return package == "" or key == package or key.startswith(f"{package}.")


def _own_defaults(cfg: DictConfig, hydra_config: Any) -> list[Any]:
    """The command's own defaults, as written (interpolations unresolved): its schema dataclass and
    its shipped primary config (``configs/<command>.yaml``), each without any other file."""
    own = []
    schema = OmegaConf.get_type(cfg)
    if dataclasses.is_dataclass(schema):
        own.append(_raw_config(OmegaConf.structured(schema)))
    shipped = SHIPPED_CONFIGS / f"{hydra_config.job.name}.yaml"
    if shipped.is_file():
        own.append(_raw_config(OmegaConf.load(shipped)))
    return own


def _raw_config(cfg: DictConfig) -> Any:
    return OmegaConf.to_container(cfg, resolve=False)


def _raw(config: Any, key: str) -> Any:
    """The value at dotted ``key`` of a plain config, as written (None: not there)."""
    for part in key.split("."):
        if isinstance(config, dict) and part in config:
            config = config[part]
        elif isinstance(config, list) and part.isdigit() and int(part) < len(config):
            config = config[int(part)]
        else:
            return None
    return config


def checked_main(hydra_main: Callable[..., Any]) -> Callable[..., Any]:
    """A command's ``@hydra.main`` function, run from the command line only after
    ``refuse_experimental_rerun``, ``refuse_bad_override_syntax`` and
    ``refuse_hydra_actions_from_elsewhere``, whose refusal exits with ``config error: ...`` and status 2
    (a call with a config, as tests make, is not checked); its output prints "?" for a character the
    output's encoding cannot hold (``cluedo_env.console.replace_unencodable``)."""

    @functools.wraps(hydra_main)
    def main(*args: Any, **kwargs: Any) -> Any:
        replace_unencodable()
        if not args and not kwargs:
            with exit_on_config_error():
                refuse_experimental_rerun(sys.argv[1:])
                refuse_bad_override_syntax(sys.argv[1:])
                command_folder = Path(inspect.getfile(inspect.unwrap(hydra_main))).parent  # (-cp: from there)
                refuse_hydra_actions_from_elsewhere(sys.argv[1:], command_folder)
        return hydra_main(*args, **kwargs)

    return main
