"""``python_cluedo``, Cluedo as an OpenSpiel game: OpenSpiel's own consistency test, the observers'
privacy, serialisation by replay and resampling from the exact posterior.

The simulation tests play ``max_turns=40`` (random players seldom last longer; it keeps the file
well under a minute).
"""

from __future__ import annotations

import collections
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from cluedo_env import core  # noqa: E402
from cluedo_env.core.editions import Edition  # noqa: E402
from cluedo_env.core.state import Phase  # noqa: E402
from cluedo_env.openspiel_game import CluedoGame, max_game_length  # noqa: E402
from cluedo_env.openspiel_observer import PRIVATE_PIECES  # noqa: E402
from cluedo_env.openspiel_resample import resample_state  # noqa: E402
from cluedo_env.openspiel_state import CluedoState  # noqa: E402

CONFIGS = [
    {"players": players, "board": board, "max_turns": 40, **({"duel": True} if players == 2 else {})}
    for board in ("classic", "none")
    for players in (2, 3, 4, 6)
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: f"{p['board']}-{p['players']}p")
def test_random_sim_test_passes(params):
    game = pyspiel.load_game("python_cluedo", params)
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)


def test_game_info_is_the_configs():
    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none", "max_turns": 7})
    config = core.GameConfig(num_players=3, board="none", max_turns=7)
    assert game.num_players() == 3
    assert game.num_distinct_actions() == core.rules_for(config).A
    assert game.max_game_length() == max_game_length(config) == 21 + 1 + 6 * 7
    assert game.observation_tensor_size() == core.observation_size(config)
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 2}, r"num_players must be one of \[3, 4, 5, 6\] \(2 needs duel=True\), got 2"),
        ({"board": "hex"}, r"board must be one of \['classic', 'none'\], got 'hex'"),
        ({"edition": "nope"}, r"edition must be one of"),
    ],
)
def test_bad_parameters_get_the_configs_message(params, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game("python_cluedo", params)


def play(game, rng, steps, avoid_accusing=True):
    """A state after ``steps`` random actions (chance by its probabilities; players avoid
    accusing, so that games last)."""
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        legal = state.legal_actions()
        layout = state.core_rules.layout
        calm = [a for a in legal if not layout.ACCUSE <= a < layout.ACCUSE + layout.sizes["accuse"]]
        state.apply_action(int(rng.choice(calm if calm and avoid_accusing else legal)))
    return state


def test_serialisation_is_the_action_history_replayed():
    game = pyspiel.load_game("python_cluedo", {"players": 4, "max_turns": 40})
    state = play(game, np.random.default_rng(3), 120)
    text = state.serialize()
    assert text.strip().split("\n") == [str(a) for a in state.history()]
    again = game.deserialize_state(text)
    assert again.history() == state.history()
    assert str(again) == str(state)
    assert again.core == state.core


def test_a_serialised_state_with_actions_after_the_end_or_out_of_range_is_refused():
    """They were taken silently (after the end), or raised pybind's TypeError (too large)."""
    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none", "max_turns": 4})
    state = play(game, np.random.default_rng(0), 400, avoid_accusing=False)
    assert state.is_terminal()
    with pytest.raises(ValueError, match=r"the game is over: no action \(5\)"):
        game.deserialize_state(state.serialize() + "5\n")
    with pytest.raises(ValueError, match=r"one action id \(below 405\) a line; line 1 is '9999"):
        game.deserialize_state("99999999999999999999999\n")
    assert game.deserialize_state(state.serialize()).history() == state.history()
    assert game.deserialize_state(state.serialize() + "\n \r\n").history() == state.history()  # blank lines


def views(state, player):
    """Everything ``player`` is shown: its own view, and the public and private parts OpenSpiel's
    factored types give (with and without perfect recall)."""
    factored = []
    for observer in factored_observers(state.get_game()):
        observer.set_from(state, player)
        factored += [observer.string_from(state, player), tuple(observer.tensor)]
    return (
        state.information_state_string(player),
        state.observation_string(player),
        tuple(state.information_state_tensor(player)),
        tuple(state.observation_tensor(player)),
        *factored,
    )


def factored_observers(game):
    """Public-only and private-only observers, each without and with perfect recall."""
    return [
        game.make_py_observer(
            pyspiel.IIGObservationType(perfect_recall=recall, public_info=public, private_info=private)
        )
        for public, private in [
            (True, pyspiel.PrivateInfoType.NONE),
            (False, pyspiel.PrivateInfoType.SINGLE_PLAYER),
        ]
        for recall in (False, True)
    ]


def leaky_views(state, player):
    """A deliberately leaky view: every event with its true cards."""
    return (*views(state, player), np.concatenate(state.steps).tobytes())


@pytest.mark.parametrize(
    "params", [{"players": 3}, {"players": 2, "duel": True}, {"players": 4, "board": "none"}]
)
def test_a_players_views_never_show_other_players_hidden_cards(params):
    """States that differ only in what the player cannot know (drawn from its posterior) look the
    same to it; the leaky control tells them apart, so the check has teeth."""
    game = pyspiel.load_game("python_cluedo", {**params, "max_turns": 60})
    rng = np.random.default_rng(5)
    caught = 0
    for steps in (40, 90, 160):
        state = play(game, rng, steps)
        for player in range(game.num_players()):
            for _ in range(4):
                other = resample_state(state, player, rng)
                assert views(other, player) == views(state, player)
                if not np.array_equal(other.core._owner, state.core._owner):
                    caught += leaky_views(other, player) != leaky_views(state, player)
    assert caught > 0


def test_resampled_states_keep_the_players_information():
    game = pyspiel.load_game("python_cluedo", {"players": 3, "max_turns": 60})
    rng = np.random.default_rng(7)
    state = play(game, rng, 150)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for player in range(3):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.current_player() == state.current_player()
        assert other.legal_actions() == state.legal_actions() or other.current_player() != player


def test_a_finished_game_resamples_to_the_envelope_it_revealed():
    """The end shows everybody the envelope (``GAME_OVER``), after a truncation too."""
    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none", "max_turns": 1})
    state = play(game, np.random.default_rng(0), 1_000)
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 0.0]  # truncated: nobody accused
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for player in range(3):
        for _ in range(5):
            other = state.resample_from_infostate(player, sampler)
            assert sorted(other.envelope) == sorted(state.envelope)
            assert other.information_state_string(player) == state.information_state_string(player)


