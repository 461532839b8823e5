"""Learning curves of a PPO run: export its TensorBoard scalars and plot them.

    python -m experiments.plot_training runs/<run folder>
    python -m experiments.plot_training runs/<run folder> --png docs/results/2026-11-30-ppo-learning-curve/ppo_learning_curve.png \\
        --json agents/ppo/shipped/training_curves.json --title "Shipped PPO"
    python -m experiments.plot_training agents/ppo/shipped --png docs/results/2026-11-30-ppo-learning-curve/ppo_learning_curve.png --title "Shipped PPO"
    python -m experiments.plot_training runs/<run A> runs/<run B> --labels anchor "no anchor" --png compare.png

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
``{tag: [steps, values]}`` for the tags worth keeping beside a shipped model (a value that is not
finite as null: strict JSON has none).

Given several runs (an ablation's arms), the figure is ``compare``'s instead: one panel per
evaluation opponent, a line per run with the same intervals and final diamonds, side by side.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from cluedo_env import __version__
from cluedo_env.console import replace_unencodable
from cluedo_env.intervals import wilson_interval
from experiments.common.extras import missing_extra
from experiments.common.output_paths import FIGURE, figure_file, figure_options, refuse_files
from experiments.common.value_checks import is_read_number
from experiments.learning.run_logs import CURVES_FILE, figure_path, scalars

try:  # pyyaml comes with an extra: a core-only install is told which to install
    import yaml
except ModuleNotFoundError as error:
    raise missing_extra(error, command=__name__ == "__main__") from error

EXPORTED_PREFIXES = ("charts/", "eval/", "losses/entropy", "losses/explained_variance")
OPPONENT_NAMES = {"random_never": "random (never accuse)"}  # an evaluation label -> what the plots call it
CONFIG_FILES = ("config.yaml", "train_ppo.yaml")  # a run folder's, a shipped model's
CURVES = "a JSON file for the curves (e.g. curves.json)"


def run_config(run_dir: str | Path) -> dict[str, Any]:
    """The run's training config (``config.yaml`` or ``train_ppo.yaml`` in the folder)."""
    for name in CONFIG_FILES:
        path = Path(run_dir) / name
        if path.exists():
            try:
                config = yaml.safe_load(path.read_text(encoding="utf-8"))
            except (yaml.YAMLError, UnicodeDecodeError) as error:
                raise ValueError(f"{path}: not YAML ({error})") from None
            problem = _config_problem(config)
            if problem:
                raise ValueError(f"{path}: not a PPO training config ({problem})")
            return config
    raise FileNotFoundError(f"no {' or '.join(CONFIG_FILES)} in {run_dir}: the evaluation's size is unknown")


def _config_problem(config: Any) -> str | None:
    """What of a training config the figures read is missing or of another type (None: nothing)."""
    if not isinstance(config, dict):
        return "not a mapping of settings"

    def agents(value: Any) -> bool:
        return isinstance(value, list) and all(
            isinstance(o, dict) and isinstance(o.get("name"), str) and isinstance(o.get("label", ""), str | None)
            and isinstance(o.get("options") or {}, dict) and all(is_read_number(o[k]) for k in ("start", "stop") if k in o)
            for o in value
        )  # fmt: skip

    checks = {
        "total_timesteps": is_read_number(config.get("total_timesteps")),
        "game.num_players": isinstance(config.get("game"), dict)
        and type(config["game"].get("num_players")) is int
        and 2 <= config["game"]["num_players"] <= 6,
        "eval_games": type(config.get("eval_games")) is int and config["eval_games"] > 0,
        "eval_opponents": agents(config.get("eval_opponents")),
        "opponents": config.get("opponents") is None or agents(config["opponents"]),
        "snapshot_every": type(config.get("snapshot_every", 0)) in (int, type(None)),
        "snapshot_start": is_read_number(config.get("snapshot_start", 0.0)),
    }
    if config.get("snapshot_every"):  # (when the first snapshot joins: first_snapshot)
        for key in ("num_envs", "num_steps"):
            checks[key] = type(config.get(key)) is int and config[key] > 0
    wrong = [key for key, ok in checks.items() if not ok]
    return f"{', '.join(wrong)} missing or not of their kind" if wrong else None


