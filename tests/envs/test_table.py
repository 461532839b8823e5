"""The table of players (``cluedo_env.table``): the one driver of fixed players, and the layers it keeps apart."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.random_agent import RandomAgent
from cluedo_env import core
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv
from cluedo_env.table import Player, Table, make_player


class FirstLegal:
    """A player that is no ``agents.base.Agent``: only the ``Player`` methods."""

    observes = False

    def __init__(self) -> None:
        self.resets: list[np.ndarray] = []
        self.seats = np.zeros(0, dtype=np.int64)

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self.seats = np.asarray(seats).copy()

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        self.resets.append(np.asarray(games).copy())
        self.seats[games] = seats

    def observe(self, state: core.State, events: np.ndarray) -> None:
        raise AssertionError("a player that does not observe is shown no events")

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(mask, axis=1)


class Illegal(FirstLegal):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmin(mask, axis=1)


class IllegalAgent(RandomAgent):
    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmin(mask, axis=1)


def test_agents_are_players_and_names_resolve_through_the_registry():
    agent = make_player("random", seed=4, accuse="rarely")
    assert isinstance(agent, RandomAgent) and isinstance(agent, Player)
    assert (agent.seed, agent.accuse) == (4, "rarely")
    assert isinstance(FirstLegal(), Player)
    assert not isinstance(object(), Player)
    with pytest.raises(ValueError, match="agent must be one of"):
        make_player("no-such-agent")


def test_a_player_that_is_not_an_agent_plays_the_gym_envs():
    opponents = [FirstLegal(), FirstLegal(), FirstLegal()]
    environment = CluedoVectorEnv(num_envs=3, num_players=4, opponents=opponents, max_turns=30)
    environment.reset(seed=1)
    for _ in range(60):
        mask = environment.action_masks()
        environment.step(np.argmax(mask, axis=1))
    assert all(len(player.resets) for player in opponents)  # redealt games were forgotten game by game
    single = CluedoSingleAgentEnv(num_players=3, opponents=[FirstLegal(), FirstLegal()])
    single.reset(seed=0)


def test_an_illegal_action_names_the_player_and_the_games():
    environment = CluedoSingleAgentEnv(num_players=3, opponents=[Illegal(), Illegal()])
    with pytest.raises(ValueError, match=r"player <.*Illegal.*> chose an illegal action in games \[0\]"):
        observation, _ = environment.reset(seed=0)
        for _ in range(20):  # an opponent decides within a round
            observation, *_ = environment.step(int(np.argmax(observation["action_mask"])))
    with pytest.raises(ValueError, match="chose an illegal action"):
        play_batch(
            core.GameConfig(num_players=3), [IllegalAgent(), RandomAgent(), RandomAgent()], seeds=[1, 2]
        )


def test_table_seats_and_asks_only_the_player_whose_turn_it_is():
    config = core.GameConfig(num_players=3)
    state = core.init(config, np.array([5, 6]))
    players = [FirstLegal(), FirstLegal()]
    table = Table(players, np.array([[0, -1], [1, 0]]), num_players=3)  # player 0 sits out game 1
    assert table.player_at.tolist() == [[0, 1, -1], [1, -1, -1]]
    mask = core.legal_action_mask(state)
    actions = np.full(2, -7, dtype=np.int64)
    deciding = np.flatnonzero(table.player_at[np.arange(2), state.current_player] >= 0)
    table.act(state, deciding, mask, actions)
    assert (actions[deciding] == np.argmax(mask[deciding], axis=1)).all()
    players[0].reset(config, np.array([0, 0]))
    players[1].reset(config, np.array([1, 0]))
    table.seat(np.array([1]), np.array([[2], [1]]))
    table.reset_games(np.array([1]))
    assert [r.tolist() for r in players[0].resets] == [[1]] and [r.tolist() for r in players[1].resets] == [
        [1]
    ]
    with pytest.raises(ValueError, match="share a seat"):
        Table(players, np.array([[0], [0]]), num_players=3)
    with pytest.raises(ValueError, match="its own player object"):
        Table([players[0], players[0]], np.array([[0], [1]]), num_players=3)
