"""Learning curves of a PPO run: export its TensorBoard scalars and plot them.

    python -m experiments.plot_training runs/<run folder>
    python -m experiments.plot_training runs/<run folder> --png docs/ppo_learning_curve.png \\
        --json agents/ppo/shipped/training_curves.json --title "Shipped PPO"

The figure has two panels: the evaluation win rates (``eval/win_rate/*``, the
fixed evaluation set of ``experiments/train_ppo.py``) with the fair share of the
table, and the learner's training return (``charts/episodic_return``). The JSON
holds ``{tag: [steps, values]}`` for the tags worth keeping beside a shipped model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from cluedo_env import __version__
from experiments.extras import missing_extra

EXPORTED_PREFIXES = ("charts/", "eval/", "losses/entropy", "losses/explained_variance")
LABELS = {"random_never": "vs 3 random (never accuse)", "notepad": "vs 3 notepad"}


def scalars(run_dir: str | Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{tag: (steps, values)}`` of every scalar logged in a run folder."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = Path(run_dir)
    if not any(run_dir.glob("events.out.tfevents.*")):
        raise FileNotFoundError(f"no TensorBoard event file in {run_dir}")
    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {
        tag: (
            np.array([e.step for e in events.Scalars(tag)]),
            np.array([e.value for e in events.Scalars(tag)]),
        )
        for tag in events.Tags()["scalars"]
    }


def export(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: str | Path) -> None:
    """Write the curves worth keeping (``EXPORTED_PREFIXES``) as ``{tag: [steps, values]}``."""
    kept = {
        tag: [steps.tolist(), [round(float(v), 6) for v in values]]
        for tag, (steps, values) in curves.items()
        if tag.startswith(EXPORTED_PREFIXES)
    }
    Path(path).write_text(json.dumps(kept))


def figure(curves: dict[str, tuple[np.ndarray, np.ndarray]], title: str = "PPO", num_players: int = 4):
    """The two-panel learning-curve figure (evaluation win rates, training return)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (wins, returns) = plt.subplots(1, 2, figsize=(12, 4))
    for tag, (steps, values) in sorted(curves.items()):
        if tag.startswith("eval/win_rate/"):
            name = tag.removeprefix("eval/win_rate/")
            wins.plot(steps / 1e6, values, marker="o", label=LABELS.get(name, f"vs {name}"))
    wins.axhline(
        1 / num_players, color="black", linestyle="--", linewidth=1, label=f"fair share 1/{num_players}"
    )
    wins.set(
        title=f"{title}: evaluation win rate", xlabel="agent-steps (millions)", ylabel="win rate", ylim=(0, 1)
    )
    wins.legend(loc="lower right")
    if "charts/episodic_return" in curves:
        steps, values = curves["charts/episodic_return"]
        returns.plot(steps / 1e6, values, linewidth=0.8)
    returns.set(
        title="Training return (learner seat, pool opponents)",
        xlabel="agent-steps (millions)",
        ylabel="episodic return",
    )
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> None:
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument("run_dir", type=Path, help="a run folder of experiments.train_ppo")
    parser.add_argument("--png", type=Path, help="figure path (default: <run_dir>/learning_curve.png)")
    parser.add_argument("--json", type=Path, help="also export the curves to this JSON file")
    parser.add_argument("--title", default="PPO", help="title of the win-rate panel")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    args = parser.parse_args(argv)
    png = args.png or args.run_dir / "learning_curve.png"
    try:
        curves = scalars(args.run_dir)
        figure(curves, args.title).savefig(png, dpi=100)
    except ModuleNotFoundError as error:  # tensorboard and matplotlib come with extras
        raise missing_extra(error) from error
    print(f"figure: {png}")
    if args.json:
        export(curves, args.json)
        print(f"curves: {args.json}")


if __name__ == "__main__":
    main()
