"""The single-agent Gymnasium env: Gymnasium's checker, deterministic episodes, pickling, illegal actions,
Gymnasium's own vector envs around it, its arguments; the registries of both libraries."""

from __future__ import annotations

import pickle
import re
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env

from agents.baselines.random_agent import RandomAgent
from cluedo_env import core
from cluedo_env.gym_env import GYM_ID, CluedoSingleAgentEnv, CluedoVectorEnv, register_envs


def test_the_gymnasium_envs_take_the_preset_keyword_too():
    """They took only ``config=``: ``preset=`` was an unknown GameConfig field."""
    rules = core.GameConfig.preset("de_2023", num_players=3)
    assert CluedoSingleAgentEnv(preset="de_2023", num_players=3).config == rules
    assert CluedoVectorEnv(num_envs=2, preset="de_2023", num_players=3).config == rules
    register_envs()
    made = gymnasium.make(GYM_ID, preset="de_2023_duel", disable_env_checker=True)
    assert made.unwrapped.config == core.GameConfig.preset("de_2023_duel")
    with pytest.raises(ValueError, match=r"preset must be one of .*got 'uk_1949'"):
        CluedoSingleAgentEnv(preset="uk_1949")
    with pytest.raises(ValueError, match=r"a preset or a config, not both"):
        CluedoSingleAgentEnv(preset="de_2023", config=core.GameConfig())


def test_registries():
    environment = pettingzoo.make("aec", "cluedo/cluedo-v0", num_players=3)
    environment.reset(seed=0)
    assert environment.unwrapped.config.num_players == 3
    register_envs()
    register_envs()  # idempotent
    single = gymnasium.make(GYM_ID, num_players=3, disable_env_checker=True)
    single.reset(seed=0)
    assert isinstance(single.unwrapped, CluedoSingleAgentEnv)
    vector = gymnasium.make_vec(GYM_ID, num_envs=3, num_players=3)
    assert isinstance(vector.unwrapped, CluedoVectorEnv) and vector.num_envs == 3


# --- Gymnasium: the single-agent env -------------------------------------------------------


@pytest.mark.parametrize("board", ["classic", "none"])
def test_gymnasium_check_env(board):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the note that an env made without gymnasium.make has no spec
        check_env(CluedoSingleAgentEnv(board=board, num_players=4))
        check_env(CluedoSingleAgentEnv(board=board, num_players=2, duel=True, learner_seat=1))
    register_envs()
    made = gymnasium.make(GYM_ID, board=board, max_turns=50)  # with a spec: every render mode is checked too
    check_env(made.unwrapped)


def play_single(environment, seed: int, learner_seed: int, episodes: int, knows_envelope=()):
    """Episodes with a random legal learner; returns every transition. In the episodes numbered
    (from 0) in ``knows_envelope`` it accuses the envelope, read from the hidden state, as soon as
    it may."""
    rng = np.random.default_rng(learner_seed)
    layout = environment.layout
    accusations = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    transitions = []
    observation, info = environment.reset(seed=seed)
    for episode in range(episodes):
        while True:
            state = environment.game_state
            assert state.current_player[0] == info["learner_seat"]
            assert environment.observation_space.contains(observation)
            mask = observation["action_mask"].astype(bool)
            calm = mask.copy()
            calm[accusations] = False
            if calm.any() and rng.random() > 0.05:
                mask = calm
            action = int(rng.choice(np.flatnonzero(mask)))
            if episode in knows_envelope:
                S, W = state.config.cards.num_suspects, state.config.cards.num_weapons
                suspect, weapon, room = state._envelope[0].tolist()
                solution = layout.encode("accuse", suspect, weapon - S, room - S - W)
                action = solution if observation["action_mask"][solution] else action
            observation, reward, terminated, truncated, info = environment.step(action)
            transitions.append((observation, reward, terminated, truncated, info))
            if terminated or truncated:
                assert not observation["action_mask"].any()
                break
            assert reward == 0.0
        observation, info = environment.reset()
    return transitions


