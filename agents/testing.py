"""A conformance check for agents, as PettingZoo's ``api_test`` is for environments.

Run it on your own agent before a tournament or a training run::

    from agents.testing import check_agent

    check_agent("sat")                            # a registered agent
    check_agent("my_package.bots:MyAgent")        # yours, by import path (as configs name it)
    check_agent(MyAgent(seed=0), core.GameConfig(num_players=3))  # or an instance (copied, left unused)

``check_agent`` plays short games (``max_turns`` capped) with the agent at every seat
(seat ``b % num_players`` in game ``b`` of at least ``num_players`` games) against random
agents, on the table every runner uses (``cluedo_env.table.Table``), and checks:

1. **Interface**: an ``agents.base.Agent`` that can play the config (``check_config``).
2. **Legal actions in random positions**: deals drawn at random, opponents that play
   random legal actions, the agent at every seat; it returns ``len(games)`` integers (a
   list or 1-D integer array: floats, bools and other shapes are refused), a 1 of ``mask``
   in each game it decides, in batches where it decides in any subset of the games.
   (``mask`` is the rules' legal mask of those games, ``core.legal_action_mask``, never an
   arbitrary subset: agents read the legal structure, e.g. that every accusation is legal
   together or none is.)
3. **reset_games**: games that end are dealt again in the middle of the batch
   (``reset_games``, as the vector env's autoreset does), and play goes on legally.
4. **Inputs**: no ``act`` or ``observe`` call changes the state it is given (every field is
   compared before and after each call).
5. **Determinism**: two agents made alike, with the same seed, play the same games
   action for action.
6. **Hidden information**: the second of them plays the same games on a twin of the state
   whose ``events`` are the agent's own view of them (``core.private_view`` with its seats:
   every row kept, the cards it may not see hidden) and whose ``seed`` holds other seeds; it
   must choose the same actions. Agents read neither (``agents.base``): the raw events show
   every card dealt and shown, and a game's seed deals it again. (When the twin plays
   otherwise, a third agent plays the real state again, to tell this from nondeterminism.)
7. **Round trips**: at the agent's first choice (more than one legal action) from its
   5th decision on, an agent rebuilt from ``state_dict`` (``load_state_dict`` on a fresh
   one) and an unpickled copy join the original: they observe, are dealt again and act
   beside it, and must choose as it does at every decision, until they have made 3 choices
   (``ROUND_TRIP_CHOICES``); then new copies join it at its next choice, 4 times in all
   (``ROUND_TRIPS``), so that notes left out of ``state_dict`` show in the decisions that
   follow, not only in one. ``state_dict`` holds plain data only (numbers, strings, lists,
   dicts, numpy arrays). The games are dealt again as they end until the first choice
   comes, so an agent that is out of a game early (a wrong accusation) is checked in its
   other games; if none comes within ``steps`` decisions of the batch, the check says the
   round trips were not checked.

Checks 2, 3, 4 and 7 are made in the first run, 5 and 6 in the second. Each failure raises
``AgentCheckError`` naming the check and the agent, an exception the agent raised included.

Agents that ask a model behind a server (the ``llm`` agent) are held to the same checks: their
decisions must follow from their own state and the server's replies to their requests. A copy cannot
have the server's state, so where the reply to a request is not a function of the request (a server
that samples; llama.cpp, whose logits vary with the request before, through its prompt cache), two runs
and the copies get other replies to the same requests, and checks 5, 6 and 7 fail on the server's
account. ``same_replies=True`` answers a request sent again during the check with the reply it got the
first time (``agents.llm.same_replies``): that, and only that, is allowed for. An agent that lost
notes in a round trip, or read what it may not see, asks otherwise and still fails, the server's new
reply telling in its choices. The scripted server (``experiments.scripted_chat_server``), whose reply is
a function of the request, needs no allowance. The memo is one for the process: two checks with
``same_replies=True`` at once (in threads) are refused (``RuntimeError``), not mixed.
"""

from __future__ import annotations

import contextlib
import copy
import pickle
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from agents.base import Agent, option_switch
from agents.baselines.random_agent import RandomAgent
from agents.llm.same_replies import same_replies as same_replies_block
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.table import IllegalAction, Table

__all__ = ["AgentCheckError", "check_agent"]

