"""Play a batch of games between agents on the batched core.

``play_batch`` seats an agent at every seat of a ``cluedo_env.table.Table`` and plays
``Table.play`` steps until every game is over (or stopped). It resets and plays the agent
objects it is given, so it refuses those that an open Gymnasium env holds (an agent keeps the
notes of one batch of games: ``cluedo_env.table.claim_players``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.game import check_seeds
from cluedo_env.core.integers import holds_a_bool
from cluedo_env.table import Table, blame, refuse_held_players

__all__ = ["BatchResult", "EventLog", "play_batch"]


@dataclass
class BatchResult:
    """Outcome of a batch of games.

    Attributes:
        seeds: ``int64[B]`` deal seed of each game.
        seats: ``int64[B, n_agents]`` the seat (player index) of each agent.
        winner: ``int64[B]`` index of the winning agent, or -1 (nobody).
        winner_seat: ``int64[B]`` the winning player index, or -1.
        turns: ``int64[B]`` turns played.
        truncated: ``bool[B]`` stopped at ``max_turns``.
        accusations: ``int64[B, n_agents]`` accusations made by each agent.
        wrong_accusations: ``int64[B, n_agents]`` wrong ones among them.
        decisions: ``int64[B]`` decisions taken in each game.
        stopped: ``bool[B]`` left unfinished by ``play_batch``'s ``stop`` (no winner, not truncated).
    """

    seeds: np.ndarray
    seats: np.ndarray
    winner: np.ndarray
    winner_seat: np.ndarray
    turns: np.ndarray
    truncated: np.ndarray
    accusations: np.ndarray
    wrong_accusations: np.ndarray
    decisions: np.ndarray
    stopped: np.ndarray


class EventLog:
    """Every game's events from the deal on, gathered step by step: ``play_batch``'s ``on_step``.

    ``log[b]`` is game ``b``'s ``int16[n, 7]`` rows in order (``core.events.read_events``
    reads them by name), ready for ``core.private_view``, ``cluedo_env.inference.from_events`` or
    ``cluedo_env.transcript.story``.

    Args:
        games: The batch size.
    """

    def __init__(self, games: int) -> None:
        self._steps: list[list[np.ndarray]] = [[] for _ in range(games)]

    def __call__(self, state: core.State) -> None:
        """Keep the rows of the step that ``state`` has just taken (or of the deal)."""
        for game in np.flatnonzero(state.num_events > 0).tolist():
            self._steps[game].append(state.step_events(game).copy())

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[game] for game in range(len(self)))

    def __getitem__(self, game: int) -> np.ndarray:
        steps = self._steps[game]
        return np.concatenate(steps) if steps else np.zeros((0, len(ev.EVENT_FIELDS)), dtype=np.int16)


def play_batch(
    config: core.GameConfig,
    agents: Sequence[Agent],
    seeds: Sequence[int] | np.ndarray,
    rotation: Sequence[int] | np.ndarray | int = 0,
    on_step: Callable[[core.State], None] | None = None,
    stop: Callable[[core.State, np.ndarray], np.ndarray] | None = None,
    on_action: Callable[[np.ndarray, np.ndarray, core.State], None] | None = None,
) -> BatchResult:
    """Play one game per seed; agent ``k`` sits at seat ``(k + rotation[b]) % P`` in game ``b``.

    Args:
        config: The rules; ``len(agents)`` must equal ``config.num_players``.
        agents: One agent per seat (the same object may not appear twice, nor one that an open
            Gymnasium env holds: ``reset`` would overwrite its notes of that env's games).
        seeds: Deal seed of each game: integers in ``[0, 2**63)`` (a list or a 1-D integer
            array; one int for one game), as ``core.init`` takes them.
        rotation: Seat rotation of each game (a list or a 1-D integer array), or one integer for all
            (alone, or in a list or array of one).
        on_step: Called with the state after the deal and after every step.
        stop: ``stop(state, seats) -> bool[B]``, asked after every step (``seats[b, k]``: agent
            ``k``'s seat): games where it is True are left as they are, unfinished, e.g. an
            evaluation's games once the evaluated agent is out.
        on_action: ``on_action(actions, stepped, state)`` after every step: ``actions[b]`` was
            played in each game where ``stepped[b]`` (``bool[B]``), leading to ``state``; e.g. a
            ``cluedo_env.game_record.GameRecorder`` per game.

    Raises:
        ValueError: Not one agent per player, or an agent that an open env holds (naming it and the env);
            seeds or rotations that are not integers (floats, bools) or not one per game.
    """
    P = config.num_players
    if len(agents) != P:
        raise ValueError(f"need one agent per player ({P}), got {len(agents)}")
    refuse_held_players(agents, "agents", "play_batch")  # before any agent is reset
    seeds = check_seeds(seeds)
    B = len(seeds)
    rotation = _rotations(rotation, B, P)
    seats = (np.arange(P)[None, :] + rotation[:, None]) % P  # [B, agent] -> seat
    table = Table(agents, seats.T, P)
    agent_at = table.player_at  # [B, seat] -> agent
    state = core.init(config, seeds)
    for k, agent in enumerate(agents):
        try:
            # (as Python ints: a numpy agent seed plus a large deal seed would overflow or wrap)
            agent.reset(config, seats[:, k], seed=int(agent.seed) + int(seeds[0]) if B else agent.seed)
        except Exception as error:
            blame(error, k, "reset", np.arange(B))
            raise
    accusations = np.zeros((B, P), dtype=np.int64)
    wrong = np.zeros((B, P), dtype=np.int64)
    decisions = np.zeros(B, dtype=np.int64)

    def tell_everyone() -> None:
        table.tell(state, state.events)
        if on_step is not None:
            on_step(state)

    tell_everyone()
    stopped = np.zeros(B, dtype=bool)
    mask = core.legal_action_mask(state)  # kept up to date by each step (Table.play: step(mask=))
    while not (state.done | stopped).all():
        live = ~state.done & ~stopped
        decisions += live
        # every seat is a player's: they decide in every live game, and Table.act checks each
        # action against the mask (the core's check would work the legal actions out again)
        actions = np.zeros(B, dtype=np.int64)
        table.play(state, actions, mask=mask, games=None if stop is None else live, tell=False)
        if on_action is not None:
            on_action(actions, live, state)
        game, row = np.nonzero(state.events[:, :, ev.KIND] == ev.ACCUSE)
        accusation = state.events[game, row]
        accuser = agent_at[game, accusation[:, ev.PLAYER]]
        np.add.at(accusations, (game, accuser), 1)
        np.add.at(wrong, (game, accuser), accusation[:, ev.CORRECT] == 0)
        tell_everyone()
        if stop is not None:
            stopped |= ~state.done & np.asarray(stop(state, seats), dtype=bool)

    return BatchResult(
        seeds=seeds,
        seats=seats,
        winner=table.winner(state),
        winner_seat=state.winner.astype(np.int64),
        turns=state.turns_played,
        truncated=state.truncated.copy(),
        accusations=accusations,
        wrong_accusations=wrong,
        decisions=decisions,
        stopped=stopped,
    )


def _rotations(rotation: object, games: int, num_players: int) -> np.ndarray:
    """``int64[games]``: ``play_batch``'s ``rotation`` (one integer for every game, alone or as a list or
    array of one, or one per game), checked and taken modulo ``num_players``; a ``ValueError`` naming it
    otherwise (a float, a bool, in a list too, or neither one nor one per game)."""
    array = np.asarray(rotation)
    if (
        (array.dtype.kind not in "iu" and array.size)
        or array.shape not in ((), (1,), (games,))
        or holds_a_bool(rotation)
    ):
        raise ValueError(
            f"rotation must be an integer or one integer per game ({games}: a list or 1-D integer array), "
            f"got {rotation!r}"
        )
    return np.broadcast_to(array % num_players, (games,)).astype(np.int64)
