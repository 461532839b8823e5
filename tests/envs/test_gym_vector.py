"""The batched Gymnasium vector env: masks, same-step autoreset, determinism, render frames, and the
last wrong accusation's reward in the vector and the single env."""

from __future__ import annotations

import dataclasses

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from agents.baselines.notepad_agent import NotepadAgent
from agents.baselines.random_agent import RandomAgent
from cluedo_env import cluedo_v0, core
from cluedo_env.core.state import Phase
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv


def test_vector_env_with_stateful_opponents_forgets_redealt_games():
    """Notepad and SAT opponents keep per-game notes; autoreset tells them through reset_games."""
    from agents.reasoners.sat_agent import SatAgent

    environment = CluedoVectorEnv(
        num_envs=6, num_players=3, max_turns=25, opponents=[NotepadAgent(), SatAgent()]
    )
    history = run_vector(environment, steps=150, seed=4)
    assert len(history) == 151
    sat = environment.table.players.players[1] if hasattr(environment, "table") else None
    if sat is not None:  # each game's SAT notepad holds exactly one hand record since its last deal
        for game in range(6):
            hands = [r for r in sat.notepads[game].records if type(r).__name__ == "OwnHand"]
            assert len(hands) == 1


def run_vector(environment, steps: int, seed: int):
    rng = np.random.default_rng(seed)
    lay = environment.layout
    accusations = slice(lay.ACCUSE, lay.ACCUSE + lay.sizes["accuse"])
    observations, _ = environment.reset(seed=seed)
    history = [observations]
    for _ in range(steps):
        mask = observations["action_mask"].astype(bool)
        calm = mask.copy()
        calm[:, accusations] = False
        use = np.where((calm.any(axis=1) & (rng.random(len(mask)) > 0.1))[:, None], calm, mask)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in use])
        result = environment.step(actions)
        history.append((*result, environment.game_state.turn.copy()))
        observations = result[0]
    return history


def test_single_and_pettingzoo_env_masks_are_the_cores_and_stay_as_handed_out():
    """Both envs read the legal actions the core's fused step wrote (not worked out again): at every
    step they are the core's, and an observation handed out earlier keeps its mask when the next
    step writes the new legal actions."""
    single = CluedoSingleAgentEnv(num_players=4, max_turns=40)
    raw = cluedo_v0.raw_env(num_players=4, max_turns=40)
    rng = np.random.default_rng(5)
    for seed in range(3):
        observation, _ = single.reset(seed=seed)
        raw.reset(seed=seed)
        ended = False
        while not ended:
            legal = core.legal_action_mask(single.game_state)[0]
            np.testing.assert_array_equal(observation["action_mask"].astype(bool), legal)
            np.testing.assert_array_equal(single.action_masks(), legal)
            held, kept = observation["action_mask"], observation["action_mask"].copy()
            observation, _, terminated, truncated, _ = single.step(int(rng.choice(np.flatnonzero(legal))))
            np.testing.assert_array_equal(held, kept)
            ended = terminated or truncated
        for _agent in raw.agent_iter():
            observation, _, terminated, truncated, _ = raw.last()
            if terminated or truncated:
                raw.step(None)
                continue
            legal = core.legal_action_mask(raw.game_state)[0]
            np.testing.assert_array_equal(observation["action_mask"].astype(bool), legal)
            held, kept = observation["action_mask"], observation["action_mask"].copy()
            raw.step(int(rng.choice(np.flatnonzero(legal))))
            np.testing.assert_array_equal(held, kept)


@pytest.mark.parametrize("elimination_reward", [None, -1.0])
def test_vector_env_masks_are_the_cores_legal_actions_at_every_step(elimination_reward):
    """The env reads the legal actions the table's fused steps and deals keep (not worked out again):
    after every step they are the core's, in the observations, in ``action_masks`` and in the final
    observations of the games that ended."""
    environment = CluedoVectorEnv(
        num_envs=6, num_players=4, max_turns=30, elimination_reward=elimination_reward
    )
    rng = np.random.default_rng(3)
    observations, _ = environment.reset(seed=11)
    ended_games = 0
    for _ in range(250):
        legal = core.legal_action_mask(environment.game_state)
        np.testing.assert_array_equal(observations["action_mask"].astype(bool), legal)
        np.testing.assert_array_equal(environment.action_masks(), legal)
        # accusing now and then, so that games end by wins, wrong accusations and the turn limit
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        observations, _, terminations, truncations, infos = environment.step(actions)
        for game in np.flatnonzero(terminations | truncations):
            ended_games += 1
            assert not infos["final_obs"][game]["action_mask"].any()  # the learner decides no more there
    assert ended_games >= 6


