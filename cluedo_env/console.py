"""What a command prints where the output's encoding cannot hold every character: Windows' cp1252 (its
output to a file, a pipe or CI), an ASCII or Latin-1 locale.

Every command (``python -m cluedo_env.replay``, the ``cluedo-*`` commands and the scripts of
``experiments``) calls ``replace_unencodable`` first: a label, a card name or a path outside the
output's encoding is printed with a "?" for each character it cannot hold, where Python stopped the
command with a ``UnicodeEncodeError`` traceback (after a finished tournament, or a dataset written
whole). Standard error needs nothing: Python writes ``\\u03b1`` there for such a character.
"""

from __future__ import annotations

import sys

__all__ = ["replace_unencodable"]


def replace_unencodable() -> None:
    """Standard output prints "?" for a character its encoding cannot hold, instead of raising
    ``UnicodeEncodeError``; an output that is no text stream (None under ``pythonw``) is left as it is."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
