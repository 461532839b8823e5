"""A PPO run's checkpoint files: ``checkpoints/update_<n>.pt`` of its run folder.

A checkpoint holds the network, the optimizer, the update index, the global step, the generator
states, the pool's snapshots and win-rate estimates, the games in progress with their opponents'
memory and the learner's records, the config and the time spent: all tensors, numbers, strings,
lists and dicts, read back with torch's ``weights_only=True``, so a checkpoint runs no code,
whoever made it. Before torch reads a checkpoint, the sizes its zip archive declares are added up
and bounded (``MAX_CHECKPOINT_BYTES``): ``torch.load`` allocates them as declared, and a small file
of compressed zeros can declare gigabytes. Its data is bounded (``MAX_CHECKPOINT_VALUES`` values, each
counted as often as the file's shared references reach it, ``MAX_CHECKPOINT_DEPTH`` deep): pickle writes a
list once however often it is referred to, so a file of a megabyte can hold more values than any walk
gets through, and a dict key that hashing it walks for hours. So the pickle is measured by those bounds
before torch unpickles it (``agents.ppo.pickle_scan.check_pickle``: torch hashes keys while it reads),
and once read, its plain data (all but its tensors) again before anything walks it. A run folder's
latest checkpoint that cannot be read (cut short by a full disk, say) is skipped for the one before,
with a warning. A checkpoint of format ``cluedo-ppo-checkpoint-v1`` (0.1.0's) held its games as a
pickle, which is never unpickled: one is refused in one line saying so, and that a new run can start
from the run's weights (``init_from=<run>/model.pt``). What a resume makes of one is
``experiments.learning.resume``.
"""

from __future__ import annotations

import pickle
import tempfile
import time
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.ppo.games import LearnerGames
from agents.ppo.model import check_declared_bytes, check_weights, zip_bytes
from agents.ppo.network import ActorCritic
from agents.ppo.pickle_scan import (
    MAX_DEPTH,
    MAX_VALUES,
    EarlierVersionCheckpoint,
    RefusedGlobal,
    check_pickle,
)
from experiments.common.value_checks import ConfigError
from experiments.learning.league import OpponentPool, snapshot_network

CHECKPOINT_FORMAT = "cluedo-ppo-checkpoint-v2"  # v2: the games as arrays and plain data, no pickle
# The most bytes a checkpoint may declare, uncompressed: about 100 times the largest config's (5.4 MB for
# train_ppo_league.yaml's 512 games with its 3 snapshots, the network, and Adam's moments).
MAX_CHECKPOINT_BYTES = 2**29
# Bounds of a checkpoint's plain data, far above any run's: train_ppo_league.yaml's 512 games hold about 850,000
# values, 12 deep, in the middle of training (measured: about 1,650 a game, the opponents' and learner's
# records of the game so far); a run of 16 games about 800. A value counts as often as it is reached. The
# same bounds as a pickle's before it is read (one rule for both).
MAX_CHECKPOINT_VALUES = MAX_VALUES
MAX_CHECKPOINT_DEPTH = MAX_DEPTH


def find_checkpoint(path: str | Path) -> Path:
    """A checkpoint file, or the latest checkpoint of a run folder."""
    return _checkpoint_candidates(path)[-1]


def _checkpoint_candidates(path: str | Path) -> list[Path]:
    path = Path(path)
    if path.is_dir():
        found = sorted((path / "checkpoints").glob("update_*.pt")) or sorted(path.glob("update_*.pt"))
        if not found:
            raise FileNotFoundError(f"no checkpoints/update_*.pt under {path}")
        return found
    if not path.is_file():
        raise FileNotFoundError(f"resume: no checkpoint or run folder at {path}")
    return [path]


