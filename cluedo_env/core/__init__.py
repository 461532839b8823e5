"""The rules core: numpy arrays of a batch of games and rules compiled with numba (no PettingZoo,
torch or SAT here).

Typical use::

    from cluedo_env import core
    config = core.GameConfig(num_players=4)
    state = core.init(config, seeds=range(1024))
    mask = core.legal_action_mask(state)
    while not state.done.all():
        # the step writes the legal actions after it into mask, in its own pass over the games
        state = core.step(state, choose(mask), check=False, mask=mask)

The compiled rules run a large batch on every core, through numba's TBB threading layer where TBB
is installed (a dependency on Linux and Windows x86-64) and its ``workqueue`` layer elsewhere,
unless ``NUMBA_THREADING_LAYER`` says otherwise (``threading_layer.py`` says why).
``NUMBA_NUM_THREADS=1`` keeps the core on one thread. The core is always compiled (``NUMBA_DISABLE_JIT=1``
is refused at import) and cached; where numba finds no folder it can write for its cache, the core
gives it a temporary one, with a warning (``numba_setup.py``).
"""

# numba_setup first: its import makes the checks, before the first compiled function is defined
from cluedo_env.core import numba_setup, threading_layer  # noqa: F401
from cluedo_env.core.actions import RANGE_NAMES, ActionLayout
from cluedo_env.core.board import Board, classic_board, room_distances
from cluedo_env.core.config import GameConfig
from cluedo_env.core.editions import EDITIONS, Edition, get_edition
from cluedo_env.core.events import EVENT_FIELDS, EVENT_KINDS, Event, private_view, public_view, read_events
from cluedo_env.core.game import CORNER_ROOMS, init, legal_action_mask, reset, rules_for, step
from cluedo_env.core.observe import OBSERVATION_KINDS, observation_pieces, observation_size, observe
from cluedo_env.core.presets import PRESETS, Preset
from cluedo_env.core.rng import SEED_BOUND
from cluedo_env.core.rollout import Rollouts, final_rewards, play_out, rollout
from cluedo_env.core.simulate import clone, redeal, require_sampled_view
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase, State

threading_layer.choose()  # (before numba's first parallel call, which no import makes)

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
    "Rollouts",
    "State",
    "classic_board",
    "clone",
    "final_rewards",
    "get_edition",
    "init",
    "legal_action_mask",
    "observation_pieces",
    "observation_size",
    "observe",
    "play_out",
    "private_view",
    "public_view",
    "read_events",
    "redeal",
    "require_sampled_view",
    "reset",
    "rollout",
    "room_distances",
    "rules_for",
    "step",
]