def test_an_illegal_roll_is_refused_and_leaves_the_state_as_it_was():
    for params in ({"players": 3, "board": "none", "max_turns": 40}, {"players": 3, "max_turns": 40}):
        game = pyspiel.load_game("python_cluedo", params)
        state = play(game, np.random.default_rng(1), 30)
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        roll = state.core_rules.layout.ROLL
        if roll in state.legal_actions():  # the classic board: roll, then try again
            state.apply_action(roll)
            state.apply_action(state.chance_outcomes()[0][0])
        history = state.history()
        with pytest.raises(ValueError, match=r"illegal action \d+ \(roll\)"):
            state.apply_action(roll)
        assert state.history() == history and not state.is_chance_node()


def small_game():
    """3 players, 3 suspects, 3 weapons, 3 rooms, no board: 2 cards each, few consistent deals."""
    edition = Edition(
        name="tiny",
        suspects=("Scarlett", "Mustard", "White"),
        weapons=("Rope", "Knife", "Pipe"),
        rooms=("Hall", "Study", "Lounge"),
        weapon_start_rooms=(0, 1, 2),
    )
    return CluedoGame.from_config(core.GameConfig(edition=edition, num_players=3, board="none", max_turns=30))


def test_resampled_deals_follow_the_posterior():
    """Chi-square: every deal consistent with player 0's information is equally likely under the
    counting posterior; resampled states' deals are spread so."""
    from scipy.stats import chisquare

    from cluedo_env.inference.beliefs import beliefs_from_events

    game = small_game()
    rng = np.random.default_rng(11)
    state = play(game, rng, 14)  # the deal and a few decisions: some suggestions answered
    posterior = beliefs_from_events(state.config, 0, np.concatenate(state.steps))
    n = 40 * posterior.num_deals
    counts = collections.Counter(
        tuple(resample_state(state, 0, rng).core._owner[0].tolist()) for _ in range(n)
    )
    support = {tuple(d) for d in posterior.sample_deals(20 * posterior.num_deals, rng).tolist()}
    assert set(counts) <= support and len(support) == posterior.num_deals > 2
    observed = [counts.get(deal, 0) for deal in sorted(support)]
    assert chisquare(observed).pvalue > 1e-3
    # and card by card: the marginals match posterior.probabilities()
    owners = np.array([deal for deal, k in counts.items() for _ in range(k)])
    columns = posterior.setup.owners
    frequencies = np.stack([(owners == o).mean(axis=0) for o in columns], axis=1)
    assert np.abs(frequencies - posterior.probabilities()).max() < 0.08


