"""A URL's user and password kept out of what a run writes and prints.

An llm agent's ``base_url`` may carry them (``http://user:password@host/v1``); the chat client
never shows them (``agents.llm.chat``), and a command's own records (``config.yaml``, ``run.json``)
and the resume command it prints, which people share, do not either.
"""

from __future__ import annotations

import re

__all__ = ["REDACTED", "hide_url_credentials"]

REDACTED = "[redacted]"
# scheme://userinfo@ : the userinfo is all up to the last "@" before the path (a "/") or a space, so that a
# password holding an "@", a "?" or a "#" is hidden whole. An "@" after a path is nobody's userinfo; one in a
# query with no path before it ("http://host?user=me@example.com") reads as userinfo and is hidden too.
USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s'\"]*@")


def hide_url_credentials(text: str) -> str:
    """``text`` with the user and password of every URL in it replaced by ``[redacted]``."""
    return USERINFO.sub(rf"\g<1>{REDACTED}@", text)
