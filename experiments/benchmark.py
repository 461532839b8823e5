"""Speed of the rules core (beside the previous numpy core), observations, start-up, the env, the agents,
PPO training (today's and the league's) and exact beliefs.

    python -m experiments.benchmark                       # everything, as configured in experiments/configs/benchmark.yaml
    python -m experiments.benchmark sections=[core,observe,env,startup]   # the core's figures
    python -m experiments.benchmark sections=[core] players=[4] batch_sizes=[1024]

Every figure is the median of ``repeats`` runs measured side by side in one
process, so ratios are fair on a shared, noisy machine. The ``core`` and ``observe``
sections time the compiled core (``cluedo_env.core``) and, run by run alternating
with it, the batched numpy core it replaced (``experiments/legacy_numpy_core``,
kept only for this comparison; it plays the same games). The ``startup`` section
times, in fresh processes, the import and the first steps with an empty numba cache
(``NUMBA_CACHE_DIR`` a new temporary folder: everything is compiled) and again with
that cache filled (what every later start costs). Random play: each
decision is a uniformly random legal action other than an accusation, and an
accusation (random triple) with probability 2% where one is legal (uniformly
random accusations would end nearly every game on its first turn). Finished
games are dealt again at once, so the batch stays full. Core time counts
the legal actions + ``step`` + re-dealing; choosing the random actions is
the agent's cost and is reported apart. The compiled core's loop gets the legal
actions as a training loop does, from the step itself (``step(..., mask=)`` and
``reset(..., mask=)``, which update one mask array in the step's own pass); the
numpy core's from ``legal_action_mask`` after each step.

Figures are of steady state: a freshly dealt batch holds only games at their
start, which step faster than games under way, so each batch is first played
untimed until ``warmup_cycles`` x B games have finished (the first deal cycle is
over; the batch holds games of every age); the report gives the warm-up's
length, the spread of the games' ages when timing starts and, for comparison,
what the same number of steps reads from a fresh deal. The env plays one game
at a time and is timed over whole episodes (every age weighted as in a long
run), after an untimed one. Results are printed as a table and written as JSON
(``output``), section by section as they are measured.

The ``ppo`` section times ``experiments.train_ppo.train`` at the shipped
settings (``experiments/configs/train_ppo.yaml``, composed by hydra, so it follows the
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
(``league_config``, ``experiments/configs/train_ppo_league.yaml``: SAT and belief
opponents, snapshots, belief features) and, run by run alternating with it,
today's shipped config, with the same ``league_overrides`` applied to both, over
``league_repeats`` runs each; it reports both figures and their ratio. The budget
is cut as above, so the measured updates lie at the end of the run's curriculum,
where every opponent kind is in the pool.

The ``beliefs`` section plays ``beliefs_games`` whole classic games per player
count and lineup (every seat the same agent), then replays seat 0's view of
each and times the incremental ``agents.beliefs.Beliefs`` update after every
event (median, 99th percentile and maximum, per event and per record), a
from-scratch ``beliefs`` call on the same histories, and the process's peak
memory while replaying (``measure_beliefs``).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np
from tqdm import tqdm

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf
except ModuleNotFoundError as error:
    from experiments.extras import missing_extra

    raise missing_extra(error) from error

from agents.random_agent import sample_legal
from cluedo_env import __version__, core
from experiments import config as _config  # noqa: F401  (the version in the --help header)
from experiments import legacy_numpy_core

SECTIONS = ("core", "observe", "startup", "env", "rollouts", "agents", "ppo", "league", "beliefs")
CONFIGS = Path(__file__).resolve().parent / "configs"
ACCUSE_RATE = 0.02
ENGINES = {"compiled": core, "numpy": legacy_numpy_core}  # the core, and the one it replaced


@dataclass
class BenchmarkConfig:
    """What to measure.

    Attributes:
        sections: Any of core, observe, startup, env, rollouts, agents, ppo, league, beliefs.
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
        ppo_warmup_updates: PPO updates per run before the measured ones: enough for the first deal
            cycle to end (reported as ``warmup_cycles``; training starts with every game fresh).
        ppo_updates: Measured PPO updates per run (after the warm-up) at the shipped config.
        ppo_overrides: Hydra overrides of experiments/configs/train_ppo.yaml for the ppo section (empty: the
            shipped config, which is what the figure is meant to be; for tests and what-ifs).
        league_config: The league run's training config (a file of experiments/configs) for the
            league section.
        league_overrides: Hydra overrides applied to both configs of the league section.
        league_repeats: Runs of each config in the league section (the median is reported).
        beliefs_games: Whole games per (players, lineup) in the beliefs section.
        beliefs_lineups: Agents seated at every seat of those games (registered names).
        seed: Seed of deals and random play.
        output: JSON file written (relative to the working directory).
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
    ppo_warmup_updates: int = 12
    ppo_updates: int = 4
    ppo_overrides: list[str] = field(default_factory=list)
    league_config: str = "train_ppo_league"
    league_overrides: list[str] = field(default_factory=list)
    league_repeats: int = 1
    beliefs_games: int = 1000
    beliefs_lineups: list[str] = field(default_factory=lambda: ["random", "sat"])
    seed: int = 0
    output: str = "benchmark.json"


ConfigStore.instance().store(name="benchmark_schema", node=BenchmarkConfig)


