"""What an expert dataset is made of (``experiments.expert_dataset``'s options): its agents, board, seed and
counts (``DatasetSettings``), which of them are accepted (``DatasetSettings.validate``), the deal seeds they
give, and the dataset's version (``DATASET_VERSION``), which a folder's games are resumed under.

Game ``g``'s deal is seed ``SEED_BASE + seed * 10**9 + g``; Minari episode ``e``'s is that of game
``MINARI_OFFSET + e``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from agents.registry import AGENTS, make_agent
from cluedo_env import core

__all__ = ["DATASET_VERSION", "MINARI_OFFSET", "NOT_RECORDED", "SEED_BASE", "DatasetSettings"]

# 1.1.0: the games of the search agent as it plays since its redesign (#34); 1.2.0: the determinising
# agent searches only whether to accuse (it searched how to start a turn too)
DATASET_VERSION = "1.2.0"
SEED_BASE = 10**14  # apart from training (small), imitation (10**13) and evaluation (10**15) deals
MINARI_OFFSET = 5 * 10**8  # the Minari episodes' deals, after the games' (game g: SEED_BASE + ... + g)
# Agents a dataset does not seat: they need a server (llm), a person at the terminal (human), or a model
# file given as an option (sb3, rllib), and the dataset's command gives agents no options.
NOT_RECORDED = frozenset({"llm", "human", "sb3", "rllib"})


@dataclass(frozen=True)
class DatasetSettings:
    """What a dataset is made of (the command's options; the card keeps them).

    Attributes:
        agents: Registry names, one per seat (their count is the player count).
        board: ``classic`` or ``none``.
        seed: The dataset's seed (deals and agents derive from it).
        games: Games recorded (a multiple of ``shard_games``).
        shard_games: Games per Parquet shard, played as one batch.
        minari_episodes: Episodes of the Minari dataset (0: none).
    """

    agents: tuple[str, ...] = ("belief", "determinize", "belief", "determinize")
    board: str = "classic"
    seed: int = 0
    games: int = 2000
    shard_games: int = 50
    minari_episodes: int = 200

    # Settings a shard's games depend on: a folder's shards are reused only under the same values.
    RECORDING = ("agents", "board", "seed", "shard_games")

    def validate(self) -> None:
        """Raise ``ValueError`` naming a bad setting, its value and what is accepted, or an agent that
        cannot play these rules (each is made and reset for them once: a model of other rules fails)."""
        unknown = [name for name in self.agents if name not in AGENTS or name in NOT_RECORDED]
        if unknown:
            raise ValueError(
                f"agents must be registry names from {sorted(set(AGENTS) - NOT_RECORDED)}, got {unknown!r} "
                f"({', '.join(sorted(NOT_RECORDED))}: a server, a person or a model file of one's own)"
            )
        if not 3 <= len(self.agents) <= 6:
            raise ValueError(f"agents must name 3 to 6 agents (one per seat), got {len(self.agents)}")
        if self.board not in ("classic", "none"):
            raise ValueError(f"board must be 'classic' or 'none', got {self.board!r}")
        if not 0 <= self.seed < 10**4:
            raise ValueError(f"seed must be in [0, 10000), got {self.seed!r}")
        if self.shard_games < 1 or self.games < 1 or self.games % self.shard_games:
            raise ValueError(
                f"games must be a positive multiple of shard_games (>= 1), got games={self.games!r}, "
                f"shard_games={self.shard_games!r}"
            )
        if not 0 <= self.minari_episodes < MINARI_OFFSET:
            raise ValueError(f"minari_episodes must be in [0, {MINARI_OFFSET}), got {self.minari_episodes!r}")
        for name in dict.fromkeys(self.agents):  # each agent set up once for these rules, before any game
            agent = make_agent(name)
            try:
                agent.reset(self.config, np.zeros(1, dtype=np.int64))
            except ValueError as error:
                raise ValueError(
                    f"agent {name!r} cannot play {len(self.agents)} players on board {self.board!r}: {error}"
                ) from None
            finally:
                agent.close()

    @property
    def config(self) -> core.GameConfig:
        """The rules: one player per agent, on ``board``."""
        return core.GameConfig(num_players=len(self.agents), board=self.board)

    def game_seeds(self, first: int, count: int) -> np.ndarray:
        """The deal seeds of games ``first`` to ``first + count - 1``."""
        return SEED_BASE + self.seed * 10**9 + first + np.arange(count, dtype=np.int64)

    def recording(self) -> dict:
        """The settings of ``RECORDING``, as plain data, and the ``DATASET_VERSION`` that plays them (shards
        of another version, or of a folder that names none, are other games)."""
        values = asdict(self)
        return {
            **{key: list(values[key]) if key == "agents" else values[key] for key in self.RECORDING},
            "version": DATASET_VERSION,
        }
