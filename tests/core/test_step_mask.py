"""The legal actions written by the step itself: ``step(..., mask=)``, ``reset(..., mask=)`` and
``legal_action_mask(state, out=)`` give exactly what ``legal_action_mask(state)`` gives afterwards,
and change nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.core import game

G = core.GameConfig
CONFIGS = [
    G(num_players=4),
    G(num_players=3, movement="squares", auto_refute=True),
    G(num_players=2, duel=True),
    G(num_players=5, board="none", max_turns=20),
]


def config_id(config: core.GameConfig) -> str:
    return f"{config.num_players}p-{config.board}-{config.movement}{'-duel' if config.duel else ''}"


def choose(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A random legal action per game (0 for a game over: ignored)."""
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])


@pytest.mark.parametrize("batch", [1, 7, game.PARALLEL_BATCH + 3], ids=lambda b: f"B{b}")
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_the_mask_kept_by_step_and_reset_is_the_legal_action_mask(config, batch):
    """Random play with some games paused and finished ones dealt again: the mask the step and the
    re-deal keep up to date equals a fresh ``legal_action_mask`` at every step, and the state equals
    that of a twin batch played without it."""
    rng = np.random.default_rng(batch)
    state = core.init(config, np.arange(batch))
    twin = state.copy()
    mask = core.legal_action_mask(state)
    next_seed = batch
    for turn in range(60 if batch > 1 else 300):
        actions = choose(rng, mask)
        games = np.flatnonzero(rng.random(batch) < 0.8) if turn % 3 == 0 else None
        if batch == 1 and games is None:
            actions = [int(actions[0])]  # the single-game call, as the environments make it
        core.step(state, actions, games=games, mask=mask)
        core.step(twin, actions, games=games)
        assert np.array_equal(mask, core.legal_action_mask(twin)), turn
        done = np.flatnonzero(state.done)
        seeds = np.arange(next_seed, next_seed + len(done))
        next_seed += len(done)
        core.reset(state, done, seeds, mask=mask)
        core.reset(twin, done, seeds)
        assert np.array_equal(mask, core.legal_action_mask(twin)), turn
        assert state == twin


def test_reset_writes_the_rows_of_the_games_dealt_only():
    state = core.init(G(num_players=4), np.arange(4))
    mask = np.zeros((4, core.rules_for(state.config).A), dtype=bool)
    core.reset(state, [2], [99], mask=mask)
    assert np.array_equal(mask[2], core.legal_action_mask(core.init(state.config, [99]))[0])
    assert not mask[[0, 1, 3]].any()


@pytest.mark.parametrize("batch", [1, 3])
def test_a_refused_step_leaves_the_mask_and_the_state_unchanged(batch):
    state = core.init(G(num_players=4), np.arange(batch))
    mask = core.legal_action_mask(state)
    kept, before = mask.copy(), state.copy()
    bad = core.rules_for(state.config).layout.encode("end_turn")  # not played at the start of a turn
    with pytest.raises(ValueError, match=r"illegal action .* for game 0 in phase 'turn'"):
        core.step(state, [bad] * batch, check=False, mask=mask)
    assert np.array_equal(mask, kept) and state == before


def test_legal_action_mask_writes_into_out():
    state = core.init(G(num_players=4), np.arange(5))
    out = np.ones((5, core.rules_for(state.config).A), dtype=bool)
    assert core.legal_action_mask(state, out=out) is out
    assert np.array_equal(out, core.legal_action_mask(state))


@pytest.mark.parametrize(
    ("mask", "error", "message"),
    [
        (
            np.zeros((2, 405), dtype=np.int8),
            TypeError,
            r"mask must be a bool numpy array of shape \(2, 405\)",
        ),
        ([[True] * 405] * 2, TypeError, r"mask must be a bool numpy array .* got a list"),
        (np.zeros((3, 405), dtype=bool), ValueError, r"mask must have shape \(2, 405\).*got \(3, 405\)"),
        (np.zeros((405, 2), dtype=bool).T, TypeError, r"C-contiguous, writeable"),
    ],
)
def test_a_mask_array_the_core_cannot_write_is_refused(mask, error, message):
    state = core.init(G(num_players=4), np.arange(2))
    before = state.copy()
    roll = [core.rules_for(state.config).layout.encode("roll")] * 2
    for call in (
        lambda: core.step(state, roll, mask=mask),
        lambda: core.reset(state, [0], [5], mask=mask),
        lambda: core.legal_action_mask(state, out=mask),
    ):
        with pytest.raises(error, match=message):
            call()
    assert state == before
