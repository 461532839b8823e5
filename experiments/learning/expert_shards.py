"""The expert dataset's shards (``experiments.expert_dataset``): each a batch of games, played and written
whole as it ends (``decisions/`` first, ``games/`` last: a shard is done when its games file exists), in
worker processes or in the command's own; and their rows checked by replaying them (``shard_problems``).

A stop (Ctrl-C, a worker that died, a file that cannot be written) stops the workers at once and plays no
queued shard (``experiments.common.interrupts.run_in_pool``); the shards written stay, and the same
command again plays only the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from cluedo_env import core
from experiments.common.extras import WorkerLost
from experiments.common.interrupts import run_in_pool
from experiments.learning.expert_checks import replay_problems
from experiments.learning.expert_rows import DECISION_SCHEMA, GAME_SCHEMA, play_expert_games, write_table
from experiments.learning.expert_settings import DatasetSettings

__all__ = ["play_shard", "play_shards", "shard_index", "shard_paths", "shard_problems", "shards_done"]


def shard_paths(folder: Path, index: int) -> tuple[Path, Path]:
    """``(decisions, games)`` files of shard ``index``."""
    name = f"shard-{index:05d}.parquet"
    return folder / "decisions" / name, folder / "games" / name


def shard_index(path: Path) -> int:
    """The index of ``shard-NNNNN.parquet`` (-1 for a name not of that form)."""
    digits = path.name.removeprefix("shard-").removesuffix(".parquet")
    return int(digits) if digits.isdigit() else -1


def shards_done(settings: DatasetSettings, folder: Path) -> int:
    """How many of ``settings``' shards ``folder`` holds whole (their games file written)."""
    return sum(shard_paths(folder, k)[1].exists() for k in range(settings.games // settings.shard_games))


def play_shard(settings: DatasetSettings, index: int, folder: str) -> int:
    """Shard ``index``: its games played and written (decisions first, games last); returns its decisions."""
    n = settings.shard_games
    first = index * n
    decisions, games = play_expert_games(
        settings.config, settings.agents, settings.game_seeds(first, n), first, settings.seed * 10**6 + first
    )
    decisions_path, games_path = shard_paths(Path(folder), index)
    write_table(decisions, decisions_path)
    write_table(games, games_path)  # last: a shard is done when its games file exists
    return decisions.num_rows


def play_shards(settings: DatasetSettings, folder: Path, workers: int, progress: bool) -> None:
    """Play the shards not yet on disk, in ``workers`` processes started afresh (``worker_pool``: the games
    are those of one process) or in this one (0).

    Raises:
        WorkerLost: a worker died; the shards written are kept.
    """
    from concurrent.futures.process import BrokenProcessPool

    from tqdm import tqdm

    shards = settings.games // settings.shard_games
    todo = [k for k in range(shards) if not shard_paths(folder, k)[1].exists()]
    bar = tqdm(
        total=shards, initial=shards - len(todo), unit=" shards", desc="expert games", disable=not progress
    )
    try:
        if workers == 0:
            for k in todo:
                play_shard(settings, k, str(folder))
                bar.update(1)
        else:
            run_in_pool(
                workers, play_shard, [(settings, k, str(folder)) for k in todo], lambda _: bar.update(1)
            )
    except BrokenProcessPool:
        raise WorkerLost(
            f"a worker process died (killed, or out of memory); {shards_done(settings, folder)} of the {shards} "
            f"shards are saved in {folder}: run the same command again to play the others"
        ) from None
    finally:
        bar.close()


def shard_problems(
    folder: Path, shards: Sequence[str], config: core.GameConfig, agents: Sequence[str]
) -> list[str]:
    """What is wrong with the rows of the shards ``shards`` (names of ``folder``'s ``decisions/`` and
    ``games/``): a table that cannot be read, columns that are not the dataset's, then every game replayed
    through the core (``expert_checks.replay_problems``: every column of every decision row). One line each,
    naming the shard."""
    problems = []
    for name in shards:
        try:
            tables = pq.read_table(folder / "decisions" / name), pq.read_table(folder / "games" / name)
        except (OSError, pa.ArrowException) as error:
            problems.append(f"{name}: not readable as Parquet ({error})")
            continue
        wrong = [part for part, table, schema in zip(("decisions", "games"), tables, (DECISION_SCHEMA, GAME_SCHEMA))
                 if not table.schema.remove_metadata().equals(schema)]  # fmt: skip
        if wrong:  # (the checksums are the card's own: a crafted folder passes them)
            problems.append(f"{name}: the {' and '.join(wrong)} table's columns are not the dataset's")
            continue
        problems += [f"{name}: {line}" for line in replay_problems(config, *tables, agents)]
    return problems
