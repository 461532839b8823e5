"""A URL's credentials kept out of what a run writes and prints.

An llm agent's ``base_url`` may carry them: a user and password (``http://user:password@host/v1``),
or a key in its query (``http://host/v1?key=...``). The chat client never shows them
(``agents.llm.chat``), and a command's own records (``config.yaml``, ``run.json``, the reasoning
benchmark's scores file) and the resume command it prints, which people share, do not either.

A query value is taken for a credential when it has ``SECRET_QUERY_CHARS`` characters or more,
percent-decoded, unless its name is one of ``PUBLIC_QUERY_NAMES`` (``api-version``, which a request
needs as written): a key is long, while a short value (``v=1``) is none, and replaced wherever it
appears in an error it would spoil the message. The chat client's errors hide the same values: the
rule is ``agents.llm.errors.secret_query_value`` (importable without the llm extra).
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

from agents.llm.errors import secret_query_value

__all__ = ["REDACTED", "hide_url_credentials"]

REDACTED = "[redacted]"
# scheme://userinfo@ : the userinfo is all up to the last "@" before the path (a "/") or a space, so that a
# password holding an "@", a "?" or a "#" is hidden whole. An "@" after a path is nobody's userinfo; one in a
# query with no path before it ("http://host?user=me@example.com") reads as userinfo and is hidden too.
USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s'\"]*@")
# scheme://host/path? and the query after it, up to a fragment, a space or a quote
QUERY = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"?#]*\?)([^\s'\"#]*)")


def _hide_query(query: str) -> str:
    parts = []
    for part in query.split("&"):
        name, equals, value = part.partition("=")
        parts.append(
            f"{name}={REDACTED}"
            if equals and secret_query_value(unquote_plus(name), unquote_plus(value))
            else part
        )
    return "&".join(parts)


def hide_url_credentials(text: str) -> str:
    """``text`` with the user and password of every URL in it, and the values of its query taken for
    credentials (``secret_query_value``), replaced by ``[redacted]``."""
    text = USERINFO.sub(rf"\g<1>{REDACTED}@", text)
    return QUERY.sub(lambda match: match[1] + _hide_query(match[2]), text)
