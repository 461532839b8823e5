"""Exact beliefs (``cluedo_env/inference/beliefs.py``).

The posterior is checked, to the exact fraction, against brute-force
enumeration of every deal on small decks (random histories from
``test_deduction``'s random games, after every record, for every observer, in
both probability models); against pyganak, an independent exact model counter,
on full-size classic histories; ``sample_deals`` by chi-square tests; and the
invariants on whole games of the rules core played by every agent.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from test_deduction import CARD, GAME, HANDS, LARGER_SETUPS, MY_HAND, SMALL_SETUPS, cards, play_random_game

from cluedo_env.inference import (
    Accusation,
    Deck,
    OwnHand,
    Record,
    Seen,
    Setup,
    Suggestion,
    brute_force,
    deduce,
)
from cluedo_env.inference.beliefs import Beliefs, beliefs, beliefs_from_events, beliefs_named
from cluedo_env.inference.exhaustive import all_deals, consistent_with

# ---------------------------------------------------------------------------
# Brute force: every deal, with its weight
# ---------------------------------------------------------------------------


def brute_posterior(setup: Setup, records: list[Record], model: str) -> dict:
    """Count, marginals and envelope joint by enumerating every deal (exact Fractions)."""
    deals = all_deals(setup)
    for record in records:
        deals = deals[consistent_with(deals, setup, record)]
    weights = [Fraction(1)] * len(deals)
    if model == "weighted":
        for record in records:
            if isinstance(record, Suggestion) and record.shown_card is not None:
                held = (deals[:, list(record.cards)] == record.shown_by).sum(axis=1)
                weights = [w / int(k) for w, k in zip(weights, held)]
    total = sum(weights)
    marginals = np.zeros((setup.deck.num_cards, setup.num_owners), dtype=object)
    marginals[:] = Fraction(0)
    joint = np.zeros(setup.deck.sizes, dtype=object)
    joint[:] = Fraction(0)
    offsets = [c.start for c in setup.deck.categories]
    for deal, weight in zip(deals, weights):
        marginals[np.arange(len(deal)), deal] += weight / total
        s, w, r = (int(c) for c in np.flatnonzero(deal == setup.envelope))
        joint[s - offsets[0], w - offsets[1], r - offsets[2]] += weight / total
    return {"deals": len(deals), "marginals": marginals, "joint": joint}


def check_history(setup: Setup, seed: int, num_turns: int, every_record: bool = True) -> int:
    """Beliefs == brute force for every observer of a random game; returns the posteriors checked."""
    rng = np.random.default_rng(seed)
    deal, views = play_random_game(setup, rng, num_turns)
    checked = 0
    for observer, records in views.items():
        model = "weighted" if (seed + observer) % 2 else "counting"
        state = Beliefs(setup, observer, model=model)
        for i, record in enumerate(records):
            state.add(record)
            if not every_record and i < len(records) - 1:
                continue
            posterior = state.posterior()
            expected = brute_posterior(setup, records[: i + 1], model)
            where = f"seed {seed}, observer {observer}, model {model}, after record {i} ({record})"
            assert posterior.num_deals == expected["deals"], where
            assert (posterior.probabilities(exact=True) == expected["marginals"]).all(), where
            assert (posterior.envelope(exact=True) == expected["joint"]).all(), where
            checked += 1
        # The true deal is possible; one-shot equals incremental; the support is deduce's knowledge.
        assert posterior.probabilities()[np.arange(len(deal)), deal].min() > 0
        once = beliefs(setup, observer, records, model=model)
        assert once.num_deals == posterior.num_deals
        assert (once.probabilities(exact=True) == posterior.probabilities(exact=True)).all()
        assert posterior.knowledge() == brute_force(setup, observer, records)
    return checked


@pytest.mark.parametrize("name", SMALL_SETUPS)
@pytest.mark.parametrize("seed", range(12))
def test_beliefs_equal_brute_force_on_random_games(name: str, seed: int) -> None:
    assert check_history(SMALL_SETUPS[name], seed, num_turns=10) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", [*SMALL_SETUPS, *LARGER_SETUPS])
def test_beliefs_equal_brute_force_on_many_random_games(name: str) -> None:
    setup = {**SMALL_SETUPS, **LARGER_SETUPS}[name]
    for seed in range(1000, 1000 + (300 if name in SMALL_SETUPS else 60)):
        check_history(setup, seed, num_turns=14, every_record=name in SMALL_SETUPS)


# ---------------------------------------------------------------------------
# Scripted: the numbers a player can check by hand
# ---------------------------------------------------------------------------


def test_before_any_record_every_deal_counts() -> None:
    posterior = beliefs(GAME, 0, [])
    # 6 x 6 x 9 envelopes, then 18 cards into hands of 5, 5, 4, 4.
    assert posterior.num_deals == 324 * math.factorial(18) // (120 * 120 * 24 * 24)
    p = posterior.probabilities(exact=True)
    assert p[CARD["Rope"], GAME.envelope] == Fraction(1, 6)
    assert p[CARD["Hall"], GAME.envelope] == Fraction(1, 9)
    assert p[CARD["Hall"], 0] == Fraction(8, 9) * Fraction(5, 18)
    assert (posterior.envelope(exact=True) == Fraction(1, 324)).all()


def test_own_hand_leaves_the_other_cards_alike() -> None:
    posterior = beliefs(GAME, 0, [MY_HAND])
    p = posterior.probabilities(exact=True)
    # 5 suspects, 4 weapons and 7 rooms left; the others hold 13 of the 16 unknown cards.
    assert posterior.num_deals == 5 * 4 * 7 * math.factorial(13) // (120 * 24 * 24)
    assert p[CARD["Mrs White"], GAME.envelope] == Fraction(1, 5)
    assert p[CARD["Mrs White"], 1] == Fraction(4, 5) * Fraction(5, 13)
    assert p[CARD["Rope"], 0] == 1 and p[CARD["Rope"], 1] == 0


def test_a_show_i_did_not_see_makes_the_three_cards_likelier_with_the_shower() -> None:
    shown = Suggestion(1, cards("Mrs White", "Revolver", "Lounge"), passed=(2,), shown_by=3)
    before = beliefs(GAME, 0, [MY_HAND]).probabilities()
    after = beliefs(GAME, 0, [MY_HAND, shown]).probabilities()
    for name in ("Mrs White", "Revolver", "Lounge"):
        assert after[CARD[name], 3] > before[CARD[name], 3]
        assert after[CARD[name], 2] == 0
    assert after[CARD["Study"], 3] < before[CARD["Study"], 3]


def test_the_weighted_model_differs_only_when_the_refuter_may_hold_more_named_cards() -> None:
    setup = Setup.dealt(Deck(2, 2, 2), 3)  # hands of 1; the envelope takes the rest
    shown = Suggestion(0, (0, 2, 4), shown_by=1, shown_card=0)
    counting = beliefs(setup, 0, [shown]).probabilities(exact=True)
    weighted = beliefs(setup, 0, [shown], model="weighted").probabilities(exact=True)
    # Player 1 holds one card: it is the shown one, and both models agree.
    assert (counting == weighted).all()
    big = Setup.dealt(Deck(2, 2, 3), 2)  # hands of 2
    shown = Suggestion(0, (0, 2, 4), shown_by=1, shown_card=0)
    counting = beliefs(big, 0, [shown]).probabilities(exact=True)
    weighted = beliefs(big, 0, [shown], model="weighted").probabilities(exact=True)
    # Holding the weapon too, player 1 would have shown the suspect only half the time.
    assert weighted[2, 1] < counting[2, 1]
    assert beliefs(big, 0, [shown], model="weighted").num_deals == beliefs(big, 0, [shown]).num_deals


def test_a_wrong_accusation_rules_out_exactly_its_triple() -> None:
    wrong = Accusation(2, cards("Colonel Mustard", "Lead Pipe", "Lounge"), correct=False)
    posterior = beliefs(GAME, 0, [MY_HAND, wrong])
    joint = posterior.envelope(exact=True)
    s, w, r = CARD["Colonel Mustard"], CARD["Lead Pipe"] - 6, CARD["Lounge"] - 12
    assert joint[s, w, r] == 0
    assert posterior.num_deals == beliefs(GAME, 0, [MY_HAND]).num_deals * (5 * 4 * 7 - 1) // (5 * 4 * 7)
    assert (joint[joint != 0] == Fraction(1, 5 * 4 * 7 - 1)).all()


def test_the_duel_table_is_an_owner() -> None:
    duel = Setup.dealt(Deck(6, 6, 9), 2, num_face_down=4)
    posterior = beliefs(duel, 0, [Seen(CARD["Lounge"], duel.table)])
    p = posterior.probabilities(exact=True)
    assert p[CARD["Lounge"], duel.table] == 1
    # The Study is in the envelope with 1/8 (the Lounge is not); else 3 of the 17 cards left go face down.
    assert p[CARD["Study"], duel.table] == Fraction(7, 8) * Fraction(3, 17)
    assert p.sum(axis=0)[duel.table] == 4


def test_inconsistent_histories_are_an_error_and_leave_the_beliefs_unchanged() -> None:
    small = Setup.dealt(Deck(2, 2, 2), 3)
    with pytest.raises(ValueError, match="no deal is consistent"):
        beliefs(small, 0, [OwnHand(0, (0,)), Seen(0, 1)])
    state = Beliefs(small, 0, [OwnHand(0, (0,))])
    before = state.posterior()
    with pytest.raises(ValueError, match="no deal is consistent"):
        state.add(Seen(0, 1))
    assert state.posterior() is before and len(state.records) == 1
    # Two wrong accusations leaving no envelope.
    wrongs = [Accusation(1, (s, w, 4), False) for s in (0, 1) for w in (2, 3)]
    with pytest.raises(ValueError, match="no deal is consistent"):
        beliefs(small, 0, [Seen(5, 2), *wrongs])


@pytest.mark.parametrize(
    "records",
    [
        # player 1 passes on card 0, then shows it
        [Suggestion(0, (0, 2, 4), passed=(1,), shown_by=2, shown_card=2), Suggestion(0, (0, 3, 5), (), 1, 0)],
        [Seen(0, -1), Seen(0, 1)],  # seen in the envelope, then with player 1
        [Seen(0, 2), Accusation(1, (0, 2, 4), True)],  # a right accusation naming a card player 2 holds
    ],
    ids=["shown after a pass", "seen with two owners", "right accusation of a held card"],
)
@pytest.mark.parametrize("model", ["counting", "weighted"])
def test_a_record_adds_to_what_is_known_of_its_card(records, model) -> None:
    """A seen card, a seen show and a right accusation rule out the card's other owners; they do not
    undo an earlier record that ruled out theirs (which answered as if the later record alone
    held: P(card 0 with player 1) = 1 where no deal fits). ``deduce`` refuses the same records."""
    small = Setup.dealt(Deck(2, 2, 2), 3)
    with pytest.raises(ValueError, match="no deal is consistent"):
        deduce(small, 0, records)
    with pytest.raises(ValueError, match="no deal is consistent"):
        beliefs(small, 0, records, model=model)
    state = Beliefs(small, 0, records[:1], model=model)
    with pytest.raises(ValueError, match="no deal is consistent"):
        state.add(records[1])


def test_a_record_that_says_nothing_new_keeps_the_posterior() -> None:
    state = Beliefs(GAME, 0, [MY_HAND])
    before = state.posterior()
    state.add(Seen(CARD["Rope"], 0))  # its own card
    assert state.posterior() is before and len(state.records) == 2
    state.add(Seen(CARD["Revolver"], 1))
    assert state.posterior().num_deals < before.num_deals


def test_bad_input_is_rejected_with_the_reason() -> None:
    with pytest.raises(ValueError, match="model must be one of"):
        Beliefs(GAME, 0, model="bayes")
    with pytest.raises(ValueError, match="OwnHand of player 1"):
        beliefs(GAME, 0, [OwnHand(1, HANDS[1])])
    with pytest.raises(ValueError, match="n must be an int"):
        beliefs(GAME, 0, []).sample_deals(-1, np.random.default_rng(0))
    # a seed or a legacy RandomState is no Generator (it failed deep inside with an AttributeError)
    for rng in (7, np.random.RandomState(0)):
        with pytest.raises(TypeError, match=r"rng must be a np.random.Generator \(np.random.default_rng"):
            beliefs(GAME, 0, []).sample_deals(5, rng)
    # more face-down cards than the deck has left (it said "hand_sizes must be >= 0", never given)
    with pytest.raises(
        ValueError, match="num_face_down=9 is more than the 4 cards left after the envelope's 3"
    ):
        Setup.dealt(Deck(2, 2, 3), 3, num_face_down=9)
    with pytest.raises(ValueError, match="num_face_down must be an int >= 0, got '2'"):
        Setup.dealt(Deck(2, 2, 3), 3, num_face_down="2")
    with pytest.raises(ValueError, match=r"hand_sizes must be ints .* got \[2.9, 2, 1\]"):
        Setup(Deck(3, 2, 3), 3, (2.9, 2, 1))  # not cut down to 2 without a word
    # a bool is no count (True was a one-player game)
    with pytest.raises(ValueError, match="num_players must be an int >= 1, got True"):
        Setup(Deck(2, 2, 2), True, (3,))
    with pytest.raises(ValueError, match="num_face_down must be an int >= 0, got True"):
        Setup(Deck(2, 2, 2), 1, (2,), num_face_down=True)
    with pytest.raises(ValueError, match="number of suspects must be an int >= 1, got True"):
        Deck(True, 2, 2)
    with pytest.raises(ValueError, match="observer must be a player in"):
        beliefs(GAME, True, [])


def test_beliefs_named() -> None:
    from test_deduction import ROOMS, SUSPECTS, WEAPONS

    history = [
        {"hand": ["Miss Scarlet", "Dagger", "Rope", "Kitchen", "Hall"]},
        {"suggest": ["Colonel Mustard", "Rope", "Kitchen"], "by": 0, "passed": [1, 2, 3], "shown_by": None},
    ]
    result = beliefs_named(SUSPECTS, WEAPONS, ROOMS, 4, GAME.hand_sizes, 0, history, exact=True)
    assert result["cards"]["Colonel Mustard"] == {"envelope": 1}
    assert result["cards"]["Rope"] == {"player 0": 1}
    assert result["envelope"][0][0] == "Colonel Mustard"
    assert sum(t[3] for t in result["envelope"]) == 1
    assert result["deals"] == beliefs(GAME, 0, [MY_HAND, Suggestion(0, (1, 10, 12), (1, 2, 3))]).num_deals


# ---------------------------------------------------------------------------
# Sampling
# ---------------------------------------------------------------------------


def chi_square_p(observed: np.ndarray, expected: np.ndarray) -> float:
    """Pearson's goodness-of-fit p-value: P(chi2 with len-1 degrees of freedom >= the statistic)."""
    statistic = float(((observed - expected) ** 2 / expected).sum())
    return regularized_upper_gamma((len(observed) - 1) / 2, statistic / 2)


