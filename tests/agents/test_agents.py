"""Baseline agents behind the one batched interface."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.random_agent import RandomAgent, sample_legal
from agents.registry import AGENTS, make_agent
from cluedo_env import core
from cluedo_env.inference import HELD, Deck, Notepad, Setup
from tests.conftest import ROOT

CLASSIC = core.GameConfig(num_players=4)


def test_sample_legal_is_uniform_over_legal_actions():
    rng = np.random.default_rng(0)
    mask = np.zeros((20000, 6), dtype=bool)
    mask[:, [1, 3, 4]] = True
    picks = sample_legal(rng, mask)
    counts = np.bincount(picks, minlength=6)
    assert counts[[0, 2, 5]].sum() == 0
    assert np.allclose(counts[[1, 3, 4]] / 20000, 1 / 3, atol=0.02)
    with pytest.raises(ValueError, match=r"no legal action \(rows \[0, 1\]\)"):
        sample_legal(rng, np.zeros((2, 3), dtype=bool))


def test_sample_legal_draws_what_the_numpy_formula_draws():
    """The compiled sampler picks, draw for draw, what ``argmax(cumsum(mask) > floor(u * count))``
    picks (so the random agents' games did not change when it was compiled)."""
    rng = np.random.default_rng(3)
    mask = rng.random((5000, 405)) < rng.random((5000, 1)) ** 3  # from a single legal action to all
    mask[np.arange(5000), rng.integers(0, 405, 5000)] = True
    picks = sample_legal(np.random.default_rng(11), mask)
    u = np.random.default_rng(11).random(5000)
    pick = (u * mask.sum(axis=1)).astype(np.int64)
    expected = np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)
    assert np.array_equal(picks, expected)
    assert mask[np.arange(5000), picks].all()


def test_random_agent_accuse_modes():
    with pytest.raises(ValueError, match="accuse must be one of"):
        RandomAgent(accuse="sometimes")
    never = [RandomAgent(seed=k, accuse="never") for k in range(4)]
    result = play_batch(CLASSIC.replace(max_turns=60), never, np.arange(16))
    assert result.accusations.sum() == 0 and result.truncated.all()
    uniform = [RandomAgent(seed=k, accuse="uniform") for k in range(4)]
    result = play_batch(CLASSIC, uniform, np.arange(16))
    assert result.turns.mean() < 8  # 324 accusations beside one roll: out on the first turns


def test_registry_builds_agents_and_names_the_known_ones():
    assert isinstance(make_agent("random", seed=3), RandomAgent)
    assert make_agent("agents.baselines.notepad_agent:NotepadAgent").name == "notepad"
    with pytest.raises(ValueError, match="agent must be one of"):
        make_agent("chess")
    assert {"random", "notepad", "sat", "belief"} <= set(AGENTS)


@pytest.mark.parametrize("name", ["random", "notepad", "sat"])
@pytest.mark.parametrize(
    "config",
    [
        CLASSIC,
        core.GameConfig(num_players=3, board="none"),
        core.GameConfig(num_players=6, movement="squares", accuse_anywhere=False),
        core.GameConfig(num_players=2, duel=True),
        core.GameConfig(edition="classic_fr_1999", stay_in_room=False),
    ],
    ids=["classic4", "none3", "squares6", "duel", "fr7"],
)
def test_agents_play_complete_games_in_every_variant(name, config):
    agents = [make_agent(name, seed=k) for k in range(config.num_players)]
    result = play_batch(config.replace(max_turns=150), agents, np.arange(6), rotation=np.arange(6))
    assert len(result.winner) == 6
    if name != "random":
        assert result.wrong_accusations.sum() == 0


@pytest.mark.parametrize("name", ["sat", "belief", "ismcts"])
def test_agents_play_an_edition_of_one_room(name):
    """``enter`` takes a room even where there is one (the layout encoded it with no argument)."""
    from agents.testing import check_agent
    from cluedo_env.core.editions import Edition

    one_room = Edition(
        "one room", ("Red", "Blue", "Green", "Pink", "Grey", "Teal"), ("Rope",), ("Hall",), (0,)
    )
    config = core.GameConfig(edition=one_room, board="none", num_players=3)
    layout = core.ActionLayout(config)
    assert layout.decode(layout.encode("enter", 0)) == ("enter", (0,))
    check_agent(name, config)


