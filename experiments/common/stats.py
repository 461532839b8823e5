"""Statistics of tournament games: win shares with intervals, turns, accusations, ratings, head to head.

    python -m experiments.common.stats results/tournament/<run>                 # report of a run again
    python -m experiments.common.stats results/sweep/*/ --output results/pooled  # several runs pooled

Input: game records as written by ``experiments.tournament`` (``games.jsonl``:
``players``, ``seats`` (agent label per seat), ``winner`` (label or null),
``winner_seat``, ``turns``, ``truncated``, ``accusations`` and
``wrong_accusations`` per seat, plus ``lineup``, ``deal``, ``rotation``).
Each record is checked as the file is read (``experiments.common.games_file.load_games``:
types, ranges, the seats of the line-up, ``winner`` against ``winner_seat``, the
accusations against the rules); a malformed one is not counted, and the report says
how many were rejected, from which file, line and field.

What is reported, per player count (the fair share of a seat is ``1/N``):

- **Win share** of each agent: games won / seats played (an agent seated twice
  in a game counts twice), with a 95% Wilson score interval; also per seat.
- **Turns to win**: the game's length in the games an agent won (correct
  accusation), mean with a 95% Student t interval, and median.
- **Wrong accusations**: share of an agent's seats that made a wrong
  accusation (which eliminates the player), with a Wilson interval.
- **OpenSkill ratings** (Plackett-Luce): each game is one match, each seat a
  team of one; the winner ranks first and everybody else ties second (no
  winner: all tie). Copies of one agent in a game share its rating and their
  updates are averaged. Games are rated in a fixed order (deal, rotation,
  line-up) so that ratings do not depend on which process finished first.
  ``mu``, ``sigma`` (its uncertainty) and ``ordinal = mu - 3 sigma``.
- **Head to head**: for each pair of agents, in the games where both sat and
  one of them won, how often A's seat finished ahead of B's, seat for seat:
  each seat of A against each seat of B is one comparison, which the winner's
  seat wins (so an agent seated three times is not credited three chances).
  50% is even. The 95% Wilson interval takes the games one of them won as the
  trials (comparisons within one game are not independent).

The intervals treat games as independent draws. Duplicate deals and seat
rotations balance luck between agents but make games of one deal correlated,
so the intervals are, if anything, slightly optimistic for a single agent's share.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import json
import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from cluedo_env import __version__
from experiments.common.games_file import load_games, rejection_note

__all__ = [
    "Z95",
    "format_leaderboard",
    "mean_interval",
    "openskill_ratings",
    "student_t_quantile",
    "summarise",
    "unique_games",
    "wilson_interval",
    "write_report",
]

Z95 = 1.959963984540054  # standard normal quantile at 0.975: two-sided 95%
RATING_ORDINAL_SIGMAS = 3
HISTOGRAM_BINS = 40  # at most, of whole turns each


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (Wilson 1927).

    With ``p = successes / trials`` and ``n = trials``::

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    Unlike the normal ("Wald") interval it stays inside [0, 1] and keeps its
    coverage near 0 and 1 and for small ``n``. ``trials = 0`` gives ``(0, 1)``.

    Args:
        successes: Number of successes, ``0 <= successes <= trials``.
        trials: Number of trials.
        z: Normal quantile of the confidence level (1.96 for 95%).
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    p, n = successes / trials, trials
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # The bounds are exactly 0 and 1 at no success and all successes (rounding aside).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def student_t_quantile(df: int, z: float = Z95) -> float:
    """Two-sided Student t quantile matching the normal quantile ``z`` (1.96 -> 97.5%).

    Exact for ``df`` 1 and 2; above, the Cornish-Fisher expansion of
    Abramowitz & Stegun 26.7.5 (within 0.005 of the tables from ``df = 3``).
    """
    if df < 1:
        raise ValueError(f"df must be >= 1, got {df}")
    p = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p)))
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its Student t interval ``mean -/+ t * sd / sqrt(n)``; NaN bounds below 2 values."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(np.mean(values))
    if n < 2:
        return mean, math.nan, math.nan
    half = student_t_quantile(n - 1, z) * float(np.std(values, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def openskill_ratings(records: Iterable[dict]) -> dict[str, dict]:
    """OpenSkill Plackett-Luce ratings of the agents (see the module docstring for the match model)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating: dict[str, object] = {}
    played: dict[str, int] = defaultdict(int)
    for record in sorted(records, key=lambda r: (r["players"], r["deal"], r["rotation"], r["lineup"])):
        seats = record["seats"]
        for label in seats:
            if label not in rating:
                rating[label] = model.rating(name=label)
        winner = record["winner_seat"]
        ranks = [1 if winner is None or seat == winner else 2 for seat in range(len(seats))]
        updated = model.rate([[rating[label]] for label in seats], ranks=ranks)
        for label in set(seats):
            mine = [updated[s][0] for s, other in enumerate(seats) if other == label]
            rating[label] = model.rating(
                mu=float(np.mean([r.mu for r in mine])),
                sigma=float(np.mean([r.sigma for r in mine])),
                name=label,
            )
            played[label] += 1
    return {
        label: {
            "mu": r.mu,
            "sigma": r.sigma,
            "ordinal": r.mu - RATING_ORDINAL_SIGMAS * r.sigma,
            "games": played[label],
        }
        for label, r in rating.items()
    }


