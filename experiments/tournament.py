"""Tournaments between agents, with duplicate deals, every seat rotation and honest statistics.

    python -m experiments.tournament                   # random, notepad, sat and the shipped PPO; 4 players
    python -m experiments.tournament game=classic6 lineup=baselines games_per_lineup=600 workers=2
    python -m experiments.tournament lineup=vs_field output_dir=results/vs_field
    python -m experiments.tournament lineup=with_ppo lineup.agents.3.options.checkpoint=runs/<run>/model.pt
    python -m experiments.tournament --multirun game.num_players=3,4,5,6 lineup=baselines output_dir=results/sweep
    python -m experiments.common.stats results/sweep/*/ --output results/sweep/pooled   # one report of the sweep

Configuration: ``configs/tournament.yaml`` (``experiments/common/settings.py`` has every
field). Any value can be overridden on the command line; an unknown key or a bad
value stops the run with a message before any game is played, and so does an
agent that cannot play the rules: each entrant is built once and asked
(``Agent.check_config``); a PPO model trained for other observation or action
sizes (another player count, a 7-weapon edition) is refused, one trained on
other rules of the same sizes (edition, board, ``max_turns``) plays with a warning.

What is played. The entrants (``lineup.agents``: any registry name or
``package.module:Class``, with constructor options) form line-ups of
``game.num_players`` agents (``lineup.mode``: ``round_robin`` or
``one_vs_field``). Every line-up plays the same deals (deal ``d`` has core
seed ``seed * 1e9 + d``), and each deal under every cyclic rotation of the
seats, so luck of the deal and of the seat cancels between line-ups and
agents.

Units of work. A unit ("chunk") is one line-up x one rotation x ``batch_size``
consecutive deals, played as one batch by ``agents.arena.play_batch`` with
agents seeded from (run seed, line-up, rotation, first deal, agent index). A
game's result therefore depends only on the config and its chunk, not on which
process, backend or session played it: the local pool, Ray and a resumed run
give identical games.

Results. Each game is appended to ``<output_dir>/games.jsonl`` as its chunk
finishes (one JSON object per line, flushed and synced), so a killed run loses
at most the chunks in flight. Run again with the same ``output_dir`` (and
``resume=true``, the default) and only the missing games are played: the default
``output_dir`` is a new time-stamped folder, so name the killed run's folder,
e.g. ``python -m experiments.tournament output_dir=results/tournament/2026-01-01_12-00-00``
(with the same overrides as before; games of another config are refused).
One run at a time holds the folder (``tournament.lock``, an OS lock that ends
with its process, so a killed run never leaves it locked): a second run into it
refuses to start. A worker process that dies (killed, out of memory) stops the
run with the command that resumes it; the games written are kept. Lines of
``games.jsonl`` that are not game records (torn, garbage) are moved to
``games.jsonl.rejected`` with a warning, and their games are played again.
Ctrl-C or SIGTERM stops a run with one line giving that command (exit status 130 or 143); a
killed run's pool workers exit by themselves (``experiments.common.extras.watch_parent``); a resumed run says how many games
it found, and a run asked for fewer games than its folder holds says that its
report leaves the others out.
Beside ``games.jsonl``: ``config.yaml`` (the fully resolved config), ``run.json``
(config hash, the code's git revision and dirty flag, each session), and the
statistics of ``experiments.common.stats``: ``stats.json``, ``leaderboard.csv``,
``lineups.csv``, ``seats.csv``, ``head_to_head.csv``, ``report.md`` and PNG plots
(``win_share``, ``ratings``, ``turns_to_win``, ``head_to_head``).

Files from elsewhere. Line-ups of your own go in a config folder of yours
(``--config-dir DIR`` with ``DIR/lineup/mine.yaml``). An agent option of such a file that
reaches the network or the file system (an llm agent and its ``base_url``, ``api_key_env``,
``prompts``, ``record_dir``; a model path; an agent by import path) is refused, naming the option
and the file, unless the command line repeats it (``lineup.agents.1.options.base_url=...``) or
says ``trust_files=true``: a downloaded line-up cannot send your keys anywhere
(``experiments.common.settings.refuse_untrusted_options``). So is an ``output_dir`` that such a file
sets (a primary config of yours, a ``# @package _global_`` file) and the command line does not.

Backends.

- ``backend=local``: a process pool of ``workers`` processes (``workers=0`` plays in this process).
- ``backend=ray``: one Ray task per chunk, the same chunks and the same games.
  Without ``ray_address`` Ray starts on this machine (``workers`` CPUs, 0 = all).
  To use a cluster: start it (``ray start --head`` on the head node and
  ``ray start --address=<head>:6379`` on the others, or the Ray cluster
  launcher / KubeRay) on nodes with this project's dependencies installed
  (``pip install -e ".[experiments,ray]"`` in the image; the same Python and
  Ray versions as here), then run the tournament on the head node with
  ``ray_address=auto``, or from another machine through Ray Client with
  ``ray_address=ray://<head>:10001``. The project's code travels with the job
  (Ray ``working_dir``, without ``.git``, ``.venv`` and results; from an installed
  package, its three packages as ``py_modules``: ``ray_code_env``); only this
  process writes results, so the cluster needs no shared disk. Example::

      python -m experiments.tournament backend=ray ray_address=ray://head:10001 games_per_lineup=20000
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import multiprocessing
import os
import platform
import shlex
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import DictConfig, OmegaConf
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error) from error

from agents.arena import BatchResult, play_batch
from agents.registry import make_agent
from cluedo_env import __version__, core
from experiments.common import llm_report, stats
from experiments.common.extras import WorkerLost, watch_parent
from experiments.common.games_file import GameWriter, read_games
from experiments.common.settings import (
    DEAL_SEED_STRIDE,
    SHIPPED_CONFIGS,
    ConfigError,
    GameSettings,
    TournamentConfig,
    checked_main,
    config_hash,
    load_config,
    refuse_from_elsewhere,
)

__all__ = [
    "Chunk",
    "FolderInUse",
    "Terminated",
    "WorkerLost",
    "deal_seed",
    "git_revision",
    "lineups",
    "main_with",
    "plan_chunks",
    "play_chunk",
    "read_games",
    "run_tournament",
]

REPO_ROOT = Path(__file__).resolve().parents[1]
GAMES_FILE = "games.jsonl"
# Shipped to a remote Ray cluster with the code (working_dir) minus these.
RAY_EXCLUDES = [".git", ".venv", "results", "outputs", "multirun", "runs", "**/__pycache__"]


@dataclass(frozen=True)
class Chunk:
    """A unit of work: one line-up under one rotation, on deals ``first_deal .. first_deal + deals - 1``.

    Attributes:
        lineup: Agent labels in agent order; agent ``k`` sits at seat ``(k + rotation) % N``.
        rotation: The seat rotation.
        first_deal: Index of the first deal.
        deals: Number of consecutive deals.
    """

    lineup: tuple[str, ...]
    rotation: int
    first_deal: int
    deals: int

    @property
    def lineup_id(self) -> str:
        """The line-up's name in the results: its labels joined by ``+``."""
        return lineup_id(self.lineup)

    def game_keys(self) -> list[tuple[str, int, int]]:
        """(line-up, deal, rotation) of each game of the chunk."""
        return [
            (self.lineup_id, d, self.rotation) for d in range(self.first_deal, self.first_deal + self.deals)
        ]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play chunks (plain data, pickled to workers and Ray tasks)."""

    game: dict
    agents: dict[str, tuple[str, dict]]  # label -> (registry name or module:Class, options)
    seed: int
    config_hash: str


def lineup_id(lineup: Iterable[str]) -> str:
    """Name of a line-up: its labels in agent order, joined by ``+``."""
    return "+".join(lineup)


def lineups(settings: TournamentConfig) -> list[tuple[str, ...]]:
    """The line-ups of a tournament, in a fixed order (see ``LineupConfig.mode``)."""
    labels, players = settings.labels, settings.game.num_players
    if settings.lineup.mode == "one_vs_field":
        field = settings.lineup.field or [labels[0]]
        return [(agent, *[f] * (players - 1)) for f in field for agent in labels if agent != f]
    if len(labels) >= players:
        return list(itertools.combinations(labels, players))
    return [c for c in itertools.combinations_with_replacement(labels, players) if len(set(c)) > 1]


def deal_seed(run_seed: int, deal: int) -> int:
    """Core seed of deal ``deal``: shared by every line-up and rotation of the run."""
    return run_seed * DEAL_SEED_STRIDE + deal


def agent_seed(run_seed: int, chunk: Chunk, agent: int) -> int:
    """Seed of agent ``agent`` in a chunk, from (run seed, line-up, rotation, first deal, agent)."""
    text = f"{run_seed}/{chunk.lineup_id}/{chunk.rotation}/{chunk.first_deal}/{agent}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "little")


def plan_chunks(settings: TournamentConfig) -> list[Chunk]:
    """Every chunk of the tournament, deal blocks outermost (a partial run covers all line-ups alike)."""
    players, deals, size = settings.game.num_players, settings.deals_per_lineup, settings.batch_size
    return [
        Chunk(lineup, rotation, first, min(size, deals - first))
        for first in range(0, deals, size)
        for lineup in lineups(settings)
        for rotation in range(players)
    ]


def play_chunk(job: Job, chunk: Chunk) -> list[dict]:
    """Play a chunk; one result record per game (see ``game_record``)."""
    config = load_game(job.game)
    agents = []
    for k, label in enumerate(chunk.lineup):
        name, options = job.agents[label]
        agents.append(make_agent(name, seed=agent_seed(job.seed, chunk, k), **options))
    one_torch_thread()
    deals = np.arange(chunk.first_deal, chunk.first_deal + chunk.deals)
    seeds = np.array([deal_seed(job.seed, int(d)) for d in deals], dtype=np.int64)
    try:
        result = play_batch(config, agents, seeds, rotation=chunk.rotation)
    finally:
        for agent in agents:
            agent.close()
    records = [game_record(job, chunk, result, b, int(deals[b])) for b in range(chunk.deals)]
    llm_report.add_reports(records, agents, result.seats)  # language-model seats: counts and transcripts
    return records


def one_torch_thread() -> None:
    """One torch thread in a process that has torch agents (ppo, sb3) loaded.

    Their small networks infer fastest single-threaded, and the workers of the pool share
    the cores. Agents leave the process-wide setting to the program; torch is not imported
    for a tournament without torch agents.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def load_game(game: dict) -> core.GameConfig:
    """The ``core.GameConfig`` of a job's game settings (cached per process: rule tables hang on it)."""
    key = json.dumps(game, sort_keys=True)
    if key not in _GAME_CACHE:
        _GAME_CACHE[key] = GameSettings(**game).to_game_config()
    return _GAME_CACHE[key]


