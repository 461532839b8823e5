"""A training run's folder: a new one (``unique_run_folder``, as ``train_ppo`` makes it;
``new_run_folder``, as ``train_sb3`` and ``train_rllib`` make it), the code of each of its sessions
(``record_session``: ``run.json``), the scalars the run logged (its TensorBoard events, or the curves
exported beside a model), and where a plot of it is written (``figure_path``).

``experiments/plot_training.py`` plots them and exports ``training_curves.json``
(``{tag: [steps, values]}``, as ``agents/ppo/shipped`` holds); ``plot_sb3`` and ``plot_rllib`` read
a PPO run's with ``scalars`` too.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cluedo_env import __version__
from cluedo_env.whole_files import write_whole
from experiments.common.code_revision import (
    code_name,
    code_of,
    git_revision,
    read_sessions,
    same_code,
    utc_now,
)

if TYPE_CHECKING:
    from experiments.learning.run_settings import RunSettings

CURVES_FILE = "training_curves.json"
RUN_FILE = "run.json"  # each session of the run: its code and how far the run had trained (record_session)
# A run older than run.json (cluedo-env 0.1.0's too) recorded no code.
UNRECORDED = f"unrecorded code (no readable {RUN_FILE} names it: a run older than {RUN_FILE} wrote none)"


def unique_run_folder(runs_dir: str | Path, name: str) -> Path:
    """A new, empty folder ``<runs_dir>/<name>__<unix time>``, made (with ``runs_dir``) and returned.

    A run started in the same second with the same name (a sweep's jobs of one ``exp_name`` and seed)
    gets ``<name>__<unix time>__2``, then ``__3``, ...: each folder is made by the run that returns it,
    never shared.
    """
    folder = first = Path(runs_dir) / f"{name}__{int(time.time())}"
    first.parent.mkdir(parents=True, exist_ok=True)
    count = 1
    while True:
        try:
            folder.mkdir()  # atomic: of two runs making one folder, the second gets FileExistsError
            return folder
        except FileExistsError:
            count += 1
            folder = first.with_name(f"{first.name}__{count}")


def new_run_folder(settings: RunSettings, prefix: str) -> Path:
    """``<runs_dir>/<prefix>__<exp_name>__<seed>__<unix time>`` of ``settings`` (a command's settings;
    ``unique_run_folder``: a new folder, ``__2`` added for a second run of the same second), made with
    its ``checkpoints`` folder and the settings written to its ``config.yaml``."""
    from omegaconf import OmegaConf

    run_dir = unique_run_folder(settings.runs_dir, f"{prefix}__{settings.exp_name}__{settings.seed}")
    (run_dir / "checkpoints").mkdir()
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.structured(settings)), encoding="utf-8")
    return run_dir


def record_session(run_dir: Path, trained_before: dict[str, int]) -> None:
    """Add this session of a training run to ``run_dir``'s ``run.json`` (``{"sessions": [...]}``): its start
    (``utc_now``: UTC), package version, git revision and whether the tree had uncommitted changes
    (``experiments.common.code_revision.git_revision``), and ``trained_before``: how far the run had trained
    when it started (``train_ppo``'s ``update`` and ``global_step``, ``train_rllib``'s ``iteration`` and
    ``agent_steps``, ``train_sb3``'s ``agent_steps``; zeros for a new run, more for a resume).

    Where a resume goes on from training by other code, print one warning line naming each code with its
    sessions and this session's. Training before the first session recorded (by a run older than
    ``run.json``, or its file lost or unreadable: then it counts as none) is of unrecorded code."""
    sessions = read_sessions(run_dir / RUN_FILE, _counts)
    code = code_of(git_revision(), __version__)
    versions: dict[tuple, dict] = {}
    for session in sessions:
        earlier = code_of(session["git"], session["version"])
        versions.setdefault(same_code(earlier), earlier | {"sessions": 0})["sessions"] += 1
    first = sessions[0]["trained_before"] if sessions else trained_before
    unrecorded = any(first.values())  # trained before any session recorded it
    if unrecorded or any(key != same_code(code) for key in versions):
        before = "its first recorded session" if sessions else "this session"
        trained = [f"the training before {before} by {UNRECORDED}"] * unrecorded
        trained += [
            f"{v['sessions']} session{'s' * (v['sessions'] != 1)} by {code_name(v)}"
            for v in versions.values()
        ]
        print(
            f"warning: {run_dir} was trained by other code than this session's: {'; '.join(trained)}; this "
            f"session is {code_name(code)}. What a run learns can change with the code; start a new run to "
            "train under this code alone"
        )
    sessions.append({"started": utc_now(), "version": __version__,
                     "git": {"revision": code["revision"], "dirty": code["dirty"]},
                     "trained_before": trained_before})  # fmt: skip
    write_whole(run_dir / RUN_FILE, json.dumps({"sessions": sessions}, indent=2) + "\n")


def _counts(session: dict) -> bool:
    """Whether a ``run.json`` session's ``trained_before`` is counts (names and whole numbers >= 0)."""
    counts = session.get("trained_before")
    return isinstance(counts, dict) and all(type(n) is int and n >= 0 for n in counts.values())


def scalars(run_dir: str | Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{tag: (steps, values)}`` of every scalar logged in a run folder (or of its exported curves)."""
    run_dir = Path(run_dir)
    if not any(run_dir.glob("events.out.tfevents.*")):
        if (run_dir / CURVES_FILE).exists():
            exported = json.loads((run_dir / CURVES_FILE).read_text(encoding="utf-8"))
            return {  # (a value that was not finite, an explained variance of one decision, is null)
                tag: (np.array(steps), np.array([np.nan if v is None else v for v in values], dtype=float))
                for tag, (steps, values) in exported.items()
            }
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


def figure_path(parser: argparse.ArgumentParser, png: Path | None, run_dir: Path | None, name: str) -> Path:
    """Where a plot command (``parser``) writes its figure: ``png`` (``--png``), or by default ``<run_dir>/<name>``.

    A run folder may come from elsewhere (a download): a symbolic link in it, where the figure would go,
    would have it written over whatever file the link points to. The command stops in one line
    (``parser.exit``, status 2) where the figure path is a symbolic link, or (the default) the run folder is one.
    """
    if png is None and run_dir is not None and run_dir.is_symlink():
        parser.exit(
            2,
            f"error: the run folder {run_dir} is a symbolic link: the figure {name} would be written where it "
            "points. Give --png a path of your choice\n",
        )
    path = png if png is not None else Path(run_dir, name)
    if path.is_symlink():
        parser.exit(
            2,
            f"error: the figure path {path} is a symbolic link: the figure would be written over the file it "
            "points to. Remove the link, or give --png another path\n",
        )
    return path
