"""Checks of an expert-games dataset: its files against the card's checksums, its games against the core.

``checksum_problems`` compares each file the card lists with its sha256 (a changed, missing or
unlisted file of the dataset's own is a problem). ``unchecked_files`` names each table file the card
lists that the replays would not read (a ``decisions/`` or ``games/`` file without its twin, a Minari
file of no episode the card counts) and a ``README.md`` whose header names other tables;
``count_problems`` compares the card's counts and outcomes with the tables' rows and the Minari
episodes' steps; ``card_text_problem`` the card's words (command line, description, schema) with what
the command writes for its settings; ``readme_problems`` requires ``README.md`` to be the one the
command writes from the card (``expert_readme.readme_text``), so that it shows only what the card says.
``replay_problems`` plays every game of the decision rows again through the core from its seed, with
the recorded actions: at each step the deciding seat, the turn, the legal mask and the whole learner observation
(the core's part and the belief pieces, counted again as the writer counts them) must be those
recorded; at the end the winner, the truncation, the turns and each seat's summed reward must be
those of the games table, and each row's game seed, agent, reward, winner, done and truncated those
of its game.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from agents.ppo.features import BeliefFeatures, learner_observation_size
from cluedo_env import core
from cluedo_env.intervals import wilson_interval
from experiments.learning.expert_readme import HEADER, readme_text

__all__ = [
    "card_text_problem",
    "checksum_problems",
    "count_problems",
    "dataset_files",
    "list_matrix",
    "minari_step_problems",
    "outcomes",
    "readme_problems",
    "replay_problems",
    "sha256_of",
    "unchecked_files",
]

SHARD = re.compile(r"shard-\d{5}\.parquet")  # a shard's two tables: decisions/NAME and games/NAME


def sha256_of(path: Path) -> str:
    """The sha256 of a file, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checksum_problems(folder: Path, files: Mapping[str, str], own: tuple[str, ...]) -> list[str]:
    """What differs between ``folder``'s files and ``files`` (relative path -> sha256).

    ``own``: the dataset's own files and folders (relative names): a file there, or under such a
    folder, that ``files`` does not list is a problem; other files of ``folder`` (a git or Hugging
    Face repository's, the lock file of the run that wrote it) are not the dataset's and not read.
    A name that leads out of ``folder`` (absolute, or through ``..``) is a problem, and no file is
    read for it.
    """
    problems = []
    for name, expected in sorted(files.items()):
        path = folder / name
        if Path(name).is_absolute() or ".." in Path(name).parts:  # a downloaded card names only its own files
            problems.append(f"{name}: not a path inside the dataset folder (not read)")
        elif not path.is_file():
            problems.append(f"{name}: missing")
        elif sha256_of(path) != expected:
            problems.append(f"{name}: sha256 differs from the card's (the file changed or is corrupt)")
    present = {p.relative_to(folder).as_posix() for p in dataset_files(folder, own)}
    for name in sorted(present - set(files)):
        problems.append(f"{name}: not listed in the card")
    return problems


def dataset_files(folder: Path, own: tuple[str, ...]) -> list[Path]:
    """The files of ``folder`` that are the dataset's: those named in ``own`` and those under the
    folders it names, sorted."""
    found = []
    for name in own:
        path = folder / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [p for p in path.rglob("*") if p.is_file()]
    return sorted(found)