def machine_probe(calls: int = 100_000) -> float:
    """Microseconds per call of a fixed loop of small numpy calls: how fast the machine is right now.

    On a shared machine this drifts (2x within an hour here); figures of runs taken at different
    probe readings are not comparable, ratios measured side by side in one run are.
    """
    array = np.zeros(10)
    start = time.perf_counter()
    for _ in range(calls):
        np.add(array, 1.0, out=array)
    return (time.perf_counter() - start) / calls * 1e6


def random_choice(rng: np.random.Generator, mask: np.ndarray, accuse: slice) -> np.ndarray:
    """The benchmark's random player: no accusation unless drawn (2%) or nothing else is legal."""
    calm = mask.copy()
    calm[:, accuse] = False
    use_calm = calm.any(axis=1) & (rng.random(len(mask)) >= ACCUSE_RATE)
    return sample_legal(rng, np.where(use_calm[:, None], calm, mask))


class RandomBatch:
    """A batch of games under the benchmark's random play; finished games are dealt again at once.

    Attributes:
        state: The batch.
        age: ``int[batch]``: decisions each game has played since its deal.
        redealt: ``bool[batch]``: whether the game in each slot was dealt after the first deal.
    """

    def __init__(
        self, config: core.GameConfig, batch: int, seed: int, observe: bool = False, engine: str = "compiled"
    ) -> None:
        self.engine = ENGINES[engine]
        layout = core.rules_for(config).layout
        self.accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
        self.observe = observe
        self.rng = np.random.default_rng(seed)
        self.state = self.engine.init(config, seed * 1_000_003 + np.arange(batch))
        self.next_seed = seed * 1_000_003 + batch
        self.age = np.zeros(batch, dtype=np.int64)
        self.redealt = np.zeros(batch, dtype=bool)
        # The compiled core keeps the legal actions up to date with each step and re-deal.
        self.mask = self.engine.legal_action_mask(self.state) if self.engine is core else None
        # Observations into one array, as a training loop passes ``out`` (no allocation per step).
        self.observations = np.empty((batch, core.observation_size(config)), dtype=np.float32)

    def step(self) -> tuple[float, float, int]:
        """One decision in every game: (core seconds, seconds choosing the actions, games finished).

        Core time is the legal actions (+ ``observe``) + ``step`` + re-dealing.
        """
        state, engine, fused = self.state, self.engine, self.mask is not None
        start = time.perf_counter()
        mask = self.mask if fused else engine.legal_action_mask(state)
        if self.observe:
            core.observe(state, state.current_player, out=self.observations)
        middle = time.perf_counter()
        actions = random_choice(self.rng, mask, self.accuse)
        chosen = time.perf_counter()
        engine.step(state, actions, check=False, **({"mask": mask} if fused else {}))
        done = state.done.nonzero()[0]  # (np.flatnonzero costs 1.5 µs more, most of a B = 1 step)
        if len(done):
            seeds = np.arange(self.next_seed, self.next_seed + len(done))
            engine.reset(state, done, seeds, **({"mask": mask} if fused else {}))
            self.next_seed += len(done)
        end = time.perf_counter()
        self.age += 1
        self.age[done] = 0
        self.redealt[done] = True
        return (middle - start) + (end - chosen), chosen - middle, len(done)


def measure_core(
    config: core.GameConfig,
    batch: int,
    steps: int,
    seed: int,
    observe: bool = False,
    warmup_cycles: int = 1,
    engine: str = "compiled",
) -> dict:
    """Agent-steps/s of mask + step (+ observation of the acting player) at steady state, of the
    compiled core (``engine="compiled"``) or the numpy core it replaced (``"numpy"``).

    A freshly dealt batch holds only games at their start, which step faster than games under way;
    timing those would flatter the core. So the batch is first played until ``warmup_cycles *
    batch`` games have finished (each slot re-dealt once on average for 1: the batch then holds
    games of every age), and only then are ``steps`` steps timed. The first ``steps`` steps of the
    warm-up are timed too, apart: what timing a fresh batch reads, for comparison.

    Returns:
        ``agent_steps_per_s`` (timed steps), ``choose_actions_s_per_step`` (the random player, not
        counted), ``core_s_per_step``, ``state_bytes_per_game``; the warm-up: ``warmup_steps``,
        ``warmup_finished_games``, ``fresh_agent_steps_per_s`` over its first ``fresh_steps``
        steps; and the spread of the games' ages (decisions since their deal) when timing starts:
        ``age_min``, ``age_p10``, ``age_median``, ``age_p90``, ``age_max``, and
        ``redealt_fraction`` (the share of games dealt during the warm-up).
    """
    if isinstance(warmup_cycles, bool) or not isinstance(warmup_cycles, int) or warmup_cycles < 1:
        raise ValueError(
            f"warmup_cycles must be an int >= 1 (games finished per batch slot), got {warmup_cycles!r}"
        )
    games = RandomBatch(config, batch, seed, observe, engine)
    warmup_steps = warmup_finished = 0
    fresh_time = 0.0
    while warmup_finished < warmup_cycles * batch:
        core_s, _, finished = games.step()
        if warmup_steps < steps:
            fresh_time += core_s
        warmup_finished += finished
        warmup_steps += 1
    fresh_steps = min(steps, warmup_steps)
    ages = games.age.copy()
    redealt_fraction = float(games.redealt.mean())
    core_time = choose_time = 0.0
    for _ in range(steps):
        core_s, choose_s, _ = games.step()
        core_time += core_s
        choose_time += choose_s
    return {
        "agent_steps_per_s": steps * batch / core_time,
        "choose_actions_s_per_step": choose_time / steps,
        "core_s_per_step": core_time / steps,
        "state_bytes_per_game": games.state.nbytes_per_game(),
        "warmup_steps": warmup_steps,
        "warmup_finished_games": warmup_finished,
        "fresh_steps": fresh_steps,
        "fresh_agent_steps_per_s": fresh_steps * batch / fresh_time,
        "age_min": float(ages.min()),
        "age_p10": float(np.percentile(ages, 10)),
        "age_median": float(np.median(ages)),
        "age_p90": float(np.percentile(ages, 90)),
        "age_max": float(ages.max()),
        "redealt_fraction": redealt_fraction,
    }


