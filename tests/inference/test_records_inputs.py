"""Records refuse fields that are not integers, and the library's examples run as they are written.

A record's constructor called ``int()`` on its fields: ``Seen(1.9, 1)`` became card 1,
``Seen("4", 1)`` card 4, ``Seen(0, True)`` player 1, ``OwnHand(0, (0.5, 3.9))`` the cards
(0, 3), and the deduction went on from cards nobody named. A field must now be an integer (a
Python or numpy one, not a bool), as ``Setup`` and ``Deck`` ask of theirs; numpy integers, which
the agents read from event arrays, are taken and stored as Python ints.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import numpy as np
import pytest

import cluedo_env.inference
from cluedo_env.inference import Accusation, Deck, OwnHand, Seen, Setup, Suggestion, deduce
from cluedo_env.inference.from_events import plain_record, record_from_plain

SETUP = Setup(Deck(3, 3, 3), 3, (2, 2, 2))  # suspects 0-2, weapons 3-5, rooms 6-8

NOT_INTEGERS = [
    ("Seen.card", lambda: Seen(1.9, 1), "1.9"),
    ("Seen.card", lambda: Seen("4", 1), "'4'"),
    ("Seen.owner", lambda: Seen(0, 1.5), "1.5"),
    ("Seen.owner", lambda: Seen(0, True), "True"),
    ("OwnHand.player", lambda: OwnHand(0.0, (0, 3)), "0.0"),
    ("OwnHand.cards", lambda: OwnHand(0, (0.5, 3.9)), "0.5"),
    ("OwnHand.cards", lambda: OwnHand(0, np.array([0.0, 3.0])), "np.float64(0.0)"),
    ("OwnHand.cards", lambda: OwnHand(0, "03"), "'03'"),
    ("Suggestion.suggester", lambda: Suggestion(1.0, (0, 3, 6)), "1.0"),
    ("Suggestion.cards", lambda: Suggestion(1, (0.7, "3", 6.99), passed=(2,), shown_by=0), "0.7"),
    ("Suggestion.passed", lambda: Suggestion(1, (0, 3, 6), passed=(2.0,)), "2.0"),
    ("Suggestion.shown_by", lambda: Suggestion(1, (0, 3, 6), shown_by=np.bool_(False)), "False"),
    ("Suggestion.shown_card", lambda: Suggestion(1, (0, 3, 6), shown_by=2, shown_card=3.0), "3.0"),
    ("Accusation.player", lambda: Accusation("1", (0, 3, 6), False), "'1'"),
    ("Accusation.cards", lambda: Accusation(1, (0, 3.0, 6), False), "3.0"),
]


@pytest.mark.parametrize(
    ("field", "make", "value"), NOT_INTEGERS, ids=[f"{f}={v}" for f, _, v in NOT_INTEGERS]
)
def test_a_field_that_is_not_an_integer_is_refused_by_name_and_value(field, make, value):
    with pytest.raises(
        ValueError, match=rf"^{re.escape(field)} must (be an int|hold ints|be a sequence).*{re.escape(value)}"
    ):
        make()


def test_no_card_is_deduced_from_a_float():
    # Seen(1.9, 1) was Seen(1, 1): player 1 held card 1 for the deduction.
    with pytest.raises(ValueError, match=r"Seen\.card must be an int \(a card id\), got 1\.9"):
        deduce(SETUP, 0, [OwnHand(0, (0, 3)), Seen(1.9, 1)])


def test_numpy_integers_are_taken_as_python_ints():
    records = [
        OwnHand(np.int8(0), np.array([0, 3], dtype=np.int16)),
        Suggestion(
            np.int64(1),
            np.array([0, 3, 6]),
            passed=np.array([2]),
            shown_by=np.int32(0),
            shown_card=np.int64(3),
        ),
        Accusation(np.int64(2), (np.int8(1), 4, 7), np.int64(0)),
        Seen(np.int16(1), np.int8(1)),
    ]
    assert records == [
        OwnHand(0, (0, 3)),
        Suggestion(1, (0, 3, 6), passed=(2,), shown_by=0, shown_card=3),
        Accusation(2, (1, 4, 7), False),
        Seen(1, 1),
    ]
    for record in records:
        for value in vars(record).values():
            assert all(type(v) in (int, bool) for v in (value if isinstance(value, tuple) else (value,)))
        assert record_from_plain(plain_record(record)) == record
    assert deduce(SETUP, 0, records).owner_of(1) == 1


def test_the_docstring_examples_run_with_their_modules_names_only():
    # As `pytest --doctest-modules cluedo_env/inference` runs them: Notepad's example used Deck
    # without importing it (NameError), hidden where the examples ran with the package's names.
    attempted = 0
    for module in pkgutil.iter_modules(cluedo_env.inference.__path__, "cluedo_env.inference."):
        result = doctest.testmod(importlib.import_module(module.name), report=False)
        assert result.failed == 0, module.name
        attempted += result.attempted
    assert attempted >= 3
