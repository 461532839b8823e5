"""The one line a process prints when it starts compiling the rules (``core/compile_notice.py``)."""

from __future__ import annotations

import io

from numba import njit
from numba.core import event

from cluedo_env.core.compile_notice import MESSAGE, QUIET, FirstCompileNotice, listen


def test_the_first_compilation_of_the_package_is_told_once_and_others_are_not():
    said = io.StringIO()
    notice = FirstCompileNotice(package=__name__, stream=said)
    other = io.StringIO()
    control = FirstCompileNotice(package="no_such_package", stream=other)  # watches another package
    event.register("numba:compile", notice)
    event.register("numba:compile", control)
    try:

        @njit
        def first(x):
            return x + 1

        @njit
        def second(x):
            return x * 2

        assert first(1) == 2 and second(2) == 4  # two compilations of this module's functions
    finally:
        event.unregister("numba:compile", notice)
        event.unregister("numba:compile", control)
    assert said.getvalue() == MESSAGE + "\n"
    assert other.getvalue() == ""


def test_a_process_told_to_be_quiet_installs_no_notice(monkeypatch):
    monkeypatch.setenv(QUIET, "1")
    assert listen() is None
    monkeypatch.delenv(QUIET)
    notice = listen()
    try:
        assert isinstance(notice, FirstCompileNotice)
    finally:
        event.unregister("numba:compile", notice)
