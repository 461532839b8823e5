"""Simulation from a player's view: ``core.clone`` and ``core.redeal``.

A clone given the true deal replays its source exactly; clones redealt from the
player's posterior are legal games in which the player sees what it saw; and
nothing of the true hidden cards passes into them (a leaky control fails the
same checks).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.baselines.simple import simple_actions
from agents.reasoners.determinize import sample_shown
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference import Suggestion
from cluedo_env.inference.beliefs import Beliefs
from cluedo_env.inference.from_events import RecordMaker, setup_of

CLASSIC = core.GameConfig(num_players=4)
DUEL = core.GameConfig(num_players=2, duel=True)


def play(config: core.GameConfig, seeds, steps: int, rng: np.random.Generator):
    """Games played ``steps`` steps by the simple policy, with every game's full event log."""
    state = core.init(config, seeds)
    logs = [[state.step_events(b).copy()] for b in range(state.batch_size)]
    for _ in range(steps):
        core.step(state, simple_moves(state, rng))
        for b in range(state.batch_size):
            logs[b].append(state.step_events(b).copy())
    return state, [np.concatenate(log) for log in logs]


def simple_moves(state: core.State, rng: np.random.Generator) -> np.ndarray:
    mask = core.legal_action_mask(state)
    live = np.flatnonzero(~state.done)
    actions = np.zeros(state.batch_size, dtype=np.int64)
    if len(live):
        obs = core.observe(state, state.current_player[live], games=live)
        actions[live] = simple_actions(obs, mask[live], state.config, rng)
    return actions


def posterior_deals(state, game, player, log, n, rng):
    """``n`` deals from ``player``'s exact posterior given its view of ``log``, with others' shown cards.

    While a refuter decides which card to show, the pending suggestion counts: its passes, and
    that the refuter holds one of the named cards (it is asked to show one).
    """
    config = state.config
    setup = setup_of(config)
    maker = RecordMaker(setup, player)
    view = core.private_view(log, player)
    records = maker.add_events(view)
    pending = maker.pending_record()
    if pending is not None:
        refuter = int(state.current_player[game])
        records.append(Suggestion(pending.suggester, pending.cards, pending.passed, shown_by=refuter))
    beliefs = Beliefs(setup, player, records)
    deals = beliefs.posterior().sample_deals(n, rng)
    return deals, sample_shown(setup, player, records, deals, rng), beliefs.posterior()


def true_redeal(state: core.State, game: int, n: int, player: int) -> core.State:
    """``n`` clones of ``game`` redealt with its own deal, seed, face-down cards and shown cards."""
    clones = core.clone(state, game, n)
    return core.redeal(
        clones,
        player,
        np.repeat(state._owner[game : game + 1], n, axis=0),
        np.full(n, state.seed[game]),
        face_down=np.repeat(state._face_down[game : game + 1], n, axis=0),
        shown=np.repeat(state._shown_to[game : game + 1], n, axis=0),
    )


def mid_game(config, seeds, rng, steps=(0, 40, 120)):
    """Live games at several depths: (state, logs, game) triples."""
    out = []
    for depth in steps:
        state, logs = play(config, seeds, depth, rng)
        for game in np.flatnonzero(~state.done)[:2].tolist():
            out.append((state, logs, game))
    return out


# --- clone -----------------------------------------------------------------


def test_clone_copies_every_field_of_the_game():
    state, _ = play(CLASSIC, range(4), 30, np.random.default_rng(0))
    clones = core.clone(state, 2, 3)
    assert clones.batch_size == 3
    for name, array in clones.arrays().items():
        for k in range(3):
            assert np.array_equal(array[k], getattr(state, name)[2]), name
    kept = state._owner.copy()
    clones._owner[0, 0] = 9  # a copy: the source is untouched
    assert np.array_equal(state._owner, kept)


@pytest.mark.parametrize("game, n", [(-1, 2), (4, 2), (1.0, 2), (0, 0), (0, True)])
def test_clone_refuses_bad_input(game, n):
    state = core.init(CLASSIC, range(4))
    with pytest.raises(ValueError, match=r"game must be|n must be"):
        core.clone(state, game, n)