def decisions(name: str, given, steps: int = 30, batch: int = 3, **options) -> list[list[int]]:
    """The actions four ``name`` agents play in the first ``steps`` steps of ``batch`` classic games,
    each ``act`` given ``given(games, mask)`` (the runners give int64 games and a bool mask)."""
    agents = [make_agent(name, seed=k, **options) for k in range(4)]
    state = core.init(CLASSIC, np.arange(batch) + 10)
    seats = np.tile(np.arange(4), (batch, 1))
    for k, agent in enumerate(agents):
        agent.reset(CLASSIC, seats[:, k], seed=k)
    played = []
    for _ in range(steps):
        for k, agent in enumerate(agents):
            agent.observe(state, core.private_view(state.events, seats[:, k][:, None]))
        if state.done.all():
            break
        mask = core.legal_action_mask(state)
        actions = np.zeros(batch, dtype=np.int64)
        for player, agent in enumerate(agents):
            games = np.flatnonzero((state.current_player == player) & ~state.done)
            if len(games):
                actions[games] = agent.act(state, *given(games, mask[games]))
        played.append(actions.tolist())
        core.step(state, actions)
    return played


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("random", {}),
        ("notepad", {}),
        ("sat", {}),
        ("belief", {}),
        ("ismcts", {"iterations": 8}),
        ("determinize", {"samples": 8}),
        ("learned", {}),
    ],
)
def test_every_agent_reads_a_0_1_integer_mask_and_a_list_of_games_as_a_bool_mask_and_indices(name, options):
    """PettingZoo's ``action_mask`` is ``int8``: the notepad agent read ``solved & mask[rows, accusation]``
    as indices and accused on its first turn (and refused a list of games with an unclear TypeError)."""
    expected = decisions(name, lambda games, mask: (games, mask), **options)
    for given in (
        lambda games, mask: (games, mask.astype(np.int8)),
        lambda games, mask: (games, mask.astype(np.uint8)),
        lambda games, mask: (games.tolist(), mask),
    ):
        assert decisions(name, given, **options) == expected


@pytest.mark.parametrize(
    ("seeds", "rotation", "message"),
    [
        ([3.7, 4.2], 0, r"seeds must be integers in \[0, 2\*\*63\) .*got \[3\.7, 4\.2\]"),
        ([True, 4], 0, r"seeds must be integers .*got \[True, 4\]"),
        (
            np.array([2**63, 4], dtype=np.uint64),
            0,
            r"seeds must be integers .*got array\(\[9223372036854775808",
        ),
        ([2**63, 4], 0, r"seeds must be integers .*got \[9223372036854775808, 4\]"),
        ([3, 4], 1.5, r"rotation must be an integer or one integer per game \(2: .*got 1\.5"),
        ([3, 4], True, r"rotation must be an integer .*got True"),
        ([3, 4], [1, 2, 3], r"rotation must be an integer .*got \[1, 2, 3\]"),
        ([3, 4], [1, True], r"rotation must be an integer .*got \[1, True\]"),  # (played as rotation 1)
        ([3, 4], [np.array(True), 0], r"rotation must be an integer .*got \[array\(True\), 0\]"),
    ],
)
def test_play_batch_refuses_seeds_and_rotations_that_are_not_integers(seeds, rotation, message):
    """They were cast to int64: 3.7 played game 3, True game 1, rotation 1.5 rotation 1."""
    agents = [RandomAgent(seed=k) for k in range(3)]
    with pytest.raises(ValueError, match=message):
        play_batch(core.GameConfig(num_players=3), agents, seeds, rotation=rotation)


@pytest.mark.parametrize("given", [[2], np.array([2]), (np.int64(2),)])
def test_play_batch_takes_one_rotation_in_a_list_or_array_of_one_for_every_game(given):
    """A rotation of one element broadcast to every game, and was refused once each game's was checked."""
    config = core.GameConfig(num_players=3)
    one = play_batch(config, [RandomAgent(seed=k) for k in range(3)], [3, 4], rotation=given)
    plain = play_batch(config, [RandomAgent(seed=k) for k in range(3)], [3, 4], rotation=2)
    assert one.seats.tolist() == plain.seats.tolist() and one.winner.tolist() == plain.winner.tolist()


