"""The belief agent: its expected information against brute force, legal play, sure accusations, seeds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.arena import play_batch
from agents.reasoners.belief_agent import BeliefAgent
from agents.reasoners.risk import evidence_hazard, hazard
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.core import events as ev

CLASSIC = core.GameConfig(num_players=4)


def test_it_makes_the_suggestion_of_most_exact_information_among_those_it_counts() -> None:
    # Counting every suggestion of the room, the agent's choice is the exact best of all 36.
    config = CLASSIC
    agents = [BeliefAgent(seed=0, exact_candidates=36)] + [make_agent("sat", seed=k) for k in range(1, 4)]
    chosen = []

    class Spy(BeliefAgent):
        def decide(self, state, game, legal):
            action = super().decide(state, game, legal)
            if int(state.phase[game]) == core.Phase.SUGGEST and len(chosen) < 2:
                room = int(state.location[game, self.seats[game]])
                values = [[self.exact_value(game, (s, w, room)) for w in range(6)] for s in range(6)]
                chosen.append((divmod(action - self.rules.layout.SUGGEST, 6), np.array(values)))
            return action

    agents[0] = Spy(seed=0, exact_candidates=36)
    play_batch(config.replace(max_turns=12), agents, np.arange(1))
    assert chosen
    for (s, w), values in chosen:
        assert values[s, w] == pytest.approx(values.max(), abs=1e-12)
        assert values.max() > 0


def test_bad_options_are_rejected_with_the_reason() -> None:
    with pytest.raises(ValueError, match="exact_candidates must be"):
        BeliefAgent(exact_candidates=0)
    for bits in (0.0, float("inf")):
        with pytest.raises(ValueError, match="bits_per_turn must be"):
            BeliefAgent(bits_per_turn=bits)
    for option in (
        "info_suggestions",
        "risk_accusations",
        "refute_strategy",
        "suggest_first",
        "ignore_naive",
    ):
        for value in ("false", 0.3, None):  # a switch is True or False, not anything truthy
            with pytest.raises(ValueError, match=f"{option} must be True or False"):
                BeliefAgent(**{option: value})
    with pytest.raises(ValueError, match="gamble_at_truncation must be True or False"):
        make_agent("sat", gamble_at_truncation="false")
    with pytest.raises(ValueError, match="risk_model must be one of"):
        BeliefAgent(risk_model="oracle")
    with pytest.raises(ValueError, match="hazard_unrefuted must be in"):
        BeliefAgent(hazard_unrefuted=1.5)
    with pytest.raises(ValueError, match="racer_prior must be in"):
        BeliefAgent(racer_prior=-0.1)
    with pytest.raises(ValueError, match="no SAT hazard measured for 7 players"):
        hazard(7, np.zeros(1))


@pytest.mark.parametrize("name", ["belief", "ismcts", "determinize"])
@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("move_discount", "x"),
        ("move_discount", None),
        ("bits_per_turn", None),
        ("bits_per_turn", "x"),
        ("hazard_per_answer", None),
        ("hazard_unrefuted", "0.1"),
        ("racer_prior", "x"),
        ("racer_prior", True),
    ],
)
def test_number_options_of_the_wrong_type_are_named(name, option, value):
    """A number option of the wrong type is named (not a bare TypeError), also given to a search agent."""
    with pytest.raises(ValueError, match=rf"{option} must be .*, got {value!r}"):
        make_agent(name, seed=0, **{option: value})


def test_the_sat_hazard_odds_of_waiting_fall_as_the_opponents_take_turns_and_with_more_opponents() -> None:
    odds = []
    for players in (4, 6):
        agent = BeliefAgent(seed=0, risk_model="sat_hazard")
        agent.reset(core.GameConfig(num_players=players), np.zeros(1, dtype=np.int64))
        row = []
        for turns in (0, 3, 6, 9):
            agent.turns_taken[0] = turns
            row.append(agent.waiting_value(0, 0.0))
        assert all(a >= b for a, b in itertools.pairwise(row)) and row[0] > row[-1]
        odds.append(row)
        agent.out[0, 1:] = True  # nobody left to beat it: waiting is safe
        assert agent.waiting_value(0, 0.0) == 1.0
    assert all(six <= four for four, six in zip(*odds))  # at equal turns, five opponents beat three


def test_the_evidence_odds_of_waiting_fall_with_the_answers_and_unrefuted_suggestions_it_sees() -> None:
    agent = BeliefAgent(seed=0)  # risk_model="evidence", the default
    agent.reset(CLASSIC, np.zeros(1, dtype=np.int64))
    assert agent.waiting_value(0, 0.0) == 1.0  # nobody has been answered yet: waiting is safe
    agent.turns_taken[0] = 9  # turns alone say nothing to this model
    assert agent.waiting_value(0, 0.0) == 1.0
    row = []
    for answers in (0, 4, 8, 12):
        agent.answers[0] = answers
        row.append(agent.waiting_value(0, 0.0))
    assert all(a > b for a, b in itertools.pairwise(row))
    answered = row[-1]
    agent.unrefuted[0, 2] = 1  # one opponent's suggestion went unrefuted: it may know the envelope
    assert agent.waiting_value(0, 0.0) < answered
    agent.out[0, 1:] = True
    assert agent.waiting_value(0, 0.0) == 1.0
    assert evidence_hazard(np.array([0, 10, 100]), np.array([2, 1, 0]), 0.02, 0.1).tolist() == pytest.approx(
        [0.2, 0.3, 1.0]
    )


def test_it_counts_the_answers_and_unrefuted_suggestions_of_each_player_from_the_events() -> None:
    class Counting(BeliefAgent):
        def observe(self, state, events):
            super().observe(state, events)
            kind = events[0, :, 0]
            for player in range(4):
                seen["shown"][player] += int(((kind == ev.SHOW) & (events[0, :, 2] == player)).sum())
                seen["alone"][player] += int(((kind == ev.NO_REFUTE) & (events[0, :, 1] == player)).sum())
            final.update(answers=self.answers[0].copy(), unrefuted=self.unrefuted[0].copy())

    seen, final = {"shown": [0] * 4, "alone": [0] * 4}, {}
    agents = [Counting(seed=0)] + [make_agent("sat", seed=k) for k in range(1, 4)]
    play_batch(CLASSIC.replace(max_turns=40), agents, np.arange(1))
    assert final["answers"].tolist() == seen["shown"] and sum(seen["shown"]) > 0
    assert final["unrefuted"].tolist() == seen["alone"]


def test_players_who_repeat_a_refuted_suggestion_or_name_a_card_they_were_shown_are_spotted() -> None:
    """``naive``: an opponent repeated a suggestion somebody had refuted, or named a suspect or weapon
    the agent had shown it on an earlier step (both checked against the events by hand). Random
    players do it in some games; SAT agents, who keep notes, never."""

    class Spotting(BeliefAgent):
        def observe(self, state, events):
            for row in events[0, : int((events[0, :, 0] >= 0).sum())]:
                if row[0] == ev.SUGGEST:
                    player, triple = int(row[ev.PLAYER]), tuple(int(c) for c in row[2:5])
                    if triple in refuted[player] or set(triple[:2]) & shown[player]:
                        expected[player] = True
                    asking[:] = [player, triple]
                elif row[0] == ev.SHOW:
                    refuted[asking[0]].add(asking[1])
                    if row[ev.PLAYER] == self.seats[0]:
                        shown[asking[0]].add(int(row[ev.CARD]))
            super().observe(state, events)
            flagged.append(self.naive[0].copy())

    spotted = {}
    for field, options in (("random", {"accuse": "never"}), ("sat", {})):
        spotted[field] = 0
        for seed in range(16):
            shown, refuted, asking = [set() for _ in range(4)], [set() for _ in range(4)], [None, None]
            expected, flagged = [False] * 4, []
            agents = [Spotting(seed=0)] + [make_agent(field, seed=k, **options) for k in range(1, 4)]
            play_batch(CLASSIC.replace(max_turns=100), agents, np.array([seed]))
            assert flagged[-1].tolist() == expected
            spotted[field] += sum(expected)
    assert spotted["random"] >= 4 and spotted["sat"] == 0  # 7 of 48 random players when written


def test_with_ignore_naive_the_risk_rule_does_not_fear_naive_opponents() -> None:
    for ignore_naive in (False, True):
        agent = BeliefAgent(seed=0, ignore_naive=ignore_naive)
        agent.reset(CLASSIC, np.zeros(1, dtype=np.int64))
        agent.answers[0] = 12
        agent.naive[0, 1:] = True
        assert (agent.waiting_value(0, 0.0) == 1.0) == ignore_naive  # the control still fears them
        agent.naive[0, 2] = False  # one opponent keeps its notes: it counts again
        assert agent.waiting_value(0, 0.0) < 1.0


def test_with_racer_prior_an_opponent_is_feared_as_the_chance_it_races_given_its_quiet_turns() -> None:
    """Hazards are linear in ``hazard_per_answer`` (below 1), so weighting them by the chance that an
    opponent races is the same as a smaller ``hazard_per_answer``."""

    def value(quiet: float = 0.0, **options) -> float:
        agent = BeliefAgent(seed=0, **options)
        agent.reset(CLASSIC, np.zeros(1, dtype=np.int64))
        agent.answers[0] = 12
        agent.quiet[0] = quiet
        return agent.waiting_value(0, 0.1)

    assert value(racer_prior=0.5) == pytest.approx(value(hazard_per_answer=0.01))  # no turn yet: 1/2
    # quiet through turns a racer would have stayed quiet through with chance 1/2: 0.25 / (0.25 + 0.5)
    assert value(np.log(0.5), racer_prior=0.5) == pytest.approx(value(hazard_per_answer=0.02 / 3))
    assert value(-np.inf, racer_prior=0.99) == 1.0  # quiet where its hazard was 1: it does not race
    assert value(-np.inf) == value()  # the default, racer_prior=1: every opponent races


def test_quiet_turns_are_counted_from_the_events() -> None:
    """``quiet``: each turn an opponent began after its first adds ``log(1 - h)``, ``h`` its evidence
    hazard when its turn before began (its answers and unrefuted suggestions until then), counted
    here by hand from the events, row by row."""

    class Quiet(BeliefAgent):
        def observe(self, state, events):
            for row in events[0, : int((events[0, :, 0] >= 0).sum())]:
                if row[0] == ev.SHOW:
                    counts[int(row[ev.SUGGESTER])][0] += 1
                elif row[0] == ev.NO_REFUTE:
                    counts[int(row[ev.PLAYER])][1] += 1
                elif row[0] == ev.TURN:
                    player = int(row[ev.PLAYER])
                    expected[player] += np.log1p(-before[player])
                    answers, unrefuted = counts[player]
                    before[player] = min(1.0, 0.04 * answers + 0.2 * unrefuted)
            super().observe(state, events)

    quiet = 0
    for seed in range(4):
        counts, before, expected = [[0, 0] for _ in range(4)], [0.0] * 4, np.zeros(4)
        agent = Quiet(seed=0, hazard_per_answer=0.04, hazard_unrefuted=0.2, racer_prior=0.5)
        opponents = [make_agent("random", seed=k, accuse="never") for k in range(1, 4)]
        play_batch(CLASSIC.replace(max_turns=60), [agent, *opponents], np.array([seed]))
        assert agent.quiet[0].tolist() == pytest.approx(expected.tolist())
        quiet += int((agent.quiet[0, 1:] < 0).sum())
    assert quiet >= 3  # opponents answered, then quiet for a turn at least


def test_with_the_sat_hazard_a_quiet_turn_counts_the_hazard_of_that_turn():
    """The n-th turn (from 0) of a player has the SAT table's hazard n: each turn begun after the first
    adds ``log(1 - hazard(n))`` of the turn before."""
    agent = BeliefAgent(seed=0, risk_model="sat_hazard", racer_prior=0.5)
    opponents = [make_agent("random", seed=k, accuse="never") for k in range(1, 4)]
    play_batch(CLASSIC.replace(max_turns=60), [agent, *opponents], np.array([0]))
    turns = agent.turns_taken[0]
    expected = [sum(np.log1p(-hazard(4, np.array(n))) for n in range(t - 1)) for t in turns.tolist()]
    assert turns[1:].min() >= 3 and agent.quiet[0].tolist() == pytest.approx(expected)


def test_the_naive_flags_and_quiet_turns_are_saved_and_a_state_saved_before_them_still_loads() -> None:
    options = {"ignore_naive": True, "racer_prior": 0.5}
    agent = BeliefAgent(seed=0, **options)
    opponents = [make_agent("random", seed=k, accuse="never") for k in range(1, 4)]
    play_batch(CLASSIC.replace(max_turns=100), [agent, *opponents], np.arange(8))
    saved = agent.state_dict()
    assert agent.naive.any() and (agent.quiet < 0).any()
    restored = BeliefAgent(seed=0, **options)
    restored.reset(CLASSIC, agent.seats)
    restored.load_state_dict(CLASSIC, saved)
    assert np.array_equal(restored.naive, agent.naive)
    assert np.array_equal(restored.quiet, agent.quiet)
    assert np.array_equal(restored.hazard_at_turn, agent.hazard_at_turn)
    older = {key: value for key, value in saved.items() if key not in ("naive", "quiet", "hazard_at_turn")}
    restored = BeliefAgent(seed=0, **options)
    restored.reset(CLASSIC, agent.seats)
    restored.load_state_dict(CLASSIC, older)
    assert not restored.naive.any() and not restored.quiet.any()
    assert np.array_equal(restored.shown_to, agent.shown_to)


class Checked(BeliefAgent):
    """The belief agent, with every action it takes checked against the legal mask."""

    def act(self, state, games, mask):
        actions = super().act(state, games, mask)
        assert mask[np.arange(len(games)), actions].all(), "illegal action"
        return actions


def lineup(options: dict, opponents: str = "sat") -> list:
    return [Checked(seed=0, **options)] + [make_agent(opponents, seed=k) for k in range(1, 4)]


def test_with_suggest_first_a_risk_accusation_waits_for_the_end_of_the_turn() -> None:
    # hazard_per_answer=1: once an opponent has had an answer, waiting is worth nothing, so the risk
    # rule accuses at the first chance; with suggest_first that chance is the end of the turn, after
    # the agent's own suggestion (the control, without it, accuses at the start of a turn too).
    phases: dict[bool, list[int]] = {False: [], True: []}

    class Spy(BeliefAgent):
        def decide(self, state, game, legal):
            action = super().decide(state, game, legal)
            lay = self.rules.layout
            unsure = self._derived(game)["solved"] is None
            if lay.ACCUSE <= action < lay.ACCUSE + lay.sizes["accuse"] and unsure:
                phases[self.suggest_first].append(int(state.phase[game]))
            return action

    seeds = np.arange(8)
    for suggest_first in (False, True):
        agents = [Spy(seed=0, suggest_first=suggest_first, hazard_per_answer=1.0)]
        agents += [make_agent("sat", seed=k) for k in range(1, 4)]
        play_batch(CLASSIC.replace(max_turns=60), agents, seeds, rotation=seeds % 4)
    assert core.Phase.TURN in phases[False]
    assert phases[True] and set(phases[True]) == {core.Phase.ACCUSE}


def test_registered_as_belief() -> None:
    assert isinstance(make_agent("belief", risk_accusations=False), BeliefAgent)


@pytest.mark.parametrize(
    "config",
    [
        CLASSIC,
        core.GameConfig(num_players=3, board="none"),
        core.GameConfig(num_players=4, movement="squares", accuse_anywhere=False),
        core.GameConfig(num_players=2, duel=True),
    ],
    ids=["classic4", "none3", "squares4", "duel"],
)
def test_legal_actions_and_sure_accusations_only_without_the_risk_rule(config) -> None:
    P = config.num_players
    agents = [Checked(seed=0, risk_accusations=False)] + [make_agent("sat", seed=k) for k in range(1, P)]
    seeds = np.arange(16 if config.duel else 8)  # SAT, which looks at the face-down cards, wins most duels
    result = play_batch(config.replace(max_turns=150), agents, seeds, rotation=seeds % P)
    assert result.wrong_accusations[:, 0].sum() == 0
    assert (result.winner == 0).any()


def test_every_ablation_plays_legally() -> None:
    seeds = np.arange(8)
    for options in (
        {"info_suggestions": False},
        {"refute_strategy": False},
        {"risk_accusations": True},
        {"risk_model": "sat_hazard", "bits_per_turn": 1.0},
        {"suggest_first": True},
    ):
        result = play_batch(CLASSIC, lineup(options), seeds, rotation=seeds % 4)
        assert not result.truncated.any()


def test_deterministic_for_a_fixed_seed() -> None:
    seeds = np.arange(6)
    first = play_batch(CLASSIC, lineup({}), seeds, rotation=seeds % 4)
    again = play_batch(CLASSIC, lineup({}), seeds, rotation=seeds % 4)
    for field in ("winner", "turns", "decisions", "accusations"):
        assert np.array_equal(getattr(first, field), getattr(again, field))


def test_never_wrong_without_the_risk_rule_in_a_few_dozen_games() -> None:
    seeds = np.arange(32)
    result = play_batch(CLASSIC, lineup({"risk_accusations": False}), seeds, rotation=seeds % 4)
    assert result.wrong_accusations[:, 0].sum() == 0
    assert result.accusations[:, 0].sum() > 0


@pytest.mark.slow
def test_never_wrong_without_the_risk_rule_in_2000_games() -> None:
    seeds = np.arange(2000)
    result = play_batch(CLASSIC, lineup({"risk_accusations": False}), seeds, rotation=seeds % 4)
    assert result.wrong_accusations[:, 0].sum() == 0
