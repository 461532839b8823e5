"""Warm start (agents.ppo.warm_start): a learner with belief features begins as the trained network it
starts from, plays as it does, and the belief columns are the only weights it does not take over."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ppo.features import BeliefFeatures, learner_observation  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from agents.ppo.warm_start import warm_start  # noqa: E402
from cluedo_env import core  # noqa: E402
from tests.agents.test_ppo_features import CONFIGS, calm_play  # noqa: E402


def trained_network(config: core.GameConfig, seed: int = 0, **settings) -> ActorCritic:
    """A network with every weight random (nothing zero, so that a column left out would show)."""
    torch.manual_seed(seed)
    network = ActorCritic(config, NetworkSettings(hidden=[16, 16], card_hidden=8, **settings))
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.normal_(0.0, 0.3)
    return network


def observations(config: core.GameConfig, steps: int = 40) -> np.ndarray:
    """Learner observations with belief features (seat 0) from games of calm random play."""
    games = np.arange(6)
    features = BeliefFeatures(config, np.zeros(len(games), dtype=np.int64))
    rows = []
    for _step, state, _logs in calm_play(config, len(games), steps):
        features.observe(state.events)
        if _step % 8 == 0:
            rows.append(learner_observation(state, np.zeros(len(games), dtype=np.int64), games, features))
    return np.concatenate(rows)


@pytest.mark.parametrize("config", CONFIGS, ids=["4p", "duel"])
def test_warm_started_network_plays_as_the_trained_one_until_the_beliefs_know_more(config):
    """Same values everywhere; same policy wherever exact counting leaves possible exactly the unseen
    cards; where it has ruled out more, the priors count fewer candidates (``ActorCritic.candidates``)."""
    trained = trained_network(config)
    learner = warm_start(trained_network(config, seed=1, belief_features=True), trained)
    obs = torch.as_tensor(observations(config, steps=160))
    core_obs = obs[:, : core.observation_size(config)]
    with torch.no_grad():
        (parts, value), (trained_parts, trained_value) = learner(obs), trained(core_obs)
        possible = learner.candidates(obs, torch.zeros(len(obs), 3))[0]
        unseen = trained.candidates(core_obs, torch.zeros(len(obs), 3))[0]
    torch.testing.assert_close(value, trained_value)
    same = (possible == unseen).all(dim=1)
    assert same.sum() >= 10 and (~same).sum() >= 10  # both kinds of position are played
    torch.testing.assert_close(parts.top[same], trained_parts.top[same])
    for mine, theirs in zip(parts.suggest + parts.accuse, trained_parts.suggest + trained_parts.accuse):
        torch.testing.assert_close(mine[same], theirs[same])
    assert not torch.allclose(parts.top[~same], trained_parts.top[~same])
    # ... and the belief pieces do reach it: with the new columns' weights set, the values move.
    with torch.no_grad():
        learner.card_encoder[0].weight.normal_(0.0, 0.3)
        learner.trunk[0].weight.normal_(0.0, 0.3)
        moved = learner(obs)[1]
    assert not torch.allclose(moved, trained_value)


def test_a_column_left_out_is_caught():
    """Control: a warm start that left one trained column behind would not play as the trained one."""
    config = CONFIGS[0]
    trained = trained_network(config)
    learner = warm_start(trained_network(config, seed=1, belief_features=True), trained)
    with torch.no_grad():
        learner.card_encoder[0].weight[:, 0] = 0.0
    obs = torch.as_tensor(observations(config, steps=16))
    with torch.no_grad():
        assert not torch.allclose(learner(obs)[1], trained(obs[:, : core.observation_size(config)])[1])


def test_other_differences_are_refused():
    config = CONFIGS[0]
    with pytest.raises(ValueError, match="card_hidden"):
        warm_start(
            ActorCritic(config, NetworkSettings(card_hidden=16)), ActorCritic(config, NetworkSettings())
        )
    with pytest.raises(ValueError, match="plays"):
        warm_start(ActorCritic(CONFIGS[1]), ActorCritic(config))
    with pytest.raises(ValueError, match="does not read"):  # a trained network reading columns this one lacks
        warm_start(
            ActorCritic(config, NetworkSettings()), ActorCritic(config, NetworkSettings(belief_features=True))
        )