def final_evaluation(run_dir: str | Path) -> dict[str, dict[str, Any]]:
    """The run's final evaluation (``evaluation.json``): ``{opponent: {"games", "wins", ...}}``; empty if none."""
    path = Path(run_dir) / "evaluation.json"
    if not path.exists():
        return {}
    try:
        results = json.loads(path.read_bytes()).get("results", {})  # (an imitation run's has none)
    except (ValueError, AttributeError, RecursionError):
        results = None
    counts = ("games", "wins")
    if not isinstance(results, dict) or not all(
        isinstance(r, dict)
        and all(type(r.get(k)) is int for k in counts)
        and 0 <= r["wins"] <= r["games"] > 0
        for r in results.values()
    ):
        raise ValueError(f"{path}: not an evaluation (results: per opponent, whole games > 0 and wins)")
    return results


def export(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: str | Path) -> None:
    """Write the curves worth keeping (``EXPORTED_PREFIXES``) as ``{tag: [steps, values]}``, a value that is
    not finite as null (strict JSON has no NaN: ``losses/explained_variance`` of an update of one decision)."""
    kept = {
        tag: [steps.tolist(), [round(float(v), 6) if math.isfinite(v) else None for v in values]]
        for tag, (steps, values) in curves.items()
        if tag.startswith(EXPORTED_PREFIXES)
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(kept, allow_nan=False), encoding="utf-8")


def can_win(opponent: dict[str, Any]) -> bool:
    """Whether an evaluation opponent (a config entry) can ever win: a never-accusing one cannot."""
    return (opponent.get("options") or {}).get("accuse") != "never"


def curriculum_events(config: dict[str, Any]) -> list[tuple[float, str]]:
    """The agent-steps at which the training opponents' pool changes, with what changes: each kind's
    ``start`` and ``stop`` (fractions of ``total_timesteps``) inside the run, and the first snapshot of the
    learner (``first_snapshot``)."""
    total = float(config["total_timesteps"])
    events = []
    for o in config.get("opponents") or []:
        name = o.get("label") or o["name"]
        if float(o.get("start", 0.0)) > 0.0:
            events.append((float(o["start"]) * total, f"{name} players join the pool"))
        if float(o.get("stop", 1.0)) < 1.0:
            events.append((float(o["stop"]) * total, f"{name} players leave the pool"))
    first = first_snapshot(config)
    if first is not None:
        events.append((float(first), "snapshots of the learner join"))
    return sorted(events)


def first_snapshot(config: dict[str, Any]) -> int | None:
    """The agent-steps after which the first snapshot of the learner joins the pool, or None (never).

    The trainer (``experiments.learning.ppo_training.train``) takes one after update ``u`` (1 to
    ``num_updates``) where ``u % snapshot_every == 0`` and ``u / num_updates >= snapshot_start``: the
    first such ``u`` times the agent-steps of an update (``num_envs * num_steps``). None where the pool
    keeps none (``max_snapshots`` 0) or never draws them (``snapshot_weight`` 0).
    """
    every = int(config.get("snapshot_every") or 0)
    if every <= 0 or not config.get("max_snapshots", 1) or not config.get("snapshot_weight", 1):
        return None
    per_update = int(config["num_envs"]) * int(config["num_steps"])
    num_updates = int(config["total_timesteps"]) // per_update
    start = float(config.get("snapshot_start", 0.0))
    update = next((u for u in range(every, num_updates + 1, every) if u / num_updates >= start), None)
    return None if update is None else update * per_update


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
        label = f"vs {players - 1} {OPPONENT_NAMES.get(name, name)}"
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
    winnable = [OPPONENT_NAMES.get(name, name) for name, o in opponents.items() if can_win(o)]
    if winnable:
        wins.axhline(1 / players, color="black", linestyle="--", linewidth=1,
                     label=f"fair share 1/{players} (vs {players - 1} {', '.join(winnable)})")  # fmt: skip
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


