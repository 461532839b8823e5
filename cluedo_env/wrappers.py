"""PettingZoo's standard wrappers, as ``cluedo_v0.env()`` stacks them, with quick reads of the env below.

``TerminateIllegal``, ``AssertOutOfBounds`` and ``OrderEnforcing`` are PettingZoo's
``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` with the
``ReadThrough`` mixin: the attributes every step reads are properties reading the env below at
once (see ``ReadThrough``); ``AssertOutOfBounds`` also names the action and the range.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

__all__ = ["AssertOutOfBounds", "OrderEnforcing", "ReadThrough", "TerminateIllegal", "read_through"]


def read_through(name: str) -> property:
    """The attribute ``name`` of the env below, read at once (see ``ReadThrough``)."""

    def read(self: wrappers.BaseWrapper) -> Any:
        if not self._reads_through:
            return self.__getattr__(name)  # the wrapper's own answer (refused before reset)
        return getattr(self.env, name)

    return property(read, doc=f"``{name}`` of the env below.")


class ReadThrough:
    """Mixin for PettingZoo's wrappers: the attributes every step reads, found at once.

    A PettingZoo wrapper reads the env below through ``__getattr__``, which Python calls only
    once the normal lookup has failed (an ``AttributeError`` raised and caught): through the
    three wrappers of ``cluedo_v0.env()`` that cost about 3 µs a read, half of a step. These properties
    read the same attributes of the same env below without the failed lookup; everything else
    (and every method) is the wrapper's own.
    """

    _reads_through = True
    agents = read_through("agents")
    agent_selection = read_through("agent_selection")
    rewards = read_through("rewards")
    _cumulative_rewards = read_through("_cumulative_rewards")
    terminations = read_through("terminations")
    truncations = read_through("truncations")
    infos = read_through("infos")

    def __str__(self) -> str:
        return str(self.env)  # as each of the three wrappers shows itself


class TerminateIllegal(ReadThrough, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` (``ReadThrough``)."""


class AssertOutOfBounds(ReadThrough, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` (``ReadThrough``), whose ``AssertionError`` names
    the action and the range (PettingZoo's own check casts a Python int to int64 first, so from
    2**63 up it raised ``OverflowError``)."""

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        space = self.action_space(agent)
        done = action is None and (self.terminations[agent] or self.truncations[agent])
        beyond = type(action) is int and not 0 <= action < space.n  # (refused before the int64 cast)
        if not done and (beyond or not space.contains(action)):
            raise AssertionError(
                f"action is not in action space: {agent} must step an int (or numpy integer) in "
                f"[0, {space.n}), got {action!r}"
            )
        wrappers.BaseWrapper.step(self, action)  # (the check above is the wrapper's own)


class OrderEnforcing(ReadThrough, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (``ReadThrough`` once reset: before, it refuses)."""

    @property
    def _reads_through(self) -> bool:
        return self._has_reset
