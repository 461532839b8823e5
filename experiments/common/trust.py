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

What Hydra itself carries out while it composes a config (``HYDRA_ACTIONS``: its own settings,
objects to instantiate, environment variables) comes before any of these checks: a command wrapped
in ``checked_main`` refuses a config folder of the command line that asks for one
(``refuse_hydra_actions_from_elsewhere``), and Hydra's ``--experimental-rerun FILE``, which unpickles
FILE (``refuse_experimental_rerun``), unless the command line says ``trust_files=true``.
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
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.value_checks import ConfigError, exit_on_config_error

__all__ = [
    "HYDRA_ACTIONS",
    "TRUST_FLAG",
    "Entrant",
    "UntrustedOption",
    "checked_main",
    "command_settings",
    "config_files_from_elsewhere",
    "config_folders_of",
    "hydra_actions_in",
    "refuse_experimental_rerun",
    "refuse_from_elsewhere",
    "refuse_hydra_actions_from_elsewhere",
    "refuse_untrusted_options",
    "trusted_by_command_line",
]


class UntrustedOption(ConfigError):
    """An agent option that reaches outside the game, given by a file the command line did not confirm."""


TRUST_FLAG = "trust_files=true"
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
    does, in the first source of the search path that has it; a file found outside ``configs``
    (``--config-dir``, ``--config-path``, ``hydra.searchpath``) is from elsewhere.

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
        if folder is not None and folder.resolve() != SHIPPED_CONFIGS:
            package = default.package or ""
            file = folder / ConfigSource._normalize_file_name(default.config_path)
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
    with (
        exit_on_config_error()
    ):  # before any agent or file: what a user's config file names that reaches outside
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


# What Hydra carries out while it composes a config, before any check of a command's own runs: its
# own settings (``hydra:``: callbacks whose ``_target_`` it imports and calls, run folders), objects
# to instantiate (``_target_``) and environment variables read into values (``oc.env``).
HYDRA_ACTIONS = {
    "hydra": "Hydra's own settings",
    "_target_": "an object to instantiate",
    "oc.env": "an environment variable",
    "resolver": "a resolver call in a value",
    "interpolated entry": "a defaults entry Hydra resolves to a file of its choosing",
    "..": "a config outside the folder, an option chosen with",
    "@package": "a package line Hydra could read otherwise, more than one or after the leading comments",
}
# A plain interpolation of another value (``${lineup.field}``), which calls nothing.
NODE_INTERPOLATION = re.compile(r"\$\{\s*[\w.\[\]-]*\s*\}")
# The values of a command's config that Hydra's own settings of the shipped configs read (``hydra.run.dir:
# ${output_dir}``): a file setting one moves Hydra's run folder before the command checks its settings.
HYDRA_INPUTS = ("output_dir",)


def hydra_actions_in(folder: str | Path, given: Iterable[str] = ()) -> list[str]:
    """``"FILE: what"`` for each file under ``folder`` that could make Hydra act while it composes a config
    (``HYDRA_ACTIONS``), or that this reading cannot vouch for.

    Where a file's content lands (its package) and which files a defaults list loads are Hydra's to
    compute, with rules of its own (``_global_`` anywhere in a package, renames after ``:``, headers,
    interpolations resolved in defaults entries). This reading does not compute them again; it refuses
    what could lead there:

    - ``hydra`` named in a file's folders, ``@package`` lines or defaults-list entries (groups and
      packages; the options chosen may), or a key ``hydra`` / ``hydra.<...>``;
    - ``_target_`` keys; a resolver call in a value (``${name:...}``, ``oc.env`` among them; plain
      ``${a.b}`` may), an interpolation in a defaults entry, an option chosen with ``..``;
    - more than one ``@package`` line, or one after the leading comments;
    - a value Hydra's own settings read (``HYDRA_INPUTS``: ``output_dir``, its run folder) that the
      command line does not give (``given``: the keys of its overrides);
    - symbolic links, and files or folders that cannot be read (Hydra may read what this cannot list);
    - files that are not UTF-8 text, or not YAML this reading parses: each file is read as Hydra reads
      it (UTF-8 whatever the locale's encoding, OmegaConf's YAML loader), and one it cannot parse is
      refused, not passed over.

    A folder that trips these without meaning it is still taken with ``trust_files=true``."""
    import yaml
    from omegaconf._utils import get_yaml_loader  # (Hydra's reading: no dates, for one)

    folder = Path(folder).expanduser()
    files, links, unreadable = _config_files(folder)
    found = [f"{path}: a symbolic link (not followed in a config folder from elsewhere)" for path in links]
    inputs = sorted(set(HYDRA_INPUTS) - set(given))
    for path in files:
        try:  # read as Hydra reads it (FileConfigSource: UTF-8 whatever the locale's encoding, OmegaConf's loader)
            text = path.read_text(encoding="utf-8")
            content = yaml.load(text, Loader=get_yaml_loader())  # (a safe loader: OmegaConf's)
        except OSError:
            unreadable.append(path)
            continue
        except (yaml.YAMLError, ValueError, RecursionError) as error:  # (UnicodeDecodeError is a ValueError)
            # refused, not passed over: what this reading cannot parse, Hydra may (another reading, a
            # later version), and a file it loads could carry out anything above
            reason = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
            found.append(f"{path}: not UTF-8 YAML that this check can parse ({reason}), so it is not checked")
            continue
        found += [f"{path}: {what}" for what in _asks_hydra(path.relative_to(folder), text, content, inputs)]
    return found + [f"{path}: cannot be read here, so it is not checked" for path in unreadable]


