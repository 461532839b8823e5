"""Language-model seats in a tournament: their counts in the game records, transcripts, and the rates report.

An agent with ``game_reports()`` (``agents.llm.llm_agent.LLMAgent``) gives, for each
game of its batch, counts and a transcript. ``add_reports`` puts them in the
game records: ``record["llm"][seat]`` the counts (``decisions``, ``replies``,
``invalid_replies``, ``fallbacks``, ``prompt_tokens``, ``completion_tokens``,
``network_retries``), ``record["transcripts"][seat]`` the transcript, which the
tournament moves to ``transcripts.jsonl`` (one line per game: line-up, deal,
rotation, seed and the transcripts by seat; written before the game's line in
``games.jsonl``, so a game whose transcript line is there twice after a resumed
run keeps its last one).

``summarise(games)`` gives, per agent label with language-model seats: the
invalid-reply rate (invalid replies / replies) and the fallback rate
(fallbacks / decisions: after the last invalid reply, or after a request whose
reply was unusable, ``agents.llm.llm_agent``), each with a 95% Wilson interval, and tokens per game
(prompt + completion, per seat played) with a 95% Student t interval, its low
end clipped at 0 (a count is never negative; with few games and a wide spread
the t interval reaches below it), next to the numbers of games, decisions and
replies. The intervals treat replies (decisions, games) as independent draws;
the replies of one game are not quite, so read them as slightly optimistic.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cluedo_env.intervals import mean_interval, wilson_interval
from cluedo_env.whole_files import write_whole
from experiments.common.report_tables import interval_text

__all__ = ["TRANSCRIPTS_FILE", "add_reports", "format_table", "pop_transcripts", "summarise", "write"]

TRANSCRIPTS_FILE = "transcripts.jsonl"


def add_reports(records: list[dict], agents: Sequence[object], seats: np.ndarray) -> None:
    """Put each reporting agent's counts and transcripts into the game records (``seats[b, k]``: agent k's seat)."""
    for k, agent in enumerate(agents):
        reports = getattr(agent, "game_reports", None)
        if not callable(reports):
            continue
        for b, (counts, transcript) in enumerate(reports()):
            seat = str(int(seats[b, k]))
            records[b].setdefault("llm", {})[seat] = counts
            records[b].setdefault("transcripts", {})[seat] = transcript


def pop_transcripts(records: list[dict]) -> list[dict]:
    """Take the transcripts out of game records: one line per game that has any."""
    lines = []
    for record in records:
        transcripts = record.pop("transcripts", None)
        if transcripts:
            keys = ("lineup", "deal", "rotation", "seed")
            lines.append({**{k: record[k] for k in keys}, "transcripts": transcripts})
    return lines


def summarise(games: Sequence[dict]) -> dict[str, dict]:
    """Per agent label with language-model seats: counts, rates with intervals, tokens per game."""
    totals: dict[str, dict] = {}
    for game in games:
        for seat, counts in (game.get("llm") or {}).items():
            label = game["seats"][int(seat)]
            entry = totals.setdefault(label, {"games": 0, "tokens": [], **dict.fromkeys(counts, 0)})
            entry["games"] += 1
            entry["tokens"].append(counts["prompt_tokens"] + counts["completion_tokens"])
            for key, value in counts.items():
                entry[key] = entry.get(key, 0) + value
    summary = {}
    for label, entry in sorted(totals.items()):
        tokens = entry.pop("tokens")
        mean, low, high = mean_interval(tokens)
        low = max(low, 0.0) if not math.isnan(low) else low  # a count: the t interval's low end may be < 0
        invalid_low, invalid_high = wilson_interval(entry["invalid_replies"], entry["replies"])
        fallback_low, fallback_high = wilson_interval(entry["fallbacks"], entry["decisions"])
        forfeited = entry.get("forfeited", 0)
        forfeit_low, forfeit_high = wilson_interval(forfeited, entry["games"])
        summary[label] = {
            **entry,
            "invalid_reply_rate": entry["invalid_replies"] / entry["replies"]
            if entry["replies"]
            else float("nan"),
            "invalid_reply_low": invalid_low,
            "invalid_reply_high": invalid_high,
            "fallback_rate": entry["fallbacks"] / entry["decisions"] if entry["decisions"] else float("nan"),
            "fallback_low": fallback_low,
            "fallback_high": fallback_high,
            "forfeit_rate": forfeited / entry["games"],
            "forfeit_low": forfeit_low,
            "forfeit_high": forfeit_high,
            "seconds_per_decision": entry.get("milliseconds", 0) / 1000 / entry["decisions"]
            if entry["decisions"]
            else float("nan"),
            "tokens_per_game": mean,
            "tokens_per_game_low": low,
            "tokens_per_game_high": high,
        }
    return summary


def format_table(summary: dict[str, dict], markdown: bool = False) -> str:
    """The summary as a table (plain text, or Markdown for ``report.md``)."""
    header = ("agent", "games", "decisions", "replies", "invalid replies [95% CI]", "fallbacks [95% CI]",
              "games forfeited [95% CI]", "s per decision", "tokens per game [95% CI]")  # fmt: skip
    rows = [header]
    for label, s in summary.items():
        rows.append(
            (
                label,
                str(s["games"]),
                str(s["decisions"]),
                str(s["replies"]),
                _rate(s["invalid_reply_rate"], s["invalid_reply_low"], s["invalid_reply_high"]),
                _rate(s["fallback_rate"], s["fallback_low"], s["fallback_high"]),
                _rate(s["forfeit_rate"], s["forfeit_low"], s["forfeit_high"]),
                f"{s['seconds_per_decision']:.2f}",
                interval_text(
                    s["tokens_per_game"],
                    s["tokens_per_game_low"],
                    s["tokens_per_game_high"],
                    percent=False,
                    digits=0,
                ),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    if markdown:
        lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in rows]
        lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
        return "\n".join(lines)
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows)


def _rate(value: float, low: float, high: float) -> str:
    return f"{100 * value:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def write(summary: dict[str, dict], out: Path) -> dict[str, str]:
    """``llm.json`` and a section of ``report.md`` (appended) in ``out``, UTF-8 and each written whole
    (``write_whole``: a write that fails leaves the file from before); the paths (with the transcripts')."""
    path = out / "llm.json"
    write_whole(path, json.dumps(summary, indent=2, allow_nan=True) + "\n")
    report = out / "report.md"
    section = (
        "\n## Language-model seats\n\n"
        + format_table(summary, markdown=True)
        + "\n\nInvalid replies: replies that were not one legal command (each was answered with the parser's "
        "error and asked again); fallbacks: decisions taken by the fallback action after the last invalid "
        "reply, or after a request the server never answered with a usable reply (the decision's record in "
        "the transcripts says why). Intervals are 95% (Wilson for rates, Student t for tokens per game, "
        "its low end clipped at 0).\n"
    )
    if report.exists():
        write_whole(report, report.read_text(encoding="utf-8") + section)
    paths = {"llm": str(path)}
    if (out / TRANSCRIPTS_FILE).exists():
        paths["transcripts"] = str(out / TRANSCRIPTS_FILE)
    return paths
