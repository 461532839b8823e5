"""Privacy: what player i cannot see never changes player i's observation or mask.

For states reached by random play, each viewer's hidden world is scrambled
(cards whose owner the viewer does not know are swapped between the other
players and the envelope; the random key, other players' private notes and the
face-down cards change), and the viewer's observation and mask must not move.
A deliberately leaky observer shows the check has teeth.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.baselines.random_agent import sample_legal
from cluedo_env import core
from cluedo_env.core.state import ENVELOPE, FACE_DOWN


def scrambled(state: core.State, game: int, viewer: int, rng: np.random.Generator) -> core.State:
    """A copy of one game in which only what ``viewer`` cannot see differs."""
    other = state.take([game])
    e = state.config.cards
    category = np.array([e.category(c) for c in range(e.num_cards)])
    owner = other._owner[0]
    known = (owner == viewer) | (other._shown_to[0, viewer] >= 0) | other._peeked[0, viewer]
    for _ in range(40):
        c1, c2 = rng.choice(e.num_cards, size=2, replace=False)
        o1, o2 = owner[c1], owner[c2]
        if known[c1] or known[c2] or o1 == o2 or FACE_DOWN in (o1, o2):
            continue
        if ENVELOPE in (o1, o2) and category[c1] != category[c2]:
            continue
        owner[c1], owner[c2] = o2, o1
    other._envelope[0] = np.sort(np.flatnonzero(owner == ENVELOPE))
    other._key[0] = rng.integers(2**63, dtype=np.uint64)
    other._draws[0] = rng.integers(1024, 10**6)
    for p in range(state.config.num_players):
        if p != viewer:
            other._shown_to[0, p] = rng.integers(-1, state.config.num_players, size=e.num_cards)
            other._peeked[0, p] = rng.random(e.num_cards) < 0.3
    return other


def privacy_violations(observe_fn, config: core.GameConfig, games: int = 12, steps: int = 240) -> list[str]:
    """Play randomly and compare each viewer's observation/mask with its scrambled twin."""
    rng = np.random.default_rng(0)
    state = core.init(config, np.arange(games))
    violations = []
    for t in range(steps):
        if state.done.all():
            break
        mask = core.legal_action_mask(state)
        if t % 7 == 0:
            for game in np.flatnonzero(~state.done)[:4]:
                for viewer in range(config.num_players):
                    twin = scrambled(state, int(game), viewer, rng)
                    if not np.array_equal(observe_fn(state.take([game]), viewer), observe_fn(twin, viewer)):
                        violations.append(f"observation of P{viewer}, game {game}, step {t}")
                    if state.current_player[game] == viewer and not np.array_equal(
                        mask[game], core.legal_action_mask(twin)[0]
                    ):
                        violations.append(f"mask of P{viewer}, game {game}, step {t}")
        mask[state.done] = True
        calm = mask.copy()
        layout = core.rules_for(config).layout
        calm[:, layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
        calm[~calm.any(axis=1)] = mask[~calm.any(axis=1)]
        core.step(state, sample_legal(rng, calm))
    return violations


def player_view(state: core.State, viewer: int) -> np.ndarray:
    return core.observe(state, viewer)  # a batch of one, one viewer: the env's call


def batched_view(state: core.State, viewer: int) -> np.ndarray:
    return core.observe(state, np.array([viewer]), games=np.array([0]))  # viewers and games as arrays


def leaky_view(state: core.State, viewer: int) -> np.ndarray:
    """A deliberately broken observer that appends the envelope."""
    return np.concatenate([core.observe(state, viewer), state._envelope.astype(np.float32)], axis=1)


CONFIGS = [
    core.GameConfig(num_players=4),
    core.GameConfig(num_players=3, auto_refute=True),
    core.GameConfig(num_players=6, board="none"),
    core.GameConfig(num_players=2, duel=True),
]


@pytest.mark.parametrize("view", [player_view, batched_view], ids=["one_game", "batched"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.board}")
def test_observation_and_mask_ignore_what_the_viewer_cannot_see(config, view):
    assert privacy_violations(view, config) == []


def test_a_leak_is_caught():
    assert privacy_violations(leaky_view, core.GameConfig(num_players=4), steps=60)


def test_masks_of_non_acting_players_reveal_nothing():
    # The core's mask is the acting player's; the refuter's mask is built from its own hand only.
    config = core.GameConfig(num_players=4)
    state = core.init(config, np.arange(8))
    rng = np.random.default_rng(1)
    layout = core.rules_for(config).layout
    for _ in range(300):
        mask = core.legal_action_mask(state)
        refuting = np.flatnonzero(state.phase == core.Phase.REFUTE)
        for g in refuting:
            shows = np.flatnonzero(mask[g, layout.SHOW : layout.SHOW + config.cards.num_cards])
            assert set(shows) <= set(np.flatnonzero(state._owner[g] == state.current_player[g]))
        mask[state.done] = True
        core.step(state, sample_legal(rng, mask))


def test_seer_view_sees_everything():
    config = core.GameConfig()
    state = core.init(config, [3])
    seer = core.observe(state, 0, kind="seer")
    pieces = {name: (shape, offset) for name, shape, offset in core.observation_pieces(config, "seer")}
    shape, offset = pieces["owner"]
    owner = seer[0, offset : offset + int(np.prod(shape))].reshape(shape)
    envelope = np.flatnonzero(owner[:, config.num_players])
    assert envelope.tolist() == sorted(state._envelope[0].tolist())