def _asks_hydra(relative: Path, text: str, content: Any, inputs: Sequence[str]) -> list[str]:
    """What of ``hydra_actions_in``'s list one file (at ``relative`` in its folder) does."""
    asked: set[str] = set()
    lines = text.splitlines()
    leading = next(
        (i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), len(lines)
    )
    headers = [i for i, line in enumerate(lines) if re.match(r"\s*#\s*@package", line)]
    if len(headers) > 1 or any(i >= leading for i in headers):
        asked.add("@package")
    defaults = content.get("defaults") if isinstance(content, Mapping) else None
    entries = (
        [entry for entry in defaults if isinstance(entry, str | Mapping)]
        if isinstance(defaults, list)
        else []
    )
    names = [str(name) for entry in entries for name in ([entry] if isinstance(entry, str) else entry)]
    options = [str(o) for entry in entries if isinstance(entry, Mapping) for v in entry.values()
               for o in (v if isinstance(v, list) else [v])]  # fmt: skip
    if any("hydra" in name.lower() for name in [*relative.parts[:-1], *(lines[i] for i in headers), *names]):
        asked.add("hydra")
    if any("${" in name for name in [*names, *options]):
        asked.add("interpolated entry")
    if any(".." in Path(name.split(":")[-1].strip()).parts for name in [*names, *options]):
        asked.add("..")
    stack, setting = [content], set()
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            asked |= {"hydra" for key in node if key == "hydra" or str(key).startswith("hydra.")}
            asked |= {"_target_"} if "_target_" in node else set()
            setting |= {key for key in inputs if key in node}
            stack.extend([*node.keys(), *node.values()])
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and "${" in NODE_INTERPOLATION.sub("", node):
            asked.add("oc.env" if "oc.env" in node else "resolver")
    return [f"{HYDRA_ACTIONS[key]} ({key})" for key in sorted(asked)] + [
        f"{key}, which Hydra's own settings read (its run folder)" for key in sorted(setting)
    ]


