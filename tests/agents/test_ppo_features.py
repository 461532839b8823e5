"""Belief features (agents.ppo.features): they say what exact counting and the SAT notepad say, reveal
nothing the seat cannot see, and reach the network, the PPO agent and the training games."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.arena import play_batch  # noqa: E402
from agents.baselines.random_agent import sample_legal  # noqa: E402
from agents.ppo.agent import PPOAgent  # noqa: E402
from agents.ppo.features import (  # noqa: E402
    BELIEF_PIECES,
    BeliefFeatures,
    belief_pieces,
    learner_observation_size,
    learner_pieces,
)
from agents.ppo.games import LearnerGames, OpponentKind  # noqa: E402
from agents.ppo.model import model_record, network_from_record  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from cluedo_env import core  # noqa: E402
from cluedo_env.core import events as ev  # noqa: E402
from cluedo_env.inference import HELD, NOT_HELD  # noqa: E402
from cluedo_env.inference.beliefs import beliefs_from_events  # noqa: E402
from cluedo_env.inference.from_events import deduce_from_events  # noqa: E402

SMALL = NetworkSettings(hidden=[16, 16], card_hidden=8, belief_features=True)
CONFIGS = [core.GameConfig(num_players=4), core.GameConfig(num_players=2, duel=True)]


def calm_play(config: core.GameConfig, games: int, steps: int, seed: int = 0):
    """Random play without accusations; yields the state after each step and each game's full event log."""
    rng = np.random.default_rng(seed)
    state = core.init(config, np.arange(games) + 100 * seed)
    logs = [[] for _ in range(games)]
    layout = core.rules_for(config).layout
    for step in range(steps + 1):
        if step:
            mask = core.legal_action_mask(state)
            mask[state.done] = True
            calm = mask.copy()
            calm[:, layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
            calm[~calm.any(axis=1)] = mask[~calm.any(axis=1)]
            core.step(state, sample_legal(rng, calm))
        for game in range(games):
            rows = state.events[game]
            logs[game].extend(rows[rows[:, ev.KIND] >= 0])
        yield step, state, logs


def pieces_of(config: core.GameConfig, row: np.ndarray) -> dict[str, np.ndarray]:
    base = core.observation_size(config)
    return {
        name: row[offset - base : offset - base + int(np.prod(shape))].reshape(shape)
        for name, shape, offset in belief_pieces(config)
    }


@pytest.mark.parametrize("config", CONFIGS, ids=["4p", "duel"])
def test_features_are_the_exact_marginals_and_the_notepads_facts(config):
    P = config.num_players
    seats = np.arange(4) % P
    tracker = BeliefFeatures(config, seats)
    checked = 0
    for step, state, logs in calm_play(config, games=4, steps=160):
        tracker.observe(state.events)
        if step % 9:
            continue
        features = tracker.features(np.arange(4))
        for game, seat in enumerate(seats.tolist()):
            log = np.array(logs[game])
            knowledge = deduce_from_events(config, seat, log)  # the SAT library, from scratch
            posterior = beliefs_from_events(config, seat, log)
            setup = knowledge.setup
            players = (seat + np.arange(P)) % P
            got = pieces_of(config, features[game])
            if state.phase[game] != core.Phase.REFUTE:  # (beliefs_from_events ignores pending passes)
                probability = posterior.probabilities()
                np.testing.assert_allclose(got["belief_envelope"], probability[:, setup.envelope], atol=1e-6)
                np.testing.assert_allclose(got["belief_players"], probability[:, players].T, atol=1e-6)
            certain = np.where(knowledge.status == HELD, 1, np.where(knowledge.status == NOT_HELD, -1, 0))
            assert np.array_equal(got["certain_envelope"], certain[:, setup.envelope])
            assert np.array_equal(got["certain_players"], certain[:, players].T)
            face_down = certain[:, setup.table] if setup.table is not None else 0 * certain[:, 0]
            assert np.array_equal(got["certain_face_down"], face_down)
            # Index 0 of the player axis is the seat itself: its hand, certain.
            assert np.array_equal(got["certain_players"][0] == 1, state._owner[game] == seat)
            checked += 1
    assert checked >= 4 * 15


def test_pieces_follow_the_core_observation_and_are_named():
    config = CONFIGS[0]
    pieces = learner_pieces(config, True)
    assert pieces[: len(core.observation_pieces(config))] == list(core.observation_pieces(config))
    assert [name for name, _, _ in pieces[-len(BELIEF_PIECES) :]] == list(BELIEF_PIECES)
    C, P = config.cards.num_cards, config.num_players
    assert learner_observation_size(config, True) == core.observation_size(config) + C * (2 * P + 4)
    assert learner_observation_size(config, False) == core.observation_size(config)


# -- privacy: the pattern of tests/envs/test_privacy.py, on the event history ---------------------------


class LeakyFeatures(BeliefFeatures):
    """A deliberately broken tracker: reads the events unfiltered (every card shown to anybody)."""

    def view(self, events: np.ndarray) -> np.ndarray:
        return events.copy()


def scrambled_events(events: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The events with every card the seat may not see replaced by another card (its view is unchanged)."""
    hidden = core.private_view(events, seats[:, None])[..., ev.CARD] != events[..., ev.CARD]
    other = events.copy()
    other[..., ev.CARD] = np.where(hidden, rng.integers(0, 21, size=hidden.shape), events[..., ev.CARD])
    return other


def feature_violations(tracker_type: type[BeliefFeatures], config: core.GameConfig) -> list[str]:
    seats = np.arange(6) % config.num_players
    honest, twin = tracker_type(config, seats), tracker_type(config, seats)
    rng = np.random.default_rng(3)
    violations = []
    for step, state, _logs in calm_play(config, games=6, steps=120, seed=1):
        honest.observe(state.events)
        try:
            twin.observe(scrambled_events(state.events, seats, rng))
            if step % 5 == 0 and not np.array_equal(
                honest.features(np.arange(6)), twin.features(np.arange(6))
            ):
                violations.append(f"features at step {step}")
        except ValueError as error:  # the leaky twin may read records no deal fits
            violations.append(f"step {step}: {error}")
            break
    return violations


@pytest.mark.parametrize("config", CONFIGS, ids=["4p", "duel"])
def test_features_ignore_what_the_seat_cannot_see(config):
    assert feature_violations(BeliefFeatures, config) == []


def test_a_leak_in_the_features_is_caught():
    assert feature_violations(LeakyFeatures, CONFIGS[0])


# -- the network, the agent and the training games ------------------------------------------------


def test_network_reads_the_features_and_default_networks_are_unchanged():
    config = CONFIGS[0]
    plain = ActorCritic(config, NetworkSettings(hidden=[16, 16], card_hidden=8))
    assert plain.obs_size == core.observation_size(config)
    torch.manual_seed(0)
    network = ActorCritic(config, SMALL)
    assert network.obs_size == learner_observation_size(config, True)
    obs = torch.zeros(3, network.obs_size)
    _parts, value = network(obs)
    _shape, offset = network.pieces["belief_players"]
    changed = obs.clone()
    changed[:, offset + 2] = 0.7  # player 0's chance of holding card 2
    assert not torch.allclose(network(changed)[1], value)
    rebuilt = network_from_record(model_record(network))
    assert rebuilt.settings.belief_features and torch.equal(rebuilt(obs)[1], value)
    record = model_record(plain)
    del record["network"]["belief_features"]  # a model file of before the option
    assert not network_from_record(record).settings.belief_features


def test_ppo_agent_with_features_plays_and_continues_from_its_state():
    config = core.GameConfig(num_players=4, max_turns=16)
    torch.manual_seed(0)
    network = ActorCritic(config, SMALL)
    agent = PPOAgent.from_network(network, seed=1)
    assert agent.observes
    result = play_batch(config, [agent, *(PPOAgent.from_network(network, seed=k) for k in (2, 3, 4))], [7, 8])
    assert len(result.winner) == 2 and agent.beliefs is not None
    # Mid-game: a copy from the plain state sees the same.
    agent.reset(config, np.array([0, 1]))
    for _step, state, _logs in calm_play(config, games=2, steps=40):
        agent.observe(state, core.private_view(state.events, agent.seats[:, None]))
    copy = PPOAgent.from_network(network, seed=1)
    copy.load_state_dict(config, agent.state_dict())
    games = np.arange(2)
    assert np.array_equal(agent.observation(state, games), copy.observation(state, games))
    assert not PPOAgent.from_network(ActorCritic(config, NetworkSettings(hidden=[8]))).observes


def test_learner_games_append_the_learners_features_and_save_its_records():
    config = core.GameConfig(num_players=4, max_turns=12)
    games = LearnerGames(config, num_games=6, seed=2, belief_features=True)
    games.set_pool([OpponentKind("random", "random", {"accuse": "never"})], [1.0])
    games.start()
    rng = np.random.default_rng(0)
    redealt = 0
    for _ in range(60):
        ids, obs, mask = games.learner_turn()
        assert obs.shape[1] == learner_observation_size(config, True)
        core_obs = core.observe(games.state, games.learner_seat[ids], ids)
        assert np.array_equal(obs[:, : core_obs.shape[1]], core_obs)
        assert np.array_equal(obs[:, core_obs.shape[1] :], games.beliefs.features(ids))
        _reward, over = games.step(sample_legal(rng, mask))
        redealt += int(over.sum())
    assert redealt > 0
    saved = games.state_dict()
    resumed = LearnerGames(config, num_games=6, seed=2, belief_features=True)
    resumed.load_state_dict(saved)
    assert np.array_equal(resumed.observe_learner(), games.observe_learner())
    with pytest.raises(ValueError, match="belief features"):
        LearnerGames(config, num_games=6, seed=2).load_state_dict(saved)
