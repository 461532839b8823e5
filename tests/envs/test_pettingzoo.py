"""The PettingZoo env ``cluedo_v0``: PettingZoo's conformance tests, thousands of random games, its own
contract, errors, pickling and copies mid-game."""

from __future__ import annotations

import copy
import pickle
import re
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import BaseWrapper

from cluedo_env import cluedo_v0, core
from cluedo_env.core import events as ev
from cluedo_env.core.state import Phase
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv

# Every player count on both boards, with the variant switches spread over them.
CONFIGS = {
    "duel-classic": dict(num_players=2, duel=True),
    "duel-none": dict(num_players=2, duel=True, board="none", auto_refute=True),
    "3-classic": dict(num_players=3, accuse_anywhere=False),
    "3-none": dict(num_players=3, board="none", start_player="scarlet"),
    "4-classic": dict(num_players=4),
    "4-none": dict(num_players=4, board="none", accuse_anywhere=False, auto_refute=True),
    "5-classic": dict(num_players=5, movement="squares", dice=1),
    "5-none": dict(num_players=5, board="none", edition="classic_fr_2000", reward_scheme="win_only"),
    "6-classic": dict(num_players=6, stay_in_room=False, start_player="random", accuse_anywhere=False),
    "6-none": dict(
        num_players=6, board="none", edition="de_2023", observation_type="seer", reward_scheme="zero_sum"
    ),
}
SHIFTS = range(4)  # seed shifts per check: each shift plays other games
# What api_test says of any env with dict observations (PettingZoo's own masked envs get the same).
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent probably")


class SeedShift(BaseWrapper):
    """Shifts every reset seed by ``shift`` and seeds unseeded resets, so that each check plays its own games."""

    def __init__(self, env, shift: int) -> None:
        super().__init__(env)
        self.shift = shift
        self.unseeded = 0

    def reset(self, seed=None, options=None):
        if seed is None:
            self.unseeded += 1
            seed = 10_000 * (self.shift + 1) + self.unseeded
        super().reset(seed=seed + 100 * self.shift, options=options)


def make_shifted(kwargs: dict, shift: int):
    def make(**extra):
        return SeedShift(cluedo_v0.env(**kwargs, **extra), shift)

    return make


# --- PettingZoo's conformance tests ------------------------------------------------


@pytest.mark.parametrize("name", CONFIGS)
def test_pettingzoo_api_test(name):
    for shift in SHIFTS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api_test(make_shifted(CONFIGS[name], shift)(), num_cycles=100)
        unexpected = {str(w.message) for w in caught} - {
            str(w.message) for w in caught if str(w.message).startswith(DICT_OBSERVATION_WARNINGS)
        }
        assert not unexpected, unexpected


@pytest.mark.parametrize("name", CONFIGS)
def test_pettingzoo_seed_test(name):
    for shift in SHIFTS:
        seed_test(make_shifted(CONFIGS[name], shift), num_cycles=100)


@pytest.mark.parametrize("name", CONFIGS)
def test_pettingzoo_render_test(name, capsys):
    render_test(make_shifted(CONFIGS[name], 0))
    assert "Legend" in capsys.readouterr().out or CONFIGS[name].get("board") == "none"


