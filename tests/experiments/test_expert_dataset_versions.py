"""A dataset of an earlier version (1.1.0, as ab32b9a wrote it): ``--verify`` says first that it is of that
version and this code writes another, then checks what holds across versions (its files' checksums, its games'
rows), not its card's words against this version's; a run to extend it is refused naming the two versions.

``--verify`` compared 1.1.0's README with this version's words ("line 22 is ... every file ..., the card's ...
each of the dataset's files ...", which reads as tampering), and extending it printed the unchanged settings
("holds games recorded with other version ({'agents': [...], ...})")."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the recorder is the imitation's (agents.ppo.imitation)
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("minari")

from experiments.expert_dataset import (  # noqa: E402
    CARD,
    DATASET_VERSION,
    SHIPPED_SPLIT,
    DatasetSettings,
    build,
    main,
    verify,
)
from experiments.learning.expert_checks import sha256_of  # noqa: E402
from experiments.learning.expert_readme import readme_text  # noqa: E402

# 1.1.0's README sentence on the card's checksums, and this version's
OLD_WORDS, WORDS = "the sha256 of every file", "the sha256 of each of the dataset's files"


def of_version_110(folder: Path) -> Path:
    """The shipped split as ab32b9a's command (dataset 1.1.0) writes it: its card says version 1.1.0, its
    README is that version's (its title, a sentence in that version's words), its settings.json names no
    version, and the card checksums both."""
    card = json.loads((folder / CARD).read_text())
    card["version"] = "1.1.0"
    readme = readme_text(card)
    assert WORDS in readme
    (folder / "README.md").write_text(readme.replace(WORDS, OLD_WORDS), encoding="utf-8")
    settings = json.loads((folder / "settings.json").read_text())
    del settings["version"]
    (folder / "settings.json").write_text(json.dumps(settings, indent=1) + "\n")
    card["files"].update({name: sha256_of(folder / name) for name in ("README.md", "settings.json")})
    (folder / CARD).write_text(json.dumps(card, indent=1) + "\n")
    return folder


@pytest.fixture
def old(tmp_path) -> Path:
    folder = tmp_path / "old"
    shutil.copytree(SHIPPED_SPLIT, folder)
    return of_version_110(folder)


def said_first(folder: Path) -> str:
    return (
        f"{folder / CARD}: the dataset is of version 1.1.0, and this code writes version {DATASET_VERSION}: only "
        "its files' checksums and its games' rows are checked (its card's words, README.md and Minari episodes "
        "are that version's command's)"
    )


def test_verify_says_first_that_the_dataset_is_of_another_version(old, capsys):
    assert DATASET_VERSION != "1.1.0"
    assert verify(old) == [said_first(old)]  # its shards' checksums and rows hold: nothing else to say
    with pytest.raises(SystemExit) as stop:
        main(["--verify", str(old)])
    assert stop.value.code == 1  # (it is not this version's dataset: not verified as one)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"problem: {said_first(old)}",
        f"{old}: its files' checksums match and every game's rows replay",
    ]


def test_what_holds_across_versions_is_still_checked(old):
    # a row of the decisions changed, and the card re-signed: the replay finds it, after the version's line
    path = old / "decisions" / "shard-00000.parquet"
    table = pq.read_table(path)
    index = table.schema.get_field_index("action")
    pq.write_table(
        table.set_column(
            index, table.schema.field(index), pa.array([0] * len(table), table.schema.field(index).type)
        ),
        path,
    )
    card = json.loads((old / CARD).read_text())
    card["files"]["decisions/shard-00000.parquet"] = sha256_of(path)
    (old / CARD).write_text(json.dumps(card, indent=1) + "\n")
    problems = verify(old)
    assert problems[0] == said_first(old) and len(problems) > 1
    assert all(line.startswith("shard-00000.parquet: ") for line in problems[1:]), problems[:3]
    # a file the card checksums, changed
    (old / "games" / "shard-00000.parquet").write_bytes(b"changed")
    problems = verify(old)
    assert problems[0] == said_first(old) and problems[1].startswith("games/shard-00000.parquet"), problems


def test_extending_a_dataset_of_another_version_names_the_two_versions(old):
    card = json.loads((old / CARD).read_text())
    settings = DatasetSettings(**{**card["settings"], "agents": tuple(card["agents"])})
    more = dataclasses.replace(settings, games=2 * settings.games)
    with pytest.raises(ValueError) as refused:
        build(more, old, workers=0, progress=False)
    assert str(refused.value) == (
        f"{old} holds games of version 1.1.0 of the dataset, and this code writes version {DATASET_VERSION} "
        "(another version's games are other games, which one dataset does not mix); choose another --out "
        "(or remove that folder)"
    )
    assert json.loads((old / CARD).read_text()) == card  # nothing written
