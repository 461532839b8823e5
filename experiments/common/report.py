"""The files of a tournament report: ``stats.json``, CSV tables, ``report.md`` and PNG plots.

``write_report`` writes them for some game records (a run's, or several runs' pooled) into a folder;
``experiments.tournament`` calls it after each run and ``cluedo-stats`` (``experiments.common.stats``)
on folders of earlier runs. The text files are UTF-8 whatever the locale's encoding, each written whole
(``cluedo_env.whole_files``): a write that fails leaves the file from before.

Each CSV file is one table (``experiments.common.summary.summarise``'s rows of that name), a row per
player count (``players``) and:

- ``leaderboard.csv``: agent (seats played, wins, win share, turns to win, wrong accusations,
  ``accusations_per_seat``, rating);
- ``seats.csv``: agent and seat (the games the agent sat there, its wins and win share);
- ``seat_advantage.csv``: seat, whoever sat there (the games, the wins of that seat and its share);
- ``head_to_head.csv``: agent and opponent (seat for seat);
- ``lineups.csv``: line-up and agent.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path

from cluedo_env.whole_files import write_whole
from experiments.common.code_revision import code_name
from experiments.common.report_plots import write_plots
from experiments.common.report_tables import (
    head_to_head_rows,
    leaderboard_rows,
    lineup_deals_text,
    lineup_rows,
    markdown_table,
    players_heading,
    seat_rows,
)
from experiments.common.summary import summarise
from experiments.common.tournament_code import versions_name

__all__ = ["REPORT_FILES", "json_ready", "write_report"]

# The files ``write_report`` writes (the plots: ``report_plots.write_plots``'s), and no others.
REPORT_FILES = (
    "stats.json",
    "leaderboard.csv",
    "seats.csv",
    "seat_advantage.csv",
    "head_to_head.csv",
    "lineups.csv",
    "report.md",
    *(f"{name}.png" for name in ("win_share", "lineups", "ratings", "turns_to_win", "head_to_head")),
)


def _write_csv(path: Path, rows: list[dict]) -> None:
    text = io.StringIO(newline="")
    if rows:
        writer = csv.DictWriter(text, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_whole(path, text.getvalue())


def json_ready(value):
    """``value`` for ``json.dumps``: NaN as null, keys as strings, tuples as lists (nested)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def write_report(
    records: Sequence[dict], out: Path | str, meta: dict | None = None, plots: bool = True
) -> dict:
    """Write ``stats.json``, CSV tables, ``report.md`` and PNG plots of some games into ``out``.

    ``meta`` says how the games were played (a run's settings, the runs pooled and their code, notes). In a
    run's report (``meta`` with a ``config_hash``) the deals per line-up are counted from the games, whatever
    ``meta`` says: a run stopped partway, or resumed for more games and stopped again, has line-ups with
    other numbers of deals, and then the report says ``?`` there (each player count's line and the Method
    say how many deals each line-up played and how many they all played).

    Returns:
        The summary (``summarise``) with ``"paths"``: name -> file written.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(records)
    meta = meta or {}
    # A run's report: the deals per line-up of its games, not of a plan.
    if meta.get("config_hash") and records:
        lineups = {r["lineup"] for r in records}
        counts = {len({r["seed"] for r in records if r["lineup"] == lineup}) for lineup in lineups}
        meta = {k: v for k, v in meta.items() if k != "deals_per_lineup"}  # "?" where the line-ups differ
        if len(counts) == 1:
            meta = meta | {"deals_per_lineup": counts.pop()}
    paths = {
        "games": out / "games.jsonl",
        "stats": out / "stats.json",
        "leaderboard": out / "leaderboard.csv",
        "seats": out / "seats.csv",
        "seat_advantage": out / "seat_advantage.csv",
        "head_to_head": out / "head_to_head.csv",
        "lineups": out / "lineups.csv",
        "report": out / "report.md",
    }
    write_whole(
        paths["stats"],
        json.dumps(
            json_ready({"meta": meta, **{k: v for k, v in summary.items() if k != "turns_to_win"}}), indent=2
        ),
    )
    _write_csv(paths["leaderboard"], summary["agents"])
    _write_csv(paths["seats"], summary["seats"])
    _write_csv(paths["seat_advantage"], summary["seat_advantage"])
    _write_csv(paths["head_to_head"], summary["head_to_head"])
    _write_csv(paths["lineups"], summary["lineups"])
    figures = write_plots(summary, out) if plots and summary["games"] else {}
    paths.update(figures)
    write_whole(paths["report"], _markdown_report(summary, meta, figures))
    summary["paths"] = {name: str(path) for name, path in paths.items() if path.exists()}
    return summary


def _run_text(run: str, meta: dict) -> str:
    """A pooled run in the report's first line: its folder, and the code that played its games where
    ``meta["run_revisions"]`` says (``cluedo-stats``; not in reports of earlier versions)."""
    codes = meta.get("run_revisions", {})
    return f"`{run}`" + (f" ({versions_name(codes[run], quote='`')})" if run in codes else "")


def _code_text(meta: dict) -> str:
    """The code that played a run's games: its revision, or each revision with its number of games
    (``meta["revisions"]``, ``experiments.common.tournament_code.code_versions``) where there were several."""
    revisions = meta.get("revisions", [])
    if len(revisions) > 1:
        return "played by " + "; ".join(
            f"{code_name(code, quote='`')} ({code['games']:,} game{'s' * (code['games'] != 1)})"
            for code in revisions
        )
    git = revisions[0] if revisions else meta.get("git", {})  # the code of the games, not of the last session
    dirty = " (uncommitted changes)" if git.get("dirty") else ""
    return f"code revision `{git.get('revision', '?')}`{dirty}"


def _fair_share_text(summary: dict) -> str:
    """What the Method says of the fair share: 1/N, and where some games had no winner (each a loss for
    every seat), how many at each player count and the even share of the decided games."""
    without = {}  # players -> (games without a winner, games)
    for players, info in summary["by_players"].items():
        if info["no_winner_share"]:
            without[players] = round(info["no_winner_share"] * info["games"]), info["games"]
    if not without:
        return "the fair share is 1/N. "
    counts = " and ".join(
        f"{k:,} of the {n:,} games at {p} players ({100 * k / n:.1f}%)" for p, (k, n) in without.items()
    )
    even = ", ".join(
        f"(1 - {100 * k / n:.1f}%)/{p} = {100 * (n - k) / n / p:.1f}% at {p} players"
        for p, (k, n) in without.items()
    )
    return (
        "a game without a winner (stopped at max_turns, or every player eliminated) counts as a loss for every "
        f"seat, and {counts} had none. The fair share 1/N (the leaderboard's fair column; dashed in the plots) "
        f"is of all games; the seats' shares average the even share of the decided games, {even} (dotted in "
        "the plots). "
    )


def _markdown_report(summary: dict, meta: dict, figures: dict[str, Path]) -> str:
    lines = ["# Tournament report", ""]
    if meta.get("runs"):  # a pooled report's runs, or the one folder of games no run.json describes
        pooled = "Pooled games of: " if len(meta["runs"]) > 1 else "Games of: "
        lines += [pooled + ", ".join(_run_text(run, meta) for run in meta["runs"]), ""]
    if meta.get("config_hash"):
        lines += [
            f"- config hash `{meta.get('config_hash', '?')}`, cluedo-env {meta.get('version', '?')}, "
            + _code_text(meta),
            f"- rules: {', '.join(f'{k}={v}' for k, v in meta.get('game', {}).items())}",
            "- agents: "
            + "; ".join(
                f"**{label}** = {a['name']} {a['options'] or ''}".strip()
                for label, a in meta.get("agents", {}).items()
            ),
            f"- line-ups ({meta.get('mode', '?')}): {', '.join(meta.get('lineups', []))}",
            f"- {meta.get('deals_per_lineup', '?')} deals per line-up, {_rotations_text(summary)}; "
            f"run seed {meta.get('seed', '?')}",
            "",
        ]
    if len(meta.get("revisions", [])) > 1:
        lines += ["**Note:** the games were not all played by one recorded code version (above); a game's "
                  "result can depend on the code.", ""]  # fmt: skip
    if meta.get("code_note"):
        lines += [f"**Note:** {meta['code_note']}.", ""]
    if meta.get("note"):
        lines += [f"**Note:** {meta['note']}.", ""]
    for note in meta.get("rejected", []):
        lines += [f"**Rejected:** {note}.", ""]
    for players in summary["by_players"]:
        lines += [f"## {players} players", "", players_heading(summary, players) + ".", ""]
        lines += ["### Leaderboard", "", markdown_table(leaderboard_rows(summary, players)), ""]
        lines += ["### By line-up", "", markdown_table(lineup_rows(summary, players)), ""]
        lines += ["### Win share by seat", "", markdown_table(seat_rows(summary, players)), ""]
        lines += ["### Head to head", "", markdown_table(head_to_head_rows(summary, players)), ""]
    for name, path in figures.items():
        lines += [f"![{name}]({path.name})", ""]
    lines += ["## Method", "", _method_text(summary), ""]
    return "\n".join(lines)


def _deals_text(summary: dict) -> str:
    """What the Method says of the deals: every line-up on the same deals under every seat rotation, or
    what is not so (at each player count whose line-ups did not all play the same deals, how many)."""
    infos = summary["by_players"]
    every_rotation = all(info.get("every_rotation", True) for info in infos.values())
    apart = "; ".join(
        f"at {players} players: {lineup_deals_text(info)}"
        for players, info in infos.items()
        if not info.get("same_deals", True)
    )
    if not apart:
        if every_rotation:
            return "Every line-up plays the same deals under every seat rotation"
        return (
            "Not every deal was played under every seat rotation (a run stopped partway, or games of one "
            "seat such as the web page's)"
        )
    if every_rotation:
        return (
            f"Not every line-up played the same deals ({apart}); each line-up played each of its deals under "
            "every seat rotation"
        )
    return (
        f"Not every line-up played the same deals ({apart}), and not every deal was played under every seat "
        "rotation (a run stopped partway, or games of one seat such as the web page's)"
    )


def _rotations_text(summary: dict) -> str:
    """The header's words on rotations: each deal under every seat rotation, or not."""
    if all(info.get("every_rotation", True) for info in summary["by_players"].values()):
        return "each under every seat rotation"
    return "not each under every seat rotation"


def _method_text(summary: dict) -> str:
    """The report's Method: how shares, intervals, ratings and head to head are counted, and the deals."""
    return (
        "Win shares count seats (an agent seated twice in a game counts twice); "
        + _fair_share_text(summary)
        + "Intervals are 95%: Wilson score intervals for shares, Student t for mean turns to win (games the "
        "agent won). A wrong accusation eliminates the accuser; its rate is per seat played. Ratings: "
        "OpenSkill Plackett-Luce, winner first and all others tied, games rated in a fixed order; "
        "ordinal = mu - 3 sigma. Head to head: in the games with A and B at the table that one of them won, "
        "the share of seat-for-seat comparisons (each seat of A against each seat of B) that A's seat won; "
        "50% is even; its interval is Wilson's for A's share of those games, carried to the seat-for-seat scale "
        "(pooled over line-ups that seat them in other numbers: a bootstrap of the games within each). "
        + _deals_text(summary)
        + "; intervals treat games as independent."
    )