def unique_games(records: Iterable[dict]) -> list[dict]:
    """The records with each game once: a game is (config, line-up, deal, rotation).

    A game recorded twice (two runs wrote into one folder, or one folder was pooled twice)
    would count twice and narrow every interval: an identical copy is dropped with a
    ``RuntimeWarning``; two different results for one game raise ``ValueError``.
    """
    kept: dict[tuple, dict] = {}
    copies = 0
    for record in records:
        key = (record.get("config"), record["lineup"], record["deal"], record["rotation"])
        if key not in kept:
            kept[key] = record
        elif kept[key] == record:
            copies += 1
        else:
            raise ValueError(
                f"two different results for one game (config {key[0]}, line-up {key[1]}, deal {key[2]}, "
                f"rotation {key[3]}): {kept[key]} and {record}; the results are not from one run"
            )
    if copies:
        warnings.warn(
            f"{copies} duplicate game record(s) dropped: each game counts once", RuntimeWarning, stacklevel=2
        )
    return list(kept.values())


def summarise(records: Sequence[dict]) -> dict:
    """All statistics of a list of game records (see the module docstring).

    Returns:
        ``{"games", "by_players": {N: {...}}, "agents": [rows], "seats": [rows],
        "seat_advantage": [rows], "head_to_head": [rows], "lineups": [rows: one per agent of each line-up],
        "ratings": {label: {...}},
        "turns_to_win": {N: {label: [turns]}}}``; rows carry ``players``.
        Duplicate records of a game count once (``unique_games``).
    """
    records = unique_games(records)
    agents, seats, seat_advantage, head_to_head, by_lineup = [], [], [], [], []
    by_players, turns_by_players = {}, {}
    ratings = openskill_ratings(records)
    for players in sorted({r["players"] for r in records}):
        games = [r for r in records if r["players"] == players]
        labels = sorted({label for r in games for label in r["seats"]})
        seat_games = defaultdict(int)
        seat_wins = defaultdict(int)
        wrong = defaultdict(int)
        accusations = defaultdict(int)
        turns_to_win = defaultdict(list)
        for r in games:
            for seat, label in enumerate(r["seats"]):
                seat_games[label, seat] += 1
                seat_wins[label, seat] += r["winner_seat"] == seat
                wrong[label] += r["wrong_accusations"][seat] > 0
                accusations[label] += r["accusations"][seat]
            if r["winner"] is not None:
                turns_to_win[r["winner"]].append(r["turns"])

        wins_of = {label: sum(seat_wins[label, s] for s in range(players)) for label in labels}
        seats_of = {label: sum(seat_games[label, s] for s in range(players)) for label in labels}
        labels.sort(
            key=lambda label: (-wins_of[label] / seats_of[label], label)
        )  # best first, in every table
        for label in labels:
            n = sum(seat_games[label, s] for s in range(players))
            k = sum(seat_wins[label, s] for s in range(players))
            mean, low, high = mean_interval(turns_to_win[label])
            low = max(low, 0.0)  # turns are never negative (the t interval of a few wins can be)
            agents.append(
                {
                    "players": players,
                    "agent": label,
                    "seats_played": n,
                    "wins": k,
                    "win_share": k / n,
                    "win_low": wilson_interval(k, n)[0],
                    "win_high": wilson_interval(k, n)[1],
                    "fair_share": 1 / players,
                    "turns_to_win_mean": mean,
                    "turns_to_win_low": low,
                    "turns_to_win_high": high,
                    "turns_to_win_median": float(np.median(turns_to_win[label]))
                    if turns_to_win[label]
                    else math.nan,
                    "wrong_accusation_rate": wrong[label] / n,
                    "wrong_accusation_low": wilson_interval(wrong[label], n)[0],
                    "wrong_accusation_high": wilson_interval(wrong[label], n)[1],
                    "accusations_per_game": accusations[label] / n,
                    **{f"rating_{key}": ratings[label][key] for key in ("mu", "sigma", "ordinal")},
                }
            )
            for seat in range(players):
                n, k = seat_games[label, seat], seat_wins[label, seat]
                if n:
                    low, high = wilson_interval(k, n)
                    seats.append(
                        {"players": players, "agent": label, "seat": seat, "games": n, "wins": k,
                         "win_share": k / n, "win_low": low, "win_high": high}
                    )  # fmt: skip
        for seat in range(players):
            k = sum(r["winner_seat"] == seat for r in games)
            low, high = wilson_interval(k, len(games))
            seat_advantage.append(
                {"players": players, "seat": seat, "games": len(games), "wins": k,
                 "win_share": k / len(games), "win_low": low, "win_high": high}
            )  # fmt: skip
        for a in labels:
            for b in labels:
                if a == b:
                    continue
                together = [r for r in games if a in r["seats"] and b in r["seats"]]
                if not together:
                    continue
                a_wins = sum(r["winner"] == a for r in together)
                b_wins = sum(r["winner"] == b for r in together)
                # Seat-for-seat comparisons: the winning seat of A is ahead of every seat of B.
                ahead = sum(r["seats"].count(b) for r in together if r["winner"] == a)
                behind = sum(r["seats"].count(a) for r in together if r["winner"] == b)
                decisive = a_wins + b_wins
                share = ahead / (ahead + behind) if decisive else math.nan
                low, high = (
                    wilson_interval(round(share * decisive), decisive) if decisive else (math.nan,) * 2
                )
                head_to_head.append(
                    {"players": players, "agent": a, "opponent": b, "games": len(together),
                     "agent_wins": a_wins, "opponent_wins": b_wins, "decisive_games": decisive,
                     "ahead_share": share, "ahead_low": low, "ahead_high": high}
                )  # fmt: skip
        for lineup in sorted(
            {r["lineup"] for r in games}, key=lambda x: [labels.index(a) for a in x.split("+")]
        ):
            played = [r for r in games if r["lineup"] == lineup]
            for label in sorted(set(played[0]["seats"]), key=labels.index):
                n = sum(r["seats"].count(label) for r in played)
                k = sum(r["winner"] == label for r in played)
                low, high = wilson_interval(k, n)
                by_lineup.append(
                    {"players": players, "lineup": lineup, "games": len(played), "agent": label,
                     "copies": played[0]["seats"].count(label), "seats_played": n, "wins": k,
                     "win_share": k / n, "win_low": low, "win_high": high,
                     "no_winner_share": sum(r["winner"] is None for r in played) / len(played),
                     "mean_turns": float(np.mean([r["turns"] for r in played]))}
                )  # fmt: skip
        no_winner = sum(r["winner"] is None for r in games)
        by_players[players] = {
            "games": len(games),
            "lineups": len({r["lineup"] for r in games}),
            "deals": len({r["deal"] for r in games}),
            "no_winner_share": no_winner / len(games),
            "truncated_share": sum(r["truncated"] for r in games) / len(games),
            "mean_turns": float(np.mean([r["turns"] for r in games])),
        }
        turns_by_players[players] = {label: turns_to_win[label] for label in labels}
    return {
        "games": len(records),
        "by_players": by_players,
        "agents": agents,
        "seats": seats,
        "seat_advantage": seat_advantage,
        "head_to_head": head_to_head,
        "lineups": by_lineup,
        "ratings": ratings,
        "turns_to_win": turns_by_players,
    }


