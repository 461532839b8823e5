"""An RLlib run next to a ``train_ppo`` run: agent-steps/s and win rates over agent-steps, side by side.

    python -m experiments.plot_rllib runs/rllib__<run> --ppo-run runs/cluedo_v0__<run> \\
        --png docs/results/2026-12-01-rllib-vs-ppo/rllib_vs_ppo.png --json docs/results/2026-12-01-rllib-vs-ppo/rllib_vs_ppo.json

Three panels over agent-steps (every player's decisions, the budget of both
trainers): throughput (``charts/SPS`` of each run's TensorBoard file: agent-steps
done since the start over the seconds since the start, evaluations and
checkpoints included), and the win rate against ``num_players - 1`` players of
each evaluation kind (default ``random_never`` and ``notepad``), every point with
its 95% Wilson interval; the JSON has the game counts. The RLlib points come
from the run's ``evaluations.json`` (``experiments/train_rllib.py``), the PPO
points as ``experiments.plot_sb3`` reads them. With ``--shipped``, the win-rate
panels also show the evaluations of the run that trained the shipped PPO model
(``agents/ppo/shipped/training_curves.json``: its curriculum of random players,
notepad players and snapshots, 100 games a point) up to the RLlib run's budget.

Throughput depends on how busy the machine was: ``--rllib-load`` and ``--ppo-load`` say under what
load each run was timed (for example ``"load average 5 to 21"``), and the throughput panel names
them ("not recorded" otherwise). ``--points`` redraws the figure from an earlier ``--json`` file,
when the runs are no longer at hand (a file of another shape is refused in one line, ``read_points``):

    python -m experiments.plot_rllib --points docs/results/2026-12-01-rllib-vs-ppo/rllib_vs_ppo.json \
        --png docs/results/2026-12-01-rllib-vs-ppo/rllib_vs_ppo.png
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
from experiments.learning.curves import ppo_run_points, sb3_points, shipped_points
from experiments.learning.run_logs import figure_path

RLLIB = "RLlib PPO (experiments/train_rllib.py)"
PPO = "project PPO (experiments/train_ppo.py)"
SHIPPED_RUN = "project PPO, the shipped model's run (curriculum)"
NOT_RECORDED = "machine load not recorded"


POINT_KEYS = ("agent_steps", "win_rate", "low", "high")  # of each win-rate point of a --json file
POINTS = "a JSON file for the points (e.g. points.json)"


def _numbers(values: object) -> bool:
    """Whether ``values`` is a list of numbers (a bool is none)."""
    return isinstance(values, list) and all(
        isinstance(value, int | float) and not isinstance(value, bool) for value in values
    )


def read_points(path: Path) -> tuple[dict[str, dict], dict[str, dict[str, list[dict]]], dict[str, str]]:
    """``(throughput, win rates, loads)`` of an earlier ``--json`` file, checked to be what ``main`` writes:
    ``{"throughput": {trainer: {"agent_steps": [...], "agent_steps_per_second": [...]}}, "win_rates":
    {trainer: {label: [{"agent_steps", "win_rate", "low", "high": numbers}, ...]}}, "loads": {trainer:
    text}}`` (``loads`` may be absent).

    Raises:
        ValueError: naming the file and what it must hold.
    """
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"{path}: not readable JSON ({(str(error).splitlines() or [''])[0]})") from None
    if not isinstance(earlier, dict):
        earlier = {}
    speed, rates, loads = earlier.get("throughput"), earlier.get("win_rates"), earlier.get("loads", {})
    speed_ok = isinstance(speed, dict) and all(
        isinstance(curve, dict)
        and _numbers(curve.get("agent_steps"))
        and _numbers(curve.get("agent_steps_per_second"))
        and len(curve["agent_steps"]) == len(curve["agent_steps_per_second"])
        for curve in speed.values()
    )
    rates_ok = isinstance(rates, dict) and all(
        isinstance(by_label, dict)
        and all(
            isinstance(points, list)
            and all(isinstance(p, dict) and all(_numbers([p.get(key)]) for key in POINT_KEYS) for p in points)
            for points in by_label.values()
        )
        for by_label in rates.values()
    )
    loads_ok = isinstance(loads, dict) and all(isinstance(load, str) for load in loads.values())
    if not (speed_ok and rates_ok and loads_ok):
        raise ValueError(
            f"{path}: not the points of an earlier --json: an object of throughput ({{trainer: {{agent_steps, "
            f"agent_steps_per_second: lists of numbers}}}}), win_rates ({{trainer: {{label: [points with the "
            f"numbers {', '.join(POINT_KEYS)}]}}}}) and loads ({{trainer: text}})"
        )
    return speed, rates, loads


def throughput(run_dir: Path) -> dict[str, list[float]]:
    """``{"agent_steps": [...], "agent_steps_per_second": [...]}`` of a run's ``charts/SPS``."""
    from experiments.learning.run_logs import scalars

    steps, sps = scalars(run_dir)["charts/SPS"]
    # a resumed run repeats the steps after its checkpoint: keep the points that move forward
    forward = steps > np.maximum.accumulate(np.concatenate([[-1], steps[:-1]]))
    return {"agent_steps": steps[forward].tolist(), "agent_steps_per_second": sps[forward].tolist()}


