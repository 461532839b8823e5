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


def dealt(name: str, config: core.GameConfig, seats: list[int]):
    """Agent ``name`` (seed 0) at ``seats`` of games of ``config``, after seeing the deal."""
    agent = make_agent(name, seed=0)
    agent.reset(config, np.array(seats))
    state = core.init(config, np.arange(len(seats)))
    agent.observe(state, core.private_view(state.events, np.array(seats)[:, None]))
    return agent


def deck(suspects: int, weapons: int, rooms: int) -> core.GameConfig:
    """Games of 3 players with a deck of these numbers of cards, without the board."""
    cards = [[f"{kind}{k}" for k in range(n)] for kind, n in (("S", suspects), ("W", weapons), ("R", rooms))]
    edition = core.Edition(f"{suspects}{weapons}{rooms}", *cards, [0] * weapons)
    return core.GameConfig(edition=edition, board="none", num_players=3)


@pytest.mark.parametrize("name", ["random", "sat", "belief"])
def test_a_state_of_other_games_is_refused_saying_so(name):
    """A random agent's state at seat 5 of 6 players was taken for games of 3 players (seats [5, 5]); the sat
    and belief agents refused it only through an error of deeper code, and a state of another deck with
    a misleading one ("a suggestion must name one suspect, one weapon and one room")."""
    six, three = core.GameConfig(num_players=6), core.GameConfig(num_players=3)
    saved = dealt(name, six, [5, 5]).state_dict()
    with pytest.raises(ValueError, match=r"^the state is of games of 6 players, 6 suspects, 6 weapons and 9 "
                       r"rooms, the config's games have 3 players, 6 suspects, 6 weapons and 9 rooms$"):  # fmt: skip
        make_agent(name, seed=0).load_state_dict(three, saved)
    older = {key: value for key, value in saved.items() if key != "sizes"}  # saved before states had sizes
    with pytest.raises(
        ValueError, match=r"^state seats must be players of the config, in \[0, 3\), got \[5, 5\]$"
    ):
        make_agent(name, seed=0).load_state_dict(three, older)
    make_agent(name, seed=0).load_state_dict(six, older)  # of these games: loaded as before

    saved = dealt(name, deck(6, 4, 6), [1]).state_dict()
    with pytest.raises(ValueError, match=r"^the state is of games of 3 players, 6 suspects, 4 weapons and 6 "
                       r"rooms, the config's games have 3 players, 4 suspects, 3 weapons and 5 rooms$"):  # fmt: skip
        make_agent(name, seed=0).load_state_dict(deck(4, 3, 5), saved)
