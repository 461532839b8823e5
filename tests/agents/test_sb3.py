"""Stable-Baselines3 out of the box: masks where MaskablePPO looks, the SB3 VecEnv, the SB3 agent, the recipe."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from hydra import compose, initialize_config_dir
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from agents.arena import play_batch
from agents.baselines.random_agent import RandomAgent
from agents.integrations.sb3_agent import SB3Agent
from agents.integrations.sb3_policy import CardPolicy, card_policy_kwargs
from agents.ppo.distributions import StructuredCategorical
from agents.ppo.network import NetworkSettings
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.gym_env import CluedoSingleAgentEnv, CluedoVectorEnv
from cluedo_env.sb3 import CluedoSB3VecEnv
from experiments.common.settings import load_config
from experiments.common.tournament_run import run_tournament

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SMALL_GAME = {"num_players": 3, "max_turns": 40}  # short games keep the tests quick


@pytest.fixture(autouse=True)
def sb3_logs_in_tmp_path(tmp_path, monkeypatch):
    """SB3 makes a log folder per ``learn()`` (``$SB3_LOGDIR``, else ``/tmp/SB3-<date>``): keep it in the test's folder."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3_logs"))


def never_accusing(count: int) -> list[RandomAgent]:
    return [RandomAgent(seed=k + 1, accuse="never") for k in range(count)]


def tiny_model(env, **kwargs) -> MaskablePPO:
    return MaskablePPO(
        "MultiInputPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu", **kwargs
    )


def weights(model: MaskablePPO) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.policy.parameters()]


def card_model(env, **kwargs) -> MaskablePPO:
    game = core.GameConfig(**SMALL_GAME)
    return MaskablePPO(
        CardPolicy,
        env,
        policy_kwargs=card_policy_kwargs(game),
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        **kwargs,
    )


def saved_model(tmp_path: Path, card: bool = False, **kwargs) -> Path:
    """An untrained MaskablePPO model of the small game (``card``: with ``CardPolicy``), saved as SB3 saves it."""
    env = CluedoSingleAgentEnv(opponents=never_accusing(2), **SMALL_GAME)
    path = tmp_path / "model.zip"
    (card_model if card else tiny_model)(env, **kwargs).save(path)
    return path


# -- the masks -----------------------------------------------------------------------------------------


def test_action_masks_are_the_observations_masks_and_empty_once_the_game_is_over():
    env = CluedoSingleAgentEnv(opponents=never_accusing(2), **SMALL_GAME)
    observation, _ = env.reset(seed=3)
    ended = False
    while not ended:
        mask = env.action_masks()
        assert mask.dtype == bool and np.array_equal(mask, observation["action_mask"].astype(bool))
        action = int(np.flatnonzero(mask)[0])
        observation, _, terminated, truncated, _ = env.step(action)
        ended = terminated or truncated
    assert not env.action_masks().any()

    vec = CluedoVectorEnv(num_envs=3, opponents=never_accusing(2), **SMALL_GAME)
    observations, _ = vec.reset(seed=3)
    assert np.array_equal(vec.action_masks(), observations["action_mask"].astype(bool))


def test_maskable_ppo_learns_on_the_single_env_without_a_wrapper_and_never_plays_an_illegal_action():
    # illegal_action="raise": one illegal action would stop learn() with a ValueError
    env = CluedoSingleAgentEnv(
        opponents=never_accusing(2), illegal_action="raise", elimination_reward=-1.0, **SMALL_GAME
    )
    assert is_masking_supported(env)
    model = tiny_model(env)
    before = weights(model)
    model.learn(320)
    assert model.num_timesteps >= 320
    assert any(not torch.equal(a, b) for a, b in zip(before, weights(model)))
    observation, _ = env.reset(seed=5)
    for _ in range(200):
        mask = get_action_masks(env)
        action, _ = model.predict(observation, action_masks=mask)
        assert mask[int(action)]
        observation, _, terminated, truncated, _ = env.step(action)  # as predict() gives it: an array
        if terminated or truncated:
            observation, _ = env.reset()


