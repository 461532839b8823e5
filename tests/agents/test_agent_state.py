"""An agent's state_dict holds all it remembers of its games: a restored agent plays on identically.

Checkpoints of training runs save the opponents' memory with ``Agent.state_dict``; an agent
that forgot a note there (say, which corner rooms it looked at in the duel) would play on
differently after a resume. Each agent here is stopped part-way through a batch of games,
restored into a fresh object, and both copies must then choose the same actions to the end.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from agents.registry import make_agent
from cluedo_env import core

CONFIGS = {
    "classic 4p": core.GameConfig(num_players=4, max_turns=60),
    "duel": core.GameConfig(num_players=2, duel=True, max_turns=60),
}


@pytest.mark.parametrize("name", ["random", "notepad", "sat"])
@pytest.mark.parametrize("label", list(CONFIGS))
def test_a_restored_agent_plays_on_identically(name, label):
    config = CONFIGS[label]
    P, B = config.num_players, 6
    state = core.init(config, np.arange(B) + 11)
    seats = np.arange(P)[None, :].repeat(B, axis=0)  # agent k sits at seat k
    agents = [make_agent(name, seed=k) for k in range(P)]
    for k, agent in enumerate(agents):
        agent.reset(config, seats[:, k], seed=k)

    def tell(team):
        for k, agent in enumerate(team):
            agent.observe(state, core.private_view(state.events, seats[:, k, None]))

    def actions_of(team):
        mask = core.legal_action_mask(state)
        actions = np.zeros(B, dtype=np.int64)
        for k, agent in enumerate(team):
            games = np.flatnonzero(~state.done & (state.current_player == k))
            if len(games):
                actions[games] = agent.act(state, games, mask[games])
        return actions

    tell(agents)
    for _ in range(40):  # part-way: every game under way, some suggestions and refutations made
        core.step(state, actions_of(agents))
        tell(agents)
    restored = [
        make_agent(name, seed=k) for k in range(P)
    ]  # fresh objects: rng and notes from the state only
    for k, agent in enumerate(restored):
        agent.reset(config, seats[:, k], seed=k)
        agent.load_state_dict(config, copy.deepcopy(agents[k].state_dict()))
    steps = 0
    while not state.done.all():
        original, again = actions_of(agents), actions_of(restored)
        np.testing.assert_array_equal(again, original, err_msg=f"{name} diverged {steps} steps after restore")
        core.step(state, original)
        tell(agents)
        tell(restored)
        steps += 1
    assert steps > 0
