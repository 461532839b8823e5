"""The actor-critic network of the PPO agents and its masked categorical distribution.

The network reads the flat observation of ``core.observe`` and uses the
structure of the game as an inductive bias:

- **Cards.** Every card gets a feature vector gathered from the card-indexed
  observation pieces (held, unseen, shown to me by each player, passed on and
  shown for by each player, accused by each player, named in the current
  suggestion), its category, how many cards of its category are still
  unseen, the moves to its room (room cards) and a learned embedding of the
  card. One small layer with weights shared by all cards encodes them; its
  outputs, pooled per category (mean and max), the unseen share of each
  category and the pieces that are not per card (pawns, weapons, phase, dice,
  whose turn, ...) plus ``hand``, ``unseen`` and ``suggestion`` are the input
  of the trunk MLP. (The other card pieces, P x C each, reach the trunk only
  through the card encoder: this keeps the first layer, most of the cost, small.)
- **Actions.** Card-shaped actions are scored per card: a linear map of the
  card's encoding (shared by all cards), plus a per-card linear output of the
  trunk, plus a learned prior, a bonus for unseen cards (the notepad's open
  lines) in the scores of accusing, suggesting and moving to a room, so that
  training starts from "accuse, suggest and visit what you have not seen".
  An accusation's logit is ``gate + log_softmax(suspect) + log_softmax(weapon)
  + log_softmax(room)`` (S + W + R outputs instead of S x W x R), a
  suggestion's ``gate + log_softmax(suspect) + log_softmax(weapon)``; showing
  card c and entering / heading toward room r have one score per card. The
  gates and the other actions (roll, passage, stay, no move, no suggestion,
  end turn; squares in ``movement="squares"``) are linear outputs of the
  trunk; the accusation gate also gets ``accuse_prior * log(candidate
  solutions)`` (a learned weight, negative at first: accuse when few
  candidates are left). With the log-softmax factorisation the gate alone
  sets how likely the agent is to accuse (or suggest) at all, and the card
  scores which triple.
- **Value.** A linear output of the trunk.

Masking: ``MaskedCategorical`` is the plain distribution over flat logits:
the logits of illegal actions become a large negative finite number
(``MASKED_LOGIT``), so their probability is exactly 0, they are never
sampled, and they get zero gradient (with ``-inf`` the entropy's ``0 * log 0``
would give NaN gradients). ``StructuredCategorical`` is the same distribution
computed from the factorised outputs without building the ``[n, A]`` logits
(the rules make every suggestion, and every accusation, legal together or not
at all); ``ActorCritic.policy`` returns it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from cluedo_env import core

__all__ = [
    "MASKED_LOGIT",
    "MODEL_FORMAT",
    "ActionStructure",
    "ActorCritic",
    "MaskedCategorical",
    "NetworkSettings",
    "PolicyParts",
    "StructuredCategorical",
    "game_config_from_dict",
    "game_config_to_dict",
    "load_model",
    "save_model",
]

MASKED_LOGIT = -1e9  # logit of an illegal action: exp underflows to exactly 0
MODEL_FORMAT = "cluedo-ppo-model-v1"
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
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


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

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}")
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise ValueError(f"hidden must be a non-empty list of positive widths, got {self.hidden!r}")
        for name in ("card_hidden", "card_embedding"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        self.hidden = [int(h) for h in self.hidden]


def layer_init(layer: nn.Linear, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights and a constant bias, as in CleanRL's PPO."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """Policy logits over the flat action space and a state value, for one game config.

    Args:
        game: The rules; observation and action sizes follow from it.
        settings: Layer sizes (default ``NetworkSettings()``).
    """

    def __init__(self, game: core.GameConfig, settings: NetworkSettings | None = None) -> None:
        super().__init__()
        self.game = game
        self.settings = settings = settings or NetworkSettings()
        rules = core.rules_for(game)
        self.layout = rules.layout
        self.S, self.W, self.R, self.C, self.P = rules.S, rules.W, rules.R, rules.C, rules.P
        self.obs_size = core.observation_size(game)
        self.num_actions = rules.A
        self.pieces = {name: (shape, offset) for name, shape, offset in core.observation_pieces(game)}
        category = np.array([game.cards.category(c) for c in range(self.C)])
        one_hot = torch.zeros(self.C, 3)
        one_hot[torch.arange(self.C), torch.as_tensor(category)] = 1.0
        self.register_buffer("category_one_hot", one_hot, persistent=False)
        self.register_buffer("category_size", one_hot.sum(dim=0), persistent=False)
        self.category_sizes = [self.S, self.W, self.R]
        act = ACTIVATIONS[settings.activation]

        H = settings.card_hidden
        # Source column of each card's features in [obs | unseen share per category | 0 | 1]: CARD_PIECES,
        # PLAYER_CARD_PIECES (player by player), category one-hot, its category's unseen share, room distance.
        card, zero, one = np.arange(self.C), self.obs_size + 3, self.obs_size + 4
        columns = [self.pieces[name][1] + card for name in CARD_PIECES]
        columns += [
            self.pieces[name][1] + p * self.C + card for name in PLAYER_CARD_PIECES for p in range(self.P)
        ]
        columns += [np.where(category == k, one, zero) for k in range(3)]
        columns.append(self.obs_size + category)
        room = card - self.S - self.W
        columns.append(np.where(room >= 0, self.pieces["room_distance"][1] + room, zero))
        self.register_buffer(
            "card_columns", torch.as_tensor(np.stack(columns, axis=1).ravel()), persistent=False
        )
        self.register_buffer("zero_one", torch.tensor([[0.0, 1.0]]), persistent=False)
        card_features = len(columns)
        self.card_embedding = nn.Embedding(self.C, settings.card_embedding)
        self.card_encoder = nn.Sequential(
            layer_init(nn.Linear(card_features + settings.card_embedding, H)), act()
        )
        per_card = set(CARD_PIECES + PLAYER_CARD_PIECES) - set(TRUNK_CARD_PIECES)
        trunk_columns = [
            torch.arange(offset, offset + math.prod(shape))
            for name, (shape, offset) in self.pieces.items()
            if name not in per_card
        ]
        self.register_buffer("trunk_columns", torch.cat(trunk_columns), persistent=False)
        layers: list[nn.Module] = []
        width = len(self.trunk_columns) + 6 * H + 3
        for hidden in settings.hidden:
            layers += [layer_init(nn.Linear(width, hidden)), act()]
            width = hidden
        self.trunk = nn.Sequential(*layers)
        self.value_head = layer_init(nn.Linear(width, 1), std=1.0)
        self.num_squares = self.layout.sizes["square"]
        self.global_head = layer_init(nn.Linear(width, len(GLOBAL_OUTPUTS) + self.num_squares), std=0.01)
        with torch.no_grad():
            self.global_head.bias[GLOBAL_OUTPUTS.index("accuse_gate")] = settings.accuse_bias
        self.card_head = layer_init(nn.Linear(H, 5), std=0.01)  # shared by all cards
        self.card_context = layer_init(nn.Linear(width, self.C * 5), std=0.01)  # per card, from the trunk
        prior = torch.full((5,), float(settings.unseen_prior))
        prior[SHOW] = 0.0
        self.unseen_prior = nn.Parameter(prior)  # [channel]: score bonus of an unseen card
        self.accuse_prior = nn.Parameter(torch.tensor(float(settings.accuse_prior)))
        self.structure = ActionStructure(self.layout, self.S, self.W, self.R)
        # top = [global outputs | card scores | accusation prior term] @ top_select (a 0/1 matrix): the
        # atoms in flat order, the suggestion gate, the accusation gate plus its prior
        sources = [*GLOBAL_OUTPUTS, *(["square"] * self.num_squares)]
        channel = {"enter": ENTER, "toward": TOWARD, "show": SHOW}
        select = torch.zeros(len(sources) + self.C * 5 + 1, self.structure.K + 2)
        k = 0
        for name in core.RANGE_NAMES:
            size = self.layout.sizes[name]
            if name in ("suggest", "accuse") or size == 0:
                continue
            if name in channel:
                first = 0 if name == "show" else self.S + self.W  # show: every card; enter, toward: rooms
                rows = [len(sources) + (first + i) * 5 + channel[name] for i in range(size)]
            else:
                rows = [sources.index(name) + i for i in range(size)]
            select[rows, range(k, k + size)] = 1.0
            k += size
        select[sources.index("suggest_gate"), k] = 1.0
        select[[sources.index("accuse_gate"), -1], k + 1] = 1.0
        self.register_buffer("top_select", select, persistent=False)

    def _piece(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        shape, offset = self.pieces[name]
        return obs[:, offset : offset + math.prod(shape)].reshape(len(obs), *shape)

    def card_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``float[n, C, F]`` per-card features read from the observation (all but the card embedding)
        and ``float[n, 3]`` unseen fraction per category: one ``index_select``, no per-piece concatenation."""
        unseen_share = (self._piece(obs, "unseen") @ self.category_one_hot) / self.category_size  # [n, 3]
        source = torch.cat([obs, unseen_share, self.zero_one.expand(len(obs), 2)], dim=1)
        return source.index_select(1, self.card_columns).unflatten(1, (self.C, -1)), unseen_share

    def forward(self, obs: torch.Tensor) -> tuple[PolicyParts, torch.Tensor]:
        """``(policy parts, value [n])`` of a batch of observations (see ``PolicyParts``)."""
        n, C = len(obs), self.C
        features, unseen_share = self.card_features(obs)
        # The card encoder's first layer by parts: the embedding's share is the same for every
        # observation (a [C, H] bias), and the features need no gradient (no backward through a cat).
        encoder, width = self.card_encoder[0], features.shape[2]
        card_bias = F.linear(self.card_embedding.weight, encoder.weight[:, width:], encoder.bias)
        cards = self.card_encoder[1](F.linear(features, encoder.weight[:, :width]) + card_bias)  # [n, C, H]
        # split rather than slices: their backward is one cat, not a zero-filled tensor per slice;
        # max rather than amax: a scatter backward (amax shares the gradient among ties, which only
        # happen at the activation's 0, where relu stops the gradient anyway)
        pooled = [
            pool
            for block in cards.split(self.category_sizes, dim=1)
            for pool in (block.mean(1), block.max(1).values)
        ]
        # The trunk's first layer by parts too: the observation columns need no input gradient.
        first, width = self.trunk[0], len(self.trunk_columns)
        hidden = F.linear(obs.index_select(1, self.trunk_columns), first.weight[:, :width], first.bias)
        hidden = hidden + F.linear(torch.cat([*pooled, unseen_share], dim=1), first.weight[:, width:])
        for layer in self.trunk[1:]:
            hidden = layer(hidden)
        # The three heads on the trunk in one matmul.
        heads = (self.value_head, self.global_head, self.card_context)
        out = F.linear(hidden, torch.cat([h.weight for h in heads]), torch.cat([h.bias for h in heads]))
        value, glob, context = out.split([1, self.global_head.out_features, C * 5], dim=1)
        unseen = self._piece(obs, "unseen")
        score = torch.addcmul(
            self.card_head(cards) + context.view(n, C, 5), unseen[:, :, None], self.unseen_prior
        )
        log_candidates = (unseen_share * self.category_size).clamp(min=1.0).log().sum(dim=1, keepdim=True)
        return self._parts(glob, score, self.accuse_prior * log_candidates), value.squeeze(1)

    def _parts(self, glob: torch.Tensor, score: torch.Tensor, accuse_prior: torch.Tensor) -> PolicyParts:
        top = torch.cat([glob, score.flatten(1), accuse_prior], dim=1) @ self.top_select
        suggest = score[:, :, SUGGEST].split(self.category_sizes, dim=1)[:2]
        accuse = score[:, :, ACCUSE].split(self.category_sizes, dim=1)
        return PolicyParts(
            top=top,
            suggest=tuple(F.log_softmax(block, 1) for block in suggest),
            accuse=tuple(F.log_softmax(block, 1) for block in accuse),
        )

    def policy(
        self, obs: torch.Tensor, mask: torch.Tensor, check: bool = True
    ) -> tuple[StructuredCategorical, torch.Tensor]:
        """The masked action distribution and the value of each observation (``check``: see ``StructuredCategorical``)."""
        parts, value = self(obs)
        return StructuredCategorical(parts, mask, self.structure, check), value

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``float[n, A]`` the flat logits (for ``MaskedCategorical``; ``policy`` avoids building them)."""
        return self.structure.flat(self(obs)[0])


@dataclass
class PolicyParts:
    """The policy's outputs before they are spread over the flat action space.

    Attributes:
        top: ``[n, K + 2]`` logits of the K actions outside the suggestion and
            accusation blocks (in flat order), then the suggestion gate, then the
            accusation gate.
        suggest: log-softmax over suspects ``[n, S]`` and weapons ``[n, W]``.
        accuse: log-softmax over suspects, weapons and rooms.

    The flat logit of suggestion (s, w) is ``gate + suggest[0][s] + suggest[1][w]``
    and that of accusation (s, w, r) ``gate + accuse[0][s] + accuse[1][w] + accuse[2][r]``.
    """

    top: torch.Tensor
    suggest: tuple[torch.Tensor, ...]
    accuse: tuple[torch.Tensor, ...]


class ActionStructure:
    """Lookup tables between the flat action space and ``PolicyParts``."""

    def __init__(self, layout: core.ActionLayout, S: int, W: int, R: int) -> None:
        self.layout = layout
        self.S, self.W, self.R = S, W, R
        A = layout.num_actions
        self.blocks = {"suggest": (layout.SUGGEST, S * W), "accuse": (layout.ACCUSE, S * W * R)}
        in_block = np.zeros(A, dtype=bool)
        for lo, size in self.blocks.values():
            in_block[lo : lo + size] = True
        atoms = np.flatnonzero(~in_block)
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
        self.atoms = torch.as_tensor(atoms)
        self.top_index = torch.as_tensor(top)
        # The top-level mask columns: the atoms, then the first action of each block.
        self.top_columns = torch.as_tensor(
            np.concatenate([atoms, [lo for lo, _size in self.blocks.values()]])
        )
        # StructuredCategorical keeps its log-probabilities in one row per observation:
        # [top (K + 2) | suggest S, W | accuse S, W, R | 0 | MASKED_LOGIT], the six parts ("segments") in order.
        sizes = [K + 2, S, W, S, W, R]
        starts = np.cumsum([0, *sizes])
        zero, masked = starts[-1], starts[-1] + 1
        # the (up to 4) log-probs that sum to an action's: the top level's, then its block's components
        part_columns = np.full((A, 4), zero, dtype=np.int64)
        part_columns[:, 0] = top
        for k, segment in ((1, [1, 2]), (2, [3, 4, 5])):
            for i, j in enumerate(segment):
                part_columns[kind == k, 1 + i] = starts[j] + components[kind == k, i]
        self.part_columns = torch.as_tensor(part_columns)
        padded = np.full((len(sizes), max(sizes)), masked, dtype=np.int64)  # padded with probability 0
        groups = np.zeros((masked + 1, 3), dtype=np.float32)  # 0/1: top level, suggestion, accusation
        for j, (start, size) in enumerate(zip(starts, sizes)):
            padded[j, :size] = np.arange(start, start + size)
            groups[start : start + size, (0, 1, 1, 2, 2, 2)[j]] = 1.0
        self.segment_columns = torch.as_tensor(padded.ravel())
        self.segment_last = torch.as_tensor(sizes) - 1
        self.segment_groups = torch.as_tensor(groups)

    def top_mask(self, mask: torch.Tensor, check: bool = True) -> torch.Tensor:
        """``bool[n, K + 2]``: the legal atoms and whether the suggestion / accusation blocks are legal.

        Raises:
            ValueError: with ``check``, if a block is partly legal (the factorised
                distribution needs each block all legal or all illegal, as the rules make them).
        """
        if check:
            for name, (lo, size) in self.blocks.items():
                block = mask[:, lo : lo + size]
                if (block != block[:, :1]).any():
                    raise ValueError(f"the {name} block of a mask row is partly legal; use MaskedCategorical")
        return mask.index_select(1, self.top_columns)

    def flat(self, parts: PolicyParts, top: torch.Tensor | None = None) -> torch.Tensor:
        """``[n, A]`` flat values from ``top`` (default ``parts.top``) and the block components."""
        top = parts.top if top is None else top
        n, K = len(top), self.K
        blocks = {
            "suggest": (top[:, K, None, None] + parts.suggest[0][:, :, None] + parts.suggest[1][:, None, :]),
            "accuse": (
                top[:, K + 1, None, None, None]
                + parts.accuse[0][:, :, None, None]
                + parts.accuse[1][:, None, :, None]
                + parts.accuse[2][:, None, None, :]
            ),
        }
        pieces = []
        for name in core.RANGE_NAMES:
            lo, size = self.layout.offsets[name], self.layout.sizes[name]
            if size == 0:
                continue
            if name in blocks:
                pieces.append(blocks[name].reshape(n, size))
            else:
                first = int(self.top_index[lo])
                pieces.append(top[:, first : first + size])
        return torch.cat(pieces, dim=1)


def _inverse_cdf(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """The index drawn from each row of ``probs`` by a uniform ``u`` in (0, 1].

    The first index whose cumulative probability reaches ``u * total``: that
    step of the cumulative sum is a positive probability, so an index of
    probability 0 is never drawn.
    """
    cumulative = probs.cumsum(dim=1)
    index = (cumulative < u[:, None] * cumulative[:, -1:]).sum(dim=1)
    return index.clamp_(max=probs.shape[1] - 1)


class MaskedCategorical:
    """A categorical distribution over the legal actions only.

    Args:
        logits: ``float[n, A]`` unnormalised log-probabilities.
        mask: ``bool[n, A]`` legal actions (at least one per row).
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        self.mask = mask.bool()
        self.logits = logits.masked_fill(~self.mask, MASKED_LOGIT)
        self.log_probs = F.log_softmax(self.logits, dim=-1)

    @property
    def probs(self) -> torch.Tensor:
        """``float[n, A]``: exactly 0 on illegal actions."""
        return self.log_probs.exp()

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row, by inverting the cumulative distribution (never an illegal one)."""
        return _inverse_cdf(self.probs, 1.0 - torch.rand(len(self.logits), generator=generator))

    def mode(self) -> torch.Tensor:
        """The most likely legal action of each row."""
        return self.logits.argmax(dim=-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(1, actions.long()[:, None]).squeeze(1)

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions (illegal ones contribute exactly 0)."""
        return -(self.probs * self.log_probs).sum(dim=-1)