# --- the true deal replays --------------------------------------------------


@pytest.mark.parametrize("config", [CLASSIC, DUEL], ids=["classic", "duel"])
def test_a_clone_with_the_true_deal_replays_its_source_to_the_end(config):
    rng = np.random.default_rng(1)
    for state, _, game in mid_game(config, range(6), rng):
        player = int(state.current_player[game])
        source = state.take([game])
        clones = true_redeal(state, game, 2, player)
        for name, array in clones.arrays().items():
            if name != "events":  # a show between others may name another card it showed before
                assert np.array_equal(array[0], getattr(source, name)[0]), name
        while not source.done[0]:
            action = simple_moves(source, rng)
            core.step(source, action)
            core.step(clones, np.repeat(action, 2))
            for k in range(2):
                assert np.array_equal(clones.events[k], source.events[0])
        assert (clones.winner == source.winner[0]).all()
        assert clones == core.State(
            config, **{k: np.repeat(v, 2, axis=0) for k, v in source.arrays().items()}
        )


@pytest.mark.parametrize("deal", ["keys", "uniform"])
def test_a_duel_clone_left_to_place_the_face_down_cards_lays_them_as_its_source_s_deal(deal):
    """Without ``face_down`` the cards the player has not peeked at go on the rooms in the order the
    game's own deal from the seed lays them in: the true deal and seed put each on its true room."""
    config = DUEL.replace(deal=deal, start_player="random")
    rng = np.random.default_rng(3)
    for state, _, game in mid_game(config, range(6), rng):
        player = int(state.current_player[game])
        source = state.take([game])
        clones = core.redeal(
            core.clone(state, game, 2), player, np.repeat(source._owner, 2, axis=0),
            np.repeat(source.seed, 2), shown=np.repeat(source._shown_to, 2, axis=0),
        )  # fmt: skip
        assert (clones._face_down == source._face_down).all()
        while not source.done[0]:
            action = simple_moves(source, rng)
            core.step(source, action)
            core.step(clones, np.repeat(action, 2))
            assert (clones.events == source.events).all()
        assert (clones.winner == source.winner[0]).all()


# --- redealt clones are legal games -----------------------------------------


def check_invariants(state: core.State) -> None:
    """Each card in exactly one place, hands keep their sizes, masks offer a move until the end."""
    config = state.config
    P, S, W = config.num_players, config.cards.num_suspects, config.cards.num_weapons
    sizes = setup_of(config).hand_sizes  # the deduction library's count, independent of the core
    owner = state._owner
    for q in range(P):
        assert ((owner == q).sum(axis=1) == sizes[q]).all()
    envelope = owner == core.ENVELOPE
    assert (envelope.sum(axis=1) == 3).all()
    for lo, hi in ((0, S), (S, S + W), (S + W, owner.shape[1])):
        assert (envelope[:, lo:hi].sum(axis=1) == 1).all()
    assert (np.take_along_axis(owner, state._envelope.astype(np.int64), axis=1) == core.ENVELOPE).all()
    face_down = state._face_down
    on_room = np.take_along_axis(owner, np.maximum(face_down, 0).astype(np.int64), axis=1)
    assert (on_room[face_down >= 0] == core.FACE_DOWN).all()
    assert ((face_down >= 0).sum(axis=1) == (owner == core.FACE_DOWN).sum(axis=1)).all()
    shown = state._shown_to
    assert not ((shown >= 0) & (shown != owner[:, None, :])).any()  # whoever showed a card holds it
    assert not (state._peeked & (owner[:, None, :] != core.FACE_DOWN)).any()
    mask = core.legal_action_mask(state)
    assert mask[~state.done].any(axis=1).all()


@pytest.mark.parametrize("config", [CLASSIC, DUEL], ids=["classic", "duel"])
def test_clones_redealt_from_the_posterior_are_legal_games_to_the_end(config):
    rng = np.random.default_rng(2)
    for state, logs, game in mid_game(config, range(6), rng):
        player = int(state.current_player[game])
        deals, shown, _ = posterior_deals(state, game, player, logs[game], 16, rng)
        clones = core.redeal(
            core.clone(state, game, 16), player, deals, rng.integers(0, 2**62, 16), shown=shown
        )
        check_invariants(clones)
        while not clones.done.all():
            core.step(clones, simple_moves(clones, rng))
            check_invariants(clones)
        assert (clones.winner >= 0).any()


