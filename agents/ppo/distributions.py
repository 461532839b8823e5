"""The masked categorical distributions over the PPO agents' actions.

Masking: ``MaskedCategorical`` is the plain distribution over flat logits:
the logits of illegal actions become a large negative finite number
(``MASKED_LOGIT``), so their probability is exactly 0, they are never
sampled, and they get zero gradient (with ``-inf`` the entropy's ``0 * log 0``
would give NaN gradients). ``StructuredCategorical`` is the same distribution
computed from the factorised outputs without building the ``[n, A]`` logits
(the rules make every suggestion, and every accusation, legal together or not
at all); ``ActorCritic.policy`` (``agents.ppo.network``) returns it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from agents.ppo.wiring import MASKED_LOGIT, ActionTables
from cluedo_env import core

__all__ = [
    "MASKED_LOGIT",
    "ActionStructure",
    "MaskedCategorical",
    "PolicyParts",
    "StructuredCategorical",
    "structured_kl",
]


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
    """``ActionTables`` (``agents.ppo.wiring``) as tensors, and the flat view of ``PolicyParts``."""

    def __init__(self, tables: ActionTables) -> None:
        self.layout = tables.layout
        self.S, self.W, self.R, self.K = tables.S, tables.W, tables.R, tables.K
        self.blocks = tables.blocks
        self.atoms = torch.as_tensor(tables.atoms)
        self.top_index = torch.as_tensor(tables.top_index)
        self.top_columns = torch.as_tensor(tables.top_columns)
        self.part_columns = torch.as_tensor(tables.part_columns)
        self.segment_columns = torch.as_tensor(tables.segment_columns)
        self.segment_last = torch.as_tensor(tables.segment_last)
        self.segment_groups = torch.as_tensor(tables.segment_groups)

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


def structured_kl(log_p: torch.Tensor, log_q: torch.Tensor, structure: ActionStructure) -> torch.Tensor:
    """``KL(p || q)`` per row, from the ``log_probs`` rows of two ``StructuredCategorical`` over the same
    legal actions (the same observations and masks), without the ``[n, A]`` flat tensor.

    As the entropy: a suggestion's (accusation's) components are independent given the block, so
    ``KL = KL_top + p_suggest * KL_suggest + p_accuse * KL_accuse``, each part's divergence summed
    over its columns. Illegal atoms and blocks have probability exactly 0 under both and add 0.
    PPO's anchor (``experiments.learning.ppo_training``) keeps a learner near a reference policy with it.
    """
    K = structure.K
    p = log_p.exp()
    d = (p * (log_p - log_q)) @ structure.segment_groups  # [n, 3]: top level, suggestion, accusation
    return d[:, 0] + p[:, K] * d[:, 1] + p[:, K + 1] * d[:, 2]