_GAME_CACHE: dict[str, core.GameConfig] = {}


def game_record(job: Job, chunk: Chunk, result: BatchResult, b: int, deal: int) -> dict:
    """One game as a JSON-ready dict; per-seat lists are indexed by seat (player index)."""
    players = len(chunk.lineup)
    agent_at_seat = [(seat - chunk.rotation) % players for seat in range(players)]
    winner = int(result.winner[b])
    return {
        "config": job.config_hash,
        "lineup": chunk.lineup_id,
        "deal": deal,
        "seed": int(result.seeds[b]),
        "rotation": chunk.rotation,
        "players": players,
        "seats": [chunk.lineup[k] for k in agent_at_seat],
        "winner": chunk.lineup[winner] if winner >= 0 else None,
        "winner_seat": int(result.winner_seat[b]) if winner >= 0 else None,
        "turns": int(result.turns[b]),
        "truncated": bool(result.truncated[b]),
        "decisions": int(result.decisions[b]),
        "accusations": [int(result.accusations[b, k]) for k in agent_at_seat],
        "wrong_accusations": [int(result.wrong_accusations[b, k]) for k in agent_at_seat],
    }


def record_key(record: dict) -> tuple[str, int, int]:
    """(line-up, deal, rotation): what identifies a game within a run."""
    return record["lineup"], record["deal"], record["rotation"]


