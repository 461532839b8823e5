"""The tables of a tournament's statistics (``experiments.common.summary.summarise``) as text.

Plain-text tables for the terminal (``format_leaderboard``) and Markdown tables for ``report.md``
(``experiments.common.report``): the leaderboard, the line-ups, win shares by seat and head to
head of each player count, every share with its 95% interval.
"""

from __future__ import annotations

import math

__all__ = [
    "format_leaderboard",
    "head_to_head_rows",
    "interval_text",
    "leaderboard_rows",
    "lineup_deals_text",
    "lineup_rows",
    "markdown_table",
    "players_heading",
    "seat_rows",
]


def _percent(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def interval_text(value: float, low: float, high: float, percent: bool = True, digits: int = 1) -> str:
    """``value [low, high]`` as text (a percentage unless ``percent=False``); ``-`` for NaN."""
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
            "win share [95% CI]": interval_text(a["win_share"], a["win_low"], a["win_high"]),
            "fair": _percent(a["fair_share"]),
            "turns to win [95% CI]": interval_text(
                a["turns_to_win_mean"], a["turns_to_win_low"], a["turns_to_win_high"], percent=False
            ),
            "wrong accusation [95% CI]": interval_text(
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


def markdown_table(rows: list[dict[str, str]]) -> str:
    """A Markdown table of display rows (the first column left-aligned, the others right-aligned)."""
    if not rows:
        return "(no games)"
    columns = list(rows[0])
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join(":--" if i == 0 else "--:" for i in range(len(columns))) + "|",
    ]
    lines += ["| " + " | ".join(r[c] for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def lineup_deals_text(info: dict) -> str:
    """How many deals the line-ups of a player count played apart (``summarise``'s ``by_players`` entry):
    the fewest to the most of one line-up, and how many every line-up played."""
    fewest, most = info["lineup_deals"]
    each = str(fewest) if fewest == most else f"{fewest} to {most}"
    return f"{each} deals per line-up, {info['shared_deals']} played by every line-up"


def players_heading(summary: dict, players: int) -> str:
    """One line on the games of a player count: line-ups, deals (and where the line-ups did not all play
    the same deals, how many each played and shared), no winner, truncated, mean length."""
    info = summary["by_players"][players]
    rotations = (
        "every seat rotation"
        if info.get("every_rotation", True)
        else "not every deal under every seat rotation"
    )
    deals = (
        f"{info['deals']} deals, "
        if info.get("same_deals", True)
        else f"{info['deals']} deals, not the same for every line-up: {lineup_deals_text(info)}; "
    )
    return (
        f"{players} players: {info['games']} games ({info['lineups']} line-ups, {deals}{rotations}); "
        f"no winner {_percent(info['no_winner_share'])}, "
        f"truncated {_percent(info['truncated_share'])}, mean length {info['mean_turns']:.1f} turns"
    )


def format_leaderboard(summary: dict) -> str:
    """The leaderboard and the line-ups of each player count as plain-text tables."""
    if not summary["games"]:
        return "no games"
    parts = []
    for players in summary["by_players"]:
        parts.append(players_heading(summary, players))
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
        share = f"{x['agent']}{copies} {interval_text(x['win_share'], x['win_low'], x['win_high'])}"
        row["win share per seat [95% CI]"] = "; ".join(
            filter(None, [row["win share per seat [95% CI]"], share])
        )
    return list(rows.values())


def seat_rows(summary: dict, players: int) -> list[dict[str, str]]:
    """Each agent's win share by seat, of the games it sat there, and a last row of any agent's (the seat
    advantage)."""
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
            row[f"seat {seat}"] = (
                f"{interval_text(s['win_share'], s['win_low'], s['win_high'])} of {s['games']:,}"
                if s
                else "-"
            )
        rows.append(row)
    return rows


def head_to_head_rows(summary: dict, players: int) -> list[dict[str, str]]:
    """The head-to-head matrix: row A, column B, how often A's seat finished ahead of B's."""
    labels = [a["agent"] for a in summary["agents"] if a["players"] == players]
    cells = {(h["agent"], h["opponent"]): h for h in summary["head_to_head"] if h["players"] == players}
    rows = []
    for a in labels:
        row = {"A ahead of B, seat for seat [95% CI] (A ↓, B →)": a}
        for b in labels:
            h = cells.get((a, b))
            row[b] = (
                f"{interval_text(h['ahead_share'], h['ahead_low'], h['ahead_high'])} of {h['decisive_games']}"
                if h
                else "-"
            )
        rows.append(row)
    return rows
