"""The expert games as a dataset: every decision of games between expert agents, in Parquet and Minari.

    python -m experiments.expert_dataset --out datasets/expert-v1        # the full dataset (the defaults)
    python -m experiments.expert_dataset --out /tmp/tiny --games 4 --shard-games 2 --minari-episodes 2
    python -m experiments.expert_dataset --verify datasets/expert-v1     # checksums, then replay every game

One folder, versioned by its card ``dataset.json`` (``DATASET_VERSION``):

- ``decisions/shard-#####.parquet``: one row per decision of every seat
  (``experiments.learning.expert_rows.DECISION_SCHEMA``: game, game seed, step, turn, seat, agent,
  the learner observation of that seat (``agents.ppo.features``, with the belief pieces), legal
  mask, action, the seat's reward of the game, winner, done, truncated);
- ``games/shard-#####.parquet``: one row per game (``GAME_SCHEMA``);
- ``minari/``: a Minari dataset (``MINARI_DATASETS_PATH``) of the single-agent Gymnasium env
  ``cluedo/Cluedo-v0``, the first agent of ``--agents`` playing the learner seat against the others
  (``experiments.learning.expert_minari``);
- ``dataset.json``: version, settings, rules, agents, counts, win rates with 95% Wilson intervals,
  the observation's index table, the sha256 of each of the dataset's files and how to load it.
- ``README.md``: a Hugging Face dataset card naming the two tables (``datasets.load_dataset(folder)``
  gives the decisions, ``datasets.load_dataset(folder, "games")`` the games);
- ``settings.json``: the settings the shards were played with.

Those are the dataset's files (``OWN``): the card checksums them and no others, so the folder may
also be a git or Hugging Face repository. ``tournament.lock`` is the lock of the run that writes the
folder (``experiments.common.folder_lock``): it stays, and is no part of the dataset. ``--out`` must
be a new or empty folder, or one this command wrote (it has ``settings.json`` or the card).

Agent ``k`` of ``--agents`` sits at seat ``(k + game) % P`` (seats rotate). Game ``g``'s deal is
seed ``SEED_BASE + seed * 10**9 + g``, so a game is the same in any dataset of these settings;
the agents are seeded per shard, so ``--shard-games`` is part of what the games are. Shards are
written whole (a temporary file renamed) as they finish: the same command run again plays only
the shards not yet on disk, and a larger ``--games`` adds shards to a dataset (of this version: a
folder of another version's games is refused, naming the two versions). A file that cannot be
written (a full disk, a folder made read-only) stops the run in one line naming it and the error, the
shards written kept (a Minari dataset half written is removed); Ctrl-C stops it at once, the workers
too, with one line saying how many shards are kept and the command that resumes (exit status 130). ``--workers`` processes play the shards,
each started afresh (spawn: a fork of this process, where a ``ppo`` agent's torch has run, hangs).
``--verify`` checks the card's checksums; refuses a table the replays would not read (a ``decisions/``
or ``games/`` file without its twin of the same name, a Minari file of no episode the card counts), a
``README.md`` that is not the one the command writes from the card, words of the card that are not the
command's for its settings, counts or outcomes of the card that are not the tables' and the Minari
episodes', and what Minari's files say that the command does not write for the card's settings (the
dataset's author, algorithm name and description; each episode's steps and seed); refuses a Minari
``metadata.json`` that is not the writer's (Minari would run the code a crafted one names:
``experiments.learning.expert_minari_checks``); and replays every game through the core and every Minari
episode in the env from its seed, checking every column of every decision row and of every episode.
A dataset of another version is said to be so in the first line; then only its checksums and its games'
rows are checked (its card's words, README and Minari files are that version's command's), exit status 1.

A small split ships with the package (``SHIPPED_SPLIT``, ``experiments/data/expert_small``: the
defaults with ``--games 4 --shard-games 4 --minari-episodes 4``); the full one is the command's
defaults, reproducible from its card.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

from agents.registry import AGENTS
from cluedo_env import __version__
from cluedo_env.console import replace_unencodable
from cluedo_env.game_record import config_from_json, config_to_json
from cluedo_env.whole_files import write_whole
from experiments.common.extras import WorkerLost, missing_extra
from experiments.common.folder_lock import LOCK_FILE, FolderInUse, FolderRefused, lock_folder, unwritable
from experiments.common.interrupts import INTERRUPTED
from experiments.common.output_paths import names_text, path_argument
from experiments.common.write_failures import NotWritten, writing
from experiments.learning.expert_settings import (
    DATASET_VERSION,
    MINARI_OFFSET,
    NOT_RECORDED,
    SEED_BASE,
    DatasetSettings,
)

try:
    import pyarrow.parquet as pq

    from agents.ppo.features import learner_pieces
    from experiments.learning import expert_checks
    from experiments.learning.expert_minari import MINARI_ID, stored_counts, write_minari
    from experiments.learning.expert_minari_checks import metadata_problem, minari_problems
    from experiments.learning.expert_readme import readme_text
    from experiments.learning.expert_rows import DECISION_SCHEMA, GAME_SCHEMA
    from experiments.learning.expert_shards import play_shards, shard_index, shard_problems, shards_done
except ModuleNotFoundError as error:
    raise missing_extra(error, command=__name__ == "__main__") from error

__all__ = ["CARD", "DATASET_VERSION", "SHIPPED_SPLIT", "DatasetSettings", "build", "main", "verify"]

CARD = "dataset.json"
DATASET_NAME = "cluedo-expert-games"  # the card's name
README = "README.md"  # the Hugging Face dataset card (experiments.learning.expert_readme)
SETTINGS = "settings.json"  # the settings the shards were played with, written before the first
OWN = ("decisions", "games", "minari", SETTINGS, README)  # the dataset's files and folders: checksummed
# The small split that ships (package data): --games 4 --shard-games 4 --minari-episodes 4 of the defaults.
SHIPPED_SPLIT = Path(__file__).resolve().parent / "data" / "expert_small"


def _written_here(folder: Path) -> bool:
    """Whether this command wrote ``folder``: its ``settings.json`` holds the recording settings, or its
    card names this dataset (a file of the same name written by anything else does not count)."""
    for name, ours in (
        (SETTINGS, lambda held: held.keys() >= set(DatasetSettings.RECORDING)),  # (of any version)
        (CARD, lambda held: held.get("name") == DATASET_NAME),
    ):
        try:
            held = json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(held, dict) and ours(held):
            return True
    return False


def _check_folder(folder: Path) -> None:
    """Refuse an existing folder of other files: ``--out`` is new, empty, or a folder of this command."""
    if not folder.is_dir() or _written_here(folder):
        return
    if (folder / SETTINGS).exists():
        _recorded_settings(folder)  # one that cannot be read is named, with what to do
    stopped = {LOCK_FILE} | {  # what a run stopped before writing its settings leaves
        part
        for part in ("decisions", "games")
        if (folder / part).is_dir() and not any((folder / part).iterdir())
    }
    stopped |= {path.name for path in folder.glob(f"{SETTINGS}.*.tmp")}  # (killed while writing them)
    others = sorted(path.name for path in folder.iterdir() if path.name not in stopped)
    if others:
        raise ValueError(
            f"{folder} is not empty and not a dataset folder of this command (no {SETTINGS} or {CARD} of it): "
            f"it holds {names_text(others)}. The command writes its own {README} and folders there: choose a new or "
            "empty --out"
        )


def _recorded_settings(folder: Path) -> dict:
    """The settings ``folder``'s ``settings.json`` holds; ``ValueError`` naming the file and what to do
    where it is not a JSON object (empty, cut, not JSON)."""
    path = folder / SETTINGS
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        held = f"{type(error).__name__}: {error}"
    if not isinstance(held, dict):
        why = held if isinstance(held, str) else "not a JSON object"
        raise ValueError(
            f"{path} cannot be read as the settings of the folder's games ({why}): if you ran this command "
            f"into it with the same --agents, --board, --seed and --shard-games, remove {path} and run it "
            "again (the shards written are kept); otherwise choose another --out"
        )
    return held


def _check_reuse(folder: Path, settings: DatasetSettings) -> None:
    """Refuse a folder whose shards were played by another version of the dataset (naming the two: its
    ``settings.json``'s, or where those name none, as 1.1.0's did, its card's) or with other recording
    settings (the settings of a folder without shards or Minari episodes bind nothing: a run that stopped
    before its first)."""
    path = folder / SETTINGS
    recorded = (folder / "minari").exists() or any(
        any((folder / part).glob("shard-*.parquet")) for part in ("decisions", "games")
    )
    if not path.is_file() or not recorded:
        return
    before = _recorded_settings(folder)
    if before.get("version") != DATASET_VERSION:  # (an earlier settings.json may name none; its card does)
        named = before.get("version", _card_version(folder))
        of = (
            f"version {named}"
            if named not in (None, DATASET_VERSION)
            else "an earlier version (its settings.json names none)"
        )
        raise ValueError(
            f"{folder} holds games of {of} of the dataset, and this code writes version {DATASET_VERSION} "
            "(another version's games are other games, which one dataset does not mix); choose another --out "
            "(or remove that folder)"
        )
    changed = [key for key, value in settings.recording().items() if before.get(key) != value]
    if changed:
        raise ValueError(
            f"{folder} holds games recorded with other {', '.join(changed)} ({before}); "
            "choose another --out (or remove that folder)"
        )
    # The card would count shards its settings leave out: any shard past --games (a run killed part-way
    # may have finished shards out of order).
    shards = settings.games // settings.shard_games
    beyond = sorted(
        p
        for part in ("decisions", "games")  # (a run killed while writing a shard leaves its decisions alone)
        for p in (folder / part).glob("shard-*.parquet")
        if shard_index(p) >= shards
    )
    if beyond:
        names = ", ".join(f"{p.parent.name}/{p.name}" for p in beyond)
        needed = (max(map(shard_index, beyond)) + 1) * settings.shard_games
        raise ValueError(
            f"{folder} holds shards past --games {settings.games} ({names}); give --games {needed} or more, "
            "or choose another --out"
        )


def _card_version(folder: Path) -> object:
    """The version ``folder``'s card names, or None (no card, or one that cannot be read)."""
    try:
        card = json.loads((folder / CARD).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return card.get("version") if isinstance(card, dict) else None


def _card(settings: DatasetSettings, folder: Path, minari: dict | None) -> dict:
    """The card: what the dataset is, its counts and checksums, and how to load it."""
    from experiments.common.code_revision import git_revision

    decisions = pq.read_table(folder / "decisions", columns=["agent"])
    games = pq.read_table(folder / "games")
    files = {
        path.relative_to(folder).as_posix(): expert_checks.sha256_of(path)
        for path in expert_checks.dataset_files(folder, OWN)
    }
    config = settings.config
    agents = decisions["agent"].to_pylist()
    text = _card_text(settings)
    return {
        "name": DATASET_NAME,
        "version": DATASET_VERSION,
        "description": text["description"],
        "command": text["command"],
        "settings": text["settings"],
        "rules": config_to_json(config),
        "agents": text["agents"],
        "seeds": {
            "game": f"{SEED_BASE} + {settings.seed} * 10**9 + game",
            "minari_episode": f"{SEED_BASE} + {settings.seed} * 10**9 + {MINARI_OFFSET} + episode",
        },
        "created_with": {"cluedo_env": __version__, "code": git_revision()},
        "counts": {
            "games": games.num_rows,
            "decisions": len(agents),
            "decisions_by_agent": {name: agents.count(name) for name in dict.fromkeys(settings.agents)},
            "shards": settings.games // settings.shard_games,
            "minari_episodes": minari["episodes"] if minari else 0,
            "minari_steps": minari["steps"] if minari else 0,
        },
        "outcomes": expert_checks.outcomes(games, settings.agents),
        "schema": text["schema"],
        "observation_pieces": [
            {"name": name, "shape": list(shape), "offset": offset}
            for name, shape, offset in learner_pieces(config, True)
        ],
        "minari": text["minari"] if minari else None,
        "files": files,
        "load": {
            "datasets": 'datasets.load_dataset("<folder>") (its README.md names the tables; "games" for the games), '
            'or datasets.load_dataset("parquet", data_files={"train": "<folder>/decisions/*.parquet"})',
            "pandas": 'pandas.read_parquet("<folder>/decisions")',
            "minari": f'MINARI_DATASETS_PATH=<folder>/minari; minari.load_dataset("{MINARI_ID}")',
        },
    }


def _card_text(settings: DatasetSettings) -> dict:
    """What the card says of ``settings`` in words and names, which ``README.md`` shows: ``verify`` requires a
    card's to be these for its settings (``expert_checks.card_text_problem``)."""
    schema = {
        name: {field.name: str(field.type) for field in table}
        for name, table in (("decisions", DECISION_SCHEMA), ("games", GAME_SCHEMA))
    }
    return {
        "description": (
            f"Every decision of {settings.games} games of Cluedo between {', '.join(settings.agents)} "
            "(seats rotated), with the learner observation of the deciding seat, its legal actions, "
            "the action and the game's outcome; and a Minari dataset of the single-agent Gymnasium env."
        ),
        "command": "python -m experiments.expert_dataset " + " ".join(_options(settings)),
        "settings": {**asdict(settings), "agents": list(settings.agents)},
        "agents": list(settings.agents),
        "schema": schema,
        "minari": {"dataset_id": MINARI_ID, "path": "minari"} if settings.minari_episodes else None,
    }


def _options(settings: DatasetSettings) -> list[str]:
    """The command line options that give ``settings``."""
    options = {
        "--agents": ",".join(settings.agents),
        "--board": settings.board,
        "--seed": str(settings.seed),
        "--games": str(settings.games),
        "--shard-games": str(settings.shard_games),
        "--minari-episodes": str(settings.minari_episodes),
        "--out": "<folder>",
    }
    return [word for option in options.items() for word in option]


def build(settings: DatasetSettings, folder: Path, workers: int = 1, progress: bool = True) -> dict:
    """Write (or complete) the dataset of ``settings`` in ``folder``; returns its card.

    ``folder`` is new, empty, or one this command wrote (it has ``settings.json`` or the card); its
    other files (a repository's, say) are left alone and not in the card.

    Raises:
        ValueError: a bad setting, a folder of other files, or a folder recorded with other settings.
        FolderInUse: another run writes into ``folder``.
        WorkerLost: a worker died; the shards written are kept.
        NotWritten: a file could not be written (a full disk); the shards written are kept.
    """
    settings.validate()
    _check_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for part in ("decisions", "games"):
        (folder / part).mkdir(exist_ok=True)
    with lock_folder(folder):
        _check_reuse(folder, settings)
        with writing(folder / SETTINGS):  # whole: a run stopped while writing them leaves the earlier ones
            write_whole(folder / SETTINGS, json.dumps(settings.recording(), indent=1) + "\n")
        (folder / CARD).unlink(missing_ok=True)  # the card says the folder is complete: not while writing
        leftovers = ("decisions/*.tmp", "games/*.tmp", f"{SETTINGS}.*.tmp", f"{CARD}.*.tmp")
        for leftover in [path for pattern in leftovers for path in folder.glob(pattern)]:
            leftover.unlink()  # a killed run's half-written shard, settings or card (its lock is ours now)
        shutil.rmtree(folder / "minari.partial", ignore_errors=True)
        play_shards(settings, folder, workers, progress)
        minari, root = stored_counts(folder / "minari"), folder / "minari"
        if minari is not None and minari["episodes"] != settings.minari_episodes:
            shutil.rmtree(root)  # another count of the same settings' episodes: written again
            minari = None
        if settings.minari_episodes and minari is None:
            seeds = settings.game_seeds(MINARI_OFFSET, settings.minari_episodes)
            with writing(root, partial=folder / "minari.partial"):
                minari = write_minari(root, settings.agents, seeds, settings.seed, settings.board, progress)
        (folder / README).unlink(missing_ok=True)
        card = _card(settings, folder, minari)
        with writing(folder / README):  # (datasets.load_dataset(folder) reads it)
            (folder / README).write_text(readme_text(card), encoding="utf-8")
        card["files"][README] = expert_checks.sha256_of(folder / README)
        with writing(folder / CARD):
            write_whole(folder / CARD, json.dumps(card, indent=1) + "\n")
    return card


def verify(folder: Path, replay: bool = True) -> list[str]:
    """What is wrong with the dataset in ``folder``: its card, its files' checksums (of the dataset's
    own files, ``OWN``: others in the folder are not read), a listed file the replays would not read
    (``expert_checks.unchecked_files``: a shard's table without its twin, a Minari file of no episode
    counted; pandas and ``datasets`` read every file of ``decisions/``) or a ``README.md`` naming other
    tables, the card's words (its settings must be those of its rules and counts, its command line,
    description, schema and Minari id what the command writes for them: ``expert_checks.card_text_problem``),
    its Minari ``metadata.json`` (it must be what the writer writes for the card's rules and
    agents: ``expert_minari_checks.metadata_problem``; Minari would run the code a crafted one names),
    its games' replay (every column of every decision row), its Minari episodes' replay
    (``expert_minari_checks.minari_problems``), then the card's counts and outcomes against the tables and
    the Minari episodes' steps, what Minari's files say against what the writer writes for the card's settings
    (``expert_minari_checks.claim_problems``: words, each episode's steps and seed), and its ``README.md``
    against the one the command writes from the card (``expert_checks.count_problems``). ``replay=False``:
    all but the two replays. A card of another version than ``DATASET_VERSION`` gives a first line saying
    so, then only what holds across versions is checked: its files' checksums and its shards' rows
    (``expert_shards.shard_problems``; its words, ``README.md`` and Minari files are that version's)."""
    path = folder / CARD
    if not path.is_file():
        return [f"{path}: no card (an unfinished dataset, or not a dataset folder)"]
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as error:  # (not JSON, not UTF-8, nested too deeply)
        return [f"{path}: not a JSON card ({type(error).__name__}: {error})"]
    if not isinstance(card, dict) or not all(
        isinstance(card.get(k), dict) for k in ("files", "rules", "counts")
    ):
        return [f"{path}: not a dataset card (no files, rules and counts)"]
    version, files = card.get("version"), card["files"]  # another version's (x.y.z) words are its command's
    plain = version != DATASET_VERSION and re.fullmatch(r"\d+\.\d+\.\d+", str(version))
    other = []  # the line saying so, first of a dataset of another version
    if plain:
        other.append(
            f"{path}: the dataset is of version {version}, and this code writes version {DATASET_VERSION}: only "
            f"its files' checksums and its games' rows are checked (its card's words, {README} and Minari "
            "episodes are that version's command's)"
        )
    problems = expert_checks.checksum_problems(folder, files, OWN)
    if problems:
        return other + problems
    if other:  # its shards only: the README's header and the Minari files are that version's
        files = {name: sha for name, sha in files.items() if name.startswith(("decisions/", "games/"))}
    # the replays must read every table the card lists (pandas reads every file of decisions/)
    shards, problems = expert_checks.unchecked_files(
        folder, files, MINARI_ID, card["counts"].get("minari_episodes")
    )
    if problems:
        return other + problems
    try:
        config = config_from_json(card["rules"])
    except (TypeError, ValueError) as error:
        return [*other, f"{path}: rules: {error}"]
    agents, names = card.get("agents"), set(AGENTS) - NOT_RECORDED  # (the Minari env seats them)
    if not isinstance(agents, list) or len(agents) != config.num_players or not {*map(str, agents)} <= names:
        return [
            *other,
            f"{path}: agents: not {config.num_players} agent names of {sorted(names)} ({agents!r})",
        ]
    if other:
        return other + (shard_problems(folder, shards, config, agents) if replay else [])
    try:  # the card's words (README.md shows them): the command's for its settings, and those of its rules
        settings = DatasetSettings(**{**card["settings"], "agents": tuple(card["settings"]["agents"])})
        same_rules = settings.config == config
    except (KeyError, TypeError, ValueError) as error:
        return [f"{path}: settings: not the command's ({type(error).__name__}: {error})"]
    wrong = expert_checks.card_text_problem(card, _card_text(settings), same_rules)
    if wrong:
        return [wrong]
    minari = folder / "minari" / MINARI_ID / "data"
    seeds = settings.game_seeds(MINARI_OFFSET, settings.minari_episodes)  # the Minari episodes'
    refused = metadata_problem(minari, config, agents)  # before anything else reads the Minari part
    if refused or not replay:
        return [refused] if refused else expert_checks.count_problems(folder, shards, card, minari, seeds)
    problems = shard_problems(folder, shards, config, agents) + minari_problems(
        minari, card["counts"], config, agents
    )
    # the card's counts and outcomes against the tables' rows (after the replays, whose lines say more)
    return problems or expert_checks.count_problems(folder, shards, card, minari, seeds)


def _parse(argv: list[str] | None) -> tuple[argparse.Namespace, argparse.ArgumentParser]:
    title, _, rest = __doc__.partition("\n")
    parser = argparse.ArgumentParser(
        prog="python -m experiments.expert_dataset",
        description=f"{title} (cluedo-env {__version__})\n{rest}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    default = DatasetSettings()
    parser.add_argument(
        "--out",
        type=path_argument("the dataset folder to write"),
        help="the dataset folder to write (or complete)",
    )
    parser.add_argument(
        "--verify", type=Path, metavar="DIR", help="check a dataset folder instead of writing one"
    )
    parser.add_argument(
        "--agents",
        default=",".join(default.agents),
        help=f"one per seat (default {','.join(default.agents)})",
    )
    parser.add_argument("--board", default=default.board, help=f"classic or none (default {default.board})")
    parser.add_argument(
        "--seed", type=int, default=default.seed, help=f"dataset seed (default {default.seed})"
    )
    parser.add_argument("--games", type=int, default=default.games, help=f"games (default {default.games})")
    parser.add_argument(
        "--shard-games",
        type=int,
        default=default.shard_games,
        help=f"games per shard (default {default.shard_games})",
    )
    parser.add_argument(
        "--minari-episodes",
        type=int,
        default=default.minari_episodes,
        help=f"Minari episodes (default {default.minari_episodes}; 0: none)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes playing the shards (0: this one; default 1)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    return parser.parse_args(argv), parser


def main(argv: list[str] | None = None) -> None:
    """Write the dataset (``--out``) or check one (``--verify``); errors exit with one line."""
    replace_unencodable()
    args, parser = _parse(argv)
    if (args.out is None) == (args.verify is None):
        parser.error("give --out DIR (write a dataset) or --verify DIR (check one)")
    if args.verify is not None:
        problems = verify(args.verify)
        for line in problems:
            print(f"problem: {line}", file=sys.stderr)
        if len(problems) == 1 and problems[0].startswith(f"{args.verify / CARD}: the dataset is of version"):
            print(f"{args.verify}: its files' checksums match and every game's rows replay", file=sys.stderr)
        if problems:
            sys.exit(1)
        card = json.loads((args.verify / CARD).read_text(encoding="utf-8"))
        counts = card["counts"]
        print(
            f"{args.verify}: version {card.get('version')}, {counts.get('games')} games, "
            f"{counts.get('decisions')} decisions, {counts.get('minari_episodes')} Minari episodes: "
            "checksums match, every game and Minari episode replays"
        )
        return
    if args.workers < 0:
        parser.error(f"--workers must be >= 0, got {args.workers}")
    names = tuple(name.strip() for name in args.agents.split(","))
    settings = DatasetSettings(
        names, args.board, args.seed, args.games, args.shard_games, args.minari_episodes
    )
    try:
        settings.validate()  # (builds each agent: a model loads, seconds)
    except ValueError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        print("\ninterrupted while checking the agents: nothing was written")
        sys.exit(INTERRUPTED)
    problem = unwritable(args.out, utf8_writers=True)
    if problem:
        parser.error(f"cannot write --out {args.out}: {problem}")
    start = time.time()
    try:
        card = build(settings, args.out, args.workers, progress=not args.no_progress)
    except KeyboardInterrupt:  # Ctrl-C: the workers stopped, the shards written kept
        words = ["python", "-m", "experiments.expert_dataset", *(sys.argv[1:] if argv is None else argv)]
        kept = shards_done(settings, args.out) if args.out.is_dir() else 0
        print(
            f"\ninterrupted: {kept} of {settings.games // settings.shard_games} shards kept in {args.out}; "
            f"to resume: {shlex.join(words)}"
        )
        sys.exit(INTERRUPTED)
    except (ValueError, FolderRefused, WorkerLost, NotWritten) as error:
        message = str(error)
        if isinstance(error, NotWritten):  # (a full disk, a folder made read-only)
            message += f"; the shards written are kept in {args.out}: run the same command again to finish"
        if isinstance(error, FolderInUse):
            message = (
                f"{args.out} is being written by another run of this command (or a tournament); wait for it"
            )
        print(f"error: {message}", file=sys.stderr)
        sys.exit(1)
    counts = card["counts"]
    print(
        f"{args.out}: {counts['games']} games, {counts['decisions']} decisions, {counts['minari_episodes']} "
        f"Minari episodes, {len(card['files'])} files in {time.time() - start:.0f} s"
    )
    for name, row in card["outcomes"]["by_agent"].items():
        low, high = row["ci95"]
        print(
            f"  {name}: won {row['wins']} of {row['seats']} seats, {row['win_rate']:.1%} "
            f"[{low:.1%}, {high:.1%}]"
        )


if __name__ == "__main__":
    main()
