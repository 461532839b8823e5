"""Differential test: the compiled core against the plain-Python reference (``reference.py``).

Random games (random legal actions from a seeded generator, accusations picked
rarely so games are long) are played on the batched core and, game by game, on
``ReferenceGame``. At every step and for every game the legal mask, the events
(in order), rewards, terminated, truncated, winner and current player must be
equal. A second test checks that game i of a batch replays identically alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from cluedo_env import core
from tests.reference import ReferenceGame

ODD_SEEDS = [10**9 + 7, 2**31 - 1, 123_456_789_012]
ACCUSE_RATE = 0.02  # chance to accuse when an accusation is legal
ORACLE_RATE = 0.1  # chance that an accusation names the envelope (so that wins happen)

G = core.GameConfig
# Default run: every switch of docs/RULES.md at least once.
CONFIGS = [
    G(num_players=3),
    G(num_players=4, movement="squares"),
    G(num_players=5, dice=1, start_player="random"),
    G(num_players=6, start_player="scarlet", auto_refute=True),
    G(num_players=2, duel=True),
    G(num_players=2, duel=True, board="none", auto_refute=True, start_player="random"),
    G(num_players=4, board="none", edition="classic_fr_1999", accuse_anywhere=False),
    G(num_players=3, edition="classic_fr", stay_in_room=False, accuse_anywhere=False, max_turns=30),
    G(num_players=6, edition="de_2023", movement="squares", dice=1, max_turns=30, stay_in_room=False),
    G(num_players=6, edition="classic_fr_2000", board="none", auto_refute=True, max_turns=60),
    G(num_players=4, max_turns=30, auto_refute=True, accuse_anywhere=False, start_player="scarlet"),
    G(num_players=5, edition="classic_fr_1999", board="none", movement="squares", dice=1, stay_in_room=False),
    G(num_players=3, deal="uniform"),
    G(num_players=2, duel=True, deal="uniform", start_player="random"),
]
# Slow run: more configs (combinations), many more games.
SLOW_CONFIGS = [
    *CONFIGS,
    G(num_players=3, movement="squares", dice=1, stay_in_room=False, accuse_anywhere=False, max_turns=200),
    G(num_players=4, edition="de_2023", auto_refute=True, start_player="random"),
    G(num_players=5, movement="squares", auto_refute=True, max_turns=30),
    G(num_players=6, dice=1, stay_in_room=False, start_player="random", max_turns=100),
    G(
        num_players=2,
        duel=True,
        movement="squares",
        dice=1,
        stay_in_room=False,
        accuse_anywhere=False,
        max_turns=200,
    ),
    G(num_players=2, duel=True, edition="classic_fr_1999", start_player="scarlet", max_turns=30),
    G(num_players=3, board="none", edition="de_2023", accuse_anywhere=False, max_turns=30),
    G(num_players=6, board="none", stay_in_room=False, start_player="scarlet"),
]


def config_id(config: core.GameConfig) -> str:
    default = core.GameConfig()
    parts = [f"{config.num_players}p"]
    for name in (
        "edition",
        "board",
        "movement",
        "dice",
        "stay_in_room",
        "accuse_anywhere",
        "start_player",
        "duel",
        "max_turns",
        "auto_refute",
        "deal",
    ):
        value = getattr(config, name)
        if value != getattr(default, name):
            parts.append(f"{name}={value}")
    return "-".join(parts)


def _mismatch(config, seed, step, what, core_value, ref_value, history):
    return (
        f"{config_id(config)} seed={seed} step={step}: {what} differ\n"
        f"  core:      {core_value}\n  reference: {ref_value}\n"
        f"  actions so far: {history[-12:]}"
    )


def _choose(rng, mask, layout, refs, live):
    """Random legal actions, accusing rarely (sometimes rightly)."""
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    calm = mask.copy()
    calm[:, accuse] = False
    use_calm = calm.any(axis=1) & (rng.random(len(mask)) >= ACCUSE_RATE)
    choice = np.where(use_calm[:, None], calm, mask)
    choice[~live] = True
    scores = rng.random(mask.shape)
    scores[~choice] = -1.0
    actions = scores.argmax(axis=1)
    oracle = rng.random(len(mask)) < ORACLE_RATE
    for g in np.flatnonzero(live & ~use_calm & oracle):
        env = refs[g].envelope
        S, W = refs[g].S, refs[g].W
        right = layout.encode("accuse", env[0], env[1] - S, env[2] - S - W)
        if mask[g, right]:
            actions[g] = right
    actions[~live] = 0
    return actions


def _scatter_pawns(rng, state, refs):
    """Put the pawns of every game at random, clustered round one square (the same in both)."""
    board = core.classic_board()
    R, N = board.num_rooms, board.num_squares
    for g, ref in enumerate(refs):
        centre = int(rng.integers(N))
        # Squares within 8 moves of the centre, by a plain BFS.
        near, frontier = {centre}, [centre]
        for _ in range(8):
            frontier = [n for sq in frontier for n in board.neighbours[sq] if n not in near]
            near.update(frontier)
        near = sorted(near)
        taken = set()
        for s in range(ref.S):
            if rng.random() < 0.25:
                location = int(rng.integers(R))
            else:
                square = int(rng.choice(near))
                while square in taken:
                    square = int(rng.integers(N))
                taken.add(square)
                location = R + square
            state.location[g, s] = location
            ref.location[s] = location


def play_differential(
    config: core.GameConfig, seeds: list[int], rng_seed: int = 0, scatter: bool = False
) -> tuple[int, int]:
    """Play the games of ``seeds`` on both implementations; returns (games, game-steps) checked.

    With ``scatter``, the pawns start at random places clustered round a square
    (written into ``state.location`` and the reference alike), to test movement
    among many pawns.
    """
    rng = np.random.default_rng(rng_seed)
    state = core.init(config, np.array(seeds, dtype=np.int64))
    layout = core.rules_for(config).layout
    refs = [ReferenceGame(config, seed) for seed in seeds]
    B = len(seeds)
    histories = [[] for _ in range(B)]
    if scatter:
        _scatter_pawns(rng, state, refs)

    def check_outcome(step, games):
        events = state.events.tolist()
        num_events = state.num_events.tolist()
        current = state.current_player.tolist()
        terminated = state.terminated.tolist()
        truncated = state.truncated.tolist()
        winner = state.winner.tolist()
        rewards = state.rewards.tolist()
        for g in games:
            ref = refs[g]
            got = [tuple(row) for row in events[g][: num_events[g]]]
            expected = ref.initial_events if step == 0 else ref.last_events
            h = histories[g]
            assert got == expected, _mismatch(config, seeds[g], step, "events", got, expected, h)
            assert current[g] == ref.current_player, _mismatch(
                config, seeds[g], step, "current_player", current[g], ref.current_player, h
            )
            assert terminated[g] == ref.terminated, _mismatch(
                config, seeds[g], step, "terminated", terminated[g], ref.terminated, h
            )
            assert truncated[g] == ref.truncated, _mismatch(
                config, seeds[g], step, "truncated", truncated[g], ref.truncated, h
            )
            assert winner[g] == ref.winner, _mismatch(
                config, seeds[g], step, "winner", winner[g], ref.winner, h
            )
            assert rewards[g] == ref.rewards, _mismatch(
                config, seeds[g], step, "rewards", rewards[g], ref.rewards, h
            )

    check_outcome(0, range(B))
    live = ~(state.terminated | state.truncated)
    step = 0
    game_steps = 0
    bound = config.max_turns * (config.num_players + 8)
    while live.any():
        step += 1
        assert step <= bound, f"{config_id(config)}: games did not end within {bound} steps"
        mask = core.legal_action_mask(state)
        rows, cols = np.nonzero(mask)
        cols = cols.tolist()
        starts = np.searchsorted(rows, np.arange(B + 1)).tolist()
        live_list = live.tolist()
        for g in range(B):
            legal = set(cols[starts[g] : starts[g + 1]])
            expected = refs[g].legal_actions() if live_list[g] else set()
            if legal != expected:
                raise AssertionError(
                    _mismatch(
                        config,
                        seeds[g],
                        step,
                        "legal actions",
                        sorted(legal - expected)[:20],
                        f"missing {sorted(expected - legal)[:20]} (phase {refs[g].phase})",
                        histories[g],
                    )
                )
        actions = _choose(rng, mask, layout, refs, live)
        core.step(state, actions)
        games = np.flatnonzero(live).tolist()
        for g in games:
            action = int(actions[g])
            histories[g].append(layout.action_to_string(action))
            refs[g].last_events = refs[g].step(action)
        check_outcome(step, games)
        assert (state.num_events[~live] == 0).all(), "a finished game emitted events"
        game_steps += len(games)
        live = ~(state.terminated | state.truncated)
    return B, game_steps


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_core_matches_reference(config):
    seeds = list(range(24)) + ODD_SEEDS
    games, steps = play_differential(config, seeds, rng_seed=1)
    assert games == len(seeds) and steps > games


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("config", SLOW_CONFIGS, ids=config_id)
def test_core_matches_reference_slow(config, chunk):
    # 20 configs x 4 chunks x 128 games = 10,240 long games (plus 12,000 short scattered-pawn games below).
    seeds = list(range(1000 + 128 * chunk, 1000 + 128 * (chunk + 1)))
    if chunk == 0:
        seeds[-len(ODD_SEEDS) :] = [s + 1 for s in ODD_SEEDS]
    games, steps = play_differential(config, seeds, rng_seed=100 + chunk)
    assert games == len(seeds) and steps > games


# Pawns scattered in clusters, short games: movement among other pawns, many rolls.
SCATTER_CONFIGS = [
    G(num_players=3, movement="squares", dice=1, max_turns=12),
    G(num_players=6, movement="squares", max_turns=12, start_player="scarlet"),
    G(num_players=4, max_turns=12, stay_in_room=False),
    G(num_players=2, duel=True, movement="squares", dice=1, max_turns=12, accuse_anywhere=False),
]


@pytest.mark.parametrize("config", SCATTER_CONFIGS, ids=config_id)
def test_core_matches_reference_scattered_pawns(config):
    # 500 games: at least ``game.PARALLEL_BATCH``, so the step and the mask run on every core.
    seeds = list(range(500))
    games, steps = play_differential(config, seeds, rng_seed=3, scatter=True)
    assert games == len(seeds) and steps > games


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(3))
@pytest.mark.parametrize("config", SCATTER_CONFIGS, ids=config_id)
def test_core_matches_reference_scattered_pawns_slow(config, chunk):
    seeds = list(range(10_000 + 1000 * chunk, 10_000 + 1000 * (chunk + 1)))
    games, steps = play_differential(config, seeds, rng_seed=30 + chunk, scatter=True)
    assert games == len(seeds) and steps > games


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_batch_game_equals_game_alone(config):
    """Game i of a batch plays exactly as the same seed alone, step by step, every field.

    A batch of one stepped unchecked takes the compiled single-game entry (``batched.step_one``),
    a batch of several the batch loop: the whole state (hidden fields, knowledge planes and events
    included) and the mask must agree at every step.
    """
    seeds = [*range(8), ODD_SEEDS[0]]
    rng = np.random.default_rng(7)
    batch = core.init(config, np.array(seeds, dtype=np.int64))
    layout = core.rules_for(config).layout
    refs = [ReferenceGame(config, s) for s in seeds]  # only for the oracle's envelope
    records = [[(None, None, batch.take([g]))] for g in range(len(seeds))]  # (mask, action, state)
    live = ~batch.done
    while live.any():
        mask = core.legal_action_mask(batch)
        actions = _choose(rng, mask, layout, refs, live)
        games = np.flatnonzero(live)
        core.step(batch, actions)
        for g in games:
            records[g].append((mask[g].copy(), int(actions[g]), batch.take([g])))
        live = ~batch.done

    for g, seed in enumerate(seeds):
        alone = core.init(config, [seed])
        for i, (mask, action, expected) in enumerate(records[g]):
            if i > 0:
                alone_mask = core.legal_action_mask(alone)[0]
                assert np.array_equal(alone_mask, mask), f"seed {seed} step {i}: masks differ"
                core.step(alone, [action], check=False)  # (the action is legal: from the mask)
            differ = [k for k, v in alone.arrays().items() if not np.array_equal(v, getattr(expected, k))]
            assert not differ, (
                f"seed {seed} step {i} ({layout.action_to_string(action or 0)}): {differ} differ"
            )
        assert alone.done[0]
        assert not core.legal_action_mask(alone).any()
        core.step(alone, [0], check=False)  # a finished game ignores the action and emits nothing
        assert alone.num_events[0] == 0 and (alone.events == -1).all()


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_single_game_path_matches_reference(config):
    """Batches of one (the single-game path) against the reference, game by game."""
    for seed in [*range(6), ODD_SEEDS[1]]:
        games, steps = play_differential(config, [seed], rng_seed=seed)
        assert games == 1 and steps > 1


@pytest.mark.slow
@pytest.mark.parametrize("config", SLOW_CONFIGS, ids=config_id)
def test_single_game_path_matches_reference_slow(config):
    # 20 configs x 50 single games (the single-game path), each against the reference.
    for seed in range(5000, 5050):
        games, steps = play_differential(config, [seed], rng_seed=seed)
        assert games == 1 and steps > 1


@pytest.mark.parametrize("config", SCATTER_CONFIGS, ids=config_id)
def test_single_game_path_matches_reference_scattered_pawns(config):
    """Single games among clustered pawns: the flood fill of one move among other pawns."""
    for seed in range(60):
        games, steps = play_differential(config, [seed], rng_seed=seed, scatter=True)
        assert games == 1 and steps > 1