# -- tables -------------------------------------------------------------------------------------------


def _percent(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _interval(value: float, low: float, high: float, percent: bool = True, digits: int = 1) -> str:
    if math.isnan(value):
        return "-"
    if percent:
        return f"{100 * value:.{digits}f}% [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"
    if math.isnan(low):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def leaderboard_rows(summary: dict, players: int) -> list[dict[str, str]]:
    """The leaderboard of one player count as display strings, best win share first."""
    rows = [a for a in summary["agents"] if a["players"] == players]
    return [
        {
            "agent": a["agent"],
            "seats": str(a["seats_played"]),
            "wins": str(a["wins"]),
            "win share [95% CI]": _interval(a["win_share"], a["win_low"], a["win_high"]),
            "fair": _percent(a["fair_share"]),
            "turns to win [95% CI]": _interval(
                a["turns_to_win_mean"], a["turns_to_win_low"], a["turns_to_win_high"], percent=False
            ),
            "wrong accusation [95% CI]": _interval(
                a["wrong_accusation_rate"], a["wrong_accusation_low"], a["wrong_accusation_high"]
            ),
            "rating mu ± sigma": f"{a['rating_mu']:.2f} ± {a['rating_sigma']:.2f}",
            "ordinal": f"{a['rating_ordinal']:.2f}",
        }
        for a in rows
    ]


def _text_table(rows: list[dict[str, str]], left: tuple[int, ...] = (0,)) -> str:
    """Plain-text table; the columns numbered in ``left`` are left-aligned, the others right-aligned."""
    if not rows:
        return "(no games)"
    columns = list(rows[0])
    width = {c: max(len(c), *(len(r[c]) for r in rows)) for c in columns}

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width[c]) if i in left else cell.rjust(width[c])
            for i, (c, cell) in enumerate(zip(columns, cells))
        ).rstrip()

    lines = [line(columns), line(["-" * width[c] for c in columns])]
    lines += [line([r[c] for c in columns]) for r in rows]
    return "\n".join(lines)


