"""Learning curves read from runs: win rate over agent-steps, with 95% Wilson intervals, per evaluation.

The SB3 points come from a run's ``evaluations.json`` (``experiments/train_sb3.py``); the PPO
points from a ``train_ppo`` run folder (``eval/win_rate/<label>`` in its TensorBoard file,
``eval_games`` from its ``config.yaml``, the final evaluation from ``evaluation.json``) and/or
from the shipped model's curves (``agents/ppo/shipped/training_curves.json`` with its
``train_ppo.yaml``). ``experiments.plot_sb3`` and ``experiments.plot_rllib`` plot them.

A run folder may come from elsewhere, so its ``config.yaml`` is read as data (``read_config``):
OmegaConf would resolve the interpolations in it, and ``${oc.env:NAME}`` would draw an environment
variable (an API key, say) into the figure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import UnionType
from typing import Any

from cluedo_env.intervals import wilson_interval
from experiments.common.value_checks import first_interpolation

SHIPPED = Path(__file__).resolve().parents[2] / "agents" / "ppo" / "shipped"


def _point(steps: int, wins: int, games: int) -> dict:
    low, high = wilson_interval(wins, games)
    return {
        "agent_steps": int(steps),
        "wins": wins,
        "games": games,
        "win_rate": wins / games,
        "low": low,
        "high": high,
    }


def sb3_points(run_dir: Path, label: str) -> list[dict]:
    """The evaluations of an ``experiments.train_sb3`` run."""
    lines = (run_dir / "evaluations.json").read_text(encoding="utf-8").splitlines()
    points = []
    for line in map(json.loads, lines):
        result = line["results"][label]
        points.append(_point(line["agent_steps"], result["wins"], result["games"]))
    return points


def sb3_name(run_dir: Path) -> str:
    """The series name of a ``train_sb3`` run: its policy and discount (``config.yaml``)."""
    path = run_dir / "config.yaml"
    config = read_config(path)
    policy = setting(config, "policy", str, path)
    gamma = setting(config, "gamma", int | float, path)
    return f"SB3 MaskablePPO, {'CardPolicy' if policy == 'card' else policy}, gamma {gamma:g} (train_sb3)"


def read_config(path: Path) -> dict[str, Any]:
    """A run's saved settings (``config.yaml``, ``train_ppo.yaml``) as data, with ``yaml.safe_load``.

    A saved config holds resolved values, so a string holding ``${`` (an interpolation, which
    OmegaConf would resolve: ``${oc.env:NAME}`` reads the environment) is refused, not shown.

    Raises:
        ValueError: the file is not YAML, not a mapping of settings, or a value holds ``${`` (naming
            the file and the key).
    """
    import yaml  # (pyyaml comes with the experiments extra, as omegaconf does)

    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not YAML ({(str(error).splitlines() or [''])[0]})") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path}: not a mapping of settings (a run's config.yaml is one)")
    _refuse_interpolations(config, "", path)
    return config


def _refuse_interpolations(value: Any, key: str, path: Path) -> None:
    """Raise ``ValueError`` naming the first string of ``value`` that holds ``${``, by its key."""
    found = first_interpolation(value, key)
    if found is not None:
        raise ValueError(
            f"{path}: {found[0]} is an interpolation ({found[1][:80]!r}); a run's saved config holds only "
            "resolved values, and one from elsewhere is not resolved here"
        )


def setting(config: Mapping[str, Any], key: str, kind: type | UnionType, path: Path) -> Any:
    """The value of a dotted ``key`` (``game.num_players``) of a config ``read_config`` read.

    Raises:
        ValueError: the key is missing or its value is not of ``kind`` (a bool is no number), naming
            the file and the key.
    """
    value: Any = config
    for name in key.split("."):
        if not isinstance(value, Mapping) or name not in value:
            raise ValueError(f"{path}: no {key} in it")
        value = value[name]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ValueError(f"{path}: {key} is {value!r}; it must be of type {getattr(kind, '__name__', kind)}")
    return value


def earlier_series(path: Path, renames: list[str]) -> dict[str, list[dict]]:
    """The series of an earlier ``--json`` file, renamed by ``OLD=NEW`` pairs (a file that
    already has NEW, such as this script's own output, needs no renaming).

    Raises:
        ValueError: a rename is not ``OLD=NEW`` or the file has neither OLD nor NEW.
    """
    series = json.loads(path.read_text(encoding="utf-8"))
    for rename in renames:
        old, sep, new = rename.partition("=")
        if sep and new in series and old not in series:
            continue
        if not sep or old not in series:
            raise ValueError(f"--rename {rename!r}: expected OLD=NEW with OLD one of {sorted(series)}")
        series[new] = series.pop(old)
    return series


def _eval_games(path: Path) -> int:
    return setting(read_config(path), "eval_games", int, path)


def ppo_run_points(run_dir: Path, label: str) -> list[dict]:
    """The evaluations of an ``experiments.train_ppo`` run (TensorBoard, then ``evaluation.json``)."""
    from experiments.learning.run_logs import scalars

    games = _eval_games(run_dir / "config.yaml")
    curves = scalars(run_dir)
    steps, rates = curves[f"eval/win_rate/{label}"]
    points = [_point(s, round(r * games), games) for s, r in zip(steps.tolist(), rates.tolist())]
    final = run_dir / "evaluation.json"
    if final.exists():
        result = json.loads(final.read_text(encoding="utf-8"))["results"][label]
        step = int(curves[f"eval/final_win_rate/{label}"][0][-1])
        points = [p for p in points if p["agent_steps"] != step]  # the final one has more games
        points.append(_point(step, result["wins"], result["games"]))
    return points


def shipped_points(label: str, max_steps: float) -> list[dict]:
    """The shipped PPO model's evaluations during its 50M-step run, up to ``max_steps``."""
    curves = json.loads((SHIPPED / "training_curves.json").read_text(encoding="utf-8"))
    games = _eval_games(SHIPPED / "train_ppo.yaml")
    steps, rates = curves[f"eval/win_rate/{label}"]
    return [_point(s, round(r * games), games) for s, r in zip(steps, rates) if s <= max_steps]
