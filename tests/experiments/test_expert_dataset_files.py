"""``--verify`` certifies every table the card lists, and the card's counts are the tables'.

The replay read ``games/*.parquet`` and each one's ``decisions/`` twin only: a
``decisions/shard-00001.parquet`` without a twin, listed in the card with its own checksum, was
checksummed but never read, and ``--verify`` said "every game replays" of a folder whose
``pandas.read_parquet(folder / "decisions")`` held twice the card's rows, half of them forged.
A table without its twin, a Minari file of no episode the card counts, a ``README.md`` naming other
tables, and counts or outcomes that are not the tables' are now refused, naming the file or count; so is
what Minari's files say that the command does not write (their words, an episode's steps or seed).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the recorder is the imitation's (agents.ppo.imitation)
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("minari")
pandas = pytest.importorskip("pandas")

from experiments.expert_dataset import CARD, SHIPPED_SPLIT, main, verify  # noqa: E402
from experiments.learning.expert_checks import sha256_of  # noqa: E402
from experiments.learning.expert_readme import readme_text  # noqa: E402

MINARI = "minari/cluedo/expert-v1/data"


@pytest.fixture
def copy(tmp_path) -> Path:
    """A copy of the shipped split (4 games in one shard, 291 decisions, 4 Minari episodes)."""
    folder = tmp_path / "copy"
    shutil.copytree(SHIPPED_SPLIT, folder)
    return folder


def signed(folder: Path, *added: str, **counts: object) -> None:
    """The card of ``folder`` re-signed as a forger would: the checksums of ``added`` files, ``counts``."""
    card = json.loads((folder / CARD).read_text())
    card["files"].update({name: sha256_of(folder / name) for name in added})
    card["counts"].update(counts)
    (folder / CARD).write_text(json.dumps(card, indent=1))


def forged_actions(path: Path) -> pa.Table:
    """The table at ``path`` with every action 0."""
    table = pq.read_table(path)
    index = table.schema.get_field_index("action")
    field = table.schema.field(index)
    return table.set_column(index, field, pa.array([0] * len(table), field.type))


def test_a_decisions_shard_without_its_games_twin_is_refused(copy, capsys):
    pq.write_table(
        forged_actions(copy / "decisions/shard-00000.parquet"), copy / "decisions/shard-00001.parquet"
    )
    signed(copy, "decisions/shard-00001.parquet")
    assert len(pandas.read_parquet(copy / "decisions")) == 2 * 291  # what a user of the folder reads
    said = "decisions/shard-00001.parquet: no games/shard-00001.parquet beside it: a table the replay"
    (problem,) = verify(copy, replay=False)
    assert problem.startswith(said), problem
    with pytest.raises(SystemExit) as stop:
        main(["--verify", str(copy)])
    assert stop.value.code == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"problem: {said}") and "every game" not in out


@pytest.mark.parametrize(
    ("added", "said"),
    [
        ("games/shard-00001.parquet", "no decisions/shard-00001.parquet beside it"),
        ("decisions/extra.parquet", "not a shard-#####.parquet"),
        (
            "decisions/part=1/shard-00000.parquet",
            "not a shard-#####.parquet",
        ),  # pandas reads a hive folder too
    ],
)
def test_any_other_table_file_is_refused(copy, added, said):
    source = copy / added.split("/")[0] / "shard-00000.parquet"
    (copy / added).parent.mkdir(exist_ok=True)
    shutil.copyfile(source, copy / added)
    signed(copy, added)
    assert verify(copy, replay=False) == [
        f"{added}: {said}: a table the replay does not read (pandas and datasets do)"
    ]


def test_a_minari_file_of_no_counted_episode_is_refused(copy):
    data = copy / "minari/cluedo/expert-v1/data"
    shutil.copytree(data / "0", data / "4")  # a fifth episode; the card and metadata.json count 4
    signed(
        copy, "minari/cluedo/expert-v1/data/4/metadata.json", "minari/cluedo/expert-v1/data/4/part-0.parquet"
    )
    assert verify(copy, replay=False) == [
        f"minari/cluedo/expert-v1/data/4/{name}: of no Minari episode the card counts (4): a file the replay "
        "does not read"
        for name in ("metadata.json", "part-0.parquet")
    ]


def test_a_readme_naming_other_tables_is_refused(copy):
    readme = copy / "README.md"
    readme.write_text(
        readme.read_text().replace("data_files: decisions/*.parquet", "data_files: elsewhere/*.parquet")
    )
    signed(copy, "README.md")
    assert verify(copy, replay=False) == [
        "README.md: its header is not the command's (it names the tables datasets reads)"
    ]


@pytest.mark.parametrize(
    ("counts", "said"),
    [
        ({"decisions": 582}, "dataset.json: counts.decisions 582, the tables hold 291"),
        ({"games": 8}, "dataset.json: counts.games 8, the tables hold 4"),
        ({"shards": 2}, "dataset.json: counts.shards 2, the tables hold 1"),
        (
            {"decisions_by_agent": {"belief": 291, "determinize": 0}},
            "dataset.json: counts.decisions_by_agent {'belief': 291, 'determinize': 0}, the tables hold "
            "{'belief': 152, 'determinize': 139}",
        ),
    ],
)
def test_the_cards_counts_must_be_the_tables(copy, counts, said):
    signed(copy, **counts)
    assert verify(copy, replay=False) == [said]


def test_the_counts_are_checked_after_a_clean_replay_too(copy, capsys):
    signed(copy, decisions=582)
    with pytest.raises(SystemExit):
        main(["--verify", str(copy)])
    out, err = capsys.readouterr()
    assert err == "problem: dataset.json: counts.decisions 582, the tables hold 291\n" and out == ""


def test_the_cards_outcomes_must_be_the_games_tables(copy):
    card = json.loads((copy / CARD).read_text())
    card["outcomes"]["by_agent"]["determinize"]["wins"] = 8
    (copy / CARD).write_text(json.dumps(card, indent=1))
    assert verify(copy, replay=False) == [
        "dataset.json: the outcomes (wins, seats, truncated games) are not the games table's"
    ]


def test_the_shipped_split_passes_these_checks():
    assert verify(SHIPPED_SPLIT, replay=False) == []


def test_a_readme_showing_other_figures_is_refused(copy, capsys):
    """A review's route: only the README's header was checked, so a README claiming 60,000 games and every
    seat won, re-signed, verified. It must now be the one the command writes from the card."""
    readme = copy / "README.md"
    text = readme.read_text()
    forged = text.replace("- 4 games, 291 decisions", "- 60000 games, 5000000 decisions").replace(
        "belief won 4 of its 8 seats: 50.0% [21.5%, 78.5%]",
        "belief won 8 of its 8 seats: 100.0% [67.6%, 100.0%]",
    )
    assert forged.count("60000") == 1 and "100.0%" in forged
    readme.write_text(forged)
    signed(copy, "README.md")
    said = (
        "README.md: line 24 is '- 60000 games, 5000000 decisions (belief: 152, determinize: 139)', the card's "
        "'- 4 games, 291 decisions (belief: 152, determinize: 139)' (the command writes the README from "
        "dataset.json: it may show only what the card says)"
    )
    assert verify(copy, replay=False) == [said]
    with pytest.raises(SystemExit) as stop:
        main(["--verify", str(copy)])
    out, err = capsys.readouterr()
    assert stop.value.code == 1 and err == f"problem: {said}\n" and out == ""
    readme.write_text(text + "- belief is the best agent there is\n")  # a line added at the end
    signed(copy, "README.md")
    end = len(text.splitlines()) + 1
    assert verify(copy, replay=False) == [
        f"README.md: line {end} is '- belief is the best agent there is', the card's past its end (the command "
        "writes the README from dataset.json: it may show only what the card says)"
    ]


def rewritten(folder: Path, **changes: object) -> None:
    """The card of ``folder`` with ``changes`` (``outer__inner`` for a key one level in), its README written
    again from it and re-signed: what a forger who knows the command's README would make."""
    card = json.loads((folder / CARD).read_text())
    for key, value in changes.items():
        outer, _, inner = key.partition("__")
        if inner:
            card[outer][inner] = value
        else:
            card[outer] = value
    (folder / "README.md").write_text(readme_text(card))
    card["files"]["README.md"] = sha256_of(folder / "README.md")
    (folder / CARD).write_text(json.dumps(card, indent=1))


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"description": "Every decision of 60000 games, belief winning all."}, "description"),
        (
            {"command": "python -m experiments.expert_dataset --games 60000`\n\n- belief won 100%\n`"},
            "command",
        ),
        ({"schema__games": {"belief_win_rate": "100%"}}, "schema"),
        ({"minari": {"dataset_id": "elsewhere/expert-v1", "path": "minari"}}, "minari"),
        ({"version": "1.2.0, belief won every game"}, "version"),
        ({"created_with__cluedo_env": "0.1.0) (belief won every game"}, "version"),
    ],
    ids=["description", "command", "schema", "minari", "version", "created_with"],
)
def test_the_cards_words_must_be_the_commands_for_its_settings(copy, changes, said):
    # The README shows the card's words as they are: each must be what the command writes.
    rewritten(copy, **changes)
    assert verify(copy, replay=False) == [
        f"dataset.json: {said}: not what the command writes for its settings"
    ]