@pytest.mark.parametrize("config", [CLASSIC, DUEL], ids=["classic", "duel"])
def test_the_player_sees_in_every_clone_what_it_saw_in_the_source(config):
    rng = np.random.default_rng(3)
    for state, logs, game in mid_game(config, range(6), rng):
        for player in range(config.num_players):
            deals, shown, _ = posterior_deals(state, game, player, logs[game], 8, rng)
            clones = core.redeal(
                core.clone(state, game, 8), player, deals, rng.integers(0, 2**62, 8), shown=shown
            )
            seen = core.observe(state, np.array([player]), games=np.array([game]))
            assert np.array_equal(core.observe(clones, np.full(8, player)), np.repeat(seen, 8, axis=0))
            view = core.private_view(state.events[game], player)
            assert (core.private_view(clones.events, player) == view).all()
            # The legal actions are public, but for a refuter's (which named cards it holds).
            if player == state.current_player[game] or state.phase[game] != core.Phase.REFUTE:
                assert (core.legal_action_mask(clones) == core.legal_action_mask(state)[game]).all()


# --- privacy ----------------------------------------------------------------


def leaky_redeal(state, player, deals, seeds, **options):
    """A redeal that wrongly keeps the true hidden cards (the control the privacy tests must catch)."""
    owner, envelope, face_down = state._owner.copy(), state._envelope.copy(), state._face_down.copy()
    core.redeal(state, player, deals, seeds, **options)
    state._owner[...], state._envelope[...], state._face_down[...] = owner, envelope, face_down
    return state


def other_world(state, logs, game, player, rng):
    """Game ``game`` with other hidden cards (hands, envelope, others' shown cards, seed): same view."""
    deals, shown, _ = posterior_deals(state, game, player, logs[game], 64, rng)
    other = next(k for k in range(64) if not np.array_equal(deals[k], state._owner[game]))
    return core.redeal(
        core.clone(state, game, 1), player, deals[other : other + 1], [12345], shown=shown[other : other + 1]
    )


def depends_on_hidden_cards(redeal, config, rng) -> bool:
    """Whether ``redeal``'s clones differ between two worlds the player cannot tell apart."""
    for state, logs, game in mid_game(config, range(6), rng, steps=(0, 60)):
        player = int(state.current_player[game])
        world = other_world(state, logs, game, player, rng)
        assert not np.array_equal(world._owner[0], state._owner[game])
        deals, shown, _ = posterior_deals(state, game, player, logs[game], 8, rng)
        seeds = rng.integers(0, 2**62, 8)
        a = redeal(core.clone(state, game, 8), player, deals, seeds, shown=shown)
        b = redeal(core.clone(world, 0, 8), player, deals, seeds, shown=shown)
        if a != b:
            return True
    return False


@pytest.mark.parametrize("config", [CLASSIC, DUEL], ids=["classic", "duel"])
def test_redealt_clones_depend_only_on_what_the_player_sees(config):
    assert not depends_on_hidden_cards(core.redeal, config, np.random.default_rng(4))
    assert depends_on_hidden_cards(leaky_redeal, config, np.random.default_rng(4))


def envelope_hits(redeal, rng) -> tuple[int, float, float]:
    """Clones whose envelope is the true one, against what the player's posterior expects (mean, var)."""
    hits, mean, var = 0, 0.0, 0.0
    state, logs = play(CLASSIC, range(40), 60, rng)
    for game in np.flatnonzero(~state.done).tolist():
        player = int(state.current_player[game])
        deals, shown, posterior = posterior_deals(state, game, player, logs[game], 8, rng)
        clones = redeal(core.clone(state, game, 8), player, deals, rng.integers(0, 2**62, 8), shown=shown)
        hits += int((clones._envelope == state._envelope[game]).all(axis=1).sum())
        s, w, r = state._envelope[game] - np.array([0, 6, 12])
        p = float(posterior.envelope()[s, w, r])
        mean, var = mean + 8 * p, var + 8 * p * (1 - p)
    return hits, mean, var


