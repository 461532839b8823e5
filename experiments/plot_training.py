"""Learning curves of a PPO run: export its TensorBoard scalars and plot them.

    python -m experiments.plot_training runs/<run folder>
    python -m experiments.plot_training runs/<run folder> --png docs/results/2026-11-30-ppo-learning-curve/ppo_learning_curve.png \\
        --json agents/ppo/shipped/training_curves.json --title "Shipped PPO"
    python -m experiments.plot_training agents/ppo/shipped --png docs/results/2026-11-30-ppo-learning-curve/ppo_learning_curve.png --title "Shipped PPO"

The source is a run folder of ``experiments.train_ppo`` (TensorBoard events,
``config.yaml``, ``evaluation.json``) or a folder holding exported curves
(``training_curves.json``, with the run's ``train_ppo.yaml`` and
``evaluation.json`` beside them, as ``agents/ppo/shipped``).

The figure has two panels: the evaluation win rates (``eval/win_rate/*``, the
fixed evaluation set of ``experiments/train_ppo.py``), each point with its 95%
Wilson interval over the ``eval_games`` games it counts, the final evaluation
(``final_eval_games`` games) as a diamond, and the fair share of the table for
the opponents that can win (a never-accusing opponent cannot); and the
learner's training return (``charts/episodic_return``). Both panels mark the changes of the
training opponents' pool (``curriculum_events``: a kind of opponent joining or leaving, snapshots of
the learner joining), which explain the jumps of the return. The JSON holds
``{tag: [steps, values]}`` for the tags worth keeping beside a shipped model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cluedo_env import __version__
from experiments.common.extras import missing_extra
from experiments.common.intervals import wilson_interval
from experiments.learning.run_logs import CURVES_FILE, scalars

EXPORTED_PREFIXES = ("charts/", "eval/", "losses/entropy", "losses/explained_variance")
LABELS = {"random_never": "vs 3 random (never accuse)", "notepad": "vs 3 notepad"}
CONFIG_FILES = ("config.yaml", "train_ppo.yaml")  # a run folder's, a shipped model's


def run_config(run_dir: str | Path) -> dict[str, Any]:
    """The run's training config (``config.yaml`` or ``train_ppo.yaml`` in the folder)."""
    for name in CONFIG_FILES:
        path = Path(run_dir) / name
        if path.exists():
            return yaml.safe_load(path.read_text())
    raise FileNotFoundError(f"no {' or '.join(CONFIG_FILES)} in {run_dir}: the evaluation's size is unknown")


def final_evaluation(run_dir: str | Path) -> dict[str, dict[str, Any]]:
    """The run's final evaluation (``evaluation.json``): ``{opponent: {"games", "wins", ...}}``; empty if none."""
    path = Path(run_dir) / "evaluation.json"
    return json.loads(path.read_text())["results"] if path.exists() else {}


def export(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: str | Path) -> None:
    """Write the curves worth keeping (``EXPORTED_PREFIXES``) as ``{tag: [steps, values]}``."""
    kept = {
        tag: [steps.tolist(), [round(float(v), 6) for v in values]]
        for tag, (steps, values) in curves.items()
        if tag.startswith(EXPORTED_PREFIXES)
    }
    Path(path).write_text(json.dumps(kept))


def can_win(opponent: dict[str, Any]) -> bool:
    """Whether an evaluation opponent (a config entry) can ever win: a never-accusing one cannot."""
    return (opponent.get("options") or {}).get("accuse") != "never"


def curriculum_events(config: dict[str, Any]) -> list[tuple[float, str]]:
    """The agent-steps at which the training opponents' pool changes, with what changes: each kind's
    ``start`` and ``stop`` (fractions of ``total_timesteps``) inside the run, and ``snapshot_start``."""
    total = float(config["total_timesteps"])
    events = []
    for o in config.get("opponents") or []:
        name = o.get("label") or o["name"]
        if float(o.get("start", 0.0)) > 0.0:
            events.append((float(o["start"]) * total, f"{name} players join the pool"))
        if float(o.get("stop", 1.0)) < 1.0:
            events.append((float(o["stop"]) * total, f"{name} players leave the pool"))
    if int(config.get("snapshot_every") or 0) > 0:
        events.append((float(config.get("snapshot_start", 0.0)) * total, "snapshots of the learner join"))
    return sorted(events)


