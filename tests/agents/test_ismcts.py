"""The information-set MCTS agent: conformance, determinism, its budget, its options, and accusations it finds or avoids."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from agents.arena import play_batch
from agents.base import last_own_turn
from agents.reasoners.ismcts import DEALS_PER_DRAW, ISMCTSAgent, _seen_only
from agents.registry import make_agent
from agents.testing import check_agent
from cluedo_env import core
from cluedo_env.inference import NOT_HELD, OwnHand, Suggestion
from experiments.common.chunks import lineups
from experiments.common.settings import load_config
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT

CONFIG = core.GameConfig(num_players=4)


class _Capturing(ISMCTSAgent):
    """Plays as the belief agent would without its risk rule (no search) and keeps its ``state_dict`` and the game at its
    first turn-start decision where ``wanted(p, solved)`` holds (``p``: the best triple's probability)."""

    def __init__(self, wanted, **options) -> None:
        super().__init__(searched=(), risk_accusations=False, **options)  # accuses only when sure
        self.wanted = wanted
        self.captured = None

    def decide(self, state, game, legal):
        derived = self._derived(game)
        p, solved = float(derived["envelope"].max()), derived["solved"] is not None
        if self.captured is None and state.phase[game] == core.Phase.TURN and self.wanted(p, solved):
            self.captured = (self.seed, copy.deepcopy(self.state_dict()), core.clone(state, game, 1))
        return super().decide(state, game, legal)


def _position(wanted, seeds=range(20)):
    """The first position of a 4-player game against random agents (long games) where ``wanted`` holds (see ``_Capturing``)."""
    for seed in seeds:
        agent = _Capturing(wanted, seed=seed)
        play_batch(CONFIG, [agent, *(make_agent("random", seed=k) for k in range(3))], seeds=[seed])
        if agent.captured is not None:
            return agent.captured
    raise AssertionError("no game reached the position")


def _searcher(captured, **options):
    """A searching agent with ``options`` that knows what the captured one knew, and the captured game
    (a batch of one); its accusation is a candidate at any probability (unless ``options`` say otherwise)."""
    seed, saved, state = captured
    agent = ISMCTSAgent(seed=seed, **{"accuse_rule": "probability", "min_probability": 0.0, **options})
    agent.load_state_dict(CONFIG, copy.deepcopy(saved))
    return agent, state


def test_ismcts_passes_the_conformance_check():
    check_agent("ismcts", options={"iterations": 8, "wave": 4}, games=4, steps=300)


def test_ismcts_with_deducing_opponents_passes_the_conformance_check():
    check_agent("ismcts", options={"iterations": 8, "wave": 4, "opponents": "deducing"}, games=4, steps=300)


def test_deducing_opponents_search_alike_under_a_seed_and_tell_their_rollouts_more():
    captured = _position(lambda p, solved: not solved and p >= 0.2)
    runs, seen, play_out = [], [], core.play_out
    for opponents in ("deducing", "deducing", "simple"):
        agent, state = _searcher(captured, iterations=16, wave=8, opponents=opponents)
        agent.rng = np.random.default_rng(5)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                core,
                "play_out",
                lambda clones, keys, **kw: seen.append(kw["seen"]) or play_out(clones, keys, **kw),
            )
            runs.append(agent.search(state, 0))
    a, b, _ = runs
    assert a.action == b.action and np.array_equal(a.visits, b.visits) and np.allclose(a.values, b.values)
    deducing, simple = np.concatenate(seen[:2]), np.concatenate(seen[4:])
    assert deducing.shape == simple.shape == (16, 4, 21)
    seat = int(agent.seats[0])
    assert np.array_equal(deducing[:, seat], simple[:, seat])  # its own row: what its posterior rules out
    others = [q for q in range(4) if q != seat]
    assert not simple[:, others].any() and deducing[:, others].any()


def test_ismcts_with_an_opponent_model_passes_the_conformance_check():
    check_agent("ismcts", options={"iterations": 8, "wave": 4, "opponent_knowledge": 1.0}, games=4, steps=300)


