"""A tournament run into its output folder: lock it, resume its games, play the missing ones, report.

Each game is appended to ``<output_dir>/games.jsonl`` as its chunk finishes (one JSON object per
line, flushed and synced), so a killed run loses at most the chunks in flight; a run into the same
folder again plays only the missing games (``resume``), refusing games of another config. Lines
that are not game records are set aside (``experiments.common.games_file.read_games``) and their
games played again. Beside ``games.jsonl``: ``config.yaml``, ``run.json`` (config hash, the code's
git revision, each session with its start and end in UTC and the number of games the folder held when
it started) and the report of ``experiments.common.report``, which names each code revision that played
the games with its number of games (``experiments.common.tournament_code``); a run resumed under other
code than earlier sessions says so.
A results file that cannot be written (a full disk, a folder made read-only) stops the run with
``NotWritten`` (``experiments.common.write_failures``), the games written before kept.

The folder is new, empty, a tournament's (it holds ``games.jsonl``, or a ``run.json`` of a tournament:
the run resumes it), or one holding only files a tournament writes (``TOURNAMENT_FILES``); any other
is refused before anything is written there (``refuse_others_folder``): the tournament would write its
``config.yaml``, ``report.md`` and other files over another command's.
"""

from __future__ import annotations

import contextlib
import json
import platform
import socket
import sys
import time
import warnings
from dataclasses import asdict
from pathlib import Path

from omegaconf import OmegaConf
from tqdm import tqdm

from cluedo_env import __version__
from cluedo_env.whole_files import write_whole
from experiments.common import llm_report
from experiments.common.backends import run_local, run_ray
from experiments.common.chunks import Job, lineup_id, lineups, plan_chunks
from experiments.common.code_revision import code_name, code_of, git_revision, same_code, utc_now
from experiments.common.extras import WorkerLost
from experiments.common.folder_lock import LOCK_FILE, FolderOfOthers, lock_folder
from experiments.common.games_file import GAMES_FILE, REJECTED_SUFFIX, GameWriter, read_games, record_key
from experiments.common.output_paths import empty_folder, names_text, others_in
from experiments.common.progress_clock import ticking
from experiments.common.provisional import ProvisionalLeaderboard
from experiments.common.report import REPORT_FILES, write_report
from experiments.common.settings import TournamentConfig, config_hash
from experiments.common.tournament_code import RUN_FILE, code_versions
from experiments.common.url_credentials import hide_url_credentials
from experiments.common.value_checks import ConfigError
from experiments.common.write_failures import writing

__all__ = [
    "TOURNAMENT_FILES",
    "refuse_others_folder",
    "refuse_regrown_block",
    "run_tournament",
    "subset_note",
]

