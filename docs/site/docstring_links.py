"""A griffe extension: a docstring's relative links to the repository's docs/ work in the site.

A module docstring may link a document as GitHub shows it, relative to the module's file
(``cluedo_env/cluedo_v0.py`` links ``../docs/RULES.md``). Its API page lies elsewhere
(``reference/cluedo_env/cluedo_v0.md``), so each such link is rewritten, in the site only, to the
same document relative to that page. Links to anything outside docs/ are left as they are.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

import griffe

LINK = re.compile(r"\]\((?!\w+://|#|/)([^)\s]+)\)")


def reference_page(module: griffe.Module) -> str:
    """The site path of a module's API page (as ``gen_pages.py`` names it)."""
    parts = module.path.split(".")
    return (
        posixpath.join("reference", *parts, "index.md")
        if module.is_package
        else posixpath.join("reference", *parts[:-1], parts[-1] + ".md")
    )


class DocsLinks(griffe.Extension):
    """Rewrites relative links to docs/ in every docstring of a module."""

    def on_object(self, *, obj: griffe.Object, **_kwargs: Any) -> None:
        """One object's docstring, rewritten against its module's file and page."""
        if obj.docstring is None or obj.is_alias or "](" not in obj.docstring.value:
            return
        module = obj.module
        source = module.relative_filepath.as_posix() if module.filepath else None
        if source is None:
            return
        page_folder = posixpath.dirname(reference_page(module))

        def to_site(found: re.Match) -> str:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(source), found.group(1)))
            if not target.startswith("docs/"):
                return found.group(0)
            return f"]({posixpath.relpath(target.removeprefix('docs/'), page_folder)})"

        obj.docstring.value = LINK.sub(to_site, obj.docstring.value)
