"""One integer, as the package reads a single integer given to it: an action (``ActionLayout``, every
env's ``step``, PettingZoo's ``AssertOutOfBounds`` as wrapped here) or a viewer (``replay.transcript``).

A policy gives one integer in many forms: an int (an ``IntEnum`` member or another ``int`` subclass too),
a numpy integer, or an array or tensor of one integer element (``predict()``'s 0-d array,
``dist.sample()``'s tensor, a batch of one). All of them are that integer; a bool (``True`` is not
player 1), a float (``1.0`` or ``1.7``) or several elements are not, wherever they are given.
Needs nothing beyond numpy: a tensor is read by its ``item()``, as a numpy array is.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ONE_INTEGER", "holds_a_bool", "one_integer"]

ONE_INTEGER = "an int (a numpy integer, or an array or tensor of one integer; not a bool)"
"""What ``one_integer`` accepts, in words, for the errors that refuse anything else."""


def one_integer(value: object) -> int | None:
    """The Python int that ``value`` is, or holds as its only element; ``None`` if it is not one integer.

    An int (a subclass too; not a bool), a numpy integer, or an object of one element whose ``item()``
    is an int and not a bool (a numpy array of any shape with one element, a torch tensor) is one
    integer. Anything else is not: a bool or a float (in an array or tensor too), several elements, a
    list."""
    if type(value) is int:  # the common case first
        return value
    if isinstance(value, int | np.integer):
        return None if isinstance(value, bool) else int(value)
    item = getattr(value, "item", None)
    if not callable(item):
        return None
    try:
        value = item()  # (numpy and torch refuse several elements, with ValueError or RuntimeError)
    except (TypeError, ValueError, RuntimeError):
        return None
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def holds_a_bool(values: object) -> bool:
    """Whether ``values``, a list or tuple of integers, holds a bool (``True``, ``np.True_``, a bool in
    an array or tensor), which numpy reads beside ints as 1: ``core.game.check_seeds`` and
    ``agents.arena.play_batch``'s rotations refuse them. Anything but a list or tuple holds none here
    (an array's own dtype says whether it is bools)."""
    return isinstance(values, list | tuple) and any(
        type(v) is not int and np.asarray(v).dtype == bool for v in values
    )
