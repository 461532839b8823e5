"""experiments/expert_dataset.py: the expert games as Parquet (Hugging Face datasets, pandas) and Minari,
checksummed, and every recorded game replayed through the core from its seed."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")  # the recorder is the imitation's (agents.ppo.imitation)
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
minari = pytest.importorskip("minari")
datasets = pytest.importorskip("datasets")
pandas = pytest.importorskip("pandas")

from agents.ppo.features import learner_observation_size  # noqa: E402
from cluedo_env import core  # noqa: E402
from experiments.expert_dataset import (  # noqa: E402
    CARD,
    DATASET_VERSION,
    SHIPPED_SPLIT,
    DatasetSettings,
    build,
    main,
    verify,
)
from experiments.learning.expert_checks import list_matrix, replay_problems  # noqa: E402
from experiments.learning.expert_minari import MINARI_ID, datasets_path  # noqa: E402
from experiments.learning.expert_minari_checks import metadata_problem  # noqa: E402
from experiments.learning.expert_rows import DECISION_SCHEMA, GAME_SCHEMA  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

TINY = DatasetSettings(agents=("belief", "determinize", "belief", "determinize"), games=2, shard_games=1,
                       minari_episodes=2)  # fmt: skip


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """A dataset of 2 games (2 shards) and 2 Minari episodes, written by ``build``."""
    folder = tmp_path_factory.mktemp("expert") / "tiny"
    build(TINY, folder, workers=0, progress=False)
    return folder


def card_of(folder: Path) -> dict:
    return json.loads((folder / CARD).read_text())


def test_the_card_counts_and_describes_what_is_there(tiny):
    card = card_of(tiny)
    assert card["version"] == DATASET_VERSION and card["agents"] == list(TINY.agents)
    games = pq.read_table(tiny / "games")
    decisions = pq.read_table(tiny / "decisions")
    assert card["counts"]["games"] == games.num_rows == 2 and card["counts"]["shards"] == 2
    assert card["counts"]["decisions"] == decisions.num_rows == sum(games["decisions"].to_pylist())
    assert decisions.schema.equals(DECISION_SCHEMA) and games.schema.equals(GAME_SCHEMA)
    assert set(card["files"]) >= {"decisions/shard-00000.parquet", "games/shard-00001.parquet"}
    assert any(name.startswith("minari/") for name in card["files"])
    for row in card["outcomes"]["by_agent"].values():
        low, high = row["ci95"]
        assert row["seats"] == 4 and low <= row["win_rate"] <= high


def test_every_seats_decisions_are_rows_in_order_with_the_games_outcome(tiny):
    decisions = pq.read_table(tiny / "decisions").to_pandas()
    games = pq.read_table(tiny / "games").to_pandas()
    P = len(TINY.agents)
    for game in games.itertuples():
        rows = decisions[decisions.game == game.game]
        assert list(rows.step) == list(range(game.decisions))
        assert rows.done.tolist() == [False] * (game.decisions - 1) + [True]
        assert (rows.game_seed == game.game_seed).all() and (rows.winner == game.winner).all()
        for seat in range(P):  # agent k sits at seat (k + game) % P
            assert game.agents[seat] == TINY.agents[(seat - game.game) % P]
            mine = rows[rows.seat == seat]
            assert len(mine) and (mine.agent == game.agents[seat]).all()
            assert (mine.reward == game.rewards[seat]).all()
    config = TINY.config
    observations = list_matrix(pq.read_table(tiny / "decisions")["observation"], np.float32)
    masks = list_matrix(pq.read_table(tiny / "decisions")["legal_mask"], bool)
    assert observations.shape[1] == learner_observation_size(config, belief_features=True)
    assert masks.shape[1] == core.ActionLayout(config).num_actions
    assert masks[np.arange(len(masks)), decisions.action].all()  # every action was legal


def test_it_loads_with_hugging_face_datasets_and_pandas(tiny, tmp_path):
    loaded = datasets.load_dataset(
        "parquet", data_files={"train": str(tiny / "decisions" / "*.parquet")}, cache_dir=str(tmp_path)
    )["train"]
    frame = pandas.read_parquet(tiny / "decisions")
    assert loaded.num_rows == len(frame) == card_of(tiny)["counts"]["decisions"]
    assert loaded.column_names == DECISION_SCHEMA.names == list(frame.columns)
    first = loaded[0]
    assert first["step"] == 0 and len(first["observation"]) == len(frame.observation[0])
    assert np.allclose(first["observation"], frame.observation[0])
    assert loaded["action"] == frame.action.tolist()
    games = datasets.load_dataset(
        "parquet", data_files={"train": str(tiny / "games" / "*.parquet")}, cache_dir=str(tmp_path)
    )["train"]
    assert games["game"] == [0, 1]


def test_the_minari_dataset_loads_from_the_local_folder_and_replays_in_the_env(tiny):
    with datasets_path(tiny / "minari"):
        dataset = minari.load_dataset(MINARI_ID)
        env = dataset.recover_environment()
    card = card_of(tiny)
    assert dataset.total_episodes == card["counts"]["minari_episodes"] == 2
    assert dataset.total_steps == card["counts"]["minari_steps"]
    seeds = [int(meta["seed"]) for meta in dataset.storage.get_episode_metadata(range(2))]
    assert seeds == [int(s) for s in TINY.game_seeds(5 * 10**8, 2)]
    for episode, seed in zip(dataset.iterate_episodes(), seeds, strict=True):
        masks = episode.observations["action_mask"]
        assert masks[np.arange(len(episode.actions)), episode.actions].all()  # the expert's legal actions
        observation, _ = env.reset(seed=seed)
        for t, action in enumerate(episode.actions):
            assert np.array_equal(observation["observation"], episode.observations["observation"][t])
            observation, reward, terminated, truncated, _ = env.step(int(action))
            assert reward == episode.rewards[t] and terminated == episode.terminations[t]
        assert terminated or truncated  # the episode ends where it was recorded to
    env.close()


def test_checksums_verify_and_every_game_replays(tiny, capsys):
    assert verify(tiny) == []
    main(["--verify", str(tiny)])
    assert "checksums match, every game and Minari episode replays" in capsys.readouterr().out


MINARI_CRAFTS = {  # a Minari file changed (re-signed in the card): its file and column, the change, the problem
    "rewards": ("0/part-0.parquet", "rewards", lambda v: [1.0] * len(v), "step 0 of "),
    "actions": ("0/part-0.parquet", "actions", lambda v: [0] * len(v), "step 0: action 0 is not legal"),
    "truncated": ("0/part-0.parquet", "truncations", lambda v: [*v[:-2], True, False], "step "),
    "seed": ("0/metadata.json", "seed", lambda v: v + 1, "step 0: the observation is not the env's"),
    "count": ("metadata.json", "total_episodes", lambda v: v + 1, "minari: 3 episodes, the card counts 2"),
}


@pytest.mark.parametrize("craft", list(MINARI_CRAFTS))
def test_a_forged_minari_episode_is_caught_by_its_replay(tiny, tmp_path, capsys, craft):
    """``--verify`` replayed the Parquet games only, and said "every game replays" of a Minari episode
    whose rewards and actions were changed and its checksum updated in the card."""
    from experiments.learning.expert_checks import sha256_of

    name, column, change, said = MINARI_CRAFTS[craft]
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    path = copy / "minari" / MINARI_ID / "data" / name
    if path.suffix == ".json":
        held = json.loads(path.read_text())
        path.write_text(json.dumps({**held, column: change(held[column])}))
    else:
        table = pq.read_table(path)
        index = table.schema.get_field_index(column)
        values = pa.array(change(table[column].to_pylist()), type=table.schema.field(index).type)
        pq.write_table(table.set_column(index, table.schema.field(index), values), path)
    card = card_of(copy)
    card["files"][path.relative_to(copy).as_posix()] = sha256_of(path)
    (copy / CARD).write_text(json.dumps(card))
    problems = verify(copy)
    assert len(problems) == 1 and said in problems[0], problems
    assert craft == "count" or problems[0].startswith("minari episode 0: ")
    with pytest.raises(SystemExit) as exit_info:
        main(["--verify", str(copy)])
    assert exit_info.value.code == 1 and "replays" not in capsys.readouterr().out


def test_minari_episodes_that_cannot_be_read_stop_the_replay_with_one_problem(tiny, tmp_path):
    """A card and metadata counting 10**12 episodes (two are there), and an episode without its rewards."""
    from experiments.learning.expert_checks import sha256_of

    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    data, card = copy / "minari" / MINARI_ID / "data", card_of(copy)
    held = json.loads((data / "metadata.json").read_text())
    (data / "metadata.json").write_text(json.dumps({**held, "total_episodes": 10**12}))
    part = data / "1" / "part-0.parquet"
    pq.write_table(pq.read_table(part).drop_columns(["rewards"]), part)
    card["counts"]["minari_episodes"] = 10**12
    for path in (data / "metadata.json", part):
        card["files"][path.relative_to(copy).as_posix()] = sha256_of(path)
    (copy / CARD).write_text(json.dumps(card))
    assert verify(copy) == ["minari episode 1: not an episode (KeyError: 'rewards')"]
    shutil.rmtree(data / "1")  # and out of the card: the replay stops there, not after 10**12 tries
    card["files"] = {name: sha for name, sha in card["files"].items() if "/data/1/" not in name}
    (copy / CARD).write_text(json.dumps(card))
    (problem,) = verify(copy)
    assert problem.startswith("minari episode 1: not an episode (FileNotFoundError: ")


ENTRY = "cluedo_env.gym_env:CluedoSingleAgentEnv"
SPEC_CRAFTS = {  # a change of the Minari metadata.json (re-signed in the card), and the refusal says
    "no observation space": (lambda m: m.pop("observation_space"), "has no observation_space (Minari would"),
    "no action space": (lambda m: m.pop("action_space"), "has no action_space"),
    "entry point": (lambda m: m.update(env_spec=m["env_spec"].replace(ENTRY, "os:system")), "'os:system'"),
    "eval entry point": (lambda m: m.update(eval_env_spec=m["env_spec"].replace(ENTRY, "x:y")), "'x:y' (acc"),
    "opponent by import path": (  # (the registry imports an agent given as module:Class)
        lambda m: m.update(env_spec=m["env_spec"].replace('["determinize"', '["my:Agent"')), "'my:Agent'"),
    "space": (lambda m: m.update(action_space=m["action_space"].replace("405", "406")), "406}' (accepted: "),
}  # fmt: skip


@pytest.mark.parametrize("craft", list(SPEC_CRAFTS))
def test_a_minari_metadata_naming_other_code_is_refused_before_minari_reads_it(tiny, tmp_path, capsys, craft):
    """minari.load_dataset makes the env of metadata.json's env_spec (its entry point, its kwargs) when a
    space is missing, recover_environment always: --verify passed such a file (re-signed in the card)."""
    from experiments.learning.expert_checks import sha256_of

    change, said = SPEC_CRAFTS[craft]
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    path, card = copy / "minari" / MINARI_ID / "data" / "metadata.json", card_of(copy)
    held = json.loads(path.read_text())
    change(held)
    path.write_text(json.dumps(held))
    card["files"][path.relative_to(copy).as_posix()] = sha256_of(path)
    (copy / CARD).write_text(json.dumps(card))
    (problem,) = verify(copy)
    assert problem.startswith("minari: metadata.json ") and said in problem and "not read further" in problem
    with pytest.raises(SystemExit) as exit_info:
        main(["--verify", str(copy)])
    assert exit_info.value.code == 1 and "replays" not in capsys.readouterr().out


def test_a_card_naming_files_outside_its_folder_reads_none_of_them(tiny, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    outside = tmp_path / "secret.txt"
    outside.write_text("not the dataset's")
    card = json.loads((copy / CARD).read_text())
    card["files"]["../secret.txt"] = "0" * 64
    card["files"][str(outside)] = "0" * 64
    (copy / CARD).write_text(json.dumps(card))
    problems = verify(copy)
    assert "../secret.txt: not a path inside the dataset folder (not read)" in problems
    assert f"{outside}: not a path inside the dataset folder (not read)" in problems


CRAFTS = {  # how a crafted shard differs (its table, the column, the new values) and the problem said
    "counts": (
        "games",
        "decisions",
        lambda v: [10**9] + v[1:],
        "not every decision of the games table's games",
    ),
    "columns": ("decisions", "seat", None, "decisions table's columns are not"),
    "seat": ("decisions", "seat", lambda v: [99] + v[1:], "a decision's seat is not a player of the game"),
    "mask": ("decisions", "legal_mask", lambda v: [v[0][:10]] + v[1:], "the legal masks are not 405 wide"),
    "observation": (
        "decisions",
        "observation",
        lambda v: [r[:10] for r in v],
        "observations not 827 wide",
    ),
    "rewards": ("games", "rewards", lambda v: [r[:3] for r in v], "a game's rewards are not 4, one a player"),
    "seed": ("games", "game_seed", lambda v: [-5] + v[1:], "a game's seed is missing or negative"),
    "no seed": ("games", "game_seed", lambda v: [None] + v[1:], "a game's seed is missing or negative"),
}


@pytest.mark.parametrize("craft", list(CRAFTS))
def test_a_crafted_folder_whose_card_matches_gets_problem_lines(tiny, tmp_path, craft):
    """The checksums are the card's own, so a crafted folder passes them: a games table claiming 10**9
    decisions ran np.repeat out of memory; a dropped column, a seat out of range or lists of other widths
    raised KeyError, ValueError or a numpy broadcast error."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from experiments.learning.expert_checks import sha256_of

    kind, column, change, said = CRAFTS[craft]
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    path = sorted((copy / kind).glob("*.parquet"))[0]
    table = pq.read_table(path)
    if change is None:
        table = table.drop_columns([column])
    else:
        index = table.schema.get_field_index(column)
        field = table.schema.field(index)
        table = table.set_column(index, field, pa.array(change(table[column].to_pylist()), type=field.type))
    pq.write_table(table, path)
    card = json.loads((copy / CARD).read_text())
    card["files"][path.relative_to(copy).as_posix()] = sha256_of(path)
    (copy / CARD).write_text(json.dumps(card))
    problems = verify(copy)
    assert len(problems) == 1 and said in problems[0], problems


