"""The actor-critic network in numpy: a trained PPO model played without torch.

``NumpyNetwork`` computes what ``agents.ppo.network.ActorCritic`` computes (the same wiring,
``agents.ppo.wiring``; float32), and the masked policy's most likely action, its samples and its
probabilities as ``agents.ppo.distributions.StructuredCategorical`` gives them. It plays; it does
not train. ``tests/agents/test_numpy_network.py`` compares it with the torch network on the
observations of whole games.

Its model file is a ``.npz`` (``write_numpy_model``, from a torch network:
``agents.ppo.model.export_numpy_model``): one array per weight, named as the torch network's
``state_dict``, and ``record``, a JSON string of the format, the network settings, the game and
the sizes. It is read with ``allow_pickle=False`` (``read_npz``, which bounds the sizes the
arrays' headers declare before any is read; ``experiments.imitate`` reads its batch files with it
too) and, since it may come from anybody, checked before anything is computed: the record must be a
JSON object of the settings (one nested too deep is refused in one message, as any unreadable one),
the settings bounded (``NetworkSettings``), the declared network's size bounded by
``MAX_PARAMETERS``, every weight present, of the declared shape, floating point and finite
(``read_numpy_model``, whose messages name the field or the weight).
"""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path

import numpy as np

from agents.ppo.wiring import (
    ACCUSE,
    MASKED_LOGIT,
    MAX_PARAMETERS,
    SUGGEST,
    NetworkSettings,
    Wiring,
    declared_network,
    game_config_to_dict,
)
from cluedo_env import core

__all__ = [
    "NPZ_ERRORS",
    "NUMPY_MODEL_FORMAT",
    "NumpyNetwork",
    "read_npz",
    "read_numpy_model",
    "write_numpy_model",
]

NUMPY_MODEL_FORMAT = "cluedo-ppo-numpy-v1"


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.float32(0.0))


