"""Typed configuration of tournaments, registered in hydra's ConfigStore.

The YAML files under ``configs/`` fill these dataclasses: ``tournament.yaml``
is the primary config, ``game/*.yaml`` the rules (every field of ``core.GameConfig``)
and ``lineup/*.yaml`` the entrants. Hydra's struct
mode rejects an unknown key when the command line is parsed; ``load_config``
then checks every value (rules, agents and their options, modes) and raises a
``ConfigError`` naming the field, the value and what is accepted, before any
game is played.

Files from elsewhere. An option that reaches the network, the file system or code is never
taken from a file the user may have downloaded: a config file of a folder other than the
project's own (Hydra's ``--config-dir``), a training checkpoint or run folder. Of an agent, these
are ``agents.registry.outside_options`` (an llm agent, its ``base_url``, ``api_key_env``,
``prompts``, ``record_dir``; a model path; an agent by import path); of a command, the settings
it names (a file it reads, a folder it writes, an endpoint, a solver by import path: ``init_from``,
``runs_dir``, ``output_dir``, ``resume``, ...) when the file sets them to other than the command's
own default. The command line must repeat them, or say ``trust_files=true`` (read from the command
line only); ``refuse_untrusted_options`` is the one check every command uses, and its error names
the option and the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.resources
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import MissingMandatoryValue

from agents.registry import AGENTS, make_agent, outside_options
from cluedo_env import __version__, core
from experiments.common.games_file import DEAL_SEED_STRIDE

__all__ = [
    "BACKENDS",
    "LINEUP_MODES",
    "MAX_SEED",
    "AgentSpec",
    "ConfigError",
    "GameSettings",
    "LineupConfig",
    "TournamentConfig",
    "UntrustedOption",
    "WritableFolders",
    "check_run_name",
    "checked_main",
    "config_files_from_elsewhere",
    "config_hash",
    "hydra_actions_in",
    "load_config",
    "refuse_from_elsewhere",
    "refuse_hydra_actions_from_elsewhere",
    "refuse_untrusted_options",
    "refuse_unwritable",
    "trusted_by_command_line",
]

LINEUP_MODES = ("round_robin", "one_vs_field")
BACKENDS = ("local", "ray")
# Deal d of a run with seed s uses core seed s * DEAL_SEED_STRIDE + d (games_file, the records' format,
# holds the stride), so runs with different seeds never share a deal (up to this many deals per line-up).
# The largest run seed whose deal seeds (seed * DEAL_SEED_STRIDE + deal, any deal below the stride) fit
# the core's int64 seeds: 9,223,372,035.
MAX_SEED = (2**63 - 1) // DEAL_SEED_STRIDE - 1
# Bump when a change of the tournament code changes the result of a game for the same config.
RESULTS_VERSION = 1


class ConfigError(ValueError):
    """A configuration value that cannot be used (the message names field, value and what is accepted)."""


class UntrustedOption(ConfigError):
    """An agent option that reaches outside the game, given by a file the command line did not confirm."""


def _to_game_config(self: GameSettings) -> core.GameConfig:
    """The validated ``core.GameConfig`` (a bad value raises ``ConfigError`` naming the field)."""
    try:
        return core.GameConfig(**asdict(self))
    except ValueError as error:
        raise ConfigError(f"game: {error}") from error


# The rules, field for field those of core.GameConfig (see its docstring), with its defaults: made
# from GameConfig's fields, so that a new rule switch reaches the configs without a second list.
# Every default is a str, int or bool, the value types of a hydra structured config.
GameSettings = dataclasses.make_dataclass(
    "GameSettings",
    [
        (f.name, type(f.default), dataclasses.field(default=f.default))
        for f in dataclasses.fields(core.GameConfig)
        if f.init
    ],
    namespace={
        "__doc__": "The rules, field for field those of ``core.GameConfig`` (see its docstring).",
        "__module__": __name__,  # pickles by name (make_dataclass's module= needs Python 3.12)
        "to_game_config": _to_game_config,
    },
)


@dataclass
class AgentSpec:
    """One entrant of the tournament.

    Attributes:
        name: A name of ``agents.registry.AGENTS`` or an import path ``"package.module:Class"``.
        options: Keyword arguments of the agent's constructor (e.g. ``{checkpoint: path}`` for ppo).
        label: Name in the results (default: ``name``, or the class name of an import path).
            Two entrants with the same name need different labels.
    """

    name: str = "random"
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    label: str | None = None

    @property
    def display(self) -> str:
        """The label used in results."""
        return self.label or self.name.rpartition(":")[2]


@dataclass
class LineupConfig:
    """Who plays whom.

    Attributes:
        agents: The entrants.
        mode: ``"round_robin"``: every combination of ``num_players`` distinct entrants when
            there are enough, else every multiset of entrants (combinations with repetition)
            with at least two different agents. ``"one_vs_field"``: each entrant against
            ``num_players - 1`` copies of a field agent.
        field: Labels of the field agents of ``one_vs_field`` (default: the first entrant);
            each entrant meets each field agent other than itself.
    """

    agents: list[AgentSpec] = dataclasses.field(
        default_factory=lambda: [AgentSpec("random"), AgentSpec("notepad"), AgentSpec("sat")]
    )
    mode: str = "round_robin"
    field: list[str] = dataclasses.field(default_factory=list)


@dataclass
class TournamentConfig:
    """A tournament.

    Attributes:
        game: The rules.
        lineup: The entrants and how line-ups are formed.
        games_per_lineup: Games per line-up, rounded up to a multiple of ``num_players``: each
            deal is played once under every cyclic rotation of the seats.
        backend: ``"local"`` (a process pool of ``workers``) or ``"ray"``.
        workers: Processes of the local pool (0: play in the main process); with Ray and no
            ``ray_address``, the CPUs of the local Ray instance (0: all).
        ray_address: Ray cluster to join (``auto``, ``ray://host:10001``); unset: start Ray locally.
        batch_size: Deals per unit of work (one line-up x one rotation x this many consecutive
            deals, played as one batch). Part of the results' identity: agents are seeded per unit.
        seed: Run seed: deal seeds and agent seeds derive from it.
        output_dir: Where games, config, statistics, report and plots are written.
        resume: Continue the games already in ``output_dir/games.jsonl`` (else start over).
        progress: Show a progress bar.
        plots: Write the PNG plots.
        trust_files: Take agent options that reach the network or the file system from config
            files of a folder of the user's (``--config-dir``) too; read from the command line only
            (see the module docstring).
    """

    game: GameSettings = dataclasses.field(default_factory=GameSettings)
    lineup: LineupConfig = dataclasses.field(default_factory=LineupConfig)
    games_per_lineup: int = 120
    backend: str = "local"
    workers: int = 2
    ray_address: str | None = None
    batch_size: int = 40
    seed: int = 0
    output_dir: str = "results/tournament/latest"
    resume: bool = True
    progress: bool = True
    plots: bool = True
    trust_files: bool = False

    @property
    def deals_per_lineup(self) -> int:
        """Deals per line-up (each played under every seat rotation)."""
        players = self.game.num_players
        return -(-self.games_per_lineup // players)

    @property
    def labels(self) -> list[str]:
        """Entrant labels, in the order of ``lineup.agents``."""
        return [spec.display for spec in self.lineup.agents]

    def validate(self, build_agents: bool = True) -> None:
        """Check every value; raise ``ConfigError`` naming the field, the value and what is accepted.

        Args:
            build_agents: Also construct each entrant once (catches unknown agents, bad
                options and, e.g., a missing PPO checkpoint before any game is played).
        """
        self.game.to_game_config()
        _check_int("games_per_lineup", self.games_per_lineup, 1)
        _check_int("batch_size", self.batch_size, 1)
        _check_int("workers", self.workers, 0)
        _check_int("seed", self.seed, 0, MAX_SEED)
        if self.deals_per_lineup > DEAL_SEED_STRIDE:
            raise ConfigError(
                f"games_per_lineup must be at most {DEAL_SEED_STRIDE} deals, got {self.games_per_lineup}"
            )
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {list(BACKENDS)}, got {self.backend!r}")
        if self.lineup.mode not in LINEUP_MODES:
            raise ConfigError(f"lineup.mode must be one of {list(LINEUP_MODES)}, got {self.lineup.mode!r}")
        labels = self.labels
        if len(labels) < 2:
            raise ConfigError(f"lineup.agents needs at least 2 entrants, got {labels}")
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise ConfigError(
                f"lineup.agents: labels must differ, {duplicates} repeated; set label: for each"
            )
        unknown = [label for label in self.lineup.field if label not in labels]
        if unknown:
            raise ConfigError(f"lineup.field must name entrants {labels}, got {unknown}")
        if self.lineup.field and self.lineup.mode != "one_vs_field":
            raise ConfigError(
                f"lineup.field is used only with lineup.mode=one_vs_field, got mode {self.lineup.mode!r}"
            )
        for index, spec in enumerate(self.lineup.agents):
            where = f"lineup.agents[{index}] ({spec.display})"
            if spec.name not in AGENTS and ":" not in spec.name:
                raise ConfigError(
                    f"{where}: name must be one of {sorted(AGENTS)} or 'package.module:Class', got {spec.name!r}"
                )
            if build_agents:
                try:
                    agent = make_agent(spec.name, 0, **spec.options)
                except (TypeError, ValueError, OSError) as error:
                    raise ConfigError(
                        f"{where}: cannot build agent {spec.name!r} with options {spec.options}: {error}"
                    ) from error
                try:
                    agent.check_config(self.game.to_game_config())  # refuses (or warns) before any game
                except ValueError as error:
                    raise ConfigError(f"{where} cannot play these rules: {error}") from error
                agent.close()


def load_config(cfg: DictConfig | TournamentConfig, build_agents: bool = True) -> TournamentConfig:
    """The validated ``TournamentConfig`` of a composed hydra config (or of a dataclass)."""
    try:
        settings = OmegaConf.to_object(cfg) if isinstance(cfg, DictConfig) else cfg
    except MissingMandatoryValue as error:
        key = re.sub(r"\[(\d+)\]", r".\1", error.full_key)  # the command line's spelling: agents.3
        raise ConfigError(
            f"{key} must be given (it is ??? in the config): add {key}=... to the command"
        ) from error
    if not isinstance(settings, TournamentConfig):
        raise ConfigError(f"expected a tournament config, got {type(settings).__name__}")
    settings.validate(build_agents=build_agents)
    return settings


def config_hash(settings: TournamentConfig) -> str:
    """Identity of the results: everything that decides a game's outcome, hashed (12 hex digits).

    ``games_per_lineup``, the backend, workers, output and display switches are left out:
    they change how many games are played or where, never a game's result.
    """
    identity = {
        "version": RESULTS_VERSION,
        "game": asdict(settings.game),
        "agents": [asdict(spec) for spec in settings.lineup.agents],
        "mode": settings.lineup.mode,
        "field": list(settings.lineup.field),
        "batch_size": settings.batch_size,
        "seed": settings.seed,
    }
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# -- files from elsewhere ---------------------------------------------------------------------------

# The shipped configs: the checkout's top-level configs/ folder, which an installed wheel holds as
# the package experiments.configs (pyproject.toml maps one onto the other).
_INSTALLED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"
SHIPPED_CONFIGS = (
    _INSTALLED_CONFIGS if _INSTALLED_CONFIGS.is_dir() else Path(__file__).resolve().parents[2] / "configs"
)
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

    The primary config and each group's chosen option are looked up as hydra does, in the
    first source of its search path that has them; a file found outside ``configs``
    (``--config-dir``, ``--config-path``, ``hydra.searchpath``) is from elsewhere.

    Returns:
        The package each such file fills (``""``: the whole config, as a primary config or a
        ``# @package _global_`` file does; ``"lineup"``) -> the file.
    """
    runtime = hydra_config.runtime
    wanted = [("", f"{hydra_config.job.config_name}.yaml")] + [
        (group.replace("/", "."), f"{group}/{option}.yaml")
        for group, option in runtime.choices.items()
        if option is not None and not group.startswith("hydra/")
    ]
    folders = [_source_folder(source) for source in runtime.config_sources]
    found = {}
    for package, relative in wanted:
        for folder in folders:
            if folder is not None and (folder / relative).is_file():
                if folder.resolve() != SHIPPED_CONFIGS:
                    found[_package_of(folder / relative, package)] = str(folder / relative)
                break
    return found


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


def _package_of(path: Path, default: str) -> str:
    """The package a config file fills: its ``# @package`` header, else its group's."""
    for line in path.read_text(errors="replace").splitlines()[:10]:
        if line.startswith("# @package"):
            package = line.removeprefix("# @package").strip()
            return {"_global_": "", "_group_": default}.get(package, package)
    return default


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


# -- output folders -----------------------------------------------------------------------------


class WritableFolders(Callback):
    """A hydra callback: a command whose output folder cannot be written stops at once, in one line.

    For a command whose output folder hydra creates (``hydra.run.dir: ${output_dir}``): listed in
    its YAML (``hydra.callbacks.writable_folders``) with the folders by the key that sets them
    (``{output_dir: ${output_dir}}``), checked by ``refuse_unwritable`` when the run or sweep
    starts, before hydra creates anything.
    """

    def __init__(self, folders: Mapping[str, str] | None = None) -> None:
        self.folders = dict(folders or {})

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Check the folders of a single run."""
        refuse_unwritable(self.folders)

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Check the folders of a sweep."""
        refuse_unwritable(self.folders)


def refuse_unwritable(folders: Mapping[str, str | Path]) -> None:
    """Stop a command whose output folder cannot be written, with one line instead of a traceback.

    Each folder (by the key that sets it, ``{"runs_dir": "runs"}``), or the nearest part of its
    path that exists, must be a folder this user may write. Otherwise this prints
    ``error: cannot write <key>=<folder>: <why>; ...`` and exits with status 1.
    """
    for key, folder in folders.items():
        problem = unwritable(folder)
        if problem:
            print(
                f"error: cannot write {key}={folder}: {problem}; give {key}= a folder you may write",
                file=sys.stderr,
            )
            sys.exit(1)


def unwritable(folder: str | Path) -> str | None:
    """Why ``folder`` cannot be created or written by this process (None: it can)."""
    path = Path(folder).absolute()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    try:  # a file made and removed at once: the test that holds for every user and file system
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        return f"{existing} cannot be written ({error.strerror or error})"
    return None


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


def _check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        accepted = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ConfigError(f"{name} must be an integer {accepted}, got {value!r}")


ConfigStore.instance().store(name="tournament_schema", node=TournamentConfig)
# ``${cluedo_env_version:}``: the package version, in the --help header of every experiment command.
OmegaConf.register_new_resolver("cluedo_env_version", lambda: __version__, replace=True)


# What Hydra carries out while it composes a config, before any check of a command's own runs: its
# own settings (``hydra:``: callbacks whose ``_target_`` it imports and calls, run folders), objects
# to instantiate (``_target_``) and environment variables read into values (``oc.env``).
HYDRA_ACTIONS = {
    "hydra": "Hydra's own settings",
    "_target_": "an object to instantiate",
    "oc.env": "an environment variable",
}


def hydra_actions_in(folder: str | Path) -> list[str]:
    """``"FILE: what"`` for each YAML file under ``folder`` that asks Hydra for one of ``HYDRA_ACTIONS``."""
    import yaml

    found = []
    for path in sorted(Path(folder).expanduser().rglob("*.y*ml")):
        try:
            content = yaml.safe_load(path.read_text())
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # Hydra itself refuses a file it cannot read
        asked: set[str] = set()
        stack = [content]
        while stack:
            node = stack.pop()
            if isinstance(node, Mapping):
                asked |= {key for key in ("hydra", "_target_") if key in node}
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, str) and "oc.env" in node:
                asked.add("oc.env")
        found += [f"{path}: {HYDRA_ACTIONS[key]} ({key})" for key in sorted(asked)]
    return found


