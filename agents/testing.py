"""A conformance check for agents, as PettingZoo's ``api_test`` is for environments.

Run it on your own agent before a tournament or a training run::

    from agents.testing import check_agent

    check_agent("sat")                            # a registered agent
    check_agent("my_package.bots:MyAgent")        # yours, by import path (as configs name it)
    check_agent(MyAgent(seed=0), core.GameConfig(num_players=3))  # or an instance (copied, left unused)

``check_agent`` plays short games (``max_turns`` capped) with the agent at every seat
against random agents, on the table every runner uses (``cluedo_env.table.Table``), and
checks:

1. **Interface**: an ``agents.base.Agent`` that can play the config (``check_config``).
2. **Legal actions in random positions**: deals drawn at random, opponents that play
   random legal actions, the agent at every seat; it returns ``len(games)`` integers, a 1
   of ``mask`` in each game it decides, in batches where it decides in any subset of the
   games. (``mask`` is the rules' legal mask of those games, ``core.legal_action_mask``,
   never an arbitrary subset: agents read the legal structure, e.g. that every
   accusation is legal together or none is.)
3. **reset_games**: games that end are dealt again in the middle of the batch
   (``reset_games``, as the vector env's autoreset does), and play goes on legally.
4. **Determinism**: two agents made alike, with the same seed, play the same games
   action for action.
5. **Round trips**: at the agent's first choice (more than one legal action) from its
   5th decision on, an agent rebuilt from ``state_dict`` (``load_state_dict`` on a fresh
   one) and an unpickled copy act as the original does; ``state_dict`` holds plain data
   only (numbers, strings, lists, dicts, numpy arrays). This run plays the batch's games
   and deals each again as it ends until that choice comes, so an agent that is out of a
   game early (a wrong accusation) is checked in its other games; if none comes within
   ``steps`` decisions of the batch, the check says the round trips were not checked.

Each failure raises ``AgentCheckError`` naming the check and the agent.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from agents.baselines.random_agent import RandomAgent
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.table import Table

__all__ = ["AgentCheckError", "check_agent"]

ROUND_TRIP_AT = (
    5  # the agent's decision at which the round trips are checked, with a game's history behind it
)
PLAIN = (bool, int, float, str, type(None), np.ndarray, np.generic)


class AgentCheckError(AssertionError):
    """An agent failed a check of ``check_agent`` (the message names which)."""


def check_agent(
    agent: Agent | str,
    config: core.GameConfig | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    games: int = 4,
    max_turns: int = 30,
    steps: int = 400,
    seed: int = 0,
) -> None:
    """Check that an agent plays by the batched agent interface (see the module docstring).

    Args:
        agent: An ``Agent`` (deep-copied: the check plays copies, never the object itself),
            a registered name or ``"module:Class"``.
        config: The rules (default: ``core.GameConfig()``); ``max_turns`` is capped.
        options: Constructor options, with a name.
        games: Games in the batch (the agent sits at seat ``b % num_players`` in game ``b``).
        max_turns: Cap on the games' turns, so that games end and are dealt again.
        steps: Decisions of the batch played per run (the round-trip run stops at its check).
        seed: The agent's seed; deals and masks derive from it.

    Raises:
        AgentCheckError: A check failed.
        TypeError: ``agent`` is neither an ``Agent`` nor a name.
    """
    make = _maker(agent, dict(options or {}), seed)
    config = config or core.GameConfig()
    first = make()
    if not isinstance(first, Agent):
        raise AgentCheckError(f"interface: {first!r} is not an agents.base.Agent")
    try:
        first.check_config(config)
    except ValueError as error:
        raise AgentCheckError(f"interface: {first!r} cannot play {config}: {error}") from error
    finally:
        first.close()
    config = config.replace(max_turns=min(config.max_turns, max_turns))  # the check's short games
    seeds = seed * 1000 + np.arange(games)
    real = _play(make, config, seeds, steps, seed)
    again = _play(make, config, seeds, steps, seed)
    if len(real) != len(again) or not all(np.array_equal(a, b) for a, b in zip(real, again, strict=True)):
        raise AgentCheckError(f"determinism: two agents seeded {seed} played the same games differently")
    _play(make, config, seeds, steps, seed, round_trip_at=ROUND_TRIP_AT)


def _maker(agent: Agent | str, options: dict[str, Any], seed: int) -> Callable[[], Agent]:
    if isinstance(agent, str):
        return lambda: make_agent(agent, seed=seed, **options)
    if not isinstance(agent, Agent):
        raise TypeError(f"agent must be an agents.base.Agent or an agent name, got {agent!r}")
    if options:
        raise TypeError("options go with an agent name; an agent instance is already made")
    try:
        pristine = copy.deepcopy(agent)
    except Exception as error:
        raise AgentCheckError(f"round trips: {agent!r} cannot be copied: {error}") from error
    return lambda: copy.deepcopy(pristine)


def _play(
    make: Callable[[], Agent],
    config: core.GameConfig,
    seeds: np.ndarray,
    steps: int,
    seed: int,
    round_trip_at: int | None = None,
) -> list[np.ndarray]:
    """Play the agent against random agents; its actions, step by step (``[games, actions]`` rows).

    ``round_trip_at``: check the round trips at the agent's first choice (a decision with
    more than one legal action) from its decision of that number on, dealing the games again
    as they end until then, and stop there.
    """
    P, B = config.num_players, len(seeds)
    agent = make()
    others = [RandomAgent(seed=seed + 1 + k) for k in range(P - 1)]
    seats = (np.arange(P)[:, None] + np.arange(B)[None, :]) % P  # [player, game]: the agent at b % P
    state = core.init(config, seeds)
    agent.reset(config, seats[0].copy(), seed=seed)
    for k, other in enumerate(others):
        other.reset(config, seats[k + 1].copy())
    table = Table([agent, *others], seats, P)
    table.tell(state, state.events)
    next_seed, trace, checked = int(seeds.max()) + 1, [], round_trip_at is None
    decided = np.zeros(B, dtype=np.int64)  # the agent's decisions in each game, kept when it is dealt again
    try:
        for step in range(steps):
            if state.done.all() or (checked and round_trip_at is not None):
                break
            mask = core.legal_action_mask(state)
            live = np.flatnonzero(~state.done)
            mine = live[state.current_player[live] == seats[0, live]]
            decided[mine] += 1
            copies = []
            if (
                not checked and ((decided[mine] >= round_trip_at) & (mask[mine].sum(axis=1) > 1)).any()
            ):  # a choice
                copies, checked = _copies(agent, make, config), True
            actions = np.zeros(B, dtype=np.int64)
            try:
                table.act(state, live, mask, actions)
            except ValueError as error:
                raise AgentCheckError(f"legal actions: {error}") from error
            for how, copied in copies:  # they act as the agent did
                got = np.asarray(copied.act(state, mine, mask[mine]))
                copied.close()
                if not np.array_equal(got, actions[mine]):
                    raise AgentCheckError(
                        f"round trips: after {how}, {agent!r} chose {got.tolist()} instead of "
                        f"{actions[mine].tolist()} in games {mine.tolist()}"
                    )
            trace.append(np.stack([mine, actions[mine]]))
            core.step(state, actions)
            table.tell(state, state.events)
            ended = np.flatnonzero(state.done)
            if len(ended) and (step < steps // 2 or not checked):  # deal again: reset_games in mid-batch
                core.reset(state, ended, next_seed + np.arange(len(ended)))
                next_seed += len(ended)
                table.reset_games(ended)
                events = np.full_like(state.events, -1)
                events[ended] = state.events[ended]
                table.tell(state, events)
    finally:
        agent.close()
    if not checked:
        raise AgentCheckError(
            f"round trips not checked: in {steps} decisions of the batch, the games dealt again as they "
            f"ended, the agent made {int(decided.sum())} decisions and had no choice to make from its decision "
            f"{round_trip_at} on; give more steps"
        )
    return trace


def _copies(agent: Agent, make: Callable[[], Agent], config: core.GameConfig) -> list[tuple[str, Agent]]:
    """A fresh agent loaded with ``agent``'s ``state_dict`` and an unpickled copy of ``agent``."""
    saved = agent.state_dict()
    _check_plain(saved, "state_dict()")
    restored = make()
    restored.load_state_dict(config, copy.deepcopy(saved))
    try:
        unpickled = pickle.loads(pickle.dumps(agent))
    except Exception as error:
        raise AgentCheckError(f"round trips: {agent!r} cannot be pickled: {error}") from error
    return [("load_state_dict(state_dict())", restored), ("pickle", unpickled)]


def _check_plain(value: Any, where: str) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str | int):
                raise AgentCheckError(f"round trips: {where} has a key {key!r} that is not a string or int")
            _check_plain(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_plain(item, f"{where}[{i}]")
    elif not isinstance(value, PLAIN):
        raise AgentCheckError(f"round trips: {where} is a {type(value).__name__}, not plain data")
