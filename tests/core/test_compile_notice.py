"""The one line a process prints when it starts compiling the rules (``core/compile_notice.py``)."""

from __future__ import annotations

import io
import time

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


class Compiling:
    """numba's event data for a compilation of a function of ``module``."""

    def __init__(self, module: str) -> None:
        self.data = {"dispatcher": type("Dispatcher", (), {"py_func": type("F", (), {"__module__": module})})}


def test_a_long_compilation_says_it_is_still_going_until_it_ends():
    said = io.StringIO()
    notice = FirstCompileNotice(package="cluedo_env", stream=said, every=0.05)
    ours, theirs = Compiling("cluedo_env.core.rules"), Compiling("numpy")
    notice.on_start(ours)
    notice.on_start(ours)  # a callee, compiled inside its caller
    notice.on_end(ours)
    time.sleep(0.3)
    notice.on_end(ours)
    lines = said.getvalue().splitlines()
    assert lines[0] == MESSAGE
    assert len(lines) >= 3 and all(line.startswith("cluedo_env: still compiling (") for line in lines[1:])
    assert lines[-1].endswith(("1 of its functions compiled)", "2 of its functions compiled)"))
    time.sleep(0.2)
    told = said.getvalue()
    notice.on_start(theirs)  # another package's compilation neither speaks nor keeps the clock going
    time.sleep(0.2)
    notice.on_end(theirs)
    assert said.getvalue() == told and notice.compiling == 0


def test_compiling_here_says_whether_this_processs_notice_saw_a_compilation(monkeypatch):
    from cluedo_env.core import compile_notice

    notice = FirstCompileNotice(stream=io.StringIO())
    monkeypatch.setattr(compile_notice, "_LISTENING", [notice])
    assert not compile_notice.compiling_here()
    notice.told = True  # what on_start sets at the first compilation of the package
    assert compile_notice.compiling_here()
    monkeypatch.setattr(compile_notice, "_LISTENING", [])  # silenced (QUIET) or not installed
    assert not compile_notice.compiling_here()
