"""Build hooks of the documentation site (``mkdocs.yml``, ``hooks:``).

- A result report under ``results/`` is a record kept as its command wrote it; its plots were not
  all kept. An image link of such a report whose file is absent is replaced, in the built page
  only, by a note saying so (the file on disk is unchanged), so that ``mkdocs build --strict``
  checks every other link of the site.
- The docstrings hold doctest lines such as ``result["holds"]["Mustard"]``, which Markdown reads as
  a reference link; mkdocs-autorefs then warns that ``"Mustard"`` is no cross-reference target. A
  warning about a target that is not a dotted Python name is dropped; one about a real name stays.
"""

from __future__ import annotations

import logging
import posixpath
import re

IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
AUTOREFS_TARGET = re.compile(r"Could not find cross-reference target '([^']*)'")
DOTTED_NAME = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


class NotANameFilter(logging.Filter):
    """Drops mkdocs-autorefs' warnings about targets that are not dotted Python names."""

    def filter(self, record: logging.LogRecord) -> bool:
        found = AUTOREFS_TARGET.search(record.getMessage())
        return found is None or DOTTED_NAME.match(found.group(1)) is not None


def on_startup(**_kwargs) -> None:
    """Installs the autorefs filter."""
    for name in ("mkdocs.plugins.mkdocs_autorefs._internal.plugin", "mkdocs.plugins.mkdocs_autorefs"):
        logging.getLogger(name).addFilter(NotANameFilter())


def on_page_markdown(markdown, page, config, files):
    """In a result report, a note in place of each image whose file was not kept."""
    if not page.file.src_uri.startswith("results/"):
        return markdown
    folder = posixpath.dirname(page.file.src_uri)

    def kept_or_note(found: re.Match) -> str:
        target = found.group(2)
        if "://" in target or files.get_file_from_path(posixpath.normpath(posixpath.join(folder, target))):
            return found.group(0)
        return f"*(plot `{target}` not kept)*"

    return IMAGE.sub(kept_or_note, markdown)
