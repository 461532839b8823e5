"""One line on standard error when a process starts compiling the rules, which takes minutes.

numba compiles the core the first time it runs on a machine (and again after the core's sources
change); later runs load the machine code from numba's cache in seconds. Without a word, that first
run looks hung: a progress bar would sit at 0% for minutes. numba announces each compilation as a
``numba:compile`` event (its event API, ``numba.core.event``); a loaded cache announces none, so the
line is printed only when a compilation really starts; while compilations go on, a line every ten
seconds says for how long and how many functions are done, so no stretch is silent for longer. A
process whose environment sets ``QUIET``
(``CLUEDO_QUIET_COMPILE=1``) says nothing: the tournament's workers, whose parent has said it.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from numba.core import event

__all__ = ["QUIET", "FirstCompileNotice", "compiling_here", "listen"]

QUIET = "CLUEDO_QUIET_COMPILE"  # the environment variable that silences the notice

MESSAGE = (
    "cluedo_env: compiling the rules core for this machine (the first run, or the first after an update; "
    "about half a minute on 2 idle cores). Later runs load it from numba's cache in seconds."
)


class FirstCompileNotice(event.Listener):
    """Prints ``MESSAGE`` to ``stream`` when the first compilation of a function of ``package`` starts,
    then a line every ``every`` seconds for as long as compilations of ``package`` go on."""

    def __init__(self, package: str = "cluedo_env", stream=None, every: float = 10.0) -> None:
        self.package = package
        self.stream = stream
        self.every = every
        self.told = False
        self.compiling = 0  # compilations of the package under way (numba nests a callee's in its caller's)
        self.compiled = 0
        self.started = 0.0
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None

    def _ours(self, ev: event.Event) -> bool:
        dispatcher = (ev.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        return module == self.package or module.startswith(self.package + ".")

    def _say(self, line: str) -> None:
        print(line, file=self.stream or sys.stderr, flush=True)

    def on_start(self, ev: event.Event) -> None:
        """Tell, once, when numba starts compiling one of ``package``'s functions, and keep a clock."""
        if not self._ours(ev):
            return
        with self._lock:
            self.compiling += 1
            if not self.told:
                self.told = True
                self.started = time.monotonic()
                self._say(MESSAGE)
            if self._ticker is None:
                self._ticker = threading.Thread(target=self._tick, name="compile-notice", daemon=True)
                self._ticker.start()

    def on_end(self, ev: event.Event) -> None:
        """Count a finished compilation of one of ``package``'s functions."""
        if self._ours(ev):
            with self._lock:
                self.compiling -= 1
                self.compiled += 1

    def _tick(self) -> None:
        while True:
            time.sleep(self.every)
            with self._lock:
                if self.compiling == 0:
                    self._ticker = None
                    return
                elapsed = time.monotonic() - self.started
                self._say(
                    f"cluedo_env: still compiling ({elapsed:.0f} s, {self.compiled} of its functions compiled)"
                )


_LISTENING: list[FirstCompileNotice] = []  # the notice of this process, once ``listen`` installed it


def listen() -> FirstCompileNotice | None:
    """Install the notice for this process (``batched.check_cache`` does, before the first compiled call),
    unless its environment sets ``QUIET``."""
    if os.environ.get(QUIET):
        return None
    notice = FirstCompileNotice()
    event.register("numba:compile", notice)
    _LISTENING.append(notice)
    return notice


def compiling_here() -> bool:
    """Whether this process has compiled a function of the rules (numba's cache was cold or stale), as
    its notice saw; False where the notice is silenced (``QUIET``) or not installed yet."""
    return any(notice.told for notice in _LISTENING)
