"""``stay_in_best_room``: in the room it values most, the agent stays rather than roll away from it.

A roll never comes back into the room it leaves. By default (as the published figures were
measured) a roll is valued as if it could, at what staying is worth, so it ties with staying
and is chosen half the time; with the option it is valued by the rooms it can reach.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.moves import choose_move
from agents.reasoners.belief_agent import BeliefAgent
from agents.reasoners.ismcts import ISMCTSAgent
from agents.reasoners.sat_agent import SatAgent
from agents.registry import make_agent
from agents.routes import Routes
from cluedo_env import core

CONFIG = core.GameConfig(num_players=4)
RULES = core.rules_for(CONFIG)
LAY, R, S, W = RULES.layout, RULES.R, RULES.S, RULES.W
LOUNGE, CONSERVATORY = 6, 2
ENVELOPE = core.ENVELOPE
# Seed 13's deal: the owner of each card (suspects, weapons, rooms); Professor Plum with the
# Wrench in the Study.
DEAL = (
    (0, 1, 3, 0, 0, ENVELOPE),  # Scarlet, Mustard, White, Green, Peacock, Plum
    (3, 2, 2, 0, 2, ENVELOPE),  # Candlestick, Dagger, Lead Pipe, Revolver, Rope, Wrench
    (3, 1, 2, 1, 1, 3, 0, 1, ENVELOPE),  # Kitchen, Ballroom, ..., Lounge, Hall, Study
)
# Every room worth 0.1 but the Lounge, worth 1.0 (for arriving and for staying alike).
VALUES = np.where(np.arange(R) == LOUNGE, 1.0, 0.1)


def mustard_in_the_lounge(agent=None):
    """Seed 13: Miss Scarlet (player 0) rolls 5 and 3, enters the Lounge and suggests Colonel
    Mustard with the Candlestick; his pawn (player 1) is brought there, he shows his own card and
    begins his turn in the Lounge, where he may stay, roll, or take the passage to the
    Conservatory. ``agent``, playing Mustard, observes the game as it goes."""
    state = core.init(CONFIG, [13])
    assert tuple(state._owner[0].tolist()) == sum(DEAL, ())
    if agent is not None:
        agent.reset(CONFIG, np.array([1]))
        agent.observe(state, core.private_view(state.events, 1))
    mask = core.legal_action_mask(state)
    script = [LAY.ROLL, LAY.ENTER + LOUNGE, LAY.SUGGEST + 1 * W + 0, LAY.SHOW + 1, LAY.END_TURN]
    for action in script:
        assert mask[0, action], action
        state = core.step(state, [action], mask=mask)
        if agent is not None:
            agent.observe(state, core.private_view(state.events, 1))
    assert int(state.current_player[0]) == 1 and int(state.phase[0]) == core.Phase.TURN
    assert int(state.location[0, 1]) == LOUNGE
    assert mask[0, [LAY.STAY, LAY.ROLL, LAY.PASSAGE]].all()
    assert RULES.passages[LOUNGE] == CONSERVATORY
    return state, mask


def test_choose_move_stays_in_the_best_room_with_the_option_and_rolls_away_at_random_without():
    state, mask = mustard_in_the_lounge()
    routes = Routes(CONFIG)

    def choices(**option):
        return [
            choose_move(
                state, 0, 1, mask[0], VALUES, VALUES, 0.05, routes, np.random.default_rng(k), **option
            )
            for k in range(40)
        ]

    assert set(choices(stay_in_best_room=True)) == {LAY.STAY}
    default = choices()
    assert set(default) == {LAY.STAY, LAY.ROLL}  # the tie, broken at random
    assert choices(stay_in_best_room=False) == default


class _Sat(SatAgent):  # every suggestion of a room worth that room's value in VALUES
    def _suggestion_values(self, odds):
        return np.broadcast_to(VALUES, (S, W, R)).copy()


class _Belief(BeliefAgent):
    def room_values(self, game, accusation):
        return VALUES


class _Search(ISMCTSAgent):
    def room_values(self, game, accusation):
        return VALUES


@pytest.mark.parametrize(
    "cls, options",
    [(_Sat, {}), (_Belief, {}), (_Search, {"searched": ("accuse",)})],  # the search's own choice
    ids=["sat", "belief", "ismcts"],
)
def test_the_agents_stay_in_the_room_they_value_most_with_the_option(cls, options):
    def choices(**option):
        actions = []
        for seed in range(12):
            agent = cls(seed=seed, **options, **option)
            state, mask = mustard_in_the_lounge(agent)
            actions.append(int(agent.act(state, np.array([0]), mask[[0]].copy())[0]))
        return actions

    assert set(choices(stay_in_best_room=True)) == {LAY.STAY}
    assert set(choices()) == {LAY.STAY, LAY.ROLL}  # the default, as the published figures were measured


@pytest.mark.parametrize("name", ["sat", "belief", "ismcts", "determinize"])
def test_the_option_is_a_switch_taken_by_every_agent_that_moves_by_choose_move(name):
    assert make_agent(name, stay_in_best_room=True).stay_in_best_room is True
    assert make_agent(name).stay_in_best_room is False
    for value in ("true", 1, None):
        with pytest.raises(ValueError, match="stay_in_best_room must be True or False"):
            make_agent(name, stay_in_best_room=value)
