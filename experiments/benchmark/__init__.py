"""Speed of the rules core (beside the previous numpy core), observations, start-up, the env, the agents,
PPO training (today's and the league's) and exact beliefs.

    python -m experiments.benchmark                       # everything, as configured in configs/benchmark.yaml
    python -m experiments.benchmark sections=[core,observe,env,startup]   # the core's figures
    python -m experiments.benchmark sections=[core] players=[4] batch_sizes=[1024]
    python -m experiments.benchmark sections=[user_loop] players=[4] batch_sizes=[256,1024] repeats=3

Every figure is the median of ``repeats`` runs measured side by side in one
process, so ratios are fair on a shared, noisy machine. The ``core`` and ``observe``
sections time the compiled core (``cluedo_env.core``) and, with ``baseline=<git revision>``,
run by run alternating with it, the core of that earlier revision of this repository
(``experiments.benchmark.baseline``: its ``cluedo_env`` exported into a folder kept between
runs, timed by the same loop in a worker process). ``baseline=3cd9623`` is the last revision
with the batched numpy core that the compiled core replaced (``baseline=`` is refused
where no such section is asked for; the other sections time this code alone). The ``startup`` section
times, in fresh processes, the import and the first steps with an empty numba cache
(``NUMBA_CACHE_DIR`` a new temporary folder: the core calls of an env's and a training
loop's first steps are compiled, observations included; ``startup.measure_startup``) and again with
that cache filled (what every later start costs), and the same for the Quickstart's main
command (the default tournament, 8 games per line-up): its cold start's extra seconds are
the compilation of everything the tournament uses. Random play: each
decision is a uniformly random legal action other than an accusation, and an
accusation (random triple) with probability 2% where one is legal (uniformly
random accusations would end nearly every game on its first turn). Finished
games are dealt again at once, so the batch stays full. Core time counts
the legal actions + ``step`` + re-dealing; choosing the random actions is
the agent's cost and is reported apart. The core's loop gets the legal
actions as a training loop does, from the step itself (``step(..., mask=)`` and
``reset(..., mask=)``, which update one mask array in the step's own pass); a
baseline whose ``step`` takes no ``mask`` from ``legal_action_mask`` after each step.
The ``user_loop`` section (``experiments.benchmark.user_loop``) times, runs alternating,
a numpy random policy over ``legal_action_mask`` called apart from ``step`` (*apart*), the
same policy over the fused ``step(..., mask=)`` (*fused*: the README's step, without its
``observe`` and ``simple_actions``), and the core section's compiled-sampler loop, so the
gap between them shows.

Figures are of steady state: a freshly dealt batch holds only games at their
start, which step faster than games under way, so each batch is first played
untimed until ``warmup_cycles`` x B games have finished (the first deal cycle is
over; the batch holds games of every age); the report gives the warm-up's
length, the spread of the games' ages when timing starts and, for comparison,
what the same number of steps reads from a fresh deal. The env plays one game
at a time and is timed over whole episodes (every age weighted as in a long
run), after an untimed one; with ``baseline=`` its runs alternate with the earlier revision's env. Results are printed as a table and written as JSON
(``output``), section by section as they are measured, each time whole (a temporary file renamed):
a save that fails (a full disk) leaves the sections saved before. An ``output`` that cannot be a file
(empty, a folder, in a folder that cannot be written) is refused before the first measurement.

The ``ppo`` section times ``experiments.train_ppo.train`` at the shipped
settings (``configs/train_ppo.yaml``, composed by hydra, so it follows the
yaml): same games per rollout, steps, network, opponents and thread settings;
only the budget is cut to ``ppo_warmup_updates`` warm-up updates (training
starts with every game fresh: enough updates for the first deal cycle to end;
the games finished during the warm-up are read from the run's TensorBoard log
and reported) and ``ppo_updates`` measured ones, and evaluations, snapshots and
periodic checkpoints are off (TensorBoard and the final checkpoint go to a
temporary folder that is removed). Per run, the figure is the agent-steps
(every player's decisions, ``num_envs`` per core step, as in ``charts/SPS``) of
the measured updates over their time (rollout, update and logging); the median
over ``repeats`` runs is reported, with the learner's decisions/s, the mean
rollout and update seconds per update, and the agent-steps per second of the
process's CPU time (``agent_steps_per_cpu_s``: what the run would reach alone on
an idle core, since training runs on one thread; on a busy machine the wall-clock
figure also counts the others' work).

The ``league`` section times training the same way for the league run's config
(``league_config``, ``configs/train_ppo_league.yaml``: SAT and belief
opponents, snapshots, belief features) and, run by run alternating with it,
today's shipped config, with the same ``league_overrides`` applied to both, over
``league_repeats`` runs each; it reports both figures and their ratio. The budget
is cut as above, so the measured updates lie at the end of the run's curriculum,
where every opponent kind is in the pool; the league's snapshots of the learner are
taken on its schedule scaled to the cut budget (``training.ppo_benchmark_config``), so
the pool holds them too (``snapshots_in_pool`` when the measured updates start), while
today's config is timed as the ``ppo`` section times it, without its snapshots.

The ``beliefs`` section plays ``beliefs_games`` whole classic games per player
count and lineup (every seat the same agent), then replays seat 0's view of
each and times the incremental ``Beliefs`` update after every
event (median, 99th percentile and maximum, per event and per record), a
from-scratch ``beliefs`` call on the same histories, and the process's peak
memory while replaying (``measure_beliefs``; not measured, null in the JSON, where Python has
neither /proc nor the ``resource`` module: Windows).
"""

