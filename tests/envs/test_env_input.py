"""``cluedo_v0``: what its calls take (actions, seeds, keywords), what they say before ``reset``,
and what a game ended by an illegal move under ``env()`` reports."""

from __future__ import annotations

import enum
import warnings

import numpy as np
import pytest

from cluedo_env import cluedo_v0
from cluedo_env.core import events as ev
from cluedo_env.gym_env import CluedoSingleAgentEnv


def first_legal(environment) -> int:
    return int(np.flatnonzero(environment.infos[environment.agent_selection]["action_mask"])[0])


@pytest.mark.parametrize("make", [cluedo_v0.raw_env, cluedo_v0.env])
def test_a_zero_d_integer_array_is_played_as_its_integer(make):
    """A 0-d integer array (a policy's ``dist.sample().numpy()``) is in the action space, and the env
    plays it as the int it holds, as ``gym_env`` does."""
    played, given = make(num_players=4), make(num_players=4)
    for environment in (played, given):
        environment.reset(seed=1)
    action = first_legal(played)
    assert played.action_space(played.agent_selection).contains(np.array(action))
    played.step(action)
    given.step(np.array(action, dtype=np.int32))
    assert given.agent_selection == played.agent_selection
    for agent in played.possible_agents:
        np.testing.assert_array_equal(
            given.observe(agent)["observation"], played.observe(agent)["observation"]
        )


@pytest.mark.parametrize("make", [cluedo_v0.raw_env, cluedo_v0.env])
@pytest.mark.parametrize("given", [np.uint64, np.uint8, lambda a: np.array(a, dtype=np.uint64)])
def test_an_unsigned_numpy_integer_is_played_as_its_integer(make, given):
    """``env()``'s bounds check refused a uint64 as "not in [0, 405)" (numpy cannot cast it to int64)
    though the raw env plays it."""
    played, unsigned = make(num_players=4), make(num_players=4)
    for environment in (played, unsigned):
        environment.reset(seed=1)
    action = first_legal(played)
    played.step(action)
    unsigned.step(given(action))
    assert unsigned.agent_selection == played.agent_selection
    for agent in played.possible_agents:
        np.testing.assert_array_equal(
            unsigned.observe(agent)["observation"], played.observe(agent)["observation"]
        )


def tensor(value, dtype: str | None = None):
    """``torch.tensor(value)`` (of ``dtype``, a name such as ``"uint8"``); the test is skipped without torch."""
    torch = pytest.importorskip("torch")
    return torch.tensor(value, dtype=getattr(torch, dtype) if dtype else None)


ONE_INTEGER_FORMS = {
    "int subclass": lambda a: enum.IntEnum("Action", {"CHOSEN": a}).CHOSEN,
    "0-d array": np.array,
    "one-element array": lambda a: np.array([a]),
    "tensor": tensor,
    "uint8 tensor": lambda a: tensor(a, "uint8"),
    "one-element tensor": lambda a: tensor([a]),
}
NOT_AN_INTEGER = {
    "float": float,
    "numpy float": np.float64,
    "float array": lambda a: np.array(float(a)),
    "bool": lambda a: True,
    "numpy bool": lambda a: np.True_,
    "bool array": lambda a: np.array(True),
    "bool tensor": lambda a: tensor(True),
    "list": lambda a: [a],
}


def step_each_env(form) -> dict[str, object]:
    """What each env does with its first legal action given in ``form``: the same observation as the
    plain int's ("played"), or the type of the error raised."""
    done = {}
    for name, make in [("raw_env", cluedo_v0.raw_env), ("env()", cluedo_v0.env)]:
        plain, given = make(num_players=4), make(num_players=4)
        for environment in (plain, given):
            environment.reset(seed=1)
        action = first_legal(plain)
        plain.step(action)
        try:
            given.step(form(action))
        except (TypeError, ValueError, AssertionError) as error:
            done[name] = type(error)
        else:
            same = np.array_equal(
                given.observe("player_1")["observation"], plain.observe("player_1")["observation"]
            )
            done[name] = "played" if same and given.agent_selection == plain.agent_selection else "other"
    plain, given = CluedoSingleAgentEnv(learner_seat=0), CluedoSingleAgentEnv(learner_seat=0)
    observation, _ = plain.reset(seed=3)
    given.reset(seed=3)
    action = int(np.flatnonzero(observation["action_mask"])[0])
    try:
        stepped = given.step(form(action))
    except (TypeError, ValueError) as error:
        done["gym"] = type(error)
    else:
        done["gym"] = (
            "played"
            if np.array_equal(stepped[0]["observation"], plain.step(action)[0]["observation"])
            else "other"
        )
    return done


@pytest.mark.parametrize("form", ONE_INTEGER_FORMS.values(), ids=ONE_INTEGER_FORMS.keys())
def test_every_env_plays_one_integer_however_it_is_given(form):
    """A tensor or a one-element array was played by the Gymnasium env, refused by raw_env
    (ValueError) and by env() (AssertionError); an IntEnum member was refused by the Gymnasium env."""
    assert step_each_env(form) == {"raw_env": "played", "env()": "played", "gym": "played"}


