"""The expert games as rows: every decision of every seat, with what a learner in that seat reads.

``play_expert_games`` plays a batch of games between expert agents (the belief agent, the
determinising search agent: ``agents.registry`` names), each seat behind an
``agents.ppo.imitation.Recorder`` (the recorder ``experiments/imitate.py`` trains from), and
returns two ``pyarrow`` tables:

- decisions, one row per decision (every seat's, so the rows hold every action of the game and
  replay it from its seed): ``DECISION_SCHEMA``;
- games, one row per game: ``GAME_SCHEMA``.

``game`` numbers the games of a whole dataset (a shard's games are consecutive); ``step`` counts
the decisions of one game from 0, in the order they were played. ``write_table`` writes a table to a
Parquet file whole or not at all.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from agents.arena import play_batch
from agents.base import Agent
from agents.ppo.imitation import Recorder
from agents.registry import make_agent
from cluedo_env import core
from experiments.common.write_failures import writing

__all__ = [
    "DECISION_SCHEMA",
    "GAME_SCHEMA",
    "DecisionRecorder",
    "StepClock",
    "play_expert_games",
    "write_table",
]

DECISION_SCHEMA = pa.schema(
    [
        ("game", pa.int64()),
        ("game_seed", pa.int64()),
        ("step", pa.int32()),
        ("turn", pa.int32()),
        ("seat", pa.int8()),
        ("agent", pa.string()),
        ("observation", pa.list_(pa.float32())),
        ("legal_mask", pa.list_(pa.bool_())),
        ("action", pa.int32()),
        ("reward", pa.float32()),
        ("winner", pa.int8()),
        ("done", pa.bool_()),
        ("truncated", pa.bool_()),
    ]
)

GAME_SCHEMA = pa.schema(
    [
        ("game", pa.int64()),
        ("game_seed", pa.int64()),
        ("agents", pa.list_(pa.string())),
        ("rewards", pa.list_(pa.float32())),
        ("winner", pa.int8()),
        ("turns", pa.int32()),
        ("decisions", pa.int32()),
        ("truncated", pa.bool_()),
    ]
)


class StepClock:
    """Each game's step count and summed core rewards, kept by ``play_batch``'s ``on_action``.

    Attributes:
        step: ``int64[B]``: the decision being made now in each game (its steps so far).
        rewards: ``float64[B, P]``: each seat's core rewards summed over the game's steps.
    """

    def __init__(self, games: int, players: int) -> None:
        self.step = np.zeros(games, dtype=np.int64)
        self.rewards = np.zeros((games, players), dtype=np.float64)

    def __call__(self, actions: np.ndarray, stepped: np.ndarray, state: core.State) -> None:
        self.step[stepped] += 1
        self.rewards[stepped] += state.rewards[stepped]


class DecisionRecorder(Recorder):
    """A ``Recorder`` that also keeps, per decision, its game, step (from ``clock``) and turn."""

    def __init__(self, teacher: Agent, clock: StepClock, belief_features: bool = True) -> None:
        super().__init__(teacher, belief_features=belief_features)
        self.clock = clock
        self.games: list[np.ndarray] = []
        self.steps: list[np.ndarray] = []
        self.turns: list[np.ndarray] = []

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = super().act(state, games, mask)
        self.games.append(np.array(games, dtype=np.int64))
        self.steps.append(self.clock.step[games].copy())
        self.turns.append(np.asarray(state.turns_played)[games].astype(np.int64))
        return actions

    def indices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(games, steps, turns)`` of every decision recorded, in the order of ``decisions``."""
        if not self.games:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        return np.concatenate(self.games), np.concatenate(self.steps), np.concatenate(self.turns)


def _list_column(values: np.ndarray, kind: pa.DataType) -> pa.ListArray:
    """``values[n, width]`` as an arrow column of ``n`` lists of ``kind``."""
    n, width = values.shape
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * width, type=pa.int32())
    return pa.ListArray.from_arrays(offsets, pa.array(values.reshape(-1), type=kind))


