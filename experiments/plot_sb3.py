"""The SB3 recipe's learning curve next to the project's PPO: win rate over agent-steps, with 95% intervals.

    python -m experiments.plot_sb3 runs/sb3__<run> --ppo-run runs/cluedo_v0__<run> \\
        --png docs/results/2026-12-01-sb3-vs-ppo/sb3_vs_ppo.png --json docs/results/2026-12-01-sb3-vs-ppo/sb3_vs_ppo.json
    python -m experiments.plot_sb3 --earlier docs/results/2026-12-01-sb3-vs-ppo/sb3_vs_ppo.json \\
        --png docs/results/2026-12-01-sb3-vs-ppo/sb3_vs_ppo.png   # redrawn from the points alone

Every point is an evaluation against ``num_players - 1`` opponents of one kind
(default ``random_never``): its win rate, its 95% Wilson interval and, in the
JSON, its game count. The SB3 points come from the run's ``evaluations.json``
(``experiments/train_sb3.py``); the PPO points from a ``train_ppo`` run folder
(``eval/win_rate/<label>`` in its TensorBoard file, ``eval_games`` from its
``config.yaml``, the final evaluation from ``evaluation.json``) and/or from the
shipped model's curves (``agents/ppo/shipped/training_curves.json`` with its
``train_ppo.yaml``), up to ``--max-steps`` agent-steps. Evaluations are joined by a line only
where a series has three or more: two points are drawn as points.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from cluedo_env import __version__
from cluedo_env.console import replace_unencodable
from experiments.common.extras import missing_extra
from experiments.common.output_paths import FIGURE, figure_file, figure_options, refuse_files
from experiments.learning.curves import earlier_series, ppo_run_points, sb3_name, sb3_points, shipped_points
from experiments.learning.run_logs import figure_path

POINTS = "a JSON file for the points (e.g. points.json)"


def figure(series: dict[str, list[dict]], title: str):
    """Win rate over agent-steps, one line with 95% error bars per series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, points in series.items():
        x = np.array([p["agent_steps"] for p in points]) / 1e6
        y = np.array([p["win_rate"] for p in points])
        err = np.array(
            [[p["win_rate"] - p["low"] for p in points], [p["high"] - p["win_rate"] for p in points]]
        )
        # two evaluations are two points, not a curve: joined only from three on
        ax.errorbar(
            x, y, yerr=err, marker="o", capsize=3, linestyle="-" if len(points) > 2 else "none", label=name
        )
    ax.axhline(0.8, color="grey", linestyle=":", linewidth=1, label="80%")
    ax.set(
        title=title, xlabel="agent-steps (millions, every player's decisions)", ylabel="win rate", ylim=(0, 1)
    )
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> None:
    replace_unencodable()
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {__doc__.partition(chr(10))[0]}")
    parser.add_argument(
        "sb3_run", type=Path, nargs="?", help="a run folder of experiments.train_sb3 (or only --earlier)"
    )
    parser.add_argument("--ppo-run", type=Path, help="a run folder of experiments.train_ppo (same budget)")
    parser.add_argument("--shipped", action="store_true", help="add the shipped PPO run's evaluations")
    parser.add_argument(
        "--earlier",
        type=Path,
        help="also draw the series of an earlier --json file (runs no longer at hand); a series of "
        "the same name from the runs above replaces it",
    )
    parser.add_argument(
        "--rename",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="give an --earlier series a new name (repeatable)",
    )
    parser.add_argument("--max-steps", type=float, default=7e6, help="agent-steps of the shipped curve shown")
    parser.add_argument("--label", default="random_never", help="the evaluation opponents")
    figure_options(
        parser, "<sb3_run>/sb3_vs_ppo.png", POINTS, "also write the points (with game counts) here"
    )
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    args = parser.parse_args(argv)
    if args.sb3_run is None and (args.earlier is None or args.png is None):
        parser.error("give an SB3 run folder, or redraw an --earlier file with --png")
    # (a link in a downloaded run folder would have the figure written over the file it points to)
    png = figure_path(parser, figure_file(args.png), args.sb3_run, "sb3_vs_ppo.png")
    refuse_files(parser, {"--png": (png, FIGURE), "--json": (args.json, POINTS)})  # before reading the runs
    try:
        series = earlier_series(args.earlier, args.rename) if args.earlier else {}
        if args.sb3_run is not None:
            series[sb3_name(args.sb3_run)] = sb3_points(args.sb3_run, args.label)
        if args.ppo_run:
            series["project PPO, same budget (train_ppo)"] = ppo_run_points(args.ppo_run, args.label)
        if args.shipped:
            series["project PPO, shipped 50M run"] = shipped_points(args.label, args.max_steps)
        png.parent.mkdir(parents=True, exist_ok=True)
        figure(series, f"Win rate against {args.label} in every other seat (95% Wilson intervals)").savefig(
            png, dpi=100
        )
    except ModuleNotFoundError as error:  # tensorboard, omegaconf and matplotlib come with extras
        raise missing_extra(error, command=True) from error
    print(f"figure: {png}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(series, indent=1), encoding="utf-8")
        print(f"points: {args.json}")


if __name__ == "__main__":
    main()