def unchecked_files(
    folder: Path, files: Mapping[str, str], minari_id: str, episodes: object
) -> tuple[list[str], list[str]]:
    """The shards whose two tables the card lists (``decisions/NAME`` and ``games/NAME``, ``SHARD``), and a
    line for each file the card lists that the replays would not read: under ``decisions/`` or ``games/``,
    one that is not such a shard or has no twin (pandas and ``datasets`` read every file there, the replay
    reads a shard's two tables together); under ``minari/``, one that is neither Minari's metadata nor
    in the folder of an episode the card counts (``episodes``, ``data/0`` on). A listed ``README.md``
    must start with the header the command writes (``expert_readme.HEADER``): it names the tables
    ``datasets.load_dataset(folder)`` reads."""
    tables = {
        part: {n.partition("/")[2] for n in files if n.startswith(f"{part}/")}
        for part in ("decisions", "games")
    }
    problems = []
    for part, twin in (("decisions", "games"), ("games", "decisions")):
        for name in sorted(tables[part]):
            if not SHARD.fullmatch(name) or name not in tables[twin]:
                why = f"no {twin}/{name} beside it" if SHARD.fullmatch(name) else "not a shard-#####.parquet"
                problems.append(
                    f"{part}/{name}: {why}: a table the replay does not read (pandas and datasets do)"
                )
    data, count = f"minari/{minari_id}/data", episodes if type(episodes) is int else 0
    known = {f"{data}/metadata.json", f"minari/{minari_id.partition('/')[0]}/namespace_metadata.json"}
    episode = re.compile(rf"{re.escape(data)}/(\d+)/[^/]+")
    problems += [
        f"{name}: of no Minari episode the card counts ({count}): a file the replay does not read"
        for name in sorted(files)
        if name.startswith("minari/") and name not in known
        and not ((found := episode.fullmatch(name)) and int(found[1]) < count)
    ]  # fmt: skip
    if "README.md" in files:
        with (folder / "README.md").open(encoding="utf-8", errors="replace") as readme:
            header = readme.read(len(HEADER))
    if "README.md" in files and header != HEADER:
        problems.append("README.md: its header is not the command's (it names the tables datasets reads)")
    return sorted(tables["decisions"] & tables["games"]), problems


def outcomes(games: pa.Table, names: Sequence[str]) -> dict:
    """Each agent's wins over its seats, with a 95% Wilson interval, and the truncated games (the card's
    ``outcomes``)."""
    by_agent = {}
    for name in dict.fromkeys(names):
        seats = wins = 0
        for agents, winner in zip(games["agents"].to_pylist(), games["winner"].to_pylist(), strict=True):
            seats += agents.count(name)
            wins += winner >= 0 and agents[winner] == name
        low, high = wilson_interval(wins, seats)
        by_agent[name] = {"seats": seats, "wins": wins, "win_rate": wins / seats, "ci95": [low, high]}
    return {"by_agent": by_agent, "truncated_games": int(sum(games["truncated"].to_pylist()))}


def count_problems(
    folder: Path, shards: Sequence[str], card: Mapping, minari: Path | None = None, seeds: Sequence[int] = ()
) -> list[str]:
    """The card's ``counts`` (games, decisions, decisions by agent, shards) and ``outcomes`` against the
    tables of ``shards`` (``unchecked_files``), of which only the counted columns are read: a line naming
    each count that differs, or the first table that cannot be read with those columns; then the card's
    settings' games and Minari episodes against the counts, with ``minari`` (Minari's folder of the
    episodes, its ``metadata.json`` checked) their steps (``minari_step_problems``) and what Minari's files
    say of the card's agents and of the episodes of ``seeds`` (the card's settings' Minari seeds:
    ``expert_minari_checks.claim_problems``), and last the ``README.md`` that shows them all
    (``readme_problems``)."""
    import pyarrow.parquet as pq

    from experiments.learning.expert_minari_checks import claim_problems

    read: dict[str, list[pa.Table]] = {"decisions": [], "games": []}
    for name in shards:
        for part, columns in (("decisions", ["agent"]), ("games", ["agents", "winner", "truncated"])):
            try:
                read[part].append(pq.read_table(folder / part / name, columns=columns))
            except (OSError, pa.ArrowException) as error:
                return [f"{part}/{name}: not a table of the dataset's columns ({str(error).splitlines()[0]})"]
    games = pa.concat_tables(read["games"]) if shards else None
    names = Counter(value for table in read["decisions"] for value in table["agent"].to_pylist())
    held = {
        "games": games.num_rows if games is not None else 0,
        "decisions": names.total(),
        "decisions_by_agent": {name: names[name] for name in dict.fromkeys([*card["agents"], *names])},
        "shards": len(shards),
    }
    said = card["counts"]
    problems = [f"dataset.json: counts.{key} {said.get(key)!r}, the tables hold {value!r}"
                for key, value in held.items() if said.get(key) != value]  # fmt: skip
    if not problems and held["games"] and card.get("outcomes") != outcomes(games, card["agents"]):
        problems.append("dataset.json: the outcomes (wins, seats, truncated games) are not the games table's")
    settings = card.get("settings") if isinstance(card.get("settings"), Mapping) else {}
    made = [settings.get("games"), settings.get("minari_episodes")]
    if not problems and made != [held["games"], said.get("minari_episodes")]:
        problems.append(
            f"dataset.json: settings.games {made[0]!r} and settings.minari_episodes {made[1]!r}, the counts "
            f"{held['games']!r} and {said.get('minari_episodes')!r} (the command line and description say the settings')"
        )
    if minari is not None:
        problems = (
            problems or minari_step_problems(minari, said) or claim_problems(minari, card["agents"], seeds)
        )
    return problems or readme_problems(folder, card)


