"""One line on standard error when a process starts compiling the rules, which takes minutes.

numba compiles the core the first time it runs on a machine (and again after the core's sources
change); later runs load the machine code from numba's cache in seconds. Without a word, that first
run looks hung: a progress bar would sit at 0% for minutes. numba announces each compilation as a
``numba:compile`` event (its event API, ``numba.core.event``); a loaded cache announces none, so the
line is printed only when a compilation really starts. A process whose environment sets ``QUIET``
(``CLUEDO_QUIET_COMPILE=1``) says nothing: the tournament's workers, whose parent has said it.
"""

from __future__ import annotations

import os
import sys

from numba.core import event

__all__ = ["QUIET", "FirstCompileNotice", "listen"]

QUIET = "CLUEDO_QUIET_COMPILE"  # the environment variable that silences the notice

MESSAGE = (
    "cluedo_env: compiling the rules core for this machine (the first run, or the first after an update; "
    "about a minute on 2 idle cores). Later runs load it from numba's cache in seconds."
)


class FirstCompileNotice(event.Listener):
    """Prints ``MESSAGE`` to ``stream`` when the first compilation of a function of ``package`` starts."""

    def __init__(self, package: str = "cluedo_env", stream=None) -> None:
        self.package = package
        self.stream = stream
        self.told = False

    def on_start(self, ev: event.Event) -> None:
        """Tell, once, when numba starts compiling one of ``package``'s functions."""
        dispatcher = (ev.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not self.told and (module == self.package or module.startswith(self.package + ".")):
            self.told = True
            print(MESSAGE, file=self.stream or sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        """Nothing to say when a compilation ends."""


def listen() -> FirstCompileNotice | None:
    """Install the notice for this process (``batched.check_cache`` does, before the first compiled call),
    unless its environment sets ``QUIET``."""
    if os.environ.get(QUIET):
        return None
    notice = FirstCompileNotice()
    event.register("numba:compile", notice)
    return notice