def test_peer_seen_gives_each_opponent_as_many_cards_out_of_the_envelope_as_the_agent():
    rng = np.random.default_rng(0)
    C, P, seat, n = 21, 4, 1, 50
    deals = np.stack(
        [
            rng.permutation(
                [core.ENVELOPE] * 3 + [q for q in range(P) for _ in range(4)] + [core.FACE_DOWN] * 2
            )
            for _ in range(n)
        ]
    )
    shown = np.full((n, P, C), -1, dtype=np.int8)
    shown[:, 2, 0] = 3  # player 2 was shown card 0 (whoever holds it in the deal)
    seen = np.zeros((P, C), dtype=bool)
    seen[seat, :9] = True  # the agent rules 9 cards out
    for scale, target in ((1.0, 9), (0.5, 4), (4.0, C - 3)):
        agent = ISMCTSAgent(seed=3, opponent_knowledge=scale)
        known = agent.peer_seen(np.repeat(seen[None], n, axis=0), seat, deals, shown)
        again = ISMCTSAgent(seed=3, opponent_knowledge=scale).peer_seen(
            np.repeat(seen[None], n, axis=0), seat, deals, shown
        )
        assert known.shape == (n, P, C) and np.array_equal(known, again)  # deterministic under the seed
        assert (known[:, seat] == seen[seat]).all()  # the agent's own row as given
        for q in (0, 2, 3):
            extra = known[:, q]
            assert not (extra & (deals == core.ENVELOPE)).any()  # never an envelope card
            assert not (extra & (deals == q)).any()  # nor its own cards, which it sees anyway
            own = ((deals == q) | (shown[:, q] >= 0)) & (deals != core.ENVELOPE)  # what it knows already
            assert ((extra | own) & (deals != core.ENVELOPE)).sum(axis=1).tolist() == [
                max(target, int(o.sum())) for o in own
            ]


def test_self_guess_leaves_its_rollout_self_the_most_likely_card_of_each_likely_category():
    captured = _position(lambda p, solved: not solved and p >= 0.2)
    seen, play_out = [], core.play_out
    for guess in (1e-9, 1.0):
        agent, state = _searcher(captured, iterations=8, wave=8, self_guess=guess)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                core,
                "play_out",
                lambda clones, keys, **kw: seen.append(kw["seen"]) or play_out(clones, keys, **kw),
            )
            agent.search(state, 0)
    seat, joint = int(agent.seats[0]), agent._derived(0)["envelope"]
    best = [
        int(joint.sum(axis=(1, 2)).argmax()),
        6 + int(joint.sum(axis=(0, 2)).argmax()),
        12 + int(joint.sum(axis=(0, 1)).argmax()),
    ]
    assert (np.flatnonzero(~seen[0][0, seat]) == best).all()  # every category guessed: its best cards left
    ruled_out = agent.posterior(0).knowledge().status[:, agent.setup.envelope] == NOT_HELD
    assert np.array_equal(seen[1][0, seat], ruled_out)  # none is sure: nothing guessed


def test_self_guess_s_guesses_do_not_count_in_the_opponents_head_start():
    """``opponent_knowledge`` tells each rollout opponent that many times as many cards as the agent's
    posterior rules out of the envelope, not as many as its rollout self counts as seen with its guesses."""
    captured = _position(lambda p, solved: not solved and p >= 0.2)
    agent, state = _searcher(captured, iterations=8, wave=8, opponent_knowledge=1.0, self_guess=1e-9)
    calls, peer_seen, play_out = [], agent.peer_seen, core.play_out
    agent.peer_seen = lambda seen, seat, deals, shown: (
        calls.append((deals, shown, peer_seen(seen, seat, deals, shown))) or calls[-1][2]
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core, "play_out", lambda c, k, **kw: calls.append(kw["seen"]) or play_out(c, k, **kw))
        agent.search(state, 0)
    (deals, shown, known), rollouts = calls
    seat = int(agent.seats[0])
    ruled_out = agent.posterior(0).knowledge().status[:, agent.setup.envelope] == NOT_HELD
    assert 0 < ruled_out.sum() < 18  # not solved: every category's best card a guess
    assert (rollouts[:, seat].sum(axis=1) == 18).all() and (rollouts[:, seat] >= ruled_out).all()
    for q in (q for q in range(4) if q != seat):
        outside = deals != core.ENVELOPE
        own = ((deals == q) | (shown[:, q] >= 0)) & outside  # what it knows already
        assert ((known[:, q] | own) & outside).sum(axis=1).tolist() == [
            max(int(ruled_out.sum()), int(o.sum())) for o in own
        ]
        assert np.array_equal(rollouts[:, q], known[:, q])


@pytest.mark.parametrize("name", ["ismcts", "determinize"])
def test_search_agents_refuse_auto_refute_games_whose_facts_their_deals_do_not_honour(name):
    """With auto_refute whether a refuter decided tells every player whether it held one named card; the
    posterior does not count it, so the determinisations could contradict what the agent saw."""
    config = CONFIG.replace(auto_refute=True)
    said = rf"{name} needs auto_refute=False, got auto_refute=True: whether a refuter decided"
    agent = make_agent(name, seed=0)
    with pytest.raises(ValueError, match=said):
        agent.check_config(config)
    with pytest.raises(ValueError, match=said):
        play_batch(config, [agent, *(make_agent("random", seed=k) for k in range(3))], seeds=[0])
    agent.reset(CONFIG, np.array([0]))  # the default rules it plays
    with pytest.raises(ValueError, match=said):
        make_agent(name, seed=0).load_state_dict(config, agent.state_dict())
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = compose("tournament", overrides=[f"lineup={name}_vs_sat", "game.auto_refute=true"])
    with pytest.raises(ConfigError, match=rf"lineup.agents\[0\] \({name}.*cannot play these rules: {said}"):
        load_config(cfg)