def test_auto_refute_games_are_not_resampled():
    game = pyspiel.load_game("python_cluedo", {"players": 3, "auto_refute": True, "max_turns": 20})
    state = play(game, np.random.default_rng(1), 40)
    with pytest.raises(ValueError, match="auto_refute=False"):
        resample_state(state, 0)


def test_openspiels_python_ismcts_plays_a_game_with_the_states_resampler():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none", "max_turns": 20})
    random_state = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    bots = [ismcts.ISMCTSBot(game, evaluator, 2.0, 10, random_state=random_state) for _ in range(3)]
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(random_state.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
            decisions += 1
    assert decisions > 0 and max(state.returns()) <= 1.0


@pytest.mark.parametrize("params", [{"players": 3, "board": "none"}, {"players": 4}])
def test_an_information_state_string_names_one_decision(params):
    """OpenSpiel's search keys its tree on the string, so two decisions of a player with other legal
    actions have other strings; declining to suggest writes no event, the phase tells them apart."""
    game = pyspiel.load_game("python_cluedo", {**params, "max_turns": 30})
    rng = np.random.default_rng(11)
    legal_of: dict[str, list[int]] = {}
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            key = state.information_state_string(state.current_player())
            assert legal_of.setdefault(key, state.legal_actions()) == state.legal_actions(), key
            state.apply_action(calm_action(state, rng))
    assert len(legal_of) > 100


def calm_action(state, rng: np.random.Generator) -> int:
    """A random legal action, an accusation only where nothing else is legal."""
    layout = state.core_rules.layout
    legal = state.legal_actions()
    calm = [a for a in legal if not layout.ACCUSE <= a < layout.ACCUSE + layout.sizes["accuse"]]
    return int(rng.choice(calm or legal))


def test_openspiels_ismcts_searches_a_suggestion_and_the_accusation_after_declining():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none", "max_turns": 30})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.core_rules.layout.offsets["enter"])  # a room: a suggestion to make or decline
    assert state.core.phase[0] == Phase.SUGGEST
    random_state = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, random_state), 2.0, 100, random_state=random_state
    )
    assert bot.step(state) in state.legal_actions()


def test_chance_outcomes_are_refused_where_no_chance_acts_and_a_root_without_history_is_not_resampled():
    game = pyspiel.load_game("python_cluedo", {"players": 3, "max_turns": 40})
    state = play(game, np.random.default_rng(2), 60)
    assert not state.is_chance_node()
    with pytest.raises(ValueError, match="not a chance node"):
        state.chance_outcomes()
    root = CluedoState.from_core(game, core.clone(state.core, 0, 1), list(state.steps))
    assert root.information_state_string(0) == state.information_state_string(0)
    with pytest.raises(ValueError, match="no history to replay"):
        root.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_a_root_without_history_is_not_serialised_but_pickles():
    """Its text was empty, which deserialises to the game's first chance node: another state."""
    game = pyspiel.load_game("python_cluedo", {"players": 3, "max_turns": 40})
    state = play(game, np.random.default_rng(2), 60)
    root = CluedoState.from_core(game, core.clone(state.core, 0, 1), list(state.steps))
    with pytest.raises(
        ValueError, match=r"no history to replay \(CluedoState.from_core .*: pickle it instead"
    ):
        root.serialize()
    again = pickle.loads(pickle.dumps(root))
    assert again.information_state_string(0) == root.information_state_string(0)
    assert game.deserialize_state(state.serialize()).history() == state.history()  # a played state still is