def regularized_upper_gamma(a: float, x: float) -> float:
    """Q(a, x) by its series (x < a + 1) or continued fraction (Numerical Recipes, 6.2)."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        for n in range(1, 1000):
            term *= x / (a + n)
            total += term
        return 1.0 - total * math.exp(log_front)
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = 1 / (an * d + b)
        c = b + an / c
        h *= d * c
    return math.exp(log_front) * h


def test_chi_square_p_values() -> None:
    # Known values: chi2(1 dof) >= 3.841 has p = 0.05; chi2(4) >= 9.488 has p = 0.05; chi2(10) >= 2.558: 0.99.
    assert abs(regularized_upper_gamma(0.5, 3.841 / 2) - 0.05) < 1e-3
    assert abs(regularized_upper_gamma(2.0, 9.488 / 2) - 0.05) < 1e-3
    assert abs(regularized_upper_gamma(5.0, 2.558 / 2) - 0.99) < 1e-3


@pytest.mark.parametrize("name", ["2-2-3x3", "duel-2-3-4", "2-2-3x4"])
def test_sample_deals_follow_the_exact_marginals(name: str) -> None:
    setup = SMALL_SETUPS[name]
    rng = np.random.default_rng(3)
    _, views = play_random_game(setup, rng, 6)
    for model in ("counting", "weighted"):
        records = views[1][: len(views[1]) // 2 + 1]
        posterior = beliefs(setup, 1, records, model=model)
        n = 3000
        deals = posterior.sample_deals(n, rng)
        assert deals.shape == (n, setup.deck.num_cards)
        # Every sample is a consistent deal.
        for record in records:
            assert consistent_with(deals, setup, record).all()
        p = posterior.probabilities()
        for card in range(setup.deck.num_cards):
            possible = np.flatnonzero(p[card] > 0)
            if len(possible) < 2:
                continue
            columns = deals[:, card] % setup.num_owners  # owner codes (-1 the envelope) to columns
            observed = np.bincount(columns, minlength=setup.num_owners)[possible]
            assert chi_square_p(observed, p[card, possible] * n) > 1e-4, (model, card)
        # The envelope triple too.
        joint = posterior.envelope().reshape(-1)
        offsets = [c.start for c in setup.deck.categories]
        envelope = np.array([np.flatnonzero(d == setup.envelope) for d in deals]) - offsets
        index = np.ravel_multi_index(envelope.T, setup.deck.sizes)
        possible = np.flatnonzero(joint > 0)
        if len(possible) > 1:
            observed = np.bincount(index, minlength=len(joint))[possible]
            assert chi_square_p(observed, joint[possible] * n) > 1e-4, model


# ---------------------------------------------------------------------------
# Real games: invariants, and an independent exact counter on full-size histories
# ---------------------------------------------------------------------------


def game_events(config, agent_names: list[str], seed: int) -> np.ndarray:
    """The full event log of one game of the rules core."""
    from agents.arena import play_batch
    from agents.registry import make_agent

    log: list[np.ndarray] = []

    def on_step(state) -> None:
        log.append(state.events[0, : state.num_events[0]].copy())

    agents = [make_agent(name, seed=seed + k) for k, name in enumerate(agent_names)]
    play_batch(config, agents, [seed], on_step=on_step)
    return np.concatenate(log)


def check_invariants(posterior, setup: Setup) -> None:
    p = posterior.probabilities(exact=True)
    assert (p.sum(axis=1) == 1).all()
    for owner in setup.owners:
        assert p[:, owner].sum() == setup.owner_size(owner)
    assert posterior.envelope(exact=True).sum() == 1
    floats = posterior.probabilities()
    assert ((floats == 1) == (p == 1)).all() and ((floats == 0) == (p == 0)).all()


@pytest.mark.parametrize(
    ("players", "lineup", "duel"),
    [(4, "sat", False), (6, "random", False), (3, "notepad", False), (5, "mixed", False), (2, "sat", True)],
)
def test_invariants_on_real_games(players: int, lineup: str, duel: bool) -> None:
    from cluedo_env import core
    from cluedo_env.inference.from_events import RecordMaker, setup_of

    config = core.GameConfig(num_players=players, duel=duel, max_turns=60)
    names = ["sat", "random", "notepad"] * 2 if lineup == "mixed" else [lineup] * 6
    events = game_events(config, names[:players], seed=players)
    setup = setup_of(config)
    for observer in range(players):
        maker = RecordMaker(setup, observer)
        state = Beliefs(setup, observer, model="weighted" if observer == 1 else "counting")
        records = []
        for event in core.read_events(core.private_view(events, observer)):
            record = maker.add(event)
            if record is None:
                continue
            records.append(record)
            state.add(record)
            check_invariants(state.posterior(), setup)
        assert state.posterior().knowledge() == deduce(setup, observer, records)
        once = beliefs_from_events(config, observer, events, model=state.model)
        assert once.num_deals == state.posterior().num_deals
        assert (once.probabilities(exact=True) == state.posterior().probabilities(exact=True)).all()


def ganak_count(setup: Setup, records: list[Record]) -> int:
    """The number of deals by pyganak: a CNF of the deal rules and the records (Notepad's clauses),
    cardinalities encoded with auxiliary variables, counted projected onto the (card, owner) variables."""
    pyganak = pytest.importorskip("pyganak")
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    pool = IDPool()
    var = np.array(
        [[pool.id(("holds", c, o)) for o in range(setup.num_owners)] for c in range(setup.deck.num_cards)]
    )
    main = int(var.max())
    clauses: list[list[int]] = []

    def exactly(lits: list[int], bound: int) -> None:
        clauses.extend(
            CardEnc.equals([int(v) for v in lits], bound, vpool=pool, encoding=EncType.seqcounter).clauses
        )

    for card in range(setup.deck.num_cards):
        exactly(list(var[card]), 1)
    for category in setup.deck.categories:
        exactly(list(var[list(category), setup.envelope]), 1)
    for owner in setup.owners:
        if owner != setup.envelope:
            exactly(list(var[:, owner]), setup.owner_size(owner))
    for record in records:
        if isinstance(record, OwnHand):
            clauses += [
                [int(var[c, record.player]) * (1 if c in record.cards else -1)] for c in range(len(var))
            ]
        elif isinstance(record, Suggestion):
            clauses += [[-int(var[c, p])] for p in record.passed for c in record.cards]
            if record.shown_by is not None:
                clauses.append([int(var[c, record.shown_by]) for c in record.cards])
            if record.shown_card is not None:
                clauses.append([int(var[record.shown_card, record.shown_by])])
        elif isinstance(record, Accusation):
            if record.correct:
                clauses += [[int(var[c, setup.envelope])] for c in record.cards]
            else:
                clauses.append([-int(var[c, setup.envelope]) for c in record.cards])
        else:
            clauses.append([int(var[record.card, record.owner])])
    counter = pyganak.Counter()
    counter.new_vars(pool.top)
    counter.set_sampling_set(range(1, main + 1))
    for clause in clauses:
        counter.add_clause(clause)
    return int(counter.count())


@pytest.mark.parametrize(
    ("players", "lineup", "duel"),
    [(4, "sat", False), (6, "random", False), (3, "notepad", False), (5, "sat", False), (2, "random", True)],
)
def test_counts_equal_an_independent_exact_model_counter(players: int, lineup: str, duel: bool) -> None:
    """Full-size classic histories, counted by pyganak where it finishes within seconds: from the
    first record after which at most 5,000 deals are left (larger counts take it minutes) to the end."""
    from cluedo_env import core
    from cluedo_env.inference.from_events import RecordMaker, setup_of

    config = core.GameConfig(num_players=players, duel=duel, max_turns=80)
    events = game_events(config, [lineup] * players, seed=11 + players)
    setup = setup_of(config)
    maker = RecordMaker(setup, 1)
    records = maker.add_events(core.private_view(events, 1))
    state, counts = Beliefs(setup, 1), []
    for record in records:
        state.add(record)
        counts.append(state.posterior().num_deals)
    first = next(i for i, count in enumerate(counts) if count <= 5000)
    checked = sorted({first, (first + len(records)) // 2, len(records) - 1})
    for i in checked:
        assert counts[i] == ganak_count(setup, records[: i + 1]), i


def test_benchmark_beliefs_section_reports_figures() -> None:
    from experiments.benchmark import SECTIONS
    from experiments.benchmark.belief_updates import measure_beliefs

    assert "beliefs" in SECTIONS
    row = measure_beliefs(4, "random", games=2, seed=0)
    assert row["games"] == 2 and row["records_timed"] > 0 and row["events_timed"] > row["records_timed"]
    assert 0 < row["record_median_ms"] <= row["record_p99_ms"] <= row["record_max_ms"]
    assert row["scratchs_timed"] == 4 and row["peak_rss_mib"] > 0