# -- backends -----------------------------------------------------------------------------------------


def run_local(job: Job, chunks: list[Chunk], workers: int) -> Iterator[list[dict]]:
    """Play chunks in this process (``workers=0``) or a pool of processes; yields each chunk's records.

    Raises:
        WorkerLost: A pool process died; its chunk (and those not yet finished) were not played.
    """
    if workers == 0:
        for chunk in chunks:
            yield play_chunk(job, chunk)
        return
    context = multiprocessing.get_context("spawn")  # clean workers, as on Ray
    # Unlike multiprocessing.Pool, which waits forever for the task of a worker that died,
    # the executor marks itself broken and fails every pending future.
    # Ctrl-C reaches every process of the terminal: the workers ignore it and this process stops them.
    # A worker exits when this process is gone, even killed (watch_parent): nobody else would stop it.
    pool = ProcessPoolExecutor(
        min(workers, len(chunks)), mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
    )
    finished = False
    try:
        # The workers start during the first submissions. With SIGINT blocked meanwhile (they inherit
        # the mask), a Ctrl-C cannot reach one before its initializer ignores it; this process gets
        # it once the mask is restored.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            futures = [pool.submit(play_chunk, job, chunk) for chunk in chunks]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for future in as_completed(futures):
            try:
                records = future.result()
            except BrokenProcessPool as error:
                raise WorkerLost(f"a worker process of the pool died ({error})") from error
            yield records
        finished = True
    finally:
        if not finished:  # interrupted or failed: stop the chunks under way instead of waiting for them
            for process in (pool._processes or {}).values():  # no public way to stop them before 3.14
                process.terminate()
        # Waiting joins the pool's manager thread. Left running, it could close its wake-up pipe while
        # the interpreter's exit writes to it (CPython 3.11: "OSError: Bad file descriptor" at SIGTERM).
        pool.shutdown(wait=True, cancel_futures=True)