def test_vector_env_same_step_autoreset():
    B = 8
    environment = CluedoVectorEnv(num_envs=B, num_players=4, max_turns=25)
    assert environment.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert environment.single_action_space == gymnasium.spaces.Discrete(405)
    observations, _ = environment.reset(seed=100)
    np.testing.assert_array_equal(environment.game_state.seed, 100 + np.arange(B))
    history = run_vector(environment, 300, seed=100)
    episodes = 0
    for observations, rewards, terminations, truncations, infos, turns in history[1:]:
        assert observations["observation"].shape == (B, core.observation_size(environment.config))
        assert observations["observation"].dtype == np.float32
        assert observations["action_mask"].shape == (B, 405) and observations["action_mask"].dtype == np.int8
        assert environment.observation_space.contains(observations)
        assert observations["action_mask"].any(axis=1).all(), "every game waits for its learner"
        assert rewards.shape == (B,) and terminations.dtype == bool and truncations.dtype == bool
        ended = terminations | truncations
        assert not (terminations & truncations).any()
        assert not rewards[~ended].any()
        if not ended.any():
            assert infos == {}
            continue
        episodes += int(ended.sum())
        np.testing.assert_array_equal(infos["_final_obs"], ended)
        final_info = infos["final_info"]
        for game in np.flatnonzero(ended):
            final = infos["final_obs"][game]
            assert environment.single_observation_space.contains(final)
            assert not final["action_mask"].any()
            seat, winner = final_info["learner_seat"][game], final_info["winner"][game]
            if truncations[game]:
                assert rewards[game] == 0 and final_info["turns"][game] == 25
            elif winner >= 0:
                assert rewards[game] == (1.0 if winner == seat else -1.0)
            else:
                assert rewards[game] == -1.0
            # Same step: the observation is already the next game's, at the learner's first decision.
            assert turns[game] < 4
        assert (infos["final_obs"][~ended] == None).all()  # noqa: E711 - object array comparison
    assert episodes >= 8, "episodes end and restart"


def test_vector_env_is_deterministic_and_illegal_actions_end_one_game():
    first = run_vector(CluedoVectorEnv(num_envs=4, num_players=3, board="none", max_turns=15), 60, seed=7)
    second = run_vector(CluedoVectorEnv(num_envs=4, num_players=3, board="none", max_turns=15), 60, seed=7)
    for a, b in zip(first, second, strict=True):
        assert gymnasium.utils.env_checker.data_equivalence(a, b)

    environment = CluedoVectorEnv(num_envs=3, num_players=4, learner_seat=1)
    observations, _ = environment.reset(seed=3)
    np.testing.assert_array_equal(environment.learner_seats, [1, 1, 1])
    actions = np.array([int(np.flatnonzero(row)[0]) for row in observations["action_mask"]])
    actions[1] = int(np.flatnonzero(observations["action_mask"][1] == 0)[0])
    observations, rewards, terminations, _, infos = environment.step(actions)
    assert terminations.tolist() == [False, True, False] and rewards.tolist() == [0.0, -1.0, 0.0]
    assert infos["final_info"]["illegal_action"].tolist() == [False, True, False]
    assert environment.game_state.seed[1] not in (3, 4, 5)  # game 1 was dealt again
    strict = CluedoVectorEnv(num_envs=2, illegal_action="raise")
    observations, _ = strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal actions"):
        strict.step(np.array([int(np.flatnonzero(observations["action_mask"][0] == 0)[0]), 0]))


def test_vector_env_render_frames():
    environment = CluedoVectorEnv(num_envs=2, num_players=3, render_mode="ansi")
    with pytest.warns(UserWarning, match="before reset"):
        assert environment.render() is None  # as the single env (it raised AttributeError)
    environment.reset(seed=1)
    frames = environment.render()
    assert len(frames) == 2 and all(isinstance(f, str) for f in frames)


def test_every_game_config_field_is_a_keyword_of_the_env_and_a_row_of_its_variants_table():
    variants = cluedo_v0.__doc__.partition("## Variants")[2]
    for field in dataclasses.fields(core.GameConfig):
        if not field.init:
            continue
        assert f"| `{field.name}`" in variants, field.name
        value = getattr(core.GameConfig.preset("de_2023_duel"), field.name)
        assert (
            getattr(cluedo_v0.raw_env(preset="de_2023_duel", **{field.name: value}).config, field.name)
            == value
        )
    assert cluedo_v0.raw_env(num_players=3, max_turns=None).config == core.GameConfig(num_players=3)
    with pytest.raises(ValueError, match=r"unknown keyword argument\(s\) \['num_playerz'\]"):
        cluedo_v0.raw_env(num_playerz=None)