def test_play_batch_takes_one_seed_as_core_init_does():
    config = core.GameConfig(num_players=3)
    one = play_batch(config, [RandomAgent(seed=k) for k in range(3)], 3)
    listed = play_batch(config, [RandomAgent(seed=k) for k in range(3)], [3])
    assert one.seeds.tolist() == [3] and one.winner.tolist() == listed.winner.tolist()


@pytest.mark.parametrize(("agent_seed", "deal_seed"), [(np.int32(1), 2**40), (np.int64(2**63 - 1), 3)])
def test_a_numpy_agent_seed_plus_the_deal_seed_is_summed_as_python_ints(agent_seed, deal_seed):
    """``play_batch`` reseeds each agent with its seed plus the first deal seed: a numpy seed overflowed
    (int32) or wrapped negative (int64), where the same Python int plays on."""
    config = core.GameConfig(num_players=3)

    def play(seed):
        agents = [RandomAgent(seed=seed)] + [RandomAgent(seed=k) for k in (1, 2)]
        result = play_batch(config, agents, [deal_seed, 5])
        return result.winner.tolist(), result.turns.tolist(), agents[0].rng.bit_generator.state

    assert play(agent_seed) == play(int(agent_seed))


def test_agents_pickle():
    for name in ("random", "notepad", "sat", "belief"):
        agent = make_agent(name, seed=1)
        agent.reset(CLASSIC, np.zeros(2, dtype=np.int64))
        clone = pickle.loads(pickle.dumps(agent))
        assert type(clone) is type(agent)


def test_sat_knowledge_is_what_its_notepad_entails():
    agents = [make_agent("sat", seed=0)] + [make_agent("random", seed=k) for k in range(1, 4)]
    checked = 0

    def check(state):
        nonlocal checked
        sat = agents[0]
        for game in range(len(state.seed)):
            knowledge = sat.knowledge(game)
            seat = int(sat.seats[game])
            owner = state._owner[game]
            held = np.flatnonzero(knowledge.status[:, seat] == HELD)
            assert set(held) <= set(np.flatnonzero(owner == seat))  # sound about its own hand
            for card, who, holds in knowledge.facts():
                truth = owner[card] == (who if who < 4 else core.ENVELOPE)
                assert truth == holds, (game, card, who)  # every entailed fact is true
            checked += 1

    play_batch(CLASSIC.replace(max_turns=40), agents, np.arange(4), rotation=np.arange(4), on_step=check)
    assert checked > 100


def test_sat_deduction_matches_a_fresh_notepad():
    setup = Setup.dealt(Deck(6, 6, 9), 4)
    agents = [make_agent("sat", seed=0)] + [make_agent("notepad", seed=k) for k in range(1, 4)]
    play_batch(CLASSIC.replace(max_turns=30), agents, [11])
    sat = agents[0]
    fresh = Notepad(setup, int(sat.seats[0]), sat.notepads[0].records)
    assert fresh.knowledge() == sat.knowledge(0)


def test_strength_in_a_small_run():
    """The ordering the slow test checks on 2,000 games, on a few dozen."""
    seeds = np.arange(48)
    lineup = [make_agent("sat", seed=0)] + [make_agent("notepad", seed=k) for k in range(1, 4)]
    result = play_batch(CLASSIC, lineup, seeds, rotation=seeds % 4)
    assert (result.winner == 0).mean() > 0.25
    lineup = [make_agent("notepad", seed=0)] + [make_agent("random", seed=k) for k in range(1, 4)]
    result = play_batch(CLASSIC, lineup, seeds, rotation=seeds % 4)
    assert (result.winner == 0).mean() > 0.5


@pytest.mark.slow
def test_sat_never_accuses_wrongly_in_2000_games():
    seeds = np.arange(2000)
    lineup = [make_agent("sat", seed=0)] + [
        make_agent(n, seed=k) for k, n in enumerate(["notepad", "random", "sat"], 1)
    ]
    result = play_batch(CLASSIC, lineup, seeds, rotation=seeds % 4)
    assert result.wrong_accusations[:, [0, 3]].sum() == 0


@pytest.mark.slow
def test_sat_always_wins_against_random_players_who_never_accuse():
    seeds = np.arange(300)
    lineup = [make_agent("sat", seed=0)] + [RandomAgent(seed=k, accuse="never") for k in range(1, 4)]
    result = play_batch(CLASSIC, lineup, seeds, rotation=seeds % 4)
    assert (result.winner == 0).all()


