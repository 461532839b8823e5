"""The league of a PPO run: the kinds of opponent, the learner's snapshots and how games draw them.

Opponents (``opponents``): kinds of the agent registry with a weight and a curriculum window
(``start``/``stop`` as fractions of training), plus, from ``snapshot_start`` on, frozen
snapshots of the learner taken every ``snapshot_every`` updates (the latest ``max_snapshots``,
sharing ``snapshot_weight``). A newly dealt game's opponents are drawn by ``pool_sampling``:

- ``weights``: with probability proportional to the weights.
- ``pfsp`` (league self-play, prioritised fictitious self-play as in AlphaStar): proportional to
  ``weight * max(pfsp_floor, (1 - x) ** pfsp_power)``, where ``x`` is the learner's win rate
  against that opponent (each kind, each snapshot): ``(wins + 1/P) / (games + 1)`` over its games
  so far, counts decayed by ``pfsp_decay`` per update (about the last ``1 / (1 - pfsp_decay)``
  updates' games; 1/P, the fair share, is the estimate before any game). The opponents the
  learner beats least are met most; the floor keeps those it beats in the pool, so that it does
  not forget them.

The estimates are kept (and logged, ``OpponentPool.log``) with either rule.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.ppo.games import OpponentKind
from agents.ppo.model import check_weights
from agents.ppo.network import ActorCritic
from experiments.common.labels import check_distinct_labels, check_labels
from experiments.common.value_checks import ConfigError, check_agents

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter

POOL_SAMPLING = ("weights", "pfsp")


@dataclass
class OpponentSettings:
    """One kind of opponent, in the training pool or in the evaluation set."""

    name: str = "random"
    """agents.registry name (random, notepad, sat) or "module:Class\""""
    options: dict[str, Any] = field(default_factory=dict)
    """constructor options of the agent, e.g. {accuse: never}"""
    label: str | None = None
    """name in the logs (default: name)"""
    weight: float = 1.0
    """relative probability that a newly dealt game's opponents are of this kind"""
    start: float = 0.0
    """fraction of training after which this kind joins the pool (a curriculum)"""
    stop: float = 1.0
    """fraction of training after which this kind leaves the pool"""

    @property
    def display(self) -> str:
        return self.label or self.name


def check_pool_sampling(args: Any) -> None:
    """Raise ``ConfigError`` (a ``ValueError``) naming a bad ``pool_sampling`` or ``pfsp_*`` value of the run's config ``args``."""
    if args.pool_sampling not in POOL_SAMPLING:
        raise ConfigError(f"pool_sampling must be one of {list(POOL_SAMPLING)}, got {args.pool_sampling!r}")
    if not args.pfsp_power >= 0 or not 0 <= args.pfsp_floor <= 1 or not 0 <= args.pfsp_decay <= 1:
        raise ConfigError(
            "need pfsp_power >= 0, 0 <= pfsp_floor <= 1 and 0 <= pfsp_decay <= 1, got "
            f"{args.pfsp_power!r}, {args.pfsp_floor!r}, {args.pfsp_decay!r}"
        )


def check_opponents(args: Any) -> None:
    """Raise ``ConfigError`` (a ``ValueError``) naming a bad kind of ``args.opponents`` or ``args.eval_opponents``: labels
    refused (``check_labels``), not distinct or taken by snapshots, a weight or window out of range, an unknown
    agent or option, an agent that cannot play ``args.game``'s rules or that needs the local-llm extra missing
    here (``experiments.common.value_checks.check_agents``), or a stretch of training with no kind in the pool."""
    check_labels("opponents", args.opponents)
    labels = [o.display for o in args.opponents]
    if len(set(labels)) != len(labels) or any(label.startswith("snapshot") for label in labels):
        raise ConfigError(f"opponents need distinct labels not starting with 'snapshot', got {labels}")
    check_distinct_labels("eval_opponents", args.eval_opponents)
    entries = [
        *((f"opponents.{k} ({o.display})", o) for k, o in enumerate(args.opponents)),
        *((f"eval_opponents.{k} ({o.display})", o) for k, o in enumerate(args.eval_opponents)),
    ]
    for where, o in entries:
        if not 0 <= o.weight < math.inf or not 0.0 <= o.start <= o.stop <= 1.0:
            raise ConfigError(f"{where}: need a finite weight >= 0 and 0 <= start <= stop <= 1, got {o}")
    check_agents(((where, o.name, o.options) for where, o in entries), args.game.to_game_config())
    playing = [o for o in args.opponents if o.weight > 0]
    for fraction in sorted({0.0, *(o.stop for o in playing)} - {1.0}):  # where a window may leave none
        if not any(o.start <= fraction < o.stop for o in playing):
            raise ConfigError(
                f"opponents: no kind with a positive weight plays from {fraction:g} of training on (their "
                f"windows start-stop: {[(o.display, o.start, o.stop) for o in playing]}); the pool needs one "
                "at every point"
            )


