"""One agent object plays in one Gymnasium env at a time (``cluedo_env.table.claim_players``).

An agent keeps the notes of the batch it was last reset for: two open envs that share it would
each play it from the other's game. The second env to reset is refused, naming the agent; an env's
agents are free again once it is closed or garbage-collected.
"""

from __future__ import annotations

import copy
import multiprocessing
from dataclasses import dataclass

import gymnasium
import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.notepad_agent import NotepadAgent
from agents.baselines.random_agent import RandomAgent
from cluedo_env import core
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv, register_envs
from cluedo_env.table import player_owner

SHARED = r"opponents\[0\] \(NotepadAgent\(seed=1\)\) already plays in another env that is still open"
ADVICE = r"Give each env its own agent objects .* or pass agent names"


def notepads() -> list[NotepadAgent]:
    return [NotepadAgent(seed=k) for k in (1, 2, 3)]


def notes_match_the_deal(env: CluedoSingleAgentEnv, agents: list[NotepadAgent]) -> bool:
    """Each notepad's hand in its notes is its hand in the env's game (as the deal event told it)."""
    owner = env.game_state._owner[0]
    return all(np.array_equal(a.hand[0], owner == int(a.seats[0])) for a in agents)


def test_make_vec_sync_refuses_one_list_of_agents_for_every_env_and_takes_names():
    register_envs()
    opponents = notepads()
    venv = gymnasium.make_vec(
        "cluedo/Cluedo-v0", num_envs=2, vectorization_mode="sync", opponents=opponents, events_in_info=False
    )
    with pytest.raises(ValueError, match=f"{SHARED}.*{ADVICE}"):
        venv.reset(seed=0)
    venv.close()
    venv = gymnasium.make_vec(  # names: each env makes its own agents
        "cluedo/Cluedo-v0",
        num_envs=2,
        vectorization_mode="sync",
        opponents=["notepad"] * 3,
        events_in_info=False,
    )
    venv.reset(seed=0)
    first, second = (e.unwrapped.table.players.players for e in venv.envs)
    assert all(a is not b for a, b in zip(first, second, strict=True))
    for env in venv.envs:
        assert notes_match_the_deal(env.unwrapped, env.unwrapped.table.players.players)


def test_two_single_envs_from_one_list_are_refused_and_the_first_keeps_its_notes():
    opponents = notepads()
    envs = [CluedoSingleAgentEnv(opponents=opponents, learner_seat=0) for _ in range(2)]  # as a DummyVecEnv
    envs[0].reset(seed=5)
    with pytest.raises(ValueError, match=SHARED):
        envs[1].reset(seed=6)
    assert envs[1].game_state is None  # refused before it dealt or reset anything
    assert notes_match_the_deal(envs[0], opponents)
    envs[0].reset(seed=7)  # its own agents: reset as often as it likes
    assert notes_match_the_deal(envs[0], opponents)


def test_a_training_and_an_evaluation_vector_env_from_one_list_are_refused():
    opponents = notepads()
    train = CluedoVectorEnv(num_envs=8, opponents=opponents)
    evaluation = CluedoVectorEnv(num_envs=2, opponents=opponents)
    train.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"already plays in another env that is still open, CluedoVectorEnv\("
    ):
        evaluation.reset(seed=1)
    for _ in range(20):  # the training env plays on with its own batch's notes
        train.step(np.argmax(train.action_masks(), axis=1))
    assert all(len(agent.hand) == 8 for agent in opponents)
    single = CluedoSingleAgentEnv(opponents=opponents)  # nor a single env beside it
    with pytest.raises(ValueError, match=SHARED):
        single.reset(seed=2)


def test_agents_are_free_again_once_their_env_is_closed_or_gone():
    opponents = notepads()
    first = CluedoVectorEnv(num_envs=8, opponents=opponents)
    first.reset(seed=0)
    assert all(player_owner(agent) is first for agent in opponents)
    first.close()
    second = CluedoSingleAgentEnv(opponents=opponents, learner_seat=0)
    second.reset(seed=3)
    assert notes_match_the_deal(second, opponents)
    del second  # garbage-collected
    for _ in range(3):  # a name bound to a new env on the same agents, as a loop or a notebook does
        env = CluedoSingleAgentEnv(opponents=opponents, learner_seat=0)
        env.reset(seed=4)
    assert notes_match_the_deal(env, opponents)
    env.close()
    assert all(player_owner(agent) is None for agent in opponents)


