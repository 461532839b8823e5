"""The command line before Hydra reads it: what Hydra itself would carry out from a config folder, a
config name or an option of the command line, and which the checks of ``experiments.common.trust``
(which run once a config is composed) would come too late for.

``HYDRA_ACTIONS`` are those things (its own settings, objects to instantiate, environment variables,
configs chosen outside the folder). ``refuse_hydra_actions_from_elsewhere`` refuses a config folder of
the command line that asks for one (``hydra_actions_in``), and a config name or group option leading
out of the config folders (``--config-name ../x``, ``lineup=../../x``: a file no check would see;
``config_choices_outside``); ``refuse_bad_override_syntax`` an override Hydra cannot read;
``refuse_experimental_rerun`` Hydra's ``--experimental-rerun FILE``, which unpickles FILE. Each lets
the command line's ``trust_files=true`` through; ``experiments.common.trust.checked_main`` runs them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.value_checks import ConfigError

__all__ = [
    "HYDRA_ACTIONS",
    "TRUST_FLAG",
    "config_choices_outside",
    "config_folders_of",
    "hydra_actions_in",
    "package_folders",
    "refuse_bad_override_syntax",
    "refuse_experimental_rerun",
    "refuse_hydra_actions_from_elsewhere",
]

TRUST_FLAG = "trust_files=true"  # the command line's word that lets files from elsewhere through

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
# What separates the parts of a defaults entry (``optional ../x@_global_: y``): Hydra's keywords
# (``optional``, ``override``) before a space, the folders of a path, the package after ``@`` and a
# rename after ``:``. A ``..`` among them leads out of the folder, whatever surrounds it.
ENTRY_PARTS = re.compile(r"[\s/\\@:]+")
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
      ``${a.b}`` may), an interpolation in a defaults entry, a ``..`` part anywhere in a defaults
      entry (its group, package or option, after Hydra's keywords: ``optional ../x@_global_: y``);
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
    if any(".." in ENTRY_PARTS.split(name) for name in [*names, *options]):
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

    def folders_of(entry: str, base: str | Path | None = None) -> list[str]:
        if entry.startswith("pkg://"):
            return package_folders(entry[len("pkg://") :].replace("/", ".").rstrip("."))
        if entry.startswith("file://"):
            return [entry[len("file://") :]]
        if "://" in entry:
            return []
        return [str(Path(base) / entry) if base is not None else entry]

    flags, overrides = _command_line(argv)
    folders = folders_of(flags.config_dir) if flags.config_dir else []
    if flags.config_path:
        folders += folders_of(flags.config_path, command_folder)
    for override in overrides:
        if override.key_or_group != "hydra.searchpath" or override.is_delete():
            continue
        value = override.value()
        for entry in value if isinstance(value, list) else [value]:
            folders += folders_of(str(entry))
    return folders


def _command_line(argv: Sequence[str], refuse: bool = False) -> tuple[Any, list[Any]]:
    """Hydra's flags of a command line and its overrides, parsed as Hydra does: one Hydra refuses is left
    out, or with ``refuse`` raises ``ConfigError`` naming it."""
    from hydra._internal.utils import get_args_parser
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    flags, rest = get_args_parser().parse_known_args(list(argv))
    parser, overrides = OverridesParser.create(), []
    for arg in [*flags.overrides, *(a for a in rest if not a.startswith("-"))]:
        try:
            overrides += parser.parse_overrides([arg])
        except HydraException as error:
            if refuse:
                raise ConfigError(
                    f"{arg!r} is not a setting Hydra can read ({str(error).splitlines()[0]}); write "
                    "key=value, quoting a value with spaces, brackets or characters outside ASCII, "
                    "e.g. 'key=\"a b\"' (https://hydra.cc/docs/advanced/override_grammar/basic/)"
                ) from None
    return flags, overrides


def config_choices_outside(argv: Sequence[str], folders: Sequence[str] = ()) -> list[str]:
    """The config name and group options of a command line that lead out of the config folders, as it
    writes them: a ``..`` part, an absolute path or an interpolation (``--config-name ../../x``,
    ``lineup=../../x``, ``lineup=${oc.env:X}``), which Hydra follows to a file that no check of a
    folder sees. An option is a group's where Hydra takes it as one: its key is a group of the shipped
    configs, of Hydra's own (``hydra/job_logging``), of a structured config or of ``folders``."""
    from hydra._internal.config_repository import ConfigRepository
    from hydra._internal.utils import create_config_search_path

    flags, overrides = _command_line(argv)
    found = [f"--config-name {flags.config_name}"] if _leads_out(flags.config_name) else []
    search_path = create_config_search_path(f"file://{SHIPPED_CONFIGS}")
    for folder in folders:
        search_path.append("command line", f"file://{folder}")
    groups = ConfigRepository(search_path)
    for override in overrides:
        if _leads_out(override.value()) and groups.group_exists(override.key_or_group):
            found.append(override.input_line)
    return found


