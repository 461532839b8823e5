"""Typed configuration of tournaments, registered in hydra's ConfigStore.

The YAML files under ``configs/`` fill these dataclasses: ``tournament.yaml``
is the primary config, ``game/*.yaml`` the rules (every field of ``core.GameConfig``)
and ``lineup/*.yaml`` the entrants. Hydra's struct
mode rejects an unknown key when the command line is parsed; ``load_config``
then checks every value (rules, agents and their options, modes) and raises a
``ConfigError`` naming the field, the value and what is accepted, before any
game is played.

Settings that reach the network, the file system or code are checked by the commands against
files from elsewhere (``experiments.common.trust``); the errors of a bad value are
``experiments.common.value_checks.ConfigError``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import MissingMandatoryValue

from agents.registry import AGENTS, make_agent
from cluedo_env import core
from cluedo_env.core.config import written_fields
from cluedo_env.optional_modules import missing_extra_text
from experiments.common.games_file import DEAL_SEED_STRIDE
from experiments.common.labels import label_refusal
from experiments.common.url_credentials import hide_url_credentials
from experiments.common.value_checks import ConfigError, check_int, check_local_model, check_rules

__all__ = [
    "BACKENDS",
    "LINEUP_MODES",
    "MAX_SEED",
    "RESULTS_VERSION",
    "AgentSpec",
    "GameSettings",
    "LineupConfig",
    "TournamentConfig",
    "config_hash",
    "load_config",
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
            Two entrants with the same name need different labels. A label holds no control
            character, ``|``, ``<``, ``>``, ``[``, ``]``, a backtick, ``$`` or ``+`` and starts with
            none of ``=``, ``-``, ``@`` or a space (``experiments.common.labels``).
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
        resume: Continue the games already in ``output_dir/games.jsonl`` (else start over: its games,
            their transcripts and the lines set aside as rejected are removed).
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
        check_int("games_per_lineup", self.games_per_lineup, 1)
        check_int("batch_size", self.batch_size, 1)
        check_int("workers", self.workers, 0)
        check_int("seed", self.seed, 0, MAX_SEED)
        if self.deals_per_lineup > DEAL_SEED_STRIDE:
            raise ConfigError(
                f"games_per_lineup must be at most {DEAL_SEED_STRIDE} deals, got {self.games_per_lineup}"
            )
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {list(BACKENDS)}, got {self.backend!r}")
        # What the run needs after its games (or at its first: the local model's server), said before any
        # is played or anything is written.
        needs = [
            (self.backend == "ray", "ray", "or run with backend=local"),
            (self.plots, "matplotlib", "or run with plots=false"),
        ]
        for needed, module, instead in needs:
            if needed and importlib.util.find_spec(module) is None:
                raise ConfigError(f"{missing_extra_text(module)}; {instead}")
        for index, spec in enumerate(self.lineup.agents):  # (before a message shows a label)
            why = label_refusal(spec.display)
            if why:
                raise ConfigError(f"lineup.agents[{index}]: {why}")
        for index, spec in enumerate(self.lineup.agents):
            check_local_model(f"lineup.agents[{index}] ({spec.display})", spec.name, spec.options)
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
        repeated = sorted({label for label in self.lineup.field if self.lineup.field.count(label) > 1})
        if repeated:
            raise ConfigError(f"lineup.field names each entrant once, got {repeated} repeated")
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
                    # the options' names only: a value may be a key (an option the agent does not take, say
                    # api_key), and the error names a bad value of an option it takes
                    named = sorted(map(str, spec.options))
                    said = f"{where}: cannot build agent {spec.name!r} with options {named}: {error}"
                    raise ConfigError(hide_url_credentials(said)) from error  # a base_url's password
                try:  # refuses (or warns) before any game
                    check_rules(where, agent, self.game.to_game_config())
                finally:
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
    they change how many games are played or where, never a game's result, but for one case:
    where the deals of a line-up do not fill its last block of ``batch_size``, that short block's
    games differ from those of a run with more deals (an agent draws its randomness for a whole
    block). Such a folder takes no more games (``experiments.common.tournament_run.refuse_regrown_block``),
    and ``cluedo-stats`` refuses to pool two runs that disagree on a game. (Hashing the short block
    too would change every published run's hash.)
    """
    identity = {
        "version": RESULTS_VERSION,
        "game": written_fields(asdict(settings.game)),
        "agents": [asdict(spec) for spec in settings.lineup.agents],
        "mode": settings.lineup.mode,
        "field": list(settings.lineup.field),
        "batch_size": settings.batch_size,
        "seed": settings.seed,
    }
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


ConfigStore.instance().store(name="tournament_schema", node=TournamentConfig)