def last_player_accuses_wrongly(reset, step, seed: int):
    """Play a game (learner at seat 0; opponents who accuse at their first chance, wrongly almost
    always) until the opponents are all out, then accuse wrongly; the reset's env and that step's
    result (None if an opponent guessed right)."""
    environment, observation = reset(seed)
    layout, cards = environment.layout, environment.config.cards
    accusations = np.arange(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    rng = np.random.default_rng(seed)
    while True:
        state = environment.game_state
        if state.phase[0] == Phase.OVER:
            return None
        legal = np.flatnonzero(observation["action_mask"].reshape(-1, layout.num_actions)[0])
        if state.eliminated[0, 1:].all() and np.isin(accusations, legal).any():
            s, w, r = state._envelope[0].tolist()
            right = layout.encode(
                "accuse", s, w - cards.num_suspects, r - cards.num_suspects - cards.num_weapons
            )
            return step(int(next(a for a in legal if a in accusations and a != right)))
        calm = np.setdiff1d(legal, accusations)
        observation = step(int(rng.choice(calm if len(calm) else legal)))[0]


def test_a_wrong_accusation_on_the_last_turn_ends_the_episode_alike_in_the_vector_and_the_single_env():
    """With ``elimination_reward``, the learner's wrong accusation ends its episode: terminated, not
    truncated, even when that step also reaches ``max_turns`` (the vector env said both)."""
    options = {"learner_seat": 0, "max_turns": 4, "elimination_reward": -1.0}
    layout = core.ActionLayout(core.GameConfig(max_turns=4))
    accusations = np.arange(layout.offsets["accuse"], layout.offsets["accuse"] + layout.sizes["accuse"])
    on_the_last_turn = 0
    for seed in range(12):
        single, vector = CluedoSingleAgentEnv(**options), CluedoVectorEnv(1, **options)
        observation, _ = single.reset(seed=seed)
        vector.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            state = single.game_state
            legal = np.flatnonzero(observation["action_mask"])
            wrong = np.setdiff1d(
                np.intersect1d(legal, accusations), [layout.encode("accuse", *_envelope(state))]
            )
            calm = np.setdiff1d(legal, accusations)
            last_turn = state.turn[0] == 3
            action = int(rng.choice(wrong if last_turn and len(wrong) else calm if len(calm) else legal))
            observation, reward, terminated, truncated, _ = single.step(action)
            _, rewards, terminations, truncations, _ = vector.step(np.array([action]))
            if terminated or truncated or terminations[0] or truncations[0]:
                assert (terminated, truncated, reward) == (terminations[0], truncations[0], rewards[0]), seed
                on_the_last_turn += bool(terminated and single.game_state.truncated[0])
                break
    assert on_the_last_turn >= 1, "no wrong accusation on the turn that reached max_turns: try more seeds"


def _envelope(state) -> tuple[int, int, int]:
    """The accusation's indices of game 0's envelope (suspect, weapon, room)."""
    cards = state.config.cards
    s, w, r = state._envelope[0].tolist()
    return s, w - cards.num_suspects, r - cards.num_suspects - cards.num_weapons


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_the_last_player_in_accusing_wrongly_gets_the_elimination_reward(vector):
    """Its wrong accusation ends the game too (everybody is out), and still pays ``elimination_reward``
    (it paid the reward scheme's 0 under ``win_only``)."""
    opponents = [RandomAgent(seed=k, accuse="rarely", accuse_probability=1.0) for k in range(3)]
    options = {
        "opponents": opponents,
        "reward_scheme": "win_only",
        "elimination_reward": -0.5,
        "learner_seat": 0,
    }
    environment = CluedoVectorEnv(1, **options) if vector else CluedoSingleAgentEnv(**options)

    def reset(seed):
        return environment, environment.reset(seed=seed)[0]

    def step(action):
        result = environment.step(np.array([action]) if vector else action)
        return result if not vector else (result[0], float(result[1][0]), bool(result[2][0]), *result[3:])

    ended = [last_player_accuses_wrongly(reset, step, seed) for seed in range(6)]
    ended = [result for result in ended if result is not None]
    assert len(ended) >= 3
    assert all(reward == -0.5 and terminated for _, reward, terminated, *_ in ended)