def test_the_cards_settings_must_be_those_of_its_rules_and_counts(copy):
    # A forger changing the settings changes the command line and description with them (the words the
    # command writes for those settings): the settings must then be those of the rules and the counts.
    card = json.loads((copy / CARD).read_text())
    for key, value in (("games", 60000), ("minari_episodes", 40), ("board", "none")):
        settings = {**card["settings"], key: value}
        command = card["command"].replace(
            f"--{key.replace('_', '-')} {card['settings'][key]}", f"--{key.replace('_', '-')} {value}"
        )
        description = card["description"].replace("of 4 games", f"of {settings['games']} games")
        assert command != card["command"]
        rewritten(copy, settings=settings, command=command, description=description)
        if key == "board":
            said = f"dataset.json: settings {settings!r} are not those of its rules"
        else:
            made = [settings["games"], settings["minari_episodes"]]
            said = (f"dataset.json: settings.games {made[0]} and settings.minari_episodes {made[1]}, the counts 4 and 4 "
                    "(the command line and description say the settings')")  # fmt: skip
        assert verify(copy, replay=False) == [said], key


def test_the_minari_steps_must_be_the_episodes(copy):
    """A review's route: counts.minari_steps was not compared with anything; ten times it verified."""
    signed(copy, minari_steps=830)
    assert verify(copy, replay=False) == [
        "dataset.json: counts.minari_steps 830, the Minari episodes hold 83"
    ]
    # the same figure in Minari's metadata.json too (what minari.load_dataset reports): the episodes hold 83
    metadata = copy / MINARI / "metadata.json"
    held = json.loads(metadata.read_text())
    metadata.write_text(json.dumps({**held, "total_steps": 830}))
    signed(copy, f"{MINARI}/metadata.json")
    assert verify(copy, replay=False) == [
        "dataset.json: counts.minari_steps 830, the Minari episodes hold 83"
    ]
    signed(copy, minari_steps=83)  # the card right, the metadata not
    assert verify(copy, replay=False) == [
        "minari: metadata.json's total_steps 830, the Minari episodes hold 83"
    ]


