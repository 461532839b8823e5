"""The rules are compiled once per process, whichever entry of ``core/batched.py`` runs them.

``batched._advance`` holds the rules inlined (``rules.play``, ``rules.legal``): compiling it is most of
a first run's compilation. numba compiles a function once for each distinct type of its arguments,
and a literal Python integer is a type of its own (``Literal[int](0)``), so a caller passing ``0``
where another passes a run-time integer would compile the rules a second time (about 10 s).
"""

from __future__ import annotations

import numpy as np

from cluedo_env import core
from cluedo_env.core import batched, rules
from cluedo_env.core.game import PARALLEL_BATCH


def _play_every_entry() -> None:
    """A step of one game (``step_one``), of a batch (``step_games``, checked and unchecked), of a
    large batch (``step_games_parallel``), the legal actions (``legal_games`` and its parallel
    twin) and the deal (``deal_games``), each at least once; a game that starts with tied rolls
    runs ``_highest_rolls`` twice."""
    for batch in (1, 3, PARALLEL_BATCH):
        state = core.init(core.GameConfig(), list(range(batch)))
        for check in (False, True):
            mask = core.legal_action_mask(state)
            core.step(state, mask.argmax(axis=1), check=check, mask=mask)
        core.reset(state, [0], [batch])


def test_the_rules_are_compiled_once_whichever_entry_runs_them():
    _play_every_entry()
    assert len(batched._advance.signatures) == 1, batched._advance.signatures


def test_the_starting_rolls_are_compiled_once_for_both_of_their_round_counts():
    seeds = np.arange(200)  # some start with tied rolls: the second call, with the other count
    core.init(core.GameConfig(start_player="dice"), seeds.tolist())
    assert len(rules._highest_rolls.signatures) == 1, rules._highest_rolls.signatures
