"""The shipped learning agent by one name, ``learned``: make_agent, ``play --agents`` and the line-ups."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from hydra import compose, initialize_config_dir

torch = pytest.importorskip("torch")

from agents.arena import play_batch  # noqa: E402
from agents.ppo.learned import LEARNED_CHECKPOINT, LearnedAgent  # noqa: E402
from agents.ppo.model import load_model  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from cluedo_env import core  # noqa: E402
from experiments.common.settings import load_config  # noqa: E402
from experiments.common.shipped_configs import SHIPPED_CONFIGS  # noqa: E402
from experiments.play import main  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    torch.set_num_threads(1)  # the program sets torch's threads, not the agent


def test_make_agent_learned_is_the_shipped_learned_model_played_greedily():
    agent = make_agent("learned", seed=3)
    assert isinstance(agent, LearnedAgent) and agent.name == "learned"
    assert agent.checkpoint == str(LEARNED_CHECKPOINT) and LEARNED_CHECKPOINT.name == "cluedo_learned_4p.npz"
    assert agent.deterministic
    shipped = load_model("cluedo_learned_4p.pt")  # the torch model it is the export of
    weights = shipped.state_dict()
    assert agent.network.weights.keys() == weights.keys()
    for name, tensor in weights.items():
        assert np.array_equal(agent.network.weights[name], tensor.numpy()), name
    assert agent.network.settings.belief_features  # the model that reads the belief pieces
    with pytest.raises(ValueError):
        agent.check_config(core.GameConfig(num_players=3))  # the model plays 4 players only


def test_learned_plays_whole_games_and_most_likely_play_is_repeatable():
    config = core.GameConfig(num_players=4)
    seeds = np.arange(4)
    first, second = (
        play_batch(config, [make_agent("learned"), *(make_agent("random", seed=k) for k in (1, 2, 3))], seeds)
        for _ in range(2)
    )
    assert (first.decisions > 0).all()
    assert (first.winner == second.winner).all() and (first.turns == second.turns).all()


def test_play_accepts_agents_learned(capsys):
    main(["--agents", "learned,sat,sat,sat", "--games", "2", "--quiet", "--seed", "5"])
    output = capsys.readouterr().out
    assert "4 players, classic board: P0 learned, P1 sat, P2 sat, P3 sat" in output
    (line,) = [line for line in output.splitlines() if line.strip().startswith("outcomes:")]
    counts = ast.literal_eval(line.split("outcomes:", 1)[1].strip())
    assert sum(counts.values()) == 2


@pytest.mark.parametrize("lineup, field", [("learned_vs_belief", "belief"), ("learned_vs_sat", "sat")])
def test_the_learned_line_ups_seat_it_by_name(lineup, field):
    with initialize_config_dir(config_dir=str(SHIPPED_CONFIGS), version_base=None):
        settings = load_config(compose("tournament", overrides=[f"lineup={lineup}"]))
    assert settings.labels == ["learned", field]
    (learned,) = [spec for spec in settings.lineup.agents if spec.name == "learned"]
    agent = make_agent(learned.name, **learned.options)
    assert isinstance(agent, LearnedAgent) and agent.deterministic
    agent.check_config(settings.game.to_game_config())  # the line-up's rules are the model's