def refuse_hydra_actions_from_elsewhere(argv: Sequence[str]) -> None:
    """Exit (status 2, one line) when a config folder of the command line (``--config-dir``/``-cd``,
    ``--config-path``/``-cp``) holds a file asking Hydra for one of ``HYDRA_ACTIONS``: Hydra would
    carry them out before ``refuse_untrusted_options`` could look. ``trust_files=true`` on the command
    line lets them through."""
    if any(arg.lower() == "trust_files=true" for arg in argv):
        return
    folders = []
    for index, arg in enumerate(argv):
        for flag in ("--config-dir", "-cd", "--config-path", "-cp"):
            if arg == flag and index + 1 < len(argv):
                folders.append(argv[index + 1])
            elif arg.startswith(flag + "="):
                folders.append(arg[len(flag) + 1 :])
    found = [
        line for folder in folders if Path(folder).expanduser().is_dir() for line in hydra_actions_in(folder)
    ]
    if found:
        print(
            f"config error: {'; '.join(found[:5])}: Hydra carries these out before any check, so they are "
            "not taken from a config folder from elsewhere; remove them, or add trust_files=true if you "
            "trust the folder",
            file=sys.stderr,
        )
        raise SystemExit(2)


def checked_main(hydra_main: Callable[..., Any]) -> Callable[..., Any]:
    """A command's ``@hydra.main`` function, run from the command line only after
    ``refuse_hydra_actions_from_elsewhere`` (a call with a config, as tests make, is not checked)."""
    import functools

    @functools.wraps(hydra_main)
    def main(*args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            refuse_hydra_actions_from_elsewhere(sys.argv[1:])
        return hydra_main(*args, **kwargs)

    return main
