"""The PNG plots of a tournament report: win shares, line-ups, ratings, turns to win, head to head.

Drawn by ``write_plots`` with matplotlib (Agg) from a summary (``experiments.common.summary.summarise``);
the agents of a report have distinct colours, each the same in all its plots (``agent_colours``), and an
agent keeps its colour from run to run unless another agent of the report had it first.
"""

from __future__ import annotations

import colorsys
import hashlib
import itertools
import math
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from cluedo_env.intervals import mean_interval
from experiments.common.report_tables import interval_text

__all__ = ["AGENT_COLOURS", "HISTOGRAM_BINS", "MORE_COLOURS", "OTHER_COLOURS", "agent_colour", "agent_colours",
           "write_plots"]  # fmt: skip

HISTOGRAM_BINS = 40  # at most, of whole turns each

# The project's agents have their own colours; any other label one of OTHER_COLOURS chosen by a hash
# of the name (agent_colour), or the next one free where another agent of the report has it
# (agent_colours), then one of MORE_COLOURS (the light colours of tab20) once OTHER_COLOURS are all taken.
AGENT_COLOURS = {"random": "#7f7f7f", "notepad": "#ff7f0e", "sat": "#1f77b4", "ppo": "#2ca02c"}
OTHER_COLOURS = ("#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79", "#637939")
MORE_COLOURS = ("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7",
                "#dbdb8d", "#9edae5")  # fmt: skip


def agent_colour(label: str) -> str:
    """The plot colour an agent label asks for, the same in every run: its own for the project's agents
    (``AGENT_COLOURS``), else one of ``OTHER_COLOURS`` by a hash of the label. Two labels can ask for
    one colour; ``agent_colours`` gives the agents of a report distinct ones."""
    if label in AGENT_COLOURS:
        return AGENT_COLOURS[label]
    digest = hashlib.blake2b(label.encode(), digest_size=4).digest()
    return OTHER_COLOURS[int.from_bytes(digest, "little") % len(OTHER_COLOURS)]


def agent_colours(labels: Iterable[str]) -> dict[str, str]:
    """A distinct plot colour for each agent label of a report (each of its plots uses these).

    The project's agents get their own; the other labels, in sorted order, the colour they ask for
    (``agent_colour``) where no label before them took it, else the next free one of ``OTHER_COLOURS``
    (in the palette's order, wrapping round), then of ``MORE_COLOURS``, then hues spread round the
    colour wheel. So an agent keeps its colour from run to run unless another label of the report
    asks for the same one and sorts before it.
    """
    labels = sorted(set(labels))
    colours = {label: AGENT_COLOURS[label] for label in labels if label in AGENT_COLOURS}
    taken = set(colours.values())
    spare = (colour for colour in _hues() if colour not in taken)
    for label in labels:
        if label in colours:
            continue
        first = OTHER_COLOURS.index(agent_colour(label))
        free = [c for c in OTHER_COLOURS[first:] + OTHER_COLOURS[:first] + MORE_COLOURS if c not in taken]
        colours[label] = free[0] if free else next(spare)
        taken.add(colours[label])
    return colours


def _hues() -> Iterator[str]:
    """Colours for the labels past the palettes: hues a golden angle apart, at two lightnesses."""
    for n in itertools.count():
        red, green, blue = colorsys.hls_to_rgb((n * 0.618034) % 1, 0.4 + 0.2 * (n % 2), 0.6)
        yield f"#{round(255 * red):02x}{round(255 * green):02x}{round(255 * blue):02x}"


def _fair_lines(players: int, no_winner: float) -> list[tuple[float, str, str]]:
    """The reference lines of a win share, ``(share, line style, label)``: the fair share 1/N (dashed), and
    where a share ``no_winner`` of the games had no winner (a loss for every seat) the even share of the
    decided games, ``(1 - no_winner)/N`` (dotted), which is what the seats' shares average."""
    if not no_winner:
        return [(1 / players, "--", f"fair share 1/{players}")]
    even = (1 - no_winner) / players
    label = f"even share of the decided games, (1 - {100 * no_winner:.1f}%)/{players} = {100 * even:.1f}%"
    return [(1 / players, "--", f"fair share 1/{players} of all games"), (even, ":", label)]


