"""PettingZoo's standard wrappers, as ``cluedo_v0.env()`` stacks them, with quick reads of the env below.

``TerminateIllegal``, ``AssertOutOfBounds`` and ``OrderEnforcing`` are PettingZoo's
``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` with the
``ReadThrough`` mixin: the attributes every step reads are properties reading the env below at
once (see ``ReadThrough``); ``AssertOutOfBounds`` also names the action and the range, and checks
a Python int without numpy; ``TerminateIllegal`` plays a legal Python int without reading its
attributes again. They play the same games as PettingZoo's own (``tests/envs/test_pettingzoo.py``).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from gymnasium.spaces import Discrete
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cluedo_env.core.integers import ONE_INTEGER, one_integer

__all__ = ["AssertOutOfBounds", "OrderEnforcing", "ReadThrough", "TerminateIllegal", "read_through"]


def read_through(name: str) -> property:
    """The attribute ``name`` of the env at the bottom of the read-through wrappers (``_below``),
    read at once (see ``ReadThrough``)."""
    # attrgetter reads in C; with no _below yet (OrderEnforcing before reset) it raises
    # AttributeError, and Python asks the wrapper's own __getattr__ instead.
    return property(operator.attrgetter(f"_below.{name}"), doc=f"``{name}`` of the env below.")


class ReadThrough:
    """Mixin for PettingZoo's wrappers: the attributes every step reads, found at once.

    A PettingZoo wrapper reads the env below through ``__getattr__``, which Python calls only
    once the normal lookup has failed (an ``AttributeError`` raised and caught): through the
    three wrappers of ``cluedo_v0.env()`` that cost about 3 µs a read, half of a step. These
    properties read the same attributes without the failed lookup, and without going through
    each wrapper in turn: ``_below`` is the env under the whole run of read-through wrappers
    beneath this one (none of them holds these attributes itself). Everything else (and every
    method) is the wrapper's own.
    """

    agents = read_through("agents")
    agent_selection = read_through("agent_selection")
    rewards = read_through("rewards")
    _cumulative_rewards = read_through("_cumulative_rewards")
    terminations = read_through("terminations")
    truncations = read_through("truncations")
    infos = read_through("infos")

    def __init__(self, env: AECEnv, **options: Any) -> None:
        super().__init__(env, **options)
        self._below = _bottom(env)

    def __str__(self) -> str:
        return str(self.env)  # as each of the three wrappers shows itself


def _bottom(env: AECEnv) -> AECEnv:
    """The env a read-through wrapper over ``env`` reads: ``env``'s own ``_below`` when ``env`` is a
    read-through wrapper that reads through now (``OrderEnforcing`` holds None before its reset),
    else ``env``."""
    if isinstance(env, ReadThrough) and env._below is not None:
        return env._below
    return env


class TerminateIllegal(ReadThrough, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` (``ReadThrough``), with a short way through its
    ``observe`` and ``step`` for a live agent's legal action given as a Python int: what
    PettingZoo's code does then, without reading each attribute again (any other step is
    PettingZoo's own)."""

    def observe(self, agent: str) -> Any:
        observation = self.env.observe(agent)
        if (
            agent == self.agent_selection
        ):  # the mask of the agent's next step, as PettingZoo's wrapper keeps it
            self._prev_obs = observation
            self._prev_info = self.infos.get(agent, {})
        return observation

    def step(self, action: int | None) -> None:
        agent, observation = self.agent_selection, self._prev_obs
        if (
            type(action) is int
            and type(observation) is dict
            and not self._terminated
            and not (self.terminations[agent] or self.truncations[agent])
        ):
            mask = observation.get("action_mask")
            if mask is not None and 0 <= action < len(mask) and mask[action]:  # legal: played
                self._prev_obs = self._prev_info = None
                self.env.step(action)
                return
        super().step(action)


class AssertOutOfBounds(ReadThrough, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` (``ReadThrough``), reading an action as the env below
    does (``core.integers.one_integer``: an int, a numpy integer, or an array or tensor of one integer),
    and handing that Python int down. Anything else (a float, a bool) raises ``TypeError``, as the env
    below would; an integer outside the action space, an ``AssertionError`` naming it and the range
    (PettingZoo's own check casts a Python int to int64 first, so from 2**63 up it raised
    ``OverflowError``, and refused a ``uint64``, which numpy cannot cast to int64). An action space other
    than the env's ``Discrete(A)`` is checked by PettingZoo's ``space.contains``."""

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        space = self._below.action_space(agent)  # (the wrappers between do not change it)
        if action is None and (self.terminations[agent] or self.truncations[agent]):
            self.env.step(action)
            return
        if not (type(space) is Discrete and space.start == 0 and space.dtype == np.int64):
            assert space.contains(action), f"action is not in action space: {agent} stepped {action!r}"
            self.env.step(action)
            return
        value = one_integer(action)
        if value is None:
            raise TypeError(f"action must be {ONE_INTEGER} in [0, {space.n}) for {agent}, got {action!r}")
        if not 0 <= value < space.n:
            raise AssertionError(
                f"action is not in action space: {agent} must step an int in [0, {space.n}), got {action!r}"
            )
        self.env.step(value)  # (as BaseWrapper's step: the check above is the wrapper's own)


class OrderEnforcing(ReadThrough, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (``ReadThrough`` once reset: before, it refuses), which
    once reset hands a step with live agents, and every observation, to the env below at once
    (PettingZoo's code for everything else)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        # Read through only from the first reset on: before it, no env to read (the properties raise
        # AttributeError), so PettingZoo's own __getattr__ answers, refusing.
        self._below_once_reset, self._below = self._below, None

    def step(self, action: int | None) -> None:
        if self._has_reset and self.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent: str) -> Any:
        return self.env.observe(agent) if self._has_reset else super().observe(agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # (set first: PettingZoo's wrapper counts as reset even when the env's reset raises)
        self._below = self._below_once_reset
        super().reset(seed=seed, options=options)
