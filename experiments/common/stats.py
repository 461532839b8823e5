"""Statistics of tournament games: win shares with intervals, turns, accusations, ratings, head to head.

    python -m experiments.common.stats results/tournament/<run>                 # report of a run again
    python -m experiments.common.stats results/sweep/*/ --output results/pooled  # several runs pooled

The ``cluedo-stats`` command: the report of one or more tournament folders (their ``games.jsonl``,
as written by ``experiments.tournament``), written again or pooled into one, e.g. of a sweep over
player counts (runs whose ``config.yaml`` files give one player count other rules, or one label
another agent or options, are refused unless ``--mixed`` says to pool them anyway). A game two runs both
played (the same rules, agents in the same seats, deal seed and rotation, as their ``config.yaml`` files say)
counts once whatever their config hashes, and two different results for it are refused, naming the runs
(``experiments.common.summary.unique_games``). A pooled report names the code that played each run's
games (``meta.run_revisions``: each run's code versions, as a run's report lists its own in
``meta.revisions``, from its ``run.json``; null where it has none of its games), and says in a note
(printed, and in ``report.md``: ``meta.code_note``) where other code played the runs or a run's code is
unknown (``experiments.common.tournament_code``). Each record is
checked as the file is read (``experiments.common.games_file.load_games``:
types, ranges, the seats of the line-up, ``winner`` against ``winner_seat``, the
accusations against the rules); a malformed one is not counted, and the report says
how many were rejected, from which file, line and field.

The report goes into the only run's folder, or ``--output``: a new or empty folder, one of the runs, or
the folder of an earlier report (its ``stats.json``); a file, an empty path, or a folder of other files
(another tournament's, a training run's) is refused before any game is read, in one line. A run's report
written again keeps what its ``stats.json`` says of the run (its settings, code and timing); where that is
not the run's own report (a pooled report written into its folder, or none), it is rebuilt from the run's
own files (``run.json``, ``config.yaml`` and its games), and a pooled report's runs and code are never
taken for the run's.

What is computed is ``experiments.common.summary`` (its docstring says what each statistic means,
with the intervals of ``cluedo_env.intervals`` and the ratings of
``experiments.common.ratings``); the files written are ``experiments.common.report``'s.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from cluedo_env import __version__
from cluedo_env.console import replace_unencodable
from cluedo_env.core.editions import control_character
from experiments.common.folder_lock import links_in, links_text
from experiments.common.games_file import GAMES_FILE, load_games, no_games_file, rejection_note
from experiments.common.labels import MARKDOWN
from experiments.common.output_paths import names_text, others_in, path_argument
from experiments.common.report import REPORT_FILES, write_report
from experiments.common.report_tables import format_leaderboard
from experiments.common.run_config import run_agents, run_lineups, run_plan, run_rules
from experiments.common.summary import unique_games
from experiments.common.tournament_code import code_versions, run_code, run_record, runs_code_note

__all__ = ["SUBSET_META", "main"]

# What a run's report says of the subset of games.jsonl it counted (games_per_lineup below what the file
# holds: its ``note``); the report of every game of the file leaves it out.
SUBSET_META = ("note", "deals_per_lineup")


def main(argv: Sequence[str] | None = None) -> None:
    """Report on the games of one or more tournament folders (pooled, e.g. a sweep over player counts)."""
    replace_unencodable()
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    parser.add_argument("runs", nargs="+", type=Path, help="tournament output folders (holding games.jsonl)")
    parser.add_argument("--output", type=path_argument("a folder for the report"),
                        help="folder for the report: new, empty, one of the runs or an earlier report's "
                        "(default: the only run's folder)")  # fmt: skip
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--mixed", action="store_true", help="pool runs even where one player count's rules, or "
                        "the agent behind one label, differ between them (the report says how)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.output is None and len(args.runs) > 1:
        parser.error("--output is needed with several runs")
    for run in args.runs:  # every folder checked before anything is written
        if (why := no_games_file(run)) is not None:
            parser.exit(2, f"error: {why}\n")
    if args.output is not None and (why := _output_refusal(args.output, args.runs)) is not None:
        parser.exit(2, f"error: {why}\n")
    mixed = _mixed(args.runs)
    if mixed and not args.mixed:
        parser.exit(
            2, f"error: {mixed}: their games would be counted as one. Pool them anyway with --mixed\n"
        )
    found, rejected, codes = [], [], {}
    for run in args.runs:
        games, bad = load_games(run / "games.jsonl")  # malformed records are rejected there, with the reason
        found += [(run, game) for game in games]
        codes[str(run)] = run_code(run, games)  # the code of each session of its run.json, or None
        if bad:
            rejected.append(rejection_note(run / "games.jsonl", bad))
    try:  # a game two runs played counts once, whatever their config hashes
        records = unique_games([game for _, game in found], origins=_origins(found))
    except ValueError as error:  # two runs with different results for one game
        parser.exit(2, f"error: {error}\n")
    out = args.output or args.runs[0]
    if out.is_dir() and (links := links_in(out)):  # a folder from elsewhere: its links would take the report
        parser.exit(2, f"error: {out} holds symbolic links ({links_text(links)}); the report "
                       "would be written through them. Remove them, or give --output another folder\n")  # fmt: skip
    meta = {"runs": [str(r) for r in args.runs]}
    if len(args.runs) > 1:  # each run's code, as a run's report lists its own (meta.revisions)
        meta["run_revisions"] = codes
        if (said := runs_code_note(list(codes), list(codes.values()))) is not None:
            meta["code_note"] = (
                f"{said}. A game's result can depend on the code, and this report counts every run's games "
                "together"
            )
    if len(args.runs) == 1:  # a run's report again: what the run recorded, or rebuilt from its own files
        meta = _run_meta(args.runs[0], [game for _, game in found]) or meta
    meta |= {"rejected": rejected} if rejected else {}
    meta |= {"note": f"pooled with --mixed: {mixed}"} if mixed else {}
    summary = write_report(records, out, meta=meta, plots=not args.no_plots)
    print(format_leaderboard(summary))
    if "code_note" in meta:
        print(f"\nnote: {meta['code_note']}")
    for note in rejected:
        print(f"\n{note}")
    print(f"\nreport: {summary['paths']['report']}")


def _output_refusal(out: Path, runs: Sequence[Path]) -> str | None:
    """Why ``--output`` cannot take the report (None: it can): a file; a folder of other files than a
    report's (``REPORT_FILES``) that is not one of the runs nor an earlier report's (its ``stats.json`` of
    a report, and no ``games.jsonl``): the report would be written over the files of the same name."""
    if out.exists() and not out.is_dir():
        return f"--output {out} is a file: give a folder for the report (made if missing)"
    if not out.is_dir() or any(run.is_dir() and out.samefile(run) for run in runs):
        return None
    report = _recorded_meta(out / "stats.json", quiet=True) is not None and not (out / GAMES_FILE).exists()
    others = [] if report else others_in(out, REPORT_FILES)
    if others:
        return (
            f"--output {out} is not empty and not a folder of the runs or of an earlier report: it holds "
            f"{names_text(others)}. The report's files would be written over any of the same name: give a new "
            "or empty folder"
        )
    return None


def _mixed(runs: Sequence[Path]) -> str | None:
    """How the runs' ``config.yaml`` files disagree on what their games are, if they do: the rules of one
    player count, or the agent (name, options) behind one label. Other seeds and other player counts
    pool; a run without a readable ``config.yaml`` is not compared."""
    rules: dict[object, tuple[Path, dict]] = {}
    agents: dict[str, tuple[Path, dict]] = {}
    for run in runs:
        game, entrants = run_rules(run), run_agents(run)
        if game is not None:
            players = game.get("num_players")
            first, seen = rules.setdefault(players, (run, game))
            differ = sorted((k for k in seen.keys() | game.keys() if seen.get(k) != game.get(k)), key=str)
            if differ:
                k = differ[0]
                return (f"{first} and {run} play {players} players under other rules (game.{k}: "
                        f"{seen.get(k)!r} and {game.get(k)!r})")  # fmt: skip
        for label, agent in (entrants or {}).items():
            first, seen = agents.setdefault(label, (run, agent))
            if seen != agent:
                return f"{label!r} is {seen} in {first} and {agent} in {run}"
    return None


def _origins(found: Sequence[tuple[Path, dict]]) -> list[tuple[str, str]]:
    """For each ``(run, game)``: the run, and the rules and the agents of the game's seats as its run's
    ``config.yaml`` gives them (a JSON text), for ``unique_games`` to know one game in two runs whose
    config hashes differ. A config hash stands for the same rules and agents in every run (the first
    run with a readable ``config.yaml`` and no other hash in its games says them); where none says, or
    a seat's label is not in it, the game's config hash stands for them."""
    hashes: dict[Path, set[str]] = defaultdict(set)
    for run, game in found:
        hashes[run].add(game["config"])
    said: dict[str, tuple[dict, dict]] = {}
    for run, held in hashes.items():
        rules, agents = run_rules(run), run_agents(run)
        if len(held) == 1 and rules is not None and agents is not None:
            said.setdefault(next(iter(held)), (rules, agents))
        elif rules is None or agents is None:
            warnings.warn(
                f"{run / 'config.yaml'} is missing or does not say the run's rules and line-up: its games are told "
                "from other runs' by their config hash only, so a game another run also played under another hash "
                "counts twice",
                RuntimeWarning,
                stacklevel=2,
            )
    identities: dict[tuple, str] = {}
    for _, game in found:
        key = (game["config"], tuple(game["seats"]))
        if key not in identities:
            rules, agents = said.get(game["config"], (None, {}))
            seated = [agents.get(label) for label in game["seats"]]
            known = rules is not None and None not in seated
            identities[key] = (
                json.dumps([rules, seated], sort_keys=True, default=str) if known else game["config"]
            )
    return [(str(run), identities[game["config"], tuple(game["seats"])]) for run, game in found]


def _run_meta(run: Path, games: list[dict]) -> dict | None:
    """What a run's report says of the run (``meta``), for its report written again: its ``stats.json``'s,
    but for what it said of a subset of the games (``SUBSET_META``: this report counts them all); where that
    is not the run's own report (none, or a pooled report written into the run's folder: it names runs),
    rebuilt from the run's own files: the config hash and code of its ``run.json`` (the last session's
    code, games played and time), the rules, agents, line-up mode, seed and planned line-ups of its
    ``config.yaml`` (those of its games where it does not say them). Either way the code that played each
    game this report counts (``revisions``) is the ``run.json``'s where it has one of these games. None where
    the folder has neither its own report nor a ``run.json`` of its games."""
    recorded, info = _recorded_meta(run / "stats.json"), run_record(run, games)
    revisions = {"revisions": code_versions(info["sessions"], games)} if info is not None else {}
    if recorded is not None and "runs" not in recorded:
        subset = SUBSET_META if "note" in recorded else ()  # it left games of the file out, this does not
        meta = {k: v for k, v in recorded.items() if k not in ("rejected", *subset)}
        return _shown(meta | revisions, f"{run}'s stats.json and run.json")
    if info is None:
        return None
    sessions, rules, agents = info["sessions"], run_rules(run), run_agents(run)
    last = sessions[-1] if sessions else {}  # the session that wrote the run's report
    said = {"git": "git", "version": "version", "games_played_now": "games_played", "elapsed_s": "elapsed_s"}
    meta = {"config_hash": info["config_hash"]} | revisions
    meta |= {key: last[field] for key, field in said.items() if field in last}
    meta |= {"game": rules} if rules is not None else {}
    meta |= {"agents": agents} if agents is not None else {}
    planned = run_lineups(run)  # in the plan's order (games.jsonl's is the order parallel workers finished)
    meta |= run_plan(run) | {"lineups": planned or list(dict.fromkeys(game["lineup"] for game in games))}
    return _shown(meta, f"{run}'s run.json and config.yaml")


def _recorded_meta(path: Path, quiet: bool = False) -> dict | None:
    """The ``meta`` of a run's earlier ``stats.json`` (how it was run: shown in the report), if it has one
    (a warning where it has none; not with ``quiet``)."""
    if not path.is_file():
        return None
    try:
        meta = json.loads(path.read_bytes()).get("meta")
    except (OSError, ValueError, AttributeError, RecursionError):
        meta = None
    if not isinstance(meta, dict):
        if not quiet:
            warnings.warn(f"{path}: not a report of experiments.common.stats (no meta object); its run details "
                          "are left out", RuntimeWarning, stacklevel=2)  # fmt: skip
        return None
    return _shown(meta, str(path))


def _shown(meta: dict, source: str) -> dict | None:
    """``meta``, read from ``source`` (files from elsewhere: their details reach report.md as they are),
    or None with a warning where a string of it would not show as it is (``_unprintable``)."""
    if (odd := _unprintable(meta)) is not None:
        warnings.warn(f"{source}: its run details hold {odd[:80]!r}, which report.md would not show as it is "
                      f"(a control character or one of {MARKDOWN!r}); they are left out", RuntimeWarning,
                      stacklevel=3)  # fmt: skip
        return None
    return meta


def _unprintable(value: object) -> str | None:
    """The first string of ``value`` (a JSON value: its keys too) that holds a control character
    (``cluedo_env.core.editions.control_character``) or one of ``MARKDOWN``, or None."""
    if isinstance(value, str):
        return value if control_character(value) is not None or any(c in value for c in MARKDOWN) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if (odd := _unprintable(key) or _unprintable(item)) is not None:
            return odd
    return None


if __name__ == "__main__":
    main()