class StructuredCategorical:
    """The same distribution as ``MaskedCategorical`` over the flat logits of ``PolicyParts``, computed by parts.

    A suggestion block's total probability is the gate's share of the top level
    (its log-softmax terms sum to 0 in log space), so the distribution is a
    categorical over the K atoms and the two gates, then independent choices of
    suspect, weapon (and room). Log-probabilities, entropy
    (``H_top + p_suggest * H_suggest + p_accuse * H_accuse``), sampling and the
    mode never build the ``[n, A]`` flat tensor (324 of the 405 classic actions are
    accusations). Illegal atoms and illegal blocks get the ``MASKED_LOGIT``
    treatment at the top level: probability exactly 0, zero gradient.

    Args:
        parts: The network's outputs.
        mask: ``bool[n, A]`` legal actions; each block must be all legal or all illegal.
        structure: The network's ``ActionStructure``.
        check: Verify the block condition on the mask.
    """

    def __init__(
        self, parts: PolicyParts, mask: torch.Tensor, structure: ActionStructure, check: bool = True
    ) -> None:
        self.parts = parts
        self.structure = structure
        self.top_mask = structure.top_mask(mask.bool(), check)
        self.top_log_probs = F.log_softmax(parts.top.masked_fill(~self.top_mask, MASKED_LOGIT), dim=1)
        # All log-probabilities in one row (layout: ActionStructure.part_columns), for single gathers
        ends = torch.tensor([[0.0, MASKED_LOGIT]]).expand(len(parts.top), 2)
        self.log_probs = torch.cat([self.top_log_probs, *parts.suggest, *parts.accuse, ends], dim=1)

    @property
    def probs(self) -> torch.Tensor:
        """``float[n, A]`` over the flat action space: exactly 0 on illegal actions."""
        return self.structure.flat(self.parts, self.top_log_probs).exp()

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """The top level's log-probability plus, in a block, those of the components."""
        return self.log_probs.gather(1, self.structure.part_columns[actions.long()]).sum(dim=1)

    def entropy(self) -> torch.Tensor:
        K = self.structure.K
        p = self.log_probs.exp()
        h = -(p * self.log_probs) @ self.structure.segment_groups  # [n, 3]: top level, suggestion, accusation
        return h[:, 0] + p[:, K] * h[:, 1] + p[:, K + 1] * h[:, 2]

    def _compose(
        self, top: torch.Tensor, suggest: list[torch.Tensor], accuse: list[torch.Tensor]
    ) -> torch.Tensor:
        st = self.structure
        K, W, R = st.K, st.W, st.R
        atom = st.atoms[top.clamp(max=K - 1)]
        suggestion = st.blocks["suggest"][0] + suggest[0] * W + suggest[1]
        accusation = st.blocks["accuse"][0] + (accuse[0] * W + accuse[1]) * R + accuse[2]
        return torch.where(top < K, atom, torch.where(top == K, suggestion, accusation))

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row: the top level, then the block's components (never an illegal action)."""
        st, n = self.structure, len(self.top_log_probs)
        u = 1.0 - torch.rand(n, 6, generator=generator)  # in (0, 1], one per segment
        # _inverse_cdf of the six segments at once, each padded with probability-0 entries
        cumulative = (
            self.log_probs.exp().index_select(1, st.segment_columns).unflatten(1, (6, -1)).cumsum(dim=2)
        )
        index = (cumulative < u[:, :, None] * cumulative[:, :, -1:]).sum(dim=2).minimum(st.segment_last)
        return self._compose(index[:, 0], index[:, 1:3].unbind(1), index[:, 3:].unbind(1))

    def mode(self) -> torch.Tensor:
        """The most likely legal action of each row."""
        K = self.structure.K
        score = self.top_log_probs.clone()
        score[:, K] += sum(lp.amax(dim=1) for lp in self.parts.suggest)
        score[:, K + 1] += sum(lp.amax(dim=1) for lp in self.parts.accuse)
        score = score.masked_fill(~self.top_mask, -math.inf)
        top = score.argmax(dim=1)
        suggest = [lp.argmax(dim=1) for lp in self.parts.suggest]
        accuse = [lp.argmax(dim=1) for lp in self.parts.accuse]
        return self._compose(top, suggest, accuse)