def game_length(config: core.GameConfig, games: int, seed: int) -> float:
    """Mean decisions in a complete game under the benchmark's random play."""
    layout = core.rules_for(config).layout
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    rng = np.random.default_rng(seed)
    state = core.init(config, 10**9 + np.arange(games))
    decisions = 0
    while not state.done.all():
        mask = core.legal_action_mask(state)
        decisions += int((~state.done).sum())
        mask[state.done] = True
        core.step(state, random_choice(rng, mask, accuse), check=False)
    return decisions / games


def measure_startup(batch: int, cache_dir: str) -> dict:
    """Seconds a fresh process takes to import the core and to play its first steps (init, mask, step
    at a batch of one and of ``batch``, reset), with numba's cache in ``cache_dir`` (``NUMBA_CACHE_DIR``).

    With an empty folder everything is compiled (a cold start, as on a first install); run again on
    the same folder, the compiled code is loaded from it (a warm start, as every later run).
    """
    import os
    import subprocess

    script = f"""
import json, time
start = time.perf_counter()
from cluedo_env import core
imported = time.perf_counter()
for batch in (1, {batch}):
    state = core.init(core.GameConfig(), list(range(batch)))
    for _ in range(3):
        mask = core.legal_action_mask(state)
        core.step(state, mask.argmax(axis=1), check=False)
    core.reset(state, [0], [batch])
print(json.dumps({{"import_s": imported - start, "first_steps_s": time.perf_counter() - imported}}))
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    return {**figures, "process_s": time.perf_counter() - start}


def side_by_side(repeats: int, run: Callable[[int, str], dict]) -> dict:
    """Each figure of ``run(repeat, engine)`` for the compiled core, the numpy core's
    ``agent_steps_per_s`` as ``numpy_agent_steps_per_s`` and their ratio ``speedup``; runs of the
    two alternate, so both see the machine alike."""
    runs = {engine: [] for engine in ENGINES}
    for r in range(repeats):
        for engine in ENGINES:
            runs[engine].append(run(r, engine))
    compiled = {key: float(np.median([f[key] for f in runs["compiled"]])) for key in runs["compiled"][0]}
    numpy_rate = float(np.median([f["agent_steps_per_s"] for f in runs["numpy"]]))
    return {
        **compiled,
        "numpy_agent_steps_per_s": numpy_rate,
        "speedup": compiled["agent_steps_per_s"] / numpy_rate,
    }


def measure_env(
    num_players: int, wrapped: bool, agent_steps: int, seed: int, warmup_episodes: int = 1
) -> dict:
    """Agent-steps/s of the PettingZoo AEC env with random legal actions (rare accusations).

    The env plays one game at a time, so timing whole episodes from the deal to the end weighs
    every age of a game as a long run does (steady state): at least ``agent_steps`` agent-steps,
    always whole episodes. ``warmup_episodes`` untimed episodes come first (first-use costs).
    """
    from cluedo_env import cluedo_v0

    env = cluedo_v0.env(num_players=num_players) if wrapped else cluedo_v0.raw_env(num_players=num_players)
    layout = core.rules_for(core.GameConfig(num_players=num_players)).layout
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    rng = np.random.default_rng(seed)

    def episode(episode_seed: int) -> tuple[int, float]:
        """One whole game: its agent-steps and the seconds spent choosing actions (not counted)."""
        steps, choose = 0, 0.0
        env.reset(seed=episode_seed)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                tick = time.perf_counter()
                mask = observation["action_mask"].astype(bool)[None, :]
                action = int(random_choice(rng, mask, accuse)[0])
                choose += time.perf_counter() - tick
            env.step(action)
            steps += 1
        return steps, choose

    for k in range(warmup_episodes):
        episode(1_000_003 * (seed + 1) + k)  # seeds apart from the timed episodes' seed, seed + 1, ...
    steps, episodes, choose = 0, 0, 0.0
    start = time.perf_counter()
    while steps < agent_steps:
        episode_steps, episode_choose = episode(seed + episodes)
        steps += episode_steps
        choose += episode_choose
        episodes += 1
    elapsed = time.perf_counter() - start - choose
    return {
        "agent_steps_per_s": steps / elapsed,
        "agent_steps": steps,
        "episodes": episodes,
        "warmup_episodes": warmup_episodes,
    }


def measure_rollouts(config: core.GameConfig, n: int, turn: int, seed: int) -> dict:
    """Rollouts from a game under way, as a search agent makes them: one game is played (the benchmark's
    random play) to ``turn``; then, timed, it is cloned into ``n`` games (``core.clone``), their
    hidden cards and dice redealt from the acting player's view (``core.redeal``: the true deal, which
    is one consistent with that view, and new seeds, so each clone rolls other dice), and every clone
    played to its end by the same random play.

    Returns:
        ``rollouts_per_s`` (clones played to their end per second, all of it counted),
        ``setup_s`` (clone + redeal), ``agent_steps`` (decisions played in the clones),
        ``core_agent_steps_per_s`` (of the steps alone: mask + step), ``choose_actions_s`` (the
        random play's share) and ``mean_decisions_per_rollout``.
    """
    games = RandomBatch(config, 1, seed)
    while games.state.turn[0] < turn:
        games.step()  # (a game ending first is dealt again: its next game gets there)
    state = games.state
    player = int(state.current_player[0])
    start = time.perf_counter()
    clones = core.clone(state, 0, n)
    core.redeal(clones, player, np.repeat(state._owner[:1], n, axis=0), seed * 1_000_003 + np.arange(n))
    mask = core.legal_action_mask(clones)
    setup = time.perf_counter() - start
    core_time = choose_time = 0.0
    agent_steps = 0
    while not clones.done.all():
        chosen = time.perf_counter()
        live = ~clones.done
        actions = np.zeros(n, dtype=np.int64)  # (a finished game ignores its action)
        actions[live] = random_choice(games.rng, mask[live], games.accuse)
        stepped = time.perf_counter()
        agent_steps += int(live.sum())
        core.step(clones, actions, check=False, mask=mask)
        end = time.perf_counter()
        choose_time += stepped - chosen
        core_time += end - stepped
    total = setup + core_time + choose_time
    return {
        "clones": n,
        "rollouts_per_s": n / total,
        "setup_s": setup,
        "agent_steps": agent_steps,
        "core_agent_steps_per_s": agent_steps / core_time,
        "choose_actions_s": choose_time,
        "mean_decisions_per_rollout": agent_steps / n,
    }


def measure_agents(num_players: int, games: int, seed: int) -> list[dict]:
    """Each agent, seated with copies of itself: decision latency and games per second.

    Latency is timed per decision on games played one at a time (a batch of one), so it is what
    one decision costs; games per second are measured on one batch of ``games`` games. The time an
    agent spends following the game (``observe``, after every step; the belief agent updates its
    posterior there) is timed per call beside it.
    """
    from agents.arena import play_batch
    from agents.registry import make_agent

    config = core.GameConfig(num_players=num_players)
    rows = []
    for name in ("random", "notepad", "sat", "belief"):
        latencies: list[float] = []
        observing: list[float] = []
        for game in range(games):
            agents = [make_agent(name, seed=seed + k) for k in range(num_players)]
            for agent in agents:
                _time_act(agent, latencies)
                _time_observe(agent, observing)
            play_batch(config, agents, [seed + game])
        agents = [make_agent(name, seed=seed + k) for k in range(num_players)]
        start = time.perf_counter()
        result = play_batch(config, agents, np.arange(seed, seed + games))
        elapsed = time.perf_counter() - start
        per_decision = np.array(latencies)
        rows.append(
            {
                "agent": name,
                "players": num_players,
                "decision_median_ms": float(np.median(per_decision) * 1e3),
                "decision_p99_ms": float(np.percentile(per_decision, 99) * 1e3),
                "decisions_timed": len(per_decision),
                # An agent that does not follow the game (``observes`` false, e.g. random) is never
                # called to observe: no time to report.
                "observe_median_ms": float(np.median(observing) * 1e3) if observing else None,
                "observe_p99_ms": float(np.percentile(observing, 99) * 1e3) if observing else None,
                "games_per_s": games / elapsed,
                "decisions_per_game": float(result.decisions.mean()),
            }
        )
    return rows


def measure_beliefs(num_players: int, lineup: str, games: int, seed: int) -> dict:
    """Exact beliefs (``agents.beliefs``) of seat 0 through whole classic games of ``lineup`` agents.

    The games are played first; then seat 0's view of each is replayed event by event, timing the
    incremental update after each event: ``RecordMaker.add`` and, when the event completes a record,
    ``Beliefs.add`` plus reading the posterior (every card's probabilities and the envelope's joint
    distribution). Figures per event and per record (the events that change something), and of a
    from-scratch ``beliefs`` call on each game's history at its middle and at its end. Memory: the
    peak resident size of this process while replaying (its peak is reset after the games are
    played, where Linux allows), next to its size before: an upper bound on what any one update used.
    """
    from agents.arena import EventLog, play_batch
    from agents.beliefs import Beliefs, beliefs
    from agents.records import RecordMaker, setup_of
    from agents.registry import make_agent
    from cluedo_env.core.events import read_events

    config = core.GameConfig(num_players=num_players)
    setup = setup_of(config)
    seeds = np.arange(seed, seed + games)
    logs = EventLog(games)
    agents = [make_agent(lineup, seed=seed + k) for k in range(num_players)]
    play_batch(config, agents, seeds, on_step=logs)
    event_s, record_s, scratch_s, records_per_game = [], [], [], []
    resident_mib = _memory_mib("VmRSS")
    _reset_peak_memory()
    for log in tqdm(logs, desc=f"beliefs {num_players}p {lineup}", unit="game", leave=False):
        view = core.private_view(log, 0)
        maker, state, records = RecordMaker(setup, 0), Beliefs(setup, 0), []
        for event in read_events(view):
            start = time.perf_counter()
            record = maker.add(event)
            if record is not None:
                state.add(record)
                posterior = state.posterior()
                posterior.probabilities()
                posterior.envelope()
            elapsed = time.perf_counter() - start
            event_s.append(elapsed)
            if record is not None:
                record_s.append(elapsed)
                records.append(record)
        records_per_game.append(len(records))
        for history in (records[: len(records) // 2], records):
            start = time.perf_counter()
            posterior = beliefs(setup, 0, history)
            posterior.probabilities()
            posterior.envelope()
            scratch_s.append(time.perf_counter() - start)
    row = {"players": num_players, "lineup": lineup, "games": games}
    for name, times in (("event", event_s), ("record", record_s), ("scratch", scratch_s)):
        ms = np.array(times) * 1e3
        row |= {
            f"{name}s_timed": len(ms),
            f"{name}_median_ms": float(np.median(ms)),
            f"{name}_p99_ms": float(np.percentile(ms, 99)),
            f"{name}_max_ms": float(ms.max()),
        }
    row["records_per_game"] = float(np.mean(records_per_game))
    row["rss_before_mib"] = resident_mib
    row["peak_rss_mib"] = _memory_mib("VmHWM")
    return row


def _memory_mib(field: str) -> float:
    """``VmRSS`` (resident now) or ``VmHWM`` (peak resident) of this process in MiB, from /proc;
    elsewhere the peak from ``resource`` for both."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak_memory() -> None:
    """Resets this process's peak resident size (Linux ``clear_refs``), where allowed."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _time_act(agent, latencies: list[float]) -> None:
    """Wrap ``agent.act`` to record the time of each call (one decision in a batch of one)."""
    act = agent.act

    def timed(state, games, mask):
        start = time.perf_counter()
        actions = act(state, games, mask)
        latencies.append((time.perf_counter() - start) / len(games))
        return actions

    agent.act = timed


def _time_observe(agent, times: list[float]) -> None:
    """Wrap ``agent.observe`` to record the time of each call (one step of a batch of one)."""
    observe = agent.observe

    def timed(state, events):
        start = time.perf_counter()
        observe(state, events)
        times.append(time.perf_counter() - start)

    agent.observe = timed


def shipped_train_config(overrides: Sequence[str] = (), config_name: str = "train_ppo"):
    """``experiments/configs/<config_name>.yaml`` (with hydra ``overrides``) as the ``TrainConfig`` that
    training gets."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    import experiments.train_ppo  # noqa: F401  (registers train_ppo_schema)

    if GlobalHydra.instance().is_initialized():  # inside this script's hydra app: its configs are searched
        cfg = compose(config_name, overrides=list(overrides))
    else:
        with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
            cfg = compose(config_name, overrides=list(overrides))
    return OmegaConf.to_object(cfg)


def ppo_benchmark_config(
    updates: int,
    runs_dir: str,
    overrides: Sequence[str] = (),
    *,
    warmup_updates: int,
    config_name: str = "train_ppo",
):
    """A training config (default: the shipped one) with only the budget cut: ``warmup_updates`` and
    ``updates`` measured updates, no evaluations, snapshots or periodic checkpoints, files under ``runs_dir``."""
    args = shipped_train_config(overrides, config_name)
    args.total_timesteps = (warmup_updates + updates) * args.num_envs * args.num_steps
    args.exp_name, args.runs_dir, args.resume, args.progress = "benchmark", runs_dir, None, False
    args.eval_every = args.final_eval_games = args.snapshot_every = args.checkpoint_every = 0
    return args


def finished_games_per_update(run_dir: Path, agent_steps_per_update: int) -> dict[int, int]:
    """Games finished in each update of a training run, read from its TensorBoard log (``charts/episodes``)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logs = sorted({path.parent for path in run_dir.rglob("events.out.tfevents*")})
    if len(logs) != 1:
        raise ValueError(f"expected the TensorBoard log of one run under {run_dir}, found {logs}")
    log = EventAccumulator(str(logs[0]), size_guidance={"scalars": 0})
    logger = logging.getLogger("tensorboard")
    level = logger.level
    logger.setLevel(logging.WARNING)  # it says at INFO that it reached the end of the file
    try:
        log.Reload()
    finally:
        logger.setLevel(level)
    if "charts/episodes" not in log.Tags()["scalars"]:
        return {}  # no game finished in the whole run
    return {
        event.step // agent_steps_per_update: int(event.value) for event in log.Scalars("charts/episodes")
    }


def measure_ppo(
    updates: int, overrides: Sequence[str] = (), *, warmup_updates: int, config_name: str = "train_ppo"
) -> dict:
    """One training run of a config (default: the shipped one) cut to ``warmup_updates`` + ``updates`` updates.

    Training starts with every game freshly dealt; games at their start step faster than games
    under way, so the figures are of the updates after the warm-up, which should see the first deal
    cycle through. How far it did is reported from the run's own log: ``warmup_finished_games``
    and ``warmup_cycles`` (games finished per game slot during the warm-up; below 1, the measured
    updates still hold games of the first deal).
    """
    import torch

    from experiments.train_ppo import train

    if updates < 1:
        raise ValueError(f"ppo_updates must be >= 1, got {updates}")
    if warmup_updates < 1:
        raise ValueError(f"ppo_warmup_updates must be >= 1, got {warmup_updates}")
    records: list[dict] = []
    threads = torch.get_num_threads()  # train() sets torch's threads; put them back afterwards
    try:
        with tempfile.TemporaryDirectory(prefix="benchmark_ppo_") as runs:
            args = ppo_benchmark_config(
                updates, runs, overrides, warmup_updates=warmup_updates, config_name=config_name
            )
            with contextlib.redirect_stdout(io.StringIO()):  # train()'s "run folder"/"model" lines
                # The process's CPU time too: on a shared machine it is what the run would take alone
                # (training runs on one thread), where wall time also counts the others' work.
                train(args, on_update=lambda record: records.append({**record, "cpu_s": time.process_time()}))
            finished = finished_games_per_update(Path(runs), args.num_envs * args.num_steps)
    finally:
        torch.set_num_threads(threads)
    measured = records[warmup_updates:]
    total = sum(r["total_s"] for r in measured)
    rollout = sum(r["rollout_s"] for r in measured)
    agent_steps = sum(r["agent_steps"] for r in measured)
    learner = sum(r["learner_decisions"] for r in measured)
    warmup_finished = sum(n for update, n in finished.items() if update <= warmup_updates)
    cpu = measured[-1]["cpu_s"] - records[warmup_updates - 1]["cpu_s"]
    return {
        "agent_steps_per_s": agent_steps / total,
        "agent_steps_per_cpu_s": agent_steps / cpu,
        "learner_decisions_per_s": learner / total,
        "rollout_agent_steps_per_s": agent_steps / rollout,
        "rollout_s_per_update": rollout / len(measured),
        "update_s_per_update": sum(r["update_s"] for r in measured) / len(measured),
        "total_s_per_update": total / len(measured),
        "agent_steps_per_update": agent_steps / len(measured),
        "learner_decisions_per_update": learner / len(measured),
        "warmup_finished_games": warmup_finished,
        "warmup_cycles": warmup_finished / args.num_envs,
        "measured_finished_games": sum(n for update, n in finished.items() if update > warmup_updates),
    }


def median_of(repeats: int, run: Callable[[int], dict]) -> dict:
    """Run ``repeats`` times and keep the median of every numeric figure."""
    results = [run(r) for r in range(repeats)]
    return {key: float(np.median([r[key] for r in results])) for key in results[0]}


def main_with(cfg: BenchmarkConfig) -> dict:
    unknown = sorted(set(cfg.sections) - set(SECTIONS))
    if unknown:
        raise ValueError(f"sections must be among {list(SECTIONS)}, got {unknown}")
    report: dict = {
        "machine": {
            "cpus": _cpus(),
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

    def save() -> None:
        output.write_text(json.dumps(report, indent=2))

    if {"core", "observe"} & set(cfg.sections):
        # The numpy core read one-pawn moves from a table it filled per start location on first
        # use; it is filled whole before timing (once per process) and what that costs reported.
        start = time.perf_counter()
        legacy_numpy_core.game.rules_for(core.GameConfig()).moves.fill_one_pawn()
        report["machine"]["numpy_core_one_pawn_table_fill_s"] = time.perf_counter() - start
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
    if "numpy_core_one_pawn_table_fill_s" in machine:
        print(
            f"the numpy core's one-pawn move table filled before timing in "
            f"{machine['numpy_core_one_pawn_table_fill_s']:.2f} s (once per process)"
        )
    print(f"wrote {output.resolve()}")
    return report


def _core_rows(cfg: BenchmarkConfig, observe: bool) -> list[dict]:
    rows = []
    jobs = [(p, b) for p in cfg.players for b in cfg.batch_sizes]
    lengths = {p: game_length(core.GameConfig(num_players=p), 256, cfg.seed) for p in cfg.players}
    for p, b in tqdm(jobs, desc="observe" if observe else "core", unit="config"):
        config = core.GameConfig(num_players=p)
        steps = max(cfg.steps, cfg.min_agent_steps // b)
        row = {"players": p, "batch": b, "observe": observe, "decisions_per_game": lengths[p]}
        row.update(
            side_by_side(
                cfg.repeats,
                lambda r, engine, config=config, b=b, steps=steps, observe=observe: measure_core(
                    config, b, steps, cfg.seed + r, observe, cfg.warmup_cycles, engine
                ),
            )
        )
        row["games_per_s"] = row["agent_steps_per_s"] / lengths[p]
        rows.append(row)
    return rows


def _show_core(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    observe = rows[0]["observe"] if rows else False
    print(f"\ncore{' with observations of the acting player' if observe else ''}: mask + step + re-deals")
    _print_core(rows)
    _print_steady_state(rows, cfg.warmup_cycles)


def _startup_rows(cfg: BenchmarkConfig) -> list[dict]:
    rows = []
    for r in range(cfg.repeats):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache_dir:
            for start in ("cold", "warm"):  # an empty cache, then the same cache filled
                rows.append({"start": start, "run": r, **measure_startup(max(cfg.batch_sizes), cache_dir)})
    return rows


def _show_startup(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print("\nstart-up of a fresh process (numba cache empty: cold; filled by the cold run: warm)")
    for start in ("cold", "warm"):
        runs = [row for row in rows if row["start"] == start]
        print(
            f"  {start}: import {np.median([r['import_s'] for r in runs]):.2f} s, first steps "
            f"{np.median([r['first_steps_s'] for r in runs]):.2f} s, whole process "
            f"{np.median([r['process_s'] for r in runs]):.2f} s (median of {len(runs)})"
        )


def _env_rows(cfg: BenchmarkConfig) -> list[dict]:
    def figure(p: int, wrapped: bool) -> dict:
        return median_of(cfg.repeats, lambda r: measure_env(p, wrapped, cfg.env_steps, cfg.seed + r))

    return [
        {"players": p, "env": "env()" if wrapped else "raw_env", **figure(p, wrapped)}
        for p in cfg.players
        for wrapped in (False, True)
    ]


def _show_env(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print("\nPettingZoo AEC env (random legal actions; whole episodes after an untimed one)")
    for row in rows:
        print(
            f"  {row['env']:8s} {row['players']} players: {row['agent_steps_per_s']:,.0f} agent-steps/s "
            f"({row['agent_steps']:,.0f} agent-steps in {row['episodes']:.0f} episodes)"
        )


def _rollout_rows(cfg: BenchmarkConfig) -> list[dict]:
    def figure(p: int, n: int) -> dict:
        return median_of(
            cfg.repeats,
            lambda r: measure_rollouts(core.GameConfig(num_players=p), n, cfg.rollout_turn, cfg.seed + r),
        )

    return [{"players": p, **figure(p, n)} for p in cfg.players for n in cfg.rollout_clones]


def _show_rollouts(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print(
        f"\nrollouts from a game at turn {cfg.rollout_turn}: clone, redeal from the acting player's view, "
        "random play to the end"
    )
    for row in rows:
        print(
            f"  {row['players']} players, {row['clones']:5.0f} clones: {row['rollouts_per_s']:,.0f} rollouts/s "
            f"(setup {row['setup_s'] * 1e3:.2f} ms; core {row['core_agent_steps_per_s']:,.0f} agent-steps/s; "
            f"{row['mean_decisions_per_rollout']:.0f} decisions per rollout)"
        )


def _agent_rows(cfg: BenchmarkConfig) -> list[dict]:
    return [row for p in cfg.players for row in measure_agents(p, cfg.agent_games, cfg.seed)]


def _show_agents(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print("\nagents (each seated with copies of itself, classic board)")
    print(
        f"  {'agent':8s} {'players':>7s} {'median ms':>10s} {'p99 ms':>8s} "
        f"{'observe median':>15s} {'observe p99':>12s} {'games/s':>8s}"
    )
    for row in rows:
        observe = [
            "-" if row[key] is None else f"{row[key]:.3f}" for key in ("observe_median_ms", "observe_p99_ms")
        ]
        print(
            f"  {row['agent']:8s} {row['players']:7d} {row['decision_median_ms']:10.3f} "
            f"{row['decision_p99_ms']:8.3f} {observe[0]:>15s} {observe[1]:>12s} {row['games_per_s']:8.2f}"
        )


def _ppo_figures(cfg: BenchmarkConfig) -> dict:
    args = shipped_train_config(cfg.ppo_overrides)
    figure = median_of(
        cfg.repeats,
        lambda r: measure_ppo(cfg.ppo_updates, cfg.ppo_overrides, warmup_updates=cfg.ppo_warmup_updates),
    )
    settings = {
        "num_envs": args.num_envs,
        "num_steps": args.num_steps,
        "num_players": args.game.num_players,
        "torch_threads": args.torch_threads,
        "update_threads": args.update_threads,
        "warmup_updates": cfg.ppo_warmup_updates,
        "measured_updates": cfg.ppo_updates,
        "overrides": list(cfg.ppo_overrides),
    }
    return {**settings, **figure}


def _show_ppo(cfg: BenchmarkConfig, figure: dict) -> None:
    print(
        f"\nPPO training (experiments/configs/train_ppo.yaml: {figure['num_envs']} games x "
        f"{figure['num_steps']} steps, {figure['num_players']} players, "
        f"torch_threads={figure['torch_threads']}, update_threads={figure['update_threads']}; median of "
        f"{cfg.repeats} runs of {cfg.ppo_warmup_updates} warm-up + {cfg.ppo_updates} measured updates)"
    )
    print(
        f"  warm-up: {cfg.ppo_warmup_updates * figure['num_steps']} steps of every game, "
        f"{figure['warmup_finished_games']:,.0f} games finished = {figure['warmup_cycles']:.2f} per game slot"
        + (
            ""
            if figure["warmup_cycles"] >= 1
            else " (under 1: the measured updates still hold games of the first deal, which run "
            "faster; raise ppo_warmup_updates)"
        )
    )
    print(
        f"  {figure['agent_steps_per_s']:,.0f} agent-steps/s, "
        f"{figure['learner_decisions_per_s']:,.0f} learner decisions/s"
    )
    print(
        f"  per update: rollout {figure['rollout_s_per_update']:.2f} s, "
        f"update {figure['update_s_per_update']:.2f} s, total {figure['total_s_per_update']:.2f} s "
        f"({figure['agent_steps_per_update']:,.0f} agent-steps, "
        f"{figure['learner_decisions_per_update']:,.0f} learner decisions)"
    )


def _belief_rows(cfg: BenchmarkConfig) -> list[dict]:
    return [
        measure_beliefs(p, lineup, cfg.beliefs_games, cfg.seed)
        for p in cfg.players
        for lineup in cfg.beliefs_lineups
    ]


def _show_beliefs(cfg: BenchmarkConfig, rows: list[dict]) -> None:
    print(f"\nexact beliefs of seat 0, classic board, {cfg.beliefs_games} games per row (ms)")
    print(
        f"  {'players':>7s} {'lineup':8s} {'event med':>9s} {'p99':>7s} {'max':>8s} "
        f"{'record med':>10s} {'p99':>7s} {'max':>8s} {'scratch med':>11s} {'max':>8s} {'MiB':>5s} {'peak':>5s}"
    )
    for row in rows:
        print(
            f"  {row['players']:7d} {row['lineup']:8s} {row['event_median_ms']:9.3f} "
            f"{row['event_p99_ms']:7.2f} {row['event_max_ms']:8.1f} {row['record_median_ms']:10.3f} "
            f"{row['record_p99_ms']:7.2f} {row['record_max_ms']:8.1f} {row['scratch_median_ms']:11.2f} "
            f"{row['scratch_max_ms']:8.1f} {row['rss_before_mib']:5.0f} {row['peak_rss_mib']:5.0f}"
        )


def measure_league(cfg: BenchmarkConfig) -> dict:
    """Training throughput of the league config and of today's shipped config, runs alternating."""
    names = {"today": "train_ppo", "league": cfg.league_config}
    runs: dict[str, list[dict]] = {key: [] for key in names}
    for _ in tqdm(range(cfg.league_repeats), desc="league", unit="pair"):
        for key, name in names.items():
            runs[key].append(
                measure_ppo(
                    cfg.ppo_updates,
                    cfg.league_overrides,
                    warmup_updates=cfg.ppo_warmup_updates,
                    config_name=name,
                )
            )
    report = {
        key: {"config": names[key], **{f: float(np.median([r[f] for r in rs])) for f in rs[0]}}
        for key, rs in runs.items()
    }
    report["slowdown"] = report["today"]["agent_steps_per_s"] / report["league"]["agent_steps_per_s"]
    report["cpu_slowdown"] = (
        report["today"]["agent_steps_per_cpu_s"] / report["league"]["agent_steps_per_cpu_s"]
    )
    report["overrides"] = list(cfg.league_overrides)
    return report


def _show_league(cfg: BenchmarkConfig, report: dict) -> None:
    print(
        f"\nPPO training, today's config beside the league's (median of {cfg.league_repeats} runs each of "
        f"{cfg.ppo_warmup_updates} warm-up + {cfg.ppo_updates} measured updates"
        + (f"; overrides {report['overrides']}" if report["overrides"] else "")
        + ")"
    )
    for key in ("today", "league"):
        row = report[key]
        print(
            f"  {key:6s} ({row['config']}): {row['agent_steps_per_s']:,.0f} agent-steps/s, "
            f"{row['learner_decisions_per_s']:,.0f} learner decisions/s "
            f"({row['agent_steps_per_cpu_s']:,.0f} agent-steps per CPU second); per update: rollout "
            f"{row['rollout_s_per_update']:.2f} s, update {row['update_s_per_update']:.2f} s"
        )
    print(
        f"  the league trains {report['slowdown']:.1f} times slower "
        f"({report['cpu_slowdown']:.1f} times in CPU time)"
    )


# Each section: what it measures (its report entry) and how it prints it.
SECTION_STEPS: dict[str, tuple[Callable[[BenchmarkConfig], Any], Callable[[BenchmarkConfig, Any], None]]] = {
    "core": (lambda cfg: _core_rows(cfg, observe=False), _show_core),
    "observe": (lambda cfg: _core_rows(cfg, observe=True), _show_core),
    "startup": (_startup_rows, _show_startup),
    "env": (_env_rows, _show_env),
    "rollouts": (_rollout_rows, _show_rollouts),
    "agents": (_agent_rows, _show_agents),
    "ppo": (_ppo_figures, _show_ppo),
    "league": (measure_league, _show_league),
    "beliefs": (_belief_rows, _show_beliefs),
}


def _print_core(rows: list[dict]) -> None:
    print(
        f"{'players':>7s} {'batch':>6s} {'agent-steps/s':>14s} {'games/s':>9s} {'decisions/game':>15s} "
        f"{'bytes/game':>10s} {'numpy core':>12s} {'speed-up':>9s}"
    )
    for row in rows:
        print(
            f"{row['players']:7d} {row['batch']:6d} {row['agent_steps_per_s']:14,.0f} {row['games_per_s']:9.1f} "
            f"{row['decisions_per_game']:15.1f} {row['state_bytes_per_game']:10.0f} "
            f"{row['numpy_agent_steps_per_s']:12,.0f} {row['speedup']:8.1f}x"
        )


def _print_steady_state(rows: list[dict], warmup_cycles: int) -> None:
    """How far each timed batch was from a fresh deal: the warm-up and the games' ages at timing."""
    if not rows:
        return
    print(
        f"\nsteady state: timing starts once {warmup_cycles} x B games have finished; "
        "age = decisions since the game's deal, when timing starts; fresh = the same number of "
        "steps timed from the first deal"
    )
    print(
        f"{'players':>7s} {'batch':>6s} {'warm-up steps':>13s} {'re-dealt':>8s} {'age p10':>8s} {'median':>7s} "
        f"{'p90':>6s} {'max':>6s} {'fresh / steady':>15s}"
    )
    for row in rows:
        fresh = row["fresh_agent_steps_per_s"] / row["agent_steps_per_s"]
        print(
            f"{row['players']:7d} {row['batch']:6d} {row['warmup_steps']:13,.0f} {row['redealt_fraction']:8.0%} "
            f"{row['age_p10']:8.0f} {row['age_median']:7.0f} {row['age_p90']:6.0f} {row['age_max']:6.0f} "
            f"{fresh:14.2f}x"
        )


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


@hydra.main(config_path="configs", config_name="benchmark", version_base=None)
def main(cfg: BenchmarkConfig) -> None:
    main_with(cfg)


if __name__ == "__main__":
    main()
