"""``core.integers``: one reading of "one integer" (an action, a viewer) and of a bool among integers."""

from __future__ import annotations

import enum

import numpy as np
import pytest

from cluedo_env.core.game import check_seeds
from cluedo_env.core.integers import holds_a_bool, one_integer


class Seat(enum.IntEnum):
    THIRD = 3


class MyInt(int):
    pass


@pytest.mark.parametrize(
    "given",
    [
        3,
        Seat.THIRD,
        MyInt(3),
        np.int64(3),
        np.uint8(3),
        np.array(3),
        np.array([3]),
        np.array([[3]], np.uint64),
    ],
)
def test_one_integer_is_read_as_its_python_int(given):
    value = one_integer(given)
    assert type(value) is int and value == 3


def test_a_tensor_of_one_integer_is_read_as_its_python_int():
    torch = pytest.importorskip("torch")
    for given in (torch.tensor(3), torch.tensor([3], dtype=torch.uint8)):
        assert one_integer(given) == 3 and type(one_integer(given)) is int


@pytest.mark.parametrize(
    "given",
    [True, np.True_, np.array(True), 3.0, np.float64(3), np.array(3.0), np.array([3, 4]), [3], "3", None],
)
def test_what_is_not_one_integer_is_none(given):
    assert one_integer(given) is None


def test_a_bool_among_integers_is_found_in_any_form():
    """``check_seeds([1, np.array(True)])`` read the bool in a 0-d array as seed 1."""
    assert holds_a_bool([1, np.array([True])])
    for values in ([1, True], (np.True_, 2), [1, np.array(True)]):
        assert holds_a_bool(values)
        with pytest.raises(ValueError, match=r"seeds must be integers in \[0, 2\*\*63\)"):
            check_seeds(values)
    assert not holds_a_bool([1, np.int64(2), np.array(3)]) and not holds_a_bool(np.array([True]))
    assert check_seeds([1, np.array(2)]).tolist() == [1, 2]