# --- model files -------------------------------------------------------------


def game_config_to_dict(game: core.GameConfig) -> dict[str, Any]:
    """The init fields of a game config as plain values (a registered edition by name)."""
    values = {f.name: getattr(game, f.name) for f in fields(game) if f.init}
    if not isinstance(values["edition"], str):
        raise ValueError(f"only registered editions can be saved with a model, got {values['edition']!r}")
    return values


def game_config_from_dict(values: dict[str, Any]) -> core.GameConfig:
    return core.GameConfig(**values)


def save_model(path: str | Path, network: ActorCritic, **extra: Any) -> Path:
    """Write the small file an agent loads: weights, network settings, game config, sizes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({**model_record(network), **extra}, path)
    return path


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


def network_from_record(record: dict[str, Any]) -> ActorCritic:
    """Rebuild a network from ``model_record``'s dict (checks the sizes)."""
    if record.get("format") != MODEL_FORMAT:
        raise ValueError(f"not a model record of format {MODEL_FORMAT!r} (got {record.get('format')!r})")
    network = ActorCritic(game_config_from_dict(record["game"]), NetworkSettings(**record["network"]))
    if (network.obs_size, network.num_actions) != (record["obs_size"], record["num_actions"]):
        raise ValueError(
            f"model was saved with obs_size={record['obs_size']}, num_actions={record['num_actions']}; "
            f"this code builds {network.obs_size}, {network.num_actions} for its game config"
        )
    network.load_state_dict(record["state_dict"])
    return network


def load_model(path: str | Path) -> ActorCritic:
    """The network of a model file (``model.pt``) or of a training checkpoint, on the CPU.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the file is neither a model nor a checkpoint of this format.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no PPO model at {path}")
    record = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(record, dict) and isinstance(record.get("model"), dict):  # a training checkpoint
        record = record["model"]
    if not isinstance(record, dict):
        raise ValueError(f"{path} is not a PPO model file")
    return network_from_record(record)