def test_api_test_on_longer_games():
    """api_test's random actions accuse at once; here the players roll and suggest first."""

    class Patient(BaseWrapper):
        # Hides accusations from the mask except at the end of a turn, one time in four.
        def __init__(self, env):
            super().__init__(env)
            self.rng = np.random.default_rng(0)

        def observe(self, agent):
            observation = super().observe(agent)
            lay = self.env.unwrapped.layout
            mask = observation["action_mask"].copy()
            others = mask.copy()
            others[lay.ACCUSE : lay.ACCUSE + lay.sizes["accuse"]] = 0
            if others.any() and self.rng.random() < 0.9:
                mask = others
            return {"observation": observation["observation"], "action_mask": mask}

    for kwargs in (CONFIGS["4-classic"], CONFIGS["3-none"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(Patient(cluedo_v0.env(**kwargs, max_turns=30)), num_cycles=400)


# --- thousands of random games through env() ---------------------------------------------


def play_random_game(environment, rng, accuse_probability: float, observe: bool) -> dict:
    """One game through the AEC loop with random legal actions; checks the AEC bookkeeping as it goes."""
    raw = environment.unwrapped
    lay = raw.layout
    accusations = slice(lay.ACCUSE, lay.ACCUSE + lay.sizes["accuse"])
    returns = dict.fromkeys(raw.possible_agents, 0.0)
    dead_steps = []
    decisions = 0
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, info = environment.last(observe=observe)
        returns[agent] += reward
        if termination or truncation:
            dead_steps.append(agent)
            assert not info["action_mask"].any()
            environment.step(None)
            continue
        assert not dead_steps, "a live agent acted after the game ended"
        mask = info["action_mask"].astype(bool)
        assert mask.any(), "the acting player has no legal action"
        assert raw.game_state.current_player[0] == raw.possible_agents.index(agent)
        if observe:
            assert raw.observation_space(agent).contains(observation)
            for other in raw.agents:
                if other != agent:
                    assert not raw.observe(other)["action_mask"].any()
                    assert not raw.infos[other]["action_mask"].any()
        calm = mask.copy()
        calm[accusations] = False
        if calm.any() and rng.random() >= accuse_probability:
            mask = calm
        legal = np.flatnonzero(mask)
        environment.step(int(legal[rng.integers(len(legal))]))
        decisions += 1
    assert sorted(dead_steps) == sorted(raw.possible_agents), "every agent steps None once at the end"
    assert environment.agents == []
    return {"returns": returns, "decisions": decisions, "state": raw.game_state}


def test_thousands_of_random_games_through_env():
    rng = np.random.default_rng(2024)
    games, endings = 0, {"win": 0, "all wrong": 0, "truncated": 0}
    for index, name in enumerate(CONFIGS):
        kwargs = {**CONFIGS[name], "max_turns": 60}
        environment = cluedo_v0.env(**kwargs)
        P = environment.unwrapped.config.num_players
        for game in range(200):
            environment.reset(seed=index * 1000 + game)
            long_game = game % 50 == 0  # one game in 50 accuses rarely and runs to max_turns
            result = play_random_game(environment, rng, 0.01 if long_game else 0.7, observe=game % 25 == 0)
            state, returns = result["state"], np.array(list(result["returns"].values()))
            assert state.done[0]
            winner = int(state.winner[0])
            expected = cluedo_v0.final_rewards(
                environment.unwrapped.reward_scheme, core_rewards(state, P), state.winner
            )[0]
            np.testing.assert_allclose(returns, expected, atol=1e-6)
            if state.truncated[0]:
                endings["truncated"] += 1
                assert not returns.any()
            else:
                endings["win" if winner >= 0 else "all wrong"] += 1
            games += 1
    assert games == 2000
    assert all(endings.values()), endings


def core_rewards(state: core.State, num_players: int) -> np.ndarray:
    """The core's rewards of a finished game (from its outcome; ``state.rewards`` holds only the last step)."""
    rewards = np.zeros((1, num_players), dtype=np.float32)
    if state.terminated[0]:
        rewards[:] = -1.0
        if state.winner[0] >= 0:
            rewards[0, state.winner[0]] = 1.0
    return rewards


# --- the AEC env's own contract --------------------------------------------------------


def test_spaces_agents_and_metadata():
    raw = cluedo_v0.raw_env(num_players=5)
    assert raw.possible_agents == [f"player_{p}" for p in range(5)]
    assert raw.metadata["name"] == "cluedo_v0" and raw.metadata["is_parallelizable"] is False
    space = raw.observation_space("player_3")
    D = core.observation_size(raw.config)
    assert space["observation"].shape == (D,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (405,) and space["action_mask"].dtype == np.int8
    assert raw.action_space("player_0") == gymnasium.spaces.Discrete(405)
    seer = cluedo_v0.raw_env(observation_type="seer")
    assert seer.observation_space("player_0")["observation"].shape == (
        core.observation_size(seer.config, "seer"),
    )


def test_observation_is_the_cores_and_mask_only_for_the_decider():
    raw = cluedo_v0.raw_env(num_players=4)
    raw.reset(seed=11)
    rng = np.random.default_rng(0)
    saw_refutation = False
    for _ in range(150):
        state = raw.game_state
        if state.phase[0] == Phase.OVER:
            break
        decider = raw.possible_agents[state.current_player[0]]
        assert raw.agent_selection == decider
        if state.phase[0] == Phase.REFUTE:
            saw_refutation = True
            assert state.current_player[0] != state.turn_player[0]  # the refuter decides
        for p, agent in enumerate(raw.possible_agents):
            observation = raw.observe(agent)
            expected = np.minimum(core.observe(state, p)[0], 1.0)
            np.testing.assert_array_equal(observation["observation"], expected)
            if agent == decider:
                np.testing.assert_array_equal(observation["action_mask"], core.legal_action_mask(state)[0])
            else:
                assert not observation["action_mask"].any()
            np.testing.assert_array_equal(raw.infos[agent]["action_mask"], observation["action_mask"])
        mask = raw.infos[decider]["action_mask"].astype(bool)
        calm = mask.copy()
        calm[raw.layout.ACCUSE : raw.layout.ACCUSE + raw.layout.sizes["accuse"]] = False
        legal = np.flatnonzero(calm if calm.any() else mask)
        raw.step(int(rng.choice(legal)))
    assert saw_refutation


def test_reset_seed_is_the_core_game_and_replays():
    config = dict(num_players=4, max_turns=40)
    raw = cluedo_v0.raw_env(**config)
    raw.reset(seed=77)
    state = core.init(core.GameConfig(**config), [77])
    rng = np.random.default_rng(3)
    while raw.agents and not raw.game_state.done[0]:
        assert raw.game_state == state
        mask = raw.infos[raw.agent_selection]["action_mask"].astype(bool)
        calm = mask.copy()
        calm[raw.layout.ACCUSE : raw.layout.ACCUSE + raw.layout.sizes["accuse"]] = False
        action = int(rng.choice(np.flatnonzero(calm if calm.any() else mask)))
        raw.step(action)
        core.step(state, [action])
    assert raw.game_state == state

    # reset() without a seed continues from the generator of the last seeded reset.
    first, second = cluedo_v0.raw_env(**config), cluedo_v0.raw_env(**config)
    first.reset(seed=5)
    second.reset(seed=5)
    first.reset()
    second.reset()
    assert first.game_state == second.game_state
    assert first.game_state.seed[0] != 5


def test_the_seeded_example_of_the_docstring_plays_the_same_game_at_every_run():
    """reset(seed) seeded the deal but not the action spaces, so the example's sampled actions differed."""

    def example() -> list[int | None]:
        env = cluedo_v0.env(num_players=4, render_mode="ansi")
        env.reset(seed=42)
        actions = []
        for agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(observation["action_mask"])
            actions.append(action)
            env.step(action)
        env.close()
        return actions

    assert example() == example()
    raw = cluedo_v0.raw_env(num_players=3)
    raw.reset(seed=7)
    drawn = [raw.action_space(agent).sample() for agent in raw.possible_agents]
    assert drawn == [gymnasium.spaces.Discrete(raw.layout.num_actions, seed=7 + p).sample() for p in range(3)]


def test_deal_events_show_each_player_only_its_cards():
    raw = cluedo_v0.raw_env(num_players=3)
    raw.reset(seed=8)
    owner = raw.game_state._owner[0]
    for p, agent in enumerate(raw.possible_agents):
        events = raw.infos[agent]["events"]
        deal = events[events[:, ev.KIND] == ev.DEAL]
        mine = deal[deal[:, 1] == p]
        assert sorted(mine[:, 6].tolist()) == np.flatnonzero(owner == p).tolist()
        assert (deal[deal[:, 1] != p][:, 6] == -1).all()
        hand = raw.observe(agent)["observation"][: raw.config.cards.num_cards]
        np.testing.assert_array_equal(hand, owner == p)
        assert not events.flags.writeable


def scripted_game(raw, accuse_right_at_turn: int | None = None):
    """The first turn player accuses wrongly; the others take the first legal move, never suggest and end
    their turns, until a turn player accuses rightly at ``accuse_right_at_turn``. Returns the returns and
    the wrong accuser."""
    lay = raw.layout
    envelope = raw.game_state._envelope[0]
    S, W = raw.config.cards.num_suspects, raw.config.cards.num_weapons
    suspect, weapon, room = int(envelope[0]), int(envelope[1]) - S, int(envelope[2]) - S - W
    right = lay.encode("accuse", suspect, weapon, room)
    wrong = lay.encode("accuse", (suspect + 1) % S, weapon, room)
    returns = dict.fromkeys(raw.possible_agents, 0.0)
    accused_wrongly = None
    while raw.agents:
        agent = raw.agent_selection
        _, reward, termination, truncation, info = raw.last(observe=False)
        returns[agent] += reward
        if termination or truncation:
            raw.step(None)
            continue
        mask = info["action_mask"].astype(bool)
        phase, turn = raw.game_state.phase[0], raw.game_state.turn[0]
        if phase == Phase.TURN and accused_wrongly is None:
            accused_wrongly = agent
            raw.step(wrong)
            assert accused_wrongly in raw.agents and not raw.terminations[accused_wrongly]
        elif phase == Phase.TURN and accuse_right_at_turn is not None and turn >= accuse_right_at_turn:
            raw.step(right)
        elif mask[lay.END_TURN] or mask[lay.NO_SUGGESTION]:
            raw.step(lay.END_TURN if mask[lay.END_TURN] else lay.NO_SUGGESTION)
        else:
            raw.step(int(np.flatnonzero(mask)[0]))  # roll, the first reachable room or square
    return returns, accused_wrongly


@pytest.mark.parametrize("scheme", cluedo_v0.REWARD_SCHEMES)
def test_rewards_of_a_win_by_scheme(scheme):
    raw = cluedo_v0.raw_env(num_players=4, board="none", reward_scheme=scheme)
    raw.reset(seed=21)
    returns, wrong = scripted_game(raw, accuse_right_at_turn=3)
    winner = raw.possible_agents[raw.game_state.winner[0]]
    assert winner != wrong
    others = [a for a in raw.possible_agents if a != winner]
    assert returns[winner] == 1.0
    expected = {"win_loss": -1.0, "win_only": 0.0, "zero_sum": -1.0 / 3}[scheme]
    assert all(returns[a] == pytest.approx(expected) for a in others)


def test_eliminated_player_stays_live_and_truncation_ends_everyone():
    raw = cluedo_v0.raw_env(num_players=3, board="none", max_turns=9)
    raw.reset(seed=4)
    returns, wrong = scripted_game(raw)
    assert wrong is not None
    state = raw.game_state
    assert state.truncated[0] and not state.terminated[0]
    assert state.eliminated[0, raw.possible_agents.index(wrong)]
    assert returns == dict.fromkeys(raw.possible_agents, 0.0)


def test_eliminated_player_still_refutes():
    raw = cluedo_v0.raw_env(num_players=3, board="none", start_player="scarlet")
    raw.reset(seed=6)
    lay, owner = raw.layout, raw.game_state._owner[0]
    S, W, R = raw.config.cards.num_suspects, raw.config.cards.num_weapons, raw.config.cards.num_rooms
    envelope = raw.game_state._envelope[0]
    raw.step(lay.encode("accuse", (int(envelope[0]) + 1) % S, int(envelope[1]) - S, int(envelope[2]) - S - W))
    assert raw.game_state.eliminated[0, 0] and "player_0" in raw.agents
    assert raw.agent_selection == "player_1"
    # A suggestion that player 2 (asked first) cannot refute and player 0 can.
    room, suspect, weapon = next(
        (r, s, w)
        for r in range(R)
        for s in range(S)
        for w in range(W)
        if 2 not in owner[[s, S + w, S + W + r]] and 0 in owner[[s, S + w, S + W + r]]
    )
    raw.step(lay.encode("enter", room))
    raw.step(lay.encode("suggest", suspect, weapon))
    assert raw.agent_selection == "player_0" and raw.game_state.phase[0] == Phase.REFUTE
    assert not raw.terminations["player_0"] and raw.infos["player_0"]["action_mask"].any()
    raw.step(int(np.flatnonzero(raw.infos["player_0"]["action_mask"])[0]))
    assert raw.agent_selection == "player_1"


def test_illegal_actions():
    raw = cluedo_v0.raw_env(num_players=4)
    raw.reset(seed=1)
    illegal = int(np.flatnonzero(raw.infos[raw.agent_selection]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        raw.step(illegal)
    wrapped = cluedo_v0.env(num_players=4)
    wrapped.reset(seed=1)
    actor = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    rewards = {}
    for agent in wrapped.agent_iter():
        _, reward, termination, truncation, _ = wrapped.last()
        rewards[agent] = reward
        assert termination or truncation
        wrapped.step(None)
    assert rewards[actor] == -1 and all(r == 0 for a, r in rewards.items() if a != actor)


@pytest.mark.parametrize(
    "action", [3.0, True, "0", np.float64(0), [0], np.array([0, 1]), np.array(0.0), np.array(True), None]
)
def test_raw_env_refuses_actions_that_are_not_one_integer_with_a_type_error(action):
    raw = cluedo_v0.raw_env(num_players=4)
    raw.reset(seed=1)
    before = env_snapshot(raw)
    with pytest.raises(
        TypeError,
        match=r"action must be an int \(a numpy integer, or an array or tensor of one integer; .*\[0, 405\)",
    ):
        raw.step(action)
    assert env_snapshot(raw) == before
    raw.step(np.int64(np.flatnonzero(raw.infos[raw.agent_selection]["action_mask"])[0]))  # numpy ints do


def test_raw_env_stepping_before_reset_or_after_every_agent_is_done_says_what_to_do():
    raw = cluedo_v0.raw_env(num_players=3, max_turns=1)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        raw.step(0)
    raw.reset(seed=2)
    for _agent in raw.agent_iter():
        _, _, termination, truncation, info = raw.last()
        raw.step(None if termination or truncation else int(np.flatnonzero(info["action_mask"])[-1]))
    with pytest.raises(RuntimeError, match=r"every agent has stepped None: call reset\(\)"):
        raw.step(None)


def test_illegal_move_under_env_ends_the_core_game_and_every_mask():
    wrapped = cluedo_v0.env(num_players=4)
    wrapped.reset(seed=1)
    illegal = int(np.flatnonzero(wrapped.infos[wrapped.agent_selection]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    state = wrapped.unwrapped.game_state
    assert state.done[0] and state.current_player[0] == -1 and not core.legal_action_mask(state).any()
    for _agent in wrapped.agent_iter():
        observation, _, termination, truncation, info = wrapped.last()
        assert termination or truncation
        assert not observation["action_mask"].any() and not info["action_mask"].any()
        wrapped.step(None)


def test_env_wrappers_read_the_game_at_once_and_refuse_it_before_reset(monkeypatch):
    """PettingZoo's wrappers read the env below through ``__getattr__`` (a failed lookup first, about
    3 µs a read through three wrappers); ``env()``'s find the attributes every step reads at once,
    the raw env's own objects, and still refuse them before ``reset`` as ``OrderEnforcingWrapper`` does."""
    read_every_step = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos")
    wrapped = cluedo_v0.env(num_players=3)
    for name in read_every_step:
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(wrapped, name)
    forwarded = []
    forward = BaseWrapper.__getattr__
    monkeypatch.setattr(
        BaseWrapper, "__getattr__", lambda self, name: forwarded.append(name) or forward(self, name)
    )
    wrapped.reset(seed=4)
    rng = np.random.default_rng(4)
    for _agent in wrapped.agent_iter():
        observation, reward, termination, truncation, info = wrapped.last()
        raw = wrapped.unwrapped
        assert all(getattr(wrapped, name) is getattr(raw, name) for name in read_every_step)
        assert (
            reward == raw._cumulative_rewards[raw.agent_selection] and info is raw.infos[raw.agent_selection]
        )
        wrapped.step(
            None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        )
    assert not raw.agents and str(wrapped) == str(raw) == "cluedo_v0"
    assert not set(forwarded) & {*read_every_step, "_cumulative_rewards"}


def test_env_plays_as_pettingzoos_own_wrappers_do():
    """``env()``'s wrappers take short ways through PettingZoo's (attributes read at once, a legal
    Python int played without the wrappers' checks read again): the same games as PettingZoo's own
    three wrappers over the raw env, step for step, with Python and numpy integer actions, an
    illegal action ending one game and the dead agents' ``None`` steps."""
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    def pettingzoos() -> pettingzoo.AECEnv:
        raw = cluedo_v0.raw_env(num_players=4, max_turns=30)
        return OrderEnforcingWrapper(
            AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, illegal_reward=-1))
        )

    illegal_played = False
    for seed in range(4):
        ours, theirs = cluedo_v0.env(num_players=4, max_turns=30), pettingzoos()
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (PettingZoo warns of the illegal move)
            for agent, other in zip(ours.agent_iter(), theirs.agent_iter(), strict=True):
                assert agent == other
                mine, its = ours.last(), theirs.last()
                np.testing.assert_array_equal(mine[0]["observation"], its[0]["observation"])
                np.testing.assert_array_equal(mine[0]["action_mask"], its[0]["action_mask"])
                assert mine[1:4] == its[1:4] and ours.rewards == theirs.rewards
                if mine[2] or mine[3]:
                    action = None
                elif seed == 3 and steps == 40:
                    action = int(np.flatnonzero(mine[0]["action_mask"] == 0)[0])  # illegal: the game ends
                    illegal_played = True
                else:  # accusing now and then (a numpy int64, or a Python int)
                    legal = mine[0]["action_mask"].astype(bool)
                    calm = legal.copy()
                    calm[ours.unwrapped.layout.ACCUSE : -1] = False
                    action = rng.choice(np.flatnonzero(calm if calm.any() and rng.random() > 0.05 else legal))
                    action = int(action) if steps % 2 else action
                ours.step(action)
                theirs.step(action)
                steps += 1
        assert steps > 40 and not ours.agents and not theirs.agents
    assert illegal_played


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(num_players=7), ["num_players", "7"]),
        (dict(num_players=2), ["num_players", "duel"]),
        (dict(board="hex"), ["board", "'hex'", "classic"]),
        (dict(dice=3), ["dice", "3"]),
        (dict(edition="cluedo_2099"), ["edition", "cluedo_2099"]),
        (dict(max_turns=0), ["max_turns", "0"]),
        (dict(observation_type="oracle"), ["observation_type", "oracle", "seer"]),
        (dict(reward_scheme="points"), ["reward_scheme", "points", "zero_sum"]),
        (dict(render_mode="window"), ["render_mode", "window", "rgb_array"]),
    ],
)
def test_bad_arguments_raise_value_errors(kwargs, words):
    for make in (cluedo_v0.raw_env, cluedo_v0.env, CluedoSingleAgentEnv, CluedoVectorEnv):
        with pytest.raises(ValueError) as error:
            make(**kwargs)
        for word in words:
            assert word in str(error.value)


def test_pickling_raw_env():
    raw = cluedo_v0.raw_env(num_players=5, board="none", reward_scheme="zero_sum", render_mode="ansi")
    copy = pickle.loads(pickle.dumps(raw))
    assert copy.config == raw.config and copy.reward_scheme == "zero_sum" and copy.render_mode == "ansi"
    raw.reset(seed=9)
    copy.reset(seed=9)
    for agent in raw.possible_agents:
        np.testing.assert_array_equal(raw.observe(agent)["observation"], copy.observe(agent)["observation"])
    assert raw.render() == copy.render()


def env_snapshot(environment) -> tuple:
    """Everything an AEC env shows: selection, agents, rewards, flags, infos and every observation."""
    raw = environment.unwrapped
    observations = {
        agent: {key: value.tolist() for key, value in environment.observe(agent).items()}
        for agent in raw.agents
    }
    infos = {agent: {key: value.tolist() for key, value in info.items()} for agent, info in raw.infos.items()}
    return (
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        infos,
        observations,
        {name: array.tolist() for name, array in raw.game_state.arrays().items()},
    )


def play_both(original, copied, rng: np.random.Generator) -> None:
    """Play the same random actions in both envs to the end, comparing everything at every step."""
    for agent in original.agent_iter():
        assert copied.agent_selection == agent
        assert env_snapshot(copied) == env_snapshot(original)
        _, _, termination, truncation, info = original.last()
        mask = info["action_mask"]
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(mask)))
        original.step(action)
        copied.step(action)
    assert not copied.agents
    assert env_snapshot(copied) == env_snapshot(original)