# the agent's decision at which the round trips are checked, with a game's history behind it
ROUND_TRIP_AT = 5
ROUND_TRIPS = 4  # round trips in the first run, one after the other
ROUND_TRIP_CHOICES = 3  # the choices the copies of a round trip make beside the agent before they leave
PLAIN = (bool, int, float, str, type(None), np.ndarray, np.generic)


class AgentCheckError(AssertionError):
    """An agent failed a check of ``check_agent`` (the message names which)."""


def check_agent(
    agent: Agent | str,
    config: core.GameConfig | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    games: int | None = None,
    max_turns: int = 30,
    steps: int = 400,
    seed: int = 0,
    same_replies: bool = False,
) -> None:
    """Check that an agent plays by the batched agent interface (see the module docstring).

    Args:
        agent: An ``Agent`` (deep-copied: the check plays copies, never the object itself),
            a registered name or ``"module:Class"``.
        config: The rules (default: ``core.GameConfig()``); ``max_turns`` is capped.
        options: Constructor options, with a name.
        games: Games in the batch, at least ``num_players`` so that the agent sits at every seat
            (at seat ``b % num_players`` in game ``b``); default: ``num_players``, at least 4.
        max_turns: Cap on the games' turns, so that games end and are dealt again.
        steps: Decisions of the batch played per run.
        seed: The agent's seed; deals and masks derive from it.
        same_replies: Give a model server's reply to a request sent again during the check, by any copy
            or run, the reply it got the first time (``agents.llm.same_replies``; see the module
            docstring): for an agent asking a server whose reply to a request is not a function of it.

    Raises:
        AgentCheckError: A check failed.
        TypeError: ``agent`` is neither an ``Agent`` nor a name.
        ValueError: ``games`` is fewer than ``num_players``, or ``same_replies`` is not True or False.
        RuntimeError: ``same_replies=True`` while another check with it runs (one at a time).
    """
    same_replies = option_switch("same_replies", same_replies)
    make = _maker(agent, dict(options or {}), seed)
    config = config or core.GameConfig()
    P = config.num_players
    if games is None:
        games = max(4, P)
    elif not isinstance(games, int | np.integer) or isinstance(games, bool) or games < P:
        raise ValueError(
            f"games must be an int >= num_players ({P}), so that the agent sits at every seat, got {games!r}"
        )
    first = make()
    if not isinstance(first, Agent):
        raise AgentCheckError(f"interface: {first!r} is not an agents.base.Agent")
    label = repr(first)
    try:
        first.check_config(config)
    except ValueError as error:
        raise AgentCheckError(f"interface: {label} cannot play {config}: {error}") from error
    except Exception as error:
        raise AgentCheckError(f"interface: {label} raised in check_config: {_named(error)}") from error
    finally:
        first.close()
    config = config.replace(max_turns=min(config.max_turns, max_turns))  # the check's short games
    run = _Run(make, config, seed * 1000 + np.arange(games), steps, seed, label)
    with same_replies_block() if same_replies else contextlib.nullcontext():
        real, round_trips = run.play("legal actions", round_trips=True)
        twin, _ = run.play("hidden information", twin=True)
        again = None if _same(real, twin) else run.play("determinism")[0]
    if again is not None:
        if not _same(real, again):
            raise AgentCheckError(
                f"determinism: two agents {label} seeded {seed} played the same games differently"
                f"{_difference(real, again)}"
            )
        raise AgentCheckError(
            f"hidden information: {label} reads what it may not see, through state.events or state.seed: "
            "on a twin of the state whose events were its own view of them (core.private_view with its seats) "
            f"and whose seeds were others, it chose otherwise{_difference(real, twin)}; agents read neither"
        )
    if round_trips is not None:
        raise AgentCheckError(round_trips)


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


