"""The actor-critic network's wiring, without torch: its settings, what each input reads, where each output goes.

``agents.ppo.network`` (torch, for training) and ``agents.ppo.numpy_network`` (numpy, for play
without torch) are the same network; both take from here every index table that joins it to the
game (see ``agents.ppo.network`` for what the network is):

- ``NetworkSettings``: the sizes stored in every model file;
- ``Wiring``: the observation columns of each card's features and of the trunk, the 0/1 matrix
  that gathers the top-level logits, and the names and shapes of the weights;
- ``ActionTables``: between the flat action space and the factorised policy (the top level of K
  atoms and two gates, then suspect, weapon and room).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np

from agents.ppo.features import learner_observation_size, learner_pieces
from cluedo_env import core
from cluedo_env.core.config import config_fields

__all__ = [
    "ACTIVATION_NAMES",
    "GLOBAL_OUTPUTS",
    "MASKED_LOGIT",
    "MAX_LAYERS",
    "MAX_PARAMETERS",
    "MAX_WIDTH",
    "SHIPPED",
    "ActionTables",
    "NetworkSettings",
    "Wiring",
    "declared_network",
    "game_config_from_dict",
    "game_config_to_dict",
    "model_path",
]

# Per-card score channels of the card head.
ACCUSE, SUGGEST, SHOW, ENTER, TOWARD = range(5)
# Outputs of the trunk's global head, before the squares of movement="squares".
GLOBAL_OUTPUTS = (
    "roll",
    "passage",
    "stay",
    "no_move",
    "no_suggestion",
    "end_turn",
    "accuse_gate",
    "suggest_gate",
)
PLAYER_CARD_PIECES = ("shown_to_me", "passed", "showed", "accused")  # [P, C] pieces
CARD_PIECES = ("hand", "unseen", "face_down_seen", "suggestion")  # [C] pieces
TRUNK_CARD_PIECES = ("hand", "unseen", "suggestion")  # card pieces also given to the trunk as they are
# With belief features (agents.ppo.features): their card pieces, the [P, C] ones and those also given
# to the trunk.
BELIEF_CARD_PIECES = ("belief_envelope", "belief_face_down", "certain_envelope", "certain_face_down")
BELIEF_PLAYER_CARD_PIECES = ("belief_players", "certain_players")
BELIEF_TRUNK_CARD_PIECES = ("belief_envelope", "certain_envelope")
ACTIVATION_NAMES = ("tanh", "relu")
# Bounds of the settings, far above any trained network's (128-wide layers): a model file that declares
# more is refused before anything is allocated.
MAX_WIDTH = 65_536
MAX_LAYERS = 64
MAX_PARAMETERS = (
    50_000_000  # the most weights a loaded network may have (200 MB of float32; shipped: ~90,000)
)
MASKED_LOGIT = -1e9  # logit of an illegal action: exp underflows to exactly 0
SHIPPED = Path(__file__).resolve().parent / "shipped"  # the models that ship with the package


def model_path(value: str | Path) -> Path:
    """A model file given as a path, or by the name of a shipped model (``cluedo_ppo_4p.pt``,
    ``cluedo_learned_4p.pt``): the path when it exists, else the shipped file of that name."""
    path = Path(value)
    if not path.exists() and path.name == str(value) and (SHIPPED / path.name).is_file():
        return SHIPPED / path.name
    return path


def game_config_to_dict(game: core.GameConfig) -> dict[str, Any]:
    """The init fields of a game config as plain values (a registered edition by name; the
    ``core.config.LATER_FIELDS`` only where they differ from what files before them meant)."""
    values = config_fields(game)
    if not isinstance(values["edition"], str):
        raise ValueError(f"only registered editions can be saved with a model, got {values['edition']!r}")
    return values


def game_config_from_dict(values: dict[str, Any]) -> core.GameConfig:
    """The game config of ``game_config_to_dict``'s values."""
    return core.GameConfig(**values)