def write_plots(summary: dict, out: Path) -> dict[str, Path]:
    """Write the PNG plots of a summary into ``out`` (matplotlib, Agg): win shares, line-ups, ratings,
    turns to win, head to head; returns ``"<name>_plot"`` -> file written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    colour = agent_colours([*summary["ratings"], *(a["agent"] for a in summary["agents"])])
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
        fair = _fair_lines(players, summary["by_players"][players]["no_winner_share"])
        ax = axes[row, 0]
        y = np.arange(len(agents))
        share = np.array([a["win_share"] for a in agents])
        err = np.array([share - [a["win_low"] for a in agents], [a["win_high"] for a in agents] - share])
        err = np.maximum(err, 0)
        ax.barh(y, share, xerr=err, color=[colour[a["agent"]] for a in agents], alpha=0.85, capsize=4)
        for i, a in enumerate(agents):
            ax.text(a["win_high"] + 0.01, i, f"{100 * a['win_share']:.1f}%", va="center", fontsize=9)
        for share, style, label in fair:
            ax.axvline(share, color="black", linestyle=style, linewidth=1, label=label)
        lineups_of = {a["agent"]: {x["lineup"] for x in summary["lineups"] if x["players"] == players
                                   and x["agent"] == a["agent"]} for a in agents}  # fmt: skip
        ax.set_yticks(y, [f"{a['agent']}\n{a['seats_played']:,} seats, {len(lineups_of[a['agent']])} line-up"
                          f"{'s' if len(lineups_of[a['agent']]) > 1 else ''}" for a in agents], fontsize=8)  # fmt: skip
        ax.set_xlim(0, min(1.05, max(1 / players, *(a["win_high"] for a in agents)) + 0.12))
        lines = f"dashed: fair share 1/{players}" + (
            f"; dotted: even share of the decided games, {100 * fair[1][0]:.1f}%" if len(fair) > 1 else ""
        )
        # (said here, not in a legend: one inside would cover the last agent's bar)
        ax.set_xlabel(f"win share of the seats played (bars: 95% Wilson interval)\n{lines}", fontsize=9)
        pooled = len(set().union(*lineups_of.values()))
        ax.set_title(f"{players} players: win share, each agent pooled over the line-ups it sat in\n"
                     f"({pooled} line-ups, opponents differ between them: one by one in lineups.png)"
                     if pooled > 1 else f"{players} players: win share", fontsize=10)  # fmt: skip
        ax = axes[row, 1]
        width = 0.8 / len(agents)
        seat_games = [s["games"] for s in summary["seats"] if s["players"] == players]
        for i, a in enumerate(agents[::-1]):
            cells = [s for s in summary["seats"] if s["players"] == players and s["agent"] == a["agent"]]
            x = np.array([c["seat"] for c in cells]) + (i - (len(agents) - 1) / 2) * width
            vals = np.array([c["win_share"] for c in cells])
            errs = np.array([vals - [c["win_low"] for c in cells], [c["win_high"] for c in cells] - vals])
            errs = np.maximum(errs, 0)
            ax.bar(
                x, vals, width, yerr=errs, capsize=2, color=colour[a["agent"]], alpha=0.85, label=a["agent"]
            )
        for share, style, label in fair:
            ax.axhline(share, color="black", linestyle=style, linewidth=1, label=label)
        ax.set_xticks(range(players), [f"seat {s}" for s in range(players)])
        ax.set_ylabel("win share")
        fewest, most = min(seat_games), max(seat_games)
        each = f"{fewest:,}" if fewest == most else f"{fewest:,} to {most:,}"
        ax.set_title(f"{players} players: win share by seat (player index)\nbars: 95% Wilson, {each} games each",
                     fontsize=10)  # fmt: skip
        # Right of the panel: bars and intervals reach up to 1.0, where a legend inside would cover them.
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ax.set_ylim(0, min(1.05, ax.get_ylim()[1]))
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
                ax.text(1.02, y, f"{x['agent']}{copies} {interval_text(x['win_share'], x['win_low'], x['win_high'])}",
                        va="center", fontsize=8, transform=ax.get_yaxis_transform())  # fmt: skip
                y += 1
            for share, style, _ in _fair_lines(players, mine[0]["no_winner_share"]):
                ax.plot([share] * 2, [top - 0.5, y - 0.5], color="black", linestyle=style, linewidth=1)
            ticks.append((top + y - 1) / 2)
            names.append(
                f"{lineup}\n({f'{players}p, ' if len(counts) > 1 else ''}{mine[0]['games']:,} games)"
            )
            y += 0.6
    ax.set_yticks(ticks, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    decided = "; dotted: 1/N of its decided games" if any(x["no_winner_share"] for x in rows) else ""
    ax.set_xlabel(
        f"win share per seat in the line-up (bars: 95% Wilson interval; dashed: fair share 1/N{decided})"
    )
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
    pooled = " (all player counts rated together)" if len(counts) > 1 else ""
    ax.set_title(f"Ratings over {summary['games']:,} games{pooled}: ordinal = mu - 3 sigma", fontsize=10)
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
                f"{interval_text(mean, max(low, 0.0), high, percent=False)}, median {np.median(turns):.0f} turns",
                fontsize=9,
                loc="left",
            )
            ax.set_ylabel("games")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count: no half games
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