def _config_files(folder: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """The YAML files under ``folder``, the symbolic links there (files and folders, not followed) and the
    folders that cannot be listed."""
    files, links, unreadable = [], [], []
    for root, folders, names in os.walk(
        folder, onerror=lambda error: unreadable.append(Path(error.filename))
    ):
        links += [Path(root, name) for name in folders + names if os.path.islink(Path(root, name))]
        files += [Path(root, name) for name in names if name.endswith((".yaml", ".yml"))]
    return sorted(set(files) - set(links)), sorted(links), unreadable


def config_folders_of(argv: Sequence[str], command_folder: str | Path | None = None) -> list[str]:
    """The config folders a command line adds to Hydra's search path, read as Hydra reads them: its
    own argument parser (``--config-dir``/``-cd``, from the current folder; ``--config-path``/``-cp``,
    from ``command_folder``, the folder of the command's module; and their abbreviations, such as
    ``--config-d``) and the ``hydra.searchpath`` overrides (``file://`` entries and plain paths), the
    folder of a ``pkg://`` package in either (a downloaded folder in the current one is a package to
    ``python -m``)."""
    from hydra._internal.utils import get_args_parser
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    def folders_of(entry: str, base: str | Path | None = None) -> list[str]:
        if entry.startswith("pkg://"):
            return package_folders(entry[len("pkg://") :].replace("/", ".").rstrip("."))
        if entry.startswith("file://"):
            return [entry[len("file://") :]]
        if "://" in entry:
            return []
        return [str(Path(base) / entry) if base is not None else entry]

    flags, rest = get_args_parser().parse_known_args(list(argv))
    folders = folders_of(flags.config_dir) if flags.config_dir else []
    if flags.config_path:
        folders += folders_of(flags.config_path, command_folder)
    parser = OverridesParser.create()
    for arg in [*flags.overrides, *(a for a in rest if not a.startswith("-"))]:
        try:
            (override,) = parser.parse_overrides([arg])
        except HydraException:
            continue  # Hydra refuses it before composing anything
        if override.key_or_group != "hydra.searchpath" or override.is_delete():
            continue
        value = override.value()
        for entry in value if isinstance(value, list) else [value]:
            folders += folders_of(str(entry))
    return folders


def package_folders(name: str) -> list[str]:
    """The folders of package ``name`` (dotted) as Hydra's ``pkg://`` finds it on ``sys.path``, none
    for a module or nothing; found without importing anything (a package's ``__init__`` is code)."""
    from importlib.machinery import PathFinder

    locations: list[str] | None = None
    for part in name.split("."):
        spec = PathFinder.find_spec(part, locations) if part else None
        if spec is None or not spec.submodule_search_locations:
            return []
        locations = list(spec.submodule_search_locations)
    return locations or []


def refuse_hydra_actions_from_elsewhere(
    argv: Sequence[str], command_folder: str | Path | None = None
) -> None:
    """Exit (status 2, one line) when a config folder of the command line (``config_folders_of``)
    holds a file asking Hydra for one of ``HYDRA_ACTIONS``, choosing a config outside the folder or setting
    one of ``HYDRA_INPUTS`` the command line does not give (``hydra_actions_in``): Hydra would carry them
    out before ``refuse_untrusted_options`` could look. ``trust_files=true`` on the command line lets them through.
    ``command_folder``: the folder of the command's module, from which Hydra reads a relative ``-cp``."""
    if any(arg.lower() == "trust_files=true" for arg in argv):
        return
    given = {  # the keys the command line's overrides set
        arg.partition("=")[0].lstrip("+~")
        for index, arg in enumerate(argv)
        if "=" in arg and not arg.startswith("-") and not (index and argv[index - 1] in _VALUE_FLAGS)
    }
    found = [
        line
        for folder in config_folders_of(argv, command_folder)
        if Path(folder).expanduser().is_dir() and not Path(folder).expanduser().samefile(SHIPPED_CONFIGS)
        for line in hydra_actions_in(folder, given)
    ]
    if found:
        print(
            f"config error: {'; '.join(found[:5])}: Hydra carries these out before any check, so they are "
            "not taken from a config folder from elsewhere; remove them (or give such a setting on the command "
            "line), or add trust_files=true if you trust the folder",
            file=sys.stderr,
        )
        raise SystemExit(2)


# Hydra's flags that take the next argument as their value (not an override).
_VALUE_FLAGS = (
    *("--config-dir", "-cd", "--config-path", "-cp", "--config-name", "-cn", "--cfg", "-c"),
    *("--package", "-p", "--info", "-i", "--experimental-rerun"),
)


def refuse_bad_override_syntax(argv: Sequence[str]) -> None:
    """Exit (status 2, one line naming the argument) when a command-line override is not in Hydra's
    override grammar, which Hydra would report in three lines with status 1."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    for index, arg in enumerate(argv):
        if arg.startswith("-") or (index and argv[index - 1] in _VALUE_FLAGS):
            continue
        try:
            parser.parse_overrides([arg])
        except OverrideParseException as error:
            reason = str(error).splitlines()[0]
            print(
                f"config error: {arg!r} is not a setting Hydra can read ({reason}); write key=value, "
                "quoting a value with spaces or brackets, e.g. 'key=\"a b\"' "
                "(https://hydra.cc/docs/advanced/override_grammar/basic/)",
                file=sys.stderr,
            )
            raise SystemExit(2) from None


def refuse_experimental_rerun(argv: Sequence[str]) -> None:
    """Exit (status 2, one line naming the flag and the file) when the command line asks Hydra to rerun a
    job from a saved config (``--experimental-rerun FILE``, or an abbreviation Hydra's parser takes):
    Hydra unpickles FILE, which runs whatever code it holds, and takes the whole config, ``trust_files``
    and the overrides the checks read included, from it. ``trust_files=true`` on the command line lets
    it through."""
    from hydra._internal.utils import get_args_parser

    flags, _ = get_args_parser().parse_known_args(list(argv))
    if flags.experimental_rerun is None or any(arg.lower() == TRUST_FLAG for arg in argv):
        return
    print(
        f"config error: --experimental-rerun {flags.experimental_rerun}: Hydra unpickles this file, which "
        "can run any code in it, and takes the whole config from it, so it is refused; run the command again "
        "with the run's settings (its .hydra/overrides.yaml), or add trust_files=true if you made the file",
        file=sys.stderr,
    )
    raise SystemExit(2)


def checked_main(hydra_main: Callable[..., Any]) -> Callable[..., Any]:
    """A command's ``@hydra.main`` function, run from the command line only after
    ``refuse_experimental_rerun``, ``refuse_bad_override_syntax`` and
    ``refuse_hydra_actions_from_elsewhere`` (a call with a config, as tests make, is not checked)."""

    @functools.wraps(hydra_main)
    def main(*args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            refuse_experimental_rerun(sys.argv[1:])
            refuse_bad_override_syntax(sys.argv[1:])
            command_folder = Path(inspect.getfile(inspect.unwrap(hydra_main))).parent  # (-cp is from there)
            refuse_hydra_actions_from_elsewhere(sys.argv[1:], command_folder)
        return hydra_main(*args, **kwargs)

    return main
