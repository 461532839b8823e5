"""Score a solver on a reasoning-benchmark split or a task file: table, report, plots, leaderboard.

    python -m experiments.reasoning_bench solver=beliefs split=dev
    python -m experiments.reasoning_bench solver=beliefs tasks_file=my_tasks.jsonl.gz
    python -m experiments.reasoning_bench solver=my_package.my_module:solve split=test
    python -m experiments.reasoning_bench solver=llm llm.base_url=http://127.0.0.1:8000/v1 llm.model=my-model limit=50

The solver gets each task as a solver sees it (``cluedo_env.reasoning.score.public_view``: its solver fields,
without the answers or the deal seed) and returns an answer dict; a solver that raises is scored as an empty
answer and the error reported, but for the ``llm`` solver, whose task is scored so only where the model's
reply failed (a server that never answered usably: ``ChatReplyError``; a reply without an answer is its None):
anything else it raises (a bug, a bad setting) stops the run in one line, the tasks scored so far kept for the
same command to go on from; so does a results file that cannot be written (a full disk, a folder made
read-only: the line names the file and the error; ``experiments.common.write_failures``; the report's files
are written whole, so one that fails leaves the earlier run's). Ctrl-C stops a run with one line saying how
many tasks are kept and the command that goes on from them (exit status 130). A split not shipped is generated
into ``cache`` on first use; a copy there that cannot be read (cut by a run stopped while writing it) or holds
other tasks is generated again, after a one-line warning naming it
(``cluedo_env.reasoning.splits.load_split``). A solver's text (its error, a model's reply) is written whatever
it holds: a lone surrogate (half an emoji, a file name undecodable as UTF-8) as JSON's escape of it
(``reasoning_scores.json_text``). Bad ``llm`` options, and an import path that leads to no callable, stop the
command in one line (``config error: llm: ...``, ``config error: solver: ...``) before a split is loaded or
anything written. Prints the number of tasks and of the games they were cut from, how the intervals were
drawn, and the table (overall and per tier, 95% bootstrap intervals over the games; Wilson's for a share of 0
or 1, ``cluedo_env.reasoning.score``), writes ``<output_dir>/<solver>/report.json`` (``llm-<model>`` for the
llm solver), ``report.md``, ``tiers.png`` and ``calibration.png`` (a solver with ``counts``, such as the
``llm`` one, adds them to the report and its ``transcripts`` to ``transcripts.jsonl``), and appends one line
to the leaderboard (the overall figures with their intervals, the number of tasks and of games, and
``intervals``: how they were drawn). The report and the line name what scored them, from the scores file's
settings (``_provenance``): ``tasks_sha256``, ``score_version``, ``files`` (a solver's own file or prompts,
where there are) and ``cluedo_env_version``.

A task file of your own (``tasks_file=PATH``, ``cluedo_env.reasoning.splits.write_tasks``) is scored as a
split is; a file ``read_tasks`` refuses, or of no task or two versions, or a ``split`` or ``version`` other
than its tasks' given with it, stops the command in one line before anything is written. Its run is of split
``file`` and its tasks' version, goes to ``outputs/reasoning/file-<name>`` by default and names the file and
its checksum (``tasks_file``, ``tasks_file_sha256``: ``common.reasoning_tasks``).

Files from elsewhere. A config file of a folder of yours (``--config-dir DIR --config-name mine``) may not
choose what reaches the network, the file system or code: a solver that does (``llm``, an import path), the
llm solver's options that name a place (``base_url``, ``api_key_env``, ``prompts``:
``agents.registry.OUTSIDE_OPTIONS``), or a path (``cache``, ``output_dir``, ``leaderboard``, ``tasks_file``)
other than this command's own default. The command line must repeat them, or say ``trust_files=true``
(``experiments.common.trust.refuse_untrusted_options``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import numbers
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    from experiments.common.reasoning_plots import (
        INTERVALS,
        MIN_GAMES_FOR_INTERVAL,
        games_of,
        plot_calibration,
        plot_tiers,
    )
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error, command=__name__ == "__main__") from error

from agents.llm.errors import ChatError, ChatReplyError, ChatUnreachable
from agents.registry import OUTSIDE_OPTIONS
from agents.solvers import load_solver
from cluedo_env import __version__
from cluedo_env.reasoning.score import SCORE_VERSION, public_view, score_answer, summarize, task_game
from cluedo_env.reasoning.splits import SPLITS, checksum, load_split, sample_tasks
from cluedo_env.whole_files import write_whole
from experiments.common.code_revision import utc_now
from experiments.common.folder_lock import FolderRefused, lock_folder
from experiments.common.interrupts import INTERRUPTED, hydra_command
from experiments.common.output_paths import file_refusal
from experiments.common.reasoning_scores import json_text, llm_identity, scored_before
from experiments.common.reasoning_solvers import check_import_path, check_llm_options, known_solvers
from experiments.common.reasoning_tasks import default_output_dir, read_task_file
from experiments.common.request_logs import quiet_request_logs
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.task_generation import generate
from experiments.common.trust import checked_main, command_settings
from experiments.common.value_checks import ConfigError, check_local_model, exit_on_config_error
from experiments.common.write_failures import NotWritten, writing

__all__ = ["Interrupted", "ReasoningBenchConfig", "SolverFailed", "SplitRefused", "format_table", "run"]

# What a run stopped part-way says of its scores (the endpoint failed for good, a full disk).
KEPT = "the tasks scored so far are kept; the same command again goes on from them"
# The columns of the printed table and of the leaderboard.
COLUMNS = ("precision", "recall", "f1", "solved", "brier", "log_loss", "excess_log_loss")


@dataclass
class ReasoningBenchConfig:
    """What to score.

    Attributes:
        solver: A built-in solver (sat, beliefs, notepad, uniform, llm) or ``"package.module:function"``.
        llm: Options of the ``llm`` solver (``base_url``, ``model``, ...: the arguments of
            ``agents.llm.solver.LLMSolver``), used when ``solver=llm``.
        version: Benchmark version (``v2``; ``v1`` stays available).
        split: ``dev`` or ``test``.
        tasks_file: Score the tasks of this task file instead of a split (gzip JSON Lines,
            ``cluedo_env.reasoning.splits.write_tasks``; ``version`` and ``split`` are then the file's:
            ``experiments.common.reasoning_tasks.read_task_file``, which refuses others); None: the split's.
        limit: Score a sample of ``limit`` tasks with the split's mix of tiers, drawn with ``seed``
            (``cluedo_env.reasoning.splits.sample_tasks``; None: all).
        resamples: Bootstrap resamples.
        seed: Seed of the sample (``limit``) and of the bootstrap.
        cache: Folder where splits not shipped are generated.
        output_dir: Reports go to ``<output_dir>/<solver>/`` (``llm-<model>/`` for the llm solver);
            None: ``outputs/reasoning/<version>-<split>``, or ``file-<name>`` for a ``tasks_file``, as the
            command's config says (``reasoning_tasks.default_output_dir``).
        leaderboard: JSON Lines file one result line is appended to (with ``games``, the number of
            games the tasks were cut from, and ``intervals``, how the figures' intervals were drawn).
        progress: Show progress bars.
        resume: Go on from the tasks already scored by a run of the same settings (solver, its
            options but those of transport, ``reasoning_scores.TRANSPORT_OPTIONS``, split or task file,
            limit, seed, the scoring's version),
            kept a line per task as they come in
            ``<output_dir>/<solver>/scores-<hash of the settings>.jsonl``; ``false`` starts over.
        trust_files: Take the solver, its options that name a place and the paths from a config
            file of a folder of the user's (``--config-dir``) too; read from the command line only
            (see the module docstring).
    """

    solver: str = "beliefs"
    llm: dict[str, Any] = field(default_factory=dict)
    version: str = "v2"
    split: str = "dev"
    tasks_file: str | None = None
    limit: int | None = None
    resamples: int = 1000
    seed: int = 0
    cache: str = "outputs/reasoning/splits"
    output_dir: str | None = None
    leaderboard: str = "outputs/reasoning/leaderboard.jsonl"
    progress: bool = True
    resume: bool = True
    trust_files: bool = False

    def validate(self) -> None:
        """Refuse an unknown solver name, split or limit, the local model (``llm.model=local``) without its
        extra, an ``llm`` option the solver does not have or a bad value of one (the solver is built and
        closed: it sends nothing, and the local model waits for the first task), or an import path that leads
        to no callable (its module is imported: ``reasoning_solvers.check_import_path``), before a split is
        loaded or anything written. The command runs it after refusing what a config file from elsewhere
        gives (``experiments.common.trust``): such a file's import path is never imported.

        Raises:
            ConfigError: naming the value and what is accepted.
        """
        known = known_solvers()
        if not isinstance(self.solver, str) or (self.solver not in known and ":" not in self.solver):
            raise ConfigError(
                f"solver must be one of {known} or 'package.module:function', got {self.solver!r}"
            )
        if self.tasks_file is not None and not str(self.tasks_file).strip():
            raise ConfigError(f"tasks_file must be the path of a task file or null, got {self.tasks_file!r}")
        if (self.version, self.split) not in SPLITS:
            splits = ", ".join(f"version={v} split={n}" for v, n in sorted(SPLITS))
            raise ConfigError(
                f"no split version={self.version!r} split={self.split!r}; the splits are {splits}"
            )
        if self.limit is not None and (
            not isinstance(self.limit, int) or isinstance(self.limit, bool) or self.limit < 1
        ):
            raise ConfigError(f"limit must be a positive integer or null, got {self.limit!r}")
        for name, value, least in (("resamples", self.resamples, 1), ("seed", self.seed, 0)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < least:
                raise ConfigError(f"{name} must be an integer >= {least}, got {value!r}")
        # (checked before the tasks are scored, hours of a model's calls: not when the line is appended)
        why = file_refusal("leaderboard=", self.leaderboard, "a JSON Lines file (e.g. leaderboard=lb.jsonl)")
        if why:
            raise ConfigError(why)
        if self.solver == "llm" and isinstance(self.llm, dict):
            check_local_model("llm", "llm", self.llm)
            check_llm_options(self.llm)
        elif self.solver not in known:
            check_import_path(self.solver)


_DEFAULT_SPLIT = (ReasoningBenchConfig.version, ReasoningBenchConfig.split)  # (the shipped config's too)
ConfigStore.instance().store(name="reasoning_bench_schema", node=ReasoningBenchConfig)
OmegaConf.register_new_resolver("reasoning_output_dir", default_output_dir, replace=True)  # (the YAML's)


ERROR_CHARS = 500  # of a solver's error kept in its task's line of the scores file


def _cell(metric: dict[str, float], games: int) -> str:
    if not np.isfinite(metric["value"]):
        return "n/a"
    if games < MIN_GAMES_FOR_INTERVAL:
        return f"{metric['value']:.3f} (games<{MIN_GAMES_FOR_INTERVAL})"
    return f"{metric['value']:.3f} [{metric['low']:.3f}, {metric['high']:.3f}]"


def calibration_line(calibration: dict[str, Any]) -> str:
    """The calibration figure in words: ECE over how many cards (all but the certain facts answered
    right, ``cluedo_env.reasoning.score``), and what it does not measure."""
    if not calibration["pairs"]:
        return "calibration: every card certain and answered right (no ECE)"
    return (
        f"calibration ECE {calibration['ece']:.4f} over {calibration['pairs']} cards (all but certain ones "
        "answered right; calibration only: a solver uniform over too many candidates can score near 0 "
        "here and still have a poor log-loss)"
    )


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a Markdown table: one row per tier and overall, values with 95% intervals
    (none for a group from fewer than ``MIN_GAMES_FOR_INTERVAL`` games; tasks where the games are not known)."""
    header = "| group | tasks | " + " | ".join(COLUMNS) + " |"
    lines = [header, "|" + "---|" * (len(COLUMNS) + 2)]
    groups = [(f"tier {t}", g) for t, g in summary["tiers"].items()] + [("overall", summary["overall"])]
    for name, group in groups:
        lines.append(
            f"| {name} | {group['tasks']} | "
            + " | ".join(_cell(group[c], games_of(group)) for c in COLUMNS)
            + " |"
        )
    return "\n".join(lines)


def _ofgames_of(summary: dict[str, Any]) -> str:
    """ ", from N games; intervals over games" where the tasks' games are known."""
    games = summary["overall"].get("games")
    return "" if games is None else f" from {games} games; {_intervals(summary)}"


def _intervals(summary: dict[str, Any]) -> str:
    """How a summary's intervals were drawn (``INTERVALS``): over its games, or over its tasks where the
    games are not known."""
    return INTERVALS.format(units="games" if "games" in summary["overall"] else "tasks")


def _run_settings(cfg: ReasoningBenchConfig, tasks: list[dict], source: dict[str, Any]) -> dict[str, Any]:
    """What makes two runs' per-task lines interchangeable, the first line of their scores file:
    the solver, its options but those of transport (``reasoning_scores.llm_identity``: ``base_url``
    without its credentials), where the tasks come from (``source``: ``_tasks``), the very tasks (their
    checksum: a regenerated split is new), the scoring's version (``SCORE_VERSION``: lines scored
    otherwise are another run's) and, for a solver of the user's, its code (``_user_files``: edited, its
    answers are another run's)."""
    settings = {
        "solver": cfg.solver,
        "llm": llm_identity(dict(cfg.llm)) if cfg.solver == "llm" else {},
        **source,
        "limit": cfg.limit,
        "seed": cfg.seed,
        "tasks": checksum(tasks),
        "score_version": SCORE_VERSION,
    }
    files = _user_files(cfg)
    if files:  # (only then: the scores of the built-in solvers keep their files)
        settings["files"] = {str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in files}
    return settings


def _user_files(cfg: ReasoningBenchConfig) -> list[Path]:
    """The files of the user's that a run's answers come from, as far as they can be told: the file
    defining a solver given by import path (a function's, a callable object's class's, a partial's
    function's; not the files it imports), the templates of an llm solver's ``prompts`` folder (a folder
    of the user's, not a shipped set). They are read on disk as the run starts: in one Python process,
    a module edited after its import runs its old code until it is reloaded (``importlib.reload``)."""
    if cfg.solver == "llm":
        prompts = cfg.llm.get("prompts")
        from agents.llm.solver import PROMPTS_DIR  # (httpx: only when a model is asked)

        if not prompts or (PROMPTS_DIR / str(prompts)).is_dir():  # a shipped set (load_prompts' order)
            return []
        folder = Path(str(prompts))
        return sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if ":" in cfg.solver:
        solve = load_solver(cfg.solver)
        solve = getattr(solve, "func", solve)  # a functools.partial: its function
        try:
            source = inspect.getsourcefile(solve if inspect.isroutine(solve) else type(solve))
        except TypeError:  # a built-in: no file of the user's
            source = None
        return [Path(source)] if source else []
    return []


def _solver_label(cfg: ReasoningBenchConfig) -> str:
    """The run's label: the solver, and for ``llm`` its model (two models' reports apart)."""
    return f"llm-{cfg.llm.get('model')}" if cfg.solver == "llm" and cfg.llm.get("model") else cfg.solver


def _folder_name(label: str) -> str:
    """``label`` as a folder name; where characters had to be replaced, with a short hash of the label, so
    that ``org/model:Q4`` and ``org_model_Q4`` keep their reports apart."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
    return name if name == label else f"{name}-{hashlib.sha256(label.encode()).hexdigest()[:8]}"


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None (``null``: strict JSON has no NaN), e.g. a recall of a
    group without facts of that label."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class SolverFailed(RuntimeError):
    """The llm solver raised what is no failure of the model's reply (a bug, a bad setting): the run stops,
    the tasks scored before it kept."""


class SplitRefused(RuntimeError):
    """The split's tasks cannot be had: a shipped file damaged, or tasks generated afresh whose checksum is
    not the pinned one (``load_split``'s ``ValueError``)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while the run scored or reported: its message says how many tasks are kept, and where."""


def _score_one(solve: Any, task: dict[str, Any], llm: bool = False) -> dict[str, Any]:
    """One task's line of the scores file: its score, seconds, and what the solver counted and
    kept (``counts``, ``transcripts``) for it.

    A solver that raises is scored as an empty answer, its error kept in the line (``error``), except
    where the endpoint failed for good (``ChatError`` other than ``ChatReplyError``: nothing answers,
    an HTTP error such as a wrong model name, the retries spent): that is raised, the task is not
    written, and a resumed run asks it again. A server that answers but misbehaves
    (``ChatReplyError``) is the solver's failure on that task, as it is a player's in a tournament. The
    ``llm`` solver's other exceptions are no failure of the model (a bug, a bad setting): they raise
    ``SolverFailed``, the task not written. An answer the scorer cannot read is scored as an empty one
    too, and reported (a reply that holds no answer is the llm solver's None)."""
    before = dict(getattr(solve, "counts", {}))
    kept = len(getattr(solve, "transcripts", []))
    start = time.perf_counter()
    error = None
    try:
        answer = solve(public_view(task))
    except ChatReplyError as raised:  # the server answered, never usably: the model's failure on the task
        answer, error = None, raised
    except ChatError:  # the endpoint failed for good: the run stops, the task is asked again on resuming
        raise
    except Exception as raised:  # a solver's failure is scored as an empty answer, and reported
        if llm:
            message = f"the llm solver raised {type(raised).__name__} on task {task['id']}: {raised}"
            raise SolverFailed(message[:ERROR_CHARS]) from raised
        answer, error = None, raised
    said = f"solver raised {type(error).__name__}"
    try:
        scored = score_answer(task, answer)
    except Exception as raised:  # an answer the scorer cannot read: scored as an empty one, and reported
        error, said = raised, f"answer not readable ({type(raised).__name__}): scored as an empty one"
        scored = score_answer(task, None)
    row: dict[str, Any] = {"id": task["id"], "seconds": time.perf_counter() - start, "scored": scored}
    if error is not None:
        scored["problems"] = [said, *scored["problems"]]
        row["error"] = str(error)[:ERROR_CHARS]
    row["counts"] = {k: v - before.get(k, 0) for k, v in getattr(solve, "counts", {}).items()}
    row["transcripts"] = getattr(solve, "transcripts", [])[kept:]
    return row


def run(cfg: ReasoningBenchConfig) -> dict[str, Any]:
    """Score ``cfg.solver`` on the split, write the report and the leaderboard line; the report.

    Each task's score goes to ``<output_dir>/<solver>/scores-<hash>.jsonl`` as it comes, so a
    stopped run of the same settings goes on where it stopped (``resume``)."""
    cfg.validate()
    tasks, source = _tasks(cfg)
    if cfg.limit is not None:  # a sample of the split's mix of tiers, not its first tasks
        tasks = sample_tasks(tasks, cfg.limit, seed=cfg.seed)
    output_dir = Path(cfg.output_dir or default_output_dir(cfg.version, cfg.split, cfg.tasks_file))
    out = output_dir / _folder_name(_solver_label(cfg))
    out.mkdir(parents=True, exist_ok=True)
    settings = _run_settings(cfg, tasks, source)
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    scores_path = out / f"scores-{digest}.jsonl"  # runs of other settings keep their own file
    done: dict[str, Any] = {}
    try:
        with lock_folder(out, within=output_dir):  # one run at a time appends to its scores
            _score(cfg, tasks, settings, scores_path, done)
        return _report(cfg, tasks, done, out, settings)
    except KeyboardInterrupt:  # Ctrl-C: the tasks scored are kept, and the same command goes on from them
        raise Interrupted(f"{len(done)} of {len(tasks)} tasks scored are kept in {scores_path}") from None


def _tasks(cfg: ReasoningBenchConfig) -> tuple[list[dict], dict[str, Any]]:
    """The tasks, and where they come from (``version``, ``split``; a task file's name and checksum too:
    ``reasoning_tasks.read_task_file``, whose refusal is a ``ConfigError``)."""
    if cfg.tasks_file is not None:
        # given: other than the default (a default given is not told from one unsaid)
        version, split = (None if g == d else g for g, d in zip((cfg.version, cfg.split), _DEFAULT_SPLIT))
        return read_task_file(cfg.tasks_file, version, split)
    try:  # (a cached split that is not the split's is generated again: load_split)
        tasks = load_split(cfg.version, cfg.split, cache=cfg.cache, progress=cfg.progress, generate=generate)
    except ValueError as error:  # a shipped file damaged, a generator that no longer gives the pinned tasks
        raise SplitRefused(str(error)) from None
    return tasks, {"version": cfg.version, "split": cfg.split}


def _scored_what(settings: dict[str, Any]) -> str:
    """The tasks scored, in words: ``v2/dev``, or ``v2 tasks of mine.jsonl.gz``."""
    if "tasks_file" in settings:
        return f"{settings['version']} tasks of {settings['tasks_file']}"
    return f"{settings['version']}/{settings['split']}"


def _score(
    cfg: ReasoningBenchConfig, tasks: list[dict], settings: dict, scores_path: Path, done: dict[str, Any]
) -> None:
    """Score the tasks not in ``done`` (filled with those scored before, ``scored_before``), each line
    appended to ``scores_path`` as it comes and put in ``done``."""
    done.update(scored_before(scores_path, settings, cfg.resume, {t["id"]: t for t in tasks}))
    todo = [t for t in tasks if t["id"] not in done]
    if done:
        print(
            f"resuming: {len(tasks) - len(todo)} of {len(tasks)} tasks already scored in {scores_path.parent}"
        )
    solve = load_solver(cfg.solver, cfg.llm if cfg.solver == "llm" else None) if todo else None
    if not done:  # the header written whole: a stop (a full disk) leaves none, not a cut one
        with writing(scores_path):
            write_whole(scores_path, json.dumps({"settings": settings}) + "\n")
    try:
        for task in tqdm(todo, desc=f"{cfg.solver} on {_scored_what(settings)}", disable=not cfg.progress):
            row = _score_one(solve, task, llm=cfg.solver == "llm")
            line, row = json_text(row), json.loads(json.dumps(row))  # (as a resumed run reads it back)
            _append(scores_path, line)
            done[task["id"]] = row  # at once: the tasks a stop says are kept are the file's
    finally:
        if solve is not None and hasattr(solve, "close"):
            solve.close()


def _report(
    cfg: ReasoningBenchConfig, tasks: list[dict], done: dict[str, Any], out: Path, settings: dict[str, Any]
) -> dict[str, Any]:
    """The report of the scored tasks (``done``), written into ``out``, and the leaderboard's line; both
    name what scored them (``_provenance``: of the scores file's ``settings``)."""
    rows = [done[t["id"]] for t in tasks]
    scores = [r["scored"] for r in rows]
    seconds = sum(r["seconds"] for r in rows)
    summary = summarize(
        scores,
        [t["tier"] for t in tasks],
        games=[task_game(t) for t in tasks],
        resamples=cfg.resamples,
        seed=cfg.seed,
    )
    report = {
        "solver": cfg.solver,
        **({"model": cfg.llm.get("model")} if cfg.solver == "llm" else {}),
        "version": settings["version"],
        "split": settings["split"],
        "limit": cfg.limit,
        "seed": cfg.seed,
        "tasks": len(tasks),
        **_provenance(settings),
        "seconds": round(seconds, 2),
        "date": utc_now(),
        "summary": summary,
    }
    if any(r["counts"] for r in rows):
        keys = dict.fromkeys(k for r in rows for k in r["counts"])
        report["solver_counts"] = {k: sum(r["counts"].get(k, 0) for r in rows) for k in keys}
    if any(r["transcripts"] for r in rows):
        lines = [json_text(transcript) + "\n" for r in rows for transcript in r["transcripts"]]
        _write(out / "transcripts.jsonl", "".join(lines))
    _write(out / "report.json", json.dumps(_finite(report), indent=1, allow_nan=False))
    table = format_table(summary)
    _write(
        out / "report.md",
        f"# {cfg.solver} on {_scored_what(settings)} ({len(tasks)} tasks{_ofgames_of(summary)})\n\n{table}\n\n"
        f"{calibration_line(summary['calibration'])}; "
        f"tasks with problems: {summary['problems']['tasks_with_problems']}\n"
        + (f"\nSolver counts: {report['solver_counts']}\n" if "solver_counts" in report else ""),
    )
    title = _solver_label(cfg).replace("$", r"\$")  # (matplotlib reads $...$ as mathematics)
    plot_tiers(summary, title, out / "tiers.png")
    plot_calibration(summary, title, out / "calibration.png")
    board = Path(cfg.leaderboard)
    named = ("solver", "model", "version", "split", "limit", "seed", "tasks", *_provenance(settings))
    line = {k: report[k] for k in named if k in report}
    games = summary["overall"].get("games")
    line.update({"games": games, "seconds": report["seconds"], "date": report["date"]})
    line.update({"intervals": _intervals(summary)} | {c: summary["overall"][c] for c in COLUMNS})
    with writing(board):
        board.parent.mkdir(parents=True, exist_ok=True)
        _append(board, json.dumps(_finite(line), allow_nan=False))
    of_games = "" if games is None else f" from {games} games"
    print(
        f"{cfg.solver} on {_scored_what(settings)}: {len(tasks)} tasks{of_games} in {seconds:.1f} s; "
        + _intervals(summary)
    )
    print(table)
    print(f"{calibration_line(summary['calibration'])}; problems: {summary['problems']}")
    if "solver_counts" in report:
        print(f"solver counts: {report['solver_counts']}")
    print(f"report: {out}")
    return report


def _provenance(settings: dict[str, Any]) -> dict[str, Any]:
    """What a report and a leaderboard line copy of the scores file's ``settings`` (``_run_settings``), so
    that results of other tasks or scoring are told apart: ``tasks_sha256`` (the checksum of the very
    tasks: a split pinned again is new), a task file's ``tasks_file`` and ``tasks_file_sha256``,
    ``score_version``, ``files`` (the sha256 of the user's solver file or prompt templates, where the
    settings have them) and ``cluedo_env_version`` (the package's)."""
    kept = {k: settings[k] for k in ("tasks_file", "tasks_file_sha256", "files") if k in settings}
    return {"tasks_sha256": settings["tasks"], "score_version": settings["score_version"], **kept,
            "cluedo_env_version": __version__}  # fmt: skip


def _write(path: Path, text: str) -> None:
    """``text`` written whole to ``path`` (a temporary file renamed: one that cannot be written leaves the
    earlier run's); ``NotWritten`` where it cannot be written."""
    with writing(path):
        write_whole(path, text)


def _append(path: Path, line: str) -> None:
    """``line`` and a newline appended to ``path``, the file closed at once: a run stopped later keeps it
    whole; ``NotWritten`` where it cannot be written."""
    with writing(path), path.open("a", encoding="utf-8") as file:
        file.write(line + "\n")


def outside_settings(solver: object, llm: dict[str, Any]) -> list[str]:
    """The keys of a run's settings that reach the network, the file system or code: the solver when
    it does (``llm``, an import path), the llm solver's options that name a place, and the paths."""
    keys = ["cache", "output_dir", "leaderboard", "tasks_file"]
    if solver == "llm":
        keys += ["solver", *(f"llm.{key}" for key in OUTSIDE_OPTIONS["llm"][1] if key in llm)]
    elif not isinstance(solver, str) or ":" in solver:
        keys.append("solver")
    return keys


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="reasoning_bench", version_base=None)
def main(cfg: ReasoningBenchConfig) -> None:
    """Entry point: ``python -m experiments.reasoning_bench solver=... split=...``."""
    quiet_request_logs()
    warnings.formatwarning = lambda message, category, *args, **kwargs: f"warning: {message}\n"  # one line
    settings, _ = command_settings(
        cfg,
        settings=lambda given: outside_settings(given.solver, given.llm),
        check=ReasoningBenchConfig.validate,
    )
    try:
        with exit_on_config_error():  # (a scores file of other settings where this run's would go)
            run(settings)
    except (ChatUnreachable, FolderRefused) as error:  # a wrong URL, a server not started, a busy folder
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except SplitRefused as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt as stop:  # Ctrl-C: one line, what is kept and the command that goes on
        command = hydra_command("experiments.reasoning_bench", "reasoning_bench", leave_out=["resume"])
        if isinstance(stop, Interrupted):
            print(f"\ninterrupted: {stop}; to resume: {command}")
        else:  # (loading or generating the split: the scores of earlier runs are kept)
            print(f"\ninterrupted while the split was loaded, before scoring; to resume: {command}")
        sys.exit(INTERRUPTED)
    except NotWritten as error:  # a full disk, a folder made read-only: the tasks scored are kept
        print(f"error: {error}; {KEPT}", file=sys.stderr)
        sys.exit(1)
    # the endpoint failed for good, or the llm solver did: the tasks scored are kept, a resume goes on
    except (ChatError, SolverFailed) as error:
        print(
            f"error: {error}\n{KEPT}",
            file=sys.stderr,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