def test_single_agent_env_plays_deterministic_episodes():
    kwargs = dict(
        num_players=4, max_turns=40, opponents=[RandomAgent(seed=1), "notepad", RandomAgent(seed=3)]
    )
    play = dict(seed=5, learner_seed=0, episodes=6, knows_envelope={2})  # episode 2: the learner wins
    first = play_single(CluedoSingleAgentEnv(**kwargs), **play)
    kwargs["opponents"] = [RandomAgent(seed=1), "notepad", RandomAgent(seed=3)]
    second = play_single(CluedoSingleAgentEnv(**kwargs), **play)
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        assert gymnasium.utils.env_checker.data_equivalence(a, b)
    finals = [t for t in first if t[2] or t[3]]
    assert len(finals) == 6
    outcomes = []  # the learner's, episode by episode
    for _, reward, terminated, _, info in finals:
        winner = info["winner"]
        if terminated and winner >= 0:
            outcomes.append("won" if winner == info["learner_seat"] else "lost")
            assert reward == (1.0 if winner == info["learner_seat"] else -1.0)
        else:
            outcomes.append("ended")
            if not terminated:
                assert reward == 0.0
    assert outcomes[2] == "won" and "lost" in outcomes  # both branches of a game won were checked
    # The learner sees the opponents' moves in between, through its private event view.
    assert any((t[4]["events"][:, 1] != t[4]["learner_seat"]).any() for t in first)


def test_single_agent_env_pickles_mid_game():
    environment = CluedoSingleAgentEnv(num_players=3, learner_seat=2)
    observation, _ = environment.reset(seed=13)
    for _ in range(5):
        calm = observation["action_mask"].copy()
        calm[environment.layout.ACCUSE : environment.layout.ACCUSE + environment.layout.sizes["accuse"]] = 0
        observation, *_ = environment.step(int(np.flatnonzero(calm)[0]))
    copy = pickle.loads(pickle.dumps(environment))
    for _ in range(5):
        calm = observation["action_mask"].copy()
        calm[environment.layout.ACCUSE : environment.layout.ACCUSE + environment.layout.sizes["accuse"]] = 0
        action = int(np.flatnonzero(calm)[-1])
        observation, *rest = environment.step(action)
        copied, *copied_rest = copy.step(action)
        assert gymnasium.utils.env_checker.data_equivalence((observation, *rest), (copied, *copied_rest))


def test_single_agent_env_illegal_action_modes():
    environment = CluedoSingleAgentEnv(num_players=4)
    observation, _ = environment.reset(seed=2)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = environment.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not environment.action_masks().any() and not info["action_mask"].any()  # the episode is over
    assert len(info["events"]) == 0  # nothing happened since the last decision
    with pytest.raises(RuntimeError, match="reset"):
        environment.step(0)
    strict = CluedoSingleAgentEnv(num_players=4, illegal_action="raise")
    observation, _ = strict.reset(seed=2)
    for wrong in (illegal, np.array([illegal])):
        with pytest.raises(ValueError, match="illegal action"):
            strict.step(wrong)
    for wrong in (True, np.float64(0), np.array([0, 1])):  # not one integer: in either mode
        with pytest.raises(TypeError, match="action must be an int"):
            strict.step(wrong)
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    strict.step(np.array(legal))  # one integer in an array, as SB3's predict() returns it


def test_a_legal_action_in_a_tensor_or_a_one_element_array_is_played_as_its_integer():
    """A policy's ``dist.sample()`` (a 0-d tensor) or an array of one action was read as an illegal
    action: the episode ended with reward -1. It is played as the integer it holds, as
    ``core.step`` and the vector env read arrays and tensors of actions."""
    torch = pytest.importorskip("torch")
    plain = CluedoSingleAgentEnv(learner_seat=0)
    observation, _ = plain.reset(seed=3)
    action = int(np.flatnonzero(observation["action_mask"])[0])
    expected = plain.step(action)
    for given in (torch.tensor(action), torch.tensor([action]), np.array([action]), np.uint64(action)):
        environment = CluedoSingleAgentEnv(learner_seat=0)
        environment.reset(seed=3)
        played = environment.step(given)
        assert played[1:3] == (0.0, False) and not played[4]["illegal_action"]
        assert gymnasium.utils.env_checker.data_equivalence(played, expected)


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
def test_an_action_that_is_not_one_integer_is_refused_naming_it_not_played_as_illegal(illegal_action):
    """A float, a bool or several values ended the episode as an illegal action, with no error."""
    environment = CluedoSingleAgentEnv(learner_seat=0, illegal_action=illegal_action)
    observation, _ = environment.reset(seed=3)
    action = int(np.flatnonzero(observation["action_mask"])[0])
    for wrong in (float(action), np.float32(action), True, np.array([action, action]), "72", None):
        with pytest.raises(TypeError, match=r"action must be an int .*got " + re.escape(repr(wrong))):
            environment.step(wrong)
    _, reward, terminated, _, info = environment.step(action)  # the episode goes on
    assert (reward, terminated, info["illegal_action"]) == (0.0, False, False)


