"""``SB3Agent``: a masked Stable-Baselines3 policy (sb3-contrib's ``MaskablePPO``) behind the agent interface.

    agent = SB3Agent(path="runs/<run>/model.zip")        # or make_agent("sb3", path=...)

Plays any ``MaskablePPO`` model of ``"MultiInputPolicy"`` or of
``agents.integrations.sb3_policy.CardPolicy`` saved with ``model.save`` from
``CluedoSingleAgentEnv`` or ``cluedo_env.sb3.CluedoSB3VecEnv`` (observation
type ``"player"``), in any batch of games at once: the observation dicts of the
deciding games, one forward pass, masked sampling (or the most likely action).

The zip is read without unpickling: SB3's own ``load`` restores pickled Python
objects from it (which could run code from a downloaded file), so this agent
reads only the policy's weights (``policy.pth``, with torch's
``weights_only=True``) and the plain JSON of ``policy_kwargs`` (``net_arch``,
``CardPolicy``'s ``game`` and ``network``, other numbers and lists), and rebuilds
the policy, one of the two classes above by the name SB3 wrote next to the
pickled class, for the game's spaces. A model of another policy class, or whose
``policy_kwargs`` holds anything else (an activation function, a feature
extractor class), is refused with a ``ValueError``; so are a ``net_arch`` that is
not SB3's (a list of at most ``agents.ppo.network.MAX_LAYERS`` widths, or
``{"pi": [...], "vf": [...]}`` of two such lists) or whose network would have
more than ``agents.ppo.model.MAX_PARAMETERS`` weights (both checked before any
layer is built), a zip whose ``data`` and ``policy.pth`` (with the tensors in
it) declare more than ``agents.ppo.model.MAX_MODEL_BYTES`` uncompressed (before
any of them is read), a ``policy.pth`` whose pickle would build more than
``agents.ppo.pickle_scan.check_pickle`` allows (a dict key whose hashing walks
shared references for hours, say; measured before torch unpickles it), and
weights that do not fit the declared network (a ``net_arch`` far wider than the
stored tensors is refused before it is allocated) or hold a NaN or an infinity.

The policy's initial weights, which the zip's replace, are drawn with torch's global
random generator put back afterwards (``torch.random.fork_rng``), as
``agents.ppo.model`` builds a network: ``reset`` rebuilds the policy for each new
game config, and neither that nor playing changes the numbers a program seeding
torch for its own learner draws.
"""

from __future__ import annotations

import json
import pickle
import zipfile
import zlib
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

from agents.base import Agent, option_switch
from agents.integrations.sb3_policy import POLICIES, MaskableMultiInputActorCriticPolicy
from agents.ppo.model import MAX_MODEL_BYTES, MAX_PARAMETERS, check_declared_bytes, check_weights, zip_bytes
from agents.ppo.network import MAX_LAYERS
from agents.ppo.pickle_scan import check_pickle
from cluedo_env import core
from cluedo_env.cluedo_v0 import observation_space, observe_players

__all__ = ["SB3Agent", "load_policy"]


def _plain(value: Any) -> bool:
    """Whether ``value`` is JSON data SB3 stored as itself (not a pickled object)."""
    if isinstance(value, dict):
        return ":serialized:" not in value and all(_plain(v) for v in value.values())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, bool | int | float | str)