from __future__ import annotations

import contextlib
import json
import platform
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra
    from hydra.core.config_store import ConfigStore
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    # (``python -m experiments.benchmark`` imports this package while sys.argv[0] is still "-m")
    raise missing_extra(error, command=sys.argv[0] == "-m") from error

from agents.registry import AGENTS, outside_options
from cluedo_env import __version__, core
from cluedo_env.optional_modules import missing_extra_text
from cluedo_env.whole_files import write_whole
from experiments.benchmark import (
    agent_decisions,
    belief_updates,
    clone_rollouts,
    core_steps,
    env_steps,
    startup,
    training,
    user_loop,
)
from experiments.benchmark.baseline import check_baseline
from experiments.benchmark.machine import cpus, machine_probe
from experiments.common.output_paths import file_refusal
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.trust import checked_main, command_settings
from experiments.common.value_checks import ConfigError

SECTIONS = (
    "core",
    "observe",
    "user_loop",
    "startup",
    "env",
    "rollouts",
    "agents",
    "ppo",
    "league",
    "beliefs",
)
BASELINE_SECTIONS = ("core", "observe", "env")  # the sections that time a baseline= revision beside this code
CONFIGS = SHIPPED_CONFIGS


@dataclass
class BenchmarkConfig:
    """What to measure.

    Attributes:
        sections: Any of core, observe, user_loop, startup, env, rollouts, agents, ppo, league, beliefs
            (at least one).
        players: Player counts (classic board).
        batch_sizes: Batch sizes of the core.
        steps: Batch steps timed per measurement, after the warm-up.
        warmup_cycles: Before timing, play each batch until this many games per batch slot have
            finished (1: the first deal cycle is over and the batch holds games of every age).
        min_agent_steps: At least this many agent-steps per measurement (small batches).
        repeats: Runs per figure (the median is reported).
        env_steps: Agent-steps per run of the PettingZoo env (whole episodes, after one untimed one).
        rollout_clones: Clones per measurement of the rollouts section (``measure_rollouts``).
        rollout_turn: The turn the cloned game has reached.
        agent_games: Games per run when timing agents.
        agent_names: The agents timed (registered names, default options; ``ismcts`` at its default budget).
        ppo_warmup_updates: PPO updates per run before the measured ones: enough for the first deal
            cycle to end (reported as ``warmup_cycles``; training starts with every game fresh).
        ppo_updates: Measured PPO updates per run (after the warm-up) at the shipped config.
        ppo_overrides: Hydra overrides of configs/train_ppo.yaml for the ppo section (empty: the
            shipped config, which is what the figure is meant to be; for tests and what-ifs).
        league_config: The league run's training config (a file of configs) for the
            league section.
        league_overrides: Hydra overrides applied to both configs of the league section.
        league_repeats: Runs of each config in the league section (the median is reported).
        beliefs_games: Whole games per (players, lineup) in the beliefs section.
        beliefs_lineups: Agents seated at every seat of those games (registered names).
        seed: Seed of deals and random play.
        baseline: An earlier revision of this repository (a commit) or a folder holding an earlier
            ``cluedo_env``, whose core the core and observe sections (and whose PettingZoo env the env
            section) time beside this code's, runs alternating (``experiments.benchmark.baseline``); None:
            this code's alone; the other sections time this code alone. Refused without any of those three.
        output: JSON file written (relative to the working directory).
        trust_files: Take the settings that reach outside the measurements (``outside_settings``: the
            report's file, a baseline's code, training configs and overrides, agents named by import
            path) from a config file of a folder of the user's (``--config-dir``) too; read from the
            command line only (``experiments.common.trust``).
    """

    sections: list[str] = field(default_factory=lambda: list(SECTIONS))
    players: list[int] = field(default_factory=lambda: [4, 6])
    batch_sizes: list[int] = field(default_factory=lambda: [1, 64, 1024, 4096])
    steps: int = 200
    warmup_cycles: int = 1
    min_agent_steps: int = 20000
    repeats: int = 5
    env_steps: int = 20000
    rollout_clones: list[int] = field(default_factory=lambda: [64, 1024])
    rollout_turn: int = 20
    agent_games: int = 64
    agent_names: list[str] = field(default_factory=lambda: ["random", "notepad", "sat", "belief", "ismcts"])
    ppo_warmup_updates: int = 12
    ppo_updates: int = 4
    ppo_overrides: list[str] = field(default_factory=list)
    league_config: str = "train_ppo_league"
    league_overrides: list[str] = field(default_factory=list)
    league_repeats: int = 1
    beliefs_games: int = 1000
    beliefs_lineups: list[str] = field(default_factory=lambda: ["random", "sat"])
    seed: int = 0
    baseline: str | None = None
    output: str = "benchmark.json"
    trust_files: bool = False

    def validate(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) naming a setting out of its range, before any measurement."""
        unknown = sorted(set(self.sections) - set(SECTIONS))
        if unknown:
            raise ConfigError(f"sections must be among {list(SECTIONS)}, got {unknown}")
        if not self.sections:
            raise ConfigError(f"sections must name at least one of {list(SECTIONS)}, got []")
        if self.baseline is not None and not set(self.sections) & set(BASELINE_SECTIONS):
            raise ConfigError(
                f"baseline={self.baseline!r} is timed only in the sections {list(BASELINE_SECTIONS)}, "
                f"got sections={list(self.sections)}: add one of them (e.g. sections=[core,observe,env])"
            )
        counts = ("steps", "warmup_cycles", "repeats", "env_steps", "agent_games", "ppo_warmup_updates")
        for name in (*counts, "ppo_updates", "league_repeats", "beliefs_games"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an int >= 1, got {value!r}")
        for name in ("batch_sizes", "rollout_clones", "players"):
            values = list(getattr(self, name))
            if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
                raise ConfigError(f"{name} must be a list of ints >= 1, got {values}")
        if self.min_agent_steps < 0:
            raise ConfigError(f"min_agent_steps must be >= 0, got {self.min_agent_steps!r}")
        if [p for p in self.players if not 3 <= p <= 6]:
            raise ConfigError(f"players must be player counts from 3 to 6, got {list(self.players)}")
        max_turns = core.GameConfig().max_turns  # the rollouts' game reaches rollout_turn before its end
        if (
            isinstance(self.rollout_turn, bool)
            or not isinstance(self.rollout_turn, int)
            or not 0 <= self.rollout_turn < max_turns
        ):
            raise ConfigError(f"rollout_turn must be an int in [0, {max_turns}), got {self.rollout_turn!r}")
        for key in ("agent_names", "beliefs_lineups"):
            unknown = [name for name in getattr(self, key) if name not in AGENTS and ":" not in name]
            if unknown:
                raise ConfigError(
                    f"{key} must be among {sorted(AGENTS)} or 'package.module:Class', got {unknown}"
                )
        if "league" in self.sections and not (SHIPPED_CONFIGS / f"{self.league_config}.yaml").is_file():
            raise ConfigError(
                f"league_config must name a config of {SHIPPED_CONFIGS}, got {self.league_config!r}"
            )
        for key, section, names in (
            ("ppo_overrides", "ppo", ["train_ppo"]),
            ("league_overrides", "league", ["train_ppo", self.league_config]),
        ):
            if section in self.sections:
                for name in names:  # found when the section began, after the sections before it
                    try:
                        settings = training.ppo_benchmark_config(
                            1, "runs", getattr(self, key), warmup_updates=1, config_name=name
                        )
                        settings.validate()
                    except ModuleNotFoundError as error:  # torch, of the train extra
                        text = missing_extra_text(error.name)
                        if text is None:
                            raise
                        others = [s for s in self.sections if s not in ("ppo", "league")] or ["core"]
                        raise ConfigError(
                            f"the {section} section trains PPO. {text}; or leave it out: sections=[{','.join(others)}]"
                        ) from None
                    except (HydraException, OmegaConfBaseException, ValueError) as error:
                        raise ConfigError(
                            f"{key}={list(getattr(self, key))} do not make a training config of "
                            f"configs/{name}.yaml: {error}"
                        ) from None
        if self.baseline is not None:
            try:
                check_baseline(self.baseline)
            except ValueError as error:
                raise ConfigError(str(error)) from None
        why = file_refusal(
            "output=", self.output, "the JSON file for the report (e.g. output=benchmark.json)"
        )
        if why is not None:  # (a folder or an empty path failed only when the first section was saved)
            raise ConfigError(why)

    def outside_settings(self) -> list[str]:
        """The settings that reach outside the measurements, which a user's config file may give only if
        the command line repeats them (``experiments.common.trust.command_settings``): the file the report
        is written to, the earlier revision or folder whose code ``baseline`` imports and runs, the
        training config and overrides the ppo and league sections read (an ``init_from`` model file, the
        opponents), and agents given by import path (code) or that reach the network themselves (``llm``)."""
        named_code = [  # an agent by import path, or one that reaches out by itself (the llm agent)
            key
            for key in ("agent_names", "beliefs_lineups")
            if any(outside_options(name, {}) for name in getattr(self, key))
        ]
        return ["output", "baseline", "ppo_overrides", "league_config", "league_overrides", *named_code]


ConfigStore.instance().store(name="benchmark_schema", node=BenchmarkConfig)

# Each section: what it measures (its report entry) and how it prints it.
SECTION_STEPS: dict[str, tuple[Callable[[BenchmarkConfig], Any], Callable[[BenchmarkConfig, Any], None]]] = {
    "core": (lambda cfg: core_steps.rows(cfg, observe=False), core_steps.show),
    "observe": (lambda cfg: core_steps.rows(cfg, observe=True), core_steps.show),
    "user_loop": (user_loop.rows, user_loop.show),
    "startup": (startup.rows, startup.show),
    "env": (env_steps.rows, env_steps.show),
    "rollouts": (clone_rollouts.rows, clone_rollouts.show),
    "agents": (agent_decisions.rows, agent_decisions.show),
    "ppo": (training.ppo_rows, training.show_ppo),
    "league": (training.measure_league, training.show_league),
    "beliefs": (belief_updates.rows, belief_updates.show),
}


def main_with(cfg: BenchmarkConfig) -> dict:
    """Measures the configured sections in order, printing each and writing the report as it goes."""
    cfg.validate()
    report: dict = {
        "machine": {
            "cpus": cpus(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "numba_threads": numba.get_num_threads(),
            "probe_us_per_call_before": machine_probe(),
        },
        "config": asdict(cfg) if not OmegaConf.is_config(cfg) else OmegaConf.to_container(cfg),
        "version": __version__,
    }
    output = Path(cfg.output)
    output.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:  # whole or not at all: a later section that cannot be written keeps the earlier ones
        write_whole(output, json.dumps(report, indent=2))

    for section in SECTIONS:  # in this order; each section's figures are saved as soon as they are in
        if section in cfg.sections:
            measure, show = SECTION_STEPS[section]
            report[section] = measure(cfg)
            save()
            show(cfg, report[section])
    report["machine"]["probe_us_per_call_after"] = machine_probe()
    with contextlib.suppress(ValueError):  # (raised when no parallel call was made: no layer loaded)
        report["machine"]["numba_threading_layer"] = numba.threading_layer()
    save()
    machine = report["machine"]
    print(
        f"\nmachine probe (a fixed loop of small numpy calls): {machine['probe_us_per_call_before']:.2f} us "
        f"per call before, {machine['probe_us_per_call_after']:.2f} after"
    )
    print(f"wrote {output.resolve()}")
    return report


@checked_main
@hydra.main(config_path=str(CONFIGS), config_name="benchmark", version_base=None)
def main(cfg: BenchmarkConfig) -> None:
    """``python -m experiments.benchmark`` / ``cluedo-bench``."""
    settings, _ = command_settings(
        cfg, settings=BenchmarkConfig.outside_settings, check=BenchmarkConfig.validate
    )
    main_with(settings)