def test_clones_find_the_true_envelope_only_as_often_as_the_player_would_guess_it():
    hits, mean, var = envelope_hits(core.redeal, np.random.default_rng(5))
    assert abs(hits - mean) <= 4 * np.sqrt(var) + 1, (hits, mean, var)
    hits, mean, var = envelope_hits(leaky_redeal, np.random.default_rng(5))
    assert abs(hits - mean) > 4 * np.sqrt(var) + 1, (hits, mean, var)


# --- bad input ----------------------------------------------------------------


def test_redeal_refuses_deals_that_contradict_the_player_or_the_rules():
    rng = np.random.default_rng(6)
    state, logs = play(CLASSIC, range(4), 80, rng)
    game = int(np.flatnonzero(~state.done)[0])
    player = int(state.current_player[game])
    deals, shown, _ = posterior_deals(state, game, player, logs[game], 2, rng)
    clones = core.clone(state, game, 2)
    before = clones.copy()
    seeds = [1, 2]

    def refused(match, deals=deals, seeds=seeds, error=ValueError, **options):
        with pytest.raises(error, match=match):
            core.redeal(clones, player, deals, seeds, **options)
        assert clones == before  # nothing changed

    refused(r"deals must have shape \(2, 21\)", deals=deals[:, :-1])
    refused("deals must be integers", deals=deals.astype(float), error=TypeError)
    refused("seeds must be 2 integers", seeds=[1])
    refused("seeds must be integers in", seeds=[-1, 2])
    with pytest.raises(ValueError, match="player must be an int"):
        core.redeal(clones, 4, deals, seeds)
    mine = int(np.flatnonzero(state._owner[game] == player)[0])
    other = int(np.flatnonzero(deals[0] == core.ENVELOPE)[0])
    swapped = deals.copy()
    swapped[0, [mine, other]] = swapped[0, [other, mine]]
    refused(f"player {player}'s hand must stay its own", deals=swapped)
    bad = deals.copy()
    bad[0, bad[0] == core.ENVELOPE] = (player + 1) % 4
    refused("owner|hand size|envelope", deals=bad)
    bad = deals.copy()
    bad[1, 0] = 7
    refused(r"owners must be in \[-1, 0, 1, 2, 3\]", deals=bad)
    knows = (deals[0] == player) | (state._shown_to[game, player] >= 0)
    passes = [(q, c) for q, c in np.argwhere(state.passed[game]) if q != player and not knows[c]]
    if passes:  # give a player a card it passed on
        q, c = passes[0]
        d = int(np.flatnonzero((deals[0] == q) & ~knows)[0])
        bad = deals.copy()
        bad[0, [c, d]] = bad[0, [d, c]]
        refused(f"player {q} passed on a suggestion", deals=bad)
    seen = np.argwhere(state._shown_to[game, player] >= 0).ravel()
    if len(seen):
        c = int(seen[0])
        bad = deals.copy()
        far = int(np.flatnonzero((bad[0] != bad[0, c]) & (bad[0] != player) & (bad[0] >= 0))[0])
        bad[0, [c, far]] = bad[0, [far, c]]
        refused("a card shown to player", deals=bad)
    wrong = shown.copy()
    q = (player + 1) % 4
    c = int(np.flatnonzero(deals[0] == core.ENVELOPE)[0])
    wrong[0, q, c] = (q + 1) % 4 if (q + 1) % 4 != player else (q + 2) % 4
    refused("shown: game 0", shown=wrong)
    refused(r"shown must have shape \(2, 4, 21\)", shown=shown[:, :2])
    invented = shown.copy()
    c = int(np.flatnonzero((deals[0] == player) & (state._shown_to[game, q] != player))[0])
    invented[0, q, c] = player
    refused(f"player {player} never showed player {q} card {c}", shown=invented)
    refused(r"face_down must have shape \(2, 9\)", face_down=np.zeros((2, 3), dtype=np.int64))
    refused("face_down must hold cards on the same rooms", face_down=np.zeros((2, 9), dtype=np.int64))