def test_gymnasiums_sync_vector_env_plays_a_tensor_of_legal_actions():
    """Gymnasium's SyncVectorEnv hands each env one element of the tensor (a 0-d tensor): every
    game ended with reward -1 as an illegal action."""
    torch = pytest.importorskip("torch")
    register_envs()
    envs = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", events_in_info=False)
    try:
        observation, _ = envs.reset(seed=3)
        actions = [int(np.flatnonzero(mask)[0]) for mask in observation["action_mask"]]
        _, rewards, terminated, _, info = envs.step(torch.tensor(actions))
        assert rewards.tolist() == [0.0, 0.0] and not terminated.any() and not info["illegal_action"].any()
    finally:
        envs.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasiums_own_vector_envs_run_the_single_env_without_its_events(mode):
    """Gymnasium's SyncVectorEnv and AsyncVectorEnv stack each info value into one array; the events'
    rows vary in number, so they are left out there (``events_in_info=False``), and the games run on."""
    register_envs()
    envs = gymnasium.make_vec(
        GYM_ID, num_envs=3, vectorization_mode=mode, num_players=3, events_in_info=False
    )
    try:
        observation, info = envs.reset(seed=4)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(60):
            # (an ended game's mask is empty: Gymnasium's next-step autoreset ignores that action)
            actions = [
                rng.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in observation["action_mask"]
            ]
            observation, _, terminated, truncated, info = envs.step(np.array(actions))
            assert "events" not in info and info["learner_seat"].shape == (3,)
            ended += int((terminated | truncated).sum())
        assert ended > 0  # episodes ended and the vector env reset them
    finally:
        envs.close()
    assert "events" in CluedoSingleAgentEnv(num_players=3).reset(seed=4)[1]  # the default keeps them
    with pytest.raises(ValueError, match="events_in_info must be True or False, got 'no'"):
        CluedoSingleAgentEnv(events_in_info="no")
    with pytest.raises(ValueError, match="CluedoVectorEnv takes no events_in_info: its info holds no events"):
        CluedoVectorEnv(2, events_in_info=False)  # (make_vec's default mode builds this env)


def test_an_illegal_action_ends_a_vector_env_episode_as_the_single_envs():
    """The final observation holds no legal action (the vector env kept the mask of the state)."""
    environment = CluedoVectorEnv(2, num_players=3)
    observations, _ = environment.reset(seed=0)
    illegal = np.argmin(observations["action_mask"], axis=1)
    _, rewards, terminations, _, infos = environment.step(illegal)
    assert (
        rewards.tolist() == [-1.0, -1.0]
        and terminations.all()
        and infos["final_info"]["illegal_action"].all()
    )
    assert not any(final["action_mask"].any() for final in infos["final_obs"])


def test_rewards_must_be_finite_numbers():
    for name, value in (
        ("illegal_reward", float("nan")),
        ("elimination_reward", float("inf")),
        ("illegal_reward", None),
    ):
        for make in (CluedoSingleAgentEnv, lambda **kw: CluedoVectorEnv(2, **kw)):
            with pytest.raises(ValueError, match=f"{name} must be a finite number, got {value!r}"):
                make(**{name: value})


def test_gym_env_arguments():
    for seat in (3, True, -1):
        with pytest.raises(ValueError, match="learner_seat"):
            CluedoSingleAgentEnv(num_players=3, learner_seat=seat)
    with pytest.raises(ValueError, match="opponents"):
        CluedoSingleAgentEnv(num_players=3, opponents=[RandomAgent()])
    with pytest.raises(ValueError, match="illegal_action"):
        CluedoSingleAgentEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="unknown GameConfig field"):
        CluedoSingleAgentEnv(num_playerz=3)
    with pytest.raises(ValueError, match="num_envs"):
        CluedoVectorEnv(num_envs=0)
    environment = CluedoSingleAgentEnv(config=core.GameConfig(num_players=5), board="none")
    assert environment.config == core.GameConfig(num_players=5, board="none")
