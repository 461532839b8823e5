"""The actor-critic network of the PPO agents.

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
- **Belief features** (``NetworkSettings.belief_features``, off by default): the
  belief pieces of ``agents.ppo.features`` (exact probability and entailed
  facts of every card's place) join each card's features, the envelope's
  also the trunk's input, and the two priors count the cards that may still be
  in the envelope (nonzero probability) instead of the unseen ones: the
  accusation prior's candidate solutions are then exactly those left
  possible, also in a network warm-started from one without beliefs
  (``agents.ppo.warm_start``).


Its index tables (what each input column reads, where each output goes) and its settings are
``agents.ppo.wiring``'s, shared with ``agents.ppo.numpy_network``, the same network in numpy for
play without torch. The action distributions it returns are in ``agents.ppo.distributions``; the model files, which
rebuild a network from its settings and weights, in ``agents.ppo.model`` (which imports this
module, never the other way round).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from agents.ppo.distributions import ActionStructure, PolicyParts, StructuredCategorical
from agents.ppo.wiring import (
    ACCUSE,
    GLOBAL_OUTPUTS,
    MAX_LAYERS,
    MAX_WIDTH,
    SHOW,
    SUGGEST,
    NetworkSettings,
    Wiring,
)
from cluedo_env import core

__all__ = ["GLOBAL_OUTPUTS", "MAX_LAYERS", "MAX_WIDTH", "PRECISIONS", "ActorCritic", "NetworkSettings"]

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
PRECISIONS = ("float32", "bfloat16")


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
        self.wiring = wiring = Wiring(game, settings)
        self.layout = wiring.layout
        self.S, self.W, self.R, self.C, self.P = wiring.S, wiring.W, wiring.R, wiring.C, wiring.P
        self.obs_size, self.num_actions, self.pieces = wiring.obs_size, wiring.num_actions, wiring.pieces
        one_hot = torch.zeros(self.C, 3)
        one_hot[torch.arange(self.C), torch.as_tensor(wiring.category)] = 1.0
        self.register_buffer("category_one_hot", one_hot, persistent=False)
        self.register_buffer("category_size", one_hot.sum(dim=0), persistent=False)
        self.category_sizes = wiring.category_sizes
        act = ACTIVATIONS[settings.activation]
        H = settings.card_hidden
        self.register_buffer("card_columns", torch.as_tensor(wiring.card_columns), persistent=False)
        self.register_buffer("zero_one", torch.tensor([[0.0, 1.0]]), persistent=False)
        self.card_embedding = nn.Embedding(self.C, settings.card_embedding)
        self.card_encoder = nn.Sequential(
            layer_init(nn.Linear(wiring.card_features + settings.card_embedding, H)), act()
        )
        self.register_buffer("trunk_columns", torch.as_tensor(wiring.trunk_columns), persistent=False)
        layers: list[nn.Module] = []
        width = wiring.trunk_input
        for hidden in settings.hidden:
            layers += [layer_init(nn.Linear(width, hidden)), act()]
            width = hidden
        self.trunk = nn.Sequential(*layers)
        self.value_head = layer_init(nn.Linear(width, 1), std=1.0)
        self.num_squares = wiring.num_squares
        self.global_head = layer_init(nn.Linear(width, len(GLOBAL_OUTPUTS) + self.num_squares), std=0.01)
        with torch.no_grad():
            self.global_head.bias[GLOBAL_OUTPUTS.index("accuse_gate")] = settings.accuse_bias
        self.card_head = layer_init(nn.Linear(H, 5), std=0.01)  # shared by all cards
        self.card_context = layer_init(nn.Linear(width, self.C * 5), std=0.01)  # per card, from the trunk
        prior = torch.full((5,), float(settings.unseen_prior))
        prior[SHOW] = 0.0
        self.unseen_prior = nn.Parameter(prior)  # [channel]: score bonus of an unseen card
        self.accuse_prior = nn.Parameter(torch.tensor(float(settings.accuse_prior)))
        self.structure = ActionStructure(wiring.actions)
        # top = [global outputs | card scores | accusation prior term] @ top_select (Wiring.top_select)
        self.register_buffer("top_select", torch.as_tensor(wiring.top_select), persistent=False)

    def _piece(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        shape, offset = self.pieces[name]
        return obs[:, offset : offset + math.prod(shape)].reshape(len(obs), *shape)

    def card_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``float[n, C, F]`` per-card features read from the observation (all but the card embedding)
        and ``float[n, 3]`` unseen fraction per category: one ``index_select``, no per-piece concatenation."""
        unseen_share = (self._piece(obs, "unseen") @ self.category_one_hot) / self.category_size  # [n, 3]
        source = torch.cat([obs, unseen_share, self.zero_one.expand(len(obs), 2)], dim=1)
        return source.index_select(1, self.card_columns).unflatten(1, (self.C, -1)), unseen_share

    def forward(self, obs: torch.Tensor, precision: str = "float32") -> tuple[PolicyParts, torch.Tensor]:
        """``(policy parts, value [n])`` of a batch of observations (see ``PolicyParts``).

        ``precision="bfloat16"`` runs the layers under ``torch.autocast`` (matrix products in bfloat16;
        weights and gradients stay float32) and returns float32 outputs, their log-softmaxes taken in
        float32. On CPUs with native bfloat16 (AVX-512 BF16, AMX) a training minibatch's forward and
        backward pass take about 0.6 of float32's time; on the shipped model's decisions the
        log-probabilities stay within about 0.03 of float32's (``PRECISIONS``: the accepted values)."""
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16"):
            glob, score, log_candidates, value = self._layers(obs)
        if precision != "float32":
            glob, score, value = glob.float(), score.float(), value.float()
        return self._parts(glob, score, self.accuse_prior * log_candidates), value.squeeze(1)

    def _layers(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The layers of ``forward``: global outputs ``[n, G]``, card scores ``[n, C, 5]``, the log of the
        candidate solutions ``[n, 1]`` and the value ``[n, 1]``."""
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
        candidate, per_category = self.candidates(obs, unseen_share)
        score = torch.addcmul(
            self.card_head(cards) + context.view(n, C, 5), candidate[:, :, None], self.unseen_prior
        )
        log_candidates = per_category.clamp(min=1.0).log().sum(dim=1, keepdim=True)
        return glob, score, log_candidates, value

    def candidates(self, obs: torch.Tensor, unseen_share: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The cards the priors favour as possibly in the envelope, ``float[n, C]`` (1 or 0), and their
        number per category, ``float[n, 3]``: the unseen ones (the notepad's open lines), or with belief
        features those of nonzero probability (``belief_envelope``: what exact counting leaves possible)."""
        if self.settings.belief_features:
            candidate = (self._piece(obs, "belief_envelope") > 0).to(obs.dtype)
            return candidate, candidate @ self.category_one_hot
        return self._piece(obs, "unseen"), unseen_share * self.category_size

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
        self, obs: torch.Tensor, mask: torch.Tensor, check: bool = True, precision: str = "float32"
    ) -> tuple[StructuredCategorical, torch.Tensor]:
        """The masked action distribution and the value of each observation (``check``: see
        ``StructuredCategorical``; ``precision``: see ``forward``)."""
        parts, value = self(obs, precision)
        return StructuredCategorical(parts, mask, self.structure, check), value

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``float[n, A]`` the flat logits (for ``MaskedCategorical``; ``policy`` avoids building them)."""
        return self.structure.flat(self(obs)[0])