def declared_network(
    record: object, source: str, model_format: str, dicts: tuple[str, ...] = ("network", "game")
) -> tuple[NetworkSettings, core.GameConfig]:
    """The network settings and the game a model file's record declares, each checked.

    Args:
        record: What the file holds (its ``format``, ``network`` settings and ``game``).
        source: The file, for messages.
        model_format: The ``format`` the record must name.
        dicts: The keys whose values must be dicts.

    Raises:
        ValueError: naming the file and the field that is wrong.
    """
    if not isinstance(record, dict) or record.get("format") != model_format:
        found = record.get("format") if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"{source}: not a model record of format {model_format!r} (got {str(found)[:80]!r})")
    for key in dicts:
        if not isinstance(record.get(key), dict):
            raise ValueError(f"{source}: {key!r} must be a dict, got {type(record.get(key)).__name__}")
    try:
        settings = NetworkSettings(**record["network"])
    except (TypeError, ValueError) as error:  # an unknown field, or a bad value (named)
        raise ValueError(
            f"{source}: network.{error}" if isinstance(error, ValueError) else f"{source}: {error}"
        ) from None
    try:
        game = game_config_from_dict(record["game"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{source}: its game: {error}") from None
    return settings, game


@dataclass
class NetworkSettings:
    """Sizes of the actor-critic network (stored in every model file)."""

    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """widths of the trunk MLP's hidden layers"""
    card_hidden: int = 32
    """width of the per-card encoder (one hidden layer shared by all cards)"""
    card_embedding: int = 8
    """size of the learned embedding of each card's identity"""
    activation: str = "relu"
    """activation of every hidden layer: tanh or relu"""
    accuse_bias: float = 0.0
    """initial bias of the accusation gate"""
    accuse_prior: float = -2.0
    """initial weight of log(candidate solutions) in the accusation gate (candidates: the product of
    the unseen counts of the three categories); negative: the fewer candidates, the likelier an
    accusation (a learned parameter; 0: no prior)"""
    unseen_prior: float = 3.0
    """initial bonus of unseen cards in the card scores of accusing, suggesting, entering and heading
    toward a room (a learned parameter per score; 0: no prior)"""
    belief_features: bool = False
    """read the belief pieces (``agents.ppo.features``: exact marginals and entailed facts of every
    card's place) appended to the core's observation: each card's encoder gets its rows, the trunk the
    envelope's; the agent and the training games compute them"""

    def __post_init__(self) -> None:
        if not isinstance(self.activation, str) or self.activation not in ACTIVATION_NAMES:
            raise ValueError(f"activation must be one of {sorted(ACTIVATION_NAMES)}, got {self.activation!r}")
        hidden = (
            list(self.hidden)
            if isinstance(self.hidden, Sequence) and not isinstance(self.hidden, str)
            else []
        )
        if not 1 <= len(hidden) <= MAX_LAYERS or not all(_width(h) for h in hidden):
            raise ValueError(
                f"hidden must be a list of 1 to {MAX_LAYERS} whole widths in [1, {MAX_WIDTH:,}], got {self.hidden!r}"
            )
        for name in ("card_hidden", "card_embedding"):
            if not _width(getattr(self, name)):
                raise ValueError(
                    f"{name} must be a whole width in [1, {MAX_WIDTH:,}], got {getattr(self, name)!r}"
                )
        for name in ("accuse_bias", "accuse_prior", "unseen_prior"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if not isinstance(self.belief_features, bool):
            raise ValueError(f"belief_features must be true or false, got {self.belief_features!r}")
        self.hidden = [int(h) for h in hidden]
        self.card_hidden, self.card_embedding = int(self.card_hidden), int(self.card_embedding)


def _width(value: object) -> bool:
    """Whether ``value`` is a layer width: a whole number in ``[1, MAX_WIDTH]``."""
    return isinstance(value, Integral) and not isinstance(value, bool) and 1 <= value <= MAX_WIDTH


class ActionTables:
    """Index tables between the flat action space and the factorised policy (numpy arrays).

    Attributes:
        blocks: ``{"suggest": (first action, size), "accuse": (...)}``.
        K: The number of atoms (actions outside the two blocks).
        atoms: ``int[K]`` the atoms' flat actions, in order.
        top_index: ``int[A]`` each action's column in the top level (a block's gate for its actions).
        top_columns: ``int[K + 2]`` the mask columns of the top level: the atoms, then each block's first.
        part_columns: ``int[A, 4]`` the (up to 4) columns of the joined log-probability row
            ``[top (K + 2) | suggest S, W | accuse S, W, R | 0 | MASKED_LOGIT]`` whose sum is an action's.
        segment_columns: ``int[6 * longest]`` each of the six parts' columns of that row, padded with the
            last (probability 0); ``segment_last``: ``int[6]`` each part's last index.
        segment_groups: ``float32[row, 3]`` 0/1: the row's columns of the top level, the suggestion's, the
            accusation's.
    """

    def __init__(self, layout: core.ActionLayout, S: int, W: int, R: int) -> None:
        self.layout = layout
        self.S, self.W, self.R = S, W, R
        A = layout.num_actions
        self.blocks = {"suggest": (layout.SUGGEST, S * W), "accuse": (layout.ACCUSE, S * W * R)}
        in_block = np.zeros(A, dtype=bool)
        for lo, size in self.blocks.values():
            in_block[lo : lo + size] = True
        self.atoms = atoms = np.flatnonzero(~in_block)
        self.K = K = len(atoms)
        top = np.zeros(A, dtype=np.int64)
        top[atoms] = np.arange(K)
        kind = np.zeros(A, dtype=np.int64)  # 0 atom, 1 suggestion, 2 accusation
        components = np.zeros((A, 3), dtype=np.int64)
        for k, (name, (lo, size)) in enumerate(self.blocks.items(), start=1):
            top[lo : lo + size] = K + k - 1
            kind[lo : lo + size] = k
            i = np.arange(size)
            if name == "suggest":
                components[lo : lo + size, 0], components[lo : lo + size, 1] = i // W, i % W
            else:
                components[lo : lo + size] = np.stack([i // (W * R), (i // R) % W, i % R], axis=1)
        self.top_index = top
        self.top_columns = np.concatenate([atoms, [lo for lo, _size in self.blocks.values()]])
        sizes = [K + 2, S, W, S, W, R]
        starts = np.cumsum([0, *sizes])
        zero, masked = starts[-1], starts[-1] + 1
        part_columns = np.full((A, 4), zero, dtype=np.int64)
        part_columns[:, 0] = top
        for k, segment in ((1, [1, 2]), (2, [3, 4, 5])):
            for i, j in enumerate(segment):
                part_columns[kind == k, 1 + i] = starts[j] + components[kind == k, i]
        self.part_columns = part_columns
        padded = np.full((len(sizes), max(sizes)), masked, dtype=np.int64)  # padded with probability 0
        groups = np.zeros((masked + 1, 3), dtype=np.float32)
        for j, (start, size) in enumerate(zip(starts, sizes)):
            padded[j, :size] = np.arange(start, start + size)
            groups[start : start + size, (0, 1, 1, 2, 2, 2)[j]] = 1.0
        self.segment_columns = padded.ravel()
        self.segment_last = np.asarray(sizes) - 1
        self.segment_groups = groups

    def compose(
        self, top: np.ndarray, suggest: Sequence[np.ndarray], accuse: Sequence[np.ndarray]
    ) -> np.ndarray:
        """The flat actions of a top-level choice and the blocks' components (``int`` arrays of one length)."""
        K, W, R = self.K, self.W, self.R
        atom = self.atoms[np.minimum(top, K - 1)]
        suggestion = self.blocks["suggest"][0] + suggest[0] * W + suggest[1]
        accusation = self.blocks["accuse"][0] + (accuse[0] * W + accuse[1]) * R + accuse[2]
        return np.where(top < K, atom, np.where(top == K, suggestion, accusation))


class Wiring:
    """What the network of ``settings`` for the rules ``game`` reads and where its outputs go.

    Attributes:
        obs_size, num_actions: The input and output sizes.
        pieces: ``{name: (shape, offset)}`` of the learner's observation.
        category: ``int[C]`` each card's category (0 suspect, 1 weapon, 2 room); ``category_sizes``:
            ``[S, W, R]``.
        card_columns: ``int[C * F]`` the column of each card's F features in
            ``[obs | unseen share per category | 0 | 1]`` (card by card).
        trunk_columns: ``int[...]`` the observation columns the trunk reads as they are.
        trunk_input: The width of the trunk's first layer (those columns, the pooled cards, the shares).
        top_select: ``float32[G + 5C + 1, K + 2]`` 0/1: ``[global outputs | card scores | accusation
            prior term] @ top_select`` is the top level (the atoms, the suggestion gate, the accusation
            gate plus its prior).
        actions: The ``ActionTables``.
        shapes: ``{weight name: shape}``, as the torch network's ``state_dict`` names them.
    """

    def __init__(self, game: core.GameConfig, settings: NetworkSettings) -> None:
        rules = core.rules_for(game)
        self.layout = layout = rules.layout
        self.S, self.W, self.R, self.C, self.P = S, W, R, C, P = rules.S, rules.W, rules.R, rules.C, rules.P
        self.obs_size = learner_observation_size(game, settings.belief_features)
        self.num_actions = rules.A
        self.pieces = {
            name: (shape, offset) for name, shape, offset in learner_pieces(game, settings.belief_features)
        }
        card_pieces, player_card_pieces, trunk_card_pieces = (
            CARD_PIECES,
            PLAYER_CARD_PIECES,
            TRUNK_CARD_PIECES,
        )
        if settings.belief_features:
            card_pieces += BELIEF_CARD_PIECES
            player_card_pieces += BELIEF_PLAYER_CARD_PIECES
            trunk_card_pieces += BELIEF_TRUNK_CARD_PIECES
        self.category = category = np.array([game.cards.category(c) for c in range(C)])
        self.category_sizes = [S, W, R]
        # Source column of each card's features in [obs | unseen share per category | 0 | 1]: CARD_PIECES,
        # PLAYER_CARD_PIECES (player by player), category one-hot, its category's unseen share, room distance
        # (and with belief features, their card pieces after those of their kind).
        card, zero, one = np.arange(C), self.obs_size + 3, self.obs_size + 4
        columns = [self.pieces[name][1] + card for name in card_pieces]
        columns += [self.pieces[name][1] + p * C + card for name in player_card_pieces for p in range(P)]
        columns += [np.where(category == k, one, zero) for k in range(3)]
        columns.append(self.obs_size + category)
        room = card - S - W
        columns.append(np.where(room >= 0, self.pieces["room_distance"][1] + room, zero))
        self.card_columns = np.stack(columns, axis=1).ravel()
        self.card_features = len(columns)
        per_card = set(card_pieces + player_card_pieces) - set(trunk_card_pieces)
        self.trunk_columns = np.concatenate(
            [
                np.arange(offset, offset + math.prod(shape))
                for name, (shape, offset) in self.pieces.items()
                if name not in per_card
            ]
        )
        H = settings.card_hidden
        self.trunk_input = len(self.trunk_columns) + 6 * H + 3
        self.num_squares = layout.sizes["square"]
        self.actions = actions = ActionTables(layout, S, W, R)
        sources = [*GLOBAL_OUTPUTS, *(["square"] * self.num_squares)]
        channel = {"enter": ENTER, "toward": TOWARD, "show": SHOW}
        select = np.zeros((len(sources) + C * 5 + 1, actions.K + 2), dtype=np.float32)
        k = 0
        for name in core.RANGE_NAMES:
            size = layout.sizes[name]
            if name in ("suggest", "accuse") or size == 0:
                continue
            if name in channel:
                first = 0 if name == "show" else S + W  # show: every card; enter, toward: rooms
                rows = [len(sources) + (first + i) * 5 + channel[name] for i in range(size)]
            else:
                rows = [sources.index(name) + i for i in range(size)]
            select[rows, range(k, k + size)] = 1.0
            k += size
        select[sources.index("suggest_gate"), k] = 1.0
        select[[sources.index("accuse_gate"), -1], k + 1] = 1.0
        self.top_select = select
        self.shapes = self._shapes(settings)

    def _shapes(self, settings: NetworkSettings) -> dict[str, tuple[int, ...]]:
        H, E, C = settings.card_hidden, settings.card_embedding, self.C
        shapes = {
            "card_embedding.weight": (C, E),
            "card_encoder.0.weight": (H, self.card_features + E),
            "card_encoder.0.bias": (H,),
        }
        width = self.trunk_input
        for i, hidden in enumerate(settings.hidden):
            shapes[f"trunk.{2 * i}.weight"], shapes[f"trunk.{2 * i}.bias"] = (hidden, width), (hidden,)
            width = hidden
        outputs = {"value_head": 1, "global_head": len(GLOBAL_OUTPUTS) + self.num_squares, "card_head": 5}
        for name, size in outputs.items():
            shapes[f"{name}.weight"], shapes[f"{name}.bias"] = (
                (size, H if name == "card_head" else width),
                (size,),
            )
        shapes["card_context.weight"], shapes["card_context.bias"] = (C * 5, width), (C * 5,)
        shapes["unseen_prior"], shapes["accuse_prior"] = (5,), ()
        return shapes

    @property
    def parameters(self) -> int:
        """The number of weights."""
        return sum(math.prod(shape) for shape in self.shapes.values())
