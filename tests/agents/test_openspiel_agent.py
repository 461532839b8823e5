"""The OpenSpiel agent: OpenSpiel's bots (uniform random, Python IS-MCTS with the exact resampler)
playing the project's games by the agent interface, from worlds that keep the seat's view."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from agents.arena import play_batch
from agents.registry import make_agent
from agents.testing import check_agent
from cluedo_env import core
from cluedo_env.core import events as ev
from tests.conftest import ROOT


@pytest.mark.parametrize("options", [{"bot": "random"}, {"bot": "ismcts", "simulations": 4}])
def test_the_agent_keeps_the_interface(options):
    check_agent(
        "openspiel", core.GameConfig(num_players=3, board="none"), options=options, games=3, max_turns=8
    )


@pytest.mark.parametrize(("num_players", "seed"), [(4, 3), (6, 0)])
def test_the_check_passes_the_agent_where_it_is_out_of_a_game_early(num_players, seed):
    """It accuses at once (the guide): out of a game after a few forced decisions, it makes its choices in
    the check's other games (these seeds' one-game round trip reached no choice from decision 5 on)."""
    config = core.GameConfig(num_players=num_players)
    check_agent("openspiel", config, options={"bot": "ismcts", "simulations": 4}, seed=seed)


@pytest.mark.parametrize("bot", ["ismcts", "random"])
def test_auto_refute_games_are_refused_before_any_world_is_drawn(bot):
    """With auto_refute whether a refuter decided tells every player whether it held one named card; the
    posterior does not count it, so a drawn world could contradict what the seat saw."""
    config = core.GameConfig(num_players=4, auto_refute=True)
    said = rf"openspiel_{bot} needs auto_refute=False, got auto_refute=True: whether a refuter decided"
    agent = make_agent("openspiel", seed=0, bot=bot, simulations=4)
    with pytest.raises(ValueError, match=said):
        agent.check_config(config)
    with pytest.raises(ValueError, match=said):
        play_batch(config, [agent, *(make_agent("random", seed=k) for k in range(3))], seeds=[0])
    agent.reset(config.replace(auto_refute=False), np.array([0]))  # the default rules it plays
    with pytest.raises(ValueError, match=said):
        make_agent("openspiel", seed=0, bot=bot).load_state_dict(config, agent.state_dict())


def test_a_tournament_of_auto_refute_games_stops_before_any_game(tmp_path):
    command = [
        sys.executable, "-m", "experiments.tournament", "game=classic", "game.auto_refute=true",
        "lineup=openspiel_ismcts_vs_sat", "lineup.agents.0.options.simulations=4", "games_per_lineup=1",
        "workers=1", "progress=false", "plots=false", f"output_dir={tmp_path / 'run'}",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(
        "config error: lineup.agents[0] (openspiel) cannot play these rules: openspiel_ismcts needs "
        "auto_refute=False, got auto_refute=True"
    ), line
    assert not (tmp_path / "run").exists()  # no game was played, nothing written


def test_ismcts_plays_whole_games_against_sat_agents():
    config = core.GameConfig(num_players=4, max_turns=60)
    agents = [make_agent("openspiel", seed=1, bot="ismcts", simulations=8)]
    agents += [make_agent("sat", seed=k, move_discount=0.05) for k in range(2, 5)]
    result = play_batch(config, agents, seeds=[0, 0, 1, 1], rotation=[0, 1, 2, 3])
    assert (result.winner >= -1).all() and result.decisions.min() > 0


def test_a_searched_world_looks_to_the_seat_as_the_true_game():
    """The world the bot searches is drawn from the seat's posterior: to the seat it is the game."""
    config = core.GameConfig(num_players=3, max_turns=60)
    agent = make_agent("openspiel", seed=3, bot="random")
    worlds = []

    class Watcher(type(agent)):
        def decide(self, state, game, legal):
            world = self.world(state, game)
            seat = int(self.seats[game])
            assert np.array_equal(world.observation_tensor(seat), core.observe(state, seat, games=[game])[0])
            assert world.legal_actions() == np.flatnonzero(legal).tolist()
            for q in range(config.num_players):  # every player's information is its own in the world
                view = world.private_events(q)
                dealt = view[(view[:, ev.KIND] == ev.DEAL) & (view[:, ev.PLAYER] == q), ev.CARD]
                assert sorted(dealt.tolist()) == np.flatnonzero(world.core._owner[0] == q).tolist()
            worlds.append(not np.array_equal(world.core._owner[0], state._owner[game]))
            return super().decide(state, game, legal)

    watcher = Watcher(bot="random", seed=3)
    others = [make_agent("sat", seed=k) for k in range(2)]
    play_batch(config, [watcher, *others], seeds=[5, 6])
    assert len(worlds) > 5 and any(worlds)  # the worlds differ from the truth, yet look the same


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match=r"bot must be one of \['ismcts', 'random'\], got 'mcts'"):
        make_agent("openspiel", bot="mcts")
    with pytest.raises(ValueError, match="simulations must be an int >= 1, got 0"):
        make_agent("openspiel", simulations=0)