def metadata_changed(folder: Path, name: str, change) -> dict:
    """Minari's ``name`` (under ``MINARI``) changed by ``change`` (a dict in, a dict out) and re-signed in the
    card; returns the file as it was."""
    path = folder / MINARI / name
    held = json.loads(path.read_text())
    path.write_text(json.dumps(change(dict(held))))
    signed(folder, f"{MINARI}/{name}")
    return held


EPISODE_CRAFTS = {  # an episode's metadata.json as a forger changes it (what Minari reports and filters by)
    "total_steps": lambda m: {**m, "total_steps": m["total_steps"] - 1},
    "seed": lambda m: {**m, "seed": m["seed"] + 1},
    "options": lambda m: {**m, "options": {"learner_seat": 2}},
}


@pytest.mark.parametrize("craft", EPISODE_CRAFTS)
def test_an_episodes_metadata_must_be_its_steps_and_seed(copy, craft):
    """A review's route: episode 0's metadata.json said 26 steps of its 27, re-signed; it verified, and
    Minari then reported 82 steps for a filter of all four episodes, which hold 83."""
    held = metadata_changed(copy, "0/metadata.json", EPISODE_CRAFTS[craft])
    assert held == {"id": 0, "total_steps": 27, "seed": 100000500000000}
    said = (f"minari episode 0: metadata.json is {EPISODE_CRAFTS[craft](dict(held))!r}, not the episode's "
            f"{held!r} (its index, its steps and its seed: what the command writes)")  # fmt: skip
    assert verify(copy, replay=False) == [said]
    if craft == "total_steps":  # the replays pass (they read the rows): the whole --verify refuses it
        assert verify(copy) == [said]


CLAIMS = {  # Minari's metadata.json as a forger changes it, and the start of the refusal
    "description": (
        {"description": "Played by the SAT agent"},
        "minari: metadata.json's description is 'Played by the SAT agent', not what the command writes for the "
        "card's agents and seeds ('Cluedo, one learner seat of cluedo/Cluedo-v0 played by the belief agent",
    ),
    "algorithm_name": (
        {"algorithm_name": "expert: the sat agent"},
        "minari: metadata.json's algorithm_name is 'expert: the sat agent', not what the command writes for the "
        "card's agents and seeds ('expert: the belief agent (agents.registry)')",
    ),
    "author": (
        {"author": ["someone"]},
        "minari: metadata.json's author is ['someone'], not what the command",
    ),
    "dataset_id": (
        {"dataset_id": "a/b-v1"},
        "minari: metadata.json's dataset_id is 'a/b-v1', not what the command",
    ),
    "ref_max_score": (
        {"ref_max_score": 1.0},
        "minari: metadata.json holds ref_max_score, which the command does not",
    ),
}


@pytest.mark.parametrize("claim", CLAIMS)
def test_minaris_words_must_be_what_the_command_writes(copy, claim):
    """A review's route: a description and algorithm name naming the SAT agent, re-signed, verified."""
    change, said = CLAIMS[claim]
    metadata_changed(copy, "metadata.json", lambda m: {**m, **change})
    (problem,) = verify(copy, replay=False)
    assert problem.startswith(said), problem
