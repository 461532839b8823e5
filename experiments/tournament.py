"""Tournaments between agents, with duplicate deals, every seat rotation and honest statistics.

    python -m experiments.tournament                   # random, notepad, sat, belief, learned; 4 players
    python -m experiments.tournament game=classic6 lineup=baselines games_per_lineup=600 workers=2
    python -m experiments.tournament lineup=vs_field output_dir=results/vs_field
    python -m experiments.tournament lineup=with_ppo lineup.agents.3.options.checkpoint=runs/<run>/model.pt
    python -m experiments.tournament --multirun game.num_players=3,4,5,6 lineup=baselines output_dir=results/sweep
    python -m experiments.common.stats results/sweep/*/ --output results/sweep_pooled   # one report of the sweep

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
agents. PPO's training deals are numbered the same way (deal ``d`` of a
``train_ppo`` run with seed ``s`` has core seed ``s * 1e9 + d``,
``agents.ppo.games``), so a model trained by ``train_ppo`` with seed ``s`` has
played tournament seed ``s``'s deals in training. The shipped learned and PPO
models were trained with seed 1: compare them with ``seed=0`` (the default) or
2 and above. (Evaluation, imitation's teacher games and the expert dataset deal
from core seeds ``10**15``, ``10**13`` and ``10**14`` up, apart from training;
the tournament keeps its numbering so that published results replay.)

Units of work. A unit ("chunk") is one line-up x one rotation x ``batch_size``
consecutive deals, played as one batch by ``agents.arena.play_batch`` with
agents seeded from (run seed, line-up, rotation, first deal, agent index). A
game's result therefore depends only on the config and its chunk, not on which
process, backend or session played it: the local pool, Ray and a resumed run
give identical games (``experiments.common.chunks``; the backends are
``experiments.common.backends``). The last chunk of a line-up is shorter where
the deals do not fill ``batch_size``, and an agent draws its randomness for a
whole chunk, so those deals play differently in a run with more deals: such
runs share the config hash but not those games (``cluedo-stats`` refuses to
pool them, and a folder does not grow past a short chunk).

Results. Each game is appended to ``<output_dir>/games.jsonl`` as its chunk
finishes (one JSON object per line, flushed and synced), so a killed run loses
at most the chunks in flight. Run again with the same ``output_dir`` (and
``resume=true``, the default) and only the missing games are played: the default
``output_dir`` is a new time-stamped folder, so name the killed run's folder,
e.g. ``python -m experiments.tournament output_dir=results/tournament/2026-01-01_12-00-00``
(with the same overrides as before; games of another config are refused).
One run at a time holds the folder (``tournament.lock``, an OS lock that ends
with its process, so a killed run never leaves it locked): a second run into it
refuses to start (``experiments.common.folder_lock``; a run is
``experiments.common.tournament_run.run_tournament``). A worker process that dies (killed, out of memory) stops the
run with the command that resumes it; the games written are kept. So does an agent that fails (raises, or
returns actions the table refuses): one line names its label, the line-up, the rotation and the deals of the
games under way, then the agent's error (``experiments.common.chunks.AgentFailed``); fix the agent, then resume. Lines of
``games.jsonl`` that are not game records (torn, garbage) are moved to
``games.jsonl.rejected`` with a warning, and their games are played again.
Ctrl-C or SIGTERM stops a run with one line giving that command (exit status 130 or 143), and so
does a results file that cannot be written (a full disk, a folder made read-only: the line names the
file and the error, exit status 1; ``experiments.common.write_failures``); a
killed run's pool workers exit by themselves (``experiments.common.extras.watch_parent``); a resumed run says how many games
it found, and a run asked for fewer games than its folder holds says that its
report leaves the others out.
Beside ``games.jsonl``: ``config.yaml`` (the fully resolved config), ``run.json``
(config hash, the code's git revision and dirty flag, each session with its start and end in UTC), and the
report of ``experiments.common.report`` (statistics of ``experiments.common.summary``): ``stats.json``, ``leaderboard.csv``,
``lineups.csv``, ``seats.csv``, ``seat_advantage.csv``, ``head_to_head.csv`` (each one table, as
``experiments.common.report`` says), ``report.md`` and PNG plots
(``win_share``, ``lineups``, ``ratings``, ``turns_to_win``, ``head_to_head``).
``output_dir`` is a new or empty folder, a tournament's (resumed), or one holding only the files a
tournament writes; a folder of other files (a training run's, a reasoning run's, one of yours) is
refused before anything is written there, naming what it holds, and so is an empty ``output_dir=``
(the current folder), in one line (``experiments.common.tournament_run.refuse_others_folder``).

Files from elsewhere. Line-ups of your own go in a config folder of yours
(``--config-dir DIR`` with ``DIR/lineup/mine.yaml``). An agent option of such a file that
reaches the network or the file system (an llm agent and its ``base_url``, ``api_key_env``,
``prompts``, ``record_dir``; a model path; an agent by import path) is refused, naming the option
and the file, unless the command line repeats it (``lineup.agents.1.options.base_url=...``) or
says ``trust_files=true``: a downloaded line-up cannot send your keys anywhere
(``experiments.common.trust.refuse_untrusted_options``). So is an ``output_dir`` that such a file
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
import shlex
import signal
import sys
import warnings
from pathlib import Path

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import DictConfig, OmegaConf
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error, command=__name__ == "__main__") from error

from agents.llm.errors import ChatError, ChatUnreachable
from experiments.common import llm_report
from experiments.common.chunks import AgentFailed, lineups
from experiments.common.extras import WorkerLost
from experiments.common.folder_lock import FolderRefused
from experiments.common.games_file import GAMES_FILE, read_games
from experiments.common.output_paths import empty_folder
from experiments.common.report_tables import format_leaderboard
from experiments.common.request_logs import quiet_request_logs
from experiments.common.settings import TournamentConfig, load_config
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.tournament_run import run_tournament
from experiments.common.trust import checked_main, refuse_from_elsewhere
from experiments.common.url_credentials import hide_url_credentials
from experiments.common.value_checks import ConfigError
from experiments.common.write_failures import NotWritten

__all__ = ["Terminated", "main", "main_with"]


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
    if not str(output_dir or settings.output_dir).strip():
        raise ConfigError(empty_folder("output_dir"))
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
        command = hide_url_credentials(command + f" {shlex.quote(f'output_dir={out}')}")
    summary = run_tournament(settings, out, resolved_config=resolved, resume_command=command)
    print()
    print(format_leaderboard(summary))
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
    """The ``cluedo-tournament`` command: refuse options from elsewhere, run, and report in one line."""
    quiet_request_logs()
    # One run: hydra.run.dir is output_dir. A --multirun sweep: each job writes to its own
    # sub-folder of the sweep folder (hydra.sweep.dir/<job number>).
    hydra_config = HydraConfig.get()
    output_dir = Path(hydra_config.runtime.output_dir)
    warnings.formatwarning = lambda message, category, *args, **kwargs: f"warning: {message}\n"
    signal.signal(signal.SIGTERM, _terminate)
    try:
        refuse_from_elsewhere(
            cfg, hydra_config, ["lineup.agents"], ["output_dir", "ray_address"]
        )  # before any agent
        main_with(cfg, output_dir, overrides=list(HydraConfig.get().overrides.task))
    except ConfigError as error:
        print(f"config error: {error}", file=sys.stderr)
        with contextlib.suppress(OSError):  # hydra made the folder for this run; remove it if still empty
            output_dir.rmdir()
        sys.exit(2)
    except (FolderRefused, WorkerLost) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except NotWritten as error:  # a full disk, a folder made read-only: the games written are kept
        print(f"error: {error}; {_kept(output_dir, hydra_config)}", file=sys.stderr)
        sys.exit(1)
    except ChatUnreachable as error:  # a wrong URL or a server not started: the user's to fix
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except AgentFailed as error:  # a faulty agent: fixed, the run resumes (the games played are kept)
        print(f"error: {error}\n{_kept(output_dir, hydra_config)}", file=sys.stderr)
        sys.exit(1)
    except ChatError as error:  # the endpoint failed for good (its retries spent): stop, resume later
        print(f"error: {error}\n{_kept(output_dir, hydra_config)}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt as stop:
        how = "terminated" if isinstance(stop, Terminated) else "interrupted"
        print(f"\n{how}: {_kept(output_dir, hydra_config)}")
        sys.exit(128 + signal.SIGTERM if isinstance(stop, Terminated) else 130)


def _kept(output_dir: Path, hydra_config: DictConfig) -> str:
    """How many games a stopped run kept, and the command that resumes it (a torn last line is left for the
    resumed run to set aside and tell)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        found = len(read_games(output_dir / GAMES_FILE))
    overrides = [o for o in hydra_config.overrides.task if not o.startswith("output_dir=")]
    # the folders and config the command line named (--config-dir, --config-name): a line-up of the user's
    config_dirs = [s.path for s in hydra_config.runtime.config_sources if s.provider == "command-line"]
    options = [word for folder in config_dirs for word in ("--config-dir", folder)]
    if hydra_config.job.config_name != "tournament":
        options += ["--config-name", hydra_config.job.config_name]
    words = ["python", "-m", "experiments.tournament", *options, *overrides, f"output_dir={output_dir}"]
    command = hide_url_credentials(" ".join(shlex.quote(word) for word in words))
    return f"{found} games kept in {output_dir / GAMES_FILE}; to resume: {command}"


if __name__ == "__main__":
    main()
