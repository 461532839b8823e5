"""Model files: the small file a PPO agent loads (weights, network settings, game config, sizes).

They are written with ``torch.save`` and read with ``weights_only=True``: plain tensors and
values, no pickled code.

A model file may come from anybody, so nothing it declares is trusted before it is checked,
and the checks come before any allocation: the network settings are bounded
(``NetworkSettings``: widths, layers), the declared network is built on torch's ``meta``
device (shapes, no memory) and its size bounded by ``MAX_PARAMETERS``, and every stored
tensor must have the shape the declared network needs and hold only finite numbers
(``check_weights``, which names the tensor). Only then is the network built and loaded. Its initial
weights, which the file's replace, are drawn with torch's global random generator put back afterwards
(``torch.random.fork_rng``): loading a model (a ``ppo`` or ``rllib`` opponent, say) leaves the numbers
that a program seeding torch for its own learner draws as they were.

Before any of that, the file's own declared size is bounded: ``torch.save`` writes a zip archive,
and ``torch.load`` allocates each member at the size the archive's directory declares, so a small
file of compressed zeros could ask for gigabytes. The members' uncompressed sizes are added up
(``zip_bytes``) and refused past ``MAX_MODEL_BYTES`` (``check_declared_bytes``) before ``torch.load``
reads anything; a file that is not a zip archive (torch's format before 1.6) is not read. Then its
pickle is measured before torch unpickles it (``agents.ppo.pickle_scan.check_pickle``): pickle writes a
value once however often it is referred to, so a file of a kilobyte can hold a dict key that hashing
(which unpickling does) walks for hours; a value reaching more than 10 million values once each
reference is copied, nested more than 64 deep or holding itself is refused, and so is a pickle that
hashes more than that in all, gives its dicts more than 10,000 keys that are numbers (keys made to
share one hash) or any key that is neither a string nor a number, names or calls what ``torch.save``
writes in no model or checkpoint (``set``, ``bytearray``, ``_codecs.encode``: what a few bytes turn into
gigabytes or hours), or that torch's reader would not read (see that module).
"""

from __future__ import annotations

import contextlib
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

import torch

from agents.ppo.network import ActorCritic
from agents.ppo.numpy_network import MAX_MODEL_BYTES, write_numpy_model
from agents.ppo.pickle_scan import EarlierVersionCheckpoint, RefusedGlobal, check_pickle
from agents.ppo.wiring import (
    MAX_PARAMETERS,
    SHIPPED,
    declared_network,
    game_config_from_dict,
    game_config_to_dict,
    model_path,
)

__all__ = [
    "MAX_MODEL_BYTES",
    "MAX_PARAMETERS",
    "MODEL_FORMAT",
    "check_declared_bytes",
    "check_weights",
    "export_numpy_model",
    "game_config_from_dict",
    "game_config_to_dict",
    "load_model",
    "model_path",
    "model_record",
    "network_from_record",
    "save_model",
    "zip_bytes",
]

MODEL_FORMAT = "cluedo-ppo-model-v1"


