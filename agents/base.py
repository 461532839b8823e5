"""The one batched agent interface every player of the project implements.

An agent plays one seat in each game of a batch. The runner (``agents.arena``)
calls, in this order:

1. ``reset(config, seats, seed=None)`` once per batch: ``seats[b]`` is the
   agent's player index in game ``b``; ``seed``, when given, reseeds the
   agent's random generator (``play_batch`` passes the agent's own seed plus
   the batch's first deal seed, so batches differ), else its constructor's
   seed is used again.
   ``reset_games(games, seats)`` when some games of the batch are dealt again
   (vectorised environments with autoreset).
2. ``observe(state, events)`` after the deal and after every step, for every
   game: ``events`` are this agent's private views of the step's events
   (``core.private_view`` with its seats), ``int16[B, E, 7]``.
3. ``act(state, games, mask)`` for the games where the agent must decide now
   (``state.current_player[games] == seats[games]``); ``mask`` is
   ``bool[len(games), A]``. It returns one legal action per game.

Agents read only the public fields of the state and their own event views. Hidden
are the fields whose names start with ``_`` (hands, envelope) and two more:
``state.events``, the last step's raw events of every game (every player's dealt
cards, the card of every show), and ``state.seed``, which deals each game again
(``core.init(config, state.seed)``). An agent reads the events through
``observe``'s ``events`` (or ``core.private_view`` with its seats) and never
decides on ``state.events`` or ``state.seed``. Agents never write the state, the
mask or the events they are given.

``state_dict()`` / ``load_state_dict(config, state)`` save and restore what an
agent remembers as plain data (numbers, strings, lists, dicts, numpy arrays),
so that a training run's opponents continue exactly from a checkpoint without
pickle. The base class covers the seed, the seats and the generator, and the sizes
of the games (players, suspects, weapons, rooms), so that ``load_state_dict``
refuses a config of other games, or seats that are not its players, by name; an
agent that remembers more (notes per game) extends both.

``close()`` releases what an agent holds (solvers, connections); runners call it
when they are done with the agent. ``agents.testing.check_agent`` checks that an
agent keeps this contract (legal actions, batches, ``reset_games``, a state left
unchanged, determinism under its seed, decisions that do not change when
``state.events`` is its own view and ``state.seed`` another, ``state_dict`` and
pickle round trips): run it on your own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

from cluedo_env.core import GameConfig, State

__all__ = ["Agent", "GameByGameAgent", "last_own_turn", "option_number", "option_switch"]


def option_switch(option: str, value: object) -> bool:
    """An agent's on/off option, checked: True or False (a numpy bool too).

    Raises:
        ValueError: For anything else (a word such as ``"off"`` from a command line would be true).
    """
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{option} must be True or False, got {value!r}")
    return bool(value)


def option_number(option: str, value: object) -> float:
    """An agent's numeric option, checked to be a number (not a bool, not a word); the caller checks its range.

    Raises:
        ValueError: For anything else.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{option} must be a number, got {value!r}")
    return float(value)


def last_own_turn(state: State, game: int) -> bool:
    """Whether the turn under way in ``game`` is its turn player's last before the game is truncated at
    ``max_turns``: the turn passes round the players still in, so the next one of the same player would
    come ``players still in`` turns later (sooner only if somebody is eliminated before)."""
    players_in = int((~state.eliminated[game]).sum())
    return int(state.turn[game]) + players_in >= state.config.max_turns


def _sizes(config: GameConfig) -> dict[str, int]:
    """The sizes of ``config``'s games that an agent's notes are shaped by: players, suspects, weapons, rooms."""
    cards = config.cards
    return {
        "players": config.num_players,
        "suspects": cards.num_suspects,
        "weapons": cards.num_weapons,
        "rooms": cards.num_rooms,
    }


def _described(sizes: Mapping[str, int]) -> str:
    """``{"players": 4, ...}`` as ``4 players, 6 suspects, 6 weapons and 9 rooms``."""
    parts = [f"{number} {name}" for name, number in sizes.items()]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