def load_policy(path: str | Path, config: core.GameConfig) -> MaskableMultiInputActorCriticPolicy:
    """The policy of a ``MaskablePPO`` zip, rebuilt for ``config``'s spaces without unpickling.

    Raises:
        ValueError: the file is not such a zip, what of it is read (``data``, ``policy.pth`` and the
            tensors in it) declares more than ``agents.ppo.model.MAX_MODEL_BYTES`` uncompressed
            or its pickle would build more than ``check_pickle`` allows (both checked before it is
            read), its policy is neither ``MultiInputPolicy`` nor
            ``CardPolicy``, its ``policy_kwargs`` is not plain data, its ``net_arch`` is not SB3's
            (at most ``MAX_LAYERS`` widths a network) or makes more than ``MAX_PARAMETERS`` weights
            (both checked before any layer is built), or its weights do not fit
            ``config`` and the declared ``net_arch`` (checked, and bounded by
            ``agents.ppo.model.MAX_PARAMETERS``, before the policy is allocated) or are not finite
            (the message names the tensor).

    Torch's global random generator is left as it was (see the module docstring).
    """
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            # What is read: the data, policy.pth and the tensors torch allocates from it (its own zip's
            # members), as their directories declare them; policy.pth's own first, bounded.
            declared = sum(archive.getinfo(name).file_size for name in ("data", "policy.pth"))
            if declared <= MAX_MODEL_BYTES:
                with archive.open("policy.pth") as file:
                    declared += zip_bytes(file)
    except (
        OSError,
        KeyError,
        zipfile.BadZipFile,
        EOFError,
        RuntimeError,
        NotImplementedError,
        zlib.error,
    ) as error:
        # (RuntimeError: a member marked encrypted; zlib and NotImplementedError: its compression)
        first = (str(error).strip().splitlines() or [""])[0]
        raise ValueError(f"{path} is not a Stable-Baselines3 model zip (model.save): {first}") from None
    check_declared_bytes(str(path), declared, MAX_MODEL_BYTES, "a model file may hold")
    with zipfile.ZipFile(path) as archive, archive.open("policy.pth") as file:  # (read above)
        check_pickle(file, f"{path}: its policy.pth")
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
            with archive.open("policy.pth") as file:
                weights = torch.load(file, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # (torch's message would suggest weights_only=False: never for this file)
        raise ValueError(
            f"{path}: its policy.pth holds more than tensors and plain data, which is not unpickled"
        ) from None
    except (OSError, KeyError, zipfile.BadZipFile, ValueError, RuntimeError, EOFError) as error:
        # (JSON, UTF-8 and torch's errors; RecursionError, a RuntimeError: JSON nested too deep)
        first = (str(error).strip().splitlines() or [""])[0]
        raise ValueError(f"{path} is not a Stable-Baselines3 model zip (model.save): {first}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: its data is not a JSON object (model.save writes one)")
    policy_class = data.get("policy_class")
    # SB3 keeps the class pickled and, next to it, the text of its attributes: read the text only
    known = [
        cls
        for cls in POLICIES.values()
        if isinstance(policy_class, dict)
        and policy_class.get("__module__") == cls.__module__
        and f"{cls.__name__}.__init__" in str(policy_class.get("__init__"))
    ]
    if not known:
        raise ValueError(
            f"{path}: the policy must be sb3-contrib's MaskablePPO 'MultiInputPolicy' or "
            "agents.integrations.sb3_policy.CardPolicy"
        )
    kwargs = data.get("policy_kwargs", {})
    if not (isinstance(kwargs, dict) and _plain(kwargs)):
        raise ValueError(
            f"{path}: policy_kwargs holds Python objects ({_shown(kwargs)}), which this agent does not "
            "unpickle; only plain numbers, strings and lists (such as net_arch) can be read"
        )
    space = observation_space(config)
    A = core.ActionLayout(config).num_actions
    _check_net_arch(path, kwargs, spaces.flatdim(space), A, f"the game {config} and its policy_kwargs")

    def build(cls: type[MaskableMultiInputActorCriticPolicy]) -> MaskableMultiInputActorCriticPolicy:
        # lr_schedule builds the optimizer, which an agent that only plays never uses
        return cls(space, spaces.Discrete(A), lambda _: 0.0, **kwargs)

    # First on the meta device: the declared shapes, checked and bounded before any allocation. SB3 moves
    # its layers to the policy's ``device``, which must then say meta too.
    on_meta = type(known[0].__name__, (known[0],), {"device": property(lambda _: torch.device("meta"))})
    try:
        with torch.device("meta"):
            expected = build(on_meta).state_dict()
    except (RuntimeError, TypeError, ValueError) as error:
        raise ValueError(f"{path}: the model does not fit the game {config}: {error}") from error
    check_weights(weights, expected, str(path), f"the game {config} and its policy_kwargs ({_shown(kwargs)})")
    with torch.random.fork_rng(devices=[]):  # its initial weights are replaced: draw none of the caller's
        policy = build(known[0])
    policy.load_state_dict(weights)
    return policy.eval()


def _check_net_arch(path: Path, kwargs: dict[str, Any], features: int, actions: int, declared: str) -> None:
    """Refuse ``kwargs``' ``net_arch`` before any layer is built (SB3 builds one per width it lists): it
    must be SB3's, a list of at most ``MAX_LAYERS`` widths (whole numbers >= 1) shared by the policy and
    the value network, or ``{"pi": [...], "vf": [...]}`` (also in a list, SB3's form before 1.8) of two
    such lists, and the network it makes from ``features`` inputs to ``actions`` logits and a value may
    have at most ``MAX_PARAMETERS`` weights."""
    arch = kwargs.get("net_arch")
    if arch is None:
        return
    if isinstance(arch, list) and len(arch) == 1 and isinstance(arch[0], dict):
        arch = arch[0]
    if isinstance(arch, dict):
        chains = [arch.get("pi", []), arch.get("vf", [])] if set(arch) <= {"pi", "vf"} else [None]
    else:
        chains = [arch, arch]
    if not all(
        isinstance(chain, list)
        and len(chain) <= MAX_LAYERS
        and all(isinstance(width, int) and not isinstance(width, bool) and width >= 1 for width in chain)
        for chain in chains
    ):
        size = f"{len(arch):,} entries: " if isinstance(arch, list | dict) else ""
        raise ValueError(
            f"{path}: policy_kwargs' net_arch must be a list of at most {MAX_LAYERS} layer widths (whole "
            f'numbers >= 1), or {{"pi": [...], "vf": [...]}} of two such lists; got {size}{_shown(arch)}'
        )
    total = 0
    for chain, outputs in zip(chains, (actions, 1), strict=True):  # the action and the value network
        widths = [features, *chain, outputs]
        total += sum(before * after + after for before, after in pairwise(widths))
    if total > MAX_PARAMETERS:
        raise ValueError(
            f"{path}: {declared} ({_shown(kwargs)}) make a network of {total:,} weights, more than the "
            f"{MAX_PARAMETERS:,} a model may have"
        )


def _shown(kwargs: Any) -> str:
    """``policy_kwargs`` (or a part of it) for a message: at most 300 characters."""
    text = json.dumps(kwargs)
    return text if len(text) <= 300 else text[:300] + " ..."


class SB3Agent(Agent):
    """Plays by a ``MaskablePPO`` model: its own observation and the legal actions -> an action.

    Stateless between steps (the observation carries what the player knows).

    Args:
        seed: Seeds the sampling generator (re-seeded by ``reset``).
        path: The model zip (``model.save`` of ``MaskablePPO``; ``experiments/train_sb3.py``
            writes ``model.zip``).
        deterministic: Play the most likely legal action instead of sampling.
    """

    name = "sb3"

    def __init__(self, seed: int = 0, path: str | Path | None = None, deterministic: bool = False) -> None:
        super().__init__(seed)
        if path is None:
            raise ValueError("SB3Agent needs path=<a MaskablePPO model zip>")
        if not Path(path).is_file():
            raise ValueError(f"SB3Agent path {str(path)!r} is not a file")
        self.path = str(path)
        self.deterministic = option_switch("deterministic", deterministic)
        self.policy: MaskableMultiInputActorCriticPolicy | None = None
        self._policy_config: core.GameConfig | None = None

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        if config != self._policy_config:
            self.policy = load_policy(self.path, config)
            self._policy_config = config
        super().reset(config, seats, seed)

    def action_probabilities(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float[len(games), A]``: the policy's probabilities over the legal actions."""
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(mask.shape, dtype=np.float32)
        observations = {
            "observation": torch.from_numpy(observe_players(state, self.seats[games], games=games)),
            "action_mask": torch.from_numpy(np.asarray(mask, dtype=np.float32)),
        }
        with torch.no_grad():
            distribution = self.policy.get_distribution(observations, action_masks=np.asarray(mask))
            probs = distribution.distribution.probs.numpy().astype(np.float64)
        return np.where(mask, probs, 0.0)

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        probs = self.action_probabilities(state, games, mask)
        if self.deterministic:
            return probs.argmax(axis=1).astype(np.int64)
        cumulative = probs.cumsum(axis=1)
        draws = self.rng.random(len(games))[:, None] * cumulative[:, -1:]
        chosen = (cumulative <= draws).sum(axis=1)
        # a draw on the last legal action's edge: the last legal action
        last_legal = mask.shape[1] - 1 - np.asarray(mask)[:, ::-1].argmax(axis=1)
        return np.minimum(chosen, last_legal).astype(np.int64)

    def __repr__(self) -> str:
        return f"SB3Agent(seed={self.seed}, path={self.path!r}, deterministic={self.deterministic})"