def save_model(path: str | Path, network: ActorCritic, **extra: Any) -> Path:
    """Write the small file an agent loads: weights, network settings, game config, sizes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({**model_record(network), **extra}, path)
    return path


def export_numpy_model(path: str | Path, network: ActorCritic) -> Path:
    """Write ``network`` as the ``.npz`` that ``agents.ppo.numpy_network`` plays without torch."""
    weights = {name: tensor.detach().cpu().numpy() for name, tensor in network.state_dict().items()}
    return write_numpy_model(path, network.game, network.settings, weights)


def model_record(network: ActorCritic) -> dict[str, Any]:
    """What rebuilds the network: ``state_dict``, ``network`` settings, ``game``, sizes, format."""
    return {
        "format": MODEL_FORMAT,
        "state_dict": {k: v.detach().clone() for k, v in network.state_dict().items()},
        "network": asdict(network.settings),
        "game": game_config_to_dict(network.game),
        "obs_size": network.obs_size,
        "num_actions": network.num_actions,
    }


def zip_bytes(file: str | Path | IO[bytes]) -> int:
    """The bytes the members of a zip archive hold uncompressed, in all, as its directory declares them:
    what ``torch.load`` allocates for a ``torch.save`` file. Only the directory is read.

    The archive must start with a member, and its end records must state the directory where Python's
    reader finds it: Python's reader takes bytes before an archive as a prefix and looks elsewhere, and
    torch's reader reads what the records state, so a file whose records disagree could declare one size
    here and hold another there (or hold torch's format before 1.6, which is no zip, behind a zip's end).

    Raises:
        zipfile.BadZipFile: ``file`` is not a zip archive, or not one read alike by both readers.
    """
    with open(file, "rb") if isinstance(file, str | Path) else contextlib.nullcontext(file) as stream:
        if stream.read(4) != b"PK\x03\x04":
            raise zipfile.BadZipFile("it does not start with a zip member")
        with zipfile.ZipFile(stream) as archive:
            stated = _stated_directory(stream)
            if any(offset != archive.start_dir for offset in stated):
                raise zipfile.BadZipFile(
                    f"its end records put its directory at byte {stated}, but it stands at {archive.start_dir}"
                )
            return sum(member.file_size for member in archive.infolist())


def _stated_directory(stream: IO[bytes]) -> list[int]:
    """Where a zip's end record (and its zip64 end record, if any) say the directory starts."""
    size = stream.seek(0, 2)
    stream.seek(max(0, size - (1 << 16) - 22))
    tail = stream.read()
    at = len(tail) - 22 if tail[-22:-18] == b"PK\x05\x06" else tail.rfind(b"PK\x05\x06")  # as zipfile does
    if at < 0:
        raise zipfile.BadZipFile("it has no end record")
    (offset,) = struct.unpack_from("<L", tail, at + 16)
    stated = [] if offset == 0xFFFFFFFF else [offset]
    if tail[at - 20 : at - 16] == b"PK\x06\x07":  # a zip64 locator: its record must be the one before it
        (record,) = struct.unpack_from("<Q", tail, at - 20 + 8)
        if record != size - len(tail) + at - 20 - 56 or tail[at - 76 : at - 72] != b"PK\x06\x06":
            raise zipfile.BadZipFile("its zip64 locator points away from its zip64 end record")
        stated.append(struct.unpack_from("<Q", tail, at - 76 + 48)[0])
    return stated


def check_declared_bytes(source: str, declared: int, limit: int, what: str) -> None:
    """Refuse a file whose contents declare more than ``limit`` bytes (``zip_bytes``), before they are read.

    Args:
        source: The file, for messages.
        declared: The bytes its contents declare.
        limit: The most it may declare.
        what: What may hold ``limit`` bytes, for messages (``"a model file may hold"``).

    Raises:
        ValueError: naming the file, the bytes declared and the limit.
    """
    if declared > limit:
        raise ValueError(
            f"{source}: its contents declare {declared:,} bytes uncompressed, more than the {limit:,} {what}; "
            "nothing of it was read"
        )


def check_weights(weights: object, expected: Mapping[str, torch.Tensor], source: str, declared: str) -> None:
    """Refuse weights that do not fit the network a file declares, before that network is allocated.

    Args:
        weights: The stored weights (a ``state_dict`` read from the file).
        expected: The ``state_dict`` of the declared network built on the ``meta`` device (its shapes and
            dtypes; no memory).
        source: The file, for messages.
        declared: What declares the network, for messages (``"its network settings (...) and game"``).

    Raises:
        ValueError: the declared network has more than ``MAX_PARAMETERS`` weights, or a tensor is missing,
            unexpected, not a dense floating-point tensor, of another shape, or holds a NaN or an
            infinity (once in the network's dtype); the message names the tensor.
    """
    total = sum(tensor.numel() for tensor in expected.values())
    if total > MAX_PARAMETERS:
        raise ValueError(
            f"{source}: {declared} make a network of {total:,} weights, more than the {MAX_PARAMETERS:,} "
            "a model may have"
        )
    if not isinstance(weights, Mapping):
        raise ValueError(f"{source}: its weights are a {type(weights).__name__}, not a dict of tensors")
    missing = [name for name in expected if name not in weights]
    unexpected = [str(name)[:80] for name in weights if name not in expected]
    if missing or unexpected:
        raise ValueError(
            f"{source}: the model does not fit {declared}: missing tensors {missing[:5]}, unexpected "
            f"{unexpected[:5]}"
        )
    for name, want in expected.items():
        tensor = weights[name]
        if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided:
            raise ValueError(f"{source}: weight {name!r} is a {type(tensor).__name__}, not a dense tensor")
        if tuple(tensor.shape) != tuple(want.shape):
            raise ValueError(
                f"{source}: the model does not fit {declared}: tensor {name!r} has shape {tuple(tensor.shape)}, "
                f"they need {tuple(want.shape)}"
            )
        if not tensor.is_floating_point():
            raise ValueError(f"{source}: tensor {name!r} is {tensor.dtype}, not floating point")
        finite = torch.isfinite(tensor.to(want.dtype))  # float64 weights past float32's range: infinite
        if not bool(finite.all()):
            bad = int((~finite).sum())
            raise ValueError(
                f"{source}: tensor {name!r} holds {bad:,} NaN or infinite values (of {tensor.numel():,}); "
                "a model's weights must be finite"
            )