# The files a tournament writes into its folder, and no others (the report's are REPORT_FILES).
TOURNAMENT_FILES = (
    GAMES_FILE,
    GAMES_FILE + REJECTED_SUFFIX,
    llm_report.TRANSCRIPTS_FILE,
    "llm.json",  # (llm_report.write's)
    "config.yaml",
    RUN_FILE,
    RUN_FILE + ".unreadable",
    LOCK_FILE,
    *REPORT_FILES,
)


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
        The statistics (``experiments.common.summary.summarise``) with ``"paths"`` of the files written.

    Raises:
        ConfigError: ``output_dir`` is empty (the current folder).
        FolderOfOthers: ``output_dir`` holds files a tournament does not write (``refuse_others_folder``).
        FolderInUse: Another run holds ``output_dir``.
        WorkerLost: A worker process died; the games finished are kept and the message says how to resume.
        NotWritten: A results file could not be written (a full disk, a folder made read-only); the games
            written before are kept.
    """
    if not str(output_dir).strip():
        raise ConfigError(empty_folder("output_dir"))
    out = Path(output_dir)
    refuse_others_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    if resume_command is None:
        resume_command = (
            f"python -m experiments.tournament output_dir={out} (with this run's other overrides)"
        )
    with lock_folder(out):
        return _run_locked(settings, out, resolved_config, resume_command)


def refuse_others_folder(out: Path) -> None:
    """Refuse an output folder a tournament did not write (``FolderOfOthers``, one line naming what it
    holds): it must be new, empty, a tournament's (a ``games.jsonl`` file, or a ``run.json`` with a config
    hash), or hold only ``TOURNAMENT_FILES``. A ``games.jsonl`` that is no file is refused too."""
    games = out / GAMES_FILE
    if games.exists() and not games.is_file():
        raise FolderOfOthers(
            f"{games} is not a file: a tournament appends its games to a file of that name. "
            "Move it away, or choose another output_dir"
        )
    if games.is_file() or _read_run_info(out / RUN_FILE, set_aside=False) is not None:
        return
    others = others_in(out, TOURNAMENT_FILES)
    if others:
        raise FolderOfOthers(
            f"{out} is not empty and not a tournament's folder (no {GAMES_FILE}, no {RUN_FILE} of one): it "
            f"holds {names_text(others)}. A tournament writes config.yaml, report.md and other files there, "
            "over any of the same name: choose a new or empty output_dir"
        )


def short_blocks(sessions: list[dict], deals: set[int], size: int) -> list[tuple[int, int]]:
    """The blocks of deals ``(first, end)`` a folder's sessions played shorter than ``batch_size``, and
    whose games it may hold.

    A session records the short block it had to play (``short_block``, None for none). Sessions of
    2026-12-05 recorded only their plan (``deals_per_lineup``): its short block counts where the
    session had games to play. Earlier sessions recorded neither, and a folder whose first recorded session
    found games already (its run.json lost or remade) holds games of unrecorded ones: one past the folder's
    last deal is taken for their plan. A later session planning past a short block's end was let play because
    the folder held none of that block's deals, and it plays that block at another size: the short
    block is then no longer the folder's.
    """
    blocks: list[tuple[int, int]] = []
    unrecorded = not sessions or sessions[0].get("games_found", 0) > 0
    if (unrecorded or any("deals_per_lineup" not in s for s in sessions)) and deals:
        end = 1 + max(deals)
        if end % size:
            blocks.append((end - end % size, end))
    for session in sessions:
        if "deals_per_lineup" not in session:
            continue
        planned = int(session["deals_per_lineup"])
        blocks = [(first, end) for first, end in blocks if planned <= end]
        if "short_block" in session:
            if session["short_block"] is not None:
                first, end = session["short_block"]
                blocks.append((int(first), int(end)))
        elif planned % size and session.get("games_to_play", 1):
            blocks.append((planned - planned % size, planned))
    return blocks


def refuse_regrown_block(
    settings: TournamentConfig, existing: list[dict], sessions: list[dict], games_path: Path
) -> None:
    """Refuse more deals than a folder holds where a block of its deals was played short.

    Deals are played in blocks of ``batch_size`` (``plan_chunks``), the last one shorter where the
    deals do not fill it, and an agent draws its randomness for a whole block: a short block's games
    kept beside the rest of its block played at full size would not be the games of a run of that
    size from the start. ``sessions``: the folder's earlier sessions (``run.json``, ``short_blocks``).
    """
    size, deals = settings.batch_size, {int(r["deal"]) for r in existing}
    for first, end in short_blocks(sessions, deals, size):
        if settings.deals_per_lineup > end and any(first <= d < end for d in deals):
            raise ConfigError(
                f"{games_path} holds deals {first} to {end - 1} played as a block of {end - first}, "
                f"shorter than batch_size={size}; games_per_lineup={settings.games_per_lineup} would "
                "play the rest of that block at its full size, and an agent draws its randomness for a "
                "whole block, so the folder's games would not be those of a run of that size. Ask for at "
                f"most {end * settings.game.num_players} games per line-up here, or play the larger run "
                "into another output_dir (a folder whose deals per line-up are a multiple of batch_size "
                "takes more games)"
            )


def _run_locked(
    settings: TournamentConfig, out: Path, resolved_config: str | None, resume_command: str
) -> dict:
    digest = config_hash(settings)
    games_path = out / GAMES_FILE
    if not settings.resume:  # start over: the games, and what was set aside or kept of them
        for path in (games_path, out / (GAMES_FILE + REJECTED_SUFFIX), out / llm_report.TRANSCRIPTS_FILE):
            path.unlink(missing_ok=True)
    existing = read_games(games_path, repair=True)
    foreign = sorted({r.get("config") for r in existing} - {digest}, key=str)
    if foreign:
        raise ConfigError(
            f"{games_path} holds games of another configuration (hash {foreign}, this one {digest}); "
            "use another output_dir, or resume=false to start over"
        )
    run_info = _read_run_info(out / RUN_FILE)
    if not existing or run_info is None or run_info.get("config_hash") != digest:
        run_info = {"config_hash": digest, "sessions": []}
    refuse_regrown_block(settings, existing, run_info["sessions"], games_path)
    done = {record_key(r) for r in existing}
    chunks = plan_chunks(settings)
    todo = [c for c in chunks if not all(k in done for k in c.game_keys())]
    missing = sum(sum(k not in done for k in c.game_keys()) for c in todo)
    planned = {k for c in chunks for k in c.game_keys()}
    beyond = [r for r in existing if record_key(r) not in planned]
    if existing:
        print(
            f"resuming: {len(done & planned)} of the {len(planned)} games found in {games_path}; "
            f"{missing} to play"
        )
    if beyond:
        print(f"note: {subset_note(len(beyond), len(existing), settings, existing)}")
    code = code_of(git_revision(), __version__)
    other = _other_code_note(code_versions(run_info["sessions"], existing), code, missing)
    if other:
        print(f"warning: {games_path} {other}")

    yaml = (
        resolved_config if resolved_config is not None else OmegaConf.to_yaml(OmegaConf.structured(settings))
    )
    with writing(out / "config.yaml"):
        (out / "config.yaml").write_text(hide_url_credentials(yaml), encoding="utf-8")
    session = {
        "started": utc_now(),
        "version": __version__,
        "git": {"revision": code["revision"], "dirty": code["dirty"]},
        "backend": settings.backend,
        "workers": settings.workers,
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "command": [hide_url_credentials(arg) for arg in sys.argv],
        "games_found": len(existing),
        "games_to_play": missing,
        "deals_per_lineup": settings.deals_per_lineup,
        "short_block": next(
            ([c.first_deal, c.first_deal + c.deals] for c in todo if c.deals < settings.batch_size), None
        ),
    }
    run_info["sessions"].append(session)
    run_info["git"] = session["git"]
    _write_json(out / RUN_FILE, run_info)

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
        board = ProvisionalLeaderboard(chunks)  # an early look, line by line above the bar
        board.add(existing)
        clock = ticking(bar) if settings.progress else contextlib.nullcontext()
        try:
            with clock:
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
                    provisional = board.add(new)
                    if provisional and settings.progress:
                        bar.write(provisional)
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
    session.update(games_played=played, elapsed_s=round(elapsed, 3), finished=utc_now())
    _write_json(out / RUN_FILE, run_info)

    written = read_games(games_path)
    games = [r for r in written if record_key(r) in planned]
    meta = {
        "config_hash": digest,
        "git": session["git"],
        "revisions": code_versions(run_info["sessions"], written, planned),
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
    with writing(out):  # the report's files
        summary = write_report(games, out, meta=meta, plots=settings.plots)
        llm = llm_report.summarise(games)
        if llm:  # invalid-reply and fallback rates, tokens per game
            summary["llm"] = llm
            summary["paths"].update(llm_report.write(llm, out))
    return summary


def _other_code_note(earlier: list[dict], code: dict, to_play: int) -> str | None:
    """What a resumed run with games to play says where games of its folder were played by code other
    than ``code`` (one with none to play adds no games: its report lists the revisions)."""
    if not to_play or all(v["revision"] == "unrecorded" or same_code(v) == same_code(code) for v in earlier):
        return None
    played = "; ".join(f"{v['games']} game{'s' * (v['games'] != 1)} by {code_name(v)}" for v in earlier)
    return (
        f"holds games played by other code than this run's: {played}; this run plays {to_play} by "
        f"{code_name(code)}. A game's result can depend on the code, so the report lists each revision "
        "with its number of games; resume=false starts over under this code alone"
    )


def subset_note(beyond: int, found: int, settings: TournamentConfig, games: list[dict]) -> str:
    """What a report leaves out when ``games.jsonl`` holds more deals than ``games_per_lineup`` plans."""
    deals = max(r["deal"] for r in games) + 1
    return (
        f"{beyond} of the {found} games in games.jsonl are beyond games_per_lineup={settings.games_per_lineup} "
        f"and left out of this report; games_per_lineup={deals * settings.game.num_players} reports them all"
    )


def _read_run_info(path: Path, set_aside: bool = True) -> dict | None:
    """The folder's ``run.json``, or None where it has none or it cannot be read as one: then it is set
    aside (``run.json.unreadable``, with a warning; not with ``set_aside=False``) and the folder is taken
    as one whose sessions went unrecorded (``short_blocks`` allows for them)."""
    if not path.is_file():
        return None
    try:
        info = json.loads(path.read_bytes())
        problem = _run_info_problem(info)
    except (ValueError, RecursionError) as error:  # not JSON (UnicodeDecodeError is a ValueError)
        problem = f"not JSON ({error})"
    if problem is None:
        return info
    if not set_aside:
        return None
    aside = path.with_name(path.name + ".unreadable")
    path.replace(aside)
    warnings.warn(f"{path}: {problem}; moved to {aside.name}, its sessions taken as unrecorded",
                  RuntimeWarning, stacklevel=3)  # fmt: skip
    return None


def _run_info_problem(info: object) -> str | None:
    """Why ``info`` is not a ``run.json`` this code reads, or None."""
    if not isinstance(info, dict) or not isinstance(info.get("config_hash"), str):
        return "not an object with a config_hash"
    sessions = info.get("sessions")
    if not isinstance(sessions, list) or not all(isinstance(s, dict) for s in sessions):
        return "its sessions are not a list of objects"
    for number, session in enumerate(sessions):
        counts = [session.get(key, 0) for key in ("games_found", "games_to_play", "deals_per_lineup")]
        block = session.get("short_block")
        if not all(type(n) is int and n >= 0 for n in counts) or not (
            block is None
            or (isinstance(block, list) and len(block) == 2 and all(type(n) is int for n in block))
        ):
            return f"session {number} holds counts or a short_block that are not whole numbers"
    return None


def _write_json(path: Path, value: dict) -> None:
    with writing(path):
        write_whole(path, json.dumps(value, indent=2) + "\n")