def test_a_corrupted_file_is_detected_by_its_checksum(tiny, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    shard = copy / "decisions" / "shard-00001.parquet"
    body = bytearray(shard.read_bytes())
    body[len(body) // 2] ^= 0xFF
    shard.write_bytes(bytes(body))
    (copy / "games" / "stray.parquet").write_bytes(b"")
    problems = verify(copy)
    assert (
        "decisions/shard-00001.parquet: sha256 differs from the card's (the file changed or is corrupt)"
        in problems
    )
    assert "games/stray.parquet: not listed in the card" in problems
    with pytest.raises(SystemExit) as exit_info:
        main(["--verify", str(copy)])
    assert exit_info.value.code == 1 and "sha256 differs" in capsys.readouterr().err
    clean = tmp_path / "clean"
    shutil.copytree(tiny, clean)
    card = json.loads((clean / CARD).read_text())
    for broken, why in (
        ({"rules": {"num_players": "x"}}, "rules: "),
        ({"counts": None}, "no files, rules and counts"),
        ({"agents": ["llm", "belief", "belief", "belief"]}, "agents: not 4 agent names of "),  # (no network)
    ):
        (clean / CARD).write_text(json.dumps({**card, **broken}))  # a card that lies: named, no traceback
        (problem,) = verify(clean)
        assert problem.startswith(f"{clean / CARD}: ") and why in problem
    for text in ("{not json", "[" * 100_000):  # (nested too deeply: RecursionError)
        (copy / CARD).write_text(text)
        (problem,) = verify(copy)
        assert problem.startswith(f"{copy / CARD}: not a JSON card")
    (copy / CARD).unlink()
    assert verify(copy) == [f"{copy / CARD}: no card (an unfinished dataset, or not a dataset folder)"]


def test_replay_catches_a_changed_action_mask_or_outcome(tiny):
    decisions = pq.read_table(tiny / "decisions" / "shard-00000.parquet")
    games = pq.read_table(tiny / "games" / "shard-00000.parquet")
    config, agents = TINY.config, TINY.agents
    assert replay_problems(config, decisions, games, agents) == []

    def changed(table, name, values):
        column = values if isinstance(values, pa.Array) else pa.array(values, table.schema.field(name).type)
        return table.set_column(table.schema.get_field_index(name), name, column)

    actions = decisions["action"].to_numpy().copy()
    masks = list_matrix(decisions["legal_mask"], bool)
    other = int(np.flatnonzero(~masks[5])[0])
    actions[5] = other  # an illegal action
    problems = replay_problems(config, changed(decisions, "action", actions), games, agents)
    assert len(problems) == 1 and "step 5: a recorded action is refused" in problems[0]
    masks[3, other] = ~masks[3, other]
    mask_column = pa.array([row.tolist() for row in masks], pa.list_(pa.bool_()))
    problems = replay_problems(config, changed(decisions, "legal_mask", mask_column), games, agents)
    assert problems == ["game 0 step 3: the legal mask differs"]
    winner = games["winner"].to_numpy().copy()
    winner[0] = (winner[0] + 1) % 4
    problems = replay_problems(config, decisions, changed(games, "winner", winner), agents)
    assert problems == [f"game 0: winner {winner[0]} recorded, {(winner[0] + 3) % 4} replayed"]
    problems = replay_problems(config, decisions.slice(0, decisions.num_rows - 1), games, agents)
    assert problems == [
        "the decision rows are not every decision of the games table's games in (game, step) order"
    ]


def _tampered(column: str, table: pa.Table) -> pa.Table:
    """``table`` (a decisions shard) with one column changed in every row, as someone re-signing the
    shard in the card could change it."""
    values = {
        "turn": lambda: pa.array(table["turn"].to_numpy() + 7, pa.int32()),
        "done": lambda: pa.array(~table["done"].to_numpy(zero_copy_only=False)),
        "winner": lambda: pa.array(np.where(table["winner"].to_numpy() == 0, 1, 0), pa.int8()),
        "game_seed": lambda: pa.array([5] * table.num_rows, pa.int64()),
        "agent": lambda: pa.array(["random"] * table.num_rows, pa.string()),
        "truncated": lambda: pa.array(~table["truncated"].to_numpy(zero_copy_only=False)),
        "reward": lambda: pa.array(-table["reward"].to_numpy(), pa.float32()),
    }
    if column in values:
        return table.set_column(table.schema.get_field_index(column), column, values[column]())
    observations = list_matrix(table["observation"], np.float32)
    observations[:, core.observation_size(TINY.config) :] = 0.5  # every belief piece
    rows = pa.array([row.tolist() for row in observations], pa.list_(pa.float32()))
    return table.set_column(table.schema.get_field_index("observation"), "observation", rows)


@pytest.mark.parametrize(
    "column, said",
    [
        ("turn", "step 0: the turn differs from the core's"),
        ("done", "step 0: done True recorded, False by the replay"),
        ("winner", "winner"),
        ("game_seed", "step 0: game_seed 5 recorded"),
        ("agent", "step 0: agent 'random' recorded"),
        ("truncated", "step 0: truncated True recorded, False by the replay"),
        ("reward", "reward"),
        ("observation", "step 0: the belief pieces differ"),
    ],
)
def test_verify_checks_every_column_of_the_decision_rows(tiny, tmp_path, column, said):
    """A decisions shard with one column changed and re-signed in the card: its rows are checked
    against the replay and the games table, the belief pieces counted again (only a changed reward
    was caught; a changed turn, done, winner, game seed, agent, truncated or belief piece passed)."""
    from experiments.learning.expert_checks import sha256_of

    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    path = copy / "decisions" / "shard-00000.parquet"
    pq.write_table(_tampered(column, pq.read_table(path)), path)
    card = json.loads((copy / CARD).read_text())
    card["files"]["decisions/shard-00000.parquet"] = sha256_of(path)
    (copy / CARD).write_text(json.dumps(card))
    problems = verify(copy)
    assert problems and all(line.startswith("shard-00000.parquet: game 0") for line in problems), problems
    assert any(said in line for line in problems), problems


def test_an_out_folder_of_other_files_is_refused_and_left_alone(tmp_path, capsys):
    """A folder of the user's own (notes, a README) was written into: its README replaced, every file
    in it checksummed into the card."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("my notes")
    (mine / "notes.txt").write_text("more")
    with pytest.raises(ValueError, match=r"mine is not empty and not a dataset folder of this command"):
        build(dataclasses.replace(TINY, games=1, minari_episodes=0), mine, workers=0, progress=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(mine), "--games", "1", "--shard-games", "1", "--minari-episodes", "0"])
    error = capsys.readouterr().err
    assert exit_info.value.code == 1 and f"{mine} is not empty" in error and "README.md, notes.txt" in error
    assert sorted(p.name for p in mine.iterdir()) == ["README.md", "notes.txt"]
    assert (mine / "README.md").read_text() == "my notes"
    # Files of the dataset's names written by something else do not make it one of the command's folders.
    (mine / "dataset.json").write_text('{"name": "my data"}')
    (mine / "settings.json").write_text('{"editor": "vim"}')
    with pytest.raises(ValueError, match=r"mine is not empty and not a dataset folder of this command"):
        build(dataclasses.replace(TINY, games=1, minari_episodes=0), mine, workers=0, progress=False)
    assert (mine / "dataset.json").read_text() == '{"name": "my data"}'


def test_a_folder_of_an_earlier_version_is_told_so(tmp_path):
    """Its settings name no version: it was called no dataset folder of this command."""
    old = tmp_path / "old"
    (old / "games").mkdir(parents=True)
    (old / "games" / "shard-00000.parquet").write_bytes(b"")
    recording = dataclasses.replace(TINY, games=1, minari_episodes=0).recording()
    (old / "settings.json").write_text(json.dumps({k: v for k, v in recording.items() if k != "version"}))
    with pytest.raises(ValueError, match=r"holds games of an earlier version \(its settings.json names none"):
        build(dataclasses.replace(TINY, games=1, minari_episodes=0), old, workers=0, progress=False)


def test_a_dataset_folder_that_is_also_a_repository_verifies_and_builds(tiny, tmp_path):
    """Only the dataset's own files are checksummed: a git or Hugging Face repository's files (and the
    run's lock file) are not the dataset's, before or after a commit changes them."""
    repo = tmp_path / "repo"
    shutil.copytree(tiny, repo)
    assert (repo / "tournament.lock").is_file() and "tournament.lock" not in card_of(repo)["files"]
    (repo / ".git").mkdir()
    (repo / ".git" / "COMMIT_EDITMSG").write_text("the dataset")
    (repo / ".gitattributes").write_text("*.parquet filter=lfs diff=lfs merge=lfs -text\n")
    assert verify(repo) == []
    build(TINY, repo, workers=0, progress=False)  # the same command again: nothing to play
    assert card_of(repo)["files"] == card_of(tiny)["files"]
    (repo / ".git" / "COMMIT_EDITMSG").write_text("the dataset, again")
    assert verify(repo) == []
    (repo / "games" / "notes.txt").write_text("in the dataset's own folder")
    assert verify(repo) == ["games/notes.txt: not listed in the card"]


def test_settings_of_a_folder_without_games_do_not_bind(tmp_path):
    """A run that failed before its first shard left its settings: the corrected command was refused
    ("holds games recorded with other agents") though the folder held no games."""
    out = tmp_path / "out"
    for part in ("decisions", "games"):
        (out / part).mkdir(parents=True)
    failed = DatasetSettings(agents=("sat", "sat", "sat"), games=1, shard_games=1, minari_episodes=0)
    (out / "settings.json").write_text(json.dumps(failed.recording()))
    (out / "tournament.lock").write_text("pid 1 on elsewhere")
    settings = dataclasses.replace(failed, agents=("random", "sat", "sat"))
    card = build(settings, out, workers=0, progress=False)
    assert card["agents"] == ["random", "sat", "sat"] and verify(out) == []
    assert json.loads((out / "settings.json").read_text()) == settings.recording()


def test_a_second_run_plays_only_what_is_missing_and_other_settings_are_refused(tiny, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    before = card_of(copy)["files"]
    build(TINY, copy, workers=0, progress=False)  # nothing to play: the same files
    assert card_of(copy)["files"] == before
    # As a run killed while writing shard 1 leaves it: its decisions, a temporary file, no games file.
    (copy / "games" / "shard-00001.parquet").unlink()
    (copy / "games" / "shard-00001.parquet.999.tmp").write_bytes(b"half")
    shutil.rmtree(copy / "minari")
    (copy / "minari.partial").mkdir()
    build(TINY, copy, workers=0, progress=False)  # plays shard 1 again, and the Minari episodes
    assert card_of(copy)["files"] == before and verify(copy) == []
    assert not (copy / "minari.partial").exists()
    more = dataclasses.replace(TINY, games=3)
    build(more, copy, workers=0, progress=False)  # one more shard, the others kept
    files = card_of(copy)["files"]
    assert files["decisions/shard-00000.parquet"] == before["decisions/shard-00000.parquet"]
    assert "decisions/shard-00002.parquet" in files and verify(copy) == []
    with pytest.raises(ValueError, match="recorded with other seed"):
        build(dataclasses.replace(TINY, seed=1), copy, workers=0, progress=False)
    # shards of another version of the dataset's code (or of a folder that names none) are other games
    settings = json.loads((copy / "settings.json").read_text())
    for version, of in (("1.0.0", "version 1.0.0"), (None, "an earlier version")):  # (its card: this version)
        written = {k: v for k, v in {**settings, "version": version}.items() if v is not None}
        (copy / "settings.json").write_text(json.dumps(written))
        with pytest.raises(ValueError, match=f"holds games of {of} .*, and this code writes version 1.2.0"):
            build(more, copy, workers=0, progress=False)
    (copy / "settings.json").write_text(json.dumps(settings))
    past = r"holds shards past --games 2 \(decisions/shard-00002.parquet"
    with pytest.raises(ValueError, match=past + r", games/shard-00002.parquet\); give --games 3"):
        build(TINY, copy, workers=0, progress=False)  # its card would count a shard it leaves out
    (copy / "games" / "shard-00001.parquet").unlink()  # as a parallel run killed part-way leaves it
    with pytest.raises(ValueError, match=past):
        build(TINY, copy, workers=0, progress=False)  # two shards' files, one of them past the second
    (copy / "games" / "shard-00002.parquet").unlink()  # a shard killed while writing: its decisions only
    with pytest.raises(ValueError, match=past + r"\)"):
        build(TINY, copy, workers=0, progress=False)
    assert card_of(copy)["files"] == files  # a refused run writes no card


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--games", "3", "--shard-games", "2"], "games must be a positive multiple of shard_games"),
        (["--agents", "belief,chess,belief"], "agents must be registry names"),
        (["--agents", "belief,llm,belief"], "got ['llm'] (human, llm, rllib, sb3: a server"),
        (["--agents", "belief,belief"], "agents must name 3 to 6 agents"),
        (["--board", "hex"], "board must be 'classic' or 'none', got 'hex'"),
        (["--agents", "learned,sat,sat"], "agent 'learned' cannot play 3 players on board 'classic'"),
        ([], "give --out DIR"),
    ],
)
def test_bad_options_are_refused_with_the_value_and_what_is_accepted(argv, message, tmp_path, capsys):
    out = [] if argv == [] else ["--out", str(tmp_path / "never")]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, *out])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


def test_the_shipped_split_is_small_verifies_and_is_package_data():
    card = card_of(SHIPPED_SPLIT)
    files = sorted(p.relative_to(SHIPPED_SPLIT).as_posix() for p in SHIPPED_SPLIT.rglob("*") if p.is_file())
    assert sum((SHIPPED_SPLIT / name).stat().st_size for name in files) < 500_000
    assert 200 <= card["counts"]["decisions"] <= 1000 and card["counts"]["minari_episodes"] >= 2
    assert verify(SHIPPED_SPLIT) == []  # checksums, and every game replays through the core
    minari_data = SHIPPED_SPLIT / "minari" / MINARI_ID / "data"  # its metadata.json is the writer's:
    assert metadata_problem(minari_data, TINY.config, card["agents"]) is None
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = {path for pattern in patterns["experiments"] for path in (ROOT / "experiments").glob(pattern)}
    assert {SHIPPED_SPLIT / name for name in files} <= shipped  # every file of it goes into the wheel


# It pins the expert agents' play, which other work changes: a change of the belief or the
# determinising agent makes other games; then write the split again and raise DATASET_VERSION.
# (About 10 s: run always, so that the shipped split cannot drift from its card's command unseen.)
def test_the_command_makes_the_shipped_split_again(tmp_path):
    card = card_of(SHIPPED_SPLIT)
    settings = DatasetSettings(**{**card["settings"], "agents": tuple(card["settings"]["agents"])})
    again = tmp_path / "again"
    build(settings, again, workers=0, progress=False)
    remake = f"python -m experiments.expert_dataset {' '.join(card['command'].split()[3:])}"
    for part in ("decisions", "games"):
        assert pq.read_table(again / part).equals(pq.read_table(SHIPPED_SPLIT / part)), (
            f"the agents now play other games than the shipped split's: write it again ({remake}, "
            f"<folder> = {SHIPPED_SPLIT}) and raise DATASET_VERSION"
        )
    episodes = sorted(
        p.relative_to(SHIPPED_SPLIT).as_posix() for p in SHIPPED_SPLIT.glob("minari/**/*.parquet")
    )
    assert episodes and all(
        pq.read_table(again / name).equals(pq.read_table(SHIPPED_SPLIT / name)) for name in episodes
    )


@pytest.mark.parametrize("blocked", ["minari", "pyarrow"])
def test_without_the_dataset_extra_the_command_says_so_in_one_line(blocked, tmp_path):
    code = f"import runpy, sys; sys.modules[{blocked!r}] = None; sys.argv[0] = '-m'; "
    code += "runpy.run_module('experiments.expert_dataset', run_name='__main__', alter_sys=True)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert (
        line.startswith(f"ModuleNotFoundError: No module named '{blocked}")
        and 'pip install -e ".[dataset]"' in line
    )


def test_its_readme_lets_datasets_load_the_folder_by_name(tiny, tmp_path):
    decisions = datasets.load_dataset(str(tiny), cache_dir=str(tmp_path))["train"]
    games = datasets.load_dataset(str(tiny), "games", cache_dir=str(tmp_path))["train"]
    card = card_of(tiny)
    assert (
        decisions.num_rows == card["counts"]["decisions"] and decisions.column_names == DECISION_SCHEMA.names
    )
    assert games.num_rows == card["counts"]["games"] and games.column_names == GAME_SCHEMA.names
    text = (tiny / "README.md").read_text()
    assert f"# Cluedo expert games, version {DATASET_VERSION}" in text and "| `legal_mask` |" in text
