"""The tournament's units of work: chunks, what a worker needs to play one, and the records it returns.

A chunk is one line-up x one rotation x ``batch_size`` consecutive deals, played as one batch by
``agents.arena.play_batch`` with agents seeded from (run seed, line-up, rotation, first deal, agent
index). A game's result therefore depends only on the config and its chunk, not on which process,
backend or session played it (``experiments.common.backends``): the local pool, Ray and a resumed
run give identical games. Every line-up plays the same deals (``deal_seed``), each under every
cyclic rotation of the seats.

An agent that fails in a chunk (raises, or returns actions the table refuses) stops it with
``AgentFailed``, which names the agent's label, the line-up, the rotation and the deals of the games
under way, after the original error's text.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from agents.arena import BatchResult, play_batch
from agents.llm.errors import ChatError
from agents.registry import make_agent
from cluedo_env import core
from experiments.common import llm_report
from experiments.common.games_file import DEAL_SEED_STRIDE
from experiments.common.settings import GameSettings, TournamentConfig

__all__ = [
    "AgentFailed",
    "Chunk",
    "Job",
    "agent_seed",
    "deal_seed",
    "game_record",
    "lineup_id",
    "lineups",
    "load_game",
    "one_torch_thread",
    "plan_chunks",
    "play_chunk",
]


class AgentFailed(RuntimeError):
    """An agent failed while a chunk was played: it raised, or the table refused its actions (the message
    names the agent, the line-up, the rotation and the deals, then the original error)."""


@dataclass(frozen=True)
class Chunk:
    """A unit of work: one line-up under one rotation, on deals ``first_deal .. first_deal + deals - 1``.

    Attributes:
        lineup: Agent labels in agent order; agent ``k`` sits at seat ``(k + rotation) % N``.
        rotation: The seat rotation.
        first_deal: Index of the first deal.
        deals: Number of consecutive deals.
    """

    lineup: tuple[str, ...]
    rotation: int
    first_deal: int
    deals: int

    @property
    def lineup_id(self) -> str:
        """The line-up's name in the results: its labels joined by ``+``."""
        return lineup_id(self.lineup)

    def game_keys(self) -> list[tuple[str, int, int]]:
        """(line-up, deal, rotation) of each game of the chunk."""
        return [
            (self.lineup_id, d, self.rotation) for d in range(self.first_deal, self.first_deal + self.deals)
        ]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play chunks (plain data, pickled to workers and Ray tasks)."""

    game: dict
    agents: dict[str, tuple[str, dict]]  # label -> (registry name or module:Class, options)
    seed: int
    config_hash: str


def lineup_id(lineup: Iterable[str]) -> str:
    """Name of a line-up: its labels in agent order, joined by ``+``."""
    return "+".join(lineup)


def lineups(settings: TournamentConfig) -> list[tuple[str, ...]]:
    """The line-ups of a tournament, in a fixed order (see ``LineupConfig.mode``)."""
    labels, players = settings.labels, settings.game.num_players
    if settings.lineup.mode == "one_vs_field":
        field = settings.lineup.field or [labels[0]]
        return [(agent, *[f] * (players - 1)) for f in field for agent in labels if agent != f]
    if len(labels) >= players:
        return list(itertools.combinations(labels, players))
    return [c for c in itertools.combinations_with_replacement(labels, players) if len(set(c)) > 1]


def deal_seed(run_seed: int, deal: int) -> int:
    """Core seed of deal ``deal``: shared by every line-up and rotation of the run."""
    return run_seed * DEAL_SEED_STRIDE + deal


def agent_seed(run_seed: int, chunk: Chunk, agent: int) -> int:
    """Seed of agent ``agent`` in a chunk, from (run seed, line-up, rotation, first deal, agent)."""
    text = f"{run_seed}/{chunk.lineup_id}/{chunk.rotation}/{chunk.first_deal}/{agent}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "little")


def plan_chunks(settings: TournamentConfig) -> list[Chunk]:
    """Every chunk of the tournament, deal blocks outermost (a partial run covers all line-ups alike)."""
    players, deals, size = settings.game.num_players, settings.deals_per_lineup, settings.batch_size
    return [
        Chunk(lineup, rotation, first, min(size, deals - first))
        for first in range(0, deals, size)
        for lineup in lineups(settings)
        for rotation in range(players)
    ]


def play_chunk(job: Job, chunk: Chunk) -> list[dict]:
    """Play a chunk; one result record per game (see ``game_record``)."""
    config = load_game(job.game)
    agents = []
    for k, label in enumerate(chunk.lineup):
        name, options = job.agents[label]
        agents.append(make_agent(name, seed=agent_seed(job.seed, chunk, k), **options))
    one_torch_thread()
    deals = np.arange(chunk.first_deal, chunk.first_deal + chunk.deals)
    seeds = np.array([deal_seed(job.seed, int(d)) for d in deals], dtype=np.int64)
    try:
        result = play_batch(config, agents, seeds, rotation=chunk.rotation)
    except ChatError:  # a language model's endpoint failed: the tournament says so in its own words
        raise
    except Exception as error:
        call = getattr(error, "player_call", None)  # which agent's call, in which games (cluedo_env.table)
        if call is None:
            raise
        raise AgentFailed(_failure(chunk, seeds, call.player, call.call, call.games, error)) from error
    finally:
        for k, agent in enumerate(agents):
            try:
                agent.close()
            except ChatError:
                raise
            except Exception as error:
                every = np.arange(len(seeds))
                raise AgentFailed(_failure(chunk, seeds, k, "close", every, error)) from error
    records = [game_record(job, chunk, result, b, int(deals[b])) for b in range(chunk.deals)]
    llm_report.add_reports(records, agents, result.seats)  # language-model seats: counts and transcripts
    return records


def _failure(
    chunk: Chunk, seeds: np.ndarray, agent: int, call: str, games: np.ndarray, error: Exception
) -> str:
    """What ``AgentFailed`` says: agent ``agent`` of the chunk failed in ``call`` in ``games`` (batch indices)."""
    deals = ", ".join(str(chunk.first_deal + int(b)) for b in games)
    seeds_text = ", ".join(str(int(seeds[b])) for b in games)
    seat = (agent + chunk.rotation) % len(chunk.lineup)
    return (
        f"agent {chunk.lineup[agent]!r} (seat {seat}) failed in {call} in line-up {chunk.lineup_id}, rotation "
        f"{chunk.rotation}, {'deal' if len(games) == 1 else 'deals'} {deals} (seed {seeds_text}): "
        f"{type(error).__name__}: {error}"
    )


def one_torch_thread() -> None:
    """One torch thread in a process that has torch agents (ppo, sb3) loaded.

    Their small networks infer fastest single-threaded, and the workers of the pool share
    the cores. Agents leave the process-wide setting to the program; torch is not imported
    for a tournament without torch agents.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def load_game(game: dict) -> core.GameConfig:
    """The ``core.GameConfig`` of a job's game settings (cached per process: rule tables hang on it)."""
    key = json.dumps(game, sort_keys=True)
    if key not in _GAME_CACHE:
        _GAME_CACHE[key] = GameSettings(**game).to_game_config()
    return _GAME_CACHE[key]


_GAME_CACHE: dict[str, core.GameConfig] = {}


def game_record(job: Job, chunk: Chunk, result: BatchResult, b: int, deal: int) -> dict:
    """One game as a JSON-ready dict; per-seat lists are indexed by seat (player index)."""
    players = len(chunk.lineup)
    agent_at_seat = [(seat - chunk.rotation) % players for seat in range(players)]
    winner = int(result.winner[b])
    return {
        "config": job.config_hash,
        "lineup": chunk.lineup_id,
        "deal": deal,
        "seed": int(result.seeds[b]),
        "rotation": chunk.rotation,
        "players": players,
        "seats": [chunk.lineup[k] for k in agent_at_seat],
        "winner": chunk.lineup[winner] if winner >= 0 else None,
        "winner_seat": int(result.winner_seat[b]) if winner >= 0 else None,
        "turns": int(result.turns[b]),
        "truncated": bool(result.truncated[b]),
        "decisions": int(result.decisions[b]),
        "accusations": [int(result.accusations[b, k]) for k in agent_at_seat],
        "wrong_accusations": [int(result.wrong_accusations[b, k]) for k in agent_at_seat],
    }