def test_ismcts_is_registered_and_beats_nobody_illegally():
    agent = make_agent("ismcts", seed=2, iterations=16)
    assert isinstance(agent, ISMCTSAgent)
    result = play_batch(CONFIG, [agent, *(make_agent("sat", seed=k) for k in range(3))], seeds=[3, 4])
    assert (result.winner >= 0).all()  # play_batch checks every action against the mask


def test_the_same_seed_searches_alike_and_the_budget_is_respected():
    captured = _position(lambda p, solved: not solved and p >= 0.2)
    runs = []
    for _ in range(2):
        agent, state = _searcher(captured, iterations=24, wave=8)
        agent.rng = np.random.default_rng(5)
        runs.append(agent.search(state, 0))
    a, b = runs
    assert a.action == b.action and np.array_equal(a.visits, b.visits) and np.allclose(a.values, b.values)
    assert a.iterations == 24 and a.visits.sum() == 24  # every iteration passes the root once
    assert (np.abs(a.values) <= 1).all()
    timed, state = _searcher(captured, iterations=1000, wave=4, time_ms=1e-3)
    drawn = []
    determinizations = timed._determinizations
    timed._determinizations = lambda *args: drawn.append(args[-1]) or determinizations(*args)
    assert timed.search(state, 0).iterations == 4  # stopped after its first wave
    assert drawn == [DEALS_PER_DRAW]  # it drew the deals of one block, not of the 1,000 iterations


def test_search_accuses_a_likely_triple_and_not_an_unlikely_one():
    lay = core.rules_for(CONFIG).layout
    likely = _position(lambda p, solved: not solved and p >= 0.8)
    agent, state = _searcher(likely, iterations=64, prior=0.5)  # a prior that leans less on the belief agent
    joint = agent._derived(0)["envelope"]
    accusation, p = lay.ACCUSE + int(joint.argmax()), float(joint.max())
    result = agent.search(state, 0)
    k = result.candidates.tolist().index(accusation)
    assert result.action == accusation, result  # worth about 2p - 1 >= 0.6 here, above going on
    assert abs(result.values[k] - (2 * p - 1)) < 0.3  # +1 in the deals whose envelope it names, else -1
    unlikely = _position(lambda p, solved: 0 < p <= 0.05, seeds=range(1))
    agent, state = _searcher(unlikely, iterations=32)
    accusation = lay.ACCUSE + int(agent._derived(0)["envelope"].argmax())
    result = agent.search(state, 0)
    k = result.candidates.tolist().index(accusation)
    assert result.action != accusation and result.values[k] < -0.5, result  # about 2p - 1 <= -0.9


def test_uniform_determinization_forgets_the_shows_it_did_not_see_only():
    unseen = Suggestion(1, (1, 7, 15), (2,), shown_by=3)
    seen = Suggestion(0, (1, 7, 15), (1,), shown_by=2, shown_card=7)
    assert _seen_only(unseen) == Suggestion(1, (1, 7, 15), (2,))  # the pass stays a fact
    assert _seen_only(seen) == seen and _seen_only(OwnHand(0, (0, 6))) == OwnHand(0, (0, 6))
    agent = make_agent("ismcts", seed=1, determinization="uniform", iterations=8, wave=4)
    result = play_batch(CONFIG, [agent, *(make_agent("sat", seed=k) for k in range(3))], seeds=[7])
    assert result.winner[0] >= 0 and agent.last_search is not None and agent.last_search.iterations == 8


class _Refuting(ISMCTSAgent):
    """Searches its refutations only, and counts the searches made while another player's pass was pending."""

    def __init__(self, **options) -> None:
        super().__init__(searched=("refute",), **options)
        self.pending = 0

    def search(self, state, game):
        self.pending += bool(
            state.passed[game].any()
        )  # the passes are public in the state, not yet in its records
        return super().search(state, game)


def test_a_refutation_after_passes_draws_deals_that_honour_them():
    agent = _Refuting(seed=0, iterations=8, wave=4)
    play_batch(CONFIG, [agent, *(make_agent("random", seed=k) for k in range(3))], seeds=range(4))
    assert agent.pending > 0  # redeal refuses deals that contradict a pass: none was drawn