def _leads_out(value: Any) -> bool:
    """Whether a config name or option, or a choice of a sweep (``a,../b``: each runs) or a list of them,
    is an absolute path (``/x``, ``C:x``), has a ``..`` part or is an interpolation (``${...}``)."""
    if isinstance(value, str):
        return bool(re.search(r"^[/\\]|^[A-Za-z]:|(^|[/\\])\.\.([/\\]|$)|\$\{", value))
    choices = getattr(value, "list", value)  # (a sweep's choices)
    return isinstance(choices, list) and any(map(_leads_out, choices))


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
    """Raise ``ConfigError`` (one line) when the command line's config name or a group option leads out
    of the config folders (``config_choices_outside``), or a config folder of it (``config_folders_of``)
    holds a file asking Hydra for one of ``HYDRA_ACTIONS``, choosing a config outside the folder or setting
    one of ``HYDRA_INPUTS`` the command line does not give (``hydra_actions_in``): Hydra would carry them
    out before ``refuse_untrusted_options`` could look. ``trust_files=true`` on the command line lets them through.
    ``command_folder``: the folder of the command's module, from which Hydra reads a relative ``-cp``."""
    if any(arg.lower() == "trust_files=true" for arg in argv):
        return
    given = {override.key_or_group for override in _command_line(argv)[1]}  # the keys its overrides set
    folders = [
        folder for folder in config_folders_of(argv, command_folder) if Path(folder).expanduser().is_dir()
    ]
    outside = config_choices_outside(argv, folders)
    if outside:
        raise ConfigError(
            f"{', '.join(outside)}: a config name or group option with a '..' part, an absolute path or "
            "an interpolation is read from outside the config folders, where no check sees it; put the file "
            "in a folder of yours and give that with --config-dir (its files are checked), or add "
            "trust_files=true if you trust the file"
        )
    found = [line for folder in folders if not Path(folder).expanduser().samefile(SHIPPED_CONFIGS)
             for line in hydra_actions_in(folder, given)]  # fmt: skip
    if found:
        raise ConfigError(
            f"{'; '.join(found[:5])}: Hydra carries these out before any check, so they are "
            "not taken from a config folder from elsewhere; remove them (or give such a setting on the command "
            "line), or add trust_files=true if you trust the folder"
        )


def refuse_bad_override_syntax(argv: Sequence[str]) -> None:
    """Raise ``ConfigError`` (one line naming the argument) when a command-line override is not in
    Hydra's override grammar, which Hydra would report in three lines with status 1."""
    _command_line(argv, refuse=True)


def refuse_experimental_rerun(argv: Sequence[str]) -> None:
    """Raise ``ConfigError`` (one line naming the flag and the file) when the command line asks Hydra to
    rerun a job from a saved config (``--experimental-rerun FILE``, or an abbreviation Hydra's parser takes):
    Hydra unpickles FILE, which runs whatever code it holds, and takes the whole config, ``trust_files``
    and the overrides the checks read included, from it. ``trust_files=true`` on the command line lets
    it through."""
    flags = _command_line(argv)[0]
    if flags.experimental_rerun is None or any(arg.lower() == TRUST_FLAG for arg in argv):
        return
    raise ConfigError(
        f"--experimental-rerun {flags.experimental_rerun}: Hydra unpickles this file, which "
        "can run any code in it, and takes the whole config from it, so it is refused; run the command again "
        "with the run's settings (its .hydra/overrides.yaml), or add trust_files=true if you made the file"
    )