def snapshot_network(
    network: ActorCritic, weights: Mapping[str, Any], source: str = "a snapshot"
) -> ActorCritic:
    """A frozen copy of ``network`` with other weights (tensors or numpy arrays): a snapshot.

    Raises:
        ValueError: the weights do not fit ``network`` or are not finite, naming ``source`` and the
            tensor (``agents.ppo.model.check_weights``).
    """
    expected = network.state_dict()
    if isinstance(weights, Mapping):
        # A scalar weight may be stored as one element (torch's load_state_dict takes both).
        weights = {
            k: torch.as_tensor(v).reshape(()) if k in expected and expected[k].dim() == 0 and np.size(v) == 1
            else torch.as_tensor(v)
            for k, v in weights.items()
        }  # fmt: skip
    check_weights(weights, expected, source, "the run's network settings and game")
    copied = copy.deepcopy(network).eval()
    copied.load_state_dict(weights)
    return copied


def snapshot_due(args: Any, update: int, num_updates: int) -> bool:
    """Whether a snapshot of the learner joins the pool after ``update`` of ``num_updates``: every
    ``snapshot_every`` updates (0: never), from the fraction ``snapshot_start`` of training on."""
    return bool(
        args.snapshot_every
        and update % args.snapshot_every == 0
        and update / num_updates >= args.snapshot_start
    )


class OpponentPool:
    """The configured kinds (each in its curriculum window), the learner's snapshots, and the learner's
    win rate against each (the league's estimates, which ``pool_sampling="pfsp"`` samples by).

    ``args`` is the run's config (``experiments.train_ppo.TrainConfig``): its ``opponents``,
    ``max_snapshots``, ``snapshot_weight``, ``pool_sampling``, ``pfsp_*`` and ``game`` are read.
    """

    def __init__(self, args: Any) -> None:
        self.args = args
        self.configured = [
            OpponentKind(o.display, o.name, dict(o.options), group=o.display) for o in args.opponents
        ]
        self.snapshots: list[dict[str, Any]] = []  # {"label", "update", "state_dict"}
        self._networks: dict[str, ActorCritic] = {}
        self.wins: dict[str, float] = {}  # decayed win and game counts per opponent label
        self.games: dict[str, float] = {}

    def add_snapshot(self, network: ActorCritic, update: int) -> None:
        """A frozen copy of the learner's weights joins the pool (the oldest leaves past ``max_snapshots``)."""
        state_dict = {k: v.detach().clone() for k, v in network.state_dict().items()}
        self.snapshots.append({"label": f"snapshot_{update}", "update": update, "state_dict": state_dict})
        self.snapshots = self.snapshots[-self.args.max_snapshots :] if self.args.max_snapshots else []

    def record(self, labels: np.ndarray, won: np.ndarray) -> None:
        """Count one update's finished games: ``labels[i]`` the opponent of game i, ``won[i]`` the learner won."""
        for label in self.games:
            self.wins[label] *= self.args.pfsp_decay
            self.games[label] *= self.args.pfsp_decay
        for label in set(labels.tolist()):
            mine = labels == label
            self.wins[label] = self.wins.get(label, 0.0) + float(won[mine].sum())
            self.games[label] = self.games.get(label, 0.0) + float(mine.sum())

    def win_rate(self, label: str) -> float:
        """The learner's estimated win rate against ``label``: ``(wins + 1/P) / (games + 1)``."""
        fair = 1.0 / self.args.game.num_players
        return (self.wins.get(label, 0.0) + fair) / (self.games.get(label, 0.0) + 1.0)

    def priority(self, label: str) -> float:
        """The factor ``pool_sampling`` multiplies ``label``'s weight by (1 with "weights")."""
        if self.args.pool_sampling == "weights":
            return 1.0
        return max(self.args.pfsp_floor, (1.0 - self.win_rate(label)) ** self.args.pfsp_power)

    def kinds(self, network: ActorCritic, fraction: float) -> tuple[list[OpponentKind], list[float]]:
        """The kinds in the pool at this fraction of training, and their weights (priorities applied)."""
        chosen = [
            (k, o.weight)
            for k, o in zip(self.configured, self.args.opponents)
            if o.start <= fraction < o.stop
        ]
        chosen = [(k, w) for k, w in chosen if w > 0] or [(self.configured[0], 1.0)]
        for snap in self.snapshots:
            if snap["label"] not in self._networks:
                self._networks[snap["label"]] = snapshot_network(network, snap["state_dict"])
            kind = OpponentKind(snap["label"], network=self._networks[snap["label"]], group="snapshot")
            chosen.append((kind, self.args.snapshot_weight / len(self.snapshots)))
        live = {s["label"] for s in self.snapshots}
        self._networks = {k: v for k, v in self._networks.items() if k in live}
        return [k for k, _ in chosen], [w * self.priority(k.label) for k, w in chosen]

    def log(self, writer: SummaryWriter, kinds: list[OpponentKind], weights: list[float], step: int) -> None:
        """Log the estimates at ``step``: ``league/win_rate/<opponent>`` and ``league/probability/<opponent>``
        (the chance that a newly dealt game is against it) of the pool's ``kinds`` with these ``weights``."""
        total_weight = sum(weights)
        for kind, weight in zip(kinds, weights, strict=True):
            writer.add_scalar(f"league/win_rate/{kind.label}", self.win_rate(kind.label), step)
            writer.add_scalar(f"league/probability/{kind.label}", weight / total_weight, step)

    def state_dict(self) -> dict[str, Any]:
        """The league's estimates (the snapshots are saved apart)."""
        return {"wins": dict(self.wins), "games": dict(self.games)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back ``state_dict``'s estimates."""
        self.wins = {str(k): float(v) for k, v in state["wins"].items()}
        self.games = {str(k): float(v) for k, v in state["games"].items()}