def play_expert_games(
    config: core.GameConfig,
    names: Sequence[str],
    seeds: np.ndarray,
    first_game: int,
    agent_seed: int,
    belief_features: bool = True,
) -> tuple[pa.Table, pa.Table]:
    """Play one game per seed between the agents ``names`` and record every decision.

    Agent ``k`` (``make_agent(names[k], seed=agent_seed + k)``) sits at seat ``(k + game) % P``
    in dataset game ``game`` (``first_game``, ``first_game + 1``, ...): seats rotate.

    Returns:
        ``(decisions, games)``, tables of ``DECISION_SCHEMA`` and ``GAME_SCHEMA``, rows in
        ``(game, step)`` order.
    """
    P = config.num_players
    if len(names) != P:
        raise ValueError(f"agents must name one agent per player ({P}), got {list(names)!r}")
    seeds = np.asarray(seeds, dtype=np.int64)
    B = len(seeds)
    game_ids = first_game + np.arange(B, dtype=np.int64)
    clock = StepClock(B, P)
    recorders = [
        DecisionRecorder(make_agent(name, seed=agent_seed + k), clock, belief_features)
        for k, name in enumerate(names)
    ]
    try:
        result = play_batch(config, recorders, seeds, rotation=game_ids % P, on_action=clock)
    finally:
        for recorder in recorders:
            recorder.close()
    parts = []
    for k, recorder in enumerate(recorders):
        games, steps, turns = recorder.indices()
        if len(games):
            parts.append((k, games, steps, turns, *recorder.decisions()))
    agent_of = np.concatenate([np.full(len(games), k) for k, games, *_ in parts])
    games, steps, turns, observations, masks, actions = (
        np.concatenate([part[i] for part in parts]) for i in range(1, 7)
    )
    order = np.lexsort((steps, games))
    agent_of, games, steps, turns = agent_of[order], games[order], steps[order], turns[order]
    observations, masks, actions = observations[order], masks[order], actions[order]
    counts = np.bincount(games, minlength=B)
    if not (counts == result.decisions).all() or not (steps == np.arange(len(steps)) - np.repeat(
        np.cumsum(counts) - counts, counts
    )).all():  # fmt: skip
        raise RuntimeError("the recorders missed decisions: every seat of the game must be recorded")
    seats = result.seats[games, agent_of]
    rewards = clock.rewards.astype(np.float32)
    names = [str(name) for name in names]
    decisions = pa.table(
        {
            "game": pa.array(game_ids[games]),
            "game_seed": pa.array(seeds[games]),
            "step": pa.array(steps.astype(np.int32)),
            "turn": pa.array(turns.astype(np.int32)),
            "seat": pa.array(seats.astype(np.int8)),
            "agent": pa.array([names[k] for k in agent_of.tolist()], type=pa.string()),
            "observation": _list_column(observations.astype(np.float32), pa.float32()),
            "legal_mask": _list_column(masks.astype(bool), pa.bool_()),
            "action": pa.array(actions.astype(np.int32)),
            "reward": pa.array(rewards[games, seats]),
            "winner": pa.array(result.winner_seat[games].astype(np.int8)),
            "done": pa.array(steps == result.decisions[games] - 1),
            "truncated": pa.array(result.truncated[games]),
        },
        schema=DECISION_SCHEMA,
    )
    seat_names = [[names[k] for k in np.argsort(result.seats[b]).tolist()] for b in range(B)]
    table = pa.table(
        {
            "game": pa.array(game_ids),
            "game_seed": pa.array(seeds),
            "agents": pa.array(seat_names, type=pa.list_(pa.string())),
            "rewards": _list_column(rewards, pa.float32()),
            "winner": pa.array(result.winner_seat.astype(np.int8)),
            "turns": pa.array(np.asarray(result.turns).astype(np.int32)),
            "decisions": pa.array(result.decisions.astype(np.int32)),
            "truncated": pa.array(result.truncated),
        },
        schema=GAME_SCHEMA,
    )
    return decisions, table


def write_table(table: pa.Table, path: Path) -> None:
    """``table`` to the Parquet file ``path`` whole or not at all (a temporary file renamed); ``NotWritten``
    (``experiments.common.write_failures``) where it cannot be written, a full disk say."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with writing(path):
        pq.write_table(table, temporary, compression="zstd")
        os.replace(temporary, path)
