"""A config folder from elsewhere is checked as Hydra reads it, whatever the locale's encoding.

Hydra reads a config file as UTF-8; the check read it in the locale's encoding and passed over a
file it could not parse. Under an ISO-8859-1 locale a "€" in a comment (its UTF-8 bytes hold a
control character there), and under ISO-8859-1 or cp1252 (Windows' default) a LINE SEPARATOR
(U+2028, a line break to YAML read as UTF-8) before a ``hydra:`` key, made the check's YAML fail to
parse: the file went unchecked, and Hydra made the object of its ``hydra.callbacks`` (here ``open``
of a marker file) before any check. Such a file is now read as UTF-8, and one that cannot be parsed
is refused, naming it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CALLBACK = "{callbacks: {made: {_target_: builtins.open, file: '{marker}', mode: w}}}"
FILES = {  # a line-up that Hydra reads as two random players and a callback, and what trips the old reading
    "a euro sign in a comment": (
        "# @package _global_\n# price list: 5 \u20ac\nlineup: {agents: [{name: random}, {name: random}]}\n"
        "hydra: " + CALLBACK + "\n"
    ),
    "a line separator before hydra": (
        "# @package _global_\nlineup: {agents: [{name: random}, {name: random}]}\u2028hydra: "
        + CALLBACK
        + "\n"
    ),
}


@pytest.fixture(scope="module")
def locales(tmp_path_factory) -> Path:
    """A folder of two locales compiled for this test (``LOCPATH``): en_US in ISO-8859-1 and in CP1252."""
    folder = tmp_path_factory.mktemp("locales")
    if shutil.which("localedef") is None:
        pytest.skip("needs localedef (glibc) to make a non-UTF-8 locale")
    for charmap in ("ISO-8859-1", "CP1252"):
        made = subprocess.run(
            ["localedef", "-i", "en_US", "-f", charmap, str(folder / f"en_US.{charmap}")],
            capture_output=True,
            text=True,
        )
        if not (folder / f"en_US.{charmap}").is_dir():
            pytest.skip(f"localedef could not make en_US.{charmap}: {made.stderr.strip()[-200:]}")
    return folder


def locale_env(locales: Path, charmap: str) -> dict[str, str]:
    """The environment of a command run under locale en_US.``charmap`` (Python's UTF-8 mode off)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("LC_") and key != "LANG"}
    return {**env, "LOCPATH": str(locales), "LC_ALL": f"en_US.{charmap}", "PYTHONUTF8": "0"}


@pytest.mark.parametrize("charmap", ["ISO-8859-1", "CP1252"])
@pytest.mark.parametrize("what", list(FILES))
def test_a_file_hydra_reads_as_utf8_is_checked_as_utf8_under_another_locale(tmp_path, locales, charmap, what):
    env = locale_env(locales, charmap)
    encoding = subprocess.run(
        [sys.executable, "-c", "import locale; print(locale.getencoding())"],
        env=env,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if encoding.replace("_", "-").lower() not in ("iso-8859-1", "cp1252"):
        pytest.skip(f"the locale en_US.{charmap} was not taken (encoding {encoding!r})")
    marker = tmp_path / "made"
    path = tmp_path / "mine" / "lineup" / "evil.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(FILES[what].replace("{marker}", str(marker)).encode("utf-8"))
    command = [
        sys.executable, "-m", "experiments.tournament", "--config-dir", str(tmp_path / "mine"), "lineup=evil",
        "game.num_players=3", "game.max_turns=2", "games_per_lineup=2", "workers=0", "progress=false",
        "plots=false", f"output_dir={tmp_path / 'out'}",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert not marker.exists(), done.stderr[-2000:]  # Hydra never made the callback
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: {path}: ") and "Hydra's own settings (hydra)" in line


def test_a_file_the_check_cannot_parse_or_decode_is_refused_not_passed_over(tmp_path):
    """Hydra would refuse such a file if it loaded it; the check cannot know whether it will, so it
    refuses it (a file in the locale's encoding, a YAML error, nesting past the parser's limit)."""
    from experiments.common.command_line import hydra_actions_in

    mine = tmp_path / "mine" / "lineup"
    mine.mkdir(parents=True)
    (mine / "unclosed.yaml").write_text("agents: [{name: random}\nhydra: {}\n", encoding="utf-8")
    (mine / "latin.yaml").write_bytes("# 5 \u20ac\nagents: []\n".encode("cp1252"))
    (mine / "deep.yaml").write_text("agents: " + "[" * 20_000 + "]" * 20_000 + "\n", encoding="utf-8")
    (mine / "plain.yaml").write_text("# 5 \u20ac\nagents: [{name: random}]\n", encoding="utf-8")
    found = hydra_actions_in(tmp_path / "mine")
    named = {line.partition(": ")[0]: line.partition(": ")[2] for line in found}
    assert set(named) == {str(mine / name) for name in ("unclosed.yaml", "latin.yaml", "deep.yaml")}, found
    assert all(what.startswith("not UTF-8 YAML that this check can parse (") for what in named.values())
    assert "UnicodeDecodeError" in named[str(mine / "latin.yaml")]
