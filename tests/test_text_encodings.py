"""Every text file the package reads or writes names its encoding, read from the source with ``ast``.

Without ``encoding=`` Python uses the locale's (cp1252 on Windows, ASCII under ``LC_ALL=C``): a report
holding "±" could not be written there, and a file written on one machine read wrongly on another.
Checked: ``read_text``/``write_text``; ``open`` (built in, ``os.fdopen``, ``Path.open`` with a mode
given, ``gzip``/``bz2``/``lzma.open``) and ``tempfile``'s files in a text mode; ``io.TextIOWrapper``.
ruff's ``PLW1514`` (a preview rule) sees only calls on values it knows to be paths: it missed
``(out / "stats.json").write_text(...)``. The checker is also run on a small bad source of its own, to
show it can fail.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import ROOT

PACKAGES = ("cluedo_env", "agents", "experiments")
MODE = re.compile(r"[rwxabt+]+")  # a string that is an open mode, not a file name
COMPRESSED = {"gzip", "bz2", "lzma"}  # their open(path, mode): text only where the mode says "t"
TEMPORARY = {"NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile"}  # binary unless a mode says


def mode_given(call: ast.Call, position: int) -> str | None:
    """The call's mode: its ``mode=`` or the string at ``position`` that is a mode; ``None`` if not given
    (``"?"`` where it is not a string written in the call)."""
    for keyword in call.keywords:
        if keyword.arg == "mode":
            value = keyword.value
            return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else "?"
    if len(call.args) > position:
        value = call.args[position]
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and MODE.fullmatch(value.value):
            return value.value
    return None


def text_call(call: ast.Call) -> bool:
    """Whether ``call`` reads or writes text with the locale's encoding (no ``encoding=``)."""
    if any(keyword.arg == "encoding" for keyword in call.keywords):
        return False
    function = call.func
    name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", None)
    owner = getattr(getattr(function, "value", None), "id", None)  # gzip of gzip.open; None for open
    if name in ("read_text", "write_text", "TextIOWrapper"):
        return True
    if name == "open" and owner in COMPRESSED:
        return "t" in (mode_given(call, 1) or "")
    if name == "open" and (isinstance(function, ast.Name) or owner in ("io", "builtins")):  # (file, mode="r")
        return "b" not in (mode_given(call, 1) or "r")
    if name == "fdopen":  # os.fdopen(fd, mode="r")
        return "b" not in (mode_given(call, 1) or "r")
    if name == "open":  # path.open(mode="r"); other objects' open (zip members, tar files) take no mode first
        mode = mode_given(call, 0)
        return mode is not None and "b" not in mode
    if name in TEMPORARY:
        mode = mode_given(call, 0)
        return mode is not None and "b" not in mode
    return False


def unnamed_encodings(source: str) -> list[int]:
    """The lines of ``source``'s calls that read or write text in the locale's encoding."""
    return sorted(
        node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call) and text_call(node)
    )


FILES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_text_file_names_its_encoding(path):
    lines = unnamed_encodings(path.read_text(encoding="utf-8"))
    assert not lines, f"{path.relative_to(ROOT)}: text read or written without encoding= at line(s) {lines}"


BAD = """
import gzip, io, os, tempfile
Path("a").read_text()
(folder / "b").write_text(text)
open(path, "w")
open(path)
path.open("a")
path.open(mode="r+")
os.fdopen(handle, "w")
gzip.open(path, "rt")
tempfile.NamedTemporaryFile("w")
io.TextIOWrapper(raw)
"""
GOOD = """
import gzip, os, tempfile, zipfile
path.read_text(encoding="utf-8")
open(path, "rb")
path.open("wb")
path.with_name("x").open("ab")
path.open()  # (not checked: a zip member's open takes a name first)
archive.open("policy.pth")
batched.open(state, step)
os.fdopen(handle, "wb")
gzip.open(path, "rb")
tempfile.NamedTemporaryFile()
open(path, "w", encoding="utf-8")
"""


def test_the_checker_finds_each_kind_of_call():
    assert unnamed_encodings(BAD) == list(range(3, 13))  # (line 3 on: one call each)
    assert unnamed_encodings(GOOD) == []