def figure(
    curves: dict[str, tuple[np.ndarray, np.ndarray]],
    config: dict[str, Any],
    final: dict[str, dict[str, Any]] | None = None,
    title: str = "PPO",
):
    """The two-panel learning-curve figure (evaluation win rates with intervals, training return).

    Args:
        curves: ``{tag: (steps, values)}`` (``scalars``).
        config: The run's training config (``eval_games``, ``eval_opponents``, ``game.num_players``).
        final: The final evaluation (``final_evaluation``), drawn at the last step.
        title: Title of the win-rate panel.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    players = config["game"]["num_players"]
    n = int(config["eval_games"])
    opponents = {o.get("label") or o["name"]: o for o in config["eval_opponents"]}
    last = max(int(steps.max()) for steps, _ in curves.values() if len(steps))
    scale, unit, suffix = (1e6, "millions", "M") if last >= 2e6 else (1e3, "thousands", "k")

    fig, (wins, returns) = plt.subplots(1, 2, figsize=(12, 5.2), sharex=True)
    for index, name in enumerate(sorted(opponents)):
        colour = f"C{index}"
        label = LABELS.get(name, f"vs {name}")
        if f"eval/win_rate/{name}" in curves:
            steps, rates = curves[f"eval/win_rate/{name}"]
            k = np.rint(rates * n).astype(int)
            bounds = np.array([wilson_interval(int(w), n) for w in k]).T
            wins.errorbar(steps / scale, rates, yerr=np.abs(bounds - rates), marker="o", markersize=4,
                          capsize=2, color=colour, label=f"{label} ({n} games each)")  # fmt: skip
        if final and name in final:
            result = final[name]
            low, high = wilson_interval(result["wins"], result["games"])
            rate = result["wins"] / result["games"]
            # Drawn just beside the last evaluation (same step), not over it.
            wins.errorbar([1.015 * last / scale], [rate], yerr=[[rate - low], [high - rate]], marker="D",
                          markersize=7, capsize=4, color=colour, markeredgecolor="black",
                          label=f"{label}, final: {100 * rate:.1f}% of {result['games']}")  # fmt: skip
    winnable = [LABELS.get(name, name).removeprefix("vs ") for name, o in opponents.items() if can_win(o)]
    if winnable:
        wins.axhline(1 / players, color="black", linestyle="--", linewidth=1,
                     label=f"fair share 1/{players} (vs {', '.join(winnable)})")  # fmt: skip
    wins.set(
        title=f"{title}: evaluation win rate (bars: 95% Wilson)",
        xlabel=f"agent-steps ({unit})",
        ylabel="win rate",
        ylim=(0, 1.02),
    )
    wins.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2, fontsize=8)
    wins.set_xlim(0, 1.04 * last / scale)
    if "charts/episodic_return" in curves:
        steps, values = curves["charts/episodic_return"]
        returns.plot(steps / scale, values, linewidth=0.8)
    returns.set(
        title="Training return (learner seat, pool opponents)",
        xlabel=f"agent-steps ({unit})",
        ylabel="episodic return",
    )
    for ax in (wins, returns):
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
        for step, what in curriculum_events(config):
            if 0 < step <= last:
                ax.axvline(step / scale, color="grey", linestyle=":", linewidth=1)
                if ax is returns:  # the labels once, where the return shows what they explain
                    ax.annotate(
                        f"{what} ({step / scale:.1f}{suffix})",
                        (step / scale, 0.02),
                        xycoords=("data", "axes fraction"),
                        xytext=(3, 0),
                        textcoords="offset points",
                        rotation=90,
                        va="bottom",
                        fontsize=7,
                        color="dimgrey",
                        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1},
                    )
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> None:
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument(
        "run_dir", type=Path, help=f"a run folder of experiments.train_ppo, or a folder with {CURVES_FILE}"
    )
    parser.add_argument("--png", type=Path, help="figure path (default: <run_dir>/learning_curve.png)")
    parser.add_argument("--json", type=Path, help="also export the curves to this JSON file")
    parser.add_argument("--title", default="PPO", help="title of the win-rate panel")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    args = parser.parse_args(argv)
    png = args.png or args.run_dir / "learning_curve.png"
    try:
        curves = scalars(args.run_dir)
        fig = figure(curves, run_config(args.run_dir), final_evaluation(args.run_dir), args.title)
        fig.savefig(png, dpi=100)
    except ModuleNotFoundError as error:  # tensorboard and matplotlib come with extras
        raise missing_extra(error, command=True) from error
    print(f"figure: {png}")
    if args.json:
        export(curves, args.json)
        print(f"curves: {args.json}")


if __name__ == "__main__":
    main()
