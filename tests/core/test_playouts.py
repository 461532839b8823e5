"""Invariants over random playouts, determinism, batch independence and pickling."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

from agents.baselines.random_agent import sample_legal
from cluedo_env import core
from cluedo_env.core import events as ev

CONFIGS = [
    core.GameConfig(num_players=3),
    core.GameConfig(num_players=4),
    core.GameConfig(num_players=6, movement="squares", dice=1),
    core.GameConfig(num_players=5, board="none", stay_in_room=False, accuse_anywhere=False),
    core.GameConfig(num_players=2, duel=True),
    core.GameConfig(edition="classic_fr_2000", auto_refute=True, start_player="random"),
    core.GameConfig(edition="de_2023", max_turns=40),
]


def random_playout(config, seeds, rng_seed=0, accuse_rate=0.02, on_step=None):
    """Random legal actions, accusing rarely; returns the final state and GAME_OVER events per game."""
    state = core.init(config, seeds)
    endings = np.zeros(len(state.seed), dtype=np.int64)
    rng = np.random.default_rng(rng_seed)
    layout = core.rules_for(config).layout
    accusations = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    steps = 0
    bound = config.max_turns * (config.num_players + 6)
    while not state.done.all():
        mask = core.legal_action_mask(state)
        if on_step:
            on_step(state, mask)
        calm = mask.copy()
        calm[:, accusations] = False
        use_calm = calm.any(axis=1) & (rng.random(len(mask)) > accuse_rate)
        choice = np.where(use_calm[:, None], calm, mask)
        choice[state.done] = True
        core.step(state, sample_legal(rng, choice))
        endings += (state.events[:, :, ev.KIND] == ev.GAME_OVER).sum(axis=1)
        steps += 1
        assert steps <= bound, "a game did not end within its bound"
    return state, endings


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.board}-{c.edition}")
def test_invariants_hold_at_every_step(config):
    C = config.cards.num_cards
    S, W = config.cards.num_suspects, config.cards.num_weapons
    hand = None

    def check(state, mask):
        nonlocal hand
        live = ~state.done
        assert mask[live].any(axis=1).all(), "the acting player has no legal action"
        assert not mask[~live].any(), "a finished game offers actions"
        owner = state._owner
        if hand is None:
            hand = owner.copy()
        assert np.array_equal(owner, hand), "cards never change hands"
        for lo, hi in ((0, S), (S, S + W), (S + W, C)):
            assert ((owner[:, lo:hi] == core.ENVELOPE).sum(axis=1) == 1).all()
        assert ((state.current_player >= 0) == live).all()
        for kind in core.OBSERVATION_KINDS:  # observations stay inside Box(0, 1)
            seen = core.observe(state, np.maximum(state.current_player, 0), kind=kind)
            assert seen.min() >= 0.0 and seen.max() <= 1.0
        assert (state.location[live] >= 0).all()
        # Refutation is only asked of a player holding a named card.
        refute = np.flatnonzero(state.phase == core.Phase.REFUTE)
        held = owner[refute[:, None], state.suggestion[refute]] == state.current_player[refute, None]
        assert held.any(axis=1).all()

    state, endings = random_playout(config, np.arange(24), on_step=check)
    assert (state.terminated ^ state.truncated).all()
    assert (endings == 1).all(), "every game ends exactly once"


def test_game_alone_replays_identically_to_game_in_batch():
    config = core.GameConfig(num_players=4)
    seeds = np.array([5, 17, 99, 1234])
    batch = core.init(config, seeds)
    alone = [core.init(config, [s]) for s in seeds]
    rng = np.random.default_rng(1)
    for _ in range(400):
        if batch.done.all():
            break
        mask = core.legal_action_mask(batch)
        mask[batch.done] = True
        actions = sample_legal(rng, mask)
        core.step(batch, actions)
        for i, single in enumerate(alone):
            if not single.done[0]:
                core.step(single, actions[i : i + 1])
            assert single == batch.take([i])


def test_same_seed_same_game_and_different_seeds_differ():
    config = core.GameConfig()
    a, _ = random_playout(config, np.arange(8), rng_seed=3)
    b, _ = random_playout(config, np.arange(8), rng_seed=3)
    assert a == b
    deals = core.init(config, np.arange(50))._owner
    assert len({d.tobytes() for d in deals}) == 50


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.board}-{c.edition}")
def test_reset_deals_in_place_exactly_as_init(config):
    # Games played on for a while, then dealt again in place, equal the games init deals.
    state, _ = random_playout(config, np.arange(50), rng_seed=4)
    before = state.copy()
    for games in ([3], [0, 7, 12], np.arange(1, 50, 1)):
        seeds = 1000 + np.asarray(games)
        core.reset(state, games, seeds)
        assert state.take(games) == core.init(config, seeds)
        others = np.setdiff1d(np.arange(50), games)
        assert state.take(others) == before.take(others)
        state = before.copy()
    # A reset game plays on exactly like the same game dealt alone.
    core.reset(state, [5], [77])
    alone = core.init(config, [77])
    rng = np.random.default_rng(0)
    for _ in range(60):
        if alone.done[0]:
            break
        action = sample_legal(rng, core.legal_action_mask(alone))
        actions = np.zeros(50, dtype=np.int64)
        actions[5] = action[0]
        core.step(alone, action)
        core.step(state, actions, games=[5])
        assert state.take([5]) == alone


def test_put_rows_equals_plain_assignment():
    from cluedo_env.core.state import put_rows

    rng = np.random.default_rng(0)
    for n in (3, 600):  # plain assignment below 512 rows, opaque row copies from there
        for shape, dtype in (((), np.int8), ((2,), np.int8), ((182,), bool), ((21, 7), np.int16)):
            array = rng.integers(0, 100, (2 * n, *shape)).astype(dtype)
            rows = rng.choice(2 * n, n, replace=False)
            values = rng.integers(0, 100, (n, *shape)).astype(dtype)
            want = array.copy()
            want[rows] = values
            put_rows(array, rows, values)
            np.testing.assert_array_equal(array, want)


def test_reset_rejects_bad_games_and_seeds():
    state = core.init(core.GameConfig(), np.arange(4))
    with pytest.raises(ValueError, match="one entry per game"):
        core.reset(state, [0, 1], [5])
    with pytest.raises(ValueError, match=r"games must be indices in \[0, 4\)"):
        core.reset(state, [4], [5])
    with pytest.raises(ValueError, match=r"seeds must be integers in \[0, 2\*\*63\)"):
        core.reset(state, [1], [-3])
    with pytest.raises(TypeError, match=r"games must be a list or 1-D integer array of game indices"):
        core.reset(state, np.array([True, False, True, False]), [5, 6])  # a mask is not indices
    with pytest.raises(TypeError, match=r"games must be a list or 1-D integer array"):
        core.reset(state, [1.0], [5])
    before = state.copy()
    with pytest.raises(ValueError, match=r"seeds must be integers in \[0, 2\*\*63\)"):
        core.reset(state, [1], [2**63])
    assert state == before
    core.reset(state, [], [])  # nothing to deal


@pytest.mark.parametrize(
    "seeds",
    [
        2**63,
        2**64 - 1,
        2**64,
        [1, 2**70],
        -1,
        1.5,
        [True],
        [True, 4],
        np.array([2**63], dtype=np.uint64),
        "7",
        [[1]],
    ],
)
def test_init_refuses_seeds_outside_the_int64_range(seeds):
    """Seeds are stored as int64: from 2**63 up they would be stored negative, so they are refused."""
    with pytest.raises(ValueError, match=r"seeds must be integers in \[0, 2\*\*63\)"):
        core.init(core.GameConfig(), seeds)


def test_init_accepts_every_seed_of_the_range():
    config = core.GameConfig()
    top = 2**63 - 1
    for seeds in (top, [0, top], np.array([top], dtype=np.uint64), range(3), np.arange(3, dtype=np.int8)):
        state = core.init(config, seeds)
        assert (state.seed >= 0).all()
        assert state.seed.tolist() == np.atleast_1d(np.asarray(seeds)).astype(np.int64).tolist()
    assert core.init(config, [top]) == core.init(config, np.array([top], dtype=np.uint64))


def test_max_turns_up_to_its_bound_counts_turns_in_the_events():
    """Turn numbers travel in int16 event fields: the largest accepted max_turns fits them."""
    config = core.GameConfig(board="none", max_turns=32767, start_player="scarlet")
    for batch in (1, 2):
        state = core.init(config, range(batch))
        state.turn[:] = 32765
        end_turn = core.rules_for(config).layout.encode("end_turn")
        no_suggestion = core.rules_for(config).layout.encode("no_suggestion")
        enter = core.rules_for(config).layout.encode("enter", 0)
        turns = []
        while not state.done.all():
            for action in (enter, no_suggestion, end_turn):
                core.step(state, [action] * batch)
            rows = state.events[0, : state.num_events[0]]
            turns += rows[rows[:, 0] == ev.TURN, 2].tolist()
        assert turns == [32766]
        assert state.truncated.all() and (state.turn == 32767).all()


def test_state_pickles_and_copies():
    config = core.GameConfig(num_players=5)
    state, _ = random_playout(config, np.arange(4), rng_seed=2)
    assert pickle.loads(pickle.dumps(state)) == state
    copy = state.copy()
    copy.location[0, 0] = 3
    assert copy != state


def test_core_state_is_small():
    for config in (core.GameConfig(num_players=6), core.GameConfig(num_players=6, movement="squares")):
        state = core.init(config, np.arange(64))
        assert state.nbytes_per_game() <= 4096


@pytest.mark.parametrize("kind", core.OBSERVATION_KINDS)
def test_observe_selected_games_one_viewer_and_no_games(kind):
    config = core.GameConfig(num_players=4)
    state, _ = random_playout(config, np.arange(6), rng_seed=4)
    viewers = np.array([0, 3, 1, 2, 2, 1])
    everyone = core.observe(state, viewers, kind=kind)
    games = np.array([4, 1, 1])
    np.testing.assert_array_equal(core.observe(state, viewers[games], games, kind=kind), everyone[games])
    one_viewer = core.observe(state, 2, kind=kind)  # one viewer for every game
    assert not np.shares_memory(one_viewer, everyone)  # results held by the caller are never reused
    np.testing.assert_array_equal(everyone, core.observe(state, viewers, kind=kind))
    np.testing.assert_array_equal(one_viewer[viewers == 2], everyone[viewers == 2])
    np.testing.assert_array_equal(core.observe(state, 2, games, kind=kind), one_viewer[games])
    size = core.observation_size(config, kind)
    for no_games in (np.array([], dtype=np.int64), []):  # no pairs: an empty batch, not an error
        empty = core.observe(state, np.array([], dtype=np.int64), no_games, kind=kind)
        assert empty.shape == (0, size) and empty.dtype == np.float32
    assert core.observe(state.take([]), 0, kind=kind).shape == (0, size)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.board}-{c.edition}")
def test_observe_of_one_game_equals_the_batched_observe(config):
    """A game observed alone (a batch of one, one viewer: the env's call) equals its row in a batch."""
    checked = []

    def compare(state, _mask):
        if len(checked) % 3:
            checked.append(False)
            return
        for game in np.flatnonzero(~state.done):
            alone = state.take([game])
            for kind in core.OBSERVATION_KINDS:
                batched = core.observe(
                    state, np.arange(config.num_players), [game] * config.num_players, kind=kind
                )
                for viewer in range(config.num_players):
                    one = core.observe(alone, viewer, kind=kind)
                    assert one.shape == (1, batched.shape[1]) and one.dtype == np.float32
                    np.testing.assert_array_equal(
                        one[0], batched[viewer], err_msg=f"{kind} view of P{viewer}"
                    )
        checked.append(True)

    random_playout(config, np.arange(4), rng_seed=9, on_step=compare)
    assert sum(checked) > 20


def test_one_game_keeps_the_observed_fields_in_one_buffer():
    """A batch of one shares one buffer for every field; a replaced field is still observed."""
    from cluedo_env.core.layout import STATE_FIELDS

    BUFFERED = [name for name, _, _ in STATE_FIELDS]

    config = core.GameConfig(num_players=4)
    state, _ = random_playout(config, np.arange(3), rng_seed=2, accuse_rate=0.0)
    alone = state.take([1])
    assert all(getattr(alone, name).base is alone._buffer for name in BUFFERED)
    expected = core.observe(state, np.arange(4), [1] * 4)
    for other in (pickle.loads(pickle.dumps(alone)), alone.copy()):
        assert all(getattr(other, name).base is other._buffer for name in BUFFERED)
        np.testing.assert_array_equal(np.concatenate([core.observe(other, v) for v in range(4)]), expected)
    alone.location = alone.location.copy()  # a field replaced: the state packs a new buffer
    assert all(getattr(alone, name).base is alone._buffer for name in BUFFERED)
    alone.location[0, 0] = alone.location[0, 1]
    state.location[1, 0] = state.location[1, 1]
    np.testing.assert_array_equal(core.observe(alone, 2), core.observe(state, [2], [1]))


def finished_and_running_games() -> core.State:
    """A batch of 12 games played at random (accusing rarely) until some, not all, are over."""
    state = core.init(core.GameConfig(board="none"), np.arange(12))
    layout = core.rules_for(state.config).layout
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    rng = np.random.default_rng(1)
    while not state.done.any():
        live = np.flatnonzero(~state.done)
        mask = core.legal_action_mask(state)[live]
        mask[:, accuse] &= rng.random((len(live), 1)) < 0.02
        actions = np.zeros(12, dtype=np.int64)
        actions[live] = sample_legal(rng, mask)
        core.step(state, actions)
    assert not state.done.all()
    return state


def test_observe_refuses_the_viewer_of_a_finished_game():
    """The README's loop observed ``state.current_player``, -1 once a game is over: the
    envelope then filled the "hand" piece. Viewers outside [0, P) are refused, naming the games."""
    state = finished_and_running_games()
    over = np.flatnonzero(state.done)
    with pytest.raises(
        ValueError,
        match=rf"players must be in \[0, 4\), got \[-1.*for games {re.escape(str(over[:10].tolist()))}.*finished game",
    ):
        core.observe(state, state.current_player)
    for viewer in (-1, 4, np.int64(-1)):
        with pytest.raises(ValueError, match=r"players must be in \[0, 4\)"):
            core.observe(state, viewer)
        with pytest.raises(ValueError, match=r"players must be in \[0, 4\)"):
            core.observe(state.take([0]), viewer)  # the one-game path returned another player's hand
    live = np.flatnonzero(~state.done)
    assert core.observe(state, state.current_player[live], games=live).shape[0] == len(live)


@pytest.mark.parametrize(
    ("players", "games", "error", "message"),
    [
        (0, [0.0, 1.0], TypeError, r"games must be a list or 1-D integer array of game indices"),
        (0, np.ones(12, dtype=bool), TypeError, r"games must be .*np.flatnonzero\(mask\)"),
        (0, [12], ValueError, r"games must be indices in \[0, 12\), got \[12\]"),
        (0, [-1], ValueError, r"games must be indices in \[0, 12\)"),
        # games is checked first: a scalar, a 2-D array or a mask is blamed, not players' shape
        (0, 1, TypeError, r"games must be a list or 1-D integer array .*got int64 of shape \(\): 1"),
        (0, np.int64(1), TypeError, r"games must be a list or 1-D integer array .*of shape \(\)"),
        (np.zeros(3, dtype=np.int64), [[0, 1, 2]], TypeError, r"games must be .*of shape \(1, 3\)"),
        (np.zeros(2, dtype=np.int64), np.ones(12, dtype=bool), TypeError, r"games must be .*got a bool mask"),
        (np.zeros(12), None, TypeError, r"players must be an int or an integer array of shape \(12,\)"),
        (np.zeros(3, dtype=np.int64), None, TypeError, r"players must be an int or an integer array"),
        (True, None, TypeError, r"players must be an int or an integer array"),
    ],
)
def test_observe_refuses_bad_games_and_viewers(players, games, error, message):
    state = finished_and_running_games()
    with pytest.raises(error, match=message):
        core.observe(state, players, games=games)


@pytest.mark.parametrize("games", [1, [[0, 1]], np.ones(12, dtype=bool), [0.0]])
def test_observe_and_step_refuse_bad_games_with_the_same_message(games):
    state = finished_and_running_games()
    with pytest.raises(TypeError) as stepped:
        core.step(state, np.zeros(12, dtype=np.int64), games=games)
    with pytest.raises(TypeError) as observed:
        core.observe(state, 0, games=games)
    assert str(observed.value) == str(stepped.value)


@pytest.mark.parametrize("kind", core.OBSERVATION_KINDS)
def test_a_finished_game_observes_the_viewers_final_knowledge(kind):
    state = finished_and_running_games()
    config = state.config
    pieces = {name: (shape, offset) for name, shape, offset in core.observation_pieces(config, kind)}

    def piece(row, name):
        shape, offset = pieces[name]
        return row[offset : offset + int(np.prod(shape))].reshape(shape)

    over = int(np.flatnonzero(state.done)[0])
    for viewer in range(config.num_players):
        row = core.observe(state, viewer, games=[over], kind=kind)[0]
        alone = core.observe(state.take([over]), viewer, kind=kind)[0]  # the one-game path agrees
        np.testing.assert_array_equal(row, alone)
        assert piece(row, "phase").tolist() == [0, 0, 0, 0, 0, 1]
        assert not piece(row, "current_player").any()
        assert np.array_equal(piece(row, "hand"), state._owner[over] == viewer)