def test_redeal_refuses_a_deal_in_which_the_last_refuter_holds_none_of_the_named_cards():
    rng = np.random.default_rng(9)
    state = core.init(CLASSIC, range(16))
    for _ in range(400):  # until a game's last step is a show between two players, seen by a third
        core.step(state, simple_moves(state, rng))
        kind = state.events[:, :, ev.KIND]
        games, rows = np.nonzero(kind == ev.SHOW)
        found = [(int(b), int(r)) for b, r in zip(games, rows, strict=True) if not state.done[b]]
        if found:
            break
    game, row = found[0]
    show = core.Event.of(state.events[game, row])
    refuter, suggester = show.refuter, show.suggester
    player = next(p for p in range(4) if p not in (refuter, suggester))
    named = state.suggestion[game].astype(np.int64)
    deals = state._owner[game : game + 1].copy()
    for c in named[deals[0, named] == refuter]:  # the refuter's named cards go to the suggester
        d = int(np.flatnonzero((deals[0] == suggester) & ~np.isin(np.arange(21), named))[0])
        deals[0, [c, d]] = deals[0, [d, c]]
    clones = core.clone(state, game, 1)
    before = clones.copy()
    with pytest.raises(ValueError, match=f"player {refuter} has just shown a card"):
        core.redeal(clones, player, deals, [1])
    assert clones == before  # nothing changed


def test_redeal_refuses_finished_games_and_an_accused_envelope():
    rng = np.random.default_rng(7)
    state = core.init(CLASSIC, [3])
    while not state.done[0]:
        core.step(state, simple_moves(state, rng))
    with pytest.raises(ValueError, match="are over"):
        core.redeal(state.copy(), 0, state._owner.copy(), [1])
    # A player accused a triple wrongly: no deal may put that triple in the envelope.
    state = core.init(CLASSIC, [5])
    layout = core.rules_for(CLASSIC).layout
    accuser = int(state.current_player[0])
    player = (accuser + 1) % 4
    suspect, weapon, room = (int(c) for c in state._envelope[0])
    other = next(c for c in range(6) if state._owner[0, c] not in (player, core.ENVELOPE))
    core.step(state, [layout.encode("accuse", other, weapon - 6, room - 12)])
    assert state.eliminated[0, accuser] and not state.done[0]
    deals = state._owner.copy()
    deals[0, [suspect, other]] = deals[0, [other, suspect]]
    with pytest.raises(ValueError, match=f"the triple player {accuser} accused wrongly"):
        core.redeal(state.copy(), player, deals, [1])


def test_redeal_checks_face_down_cards_in_the_duel():
    rng = np.random.default_rng(8)
    state, logs = play(DUEL, range(8), 60, rng)
    game = next(b for b in np.flatnonzero(~state.done).tolist() if state._peeked[b].any(axis=1).any())
    player = int(np.flatnonzero(state._peeked[game].any(axis=1))[0])
    deals, shown, _ = posterior_deals(state, game, player, logs[game], 4, rng)
    clones = core.redeal(core.clone(state, game, 4), player, deals, [1, 2, 3, 4], shown=shown)
    peeked = np.flatnonzero(state._peeked[game, player])
    for c in peeked:  # what the player looked at stays on its room
        room = int(np.flatnonzero(state._face_down[game] == c)[0])
        assert (clones._face_down[:, room] == c).all()
    moved = clones._face_down.copy()
    rooms = np.flatnonzero(moved[0] >= 0)
    moved[:, rooms] = moved[:, rooms[::-1]]
    if len(peeked):
        with pytest.raises(ValueError, match="peeked at must stay on its room"):
            core.redeal(core.clone(state, game, 4), player, deals, [1, 2, 3, 4], face_down=moved)


# --- the documented example -----------------------------------------------------


def test_the_simulation_page_example_runs():
    page = Path(__file__).resolve().parents[2] / "docs" / "simulation.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(blocks[0], namespace)
    values = namespace["values"]
    assert values.shape == (2,) and (np.abs(values) <= 1).all()