def minari_step_problems(data: Path, counts: Mapping) -> list[str]:
    """The card's ``counts.minari_steps`` against the steps of the Minari episodes it counts (``data``:
    Minari's folder of them; each episode read as Minari reads it, its rows but the last observation's),
    and the ``total_steps`` of their ``metadata.json`` (what Minari reports) against the same: a line for
    the first that differs, or the first episode that cannot be read."""
    episodes = counts.get("minari_episodes") if type(counts.get("minari_episodes")) is int else 0
    errors = (OSError, ValueError, RecursionError, LookupError, TypeError, pa.ArrowException)
    try:
        said = (
            json.loads((data / "metadata.json").read_text(encoding="utf-8"))["total_steps"]
            if data.exists()
            else 0
        )
    except errors as error:
        return [f"minari: metadata.json is not Minari's ({type(error).__name__}: {error})"]
    steps = 0
    for index in range(episodes):
        try:
            steps += (
                pads.dataset(data / str(index), ignore_prefixes=["_", ".", "metadata.json"]).count_rows() - 1
            )
        except errors as error:
            return [f"minari episode {index}: not an episode ({type(error).__name__}: {error})"]
    if counts.get("minari_steps") != steps:
        return [
            f"dataset.json: counts.minari_steps {counts.get('minari_steps')!r}, the Minari episodes hold {steps}"
        ]
    if said != steps:
        return [f"minari: metadata.json's total_steps {said!r}, the Minari episodes hold {steps}"]
    return []


def card_text_problem(card: Mapping, written: Mapping, same_rules: bool) -> str | None:
    """How the card's words differ from ``written``, what the command writes for the card's settings
    (``expert_dataset._card_text``: description, command line, settings, agents, schema, Minari id), or
    its settings from its rules (``same_rules``), or its version numbers from plain ones (None: they do
    not). ``README.md`` shows these words; ``count_problems`` checks the settings' games against the tables."""
    if not same_rules:
        return f"dataset.json: settings {card.get('settings')!r} are not those of its rules"
    wrong = [key for key, value in written.items() if card.get(key) != value]
    made = card.get("created_with")
    versions = [card.get("version"), made.get("cluedo_env") if isinstance(made, dict) else None]
    wrong += ["version"] * (not all(isinstance(v, str) and re.fullmatch(r"[\w.+-]+", v) for v in versions))
    return (
        f"dataset.json: {', '.join(wrong)}: not what the command writes for its settings" if wrong else None
    )


def readme_problems(folder: Path, card: Mapping) -> list[str]:
    """A line where the card lists a ``README.md`` that is not the one the command writes from the card
    (``expert_readme.readme_text``), naming the first line that differs: the README shows the card's
    counts, outcomes and words, which ``verify`` checks against the tables, the Minari episodes and the
    card's settings, so it may say nothing else."""
    if "README.md" not in card["files"]:
        return []
    try:
        expected = readme_text(dict(card)).splitlines()
        held = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError, LookupError, TypeError, AttributeError) as error:  # (a card lacking a value)
        return [
            f"README.md: not the README the command writes from the card ({type(error).__name__}: {error})"
        ]
    for number, (line, ours) in enumerate(zip([*held, None], [*expected, None]), start=1):
        if line != ours:
            return [
                f"README.md: line {number} is {'past its end' if line is None else repr(line)}, the card's "
                f"{'past its end' if ours is None else repr(ours)} (the command writes the README from "
                "dataset.json: it may show only what the card says)"
            ]
    return []


