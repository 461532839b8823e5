"""Determinisation helpers (sampled deals in the core's codes, shown cards, rollouts) and the determinising
agent, the search agent restricted to accusing or waiting."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import play_batch
from agents.reasoners.determinize import deduced_seen, rollout_values, sample_shown
from agents.reasoners.ismcts import DETERMINIZE, DeterminizeAgent, ISMCTSAgent
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.inference import Deck, OwnHand, Setup, Suggestion
from cluedo_env.inference.beliefs import Beliefs


def test_sampled_deals_are_in_the_core_codes_ready_for_redeal():
    setup = Setup.dealt(Deck(2, 2, 3), num_players=2, num_face_down=1)
    assert (setup.envelope, setup.table, setup.owners) == (core.ENVELOPE, core.FACE_DOWN, (0, 1, -2, -1))
    deals = Beliefs(setup, 0, [OwnHand(0, (0, 2))]).posterior().sample_deals(200, np.random.default_rng(0))
    assert set(np.unique(deals).tolist()) == {0, 1, core.ENVELOPE, core.FACE_DOWN}
    assert ((deals == core.ENVELOPE).sum(axis=1) == 3).all()
    assert ((deals == core.FACE_DOWN).sum(axis=1) == 1).all()
    assert (deals[:, [0, 2]] == 0).all()


def test_sample_shown_names_a_card_the_refuter_holds_each_equally_often():
    setup = Setup.dealt(Deck(6, 6, 9), num_players=4)
    records = [OwnHand(0, (0, 6, 12, 13, 14)), Suggestion(1, (1, 7, 15), (), shown_by=2)]
    deals = np.full((2000, 21), 3, dtype=np.int8)
    deals[:, [1, 7, 15]] = 2  # player 2 holds all three named cards
    shown = sample_shown(setup, 0, records, deals, np.random.default_rng(0))
    assert (shown[:, [0, 2, 3]] == -1).all()  # only the suggester was shown a card
    picked = shown[:, 1, [1, 7, 15]] == 2
    assert (picked.sum(axis=1) == 1).all()
    assert (np.abs(picked.mean(axis=0) - 1 / 3) < 0.05).all()
    seen = [OwnHand(0, (0, 6, 12, 13, 14)), Suggestion(0, (1, 7, 15), (), shown_by=2, shown_card=7)]
    assert (sample_shown(setup, 0, seen, deals[:5], np.random.default_rng(0)) == -1).all()  # its own
    deals[0, [1, 7, 15]] = 3
    with pytest.raises(ValueError, match="gives player 2 none of"):
        sample_shown(setup, 0, records, deals, np.random.default_rng(0))


def test_deduced_seen_places_what_each_other_player_can_deduce_from_the_shows_and_passes():
    """Card ``c`` to player ``c % 4``, but 18 to player 2, 20 to player 3 and 5, 11, 19 the envelope."""
    setup = Setup.dealt(Deck(6, 6, 9), num_players=4)
    deals = np.array([[c % 4 for c in range(18)] + [2, core.ENVELOPE, 3]], dtype=np.int8)
    deals[0, [5, 11]] = core.ENVELOPE
    records = [
        OwnHand(0, (0, 4, 8, 12, 16)),
        Suggestion(3, (2, 11, 18), (0, 1), shown_by=2),  # player 1 passed on card 2
        Suggestion(2, (4, 6, 13), (3,), shown_by=0, shown_card=4),  # it showed player 2 card 4
        Suggestion(0, (2, 7, 13), (), shown_by=1, shown_card=13),  # player 3 holds 7, 1 passed on 2: 13
    ]
    shown = np.full((1, 4, 21), -1, dtype=np.int8)
    hands = deals[0] == np.arange(4)[:, None]  # [P, C]
    seen = deduced_seen(setup, 0, records, deals, shown)
    assert not seen[0, 0].any()  # its own row is the caller's
    assert np.flatnonzero(seen[0, 1] & ~hands[1]).tolist() == []
    records.append(
        Suggestion(1, (1, 9, 19), (2, 3, 0))
    )  # nobody refuted: player 1 knows room 19 is in the envelope
    seen = deduced_seen(setup, 0, records, deals, shown)
    assert np.flatnonzero(seen[0, 1] & ~hands[1]).tolist() == [12, 14, 15, 16, 18, 20]  # the other rooms
    assert not (seen & (deals[:, None, :] == core.ENVELOPE)).any()
    assert np.flatnonzero(seen[0, 2] & ~hands[2]).tolist() == [4]  # what it was shown
    assert np.flatnonzero(seen[0, 3] & ~hands[3]).tolist() == [13]  # deduced
    assert (
        np.flatnonzero(deduced_seen(setup, 0, records, deals, shown, rounds=0)[0, 3] & ~hands[3]).tolist()
        == []
    )
    shown[0, 1, 7] = 3  # a show sample_shown drew: player 1 was shown card 7
    assert deduced_seen(setup, 0, records, deals, shown)[0, 1, 7]


def test_rollout_values_are_the_players_final_rewards():
    config = core.GameConfig(num_players=3)
    state = core.init(config, range(8))
    values = rollout_values(state, 0, np.random.default_rng(1))
    done_or_out = state.done | state.eliminated[:, 0]
    assert done_or_out.all()
    # +1 for a win, 0 when truncated, -1 otherwise (another won, or the player is out)
    expected = np.where(
        state.winner == 0, 1.0, np.where(state.truncated & ~state.eliminated[:, 0], 0.0, -1.0)
    )
    assert np.array_equal(values, expected)


def test_the_determinize_agent_is_the_search_restricted_to_accusing_or_waiting():
    config = core.GameConfig(num_players=4)
    agent = make_agent("determinize", seed=3, samples=4, min_probability=0.05)
    assert isinstance(agent, DeterminizeAgent) and isinstance(agent, ISMCTSAgent)
    assert agent.iterations == 4 and agent.min_probability == 0.05
    assert (agent.accuse_rule, agent.selection, agent.searched) == (
        "probability",
        "ucb1",
        DETERMINIZE["searched"],
    )
    searches = []
    search = agent.search

    def counted(state, game):
        result = search(state, game)
        searches.append(result)
        return result

    agent.search = counted
    candidates, calls = agent._candidates, []

    def recorded(state, game, at, legal, accuse, root=False):
        order = candidates(state, game, at, legal, accuse, root)
        calls.append((root, len(order)))
        return order

    agent._candidates = recorded
    field = [make_agent("sat", seed=k) for k in range(3)]
    result = play_batch(config, [agent, *field], seeds=[11, 12])
    assert (result.winner >= 0).all()
    assert searches and all(r.iterations == 4 and (np.abs(r.values) <= 1).all() for r in searches)
    accusations = range(
        agent.rules.layout.ACCUSE, agent.rules.layout.ACCUSE + agent.rules.layout.sizes["accuse"]
    )
    for r in searches:  # accuse or wait: the waiting choice and the accusation, nothing else
        assert len(r.candidates) == 2 and sum(int(a) in accusations for a in r.candidates) == 1, r.candidates
    in_tree = [n for root, n in calls if not root]
    assert in_tree and set(in_tree) == {1}  # its later decisions in the tree: the belief agent's choice alone


@pytest.mark.parametrize("options", [{"samples": 0}, {"min_probability": 1.5}])
def test_the_determinize_agent_refuses_bad_options(options):
    with pytest.raises(ValueError, match=r"samples must be|min_probability"):
        DeterminizeAgent(**options)
