"""A training run's folder: a new one (``new_run_folder``, as ``train_sb3`` and ``train_rllib`` make it),
and the scalars the run logged: its TensorBoard events, or the curves exported beside a model.

``experiments/plot_training.py`` plots them and exports ``training_curves.json``
(``{tag: [steps, values]}``, as ``agents/ppo/shipped`` holds); ``plot_sb3`` and ``plot_rllib`` read
a PPO run's with ``scalars`` too.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from experiments.learning.run_settings import RunSettings

CURVES_FILE = "training_curves.json"


def new_run_folder(settings: RunSettings, prefix: str) -> Path:
    """``<runs_dir>/<prefix>__<exp_name>__<seed>__<unix time>`` of ``settings`` (a command's settings),
    made with its ``checkpoints`` folder and the settings written to its ``config.yaml``."""
    from omegaconf import OmegaConf

    run_dir = Path(settings.runs_dir) / f"{prefix}__{settings.exp_name}__{settings.seed}__{int(time.time())}"
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.structured(settings)))
    return run_dir


def scalars(run_dir: str | Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{tag: (steps, values)}`` of every scalar logged in a run folder (or of its exported curves)."""
    run_dir = Path(run_dir)
    if not any(run_dir.glob("events.out.tfevents.*")):
        if (run_dir / CURVES_FILE).exists():
            exported = json.loads((run_dir / CURVES_FILE).read_text())
            return {tag: (np.array(steps), np.array(values)) for tag, (steps, values) in exported.items()}
        raise FileNotFoundError(f"no TensorBoard event file and no {CURVES_FILE} in {run_dir}")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {
        tag: (
            np.array([e.step for e in events.Scalars(tag)]),
            np.array([e.value for e in events.Scalars(tag)]),
        )
        for tag in events.Tags()["scalars"]
    }