def load_checkpoint(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """A checkpoint file, or the latest readable checkpoint of a run folder, and its contents.

    Only tensors and plain data are read (torch's ``weights_only``): a crafted file cannot run
    code, and one declaring more than ``MAX_CHECKPOINT_BYTES``, or whose pickle would build a value
    past ``MAX_CHECKPOINT_VALUES`` or ``MAX_CHECKPOINT_DEPTH`` (``check_pickle``), is refused before
    it is read. A run
    folder's latest checkpoint that cannot be read (cut short by a full disk, say) is skipped for
    the one before, with a warning; one of an earlier version (0.1.0's, whose games are a pickle:
    ``EarlierVersionCheckpoint``) is refused at once, the run's earlier ones being of that version too.

    Raises:
        FileNotFoundError: Nothing at ``path``, or a folder without checkpoints.
        ValueError: The file (or no checkpoint of the folder) is not a readable training checkpoint.
    """
    candidates = _checkpoint_candidates(path)
    errors = []
    for candidate in reversed(candidates):
        try:
            return candidate, _read_checkpoint(candidate)
        except ValueError as error:
            errors.append(str(error))
            if isinstance(error, EarlierVersionCheckpoint):
                break
            if candidate != candidates[0]:
                warnings.warn(
                    f"{error}; resuming from the checkpoint before it", RuntimeWarning, stacklevel=2
                )
    raise ValueError("; ".join(errors))


def _read_checkpoint(path: Path) -> dict[str, Any]:
    try:
        declared = zip_bytes(path)
    except (OSError, zipfile.BadZipFile) as error:  # a cut file, or not a torch file at all
        raise ValueError(
            f"{path} cannot be read as a checkpoint: torch.save writes a zip archive, and this is none ({error})"
        ) from None
    check_declared_bytes(
        str(path),
        declared,
        MAX_CHECKPOINT_BYTES,
        "a training checkpoint may hold (about 100 times the largest config's, train_ppo_league.yaml's: 5.4 MB)",
    )
    try:
        check_pickle(path, str(path), MAX_CHECKPOINT_VALUES, MAX_CHECKPOINT_DEPTH)
    except RefusedGlobal as error:
        if error.earlier_version:
            raise EarlierVersionCheckpoint(path, "resume") from None
        raise
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except (
        pickle.UnpicklingError
    ):  # (torch's message suggests weights_only=False: never for a file from elsewhere)
        raise ValueError(
            f"{path} cannot be read as a checkpoint: it holds more than tensors and plain data, which is "
            "not unpickled"
        ) from None
    except Exception as error:  # a cut file, or not a torch file at all
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(f"{path} cannot be read as a checkpoint ({type(error).__name__}: {first})") from None
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != CHECKPOINT_FORMAT:
        found = checkpoint.get("format") if isinstance(checkpoint, dict) else type(checkpoint).__name__
        raise ValueError(
            f"{path} is not a training checkpoint of format {CHECKPOINT_FORMAT} (found {found!r})"
        )
    if not isinstance(checkpoint.get("config"), dict):
        raise ValueError(f"{path}: its config is not a mapping of settings")
    if not isinstance(checkpoint.get("games"), dict):
        raise ValueError(
            f"{path}: its games are not plain data (format {CHECKPOINT_FORMAT} stores no pickle)"
        )
    _refuse_oversized(checkpoint, path)
    return checkpoint


def _refuse_oversized(checkpoint: Mapping[str, Any], path: Path) -> None:
    """Raise ``ValueError`` naming ``path`` where the checkpoint's plain data (its dicts, lists and tuples,
    keys included; a tensor is one value) would reach more than ``MAX_CHECKPOINT_VALUES`` values when
    walked, nest more than ``MAX_CHECKPOINT_DEPTH`` deep, or hold itself (``exceeds``)."""
    if exceeds(checkpoint, MAX_CHECKPOINT_VALUES, MAX_CHECKPOINT_DEPTH):
        raise ValueError(
            f"{path}: its plain data holds more than {MAX_CHECKPOINT_VALUES:,} values, is nested more than "
            f"{MAX_CHECKPOINT_DEPTH} deep or holds itself (train_ppo_league.yaml's checkpoints hold about "
            "850,000, 12 deep; a value counts as often as it is reached), so it is no run's checkpoint"
        )


def exceeds(data: Any, max_values: int, max_depth: int) -> bool:
    """Whether plain data (dicts, lists and tuples, keys included; anything else is one value) would reach
    more than ``max_values`` values when walked, nest more than ``max_depth`` containers deep, or hold
    itself (a walk would never end).

    A list that another lists ten times, itself listed ten times, and so on, is one list in a pickled
    file and every copy in a walk. So each list, dict and tuple is measured once, from what it holds (the
    values reached through it and how deep it nests), and a value counts as often as it is reached: the
    check takes as long as the data's own values, however many copies they stand for."""
    if not isinstance(data, (dict, list, tuple)):
        return False
    measured: dict[int, tuple[int, int] | None] = {}  # id -> (values, depth); None while inside it
    stack = [data]
    while stack:
        node = stack[-1]
        items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
        if id(node) not in measured:  # first reached: measure what it holds first
            measured[id(node)] = None
            inner = [item for item in items if isinstance(item, (dict, list, tuple))]  # (what torch reads)
            if any(id(item) in measured and measured[id(item)] is None for item in inner):
                return True  # it holds itself
            stack.extend(item for item in inner if id(item) not in measured)
            continue
        stack.pop()
        if measured[id(node)] is not None:  # measured already, through another reference
            continue
        sizes = [measured.get(id(item)) or (1, 0) for item in items]
        values = min(1 + sum(size[0] for size in sizes), max_values + 1)
        depth = 1 + max((size[1] for size in sizes), default=-1)
        if values > max_values or depth > max_depth:
            return True
        measured[id(node)] = (values, depth)
    return False


def check_checkpoint_weights(checkpoint: Mapping[str, Any], network: ActorCritic, path: Path) -> None:
    """Refuse a checkpoint whose learner or snapshot weights do not fit the run's network or are not finite.

    Args:
        checkpoint: The checkpoint read (``load_checkpoint``).
        network: The run's network, built from the checkpoint's settings (the shapes the weights need).
        path: The checkpoint file, for messages.

    Raises:
        ValueError: naming the file, the snapshot and the tensor (``agents.ppo.model.check_weights``).
    """
    model = checkpoint.get("model")
    declared = "the run's network settings and game"
    check_weights(model.get("state_dict") if isinstance(model, dict) else model, network.state_dict(),
                  f"{path}: the learner", declared)  # fmt: skip
    snapshots = checkpoint.get("snapshots")
    if not isinstance(snapshots, list) or not all(isinstance(s, dict) for s in snapshots):
        raise ValueError(f"{path}: its snapshots must be a list of dicts, got {type(snapshots).__name__}")
    for index, snapshot in enumerate(snapshots):
        label = snapshot.get("label")
        if not isinstance(label, str) or not isinstance(snapshot.get("update"), int):
            raise ValueError(f"{path}: snapshots.{index} needs a label (str) and an update (int)")
        check_weights(
            snapshot.get("state_dict"), network.state_dict(), f"{path}: snapshot {label!r}", declared
        )


def check_optimizer_state(saved: Any, optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Refuse an optimizer state that is not one of ``optimizer`` for the run's network: its parameter
    groups' indices, and every tensor of a parameter's state (Adam's moments) of that parameter's shape,
    its step a single number. Loading casts each tensor to its parameter's dtype, so one of 8 bytes
    expanded to a billion elements (what ``torch.save`` writes for ``expand``) was built whole.

    Raises:
        ValueError: naming the file and the part that does not fit.
    """
    mine = optimizer.state_dict()
    parameters = [p for group in optimizer.param_groups for p in group["params"]]
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
        raise ValueError(f"{path}: its optimizer state is not a dict with a 'state'")
    groups = saved.get("param_groups")
    indices = (
        [g.get("params") for g in groups]
        if isinstance(groups, list) and all(isinstance(g, dict) for g in groups)
        else None
    )
    if indices != [g["params"] for g in mine["param_groups"]]:
        raise ValueError(f"{path}: its optimizer's parameter groups are not the run's network's")
    for index, state in saved["state"].items():
        if not isinstance(index, int) or not 0 <= index < len(parameters) or not isinstance(state, dict):
            raise ValueError(f"{path}: its optimizer state names no parameter of the network ({index!r})")
        for name, value in state.items():
            shape = () if name == "step" else tuple(parameters[index].shape)
            if (
                not isinstance(value, torch.Tensor)
                or tuple(value.shape) != shape
                or not value.is_floating_point()
            ):
                found = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
                raise ValueError(
                    f"{path}: its optimizer state {name!r} of parameter {index} is {found}, not a floating "
                    f"tensor of shape {shape}"
                )


def restore_run(
    checkpoint: Mapping[str, Any],
    path: Path,
    network: ActorCritic,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
    pool: OpponentPool,
    games: LearnerGames,
) -> tuple[int, int, float]:
    """Put a run back as ``checkpoint`` (read from ``path``) left it: the network (its weights checked
    first, ``check_checkpoint_weights``), the optimizer, the generators, the pool's snapshots and
    estimates, the games in progress. Returns the next update, the global step and the seconds spent.
    """
    check_checkpoint_weights(checkpoint, network, path)
    check_optimizer_state(checkpoint.get("optimizer"), optimizer, path)
    network.load_state_dict(checkpoint["model"]["state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    generator.set_state(checkpoint["torch_rng"])
    torch.set_rng_state(checkpoint["torch_global_rng"])
    pool.snapshots = checkpoint["snapshots"]
    if "league" in checkpoint:  # checkpoints of before the league have no estimates
        pool.load_state_dict(checkpoint["league"])
    games.load_state_dict(
        to_arrays(checkpoint["games"]),
        network=lambda weights: snapshot_network(
            network, weights, f"{path}: a snapshot among its games' opponents"
        ),
    )
    return checkpoint["update"] + 1, checkpoint["global_step"], checkpoint["elapsed"]


def to_tensors(value: Any) -> Any:
    """Plain data with numpy arrays as tensors (what ``torch.load(weights_only=True)`` reads back)."""
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, dict):
        return {k: to_tensors(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(to_tensors(v) for v in value)
    return value


def to_arrays(value: Any) -> Any:
    """The inverse of ``to_tensors``: tensors back to numpy arrays."""
    if isinstance(value, torch.Tensor):
        return value.numpy()
    if isinstance(value, dict):
        return {k: to_arrays(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(to_arrays(v) for v in value)
    return value


def save_checkpoint(run_dir: Path, keep: int, **contents: Any) -> Path:
    """Write ``checkpoints/update_<contents["update"]>.pt`` (through a partial file), keeping the latest ``keep``."""
    folder = run_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"update_{contents['update']:06d}.pt"
    partial = path.with_suffix(".partial")
    torch.save({"format": CHECKPOINT_FORMAT, **contents}, partial)
    partial.replace(path)  # a run killed while writing leaves the previous checkpoints intact
    for old in sorted(folder.glob("update_*.pt"))[:-keep]:
        old.unlink()
    return path


def run_folder(resume: str | Path) -> Path:
    """The folder a resume writes to: the run folder of the checkpoint ``find_checkpoint`` takes
    (``resume=<run>/checkpoints`` writes to ``<run>``); ``resume`` itself where it holds none.

    Raises:
        ConfigError: a checkpoint file not in a run folder's ``checkpoints/`` (its events, model and
            checkpoints would go to the folder above, without the run's ``config.yaml``).
    """
    path = Path(resume)
    if path.is_dir():
        try:
            path = find_checkpoint(path)
        except FileNotFoundError:
            return path
    if not path.exists():
        return path
    if path.parent.name != "checkpoints":
        raise ConfigError(
            f"resume: {path} is not in a run folder's checkpoints/ (<run>/checkpoints/update_<n>.pt); "
            "resume from the run folder, or copy the run folder with it"
        )
    return path.parent.parent


def set_aside_later(run_dir: Path, update: int) -> list[Path]:
    """Move the run's checkpoints of updates after ``update`` (those of a run resumed from an earlier
    checkpoint, or unreadable ones skipped) into a new ``checkpoints/superseded_<time>_<...>/``: kept, but no
    longer the run's latest, which a later ``resume=<run folder>`` would take. The paths moved to."""
    folder = run_dir / "checkpoints"
    later = [p for p in sorted(folder.glob("update_*.pt")) if _update_of(p) > update]
    if not later:
        return []
    aside = Path(tempfile.mkdtemp(prefix=f"superseded_{int(time.time())}_", dir=folder))  # one per resume
    return [path.replace(aside / path.name) for path in later]


def _update_of(path: Path) -> int:
    """The update number of ``update_<n>.pt`` (-1 for another name)."""
    digits = path.stem.removeprefix("update_")
    return int(digits) if digits.isdigit() else -1
