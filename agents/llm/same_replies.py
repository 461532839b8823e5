"""Same replies: inside ``with same_replies():`` a request that any ``agents.llm.chat.ChatClient`` sent before
in the block (the same URL and body) gets the reply it got then, without asking the server again (its
``network_retries`` 0).

``agents.testing.check_agent(..., same_replies=True)`` checks an agent so against a server whose reply to a
request is not a function of the request: one that samples, or llama.cpp, whose logits vary with the
request before (its prompt cache).

The memo is one for the process, so one block at a time: a second ``same_replies()`` while one is open, in
any thread (two checks run at once, or nested), is refused (``RuntimeError``); a block clears only its own
memo when it ends.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["reply_once", "same_replies"]

Reply = TypeVar("Reply")

_REPLIES: dict[tuple[str, str], Any] | None = None  # (URL, body as JSON) -> its reply; None outside a block
_LOCK = threading.Lock()


@contextlib.contextmanager
def same_replies() -> Iterator[None]:
    """Within the block, a request sent before gets the reply it got then (see the module docstring)."""
    global _REPLIES
    mine: dict[tuple[str, str], Any] = {}
    with _LOCK:
        if _REPLIES is not None:
            raise RuntimeError(
                "same_replies() is already open (in this or another thread): one block at a time, since "
                "its memo answers every client of the process; run the checks with same_replies=True one "
                "after the other"
            )
        _REPLIES = mine
    try:
        yield
    finally:
        with _LOCK:
            if _REPLIES is mine:
                _REPLIES = None


def reply_once(url: str, body: dict[str, Any], ask: Callable[[], Reply]) -> Reply:
    """``ask()``, the reply to a request of ``body`` to ``url``; inside ``same_replies``, the reply the same
    request got before if any (a ``ChatReply`` with ``network_retries`` 0), else ``ask()``'s, kept."""
    with _LOCK:
        replies = _REPLIES
    if replies is None:
        return ask()
    key = (url, json.dumps(body, sort_keys=True))
    with _LOCK:
        before = replies.get(key)
    if before is None:
        reply = ask()
        with _LOCK:
            before = replies.setdefault(key, reply)  # (of two asked at once, the first kept)
        if before is reply:
            return reply
    return dataclasses.replace(before, network_retries=0)