class Agent(ABC):
    """A batched player. Subclasses set ``name`` and implement ``act``."""

    name: str = "agent"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.config: GameConfig | None = None
        self.seats = np.zeros(0, dtype=np.int64)
        self.rng = np.random.default_rng(seed)

    def check_config(self, config: GameConfig) -> None:  # noqa: B027 - optional hook
        """Say, before any game, whether this agent can play games of ``config``.

        Runners (the tournament) call it once per entrant before the first game.
        Raise ``ValueError`` when the agent cannot play these rules (e.g. a model
        trained for other observation or action sizes); ``warnings.warn`` when it
        can but was not made for them (e.g. a model trained on another edition).
        The base class plays every config; agents with limits override it.
        """

    def reset(self, config: GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        """Start a batch of games: ``seats[b]`` is this agent's player in game ``b``.

        Args:
            config: The rules of every game of the batch.
            seats: ``int[B]``: this agent's player index in each game.
            seed: Reseeds the agent's random generator; None: the seed it was made with.
        """
        self.config = config
        self.seats = np.asarray(seats, dtype=np.int64)
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        """Forget some games of the batch, which are dealt again, with these seats (autoreset).

        Agents that keep memory per game extend this to clear it.
        """
        self.seats[games] = seats

    def observe(self, state: State, events: np.ndarray) -> None:  # noqa: B027 - optional hook
        """See this step's events (already filtered to what this agent may see)."""

    @property
    def observes(self) -> bool:
        """Whether this agent reads events (overrides ``observe``): runners build no views for the others."""
        return type(self).observe is not Agent.observe

    @abstractmethod
    def act(self, state: State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action for each game in ``games`` (where this agent decides)."""

    def state_dict(self) -> dict[str, Any]:
        """What this agent remembers after ``reset``, as plain data (see the module docstring): its seed,
        seats and generator, and the ``sizes`` of the games it plays (None before ``reset``)."""
        return {
            "seed": self.seed,
            "seats": self.seats.copy(),
            "rng": self.rng.bit_generator.state,
            "sizes": None if self.config is None else _sizes(self.config),
        }

    def load_state_dict(self, config: GameConfig, state: Mapping[str, Any]) -> None:
        """Continue from ``state_dict``'s output: as if this agent had played the same games of ``config``.

        Raises:
            ValueError: ``state`` is another seed's, of games of other sizes than ``config``'s (players,
                suspects, weapons, rooms; a state saved without them is not checked so), or has seats
                that are not players of ``config``.
        """
        if state["seed"] != self.seed:
            raise ValueError(
                f"this agent has seed {self.seed}, the state is of an agent with seed {state['seed']}"
            )
        saved, sizes = state.get("sizes"), _sizes(config)
        if saved is not None and dict(saved) != sizes:
            raise ValueError(
                f"the state is of games of {_described(saved)}, the config's games have {_described(sizes)}"
            )
        seats = np.asarray(state["seats"])
        if seats.ndim != 1 or (seats.size and not np.issubdtype(seats.dtype, np.integer)):
            raise ValueError(f"state seats must be a list of player indices, got {state['seats']!r}")
        if ((seats < 0) | (seats >= config.num_players)).any():
            raise ValueError(
                f"state seats must be players of the config, in [0, {config.num_players}), got "
                f"{seats.tolist()}"
            )
        self.reset(config, seats.astype(np.int64))
        self.rng.bit_generator.state = state["rng"]

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the agent holds (solvers, network connections); runners call it when done.

        The base class holds nothing; agents that hold resources override it. The agent is not
        used after ``close``.
        """

    def action_probabilities(self, state: State, games: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
        """``float[len(games), A]`` probabilities of ``act``, where the agent has them."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class GameByGameAgent(Agent):
    """An agent that decides each game of the batch on its own (its knowledge is per game).

    Subclasses implement ``decide``; ``act`` asks it once per game, in order, so that the
    random generator is drawn from in the same order whatever the batch.
    """

    def act(self, state: State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        for i, game in enumerate(games):
            actions[i] = self.decide(state, int(game), mask[i])
        return actions

    @abstractmethod
    def decide(self, state: State, game: int, legal: np.ndarray) -> int:
        """One legal action in one game of the batch (``legal``: ``bool[A]``)."""