def figure(
    speed: dict[str, dict], rates: dict[str, dict[str, list[dict]]], labels: list[str], loads: dict[str, str]
):
    """Throughput and one win-rate panel per evaluation kind, one line per trainer; ``loads`` says
    under what machine load each trainer's throughput was measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 1 + len(labels), figsize=(5 * (1 + len(labels)), 4.2))
    for name, curve in speed.items():
        load = loads.get(name, NOT_RECORDED)
        axes[0].plot(
            np.array(curve["agent_steps"]) / 1e6, curve["agent_steps_per_second"], label=f"{name}\n{load}"
        )
    axes[0].set(
        title="throughput (timed under different loads: see each run)",
        xlabel="agent-steps (millions)",
        ylabel="agent-steps/s (since the start)",
        ylim=(0, None),
    )
    axes[0].legend(fontsize=8)
    for ax, label in zip(axes[1:], labels):
        for name, by_label in rates.items():
            points = by_label.get(label)
            if not points:  # e.g. the shipped run's first evaluation lies beyond the budget
                continue
            x = np.array([p["agent_steps"] for p in points]) / 1e6
            y = np.array([p["win_rate"] for p in points])
            interval = np.array([[p["low"] for p in points], [p["high"] for p in points]])
            err = np.abs(interval - y)  # the distances below and above the rate
            # two evaluations are two points, not a curve: joined only from three on
            ax.errorbar(
                x,
                y,
                yerr=err,
                marker="o",
                capsize=3,
                linestyle="-" if len(points) > 2 else "none",
                label=name,
            )
        ax.axhline(0.9, color="grey", linestyle=":", linewidth=1, label="90%")
        ax.set(
            title=f"win rate against {label} in every other seat (95% Wilson)",
            xlabel="agent-steps (millions)",
            ylabel="win rate",
            ylim=(0, 1),
        )
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> None:
    replace_unencodable()
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {__doc__.partition(chr(10))[0]}")
    parser.add_argument("rllib_run", type=Path, nargs="?", help="a run folder of experiments.train_rllib")
    parser.add_argument("--ppo-run", type=Path, help="a run folder of experiments.train_ppo")
    parser.add_argument("--points", type=Path, help="redraw from this earlier --json file instead of runs")
    parser.add_argument(
        "--labels", nargs="+", default=["random_never", "notepad"], help="evaluation opponents"
    )
    parser.add_argument(
        "--shipped",
        action="store_true",
        help="also the shipped PPO model's evaluations, up to the RLlib run's agent-steps",
    )
    parser.add_argument(
        "--rllib-load", help='the machine load the RLlib run was timed under, e.g. "load average 5 to 21"'
    )
    parser.add_argument("--ppo-load", help="the machine load the train_ppo run was timed under")
    figure_options(
        parser, "<rllib_run>/rllib_vs_ppo.png", POINTS, "also write the points (with game counts) here"
    )
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    args = parser.parse_args(argv)
    if (args.points is None) == (args.rllib_run is None and args.ppo_run is None):
        parser.error("give either an RLlib run folder with --ppo-run, or --points FILE (an earlier --json)")
    if args.points is None and (args.rllib_run is None or args.ppo_run is None):
        parser.error("an RLlib run folder and --ppo-run go together")
    if args.points is not None and (args.png is None or args.shipped):
        parser.error("--points redraws what the file holds: give --png, and no --shipped")
    # (a link in a downloaded run folder would have the figure written over the file it points to)
    png = figure_path(parser, figure_file(args.png), args.rllib_run, "rllib_vs_ppo.png")
    refuse_files(parser, {"--png": (png, FIGURE), "--json": (args.json, POINTS)})  # before reading the runs
    try:
        if args.points is not None:
            try:
                speed, rates, loads = read_points(args.points)
            except ValueError as error:
                parser.error(str(error))
        else:
            speed = {RLLIB: throughput(args.rllib_run), PPO: throughput(args.ppo_run)}
            # train_rllib's evaluations.json has train_sb3's layout (one line per evaluation)
            rates = {
                RLLIB: {label: sb3_points(args.rllib_run, label) for label in args.labels},
                PPO: {label: ppo_run_points(args.ppo_run, label) for label in args.labels},
            }
            if args.shipped:
                budget = max(speed[RLLIB]["agent_steps"])
                rates[SHIPPED_RUN] = {label: shipped_points(label, budget) for label in args.labels}
            loads = {}
        loads |= {name: load for name, load in ((RLLIB, args.rllib_load), (PPO, args.ppo_load)) if load}
        labels = [label for label in args.labels if any(label in by_label for by_label in rates.values())]
        png.parent.mkdir(parents=True, exist_ok=True)
        figure(speed, rates, labels, loads).savefig(png, dpi=100)
    except ModuleNotFoundError as error:  # tensorboard, omegaconf and matplotlib come with extras
        raise missing_extra(error, command=True) from error
    print(f"figure: {png}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"throughput": speed, "win_rates": rates, "loads": loads}, indent=1), encoding="utf-8"
        )
        print(f"points: {args.json}")


if __name__ == "__main__":
    main()
