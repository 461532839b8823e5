"""Output paths a command checks before any work: each refusal is one line naming the option and what it
takes.

- ``file_refusal``: a file a command writes (a report, a figure, curves, a leaderboard it appends to) is
  not empty, not a folder, and in a folder this user may make or write (``folder_lock.unwritable``).
- ``empty_folder``: the line refusing an empty output folder (``output_dir=``), which would be the
  current folder.
- ``figure_options``, ``refuse_files``, ``figure_file``: a plot command's ``--png`` and ``--json``, checked
  before it reads the runs, and the figure's file named as ``savefig`` writes it (``curve`` is ``curve.png``).
- ``path_argument``: an argparse ``type`` that refuses an empty path (argparse names the option); a
  ``Path("")`` would be the current folder.
- ``others_in``: what an existing output folder holds that the command does not write. A command that
  writes files of fixed names into a folder (the tournament, ``cluedo-stats``) takes a new or empty
  folder, one of its own, or one holding only the files it writes, as ``experiments.expert_dataset``
  does: it never writes over another command's files of the same name.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from experiments.common.folder_lock import unwritable

__all__ = [
    "FIGURE",
    "TEMPORARY",
    "empty_folder",
    "figure_file",
    "figure_options",
    "file_refusal",
    "names_text",
    "others_in",
    "path_argument",
    "refuse_files",
]

FIGURE = "the figure's file (e.g. curve.png; .png is added to a name without an extension)"
# A file being written whole: ``<name>.<pid>.<8 hex digits>.tmp`` beside it (``cluedo_env.whole_files``),
# or ``<name>.<pid>.tmp`` (the expert dataset's tables).
TEMPORARY = re.compile(r"\.\d+(\.[0-9a-f]{8})?\.tmp$")


def empty_folder(key: str) -> str:
    """The line refusing an empty folder path given to ``key`` (``output_dir=``: the current folder)."""
    return f"{key}= is empty: give {key}= the folder to write into, not the current one (e.g. {key}=results/run1)"


def file_refusal(option: str, value: str | Path, accepts: str) -> str | None:
    """The line refusing ``value`` as the file that ``option`` names, or None where it can be written.

    ``option`` as the user types it: ``"--json"``, or ``"output="`` for a Hydra key. The lines:
    ``<option> is empty: give <accepts>``; ``<option> <value> is a folder: give <accepts>``;
    ``<option> <value> cannot be written: <why>; give <accepts>`` (a folder on the way that is a file,
    or one this user may not write).
    """
    text = str(value)
    named = f"{option}{text}" if option.endswith("=") else f"{option} {text}"
    if not text.strip():
        return f"{option} is empty: give {accepts}"
    if Path(text).is_dir():
        return f"{named} is a folder: give {accepts}"
    why = unwritable(Path(text).parent)
    return f"{named} cannot be written: {why}; give {accepts}" if why else None


def refuse_files(parser: argparse.ArgumentParser, files: Mapping[str, tuple[Path | None, str]]) -> None:
    """Stop a command (``parser``) whose output file cannot be written, before any work: ``files`` maps
    each option to ``(path or None, what it accepts)``; the first refused prints ``error: <file_refusal's
    line>`` and exits with status 2."""
    for option, (path, accepts) in files.items():
        if path is not None and (why := file_refusal(option, path, accepts)) is not None:
            parser.exit(2, f"error: {why}\n")


def figure_file(path: Path | None) -> Path | None:
    """The file matplotlib's ``savefig`` writes for ``path``: ``path``, with ``.png`` added where its name
    has no extension (its default format), so that a plot command names the file it wrote. A folder is
    left as it is (``file_refusal`` refuses it)."""
    if path is None or path.suffix or path.is_dir():
        return path
    return path.with_name(path.name.rstrip(".") + ".png")


def figure_options(parser: argparse.ArgumentParser, default: str, json_accepts: str, json_help: str) -> None:
    """Add a plot command's ``--png`` (the figure; ``default`` says where it goes without one) and
    ``--json`` (what the figure shows, as data: ``json_accepts`` for its refusal, ``json_help``)."""
    parser.add_argument(
        "--png",
        type=path_argument(FIGURE),
        help=f"figure path, not a symbolic link (default: {default}; .png added to a name without an extension)",
    )
    parser.add_argument("--json", type=path_argument(json_accepts), help=json_help)


def path_argument(accepts: str) -> Callable[[str], Path]:
    """An argparse ``type`` for an output path: the ``Path``, or an empty one refused
    (``error: argument --output: an empty path; give <accepts>``)."""

    def path(text: str) -> Path:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"an empty path; give {accepts}")
        return Path(text)

    return path


def others_in(folder: Path, own: Collection[str]) -> list[str]:
    """What ``folder`` holds besides the files a command writes (``own``: their names): the names in it,
    sorted, that are not a file of ``own`` or such a file's temporary (``TEMPORARY``); a folder or a
    link named as one of them counts as another's (named with ``/`` after a folder). Empty for a missing
    folder."""
    if not folder.is_dir():
        return []
    others = []
    for path in folder.iterdir():
        name = TEMPORARY.sub("", path.name)
        if name not in own or path.is_symlink() or not path.is_file():
            others.append(path.name + ("/" if path.is_dir() and not path.is_symlink() else ""))
    return sorted(others)


def names_text(names: list[str]) -> str:
    """The names found, for a message: the first five, then ``...``."""
    return ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
