"""Imitation runs side by side: held-out fit by epoch, and win rates with 95% intervals.

    python -m experiments.plot_imitation runs/imitate__imitate__1 runs/imitate__imitate_no_beliefs__1 \\
        runs/imitate__imitate_no_sat__1 --png docs/results/2026-12-02-learning-agent/imitation.png

Left and middle: each run's held-out loss and agreement (the share of the teacher's
held-out decisions where the network's most likely action is the teacher's) after
each epoch (``history.json`` of ``experiments/imitate.py``). Right: each run's final
evaluation (``evaluation.json``), win rate against the other players, of one kind at a time with its
95% Wilson interval, the number of games in the legend, and the fair share (1/players)
against opponents that can win (the runs must be of one player count). A run is named by its ``exp_name``.

The run folders may come from elsewhere: their files are read as data and checked (a file of another
shape stops the command in one line naming it), and the figure is not written through a symbolic link
(``--png``, by default ``imitation.png`` in the current folder, where a downloaded folder could hold one).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from cluedo_env.console import replace_unencodable
from experiments.common.extras import missing_extra
from experiments.common.output_paths import FIGURE, figure_file, path_argument, refuse_files
from experiments.learning.curves import read_config, setting
from experiments.learning.run_logs import figure_path

HISTORY_KEYS = ("epoch", "holdout_loss", "holdout_agreement")  # of each epoch in history.json
HOLDOUT_KEYS = HISTORY_KEYS[1:]  # null in a run without a holdout (holdout=0)
RESULT_KEYS = ("games", "win_rate", "win_low", "win_high")  # of each opponent in evaluation.json


def _numbers(row: object, keys: tuple[str, ...], or_null: tuple[str, ...] = ()) -> bool:
    """Whether ``row`` is an object whose ``keys`` are numbers (a bool is none), or null for those of
    ``or_null``."""
    return isinstance(row, dict) and all(
        (isinstance(row.get(key), int | float) and not isinstance(row.get(key), bool))
        or (key in or_null and key in row and row[key] is None)
        for key in keys
    )


def _read_json(path: Path) -> Any:
    """The JSON data of ``path``; ``ValueError`` naming the file where it is not readable JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"{path}: not readable JSON ({(str(error).splitlines() or [''])[0]})") from None


def load_run(folder: Path) -> dict:
    """A run's name, epoch history and final evaluation.

    Its ``config.yaml`` is read as data (``experiments.learning.curves.read_config``): a string
    holding ``${`` is refused, not resolved.

    Raises:
        ValueError: the config is not YAML, holds an interpolation, or lacks ``exp_name`` (a string)
            or ``game.num_players`` (an int); ``history.json`` is not a list of epochs with numbers
            ``HISTORY_KEYS`` (the holdout's may be null: no holdout), or ``evaluation.json``'s
            ``evaluation`` (if any) not an object of opponents with numbers ``RESULT_KEYS`` (naming the file).
    """
    path = folder / "config.yaml"
    config = read_config(path)
    history = _read_json(folder / "history.json")
    if not (isinstance(history, list) and all(_numbers(row, HISTORY_KEYS, HOLDOUT_KEYS) for row in history)):
        raise ValueError(
            f"{folder / 'history.json'}: not a list of epochs, each an object with the numbers "
            f"{', '.join(HISTORY_KEYS)} (the holdout's may be null; experiments.imitate writes one)"
        )
    report = _read_json(folder / "evaluation.json")
    evaluation = report.get("evaluation", {}) if isinstance(report, dict) else None
    if not (
        isinstance(evaluation, dict) and all(_numbers(result, RESULT_KEYS) for result in evaluation.values())
    ):
        raise ValueError(
            f"{folder / 'evaluation.json'}: not an object whose evaluation (if any) gives each opponent an "
            f"object with the numbers {', '.join(RESULT_KEYS)} (experiments.imitate writes one)"
        )
    return {
        "name": setting(config, "exp_name", str, path),
        "players": setting(config, "game.num_players", int, path),
        "history": history,
        "evaluation": evaluation,
    }


