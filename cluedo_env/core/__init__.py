"""The rules core: numpy arrays of a batch of games and rules compiled with numba (no PettingZoo,
torch or SAT here).

Typical use::

    from cluedo_env import core
    config = core.GameConfig(num_players=4)
    state = core.init(config, seeds=range(1024))
    while not state.done.all():
        mask = core.legal_action_mask(state)
        state = core.step(state, choose(mask))

The compiled rules run a large batch on every core. They use numba's ``workqueue`` threading layer
unless ``NUMBA_THREADING_LAYER`` says otherwise: numba's OpenMP layer kills a process forked after
a parallel call (``multiprocessing``'s default start on Linux) and spins its idle threads when the
cores are shared. ``NUMBA_NUM_THREADS=1`` keeps the core on one thread.
"""

import os

import numba

from cluedo_env.core.actions import RANGE_NAMES, ActionLayout
from cluedo_env.core.board import Board, classic_board, room_distances
from cluedo_env.core.config import GameConfig
from cluedo_env.core.editions import EDITIONS, Edition, get_edition
from cluedo_env.core.events import EVENT_FIELDS, EVENT_KINDS, Event, private_view, read_events
from cluedo_env.core.game import CORNER_ROOMS, init, legal_action_mask, reset, rules_for, step
from cluedo_env.core.observe import OBSERVATION_KINDS, observation_pieces, observation_size, observe
from cluedo_env.core.presets import PRESETS, Preset
from cluedo_env.core.rng import SEED_BOUND
from cluedo_env.core.simulate import clone, redeal
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase, State

if "NUMBA_THREADING_LAYER" not in os.environ:  # the user's choice, when made, is kept
    numba.config.THREADING_LAYER = "workqueue"

__all__ = [
    "CORNER_ROOMS",
    "EDITIONS",
    "ENVELOPE",
    "EVENT_FIELDS",
    "EVENT_KINDS",
    "FACE_DOWN",
    "OBSERVATION_KINDS",
    "PRESETS",
    "RANGE_NAMES",
    "SEED_BOUND",
    "ActionLayout",
    "Board",
    "Edition",
    "Event",
    "GameConfig",
    "Phase",
    "Preset",
    "State",
    "classic_board",
    "clone",
    "get_edition",
    "init",
    "legal_action_mask",
    "observation_pieces",
    "observation_size",
    "observe",
    "private_view",
    "read_events",
    "redeal",
    "reset",
    "room_distances",
    "rules_for",
    "step",
]