def compare(
    runs: list[tuple[str, dict[str, tuple[np.ndarray, np.ndarray]], dict[str, Any], dict]], title: str = "PPO"
):
    """Several runs' evaluation win rates side by side: a panel per evaluation opponent, a line per run.

    Args:
        runs: ``(label, curves, config, final evaluation)`` of each run (``scalars``, ``run_config``,
            ``final_evaluation``); each run's points count its own ``eval_games``.
        title: Title of the figure.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents: dict[str, dict[str, Any]] = {}
    for _label, _curves, config, _final in runs:
        opponents.update({o.get("label") or o["name"]: o for o in config["eval_opponents"]})
    names = sorted(opponents)
    last = max(int(steps.max()) for _, curves, _, _ in runs for steps, _ in curves.values() if len(steps))
    scale, unit = (1e6, "millions") if last >= 2e6 else (1e3, "thousands")
    players = runs[0][2]["game"]["num_players"]
    if any(config["game"]["num_players"] != players for _, _, config, _ in runs):
        counts = [config["game"]["num_players"] for _, _, config, _ in runs]
        raise ValueError(f"runs of other player counts cannot share the panels: {counts}")
    fig, axes = plt.subplots(1, len(names), figsize=(4.6 * len(names), 4.8 + 0.25 * len(runs)), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        for index, (label, curves, config, final) in enumerate(runs):
            colour, n = f"C{index}", int(config["eval_games"])
            if f"eval/win_rate/{name}" in curves:
                steps, rates = curves[f"eval/win_rate/{name}"]
                bounds = np.array([wilson_interval(int(w), n) for w in np.rint(rates * n).astype(int)]).T
                ax.errorbar(steps / scale, rates, yerr=np.abs(bounds - rates), marker="o", markersize=3,
                            capsize=2, color=colour, label=f"{label} ({n} games a point)")  # fmt: skip
            if final and name in final:
                games, wins = final[name]["games"], final[name]["wins"]
                low, high = wilson_interval(wins, games)
                ax.errorbar([(1.01 + 0.015 * index) * last / scale], [wins / games],
                            yerr=[[wins / games - low], [high - wins / games]], marker="D", markersize=6,
                            capsize=3, color=colour, markeredgecolor="black",
                            label=f"{label}, final: {100 * wins / games:.1f}% of {games}")  # fmt: skip
        if can_win(opponents[name]):
            ax.axhline(
                1 / players, color="black", linestyle="--", linewidth=1, label=f"fair share 1/{players}"
            )
        ax.set(
            title=f"{title}: vs {players - 1} {OPPONENT_NAMES.get(name, name)}",
            ylim=(0, 1.02),  # rates on their whole scale, as the single run's figure draws them
            xlabel=f"agent-steps ({unit})",
            ylabel="win rate",
        )
        ax.set_xlim(0, (1.03 + 0.015 * len(runs)) * last / scale)  # room for every run's final diamond
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))  # below: over no point
    fig.suptitle("Evaluation win rates (bars: 95% Wilson intervals; diamonds: final evaluation)", fontsize=10)
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> None:
    replace_unencodable()
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument(
        "run_dirs", type=Path, nargs="+", metavar="run_dir",
        help=f"a run folder of experiments.train_ppo, or a folder with {CURVES_FILE}; several: compared",
    )  # fmt: skip
    parser.add_argument("--labels", nargs="+", help="the runs' names in a comparison (default: the folders')")
    figure_options(parser, "<run_dir>/learning_curve.png", CURVES, "also export the curves to this JSON file")
    parser.add_argument("--title", default="PPO", help="title of the win-rate panel")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    args = parser.parse_args(argv)
    labels = args.labels or [folder.name for folder in args.run_dirs]
    if len(labels) != len(args.run_dirs):
        parser.error(f"--labels names {len(labels)} runs, {len(args.run_dirs)} were given")
    if len(args.run_dirs) > 1 and (args.json or not args.png):
        parser.error("a comparison of several runs needs --png (and writes no --json)")
    # (a link in a downloaded run folder would have the figure written over the file it points to)
    png = figure_path(parser, figure_file(args.png), args.run_dirs[0], "learning_curve.png")
    refuse_files(parser, {"--png": (png, FIGURE), "--json": (args.json, CURVES)})  # before reading the runs
    try:
        runs = [
            (label, scalars(d), run_config(d), final_evaluation(d))
            for label, d in zip(labels, args.run_dirs, strict=True)
        ]
        fig = figure(*runs[0][1:], args.title) if len(runs) == 1 else compare(runs, args.title)
        png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(png, dpi=100)
    except ModuleNotFoundError as error:  # tensorboard and matplotlib come with extras
        raise missing_extra(error, command=True) from error
    except (FileNotFoundError, ValueError) as error:  # a folder that is not a run, or a file that is not its
        parser.exit(2, f"error: {error}\n")
    print(f"figure: {png}")
    curves = runs[0][1]
    if args.json:
        export(curves, args.json)
        print(f"curves: {args.json}")


if __name__ == "__main__":
    main()