def _markdown_table(rows: list[dict[str, str]]) -> str:
    if not rows:
        return "(no games)"
    columns = list(rows[0])
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join(":--" if i == 0 else "--:" for i in range(len(columns))) + "|",
    ]
    lines += ["| " + " | ".join(r[c] for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def _heading(summary: dict, players: int) -> str:
    info = summary["by_players"][players]
    return (
        f"{players} players: {info['games']} games ({info['lineups']} line-ups, {info['deals']} deals, "
        f"every seat rotation); no winner {_percent(info['no_winner_share'])}, "
        f"truncated {_percent(info['truncated_share'])}, mean length {info['mean_turns']:.1f} turns"
    )


def format_leaderboard(summary: dict) -> str:
    """The leaderboard and the line-ups of each player count as plain-text tables."""
    if not summary["games"]:
        return "no games"
    parts = []
    for players in summary["by_players"]:
        parts.append(_heading(summary, players))
        parts.append(_text_table(leaderboard_rows(summary, players)))
        parts.append(_text_table(lineup_rows(summary, players), left=(0, 4)))
    return "\n\n".join(parts)


def lineup_rows(summary: dict, players: int) -> list[dict[str, str]]:
    """One row per line-up: each of its agents' win share (per seat) with its interval."""
    rows: dict[str, dict[str, str]] = {}
    for x in summary["lineups"]:
        if x["players"] != players:
            continue
        row = rows.setdefault(
            x["lineup"],
            {"line-up": x["lineup"], "games": str(x["games"]), "no winner": _percent(x["no_winner_share"]),
             "mean turns": f"{x['mean_turns']:.1f}", "win share per seat [95% CI]": ""},
        )  # fmt: skip
        copies = f" (x{x['copies']})" if x["copies"] > 1 else ""
        share = f"{x['agent']}{copies} {_interval(x['win_share'], x['win_low'], x['win_high'])}"
        row["win share per seat [95% CI]"] = "; ".join(
            filter(None, [row["win share per seat [95% CI]"], share])
        )
    return list(rows.values())


def _seat_rows(summary: dict, players: int) -> list[dict[str, str]]:
    labels = [a["agent"] for a in summary["agents"] if a["players"] == players]
    cells = {(s["agent"], s["seat"]): s for s in summary["seats"] if s["players"] == players}
    rows = []
    for label in [*labels, None]:
        row = {"agent": label or "any agent (seat advantage)"}
        for seat in range(players):
            if label is None:
                s = next(
                    x for x in summary["seat_advantage"] if x["players"] == players and x["seat"] == seat
                )
            else:
                s = cells.get((label, seat))
            row[f"seat {seat}"] = _interval(s["win_share"], s["win_low"], s["win_high"]) if s else "-"
        rows.append(row)
    return rows


def _head_to_head_rows(summary: dict, players: int) -> list[dict[str, str]]:
    labels = [a["agent"] for a in summary["agents"] if a["players"] == players]
    cells = {(h["agent"], h["opponent"]): h for h in summary["head_to_head"] if h["players"] == players}
    rows = []
    for a in labels:
        row = {"A ahead of B, seat for seat [95% CI] (A ↓, B →)": a}
        for b in labels:
            h = cells.get((a, b))
            row[b] = (
                f"{_interval(h['ahead_share'], h['ahead_low'], h['ahead_high'])} of {h['decisive_games']}"
                if h
                else "-"
            )
        rows.append(row)
    return rows


# -- files --------------------------------------------------------------------------------------------


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as file:
        if not rows:
            return
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _json_ready(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    return value


def write_report(
    records: Sequence[dict], out: Path | str, meta: dict | None = None, plots: bool = True
) -> dict:
    """Write ``stats.json``, CSV tables, ``report.md`` and PNG plots of some games into ``out``.

    Returns:
        The summary (``summarise``) with ``"paths"``: name -> file written.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(records)
    meta = meta or {}
    paths = {
        "games": out / "games.jsonl",
        "stats": out / "stats.json",
        "leaderboard": out / "leaderboard.csv",
        "seats": out / "seats.csv",
        "head_to_head": out / "head_to_head.csv",
        "lineups": out / "lineups.csv",
        "report": out / "report.md",
    }
    (out / "stats.json").write_text(
        json.dumps(
            _json_ready({"meta": meta, **{k: v for k, v in summary.items() if k != "turns_to_win"}}), indent=2
        )
    )
    _write_csv(paths["leaderboard"], summary["agents"])
    _write_csv(paths["seats"], summary["seats"] + [{**s, "agent": "*"} for s in summary["seat_advantage"]])
    _write_csv(paths["head_to_head"], summary["head_to_head"])
    _write_csv(paths["lineups"], summary["lineups"])
    figures = _plot(summary, out) if plots and summary["games"] else {}
    paths.update(figures)
    paths["report"].write_text(_markdown_report(summary, meta, figures))
    summary["paths"] = {name: str(path) for name, path in paths.items() if path.exists()}
    return summary


def _markdown_report(summary: dict, meta: dict, figures: dict[str, Path]) -> str:
    lines = ["# Tournament report", ""]
    if meta.get("runs"):
        lines += ["Pooled games of: " + ", ".join(f"`{run}`" for run in meta["runs"]), ""]
    if meta.get("config_hash"):
        git = meta.get("git", {})
        dirty = " (uncommitted changes)" if git.get("dirty") else ""
        lines += [
            f"- config hash `{meta.get('config_hash', '?')}`, cluedo-env {meta.get('version', '?')}, "
            f"code revision `{git.get('revision', '?')}`{dirty}",
            f"- rules: {', '.join(f'{k}={v}' for k, v in meta.get('game', {}).items())}",
            "- agents: "
            + "; ".join(
                f"**{label}** = {a['name']} {a['options'] or ''}".strip()
                for label, a in meta.get("agents", {}).items()
            ),
            f"- line-ups ({meta.get('mode', '?')}): {', '.join(meta.get('lineups', []))}",
            f"- {meta.get('deals_per_lineup', '?')} deals per line-up, each under every seat rotation; run seed {meta.get('seed', '?')}",
            "",
        ]
    if meta.get("note"):
        lines += [f"**Note:** {meta['note']}.", ""]
    for note in meta.get("rejected", []):
        lines += [f"**Rejected:** {note}.", ""]
    for players in summary["by_players"]:
        lines += [f"## {players} players", "", _heading(summary, players) + ".", ""]
        lines += ["### Leaderboard", "", _markdown_table(leaderboard_rows(summary, players)), ""]
        lines += ["### By line-up", "", _markdown_table(lineup_rows(summary, players)), ""]
        lines += ["### Win share by seat", "", _markdown_table(_seat_rows(summary, players)), ""]
        lines += ["### Head to head", "", _markdown_table(_head_to_head_rows(summary, players)), ""]
    for name, path in figures.items():
        lines += [f"![{name}]({path.name})", ""]
    lines += [
        "## Method",
        "",
        "Win shares count seats (an agent seated twice in a game counts twice); the fair share is 1/N. "
        "Intervals are 95%: Wilson score intervals for shares, Student t for mean turns to win (games the "
        "agent won). A wrong accusation eliminates the accuser; its rate is per seat played. Ratings: "
        "OpenSkill Plackett-Luce, winner first and all others tied, games rated in a fixed order; "
        "ordinal = mu - 3 sigma. Head to head: in the games with A and B at the table that one of them won, "
        "the share of seat-for-seat comparisons (each seat of A against each seat of B) that A's seat won; "
        "50% is even, the interval counts the games one of them won. "
        "Every line-up plays the same deals under every seat rotation; intervals treat games as independent.",
        "",
    ]
    return "\n".join(lines)


# One colour per agent name in every plot of every run: the project's agents have their own,
# any other label a colour drawn from the rest of the palette by a hash of the name.
AGENT_COLOURS = {"random": "#7f7f7f", "notepad": "#ff7f0e", "sat": "#1f77b4", "ppo": "#2ca02c"}
OTHER_COLOURS = ("#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79", "#637939")


def agent_colour(label: str) -> str:
    """The plot colour of an agent label: the same in every run."""
    if label in AGENT_COLOURS:
        return AGENT_COLOURS[label]
    digest = hashlib.blake2b(label.encode(), digest_size=4).digest()
    return OTHER_COLOURS[int.from_bytes(digest, "little") % len(OTHER_COLOURS)]


def _plot(summary: dict, out: Path) -> dict[str, Path]:
    """The PNG plots (matplotlib, Agg): win shares, ratings, turns to win, head to head."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.ticker import PercentFormatter

    colour = {label: agent_colour(label) for label in summary["ratings"]}
    counts = list(summary["by_players"])
    figures = {}

    def save(fig, name: str) -> None:
        fig.tight_layout()
        figures[f"{name}_plot"] = out / f"{name}.png"
        fig.savefig(figures[f"{name}_plot"], dpi=110)
        plt.close(fig)

    # Win shares: per agent (left), per seat (right), one row per player count.
    n_agents = max(sum(a["players"] == p for a in summary["agents"]) for p in counts)
    fig, axes = plt.subplots(
        len(counts), 2, figsize=(13, (1.6 + 0.55 * n_agents) * len(counts) + 0.6), squeeze=False
    )
    for row, players in enumerate(counts):
        agents = [a for a in summary["agents"] if a["players"] == players][::-1]  # best on top
        ax = axes[row, 0]
        y = np.arange(len(agents))
        share = np.array([a["win_share"] for a in agents])
        err = np.array([share - [a["win_low"] for a in agents], [a["win_high"] for a in agents] - share])
        err = np.maximum(err, 0)
        ax.barh(y, share, xerr=err, color=[colour[a["agent"]] for a in agents], alpha=0.85, capsize=4)
        for i, a in enumerate(agents):
            ax.text(a["win_high"] + 0.01, i, f"{100 * a['win_share']:.1f}%", va="center", fontsize=9)
        ax.axvline(1 / players, color="black", linestyle="--", linewidth=1, label=f"fair share 1/{players}")
        ax.set_yticks(y, [a["agent"] for a in agents])
        ax.set_xlim(0, min(1.05, max(1 / players, *(a["win_high"] for a in agents)) + 0.12))
        ax.set_xlabel("win share of the seats played (bars: 95% Wilson interval)")
        ax.set_title(f"{players} players: win share")
        ax.legend(loc="lower right", fontsize=8)
        ax = axes[row, 1]
        width = 0.8 / len(agents)
        for i, a in enumerate(agents[::-1]):
            cells = [s for s in summary["seats"] if s["players"] == players and s["agent"] == a["agent"]]
            x = np.array([c["seat"] for c in cells]) + (i - (len(agents) - 1) / 2) * width
            vals = np.array([c["win_share"] for c in cells])
            errs = np.array([vals - [c["win_low"] for c in cells], [c["win_high"] for c in cells] - vals])
            errs = np.maximum(errs, 0)
            ax.bar(
                x, vals, width, yerr=errs, capsize=2, color=colour[a["agent"]], alpha=0.85, label=a["agent"]
            )
        ax.axhline(1 / players, color="black", linestyle="--", linewidth=1)
        ax.set_xticks(range(players), [f"seat {s}" for s in range(players)])
        ax.set_ylabel("win share")
        ax.set_title(f"{players} players: win share by seat (player index)")
        ax.legend(fontsize=8, ncols=min(len(agents), 4), loc="upper right")
        ax.set_ylim(0, min(1.05, ax.get_ylim()[1] * 1.12))
    save(fig, "win_share")

    # Line-ups: each agent's win share per seat in each line-up.
    rows = summary["lineups"]
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.32 * len(rows) + 0.25 * len(summary["by_players"])))
    y, ticks, names = 0.0, [], []
    for players in counts:
        for lineup in dict.fromkeys(x["lineup"] for x in rows if x["players"] == players):
            mine = [x for x in rows if x["players"] == players and x["lineup"] == lineup]
            top = y
            for x in mine:
                err = np.maximum([[x["win_share"] - x["win_low"]], [x["win_high"] - x["win_share"]]], 0)
                ax.barh(
                    y, x["win_share"], xerr=err, height=0.8, color=colour[x["agent"]], alpha=0.85, capsize=2
                )
                copies = f" x{x['copies']}" if x["copies"] > 1 else ""
                # Labels in a column right of the axis: clear of the bars and of the fair-share lines.
                ax.text(1.02, y, f"{x['agent']}{copies} {_interval(x['win_share'], x['win_low'], x['win_high'])}",
                        va="center", fontsize=8, transform=ax.get_yaxis_transform())  # fmt: skip
                y += 1
            ax.plot([1 / players] * 2, [top - 0.5, y - 0.5], color="black", linestyle="--", linewidth=1)
            ticks.append((top + y - 1) / 2)
            names.append(f"{lineup} ({players}p)" if len(counts) > 1 else lineup)
            y += 0.6
    ax.set_yticks(ticks, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("win share per seat in the line-up (bars: 95% Wilson interval; dashed: fair share 1/N)")
    ax.set_title("Win share by line-up")
    save(fig, "lineups")

    # Ratings: mu -/+ sigma (thick) and -/+ 3 sigma (thin); the ordinal is the left end of the thin bar.
    ratings = sorted(summary["ratings"].items(), key=lambda item: item[1]["mu"])
    fig, ax = plt.subplots(figsize=(8, 1.3 + 0.55 * len(ratings)))
    for i, (label, r) in enumerate(ratings):
        ax.errorbar(r["mu"], i, xerr=3 * r["sigma"], fmt="none", ecolor="tab:gray", elinewidth=1, capsize=3,
                    label="mu ± 3 sigma" if i == 0 else None)  # fmt: skip
        ax.errorbar(r["mu"], i, xerr=r["sigma"], fmt="o", color=colour[label], elinewidth=5, capsize=0,
                    label="mu ± sigma" if i == 0 else None)  # fmt: skip
        ax.annotate(f"{r['mu']:.1f} ± {r['sigma']:.2f}  (ordinal {r['ordinal']:.1f})", (r["mu"], i),
                    textcoords="offset points", xytext=(0, 8), ha="center", fontsize=9)  # fmt: skip
    ax.set_yticks(range(len(ratings)), [label for label, _ in ratings])
    ax.set_ylim(-0.6, len(ratings) - 0.1)
    ax.set_xlabel("OpenSkill Plackett-Luce rating (start 25 ± 8.33)")
    ax.set_title("Ratings: ordinal = mu - 3 sigma")
    ax.legend(fontsize=8, loc="lower right")
    save(fig, "ratings")

    # Turns to win: one histogram per agent (with wins) and player count, on a shared axis.
    panels = [(p, label, t) for p in counts for label, t in summary["turns_to_win"][p].items() if t]
    if panels:
        fig, axes = plt.subplots(
            len(panels), 1, figsize=(9, 0.8 + 1.7 * len(panels)), sharex=True, squeeze=False
        )
        longest = max(max(t) for _, _, t in panels)
        width = max(1, math.ceil(longest / HISTOGRAM_BINS))  # whole turns per bin, no aliasing
        bins = np.arange(0, longest + 2 * width, width) - 0.5
        for ax, (players, label, turns) in zip(axes[:, 0], panels):
            ax.hist(turns, bins=bins, color=colour[label], alpha=0.85)
            mean, low, high = mean_interval(turns)
            ax.axvline(mean, color="black", linewidth=1)
            if not math.isnan(low):
                ax.axvspan(max(low, 0.0), high, color="black", alpha=0.15, linewidth=0, zorder=0)  # behind
            ax.set_title(
                f"{label}, {players} players: {len(turns)} wins, mean "
                f"{_interval(mean, max(low, 0.0), high, percent=False)}, median {np.median(turns):.0f} turns",
                fontsize=9,
                loc="left",
            )
            ax.set_ylabel("games")
        axes[-1, 0].set_xlabel(
            "game length in turns, games the agent won (line: mean; band: its 95% Student t interval)"
        )
        save(fig, "turns_to_win")

    # Head to head: seat-for-seat share of the decisive games that the row agent won (white: even).
    side = 2.6 + 1.3 * n_agents
    fig, axes = plt.subplots(1, len(counts), figsize=(side * len(counts), side * 0.85), squeeze=False)
    for ax, players in zip(axes[0], counts):
        labels = [a["agent"] for a in summary["agents"] if a["players"] == players]
        cells = {(h["agent"], h["opponent"]): h for h in summary["head_to_head"] if h["players"] == players}
        matrix = np.full((len(labels), len(labels)), np.nan)
        for (i, a), (j, b) in itertools.product(enumerate(labels), repeat=2):
            if (a, b) in cells:
                matrix[i, j] = cells[a, b]["ahead_share"]
        image = ax.imshow(matrix, cmap="RdYlGn", norm=TwoSlopeNorm(vmin=0, vcenter=0.5, vmax=1))
        fig.colorbar(image, ax=ax, shrink=0.8, label="A ahead of B, seat for seat (50%: even)")
        for (i, a), (j, b) in itertools.product(enumerate(labels), repeat=2):
            h = cells.get((a, b))
            if h and h["decisive_games"]:
                text = (f"{100 * h['ahead_share']:.1f}%\n[{100 * h['ahead_low']:.1f}, {100 * h['ahead_high']:.1f}]"
                        f"\nof {h['decisive_games']}")  # fmt: skip
                ax.text(j, i, text, ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("B")
        ax.set_ylabel("A")
        ax.set_title(f"{players} players: A ahead of B [95% CI]\nof the games one of them won", fontsize=10)
    save(fig, "head_to_head")
    return figures


# -- command line -------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    """Report on the games of one or more tournament folders (pooled, e.g. a sweep over player counts)."""
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    parser.add_argument("runs", nargs="+", type=Path, help="tournament output folders (holding games.jsonl)")
    parser.add_argument("--output", type=Path, help="folder for the report (default: the only run's folder)")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    if args.output is None and len(args.runs) > 1:
        parser.error("--output is needed with several runs")
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
    meta = {"runs": [str(r) for r in args.runs]}
    recorded = _recorded_meta(args.runs[0] / "stats.json") if len(args.runs) == 1 else None
    if recorded is not None:  # a run's report again: keep what the run recorded
        meta = recorded
    meta = {k: v for k, v in meta.items() if k != "rejected"} | ({"rejected": rejected} if rejected else {})
    summary = write_report(records, out, meta=meta, plots=not args.no_plots)
    print(format_leaderboard(summary))
    for note in rejected:
        print(f"\n{note}")
    print(f"\nreport: {summary['paths']['report']}")


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