def list_matrix(column: pa.ChunkedArray | pa.Array, dtype: type) -> np.ndarray:
    """A column of equal-length lists as a ``[rows, width]`` array."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    values = column.flatten().to_numpy(zero_copy_only=False).astype(dtype)
    rows = len(column)
    return values.reshape(rows, -1) if rows else values.reshape(0, 0)


def replay_problems(
    config: core.GameConfig, decisions: pa.Table, games: pa.Table, agents: Sequence[str]
) -> list[str]:
    """Replay every game of ``games`` with the actions of ``decisions`` (rows in ``(game, step)`` order).

    ``agents``: the dataset's agents, one per seat; agent ``k`` sits at seat ``(k + game) % P`` in
    game ``game``. Every column of every row is checked: its seat, turn, legal mask and whole
    observation against the core's game at that step (the belief pieces counted again by
    ``BeliefFeatures`` from the seat's events, at the same decisions as the writer's recorders
    count them, so they are equal to the bit), its action by playing it, and its game seed, agent,
    reward, winner, done and truncated against its game in the games table and the replay's end.

    Returns:
        One line per disagreement (empty: the recorded games are what the core plays).
    """
    game_ids = games["game"].to_numpy()
    count = games["decisions"].to_numpy().astype(np.int64)
    rows_game = decisions["game"].to_numpy()
    steps = decisions["step"].to_numpy().astype(np.int64)
    out_of_order = [
        "the decision rows are not every decision of the games table's games in (game, step) order"
    ]
    if (count < 0).any() or count.sum() != len(rows_game):  # (before np.repeat allocates what count says)
        return out_of_order
    starts = np.cumsum(count) - count
    if not (rows_game == np.repeat(game_ids, count)).all() or not (
        steps == np.arange(len(steps)) - np.repeat(starts, count)
    ).all():  # fmt: skip
        return out_of_order
    P = config.num_players
    seats = decisions["seat"].to_numpy().astype(np.int64)
    actions = decisions["action"].to_numpy().astype(np.int64)
    if ((seats < 0) | (seats >= P)).any():
        return [f"a decision's seat is not a player of the game (0 to {P - 1})"]
    widths = {
        name: set(pc.list_value_length(decisions[name]).to_numpy(zero_copy_only=False).tolist())
        for name in ("legal_mask", "observation")
    }
    actions_count, seen_size = core.ActionLayout(config).num_actions, core.observation_size(config)
    learner_size = learner_observation_size(config, belief_features=True)
    if widths["legal_mask"] - {actions_count} or widths["observation"] - {learner_size}:
        return [
            f"the legal masks are not {actions_count} wide or the observations not {learner_size} wide "
            "(the game's actions, and its learner observation with the belief pieces)"
        ]
    seeds = games["game_seed"]
    if seeds.null_count or (seeds.to_numpy() < 0).any():
        return ["a game's seed is missing or negative (the core's seeds are in [0, 2**63))"]
    if set(pc.list_value_length(games["rewards"]).to_numpy(zero_copy_only=False).tolist()) - {P}:
        return [f"a game's rewards are not {P}, one a player"]
    if len(agents) != P:
        return [f"the dataset's agents are not {P}, one a player: {list(agents)!r}"]
    turns = decisions["turn"].to_numpy()
    masks = list_matrix(decisions["legal_mask"], bool)
    observations = list_matrix(decisions["observation"], np.float32)
    B = len(game_ids)
    state = core.init(config, games["game_seed"].to_numpy().astype(np.int64))
    # The belief pieces of each seat in every game, from the events as play_batch tells them.
    beliefs = [BeliefFeatures(config, np.full(B, seat)) for seat in range(P)]
    for features in beliefs:
        features.observe(state.events)
    rewards = np.zeros((B, P))
    problems: list[str] = []
    for step in range(int(count.max(initial=0))):
        live = np.flatnonzero(count > step)
        rows = starts[live] + step
        if (state.done[live]).any():
            bad = live[state.done[live]][0]
            problems.append(f"game {game_ids[bad]}: over after {step} steps, recorded {count[bad]}")
            break
        bad = np.flatnonzero(state.current_player[live] != seats[rows])
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: another seat decides than recorded")
        bad = np.flatnonzero(np.asarray(state.turns_played)[live] != turns[rows])
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: the turn differs from the core's")
        mask = core.legal_action_mask(state)[live]
        bad = np.flatnonzero((mask != masks[rows]).any(axis=1))
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: the legal mask differs")
        seen = core.observe(state, seats[rows], live)  # the learner observation starts with the core's
        bad = np.flatnonzero((seen != observations[rows, :seen_size]).any(axis=1))
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: the core's observation differs")
        believed = np.empty((len(live), learner_size - seen_size), dtype=np.float32)
        for seat in range(P):
            deciding = seats[rows] == seat
            believed[deciding] = beliefs[seat].features(live[deciding])
        bad = np.flatnonzero((believed != observations[rows, seen_size:]).any(axis=1))
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: the belief pieces differ")
        moves = np.zeros(B, dtype=np.int64)
        moves[live] = actions[rows]
        try:
            core.step(state, moves, games=live)
        except ValueError as error:
            problems.append(f"game {game_ids[live[0]]} step {step}: a recorded action is refused ({error})")
            break
        for features in beliefs:
            features.observe(state.events)  # (the games not stepped have no events)
        rewards[live] += state.rewards[live]
        if len(problems) > 20:
            break
    if problems:
        return problems
    truth = {
        "winner": state.winner.astype(np.int64),
        "truncated": state.truncated.astype(bool),
        "turns": np.asarray(state.turns_played).astype(np.int64),
    }
    for name, replayed in truth.items():
        recorded = games[name].to_numpy().astype(replayed.dtype)
        for g in np.flatnonzero(replayed != recorded)[:5]:
            problems.append(f"game {game_ids[g]}: {name} {recorded[g]} recorded, {replayed[g]} replayed")
    if not state.done.all():
        problems.append(f"games {game_ids[~state.done][:5].tolist()} are not over after their recorded steps")
    recorded = list_matrix(games["rewards"], np.float64)
    for g in np.flatnonzero(~np.isclose(recorded, rewards).all(axis=1))[:5]:
        problems.append(
            f"game {game_ids[g]}: rewards {recorded[g].tolist()} recorded, {rewards[g].tolist()} replayed"
        )
    names = np.array([str(name) for name in agents], dtype=object)
    by_seat = names[(np.arange(P)[None, :] - game_ids[:, None]) % P]  # [game, seat] -> agent
    seated = games["agents"].to_pylist()
    for g in [g for g in range(B) if seated[g] != by_seat[g].tolist()][:5]:
        problems.append(f"game {game_ids[g]}: agents by seat are not {by_seat[g].tolist()} (seats rotate)")
    game_of = np.repeat(np.arange(B), count)
    last = steps == count[game_of] - 1
    expected = {  # each row's columns that are its game's: (recorded, what they must be)
        "game_seed": (decisions["game_seed"].to_numpy(), games["game_seed"].to_numpy()[game_of]),
        "agent": (np.array(decisions["agent"].to_pylist(), dtype=object), by_seat[game_of, seats]),
        "reward": (decisions["reward"].to_numpy(), rewards[game_of, seats].astype(np.float32)),
        "winner": (decisions["winner"].to_numpy().astype(np.int64), truth["winner"][game_of]),
        "done": (decisions["done"].to_numpy(zero_copy_only=False), last),
        "truncated": (decisions["truncated"].to_numpy(zero_copy_only=False), truth["truncated"][game_of]),
    }
    for name, (recorded, replayed) in expected.items():
        for row in np.flatnonzero(recorded != replayed)[:3]:
            was, then = (_plain(values[row]) for values in (recorded, replayed))
            problems.append(
                f"game {game_ids[game_of[row]]} step {steps[row]}: {name} {was!r} recorded, {then!r} "
                "by the replay and the games table"
            )
    return problems


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (for messages); other values as they are."""
    return value.item() if isinstance(value, np.generic) else value
