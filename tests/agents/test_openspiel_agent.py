"""The OpenSpiel agent: OpenSpiel's bots (uniform random, Python IS-MCTS with the exact resampler)
playing the project's games by the agent interface, from worlds that keep the seat's view."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from agents.arena import play_batch
from agents.registry import make_agent
from agents.testing import check_agent
from cluedo_env import core
from cluedo_env.core import events as ev


@pytest.mark.parametrize("options", [{"bot": "random"}, {"bot": "ismcts", "simulations": 4}])
def test_the_agent_keeps_the_interface(options):
    check_agent(
        "openspiel", core.GameConfig(num_players=3, board="none"), options=options, games=2, max_turns=8
    )


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