def _named(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


@contextlib.contextmanager
def _blamed(check: str, label: str, call: str) -> Iterator[None]:
    """An exception of the agent's ``call`` as an ``AgentCheckError`` of ``check`` naming it."""
    try:
        yield
    except AgentCheckError:
        raise
    except IllegalAction as error:
        raise AgentCheckError(f"legal actions: {error}") from error
    except Exception as error:
        call = getattr(getattr(error, "player_call", None), "call", call)  # (the table's name of it)
        raise AgentCheckError(f"{check}: {label} raised in {call}: {_named(error)}") from error


@contextlib.contextmanager
def _unchanged(state: core.State, label: str, call: str) -> Iterator[None]:
    """Refuse a change of any field of ``state`` during the agent's ``call``."""
    before = {name: array.tobytes() for name, array in state.arrays().items()}
    yield
    changed = [name for name, array in state.arrays().items() if array.tobytes() != before[name]]
    if changed:
        fields = ", ".join(f"state.{name}" for name in changed)
        raise AgentCheckError(
            f"inputs: {label} changed {fields} in {call}; agents read the state they are given and never write it"
        )


def _twin(state: core.State, seats: np.ndarray) -> core.State:
    """A copy of ``state`` whose ``events`` are the view of the player at ``seats`` (``int[B]``) and
    whose ``seed`` holds other seeds: what an agent may read of it is unchanged."""
    twin = state.copy()
    twin.events[...] = core.private_view(state.events, seats[:, None])
    twin.seed[...] = state.seed ^ 1  # (seeds stay in [0, SEED_BOUND))
    return twin


def _same(one: list[np.ndarray], other: list[np.ndarray]) -> bool:
    return len(one) == len(other) and all(np.array_equal(a, b) for a, b in zip(one, other, strict=True))


def _difference(one: list[np.ndarray], other: list[np.ndarray]) -> str:
    """Where two traces of ``_Run.play`` part, in words."""
    for step, (a, b) in enumerate(zip(one, other, strict=False)):
        if not np.array_equal(a, b):
            return f" (at the batch's step {step}, in games {a[0].tolist()}: {a[1].tolist()}, then {b[1].tolist()})"
    return f" ({len(one)} steps, then {len(other)})"


class _Run:
    """Plays the agent against random agents, the same games in every run (see ``play``)."""

    def __init__(
        self,
        make: Callable[[], Agent],
        config: core.GameConfig,
        seeds: np.ndarray,
        steps: int,
        seed: int,
        label: str,
    ) -> None:
        self.make, self.config, self.seeds = make, config, seeds
        self.steps, self.seed, self.label = steps, seed, label

    def play(
        self, check: str, twin: bool = False, round_trips: bool = False
    ) -> tuple[list[np.ndarray], str | None]:
        """The agent's actions step by step (``[games, actions]`` rows), and the round trips' finding.

        The games are dealt again as they end until the agent's first choice (a decision with more
        than one legal action) from its decision ``ROUND_TRIP_AT`` on, and until the middle of the
        run. ``twin``: the agent is given ``_twin`` of the state instead of the state. ``round_trips``:
        from that choice on, copies of the agent join it (``_copies``) ``ROUND_TRIPS`` times, one after
        the other, each for ``ROUND_TRIP_CHOICES`` choices, and must choose as it does; the finding is
        the first decision they did not (or that the choice never came), else None. Any other failure
        raises ``AgentCheckError`` of ``check``.
        """
        config, seeds, steps, label = self.config, self.seeds, self.steps, self.label
        P, B = config.num_players, len(seeds)
        agent = self.make()
        self.besides: list[tuple[str, Agent]] = []  # the round trips' copies, playing beside the agent
        self.found: str | None = None
        self.choices = 0  # the copies' choices beside the agent
        try:
            others = [RandomAgent(seed=self.seed + 1 + k) for k in range(P - 1)]
            seats = (np.arange(P)[:, None] + np.arange(B)[None, :]) % P  # [player, game]: the agent at b % P
            state = core.init(config, seeds)
            with _blamed(check, label, "reset"):
                agent.reset(config, seats[0].copy(), seed=self.seed)
            for k, other in enumerate(others):
                other.reset(config, seats[k + 1].copy())
            table = Table([agent, *others], seats, P)
            given = self._tell(check, table, state, state.events, seats[0], twin)
            next_seed, trace, checked, rounds = int(seeds.max()) + 1, [], False, 0
            decided = np.zeros(B, dtype=np.int64)  # the agent's decisions in each game, kept when dealt again
            for step in range(steps):
                if state.done.all():
                    break
                mask = core.legal_action_mask(state)
                live = np.flatnonzero(~state.done)
                mine = live[state.current_player[live] == seats[0, live]]
                decided[mine] += 1
                choice = ((decided[mine] >= ROUND_TRIP_AT) & (mask[mine].sum(axis=1) > 1)).any()
                if choice and round_trips and not self.besides and rounds < ROUND_TRIPS:
                    self.besides = _copies(agent, self.make, config, label)
                    self.choices, rounds = 0, rounds + 1
                checked = checked or choice
                actions = np.zeros(B, dtype=np.int64)
                with _blamed(check, label, "act"), _unchanged(given, label, "act"):
                    table.act(given, live, mask, actions)
                self._compare(state, mine, mask, actions)
                trace.append(np.stack([mine, actions[mine]]))
                core.step(state, actions)
                given = self._tell(check, table, state, state.events, seats[0], twin)
                if self.choices >= ROUND_TRIP_CHOICES:  # the copies of this round trip leave
                    self._close_besides()
                ended = np.flatnonzero(state.done)
                if len(ended) and (step < steps // 2 or not checked):  # deal again: reset_games in mid-batch
                    core.reset(state, ended, next_seed + np.arange(len(ended)))
                    next_seed += len(ended)
                    with _blamed(check, label, "reset_games"):
                        table.reset_games(ended)
                    for how, other in self.besides:
                        with _blamed("round trips", f"{label} (after {how})", "reset_games"):
                            other.reset_games(ended, seats[0, ended])
                    events = np.full_like(state.events, -1)
                    events[ended] = state.events[ended]
                    given = self._tell(check, table, state, events, seats[0], twin)
            if round_trips and not checked:
                self.found = (
                    f"round trips not checked: in {steps} decisions of the batch, the games dealt again as they "
                    f"ended, {label} made {int(decided.sum())} decisions and had no choice to make from its "
                    f"decision {ROUND_TRIP_AT} on; give more steps"
                )
        except BaseException:
            with contextlib.suppress(Exception):  # (the failure is reported, not a failing close)
                agent.close()
                self._close_besides()
            raise
        self._close_besides()
        with _blamed(check, label, "close"):
            agent.close()
        return trace, self.found

    def _tell(
        self, check: str, table: Table, state: core.State, events: np.ndarray, seats: np.ndarray, twin: bool
    ) -> core.State:
        """Show every player ``events`` (``Table.tell``) and the copies beside the agent its view of them;
        returns the state the agent is given (``_twin`` of ``state`` with ``twin``)."""
        given = _twin(state, seats) if twin else state
        with _blamed(check, self.label, "observe"), _unchanged(given, self.label, "observe"):
            table.tell(given, events)
        for how, other in self.besides:
            if other.observes:
                label = f"{self.label} (after {how})"
                with _blamed("round trips", label, "observe"), _unchanged(state, label, "observe"):
                    other.observe(state, core.private_view(events, seats[:, None]))
        return given

    def _compare(self, state: core.State, mine: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> None:
        """The copies beside the agent act in ``mine``; one that chooses otherwise is the finding, and leaves.
        Nobody acts where the agent decides in no game (a runner never asks an agent to act in none)."""
        if len(mine) == 0:
            return
        if self.besides:
            self.choices += int((mask[mine].sum(axis=1) > 1).sum())
        for how, other in list(self.besides):
            label = f"{self.label} (after {how})"
            with _blamed("round trips", label, "act"), _unchanged(state, label, "act"):
                got = np.asarray(other.act(state, mine, mask[mine]))
            if not np.array_equal(got, actions[mine]):
                self.found = self.found or (
                    f"round trips: after {how}, {self.label} chose {got.tolist()} instead of "
                    f"{actions[mine].tolist()} in games {mine.tolist()}"
                )
                self.besides.remove((how, other))
                other.close()

    def _close_besides(self) -> None:
        besides, self.besides = self.besides, []
        for _, other in besides:
            other.close()


def _copies(
    agent: Agent, make: Callable[[], Agent], config: core.GameConfig, label: str
) -> list[tuple[str, Agent]]:
    """A fresh agent loaded with ``agent``'s ``state_dict`` and an unpickled copy of ``agent``."""
    with _blamed("round trips", label, "state_dict"):
        saved = agent.state_dict()
    _check_plain(saved, f"{label}.state_dict()")
    restored = make()
    with _blamed("round trips", label, "load_state_dict"):
        restored.load_state_dict(config, copy.deepcopy(saved))
    try:
        unpickled = pickle.loads(pickle.dumps(agent))
    except Exception as error:
        restored.close()
        raise AgentCheckError(f"round trips: {label} cannot be pickled: {error}") from error
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
