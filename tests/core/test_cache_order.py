"""numba's cache of the compiled core works whatever a process compiles first.

Each order below is a run of processes sharing one fresh cache folder (``NUMBA_CACHE_DIR``): the
first uses one part of the core, the second another, then one process for each part, twice (the
first time they compile what is left, the second time they load everything). Every process must
exit 0 and give what a process without any cache gives. (Issue #39: after a process that only asked for the legal actions
and one that stepped, every later process crashed (rc 139) in ``step``: numba stored the step,
compiled beside a parallel loop loaded from the cache, without the call that starts numba's
threads, numba/numba#8578.)

A cold compile of the whole core takes a minute or more: two orders run by default, the others
with ``-m slow`` (``.ci/run`` runs them).

Run as a script, this file is the process of an order: ``python tests/core/test_cache_order.py mask
step`` prints a JSON object of what each named use gave (``--no-cache`` first: without numba's
cache).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SMALL, LARGE = 3, 256  # LARGE: game.PARALLEL_BATCH, where the rules and observations go over the threads


def _digest(*arrays) -> str:
    import numpy as np

    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()[:16]


def _state_digest(state) -> str:
    from cluedo_env.core.layout import STATE_FIELDS

    return _digest(*(getattr(state, name) for name, _, _ in STATE_FIELDS))


def _play(state, mask, steps: int, seed: int) -> None:
    """``steps`` steps of the random agent (accusing rarely), by the batch step's paths: checked and
    unchecked, every game and half of them, the mask written by the step."""
    import numpy as np

    from agents.baselines.random_agent import RandomAgent
    from cluedo_env import core

    agent = RandomAgent(seed)
    B = state.batch_size
    for k in range(steps):
        actions = np.zeros(B, dtype=np.int64)
        live = mask.any(axis=1)
        if not live.any():
            return
        actions[live] = agent.act(state, np.flatnonzero(live), mask[live])
        half = np.arange(k % 2, B, 2) if k % 3 == 0 else None
        core.step(state, actions, check=k % 2 == 0, games=half, mask=mask)


def use_mask() -> dict:
    """Only the legal actions of newly dealt games."""
    from cluedo_env import core

    return {
        B: _digest(core.legal_action_mask(core.init(core.GameConfig(), range(B)))) for B in (SMALL, LARGE)
    }


def use_step() -> dict:
    """Deal, then step (a first roll, then random play), the step writing the mask."""
    import numpy as np

    from cluedo_env import core

    config = core.GameConfig()
    results = {}
    for B in (SMALL, LARGE):
        state = core.init(config, np.arange(B) + 7)
        mask = np.zeros((B, core.rules_for(config).A), dtype=bool)
        core.step(state, np.zeros(B, dtype=np.int64), mask=mask)  # action 0: every game rolls
        _play(state, mask, 30, B)
        results[B] = _state_digest(state) + _digest(mask)
    return results


def use_observe() -> dict:
    """Observations (both kinds) of newly dealt games, then after their first roll."""
    import numpy as np

    from cluedo_env import core

    results = {}
    for B in (SMALL, LARGE):
        state = core.init(core.GameConfig(), np.arange(B) + 11)
        seen = [core.observe(state, 0), core.observe(state, state.current_player, kind="seer")]
        core.step(state, np.zeros(B, dtype=np.int64))
        seen.append(core.observe(state, 1, games=np.arange(0, B, 2)))
        results[B] = _digest(*seen)
    return results


def use_clone() -> dict:
    """Copies of one game (``core.clone``), redealt (``core.redeal``) and played on."""
    import numpy as np

    from cluedo_env import core

    config = core.GameConfig()
    state = core.init(config, [5])
    core.step(state, [0])
    clones = core.clone(state, 0, LARGE)
    core.redeal(clones, 0, np.repeat(state._owner, LARGE, axis=0), np.arange(LARGE) + 100)  # its own deal
    mask = core.legal_action_mask(clones)
    _play(clones, mask, 20, 3)
    return {LARGE: _state_digest(clones) + _digest(mask)}


def use_env() -> dict:
    """The AEC environment: reset, then a game of random legal actions (one game, one call a step)."""
    import numpy as np

    from agents.baselines.random_agent import sample_legal
    from cluedo_env import cluedo_v0

    env = cluedo_v0.env()
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    seen, rewards = [], []
    for _ in range(200):
        observation, reward, termination, truncation, _ = env.last()
        seen.append(observation["observation"])
        rewards.append(reward)
        if termination or truncation:
            break
        env.step(int(sample_legal(rng, observation["action_mask"][None].astype(bool))[0]))
    env.close()
    return {1: _digest(np.array(seen), np.array(rewards, dtype=np.float64))}


USES = {name[4:]: use for name, use in list(globals().items()) if name.startswith("use_")}


def _run(uses: list[str], cache: Path, cached: bool = True) -> dict:
    """One process of an order: the ``uses`` in that order, with ``cache`` as numba's cache folder
    (``cached=False``: without numba's cache). Fails unless it exits 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["NUMBA_NUM_THREADS"] = "2"  # the parallel paths run even on one core
    env["NUMBA_CACHE_DIR"] = str(cache)
    command = [sys.executable, __file__, *([] if cached else ["--no-cache"]), *uses]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"{uses} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def uncached(tmp_path_factory) -> dict:
    """What every use gives in one process compiled without numba's cache."""
    cache = tmp_path_factory.mktemp("numba")
    results = _run(list(USES), cache, cached=False)
    assert set(results) == set(USES)
    assert not list(cache.rglob("*.nbi")), "the uncached run used numba's cache"
    return results


def _check_order(first: str, second: str, cache: Path, uncached: dict) -> None:
    """``first`` alone in a process, then ``second``, then every use alone, twice (the first time
    compiling what is left, the second loading everything): a use alone, since one that loads a
    sound parallel function first would start the threads that a broken one then finds."""
    for use in [first, second, *USES, *USES]:
        results = _run([use], cache)
        assert results[use] == uncached[use], f"{use} after {first}, {second} differs from an uncached run"
    assert list(cache.rglob("*.nbi")), "nothing was cached"


# The orders of the issue: legal actions first, then a step; a step first, then legal actions.
@pytest.mark.parametrize(("first", "second"), [("mask", "step"), ("step", "mask")])
def test_the_cache_works_whatever_is_compiled_first(first, second, tmp_path, uncached):
    _check_order(first, second, tmp_path / "numba", uncached)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"),
    [("observe", "step"), ("step", "observe"), ("clone", "mask"), ("env", "step"), ("mask", "env")],
)
def test_the_cache_works_whatever_is_compiled_first_more_orders(first, second, tmp_path, uncached):
    _check_order(first, second, tmp_path / "numba", uncached)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--no-cache"]:  # every function compiled in this process, nothing stored or loaded
        from numba.core.dispatcher import Dispatcher

        Dispatcher.enable_caching = lambda self: None
        arguments = arguments[1:]
    print(json.dumps({use: USES[use]() for use in arguments}))