def ray_code_env(root: Path) -> dict:
    """The Ray ``runtime_env`` that ships this project's code to a cluster's nodes.

    From a checkout, its folder (``working_dir``) minus ``RAY_EXCLUDES``; from an installed
    package (``root`` is then site-packages), the project's three packages (``py_modules``).
    """
    if (root / "pyproject.toml").is_file():
        return {"working_dir": str(root), "excludes": RAY_EXCLUDES}
    import agents
    import cluedo_env
    import experiments

    return {"py_modules": [cluedo_env, agents, experiments]}


def _start_worker(parent: int) -> None:
    """A pool worker's start: it ignores Ctrl-C (``parent`` stops it) and exits when ``parent`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)


def run_ray(job: Job, chunks: list[Chunk], address: str | None, workers: int) -> Iterator[list[dict]]:
    """Play chunks as Ray tasks (joining ``address`` or starting Ray here); yields each chunk's records."""
    import ray

    started = False
    if not ray.is_initialized():
        if address:
            # The cluster's nodes get this project's code with the job (they need its dependencies).
            ray.init(address=address, runtime_env=ray_code_env(REPO_ROOT), log_to_driver=False)
        else:
            # Local workers import this project from the repository, like the driver does.
            path = os.environ.get("PYTHONPATH", "")
            os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), path) if p)
            ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        play = ray.remote(num_cpus=1)(play_chunk)
        job_ref = ray.put(job)
        pending = [play.remote(job_ref, chunk) for chunk in chunks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


# -- the folder lock ----------------------------------------------------------------------------------

LOCK_FILE = "tournament.lock"


class FolderInUse(RuntimeError):
    """Another tournament is writing into the same ``output_dir``."""


@contextmanager
def lock_folder(out: Path) -> Iterator[None]:
    """Hold an exclusive OS lock on ``out/tournament.lock`` for the block.

    The lock is the operating system's (``flock``; ``msvcrt.locking`` on Windows), so it ends
    with the process that holds it: a killed run leaves the file but never a held lock. The file
    says who holds it, for the message of a run that finds it taken.

    Raises:
        FolderInUse: Another process holds the lock.
    """
    path = out / LOCK_FILE
    file = path.open("a+", encoding="utf-8")
    try:
        try:
            _lock(file)
        except OSError:
            file.seek(0)
            holder = file.read().strip() or "another process"
            raise FolderInUse(
                f"{out} is in use by another tournament ({holder}); running two into one output_dir would "
                "play every game twice. Wait for it to finish, or choose another output_dir"
            ) from None
        file.seek(0)
        file.truncate()
        file.write(
            f"pid {os.getpid()} on {socket.gethostname()}, started {time.strftime('%Y-%m-%dT%H:%M:%S')}"
        )
        file.flush()
        yield
    finally:
        file.close()  # closing the file releases the lock


def _lock(file) -> None:
    """Take an exclusive, non-blocking lock on an open file (``OSError`` when another process holds it)."""
    if sys.platform == "win32":
        import msvcrt

        file.seek(0)
        msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


# -- a run --------------------------------------------------------------------------------------------


def git_revision(root: Path = REPO_ROOT) -> dict:
    """The code's git revision and whether the working tree has uncommitted changes.

    ``{"revision": "unknown", "dirty": None}`` where git or the repository is missing, as for an
    installed package (``run.json`` records the package version then).
    """

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    # Only a checkout of this project: an installed copy may lie inside another repository.
    top = git("rev-parse", "--show-toplevel")
    revision = git("rev-parse", "HEAD") if top and Path(top).resolve() == root.resolve() else None
    status = git("status", "--porcelain") if revision else None  # untracked code counts too
    return {"revision": revision or "unknown", "dirty": None if status is None else bool(status)}


def run_tournament(
    settings: TournamentConfig,
    output_dir: Path | str,
    resolved_config: str | None = None,
    resume_command: str | None = None,
) -> dict:
    """Play the games of a tournament missing from ``output_dir``, then write its statistics.

    The folder is locked for the run (``tournament.lock``, an OS lock that ends with the
    process, so a killed run never leaves it locked): a second run into it refuses to start.

    Args:
        settings: A validated config (``load_config``).
        output_dir: Where results go (created).
        resolved_config: YAML of the config to save as ``config.yaml`` (default: ``settings``).
        resume_command: The command that continues this run, told when a worker dies
            (default: the module's command with ``output_dir`` and "the same overrides").

    Returns:
        The statistics (``experiments.common.stats.summarise``) with ``"paths"`` of the files written.

    Raises:
        FolderInUse: Another run holds ``output_dir``.
        WorkerLost: A worker process died; the games finished are kept and the message says how to resume.
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    if resume_command is None:
        resume_command = (
            f"python -m experiments.tournament output_dir={out} (with this run's other overrides)"
        )
    with lock_folder(out):
        return _run_locked(settings, out, resolved_config, resume_command)


def _run_locked(
    settings: TournamentConfig, out: Path, resolved_config: str | None, resume_command: str
) -> dict:
    digest = config_hash(settings)
    games_path = out / GAMES_FILE
    if not settings.resume and games_path.exists():
        games_path.unlink()
    existing = read_games(games_path, repair=True)
    foreign = sorted({r.get("config") for r in existing} - {digest}, key=str)
    if foreign:
        raise ConfigError(
            f"{games_path} holds games of another configuration (hash {foreign}, this one {digest}); "
            "use another output_dir, or resume=false to start over"
        )
    done = {record_key(r) for r in existing}
    chunks = plan_chunks(settings)
    todo = [c for c in chunks if not all(k in done for k in c.game_keys())]
    missing = sum(sum(k not in done for k in c.game_keys()) for c in todo)
    planned = {k for c in chunks for k in c.game_keys()}
    beyond = [r for r in existing if record_key(r) not in planned]
    if existing:
        print(
            f"resuming: {len(existing) - len(beyond)} of the {len(planned)} games found in {games_path}; "
            f"{missing} to play"
        )
    if beyond:
        print(f"note: {subset_note(len(beyond), len(existing), settings, existing)}")

    yaml = (
        resolved_config if resolved_config is not None else OmegaConf.to_yaml(OmegaConf.structured(settings))
    )
    (out / "config.yaml").write_text(yaml)
    session = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "version": __version__,
        "git": git_revision(),
        "backend": settings.backend,
        "workers": settings.workers,
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "command": sys.argv,
        "games_found": len(existing),
        "games_to_play": missing,
    }
    run_info = _read_json(out / "run.json")
    if not existing or run_info is None or run_info.get("config_hash") != digest:
        run_info = {"config_hash": digest, "sessions": []}
    run_info["sessions"].append(session)
    run_info["git"] = session["git"]
    _write_json(out / "run.json", run_info)

    job = Job(
        game=asdict(settings.game),
        agents={s.display: (s.name, dict(s.options)) for s in settings.lineup.agents},
        seed=settings.seed,
        config_hash=digest,
    )
    start = time.perf_counter()
    played = 0
    if todo:
        if settings.backend == "ray":
            results = run_ray(job, todo, settings.ray_address, settings.workers)
        else:
            results = run_local(job, todo, settings.workers)
        writer = GameWriter(games_path)
        transcripts: GameWriter | None = None  # opened at the first game with a transcript
        bar = tqdm(
            total=missing, unit=" games", desc="tournament", disable=not settings.progress, smoothing=0.1
        )
        try:
            for records in results:
                new = [r for r in records if record_key(r) not in done]
                lines = llm_report.pop_transcripts(new)
                if lines:
                    transcripts = transcripts or GameWriter(out / llm_report.TRANSCRIPTS_FILE)
                    transcripts.write(lines)
                writer.write(new)
                done.update(record_key(r) for r in new)
                played += len(new)
                bar.update(len(new))
        except WorkerLost as error:
            raise WorkerLost(
                f"{error}. The {len(done & planned)} of {len(planned)} games finished are saved in "
                f"{games_path}; the others are played by resuming: {resume_command}"
            ) from error
        finally:
            bar.close()
            writer.close()
            if transcripts is not None:
                transcripts.close()
            if hasattr(results, "close"):
                results.close()
    elapsed = time.perf_counter() - start
    session.update(
        games_played=played, elapsed_s=round(elapsed, 3), finished=time.strftime("%Y-%m-%dT%H:%M:%S")
    )
    _write_json(out / "run.json", run_info)

    games = [r for r in read_games(games_path) if record_key(r) in planned]
    meta = {
        "config_hash": digest,
        "git": session["git"],
        "version": __version__,
        "game": asdict(settings.game),
        "agents": {s.display: {"name": s.name, "options": dict(s.options)} for s in settings.lineup.agents},
        "mode": settings.lineup.mode,
        "lineups": [lineup_id(lineup) for lineup in lineups(settings)],
        "deals_per_lineup": settings.deals_per_lineup,
        "seed": settings.seed,
        "games_played_now": played,
        "elapsed_s": elapsed,
    }
    if beyond:
        meta["note"] = subset_note(len(beyond), len(existing), settings, existing)
    summary = stats.write_report(games, out, meta=meta, plots=settings.plots)
    llm = llm_report.summarise(games)
    if llm:  # invalid-reply and fallback rates, tokens per game
        summary["llm"] = llm
        summary["paths"].update(llm_report.write(llm, out))
    return summary


def subset_note(beyond: int, found: int, settings: TournamentConfig, games: list[dict]) -> str:
    """What a report leaves out when ``games.jsonl`` holds more deals than ``games_per_lineup`` plans."""
    deals = max(r["deal"] for r in games) + 1
    return (
        f"{beyond} of the {found} games in games.jsonl are beyond games_per_lineup={settings.games_per_lineup} "
        f"and left out of this report; games_per_lineup={deals * settings.game.num_players} reports them all"
    )


def _read_json(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


def _write_json(path: Path, value: dict) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n")


class Terminated(KeyboardInterrupt):
    """SIGTERM: the run stops as at Ctrl-C (the workers stopped, the games kept, the resume command told)."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def main_with(
    cfg: DictConfig | TournamentConfig,
    output_dir: Path | str | None = None,
    overrides: list[str] | None = None,
) -> dict:
    """Validate a composed config, run the tournament, print the leaderboard and the paths written.

    ``overrides`` are the command line's (they make the resume command told when a worker dies).
    """
    settings = load_config(cfg)
    resolved = OmegaConf.to_yaml(cfg, resolve=True) if isinstance(cfg, DictConfig) else None
    out = Path(output_dir or settings.output_dir)
    n_lineups, n_games = len(lineups(settings)), len(lineups(settings)) * settings.deals_per_lineup
    print(
        f"{n_lineups} line-ups x {settings.deals_per_lineup} deals x {settings.game.num_players} rotations "
        f"= {n_games * settings.game.num_players} games -> {out}"
    )
    command = None
    if overrides is not None:
        kept = [shlex.quote(o) for o in overrides if o.partition("=")[0].lstrip("+~") != "output_dir"]
        command = shlex.join(["python", "-m", "experiments.tournament"]) + "".join(f" {o}" for o in kept)
        command += f" {shlex.quote(f'output_dir={out}')}"
    summary = run_tournament(settings, out, resolved_config=resolved, resume_command=command)
    print()
    print(stats.format_leaderboard(summary))
    print()
    if "llm" in summary:
        print(llm_report.format_table(summary["llm"]))
        print()
    for name, path in summary["paths"].items():
        print(f"{name:>17s}: {path}")
    return summary


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="tournament", version_base=None)
def main(cfg: DictConfig) -> None:
    # One run: hydra.run.dir is output_dir. A --multirun sweep: each job writes to its own
    # sub-folder of the sweep folder (hydra.sweep.dir/<job number>).
    hydra_config = HydraConfig.get()
    output_dir = Path(hydra_config.runtime.output_dir)
    warnings.formatwarning = lambda message, category, *args, **kwargs: f"warning: {message}\n"
    signal.signal(signal.SIGTERM, _terminate)
    try:
        refuse_from_elsewhere(cfg, hydra_config, ["lineup.agents"], ["output_dir"])  # before any agent
        main_with(cfg, output_dir, overrides=list(HydraConfig.get().overrides.task))
    except ConfigError as error:
        print(f"config error: {error}", file=sys.stderr)
        with contextlib.suppress(OSError):  # hydra made the folder for this run; remove it if still empty
            output_dir.rmdir()
        sys.exit(2)
    except (FolderInUse, WorkerLost) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt as stop:
        found = len(read_games(output_dir / GAMES_FILE))
        overrides = [o for o in hydra_config.overrides.task if not o.startswith("output_dir=")]
        words = ["python", "-m", "experiments.tournament", *overrides, f"output_dir={output_dir}"]
        command = " ".join(shlex.quote(word) for word in words)
        how = "terminated" if isinstance(stop, Terminated) else "interrupted"
        print(f"\n{how}: {found} games kept in {output_dir / GAMES_FILE}; to resume: {command}")
        sys.exit(128 + signal.SIGTERM if isinstance(stop, Terminated) else 130)


if __name__ == "__main__":
    main()
