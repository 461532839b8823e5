"""Statistics of tournament games: win shares with intervals, turns, accusations, ratings, head to head.

    python -m experiments.common.stats results/tournament/<run>                 # report of a run again
    python -m experiments.common.stats results/sweep/*/ --output results/pooled  # several runs pooled

The ``cluedo-stats`` command: the report of one or more tournament folders (their ``games.jsonl``,
as written by ``experiments.tournament``), written again or pooled into one, e.g. of a sweep over
player counts (runs whose ``config.yaml`` files give one player count other rules, or one label
another agent or options, are refused unless ``--mixed`` says to pool them anyway). Each record is
checked as the file is read (``experiments.common.games_file.load_games``:
types, ranges, the seats of the line-up, ``winner`` against ``winner_seat``, the
accusations against the rules); a malformed one is not counted, and the report says
how many were rejected, from which file, line and field.

What is computed is ``experiments.common.summary`` (its docstring says what each statistic means,
with the intervals of ``cluedo_env.intervals`` and the ratings of
``experiments.common.ratings``); the files written are ``experiments.common.report``'s.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from cluedo_env import __version__
from experiments.common.folder_lock import links_in, links_text
from experiments.common.games_file import load_games, no_games_file, rejection_note
from experiments.common.report import write_report
from experiments.common.report_tables import format_leaderboard
from experiments.common.run_config import run_agents, run_rules
from experiments.common.summary import unique_games

__all__ = ["SUBSET_META", "main"]

# What a run's report says of the subset of games.jsonl it counted (games_per_lineup below what the file
# holds: its ``note``); the report of every game of the file leaves it out.
SUBSET_META = ("note", "deals_per_lineup")


def main(argv: Sequence[str] | None = None) -> None:
    """Report on the games of one or more tournament folders (pooled, e.g. a sweep over player counts)."""
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    parser.add_argument("runs", nargs="+", type=Path, help="tournament output folders (holding games.jsonl)")
    parser.add_argument("--output", type=Path, help="folder for the report (default: the only run's folder)")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--mixed", action="store_true", help="pool runs even where one player count's rules, or "
                        "the agent behind one label, differ between them (the report says how)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.output is None and len(args.runs) > 1:
        parser.error("--output is needed with several runs")
    for run in args.runs:  # every folder checked before anything is written
        if (why := no_games_file(run)) is not None:
            parser.exit(2, f"error: {why}\n")
    mixed = _mixed(args.runs)
    if mixed and not args.mixed:
        parser.exit(
            2, f"error: {mixed}: their games would be counted as one. Pool them anyway with --mixed\n"
        )
    found, rejected = [], []
    for run in args.runs:
        games, bad = load_games(run / "games.jsonl")  # malformed records are rejected there, with the reason
        found += games
        if bad:
            rejected.append(rejection_note(run / "games.jsonl", bad))
    try:
        records = unique_games(found)
    except ValueError as error:  # two runs with different results for one game
        parser.exit(2, f"error: {error}\n")
    out = args.output or args.runs[0]
    if out.is_dir() and (links := links_in(out)):  # a folder from elsewhere: its links would take the report
        parser.exit(2, f"error: {out} holds symbolic links ({links_text(links)}); the report "
                       "would be written through them. Remove them, or give --output another folder\n")  # fmt: skip
    meta = {"runs": [str(r) for r in args.runs]}
    recorded = _recorded_meta(args.runs[0] / "stats.json") if len(args.runs) == 1 else None
    if recorded is not None:  # a run's report again: keep what the run recorded, but for its subset
        subset = (
            SUBSET_META if "note" in recorded else ()
        )  # the run left games of the file out, this does not
        meta = {k: v for k, v in recorded.items() if k not in ("rejected", *subset)}
    meta |= {"rejected": rejected} if rejected else {}
    meta |= {"note": f"pooled with --mixed: {mixed}"} if mixed else {}
    summary = write_report(records, out, meta=meta, plots=not args.no_plots)
    print(format_leaderboard(summary))
    for note in rejected:
        print(f"\n{note}")
    print(f"\nreport: {summary['paths']['report']}")


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


def _recorded_meta(path: Path) -> dict | None:
    """The ``meta`` of a run's earlier ``stats.json`` (how it was run: shown in the report), if it has one."""
    if not path.exists():
        return None
    try:
        meta = json.loads(path.read_bytes()).get("meta")
    except (ValueError, AttributeError, RecursionError):
        meta = None
    if not isinstance(meta, dict):
        warnings.warn(f"{path}: not a report of experiments.common.stats (no meta object); its run details are left out",
                      RuntimeWarning, stacklevel=2)  # fmt: skip
        return None
    return meta


if __name__ == "__main__":
    main()