@pytest.mark.parametrize("field", ["sat", "belief"])
def test_the_lineups_seat_it_against_three_of_the_field(field):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = load_config(compose("tournament", overrides=[f"lineup=ismcts_vs_{field}"]))
    assert lineups(cfg) == [("ismcts", field, field, field)] and cfg.game.num_players == 4
    assert cfg.lineup.agents[0].options == {"iterations": 64}


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"iterations": 0}, "iterations"),
        ({"wave": 1.5}, "wave"),
        ({"suggestions": True}, "suggestions"),
        ({"time_ms": 0}, "time_ms"),
        ({"exploration": -1}, "exploration"),
        ({"exploration": float("inf")}, "exploration"),
        ({"min_probability": 2}, "min_probability"),
        ({"min_probability": "high"}, "min_probability"),
        ({"accuse_rule": "always"}, "accuse_rule"),
        ({"selection": "greedy"}, "selection"),
        ({"prior": 0}, "prior"),
        ({"searched": ["moves"]}, "searched"),
        ({"searched": "move"}, "searched"),
        ({"searched": None}, "searched must be a list of decision kinds among"),
        ({"searched": 3}, "searched must be a list of decision kinds among"),
        ({"searched": {"turn": 1}}, "searched must be a list of decision kinds among"),
        ({"searched": [None]}, "searched must be a list of decision kinds among"),
        ({"determinization": "exact"}, "determinization"),
        ({"opponents": "sat"}, "opponents"),
        ({"opponent_knowledge": -0.5}, "opponent_knowledge"),
        ({"opponent_knowledge": True}, "opponent_knowledge"),
        ({"self_guess": 0}, "self_guess"),
        ({"self_guess": True}, "self_guess"),
    ],
)
def test_bad_options_are_named(options, named):
    with pytest.raises(ValueError, match=named):
        ISMCTSAgent(**options)


def test_determinize_names_its_own_option_and_takes_no_second_one():
    with pytest.raises(ValueError, match="samples must be"):
        make_agent("determinize", samples=0)
    with pytest.raises(ValueError, match="not iterations"):
        make_agent("determinize", samples=8, iterations=32)


@pytest.mark.parametrize(
    "config, options, seeds",
    [
        (CONFIG, {"info_suggestions": False}, range(30, 36)),  # walks toward the likely envelope rooms
        (CONFIG, {"refute_strategy": False}, range(30, 36)),  # shows any matching card at random
        # no guess at the last turn
        (CONFIG.replace(max_turns=24), {"risk_accusations": False}, range(30, 36)),
        (CONFIG, {"risk_model": "sat_hazard", "bits_per_turn": 1.0, "move_discount": 0.1}, range(30, 33)),
        (CONFIG, {"suggest_first": True, "ignore_naive": True, "racer_prior": 0.9}, range(30, 33)),
        (core.GameConfig.preset("de_2023", num_players=4), {}, range(102, 108)),  # accusing needs a room: any
    ],
    ids=["info_suggestions", "refute_strategy", "risk_accusations", "sat_hazard", "suggest_first", "de_2023"],
)
def test_unsearched_decisions_are_the_belief_agents_choices(config, options, seeds):
    """With nothing searched, the agent plays the belief agent's game move for move, whatever its options."""
    actions = {}
    for name in ("belief", "ismcts"):
        played = []
        agents = [make_agent(name, seed=5, **options, **({"searched": []} if name == "ismcts" else {}))]
        agents += [make_agent("sat", seed=k) for k in range(3)]
        play_batch(
            config,
            agents,
            seeds=seeds,
            on_action=lambda a, stepped, _, played=played: played.append(a[stepped]),
        )
        actions[name] = np.concatenate(played)
    assert np.array_equal(actions["belief"], actions["ismcts"])


class _SureOnly(ISMCTSAgent):
    """Counts its decisions at the start of its last turn where it was not sure, and its accusations made unsure."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.last_turns_unsure = self.unsure_accusations = 0

    def decide(self, state, game, legal):
        action = super().decide(state, game, legal)
        unsure = self._derived(game)["solved"] is None
        if unsure and state.phase[game] == core.Phase.TURN and last_own_turn(state, game):
            self.last_turns_unsure += 1
        lay = self.rules.layout
        self.unsure_accusations += unsure and lay.ACCUSE <= action < lay.ACCUSE + lay.sizes["accuse"]
        return action


def test_without_the_risk_rule_it_does_not_guess_at_its_last_turn():
    """As the belief agent: with ``risk_accusations=False`` it accuses only what its posterior is sure of, even on
    the last turn before ``max_turns`` (with the rule it accuses the most likely triple there)."""
    config = CONFIG.replace(max_turns=24)
    for risk, guesses in ((False, False), (True, True)):
        agent = _SureOnly(seed=5, searched=[], risk_accusations=risk)
        play_batch(config, [agent, *(make_agent("sat", seed=k) for k in range(3))], seeds=range(30, 36))
        assert agent.last_turns_unsure > 0  # games reached its last turn unsure
        assert (agent.unsure_accusations > 0) == guesses
