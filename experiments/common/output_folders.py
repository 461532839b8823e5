"""Output folders a command must be able to write, holding no symbolic links: checked before it starts,
told in one line.

``WritableFolders`` is the Hydra callback of a command whose YAML lists it
(``hydra.callbacks.writable_folders``, ``_target_: experiments.common.output_folders.WritableFolders``);
``refuse_unwritable`` is the check, for commands that make their folders themselves too.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from experiments.common.folder_lock import links_in, links_text, unwritable
from experiments.common.output_paths import empty_folder

__all__ = ["WritableFolders", "refuse_links", "refuse_unwritable"]


class WritableFolders(Callback):
    """A hydra callback: a command whose output folder cannot be written stops at once, in one line.

    For a command whose output folder hydra creates (``hydra.run.dir: ${output_dir}``): listed in
    its YAML (``hydra.callbacks.writable_folders``) with the folders by the key that sets them
    (``{output_dir: ${output_dir}}``), checked by ``refuse_unwritable`` when the run or sweep
    starts, before hydra creates anything.
    """

    def __init__(self, folders: Mapping[str, str] | None = None) -> None:
        self.folders = dict(folders or {})

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Check the folders of a single run."""
        refuse_unwritable(self.folders)
        refuse_links(self.folders)

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Check the folders of a sweep (before Hydra writes its ``multirun.yaml`` there)."""
        refuse_unwritable(self.folders)
        refuse_links(self.folders)


def refuse_unwritable(folders: Mapping[str, str | Path | None], *, utf8_writers: bool = False) -> None:
    """Stop a command whose output folder cannot be written, with one line instead of a traceback.

    Each folder (by the key that sets it, ``{"runs_dir": "runs"}``), or the nearest part of its
    path that exists, must be a folder this user may write. Otherwise this prints
    ``error: cannot write <key>=<folder>: <why>; ...`` and exits with status 1. An empty path
    (``output_dir=``, which would be the current folder) is refused the same way:
    ``error: <key>= is empty: ...``; None (a command's own default) is not checked.
    ``utf8_writers``: whether pyarrow or TensorBoard write there (``folder_lock.unwritable``: then a path
    outside ASCII is refused where Python's file names are not UTF-8).
    """
    for key, folder in folders.items():
        if folder is None:
            continue
        if not str(folder).strip():
            print(f"error: {empty_folder(key)}", file=sys.stderr)
            sys.exit(1)
        problem = unwritable(folder, utf8_writers=utf8_writers)
        if problem:
            print(
                f"error: cannot write {key}={folder}: {problem}; give {key}= a folder you may write",
                file=sys.stderr,
            )
            sys.exit(1)


def refuse_links(folders: Mapping[str, str | Path | None], sub_folder: str | Path | None = None) -> None:
    """Stop a command whose output folder holds symbolic links (``folder_lock.links_in``), in one line:
    the command and Hydra write there, and through a link they would write wherever it points.

    The folder named (``{"runs_dir": "runs"}``) may itself be a link. ``sub_folder``: the folder the command
    picks in it and writes to (imitate's ``imitate__<exp_name>__<seed>``): only that one is searched, and it,
    and any folder between, may not be a link either. Prints
    ``error: <key>=<folder> holds symbolic links (<links>): ...`` and exits with status 1.
    """
    for key, folder in folders.items():
        if folder is None:
            continue
        out = Path(folder, sub_folder or "")
        links = links_in(out) if out.is_dir() else []
        if sub_folder:  # named from the folder given, the picked ones first
            parts = Path(sub_folder).parts
            picked = [Path(*parts[: k + 1]) for k in range(len(parts))]
            links = [p for p in picked if Path(folder, p).is_symlink()] + [Path(sub_folder, p) for p in links]
        if links:
            print(
                f"error: {key}={folder} holds symbolic links ({links_text(links)}): the run's files would be written "
                f"through them. Remove them, or give {key}= another folder",
                file=sys.stderr,
            )
            sys.exit(1)
