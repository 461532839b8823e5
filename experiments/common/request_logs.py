"""Third-party request logs at WARNING: httpx logs one INFO line per request, which buries a
command's progress bar under hundreds of lines in a language-model tournament.

A command calls ``quiet_request_logs()`` at its start. Loggers a user asked for stay as asked:
``hydra.verbose=httpx`` (or ``hydra.verbose=[httpx,httpcore]``) sets them to DEBUG before the
command runs, and a logger with a level of its own is left alone.
"""

from __future__ import annotations

import logging

__all__ = ["REQUEST_LOGGERS", "quiet_request_logs"]

REQUEST_LOGGERS = ("httpx", "httpcore", "urllib3")


def quiet_request_logs() -> None:
    """Set each of ``REQUEST_LOGGERS`` that has no level of its own to WARNING."""
    for name in REQUEST_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.WARNING)