def network_from_record(record: dict[str, Any], source: str = "the model record") -> ActorCritic:
    """Rebuild a network from ``model_record``'s dict, checked first (see the module docstring). Torch's
    global random generator is left as it was.

    Args:
        record: The dict.
        source: Where it comes from (a file), for messages.

    Raises:
        ValueError: naming the field or the tensor that is wrong.
    """
    settings, game = declared_network(record, source, MODEL_FORMAT, ("network", "game", "state_dict"))
    declared = (
        f"its network settings ({', '.join(f'{k}={v!r}' for k, v in asdict(settings).items())}) and game"
    )
    with torch.device("meta"):  # the declared shapes, without allocating them
        expected = ActorCritic(game, settings).state_dict()
    check_weights(record["state_dict"], expected, source, declared)
    with torch.random.fork_rng(devices=[]):  # its initial weights are replaced: draw none of the caller's
        network = ActorCritic(game, settings)
    if (network.obs_size, network.num_actions) != (record.get("obs_size"), record.get("num_actions")):
        raise ValueError(
            f"{source}: model was saved with obs_size={record.get('obs_size')!r}, "
            f"num_actions={record.get('num_actions')!r}; this code builds {network.obs_size}, "
            f"{network.num_actions} for its game config"
        )
    network.load_state_dict(record["state_dict"])
    return network


def load_model(path: str | Path) -> ActorCritic:
    """The network of a model file (``model.pt``), of a training checkpoint or of a shipped model
    named by its file name (``model_path``), on the CPU.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the file is neither a model nor a checkpoint of this format, declares more than
            ``MAX_MODEL_BYTES`` or its pickle would build more than ``check_pickle`` allows (both checked
            before it is read), or its weights do not fit the network it declares or are not finite
            (``network_from_record``).
    """
    path = model_path(path)
    if not path.is_file():
        shipped = sorted(model.name for model in SHIPPED.glob("*.pt"))
        raise FileNotFoundError(f"no PPO model at {path} (nor a shipped model of that name: {shipped})")
    try:
        declared = zip_bytes(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise ValueError(
            f"{path} is not a PPO model file: torch.save writes a zip archive, and this is none ({error})"
        ) from None
    check_declared_bytes(str(path), declared, MAX_MODEL_BYTES, "a model file may hold")
    hint = " (a .npz is the learned agent's numpy model: make_agent('learned', checkpoint=...))"
    hint = hint if path.suffix == ".npz" else ""
    try:
        check_pickle(path, str(path))
    except RefusedGlobal as error:
        if error.earlier_version:
            raise EarlierVersionCheckpoint(path, "read") from None
        raise ValueError(f"{error}{hint}") from None
    except ValueError as error:
        raise ValueError(f"{error}{hint}") from None
    try:
        record = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # whatever a file of another kind makes torch's reader raise
        raise ValueError(
            f"{path} is not a PPO model file{hint}: torch could not read it "
            f"({type(error).__name__}: {str(error)[:200]})"
        ) from error
    if isinstance(record, dict) and isinstance(record.get("model"), dict):  # a training checkpoint
        record = record["model"]
    if not isinstance(record, dict):
        raise ValueError(f"{path} is not a PPO model file")
    return network_from_record(record, source=str(path))