def test_maskable_ppo_learns_on_the_sb3_vec_env_and_never_plays_an_illegal_action():
    env = CluedoSB3VecEnv(num_envs=4, opponents=never_accusing(2), illegal_action="raise", **SMALL_GAME)
    assert is_masking_supported(env)
    model = tiny_model(env)
    before = weights(model)
    model.learn(256)
    assert model.num_timesteps >= 256 and env.vector_env.decisions > model.num_timesteps
    assert any(not torch.equal(a, b) for a, b in zip(before, weights(model)))


# -- the SB3 VecEnv --------------------------------------------------------------------------------------


def test_the_vec_env_autoresets_as_sb3_expects():
    env = CluedoSB3VecEnv(num_envs=4, opponents=never_accusing(2), **SMALL_GAME)
    env.seed(7)
    observations = env.reset()
    assert observations["observation"].shape[0] == 4
    assert np.stack(env.env_method("action_masks")).shape == (4, env.action_space.n)
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 4:
        masks = np.stack(env.env_method("action_masks"))
        assert np.array_equal(masks, observations["action_mask"].astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step_async(actions)
        observations, rewards, dones, infos = env.step_wait()
        for game in np.flatnonzero(dones):
            ended += 1
            info = infos[game]
            last = info["terminal_observation"]
            assert set(last) == {"observation", "action_mask"} and not last["action_mask"].any()
            # the next game is dealt at once: its learner has a decision to take
            assert observations["action_mask"][game].any()
            assert info["TimeLimit.truncated"] == (info["winner"] == -1 and info["turns"] == 40)
            # win_loss: +1 for the learner's win, -1 for another's, 0 when stopped at max_turns
            won, lost = (
                info["winner"] == info["learner_seat"],
                info["winner"] not in (-1, info["learner_seat"]),
            )
            assert rewards[game] == (1.0 if won else -1.0 if lost else 0.0)
        for game in np.flatnonzero(~dones):
            assert infos[game] == {} and rewards[game] == 0.0


def test_the_vec_env_refuses_to_set_an_attribute_per_game():
    env = CluedoSB3VecEnv(num_envs=2, opponents=never_accusing(2), **SMALL_GAME)
    with pytest.raises(AttributeError, match="share one CluedoVectorEnv"):
        env.set_attr("illegal_reward", -5.0)


# -- a wrong accusation with elimination_reward ------------------------------------------------------------


def wrong_accusation(env: CluedoSingleAgentEnv) -> int | None:
    """A legal accusation that names a card outside the envelope, if the learner may accuse now."""
    layout, state = env.layout, env.game_state
    lo, size = layout.offsets["accuse"], layout.sizes["accuse"]
    cards = core.rules_for(env.config).accuse_cards  # [accusation index] -> its three cards
    for index in np.flatnonzero(env.action_masks()[lo : lo + size]):
        if not np.array_equal(cards[index], state._envelope[0]):
            return lo + int(index)
    return None


def test_elimination_reward_ends_the_learners_episode_on_its_wrong_accusation():
    for elimination_reward, ends in ((-1.0, True), (None, False)):
        env = CluedoSingleAgentEnv(
            opponents=never_accusing(2), elimination_reward=elimination_reward, **SMALL_GAME
        )
        env.reset(seed=11)
        action = wrong_accusation(env)
        while action is None:
            # the last legal action: end_turn where the learner may accuse
            env.step(int(np.flatnonzero(env.action_masks())[-1]))
            action = wrong_accusation(env)
        _, reward, terminated, truncated, _ = env.step(action)
        assert env.game_state.eliminated[0, env.learner_seat]
        if ends:
            assert (reward, terminated, truncated) == (-1.0, True, False)
            assert not env.action_masks().any()
        else:  # the learner plays on (it refutes) until the game ends
            assert reward == 0.0 and not terminated


def test_elimination_reward_ends_a_wrong_accusers_episode_in_the_vector_env_and_deals_again():
    env = CluedoVectorEnv(num_envs=2, opponents=never_accusing(2), elimination_reward=-1.0, **SMALL_GAME)
    env.reset(seed=4)
    layout, cards = env.layout, core.rules_for(env.config).accuse_cards
    lo, size = layout.offsets["accuse"], layout.sizes["accuse"]
    for _ in range(500):
        masks, state = env.action_masks(), env.game_state
        not_accusing = masks.copy()
        not_accusing[:, lo : lo + size] = False
        actions = np.array([np.flatnonzero(m)[-1] for m in not_accusing])
        for game in range(2):  # game 0 accuses wrongly at its first chance; game 1 never accuses
            legal = np.flatnonzero(masks[game, lo : lo + size])
            wrong = [i for i in legal if not np.array_equal(cards[i], state._envelope[game])]
            if game == 0 and wrong:
                actions[0] = lo + wrong[0]
        observations, rewards, terminations, truncations, infos = env.step(actions)
        if terminations[0]:
            break
    else:
        pytest.fail("game 0 never had an accusation to make")
    assert rewards[0] == -1.0 and not truncations[0]
    assert not infos["final_obs"][0]["action_mask"].any()  # its learner has no decision left
    assert infos["final_info"]["winner"][0] == -1 and not infos["final_info"]["illegal_action"][0]
    assert observations["action_mask"][0].any()  # the next game is dealt, its learner to act
    assert not terminations[1] and rewards[1] == 0.0


# -- the card policy ---------------------------------------------------------------------------------------


def test_the_card_policy_is_the_project_networks_distribution_under_the_mask():
    env = CluedoSB3VecEnv(num_envs=6, opponents=never_accusing(2), **SMALL_GAME)
    policy = card_model(env).policy
    observations = env.reset()
    masks = env.action_masks()
    network = policy.mlp_extractor.network
    obs = torch.from_numpy(observations["observation"])
    with torch.no_grad():
        expected = StructuredCategorical(network(obs)[0], torch.from_numpy(masks), network.structure).probs
        tensors = {key: torch.from_numpy(value).float() for key, value in observations.items()}
        probs = policy.get_distribution(tensors, action_masks=masks).distribution.probs
        values = policy.predict_values(tensors)
    assert torch.allclose(probs, expected, atol=1e-6)
    assert (probs[torch.from_numpy(~masks)] == 0).all()
    assert torch.allclose(values[:, 0], network(obs)[1])


def test_maskable_ppo_learns_with_the_card_policy_and_never_plays_an_illegal_action():
    env = CluedoSB3VecEnv(num_envs=4, opponents=never_accusing(2), illegal_action="raise", **SMALL_GAME)
    model = card_model(env)
    before = weights(model)
    model.learn(256)
    assert model.num_timesteps >= 256
    assert any(not torch.equal(a, b) for a, b in zip(before, weights(model)))


def test_the_card_policy_refuses_belief_features_the_env_does_not_compute():
    env = CluedoSB3VecEnv(num_envs=2, opponents=never_accusing(2), **SMALL_GAME)
    kwargs = card_policy_kwargs(core.GameConfig(**SMALL_GAME), NetworkSettings(belief_features=True))
    with pytest.raises(ValueError, match="belief_features"):
        MaskablePPO(CardPolicy, env, policy_kwargs=kwargs, device="cpu")


def test_the_card_policy_refuses_another_games_spaces_and_the_settings_it_fixes():
    env = CluedoSB3VecEnv(num_envs=2, opponents=never_accusing(2), **SMALL_GAME)
    four_players = card_policy_kwargs(core.GameConfig(num_players=4))
    with pytest.raises(ValueError, match="needs observations of"):
        MaskablePPO(CardPolicy, env, policy_kwargs=four_players, device="cpu")
    three_players = card_policy_kwargs(core.GameConfig(**SMALL_GAME))
    with pytest.raises(ValueError, match=r"sets \['net_arch'\] itself"):
        MaskablePPO(CardPolicy, env, policy_kwargs={**three_players, "net_arch": [64]}, device="cpu")


# -- the SB3 agent ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("card", [False, True], ids=["MultiInputPolicy", "CardPolicy"])
def test_the_sb3_agent_plays_as_the_model_predicts(tmp_path, card):
    path = saved_model(tmp_path, card=card)
    model = MaskablePPO.load(path, device="cpu")  # our own file: SB3's loader is fine here
    env = CluedoSingleAgentEnv(opponents=never_accusing(2), **SMALL_GAME)
    agent = SB3Agent(path=path, deterministic=True)
    config = env.config
    observation, _ = env.reset(seed=2)
    agent.reset(config, np.array([env.learner_seat]))
    for _ in range(30):
        mask = env.action_masks()
        expected, _ = model.predict(observation, deterministic=True, action_masks=mask)
        chosen = agent.act(env.game_state, np.array([0]), mask[None])
        assert chosen.tolist() == [int(expected)]
        observation, _, terminated, truncated, _ = env.step(int(expected))
        if terminated or truncated:
            break


def test_the_sb3_agent_plays_only_legal_actions_in_the_arena(tmp_path):
    agent = make_agent("sb3", seed=4, path=str(saved_model(tmp_path)))
    config = core.GameConfig(**SMALL_GAME)
    # the arena checks every action against the mask (an illegal one raises)
    result = play_batch(config, [agent, *never_accusing(2)], np.arange(6), rotation=np.arange(6) % 3)
    assert result.decisions.min() > 0


@pytest.mark.parametrize("card", [False, True], ids=["MultiInputPolicy", "CardPolicy"])
def test_the_sb3_agent_loads_and_plays_leaving_torchs_random_stream_as_it_was(tmp_path, card):
    path = saved_model(tmp_path, card=card)
    torch.manual_seed(0)
    alone = torch.rand(8)
    torch.manual_seed(0)
    agent = make_agent("sb3", seed=4, path=str(path))
    for config in (core.GameConfig(**SMALL_GAME), core.GameConfig(**{**SMALL_GAME, "max_turns": 30})):
        play_batch(config, [agent, *never_accusing(2)], np.arange(3), rotation=np.arange(3))
    assert torch.equal(torch.rand(8), alone)
    with zipfile.ZipFile(path) as archive, archive.open("policy.pth") as file:
        stored = torch.load(file, map_location="cpu", weights_only=True)
    loaded = agent.policy.state_dict()
    assert loaded.keys() == stored.keys()
    assert all(torch.equal(loaded[name], tensor) for name, tensor in stored.items())


def test_the_sb3_agent_plays_a_tournament(tmp_path):
    path = saved_model(tmp_path)
    overrides = [
        f"lineup.agents=[{{name: sb3, options: {{path: '{path}'}}}}, {{name: random, options: {{accuse: never}}}}]",
        "game.num_players=3",
        "game.max_turns=40",
        "games_per_lineup=3",
        "workers=0",
        "progress=false",
        "plots=false",
    ]
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        settings = load_config(compose("tournament", overrides=overrides))
    summary = run_tournament(settings, tmp_path / "out")
    games = (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    assert summary["games"] == len(games) > 0
    assert all("sb3" in json.loads(line)["seats"] for line in games)


def test_the_sb3_agent_never_unpickles_python_objects_from_the_zip(tmp_path):
    path = saved_model(tmp_path, policy_kwargs={"activation_fn": torch.nn.Tanh})
    with pytest.raises(ValueError, match="policy_kwargs holds Python objects"):
        SB3Agent(path=path).reset(core.GameConfig(**SMALL_GAME), np.zeros(1, dtype=np.int64))
    (tmp_path / "not_a_model.zip").write_text("hello")
    with pytest.raises(ValueError, match="not a Stable-Baselines3 model zip"):
        SB3Agent(path=tmp_path / "not_a_model.zip").reset(core.GameConfig(**SMALL_GAME), np.zeros(1))
    with pytest.raises(ValueError, match="needs path="):
        SB3Agent()


@pytest.mark.parametrize("damage", ["objects", "data list", "data not utf-8"])
def test_a_damaged_or_crafted_zip_is_refused_in_one_message(tmp_path, damage):
    """They raised an UnpicklingError or an AttributeError through a tournament."""
    import zipfile

    genuine = zipfile.ZipFile(saved_model(tmp_path))
    members = {name: genuine.read(name) for name in genuine.namelist()}
    if damage == "objects":
        weights = io.BytesIO()
        torch.save({"x": ValueError("an object")}, weights)
        members["policy.pth"] = weights.getvalue()
    else:
        members["data"] = b"[1, 2]" if damage == "data list" else b"\xff\xfe"
    path = tmp_path / "crafted.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    with pytest.raises(ValueError, match=r"crafted.zip(:| is not a)") as error:
        SB3Agent(path=path).reset(core.GameConfig(**SMALL_GAME), np.zeros(1, dtype=np.int64))
    assert "weights_only=False" not in str(error.value)


def test_the_sb3_agent_refuses_a_policy_class_it_does_not_know(tmp_path):
    class CardPolicyElsewhere(CardPolicy):  # same name, another module: could run any code
        pass

    path = tmp_path / "model.zip"
    env = CluedoSingleAgentEnv(opponents=never_accusing(2), **SMALL_GAME)
    kwargs = card_policy_kwargs(core.GameConfig(**SMALL_GAME))
    MaskablePPO(CardPolicyElsewhere, env, policy_kwargs=kwargs, n_steps=32, device="cpu").save(path)
    with pytest.raises(ValueError, match="the policy must be"):
        SB3Agent(path=path).reset(core.GameConfig(**SMALL_GAME), np.zeros(1, dtype=np.int64))


@pytest.mark.parametrize("card", [False, True], ids=["MultiInputPolicy", "CardPolicy"])
def test_the_sb3_agent_refuses_a_model_of_another_game(tmp_path, card):
    agent = SB3Agent(path=saved_model(tmp_path, card=card))  # 3 players
    with pytest.raises(ValueError, match="does not fit the game"):
        agent.reset(core.GameConfig(num_players=4), np.zeros(1, dtype=np.int64))


# -- the recipe ---------------------------------------------------------------------------------------------


def test_the_recipe_trains_evaluates_and_saves_a_model_the_agent_plays(tmp_path):
    """... and records the code that trained it (``run.json``, as ``train_ppo``'s)."""
    from cluedo_env import __version__
    from experiments.common.code_revision import git_revision
    from experiments.train_sb3 import train

    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = compose(
            "train_sb3",
            overrides=[
                "game.num_players=3",
                "game.max_turns=40",
                "total_timesteps=1500",
                "num_envs=4",
                "n_steps=32",
                "batch_size=64",
                "n_epochs=1",
                "eval_every=1000",
                "eval_games=3",
                "final_eval_games=6",
                "progress=false",
                f"runs_dir={tmp_path}",
            ],
        )
    from omegaconf import OmegaConf

    run_dir = train(OmegaConf.to_object(cfg))
    lines = [json.loads(line) for line in (run_dir / "evaluations.json").read_text().splitlines()]
    assert [line["final"] for line in lines] == [False, True]
    assert 1000 <= lines[0]["agent_steps"] < 1500 <= lines[1]["agent_steps"]
    final = lines[1]["results"]["random_never"]
    assert final["games"] == 6 and final["win_low"] <= final["win_rate"] <= final["win_high"]
    assert (run_dir / "model.zip").is_file() and any(run_dir.rglob("events.out.tfevents.*"))
    SB3Agent(path=run_dir / "model.zip").reset(core.GameConfig(**SMALL_GAME), np.zeros(1, dtype=np.int64))
    (session,) = json.loads((run_dir / "run.json").read_text())["sessions"]
    assert (session["version"], session["git"], session["trained_before"]) == (
        __version__,
        git_revision(),
        {"agent_steps": 0},
    )


def test_knowledge_shaping_adds_up_to_the_cards_seen_and_leaves_the_game_return_to_the_monitor():
    from stable_baselines3.common.vec_env import VecMonitor

    from experiments.learning.shaping import knowledge_potential
    from experiments.train_sb3 import KnowledgeShaping

    game = core.GameConfig(**SMALL_GAME)
    env = CluedoSB3VecEnv(num_envs=8, opponents=never_accusing(2), elimination_reward=-1.0, config=game)
    shaped_env = KnowledgeShaping(VecMonitor(env), game, coef=1.0, gamma=1.0)
    env.seed(3)
    observations = shaped_env.reset()
    start = knowledge_potential(observations["observation"], game, 1.0)
    shaped = np.zeros(8)
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 40:
        masks = shaped_env.env_method("action_masks")
        actions = [rng.choice(np.flatnonzero(mask)) for mask in masks]
        observations, rewards, dones, infos = shaped_env.step(np.array(actions))
        shaped += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            # gamma = 1: the shaping telescopes to phi(end) - phi(start), phi(end) = 0 unless truncated
            end = knowledge_potential(info["terminal_observation"]["observation"][None], game, 1.0)[0]
            end = end if info["TimeLimit.truncated"] else 0.0
            assert shaped[i] == pytest.approx(info["episode"]["r"] + end - start[i], abs=1e-4)
            shaped[i] = 0.0
            start[i] = knowledge_potential(observations["observation"][i : i + 1], game, 1.0)[0]
            episodes += 1