@pytest.mark.parametrize(
    "name, options", [("belief", {}), ("ismcts", {}), ("sat", {"gamble_at_truncation": True})]
)
def test_an_agent_accuses_on_its_own_last_turn_before_truncation(name, options):
    """Turns count every player's: an agent's last turn is the last before the count reaches max_turns
    from its seat, not only the game's final turn, which one seat of four plays."""
    config = core.GameConfig(num_players=4, board="none", max_turns=6)
    seeds = np.arange(40)
    lineup = [make_agent(name, seed=0, **options)] + [
        RandomAgent(seed=k, accuse="never") for k in range(1, 4)
    ]
    result = play_batch(config, lineup, seeds, rotation=seeds % 4)
    assert (result.accusations[:, 0] >= 1).all()


def test_deduce_from_events_equals_brute_force_on_a_small_deck():
    """Whole games of the core on a 3+2+3-card deck: every fact any player deduces is exactly brute force's."""
    from cluedo_env.core.editions import Edition
    from cluedo_env.inference import brute_force
    from cluedo_env.inference.from_events import RecordMaker, deduce_from_events, setup_of

    small = Edition("small", ("Red", "Blue", "Green"), ("Rope", "Knife"), ("Hall", "Den", "Attic"), (0, 1))
    config = core.GameConfig(edition=small, board="none", num_players=3, max_turns=12)
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(12):
        state = core.init(config, [seed])
        log = [state.events[0, : state.num_events[0]].copy()]
        while not state.done[0]:
            mask = core.legal_action_mask(state)
            layout = core.rules_for(config).layout
            calm = mask.copy()
            calm[:, layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = rng.random() < 0.05
            calm &= mask
            core.step(state, sample_legal(rng, calm if calm.any() else mask))
            log.append(state.events[0, : state.num_events[0]].copy())
        events = np.concatenate(log)
        setup = setup_of(config)
        for player in range(3):
            maker = RecordMaker(setup, player)
            records = [
                r for r in (maker.add(row) for row in core.private_view(events, player)) if r is not None
            ]
            assert deduce_from_events(config, player, events) == brute_force(setup, player, records)
            checked += 1
    assert checked == 36


def test_an_agent_of_ones_own_loads_from_the_current_folder_as_python_m_finds_it(tmp_path):
    """An installed ``cluedo-*`` command's script does not put the current folder on sys.path."""
    (tmp_path / "myagent.py").write_text("from agents.baselines.random_agent import RandomAgent as Mine\n")
    code = (
        "import os, sys; sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]; "
        "from agents.registry import make_agent; print(type(make_agent('myagent:Mine')).__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "RandomAgent", done.stderr


@pytest.mark.parametrize(
    ("name", "blocked", "extra"), [("ppo", "torch", "train"), ("openspiel", "pyspiel", "openspiel")]
)
def test_an_agent_whose_extra_is_missing_says_which_to_install(name, blocked, extra):
    code = (
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "from agents.registry import make_agent\n"
        f"try: make_agent({name!r})\n"
        "except ValueError as error: print(error)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert f"it comes with the '{extra}' extra of cluedo-env" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("name", ["belief", "ismcts", "determinize", "sat"])
def test_an_unknown_option_is_named_with_the_agent(name):
    with pytest.raises(ValueError, match=rf"agent '{name}' has no option 'bogus'"):
        make_agent(name, bogus=1)


def _load(path):
    return path


class _FaultyAgent(RandomAgent):
    """Takes ``checkpoint`` but calls a helper with a keyword it does not take: the agent's bug."""

    def __init__(self, seed=0, checkpoint=None):
        super().__init__(seed=seed)
        _load(checkpoint=checkpoint)


def test_a_type_error_inside_an_agent_is_not_blamed_on_an_option_it_takes():
    with pytest.raises(TypeError, match=r"_load\(\) got an unexpected keyword argument 'checkpoint'"):
        make_agent("tests.agents.test_agents:_FaultyAgent", checkpoint="model.pt")
    with pytest.raises(ValueError, match="has no option 'bogus'"):
        make_agent("tests.agents.test_agents:_FaultyAgent", bogus=1)