def test_chance_outcomes_are_what_the_core_plays():
    """The drawn deal is the core's hidden deal, the drawn starting player starts, and a dice
    outcome is the roll the core makes."""
    from cluedo_env.openspiel_state import dice_faces

    game = pyspiel.load_game("python_cluedo", {"players": 4, "max_turns": 30})
    rng = np.random.default_rng(2)
    state = play(game, rng, 22)  # 21 cards and who starts
    assert sorted(state.core._envelope[0].tolist()) == sorted(state.envelope)
    dealt = state.order
    assert [int(state.core._owner[0, c]) for c in dealt] == [k % 4 for k in range(len(dealt))]
    assert state.core.current_player[0] == state.start
    rolls = 0
    while rolls < 20 and not state.is_terminal():
        if state.is_chance_node():
            outcome = int(rng.integers(36))
            state.apply_action(outcome)
            assert tuple(state.core.dice[0].tolist()) == dice_faces(outcome, 2)
            rolls += 1
        else:
            layout = state.core_rules.layout
            legal = state.legal_actions()
            state.apply_action(layout.ROLL if layout.ROLL in legal else legal[-1])
    assert rolls == 20


def test_openspiels_playthrough_prints_the_public_and_private_views_and_replays(tmp_path):
    """OpenSpiel's own regression record of a game (``generate_playthrough``, as its integration
    tests keep one per game): it is written to the end and regenerates identically."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():  # (absltest parses them before OpenSpiel's tests; its defaults)
        flags.FLAGS.mark_as_parsed()
    text = generate_playthrough.playthrough("python_cluedo(board=none,max_turns=4,players=3)", None, seed=3)
    path = tmp_path / "python_cluedo.txt"
    path.write_text(text)
    original, again = generate_playthrough.replay(str(path))
    assert again == original == text
    assert "GameType.provides_factored_observation_string = True" in text
    lines = text.splitlines()
    assert lines[-1].startswith("Returns() = ") and "IsTerminal() = True" in lines
    assert lines.count('PublicObservationString() = "dealing: 0 cards placed"') == 1
    assert sum(line.startswith('PrivateObservationString(2) = "hand ') for line in lines) > 0


@pytest.mark.parametrize("params", [{"players": 3}, {"players": 2, "duel": True}])
def test_the_public_view_is_everyones_and_the_private_one_adds_only_the_players_cards(params):
    game = pyspiel.load_game("python_cluedo", {**params, "max_turns": 60})
    public, public_recall, private, private_recall = factored_observers(game)
    state = play(game, np.random.default_rng(8), 150)
    assert not state.is_terminal()
    players = range(game.num_players())
    for observer in (public, public_recall):
        texts = {observer.string_from(state, player) for player in players}
        tensors = set()
        for player in players:
            observer.set_from(state, player)
            tensors.add(tuple(observer.tensor))
        assert len(texts) == len(tensors) == 1
    events = public_recall.string_from(state, 0).splitlines()
    assert events[-1].startswith("now: player ")
    pieces = [name for name, _, _ in core.observation_pieces(game.config)]
    assert list(public.dict) == [name for name in pieces if name not in PRIVATE_PIECES]
    assert list(private.dict) == [name for name in pieces if name in PRIVATE_PIECES]
    assert {"passed", "showed", "accused"} <= set(public.dict) and {"hand", "shown_to_me"} <= set(
        private.dict
    )
    for player in players:
        own = state.information_state_string(player).splitlines()
        assert own[0] == f"player {player}" and len(own) == len(events) + 1
        mine = private_recall.string_from(state, player).splitlines()
        assert mine[0] == f"player {player}" and len(mine) > 1 and set(mine) <= set(own)
        # every event line is the public one but for the cards only this player sees
        assert sum(a != b for a, b in zip(own[1:], events, strict=True)) == len(mine) - 1
        assert len(public.tensor) + len(private.tensor) == game.observation_tensor_size()


def test_every_players_private_information_at_once_is_refused():
    game = pyspiel.load_game("python_cluedo", {"players": 3})
    with pytest.raises(ValueError, match="private_info=SINGLE_PLAYER or NONE, got private_info="):
        game.make_py_observer(
            pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
        )
