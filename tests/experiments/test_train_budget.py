"""Training that fits its budget: one update thread, evaluations that stop once the learner is out."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hydra import compose, initialize_config_dir  # noqa: E402

from agents.arena import play_batch  # noqa: E402
from agents.baselines.random_agent import RandomAgent  # noqa: E402
from agents.ppo.agent import PPOAgent  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from cluedo_env import core  # noqa: E402
from experiments.learning.evaluation import evaluate  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

CLASSIC = core.GameConfig(num_players=4)


def test_the_shipped_config_updates_on_one_thread():
    # Two threads on a 2-core machine gain little when idle and collapse when anything else runs.
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = compose("train_ppo")
    assert cfg.update_threads is None and cfg.torch_threads == 1


def test_stopped_games_are_left_unfinished_where_stop_says():
    agents = [RandomAgent(seed=k, accuse="uniform" if k == 0 else "never") for k in range(4)]

    def first_agent_out(state, seats):
        return state.eliminated[np.arange(len(seats)), seats[:, 0]]

    result = play_batch(CLASSIC, agents, np.arange(16), rotation=np.arange(16) % 4, stop=first_agent_out)
    # The uniform player accuses (wrongly, almost surely) at once; the never-accusing ones cannot
    # end the game, which would otherwise run to max_turns.
    out = result.wrong_accusations[:, 0] > 0
    assert (result.stopped == (out & (result.winner < 0))).all()
    assert result.stopped.any() and not result.truncated.any()
    assert (result.turns[result.stopped] < 20).all()


def test_evaluation_counts_every_game_and_stops_lost_ones_early():
    torch.manual_seed(0)
    # A network that accuses at once (and so wrongly): its games against never-accusing players
    # would run to max_turns after its elimination; the evaluation stops them there.
    settings = NetworkSettings(hidden=[16], card_hidden=4, card_embedding=2, accuse_prior=6.0)
    network = ActorCritic(CLASSIC, settings)
    opponents = [OpponentSettings("random", {"accuse": "never"}, "random_never")]
    result = evaluate(network, CLASSIC, opponents, 12, deterministic=False)["random_never"]
    assert result["games"] == 12
    assert result["wins"] + result["wrong_accusations"] + result["truncated"] == 12  # nobody else can win
    assert result["wrong_accusations"] == 12 and result["truncated"] == 0
    assert result["mean_turns"] is None  # no game was played to its end


def test_a_model_warns_and_refuses_before_play():
    agent = PPOAgent()
    with pytest.warns(UserWarning, match="max_turns=200"):
        agent.check_config(core.GameConfig(num_players=4, max_turns=200))
    with pytest.raises(ValueError, match="num_players=5"):
        agent.check_config(core.GameConfig(num_players=5))


def test_help_lists_only_the_training_groups():
    done = subprocess.run(
        [sys.executable, "-m", "experiments.train_ppo", "--help"], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    groups = done.stdout.partition("== Configuration groups ==")[2].partition("== Config ==")[0]
    assert "game" in groups and "lineup" not in groups
