"""Compiled rollouts (``core.rollout``, ``core.play_out``): games played to their end in one compiled call.

The compiled loop plays exactly the games the simple player (``agents.baselines.simple.simple_actions``)
plays step by step from Python with the same draws: every byte of every game agrees, in every config
of the differential test. Every game ends (or stops at ``max_steps``, or when the watched player is
out), the rewards are a game's rewards, and a seed gives the same rollouts.
"""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from agents.baselines.random_agent import sample_legal
from agents.baselines.simple import simple_actions
from cluedo_env import core
from cluedo_env.core.rng import draw
from cluedo_env.core.rollout import MAX_STEPS, final_rewards, rollout_keys
from tests.conftest import ROOT
from tests.core.test_differential import CONFIGS, config_id

CLASSIC = core.GameConfig(num_players=4)


class Draws:
    """A stand-in for ``np.random.Generator`` handing ``simple_actions`` given uniforms, one per row."""

    def __init__(self, u: np.ndarray) -> None:
        self.u = u

    def random(self, size: int) -> np.ndarray:
        assert size == len(self.u), "simple_actions draws one uniform per row"
        return self.u


def uniforms(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """The compiled policy's uniforms: the top 53 bits of ``rng.draw``."""
    return (draw(keys, counters) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def table_actions(weights: np.ndarray, mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The table policy in numpy: per row, the first legal action whose running sum of weights exceeds
    ``u`` times their sum (the last with weight where rounding reaches it); uniform where the sum is 0."""
    running = np.cumsum(np.where(mask, weights, 0.0), axis=1)
    total = running[:, -1]
    actions = np.array([np.searchsorted(r, x, side="right") for r, x in zip(running, u * total, strict=True)])
    last = mask.shape[1] - 1 - np.argmax((mask & (weights > 0))[:, ::-1], axis=1)
    uniform = Draws(u)
    return np.where(total == 0, sample_legal(uniform, mask), np.minimum(actions, last))


def step_by_step(state, keys, first=None, seen=None, stop_when_out=None, max_steps=MAX_STEPS, weights=None):
    """The reference: the games played on from Python, one ``core.step`` of all live games at a time,
    by ``simple_actions`` on ``core.observe`` (``seen`` cleared from its ``unseen`` piece), or by
    ``table_actions`` with ``weights``.

    Returns the decisions of each game and the state of each as it left play (a step of the batch
    clears the events and rewards of its games that do not move: each is kept as its last step left it).
    """
    config = state.config
    unseen = next(o for name, _shape, o in core.observation_pieces(config) if name == "unseen")
    steps = np.zeros(state.batch_size, dtype=np.int64)
    final = state.copy()

    def playing():
        live = ~state.done & (steps < max_steps)
        if stop_when_out is not None:
            live &= ~state.eliminated[:, stop_when_out]
        return live

    live = playing()
    while live.any():
        games = np.flatnonzero(live)
        mask = core.legal_action_mask(state)[games]
        if first is not None:
            mask[steps[games] == 0] &= first
        players = state.current_player[games]
        observation = core.observe(state, players, games=games)
        if seen is not None:
            rows, cards = np.nonzero(seen[players])
            observation[rows, unseen + cards] = 0.0
        actions = np.zeros(state.batch_size, dtype=np.int64)
        draws = Draws(uniforms(keys[games], steps[games].astype(np.uint64)))
        if weights is None:
            actions[games] = simple_actions(observation, mask, config, draws)
        else:
            actions[games] = table_actions(weights, mask, draws.u)
        core.step(state, actions, games=games)
        steps[games] += 1
        left = np.flatnonzero(live & ~(live := playing()))
        if len(left):
            final.put(left, state.take(left))
    return steps, final


def game_under_way(config: core.GameConfig, seed: int, steps: int) -> core.State:
    """One game played ``steps`` decisions by the compiled simple player (or to its last decision)."""
    state = core.init(config, [seed])
    for k in range(steps):
        probe = state.copy()
        core.play_out(probe, rollout_keys(seed + k, 1), max_steps=1)
        if probe.done[0]:
            break
        state = probe
    return state


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_the_compiled_rollouts_play_the_games_the_simple_player_plays_step_by_step(config):
    start = core.init(config, np.arange(12))
    keys = rollout_keys(3, 12)
    compiled = start.copy()
    steps = core.play_out(compiled, keys)
    reference_steps, reference = step_by_step(start, keys)
    assert np.array_equal(steps, reference_steps)
    assert compiled == reference  # every field of every game, the last step's events included
    assert compiled.done.all()


def test_first_seen_and_stop_when_out_play_as_the_reference_does():
    start = core.clone(game_under_way(CLASSIC, 11, 40), 0, 16)
    layout = core.rules_for(CLASSIC).layout
    first = np.ones(layout.num_actions, dtype=bool)
    first[layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
    # Player 1 counts as seen every card but a triple that is not the envelope: it accuses it wrongly.
    seen = np.zeros((4, CLASSIC.cards.num_cards), dtype=bool)
    seen[1] = True
    s, w, r = (int(c) for c in start._envelope[0])
    seen[1, [(s + 1) % 6, 6 + (w - 5) % 6, 12 + (r - 11) % 9]] = False
    keys = rollout_keys(5, 16)
    compiled = start.copy()
    kwargs = {"first": first, "seen": seen, "stop_when_out": 1}
    steps = core.play_out(compiled, keys, **kwargs)
    reference_steps, reference = step_by_step(start, keys, **kwargs)
    assert np.array_equal(steps, reference_steps)
    assert compiled == reference
    assert (compiled.done | compiled.eliminated[:, 1]).all() and compiled.eliminated[:, 1].any()


def test_seen_given_per_game_plays_each_game_as_its_own_seen_does():
    start = core.clone(game_under_way(CLASSIC, 11, 40), 0, 6)
    seen = np.random.default_rng(2).random((6, 4, CLASSIC.cards.num_cards)) < 0.5
    keys = rollout_keys(7, 6)
    batch = start.copy()
    steps = core.play_out(batch, keys, seen=seen)
    for i in range(6):
        alone = start.take([i])
        assert core.play_out(alone, keys[i : i + 1], seen=seen[i]).tolist() == [steps[i]]
        assert alone == batch.take([i])


@pytest.mark.parametrize("config", CONFIGS[:6], ids=config_id)
def test_a_policy_given_as_a_table_plays_as_the_same_table_in_numpy(config):
    layout = core.rules_for(config).layout
    weights = np.random.default_rng(0).random(layout.num_actions)
    weights[layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] *= 1e-4  # accusing rarely
    weights[layout.SHOW : layout.SHOW + layout.sizes["show"]] = 0.0  # a refuter's choice: the uniform case
    start = core.init(config, np.arange(8))
    keys = rollout_keys(4, 8)
    compiled = start.copy()
    steps = core.play_out(compiled, keys, weights=weights)
    reference_steps, reference = step_by_step(start, keys, weights=weights)
    assert np.array_equal(steps, reference_steps)
    assert compiled == reference and compiled.done.all()
    assert compiled.eliminated.any()  # its accusations were played (wrong ones, mostly)


def test_max_steps_stops_every_game_there():
    state = core.init(CLASSIC, np.arange(8))
    keys = rollout_keys(0, 8)
    reference_steps, reference = step_by_step(state.copy(), keys, max_steps=25)
    steps = core.play_out(state, keys, max_steps=25)
    assert (steps == 25).all() and not state.done.any()
    assert np.array_equal(reference_steps, steps)
    assert state == reference
    more = core.play_out(state, keys, max_steps=10)  # played on: counters from 0 again
    assert (more == 10).all()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_rollout_ends_with_a_game_s_rewards(players):
    config = core.GameConfig(num_players=players, duel=players == 2, max_turns=150)
    result = core.rollout(game_under_way(config, players, 20), 0, 64, seed=1)
    state, rewards = result.state, result.rewards
    assert state.done.all() and (result.steps > 0).all()
    assert not state.eliminated.any(), "the simple player accuses only the envelope its cards pin down"
    won = state.winner >= 0
    assert np.array_equal(won, state.terminated)
    assert np.allclose(rewards[won].sum(axis=1), 2 - players)  # +1 to the winner, -1 to the others
    assert (rewards[np.arange(64)[won], state.winner[won]] == 1.0).all()
    assert (rewards[state.truncated] == 0.0).all()
    assert np.array_equal(rewards, state.rewards)  # the last step's rewards: each game's final ones
    assert won.any() and state.truncated.any(), "150 turns: some games end by a win, some by the bound"


def test_final_rewards_of_a_game_where_everyone_accused_wrongly_are_minus_one():
    state = core.init(core.GameConfig(num_players=3, board="none"), [0])
    layout = core.rules_for(state.config).layout
    envelope = tuple(int(c) for c in state._envelope[0])
    wrong = layout.encode("accuse", (envelope[0] + 1) % 6, envelope[1] - 6, envelope[2] - 12)
    while not state.done[0]:
        mask = core.legal_action_mask(state)[0]
        core.step(state, [wrong if mask[wrong] else int(np.flatnonzero(mask)[-1])])
    assert state.terminated[0] and state.winner[0] < 0
    assert (final_rewards(state) == -1.0).all()
    core.step(state, [0])  # a finished game's step clears its rewards; its final ones stay
    assert (state.rewards == 0).all() and (final_rewards(state) == -1.0).all()


def test_a_clone_stopped_because_the_player_is_out_reads_minus_one_for_it():
    """``stop_when_out`` stops a clone once its player accused wrongly: the game is over for it (-1),
    not for the others (0); clones that did not stop keep their game's final rewards."""
    config = core.GameConfig(num_players=4, board="none")
    state = core.init(config, [0])  # player 3 starts; the envelope is Plum, Candlestick, Study
    layout = core.rules_for(config).layout
    player = int(state.current_player[0])
    assert player == 3 and state._envelope[0].tolist() == [4, 6, 20]
    wrong = layout.encode("accuse", 0, 0, 0)  # Scarlet with the Candlestick in the Kitchen
    first = np.zeros(layout.num_actions, dtype=bool)
    first[wrong] = True  # the first decision: the wrong accusation, nothing else
    result = core.rollout(state, 0, 8, seed=1, first=first, stop_when_out=player)
    assert (result.steps == 1).all() and result.state.eliminated[:, player].all()
    assert not result.state.done.any(), "three players are still in: the game goes on"
    assert (result.rewards[:, player] == -1.0).all()
    assert (np.delete(result.rewards, player, axis=1) == 0.0).all()
    # A table policy accusing rarely (wrongly, mostly): some clones stop, some end.
    weights = np.ones(layout.num_actions)
    weights[layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = 1e-3
    result = core.rollout(state, 0, 64, seed=1, weights=weights, stop_when_out=player)
    stopped = result.state.eliminated[:, player] & ~result.state.done
    assert stopped.any() and result.state.done.any()
    assert (result.rewards[stopped, player] == -1.0).all()
    assert (np.delete(result.rewards[stopped], player, axis=1) == 0.0).all()
    assert np.array_equal(result.rewards[~stopped], final_rewards(result.state)[~stopped])


def test_a_seed_gives_the_same_rollouts_and_a_clone_s_does_not_depend_on_n():
    state = game_under_way(CLASSIC, 2, 30)
    one, again = core.rollout(state, 0, 16, seed=9), core.rollout(state, 0, 16, seed=9)
    assert one.state == again.state and np.array_equal(one.steps, again.steps)
    more = core.rollout(state, 0, 32, seed=9)
    assert more.state.take(np.arange(16)) == one.state
    other = core.rollout(state, 0, 16, seed=10)
    assert not np.array_equal(other.steps, one.steps)
    assert state.turn[0] < one.state.turn.min(), "the source game is left as it was"


def test_redealt_rollouts_keep_the_player_s_view_and_roll_other_dice():
    state = game_under_way(CLASSIC, 4, 30)
    player = int(state.current_player[0])
    deals = np.repeat(state._owner[:1], 8, axis=0)  # the true deal: one consistent with the view
    result = core.rollout(state, 0, 8, seed=3, player=player, deals=deals)
    assert np.array_equal(result.state._owner, deals)
    assert len(set(result.state.seed.tolist())) == 8 and state.seed[0] not in result.state.seed
    exact = core.rollout(state, 0, 8, seed=3)
    assert (exact.state.seed == state.seed[0]).all()


def test_rollouts_from_a_player_s_view_refuse_auto_refute_whose_facts_the_deals_do_not_honour():
    """With auto_refute whether a refuter decided tells every player how many named cards it held;
    the posterior's deals do not count it, so redealt rollouts are refused (exact clones are not)."""
    state = game_under_way(CLASSIC.replace(auto_refute=True), 4, 30)
    player = int(state.current_player[0])
    deals = np.repeat(state._owner[:1], 8, axis=0)  # even the true deal: the call cannot tell
    with pytest.raises(ValueError, match=r"player \d: .*needs auto_refute=False, got auto_refute=True"):
        core.rollout(state, 0, 8, seed=3, player=player, deals=deals)
    with pytest.raises(ValueError, match="needs auto_refute=False"):  # before asking for the deals
        core.rollout(state, 0, 8, seed=3, player=player)
    assert core.rollout(state, 0, 8, seed=3).state.done.all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: core.rollout(s, 0, 0, 1), "n must be an int >= 1, got 0"),
        (lambda s: core.rollout(s, 1, 4, 1), r"game must be an int in \[0, 1\), got 1"),
        (lambda s: core.rollout(s, 0, 4, -1), r"seed must be an int in \[0, 2\*\*63\), got -1"),
        (lambda s: core.rollout(s, 0, 4, True), "seed must be an int"),
        (lambda s: core.rollout(s, 0, 4, 1, max_steps=0), "max_steps must be an int >= 1, got 0"),
        (
            lambda s: core.rollout(s, 0, 4, 1, stop_when_out=4),
            r"stop_when_out must be None or a player in \[0, 4\)",
        ),
        (lambda s: core.rollout(s, 0, 4, 1, player=0), "player 0: .*give their deals"),
        (lambda s: core.rollout(s, 0, 4, 1, deals=np.zeros((4, 21), dtype=int)), "give player too"),
        (lambda s: core.rollout(s, 0, 4, 1, first=np.ones(3, dtype=bool)), r"first must have shape \(405,\)"),
        (
            lambda s: core.rollout(s, 0, 4, 1, seen=np.ones((4, 20), dtype=bool)),
            r"seen must have shape \(4, 21\)",
        ),
        (
            lambda s: core.play_out(s, [0], seen=np.ones((2, 4, 21), dtype=bool)),
            r"seen must have shape \(1, 4, 21\)",
        ),
        (lambda s: core.play_out(s, np.zeros(2, dtype=np.uint64)), r"keys must be 1 integers"),
        (
            lambda s: core.play_out(s, [0], first=np.zeros(405, dtype=bool)),
            "first leaves game 0 no legal action",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_value(call, message):
    with pytest.raises(ValueError, match=message):
        call(core.init(CLASSIC, [0]))


def test_a_finished_game_is_not_rolled_out():
    state = core.rollout(core.init(CLASSIC, [0]), 0, 1, seed=0).state
    with pytest.raises(ValueError, match="game 0 is over: nothing to roll out"):
        core.rollout(state, 0, 4, 1)
    with pytest.raises(TypeError, match=r"state must be a core\.State, got list"):
        core.rollout([], 0, 4, 1)
    with pytest.raises(TypeError, match="first must be a bool array"):
        core.play_out(core.init(CLASSIC, [0]), [0], first=np.ones(405))


def test_the_simulation_page_s_compiled_rollouts_example_runs():
    (example,) = re.findall(r"```py\n(.*?)```", (ROOT / "docs" / "simulation.md").read_text(), re.S)
    namespace: dict = {}
    exec(example, namespace)
    assert namespace["result"].state.done.all() and namespace["mine"].rewards.shape == (256, 4)


def test_compiled_rollouts_from_other_sources_of_the_rules_are_recompiled(monkeypatch):
    """``_play_out`` holds the rules and the step kernel inlined, from files whose changes numba does
    not see: its code is recompiled when the digest it was compiled with differs from the files'."""
    module = importlib.import_module("cluedo_env.core.rollout")  # (core.rollout is the function)
    compiled = [f for f in vars(module).values() if isinstance(f, CPUDispatcher)]
    assert all(type(f._cache).__name__ == "FunctionCache" and f.targetoptions.get("nogil") for f in compiled)
    module.play_out(core.init(CLASSIC, [0]), [0], max_steps=1)
    assert module._compiled_digest() == module._source_digest()  # the code in use is of these sources
    recompiled = []
    for function in (module._play_out, module._compiled_digest):
        monkeypatch.setattr(function, "recompile", lambda name=function.__name__: recompiled.append(name))
    monkeypatch.setattr(module, "_source_digest", lambda: 12345)  # as if rules.py had changed
    module._check_cache.cache_clear()
    module._check_cache()
    module._check_cache.cache_clear()  # (checked again, with the true digest, at the next call)
    assert sorted(recompiled) == ["_compiled_digest", "_play_out"]
