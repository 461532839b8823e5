"""Counter-based randomness: each draw depends only on (game seed, draw counter).

Game ``i`` of a batch therefore deals and rolls exactly as it would alone: no
generator object is shared between games, and the whole game is a function of
its config, seed and actions. The mixer is SplitMix64's finaliser.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GOLDEN", "M1", "M2", "SEED_BOUND", "die_faces", "draw", "draw_die", "game_key"]

SEED_BOUND = 2**63  # game seeds lie in [0, SEED_BOUND): ``State.seed`` stores them as int64

# The mixer's constants (also read by the compiled rules, ``core/rules.py``).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def _mix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> _S30)) * M1
    z = (z ^ (z >> _S27)) * M2
    return z ^ (z >> _S31)


def game_key(seeds: np.ndarray) -> np.ndarray:
    """The ``uint64`` key of each game, from its integer seed."""
    return _mix(np.asarray(seeds, dtype=np.uint64) * GOLDEN + GOLDEN)


def draw(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """One ``uint64`` draw per game (broadcasts ``keys`` against ``counters``)."""
    # Array arithmetic on uint64 wraps around silently, as the mixer wants.
    return _mix(keys + (np.asarray(counters, dtype=np.uint64) + np.uint64(1)) * GOLDEN)


def draw_die(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """A fair die face 1..6 per draw (bias below 1e-18)."""
    return die_faces(draw(keys, counters))


def die_faces(drawn: np.ndarray) -> np.ndarray:
    """``int8`` die faces 1..6 of ``uint64`` draws."""
    return (drawn % np.uint64(6)).astype(np.int8) + np.int8(1)