@pytest.mark.parametrize("form", NOT_AN_INTEGER.values(), ids=NOT_AN_INTEGER.keys())
def test_every_env_refuses_what_is_not_one_integer_with_a_type_error(form):
    """A float or a bool raised TypeError in the Gymnasium env, ValueError in raw_env, AssertionError
    in env()."""
    assert step_each_env(form) == {"raw_env": TypeError, "env()": TypeError, "gym": TypeError}


def test_an_unsigned_numpy_integer_out_of_range_under_env_names_the_range():
    wrapped = cluedo_v0.env(num_players=4)
    wrapped.reset(seed=1)
    with pytest.raises(AssertionError, match=r"in \[0, 405\), got np\.uint64\(18446744073709551615\)"):
        wrapped.step(np.uint64(2**64 - 1))


def test_an_illegal_zero_d_array_under_env_ends_the_game_as_an_illegal_int():
    wrapped = cluedo_v0.env(num_players=4)
    wrapped.reset(seed=1)
    actor = wrapped.agent_selection
    illegal = int(np.flatnonzero(wrapped.infos[actor]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PettingZoo warns of the illegal move)
        wrapped.step(np.array(illegal))
    assert all(wrapped.terminations.values()) and wrapped.rewards[actor] == -1


@pytest.mark.parametrize("seed", [np.array(5), np.int32(5), 5])
def test_reset_takes_a_seed_in_a_zero_d_integer_array_as_core_init_does(seed):
    raw, plain = cluedo_v0.raw_env(num_players=4), cluedo_v0.raw_env(num_players=4)
    raw.reset(seed=seed)
    plain.reset(seed=5)
    np.testing.assert_array_equal(raw.game_state._owner, plain.game_state._owner)
    raw.reset()  # the generator was seeded with 5 too: the next deals are the same
    plain.reset()
    np.testing.assert_array_equal(raw.game_state._owner, plain.game_state._owner)


def test_the_single_agent_env_reads_seeds_and_actions_by_the_same_rule():
    """``cluedo_v0.check_seed`` is every env's rule: the Gymnasium env takes a 0-d integer array as a
    seed too (it refused one), and refuses a float in one with the same message."""
    from cluedo_env.gym_env import CluedoSingleAgentEnv

    given, plain = CluedoSingleAgentEnv(), CluedoSingleAgentEnv()
    observation, _ = given.reset(seed=np.array(5))
    expected, _ = plain.reset(seed=5)
    np.testing.assert_array_equal(observation["observation"], expected["observation"])
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*63\) .*got array\(5\.\)"):
        given.reset(seed=np.array(5.0))


@pytest.mark.parametrize("seed", [5.0, np.array(5.0), True, -1, 2**63, np.array([5]), "5"])
def test_reset_names_a_bad_seed_and_what_is_accepted(seed):
    raw = cluedo_v0.raw_env(num_players=4)
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*63\) .*got"):
        raw.reset(seed=seed)
    assert raw.game_state is None  # refused before any change


@pytest.mark.parametrize("call", ["observe", "last"])
def test_observing_before_reset_says_to_call_reset(call):
    raw = cluedo_v0.raw_env(num_players=3)
    with pytest.raises(RuntimeError, match=rf"{call}\(\) before reset\(\): call reset\(\) first"):
        raw.observe("player_0") if call == "observe" else raw.last()


@pytest.mark.parametrize("make", [cluedo_v0.raw_env, cluedo_v0.env])
@pytest.mark.parametrize("keyword", ["reward_schema", "obs_type", "rendermode"])
def test_a_misspelled_keyword_lists_the_envs_own_keywords_and_the_config_fields(make, keyword):
    with pytest.raises(ValueError) as error:
        make(**{keyword: "x"})
    message = str(error.value)
    assert f"[{keyword!r}]" in message
    for name in ("preset", "observation_type", "reward_scheme", "render_mode", "num_players", "edition"):
        assert repr(name) in message


def test_an_illegal_move_under_env_writes_no_events_and_no_game_over():
    """The event format has no reason for an illegal move (``END_REASONS``), so no ``GAME_OVER``:
    the step made no events, and the infos say so rather than repeat the last step's."""
    wrapped = cluedo_v0.env(num_players=4)
    wrapped.reset(seed=3)
    assert all(len(info["events"]) for info in wrapped.infos.values())  # the deal
    illegal = int(np.flatnonzero(wrapped.infos[wrapped.agent_selection]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    for _agent in wrapped.agent_iter():
        _, _, termination, _, info = wrapped.last()
        assert termination and info["events"].shape == (0, len(ev.EVENT_FIELDS))
        wrapped.step(None)


@pytest.mark.parametrize("seed", [np.array(1.0), np.array(True)])
def test_the_vector_env_names_a_float_or_bool_in_a_zero_d_array_as_a_bad_seed(seed):
    from cluedo_env.gym_env import CluedoVectorEnv

    vector = CluedoVectorEnv(num_envs=2)
    with pytest.raises(ValueError, match=r"seed must be an int or 2 ints, got array\((1\.|True)\)"):
        vector.reset(seed=seed)
    assert vector.game_state is None  # refused before any change