class NumpyNetwork:
    """The policy of a trained actor-critic network, computed with numpy.

    Args:
        game: The rules the network was trained on.
        settings: Its sizes.
        weights: ``{name: float32 array}`` as the torch network's ``state_dict`` names them, of the
            shapes ``Wiring(game, settings).shapes`` (``read_numpy_model`` checks them).

    Attributes:
        game, settings, obs_size, num_actions: As ``ActorCritic``'s.
    """

    def __init__(
        self, game: core.GameConfig, settings: NetworkSettings, weights: Mapping[str, np.ndarray]
    ) -> None:
        self.game, self.settings = game, settings
        self.wiring = wiring = Wiring(game, settings)
        self.obs_size, self.num_actions = wiring.obs_size, wiring.num_actions
        self.weights = {name: np.asarray(weights[name], dtype=np.float32) for name in wiring.shapes}
        self.one_hot = np.eye(3, dtype=np.float32)[wiring.category]  # [C, 3]
        self.category_size = self.one_hot.sum(axis=0)
        self.activation = np.tanh if settings.activation == "tanh" else _relu
        w = self.weights
        features = wiring.card_features
        encoder = w["card_encoder.0.weight"]
        self.card_bias = (
            w["card_embedding.weight"] @ encoder[:, features:].T + w["card_encoder.0.bias"]
        )  # [C, H]
        self.card_weight = encoder[:, :features].T  # [F, H]
        self.layers = [
            (w[f"trunk.{2 * i}.weight"].T, w[f"trunk.{2 * i}.bias"]) for i in range(len(settings.hidden))
        ]
        heads = ("value_head", "global_head", "card_context")
        self.head_weight = np.concatenate([w[f"{h}.weight"] for h in heads]).T
        self.head_bias = np.concatenate([w[f"{h}.bias"] for h in heads])
        self.head_sizes = np.cumsum([1, w["global_head.bias"].shape[0]])

    def _piece(self, obs: np.ndarray, name: str) -> np.ndarray:
        shape, offset = self.wiring.pieces[name]
        return obs[:, offset : offset + int(np.prod(shape))]

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], np.ndarray]:
        """``(top [n, K + 2], suggest [S], [W] log-softmax, accuse [S], [W], [R] log-softmax, value [n])``.

        The same quantities as ``ActorCritic.forward``'s ``PolicyParts`` and value.
        """
        wiring, w, act = self.wiring, self.weights, self.activation
        obs = np.asarray(obs, dtype=np.float32)
        n, C = len(obs), wiring.C
        unseen = self._piece(obs, "unseen")
        unseen_share = (unseen @ self.one_hot) / self.category_size  # [n, 3]
        source = np.concatenate(
            [obs, unseen_share, np.zeros((n, 1), np.float32), np.ones((n, 1), np.float32)], 1
        )
        features = source[:, wiring.card_columns].reshape(n, C, -1)
        cards = act(features @ self.card_weight + self.card_bias)  # [n, C, H]
        pooled = [
            pool
            for block in np.split(cards, np.cumsum(wiring.category_sizes)[:2], axis=1)
            for pool in (block.mean(axis=1), block.max(axis=1))
        ]
        (first, bias), width = self.layers[0], len(wiring.trunk_columns)
        hidden = obs[:, wiring.trunk_columns] @ first[:width] + bias
        hidden = act(hidden + np.concatenate([*pooled, unseen_share], axis=1) @ first[width:])
        for weight, bias in self.layers[1:]:
            hidden = act(hidden @ weight + bias)
        value, glob, context = np.split(hidden @ self.head_weight + self.head_bias, self.head_sizes, axis=1)
        if self.settings.belief_features:
            candidate = (self._piece(obs, "belief_envelope") > 0).astype(np.float32)
            per_category = candidate @ self.one_hot
        else:
            candidate, per_category = unseen, unseen_share * self.category_size
        score = cards @ w["card_head.weight"].T + w["card_head.bias"] + context.reshape(n, C, 5)
        score = score + candidate[:, :, None] * w["unseen_prior"]
        log_candidates = np.log(np.maximum(per_category, 1.0)).sum(axis=1, keepdims=True)
        top = np.concatenate([glob, score.reshape(n, C * 5), w["accuse_prior"] * log_candidates], 1)
        top = top @ wiring.top_select
        blocks = np.cumsum(wiring.category_sizes)[:2]
        suggest = [_log_softmax(b) for b in np.split(score[:, :, SUGGEST], blocks, axis=1)[:2]]
        accuse = [_log_softmax(b) for b in np.split(score[:, :, ACCUSE], blocks, axis=1)]
        return top, suggest, accuse, value[:, 0]

    def _policy(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, list, list]:
        """The legal top level ``bool[n, K + 2]``, its log-probabilities, and the blocks' log-softmax."""
        top, suggest, accuse, _value = self.forward(obs)
        top_mask = np.asarray(mask, dtype=bool)[:, self.wiring.actions.top_columns]
        return top_mask, _log_softmax(np.where(top_mask, top, np.float32(MASKED_LOGIT))), suggest, accuse

    def mode(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``int64[n]``: the most likely legal action of each observation (``mask``: ``bool[n, A]``)."""
        top_mask, top_log_probs, suggest, accuse = self._policy(obs, mask)
        K = self.wiring.actions.K
        score = top_log_probs.copy()
        score[:, K] += sum(lp.max(axis=1) for lp in suggest)
        score[:, K + 1] += sum(lp.max(axis=1) for lp in accuse)
        top = np.where(top_mask, score, -np.inf).argmax(axis=1)
        return self.wiring.actions.compose(
            top, [lp.argmax(axis=1) for lp in suggest], [lp.argmax(axis=1) for lp in accuse]
        )

    def _log_prob_row(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The joined row ``[top | suggest S, W | accuse S, W, R | 0 | MASKED_LOGIT]`` (``ActionTables``)."""
        _top_mask, top_log_probs, suggest, accuse = self._policy(obs, mask)
        ends = np.broadcast_to(np.array([0.0, MASKED_LOGIT], np.float32), (len(top_log_probs), 2))
        return np.concatenate([top_log_probs, *suggest, *accuse, ends], axis=1)

    def sample(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``int64[n]``: one legal action per observation, drawn from the policy with ``rng``."""
        tables, row = self.wiring.actions, self._log_prob_row(obs, mask)
        u = 1.0 - rng.random((len(row), 6))  # in (0, 1], one per part
        cumulative = np.exp(row)[:, tables.segment_columns].reshape(len(row), 6, -1).cumsum(axis=2)
        index = np.minimum(
            (cumulative < u[:, :, None] * cumulative[:, :, -1:]).sum(axis=2), tables.segment_last
        )
        return tables.compose(
            index[:, 0], [index[:, 1], index[:, 2]], [index[:, 3], index[:, 4], index[:, 5]]
        )

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float32[n, A]``: the policy over the flat actions, exactly 0 on illegal ones."""
        row = self._log_prob_row(obs, mask)
        return np.exp(row[:, self.wiring.actions.part_columns].sum(axis=2))


def write_numpy_model(
    path: str | Path, game: core.GameConfig, settings: NetworkSettings, weights: Mapping[str, np.ndarray]
) -> Path:
    """Write the ``.npz`` a ``NumpyNetwork`` is read from (the weights, and the record as JSON)."""
    wiring = Wiring(game, settings)
    record = {
        "format": NUMPY_MODEL_FORMAT,
        "network": asdict(settings),
        "game": game_config_to_dict(game),
        "obs_size": wiring.obs_size,
        "num_actions": wiring.num_actions,
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {name: np.asarray(weights[name], dtype=np.float32) for name in wiring.shapes}
    with path.open("wb") as file:
        np.savez(file, record=np.array(json.dumps(record, sort_keys=True)), **arrays)
    return path


# The most bytes a model file's arrays may declare in all: the largest network's weights in float64, and its record.
MAX_MODEL_BYTES = 8 * MAX_PARAMETERS + 2**20


# What reading an .npz file may raise, besides a ValueError: not a zip archive, or a damaged one (RuntimeError:
# a member marked encrypted; zlib and NotImplementedError: its compression).
NPZ_ERRORS = (OSError, zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, RuntimeError)
Headers = dict[str, tuple[tuple[int, ...], np.dtype]]


def read_npz(
    path: str | Path, max_bytes: int, what: str, check: Callable[[Headers], None] | None = None
) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file by name (``allow_pickle=False``), each member read as itself (not
    through ``np.load``'s names, which map ``w.npy`` to two members), once what their headers declare
    has been checked, before any array is read: a small file can declare any shape.

    Args:
        path: The file.
        max_bytes: The most bytes its arrays may declare in all.
        what: What ``max_bytes`` bounds, for the message (``"a model may hold"``).
        check: Called with ``{name: (shape, dtype)}`` of the headers; raises ``ValueError`` for arrays
            the caller does not accept.

    Raises:
        ValueError: a member that is not a ``.npy`` array, two of one name, arrays that ``check``
            refuses, or sizes past ``max_bytes``.
        OSError, zipfile.BadZipFile, ...: ``NPZ_ERRORS``, a file that is not a readable zip archive.
    """
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        if any(not name.endswith(".npy") for name in names) or len(set(names)) < len(names):
            raise ValueError("its members must be .npy arrays, each name once")
        headers: Headers = {}
        for member in names:
            with archive.open(member) as file:
                version = np.lib.format.read_magic(file)
                read_header = (
                    np.lib.format.read_array_header_1_0
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0
                )
                shape, _, dtype = read_header(file)
            headers[member.removesuffix(".npy")] = (shape, dtype)
        if check is not None:
            check(headers)
        declared = sum(
            int(np.prod(shape, dtype=object)) * dtype.itemsize for shape, dtype in headers.values()
        )
        if declared > max_bytes:
            raise ValueError(f"its arrays declare {declared:,} bytes, more than the {max_bytes:,} {what}")
        arrays = {}
        for member in names:
            with archive.open(member) as file:
                arrays[member.removesuffix(".npy")] = np.lib.format.read_array(file, allow_pickle=False)
        return arrays


def read_numpy_model(path: str | Path) -> NumpyNetwork:
    """The network of a ``.npz`` model file, checked first (see the module docstring).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: naming the file and the field or weight that is wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no numpy model at {path}")
    source = str(path)
    try:
        arrays = read_npz(path, MAX_MODEL_BYTES, "a model may hold")
    except (ValueError, *NPZ_ERRORS) as error:
        raise ValueError(f"{source}: not a numpy model file (.npz): {error}") from None
    try:
        record = json.loads(str(arrays.pop("record")))
    except (KeyError, ValueError, RecursionError) as error:  # (RecursionError: JSON nested too deep)
        raise ValueError(f"{source}: no readable 'record' (the model's settings as JSON): {error}") from None
    settings, game = declared_network(record, source, NUMPY_MODEL_FORMAT)
    wiring = Wiring(game, settings)
    if wiring.parameters > MAX_PARAMETERS:
        raise ValueError(
            f"{source}: its network settings and game make a network of {wiring.parameters:,} weights, more "
            f"than the {MAX_PARAMETERS:,} a model may have"
        )
    if (wiring.obs_size, wiring.num_actions) != (record.get("obs_size"), record.get("num_actions")):
        raise ValueError(
            f"{source}: model was saved with obs_size={record.get('obs_size')!r}, "
            f"num_actions={record.get('num_actions')!r}; this code builds {wiring.obs_size}, "
            f"{wiring.num_actions} for its game config"
        )
    missing = [name for name in wiring.shapes if name not in arrays]
    unexpected = [name[:80] for name in arrays if name not in wiring.shapes]
    if missing or unexpected:
        raise ValueError(
            f"{source}: the model does not fit its network settings and game: missing weights {missing[:5]}, "
            f"unexpected {unexpected[:5]}"
        )
    for name, shape in wiring.shapes.items():
        array = arrays[name]
        if array.shape != shape:
            raise ValueError(f"{source}: weight {name!r} has shape {array.shape}, the network needs {shape}")
        if not np.issubdtype(array.dtype, np.floating):
            raise ValueError(f"{source}: weight {name!r} is {array.dtype}, not floating point")
        with np.errstate(over="ignore"):  # float64 weights past float32's range: infinite
            finite = np.isfinite(array.astype(np.float32))
        if not finite.all():
            raise ValueError(
                f"{source}: weight {name!r} holds {int((~finite).sum()):,} NaN or infinite values "
                f"(of {array.size:,}); a model's weights must be finite"
            )
    return NumpyNetwork(game, settings, arrays)