class Slotted:
    """A player that takes no weak reference (``__slots__`` without ``__weakref__``)."""

    __slots__ = ("seats",)
    observes = False

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        self.seats = np.asarray(seats).copy()

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        self.seats[games] = seats

    def observe(self, state: core.State, events: np.ndarray) -> None:
        pass

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(mask, axis=1)


@dataclass
class Equal(RandomAgent):
    """Players that compare equal (and hash as none): still two players."""

    label: str = "same"


def test_players_without_weak_references_or_with_their_own_equality_are_told_apart_by_identity():
    players = [Slotted(), Slotted()]
    first = CluedoSingleAgentEnv(num_players=3, opponents=players)
    first.reset(seed=0)
    with pytest.raises(ValueError, match=r"opponents\[0\] \(<.*Slotted"):
        CluedoSingleAgentEnv(num_players=3, opponents=players).reset(seed=0)
    del first
    CluedoSingleAgentEnv(num_players=3, opponents=players).reset(seed=0)  # free once the env is gone
    a, b, c, d = (Equal() for _ in range(4))
    assert a == c
    kept = CluedoSingleAgentEnv(num_players=3, opponents=[a, b])
    kept.reset(seed=0)
    CluedoSingleAgentEnv(num_players=3, opponents=[c, d]).reset(seed=0)
    with pytest.raises(ValueError, match=r"opponents\[1\]"):
        CluedoSingleAgentEnv(num_players=3, opponents=[c, b]).reset(seed=0)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this system")
def test_a_forked_async_make_vec_plays_its_own_copies_of_the_agents_an_env_of_the_parent_holds():
    """A child started by fork inherits the parent's claims, but its agents are its own copies:
    it holds none of them until its own env resets."""
    register_envs()
    opponents = notepads()
    train = CluedoSingleAgentEnv(opponents=opponents, learner_seat=0)
    train.reset(seed=0)
    evaluation = gymnasium.make_vec(
        "cluedo/Cluedo-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "fork"},
        opponents=opponents,
        events_in_info=False,
    )
    try:
        observations, _ = evaluation.reset(seed=1)
        assert observations["observation"].shape[0] == 2
    finally:
        evaluation.close()
    assert all(player_owner(agent) is train for agent in opponents)  # the parent's claims are its own
    assert notes_match_the_deal(train, opponents)


def test_the_arena_refuses_the_agents_an_open_env_holds_and_claims_none():
    """``play_batch`` resets the agents it is given: on an env's agents it would overwrite their
    notes of the env's game (an evaluation in a training callback on the same objects)."""
    opponents = notepads()
    env = CluedoSingleAgentEnv(opponents=opponents, learner_seat=0)
    env.reset(seed=5)
    with pytest.raises(
        ValueError,
        match=r"agents\[1\] \(NotepadAgent\(seed=1\)\) plays in an env that is still open, .*CluedoSingleAgentEnv"
        r".*Give play_batch its own agent objects",
    ):
        play_batch(env.config, [NotepadAgent(seed=9), *opponents], seeds=np.arange(8))
    assert notes_match_the_deal(env, opponents)  # refused before any agent was reset
    play_batch(env.config, [NotepadAgent(seed=9), *copy.deepcopy(opponents)], seeds=np.arange(8))
    env.close()
    result = play_batch(env.config, [NotepadAgent(seed=9), *opponents], seeds=np.arange(8))
    assert len(result.winner) == 8 and all(len(agent.hand) == 8 for agent in opponents)
    assert all(player_owner(agent) is None for agent in opponents)  # the arena's call held them, no longer


def test_a_vector_env_refuses_a_bad_seed_before_it_claims_the_agents():
    opponents = notepads()
    vector = CluedoVectorEnv(num_envs=2, opponents=opponents)
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*63 - 1\) .*got -1"):
        vector.reset(seed=-1)
    assert all(player_owner(agent) is None for agent in opponents)
    CluedoSingleAgentEnv(opponents=opponents).reset(seed=0)


def test_a_vector_env_reset_after_close_frees_its_agents_at_the_next_close():
    """Gymnasium's ``VectorEnv.close()`` does nothing once ``closed``: a reset opens the env again."""
    opponents = notepads()
    vector = CluedoVectorEnv(num_envs=2, opponents=opponents)
    vector.reset(seed=0)
    vector.close()
    vector.reset(seed=1)
    assert not vector.closed and all(player_owner(agent) is vector for agent in opponents)
    vector.close()
    assert vector.closed and all(player_owner(agent) is None for agent in opponents)
    env = CluedoSingleAgentEnv(opponents=opponents, learner_seat=0)
    env.reset(seed=2)
    assert notes_match_the_deal(env, opponents)
