"""Inputs beyond 64 bits and repeated games get a clear error naming the value and what is accepted.

Found by the issue's hostile run: a ``uint64`` action of 2**64 - 1 was reported as "got -1" (its
int64 wrap); ``reset(seed=2**64)`` on the single-agent Gymnasium env and ``step(2**70)`` on the
wrapped PettingZoo env raised a raw ``OverflowError``; ``core.reset`` dealt the same game twice
when its index was repeated. Each refusal leaves the game as it was.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from cluedo_env import cluedo_v0, core
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv
from tests.envs.test_pettingzoo import env_snapshot

CONFIG = core.GameConfig(num_players=3)
A = core.rules_for(CONFIG).A
TOP = 2**64 - 1


def arrays(state: core.State) -> dict:
    return {name: array.tolist() for name, array in state.arrays().items()}


# --- the core's step -------------------------------------------------------------------------------


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("batch", [1, 3])
def test_a_uint64_action_beyond_int64_is_named_as_given_not_as_its_wrap(batch, check):
    state = core.init(CONFIG, np.arange(batch))
    before = arrays(state)
    actions = np.zeros(batch, dtype=np.uint64)
    actions[-1] = TOP
    assert actions.astype(np.int64)[-1] == -1  # what the old message named
    with pytest.raises(ValueError, match=rf"action must be in \[0, {A}\), got {TOP} for game {batch - 1}$"):
        core.step(state, actions, check=check)
    assert arrays(state) == before


@pytest.mark.parametrize("action", [2**63, 2**64, 2**70, -(2**63) - 1])
def test_a_python_int_beyond_64_bits_is_a_value_error_naming_it(action):
    state = core.init(CONFIG, [0, 1])
    before = arrays(state)
    with pytest.raises(ValueError, match=rf"action must be in \[0, {A}\), got {action} for game 1$"):
        core.step(state, [0, action])
    assert arrays(state) == before


def test_an_action_of_a_finished_game_is_still_ignored():
    """Only the games that move are refused: a finished game's entry is not looked at, as before."""
    state = core.init(core.GameConfig(num_players=3, max_turns=1), [0, 1])
    first_game = np.array([True, False])
    while not state.done[0]:
        core.step(state, core.legal_action_mask(state).argmax(axis=1), games=np.flatnonzero(first_game))
    over = arrays(state.take([0]))
    core.step(state, np.array([TOP, core.legal_action_mask(state)[1].argmax()], dtype=np.uint64))
    this_step = ("events", "num_events", "rewards")  # a game that does not move has none this step
    assert {k: v for k, v in arrays(state.take([0])).items() if k not in this_step} == {
        k: v for k, v in over.items() if k not in this_step
    }
    assert state.num_events[1] > 0  # the other game moved


# --- the core's reset ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "repeated"), [([1, 1], "game 1 2 times"), ([0, 2, 0, 0], "game 0 3 times")]
)
def test_reset_refuses_a_game_index_given_twice(games, repeated):
    state = core.init(CONFIG, [0, 1, 2])
    before = arrays(state)
    with pytest.raises(
        ValueError, match=rf"games must be distinct game indices .*got {re.escape(str(games))}: {repeated}$"
    ):
        core.reset(state, games, list(range(10, 10 + len(games))))
    assert arrays(state) == before
    core.reset(state, [2, 0], [10, 11])  # distinct indices, in any order, still deal
    assert state.seed.tolist() == [11, 1, 10]


def test_reset_names_a_uint64_game_index_as_given():
    state = core.init(CONFIG, [0, 1])
    with pytest.raises(ValueError, match=rf"games must be indices in \[0, 2\), got \[{TOP}\]"):
        core.reset(state, np.array([TOP], dtype=np.uint64), [3])


# --- the single-agent and vector Gymnasium envs ------------------------------------------------------


@pytest.mark.parametrize("seed", [2**64, 2**63, 2**70, -1, True, 1.5, "7"])
def test_single_agent_reset_refuses_a_seed_outside_the_cores_range_before_any_change(seed):
    environment = CluedoSingleAgentEnv(num_players=3)
    environment.reset(seed=4)
    before, generator = arrays(environment.game_state), environment.np_random.bit_generator.state
    with pytest.raises(
        ValueError, match=rf"seed must be an int in \[0, 2\*\*63\) .*got {re.escape(repr(seed))}$"
    ):
        environment.reset(seed=seed)
    assert arrays(environment.game_state) == before
    assert environment.np_random.bit_generator.state == generator


def test_single_agent_reset_takes_every_seed_of_the_range():
    environment = CluedoSingleAgentEnv(num_players=3)
    for seed in (0, 2**63 - 1, np.int64(5), np.uint64(6)):
        environment.reset(seed=seed)
        assert environment.game_state.seed.tolist() == [int(seed)]


def test_vector_reset_refuses_seeds_beyond_the_range_naming_them():
    environment = CluedoVectorEnv(num_envs=3, num_players=3)
    # seed + i for game i: the last game's seed would pass 2**63 (it wrapped to a negative seed)
    with pytest.raises(
        ValueError, match=r"seed must be an int in \[0, 2\*\*63 - 2\) .*got 9223372036854775807"
    ):
        environment.reset(seed=2**63 - 1)
    with pytest.raises(ValueError, match=rf"seed\[2\] must be an int in \[0, 2\*\*63\) .*got {2**64}"):
        environment.reset(seed=[1, 2, 2**64])
    with pytest.raises(ValueError, match=r"seed must be an int or 3 ints, got \[1, 2\]"):
        environment.reset(seed=[1, 2])
    environment.reset(seed=2**63 - 3)
    assert environment.game_state.seed.tolist() == [2**63 - 3, 2**63 - 2, 2**63 - 1]
    environment.reset(seed=np.array([4, 5, 6]))
    assert environment.game_state.seed.tolist() == [4, 5, 6]


# --- the wrapped PettingZoo env ----------------------------------------------------------------------


@pytest.mark.parametrize("action", [2**70, 2**63, 2**64, np.uint64(TOP), 10**6, -1])
def test_wrapped_env_refuses_an_action_outside_the_space_naming_it(action):
    environment = cluedo_v0.env(num_players=3)
    environment.reset(seed=1)
    before = env_snapshot(environment)
    agent = environment.agent_selection
    with pytest.raises(
        AssertionError,
        match=rf"action is not in action space: {agent} must step .*\[0, {A}\), got {re.escape(repr(action))}$",
    ):
        environment.step(action)
    assert env_snapshot(environment) == before
    legal = int(np.flatnonzero(environment.infos[agent]["action_mask"])[0])
    environment.step(legal)  # the game goes on
    assert environment.agent_selection != agent or env_snapshot(environment) != before


def test_wrapped_env_still_ends_the_game_on_an_illegal_action_in_range():
    environment = cluedo_v0.env(num_players=3)
    environment.reset(seed=1)
    illegal = int(np.flatnonzero(environment.infos[environment.agent_selection]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        environment.step(illegal)
    assert all(environment.terminations.values())
    for _agent in environment.agent_iter():
        environment.step(None)  # done agents step None, as before


@pytest.mark.parametrize("action", [2**70, 2**63])
def test_raw_env_refuses_an_action_beyond_64_bits_naming_it(action):
    environment = cluedo_v0.raw_env(num_players=3)
    environment.reset(seed=1)
    before = env_snapshot(environment)
    with pytest.raises(ValueError, match=rf"illegal action {action}"):
        environment.step(action)
    assert env_snapshot(environment) == before
