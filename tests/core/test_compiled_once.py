"""The rules are compiled once per process, whichever entry of ``core/batched.py`` runs them.

``batched._advance`` holds the rules inlined (``rules.play``, ``rules.legal``): compiling it is most of
a first run's compilation. numba compiles a function once for each distinct type of its arguments,
and a literal Python integer is a type of its own (``Literal[int](0)``), so a caller passing ``0``
where another passes a run-time integer would compile the rules a second time (about 10 s).
"""

from __future__ import annotations

import os
import subprocess
import sys

# Run in a fresh process on an empty numba cache: functions loaded from the cache are not compiled,
# and the callees of a cached entry are not loaded at all (their ``signatures`` stay empty).
SCRIPT = """
import numpy as np
from cluedo_env import core
from cluedo_env.core import batched, rules
from cluedo_env.core.game import PARALLEL_BATCH

# A step of one game (step_one), of a batch (step_games, checked and unchecked), of a large batch
# (step_games_parallel), the legal actions (legal_games and its parallel twin) and the deal
# (deal_games), each at least once.
for batch in (1, 3, PARALLEL_BATCH):
    state = core.init(core.GameConfig(), list(range(batch)))
    for check in (False, True):
        mask = core.legal_action_mask(state)
        core.step(state, mask.argmax(axis=1), check=check, mask=mask)
    core.reset(state, [0], [batch])
# Some of 200 deals start with tied rolls: _highest_rolls's second call, with the other count.
core.init(core.GameConfig(start_player="dice"), list(range(200)))
print(len(batched._advance.signatures), len(rules._highest_rolls.signatures))
"""


def test_the_rules_and_the_starting_rolls_are_compiled_once_whichever_entry_runs_them(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    advance, highest_rolls = map(int, result.stdout.split())
    assert advance == 1, "the rules (batched._advance) were compiled more than once"
    assert highest_rolls == 1, "rules._highest_rolls was compiled once per literal round count"
