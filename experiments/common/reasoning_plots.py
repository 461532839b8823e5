"""The reasoning benchmark's plots (``experiments.reasoning_bench``): ``tiers.png`` (F1 and excess log-loss
by tier, recall by the weakest reasoning that finds a fact, with their 95% intervals) and
``calibration.png`` (the solver's probabilities against the exact ones, binned)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import numpy as np

from cluedo_env.reasoning.ladder import LABELS
from experiments.common.write_failures import writing

matplotlib.use("Agg")
import matplotlib.pyplot as plt

__all__ = ["INTERVALS", "MIN_GAMES_FOR_INTERVAL", "games_of", "plot_calibration", "plot_tiers"]

# a group from fewer games (the bootstrap's units) shows its value without an interval: resampling
# a handful of games gives an interval that says more than they can
MIN_GAMES_FOR_INTERVAL = 10
INTERVALS = "95% intervals over {units} (bootstrap; Wilson's for a share of 0 or 1)"  # a report's, as it says


def games_of(group: dict[str, Any]) -> int:
    """The bootstrap's units of a summary group: its games (its tasks where the games are not known)."""
    return group.get("games", group["tasks"])


def _bars(ax: Any, values: list[dict[str, float]], names: list[str], title: str, games: list[int]) -> None:
    """Bars of ``values`` with their intervals, but none for a group of fewer than
    ``MIN_GAMES_FOR_INTERVAL`` games (``games``: each bar's), as in the table; each bar's value is
    written on it (a 0 draws no bar), and a bar without an interval says why."""
    mid = np.array([v["value"] for v in values])
    err = np.array([[v["value"] - v["low"] for v in values], [v["high"] - v["value"] for v in values]])
    few = np.asarray(games) < MIN_GAMES_FOR_INTERVAL
    err[:, few] = np.nan
    shown = np.isfinite(mid)
    x = np.arange(len(values))
    ax.bar(x[shown], mid[shown], yerr=err[:, shown], capsize=4, color="tab:blue")
    for k in range(len(values)):
        said = (
            "n/a"
            if not shown[k]
            else f"{mid[k]:.2f}" + (f"\nno CI:\n<{MIN_GAMES_FOR_INTERVAL} games" if few[k] else "")
        )
        ax.text(k, 0, said, ha="center", va="bottom", fontsize=7,
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1})  # fmt: skip
    ax.set_xticks(x, names, fontsize=8)
    ax.set_title(title, fontsize=10)


def plot_tiers(summary: dict[str, Any], solver: str, path: Path) -> None:
    tiers = list(summary["tiers"])
    overall = summary["overall"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    names = [f"{t}\n(n={summary['tiers'][t]['tasks']})" for t in tiers]
    games = [games_of(summary["tiers"][t]) for t in tiers]
    _bars(axes[0], [summary["tiers"][t]["f1"] for t in tiers], names, "F1 on certain facts, by tier", games)
    _bars(
        axes[1],
        [summary["tiers"][t]["excess_log_loss"] for t in tiers],
        names,
        "excess log-loss by tier (nats/card; 0 = exact)",
        games,
    )
    recalls = [overall[f"recall_{label}"] for label in LABELS]
    _bars(
        axes[2],
        recalls,
        [
            f"{label.replace('_', chr(10))}\n({r['facts']} facts)"
            for label, r in zip(LABELS, recalls, strict=True)
        ],
        "recall by the weakest reasoning that finds a fact",
        [r["units"] for r in recalls],  # each label's own games (or tasks) with such facts
    )
    axes[0].set_ylim(0, 1.05)  # (F1 and recall are in [0, 1]; a solver with none is drawn at 0, not centred)
    axes[2].set_ylim(0, 1.05)
    units = f" of {overall['games']} games, {INTERVALS.format(units='games')}" if "games" in overall else ""
    fig.suptitle(
        f"{solver}: {overall['tasks']} tasks{units or ', ' + INTERVALS.format(units='tasks')}", fontsize=11
    )
    fig.tight_layout()
    with writing(path):
        fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_calibration(summary: dict[str, Any], solver: str, path: Path) -> None:
    bins = summary["calibration"]["bins"]
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
    if bins:
        counts = np.array([b["count"] for b in bins])
        ax.scatter(
            [b["mean_claimed"] for b in bins],
            [b["mean_exact"] for b in bins],
            s=20 + 200 * counts / counts.max(),
            color="tab:orange",
        )
        for b in bins:  # each bin's number of cards beside it
            ax.annotate(str(b["count"]), (b["mean_claimed"], b["mean_exact"]), xytext=(6, -3),
                        textcoords="offset points", fontsize=7)  # fmt: skip
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("solver's P(card in envelope), binned")
    ax.set_ylabel("exact P(card in envelope), bin mean")
    cal = summary["calibration"]
    games = f" of {summary['overall']['games']} games" if "games" in summary["overall"] else ""
    ax.set_title(
        f"{solver}: ECE {cal['ece']:.4f}\n({cal['pairs']} cards{games}, all but certain ones answered "
        "right;\nnumbers: cards a bin)",
        fontsize=9,
    )
    fig.tight_layout()
    with writing(path):
        fig.savefig(path, dpi=110)
    plt.close(fig)