@pytest.mark.parametrize("make", [cluedo_v0.raw_env, cluedo_v0.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copy_mid_game_continues_identically(make, how):
    """EzPickle rebuilt the env from its constructor: a copy had lost the game under way."""
    rng = np.random.default_rng(5)
    for game in range(3):
        original = make(num_players=3 + game, render_mode="ansi")
        original.reset(seed=100 + game)
        for _ in range(int(rng.integers(0, 60))):
            if original.terminations[original.agent_selection]:
                break
            original.step(
                int(rng.choice(np.flatnonzero(original.infos[original.agent_selection]["action_mask"])))
            )
        copied = pickle.loads(pickle.dumps(original)) if how == "pickle" else copy.deepcopy(original)
        assert copied.render() == original.render()
        mask = copied.infos[copied.agent_selection]["action_mask"]
        assert not mask.flags.writeable  # shared by the infos and the observation, as in the original
        play_both(original, copied, np.random.default_rng(game))
        original.reset(seed=7)  # and both go on alike after the game
        copied.reset(seed=7)
        assert env_snapshot(copied) == env_snapshot(original)


def test_documentation_tables_match_the_core():
    assert cluedo_v0.observation_table() in cluedo_v0.__doc__
    assert cluedo_v0.action_table() in cluedo_v0.__doc__
    config = core.GameConfig()
    assert f"({core.observation_size(config)},)" in cluedo_v0.__doc__
    assert f"[0, {core.ActionLayout(config).num_actions - 1}]" in cluedo_v0.__doc__
    for players in (2, 3, 4, 5, 6):
        size = core.observation_size(core.GameConfig(num_players=players, duel=players == 2))
        assert str(size) in cluedo_v0.__doc__
    seer = {name for name, _, _ in core.observation_pieces(config, "seer")}
    assert seer == set(cluedo_v0.PIECE_MEANINGS)
    assert set(core.RANGE_NAMES) == set(cluedo_v0.RANGE_MEANINGS)


def test_documented_observation_scales_are_the_cores():
    """The docstring's table is ``observation_table()``, whose scales are read off what observe does."""
    config = core.GameConfig()
    table = cluedo_v0.observation_table(config)
    assert table in cluedo_v0.__doc__
    last_row, last_col = map(int, re.search(r"\(row / (\d+), col / (\d+)\)", table).groups())
    most = float(re.search(r"into each room / (\d+)", table).group(1))
    pieces = {name: offset for name, _, offset in core.observation_pieces(config)}
    board = core.classic_board()
    R, N = board.num_rooms, board.num_squares
    state = core.init(config, [0]).take([0] * N)
    state.location[:, 0] = R + np.arange(N)  # Scarlet's pawn on every square in turn
    seen = core.observe(state, 0)
    rows, cols = np.array(board.squares).T
    np.testing.assert_allclose(seen[:, pieces["pawn_square"]], rows / last_row, rtol=1e-6)
    np.testing.assert_allclose(seen[:, pieces["pawn_square"] + 1], cols / last_col, rtol=1e-6)
    distance = seen[:, pieces["room_distance"] : pieces["room_distance"] + R] * most
    assert distance.max() == pytest.approx(most)
    np.testing.assert_allclose(distance, np.round(distance), atol=1e-4)  # whole moves


def test_reset_refuses_a_seed_outside_the_range_before_any_change():
    raw = cluedo_v0.raw_env(num_players=3)
    raw.reset(seed=4)
    before = env_snapshot(raw)
    for seed in (2**63, 2**64 - 1, -1):
        with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*63\) .*"):
            raw.reset(seed=seed)
        assert env_snapshot(raw) == before
    raw.reset(seed=2**63 - 1)
    assert raw.game_state.seed[0] == 2**63 - 1
    vector = CluedoVectorEnv(num_envs=2, num_players=3)
    vector.reset(seed=np.array(5))  # one seed in an array: the first game's, as an int would be
    assert vector.table.state.seed.tolist() == [5, 6]
    assert vector.np_random_seed == 5


def test_every_seed_of_a_list_seeds_the_games_dealt_later():
    """Two lists that differ past their first seed deal the later games differently."""
    later = []
    for seeds in ([7, 8], [7, 9], [7, 9], [2**32, 0], [0, 1]):
        vector = CluedoVectorEnv(num_envs=2, num_players=3, learner_seat="random")
        vector.reset(seed=seeds)
        assert vector.table.state.seed.tolist() == seeds and vector.np_random_seed == -1
        later.append(vector.np_random.integers(2**63, size=4).tolist())
    assert (
        later[0] != later[1] == later[2] and later[3] != later[4]
    )  # (SeedSequence joins a list's 32-bit words)


def test_the_wrapped_env_refuses_a_bool_action_in_one_line():
    wrapped = cluedo_v0.env(num_players=3)
    wrapped.reset(seed=1)
    with pytest.raises(TypeError, match=r"action must be an int .*not a bool.* got True"):
        wrapped.step(True)


def test_preset_keyword():
    environment = cluedo_v0.env(preset="de_2023", num_players=3)
    assert environment.unwrapped.config == core.GameConfig.preset("de_2023", num_players=3)
    assert cluedo_v0.raw_env().config == core.GameConfig()
    assert cluedo_v0.raw_env(preset="de_2023_duel").config.duel
    with pytest.raises(ValueError, match=r"preset must be one of .*got 'uk_1949'"):
        cluedo_v0.env(preset="uk_1949")