def plot(runs: list[dict], png: Path) -> Path:
    """Draw the three panels for ``runs`` into ``png``."""
    try:  # matplotlib and omegaconf come with the experiments extra
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError as error:
        raise missing_extra(error) from error
    players = runs[0]["players"]
    if any(run["players"] != players for run in runs):
        raise ValueError(
            f"runs of other player counts cannot share the panels: {[run['players'] for run in runs]}"
        )
    figure, (loss_axis, agree_axis, win_axis) = plt.subplots(1, 3, figsize=(15, 4.5))
    opponents = sorted({name for run in runs for name in run["evaluation"]}, key=_opponent_order)
    width = 0.8 / max(len(runs), 1)
    for k, run in enumerate(runs):
        epochs = [row["epoch"] for row in run["history"]]
        for axis, key in zip((loss_axis, agree_axis), HOLDOUT_KEYS, strict=True):
            # (null without a holdout: no point)
            values = [math.nan if row[key] is None else row[key] for row in run["history"]]
            axis.plot(epochs, values, marker="o", label=run["name"])
        games = {result["games"] for result in run["evaluation"].values()}
        for j, opponent in enumerate(opponents):
            result = run["evaluation"].get(opponent)
            if result is None:
                continue
            low, high = result["win_low"], result["win_high"]
            rate = result["win_rate"]
            x = j + (k - (len(runs) - 1) / 2) * width
            win_axis.errorbar(x, rate, yerr=[[rate - low], [high - rate]], fmt="o", capsize=3,
                              color=f"C{k}", label=f"{run['name']} ({'/'.join(map(str, sorted(games)))} games each)"
                              if j == 0 else None)  # fmt: skip
    fair = [j for j, opponent in enumerate(opponents) if opponent != "random_never"]
    for j in fair:
        win_axis.hlines(1 / players, j - 0.45, j + 0.45, colors="grey", linestyles="dashed",
                        label=f"fair share 1/{players}" if j == fair[0] else None)  # fmt: skip
    loss_axis.set(xlabel="epoch", ylabel="held-out loss (nats per decision)", title="fit to the teacher")
    agree_axis.set(xlabel="epoch", ylabel="held-out agreement", title="teacher's action = most likely action")
    win_axis.set(xticks=range(len(opponents)), xticklabels=[f"vs {players - 1} {name}" for name in opponents],
                 ylabel="win rate [95% CI]", ylim=(0, 1), title=f"final evaluation, {players} players, seats rotated")  # fmt: skip
    for axis in (loss_axis, agree_axis, win_axis):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png, dpi=110)
    plt.close(figure)
    return png


def _opponent_order(name: str) -> tuple[int, str]:
    order = ["random_never", "notepad", "sat", "belief"]
    return (order.index(name) if name in order else len(order), name)


def main(argv: list[str] | None = None) -> None:
    replace_unencodable()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="experiments.imitate run folders")
    parser.add_argument(
        "--png",
        type=path_argument(FIGURE),
        default=Path("imitation.png"),
        help="where to draw, not a symbolic link (default: %(default)s; .png added to a name without an "
        "extension)",
    )
    args = parser.parse_args(argv)
    # (a link, in a downloaded folder the command is run in, would have the figure written over its file)
    png = figure_path(parser, figure_file(args.png), None, "imitation.png")
    refuse_files(parser, {"--png": (png, FIGURE)})
    for folder in args.runs:
        if not (folder / "evaluation.json").is_file():
            parser.error(f"{folder} is not a finished experiments.imitate run (no evaluation.json)")
    try:
        runs = [load_run(folder) for folder in args.runs]
    except ModuleNotFoundError as error:
        raise missing_extra(error, command=True) from error
    except ValueError as error:  # a file that is not a run's (an interpolation, a missing key, bad JSON)
        parser.error(str(error))
    try:
        print(plot(runs, png))
    except ValueError as error:  # runs of other player counts
        parser.error(str(error))


if __name__ == "__main__":
    main()
