"""The tasks a reasoning-benchmark run scores (``experiments.reasoning_bench``): a task file of the
user's (``tasks_file``), and where a run's reports go by default.

A task file is read with ``cluedo_env.reasoning.splits.read_tasks``, which checks every task of a file
that is not a pinned split's. Its run is of split ``"file"`` (``FILE_SPLIT``) and of the version its
tasks say (one: a file mixing ``v1`` and ``v2`` tasks is refused), and names the file and its checksum
(``tasks_file``, ``tasks_file_sha256``): runs of two files are never gone on from as one, nor told apart
on a leaderboard by version and split alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cluedo_env.reasoning.splits import checksum, read_tasks
from experiments.common.value_checks import ConfigError

__all__ = ["FILE_SPLIT", "default_output_dir", "read_task_file"]

FILE_SPLIT = "file"  # the split a task file's run reports: not one of SPLITS
WRITE_AGAIN = "write it again with cluedo_env.reasoning.splits.write_tasks"


def default_output_dir(version: str, split: str, tasks_file: str | None = None) -> str:
    """Where a run's reports go when ``output_dir`` is not given: ``outputs/reasoning/<version>-<split>``,
    or for a task file ``outputs/reasoning/file-<its name without .jsonl.gz>`` (the config's resolver
    ``reasoning_output_dir``)."""
    if tasks_file is None:
        return f"outputs/reasoning/{version}-{split}"
    name = Path(str(tasks_file)).name
    return f"outputs/reasoning/file-{name.removesuffix('.gz').removesuffix('.jsonl') or name}"


def read_task_file(
    path: str, version: str | None = None, split: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The tasks of the task file ``path`` (``read_tasks``: each checked), and what names them in a run's
    settings: ``version`` (the tasks'), ``split`` (``FILE_SPLIT``), ``tasks_file`` (the file's name) and
    ``tasks_file_sha256`` (``checksum`` of all its tasks: what ``write_tasks`` returned). ``version`` and
    ``split``: those the run was given (None: not given), refused unless the tasks' (a file's run has none).

    Raises:
        ConfigError: naming the file, for one that cannot be read, that ``read_tasks`` refuses (its
            line, task, field and value), that holds no task, whose tasks are of two versions or not of
            ``version``, or with a ``split``.
    """
    if split is not None:
        raise ConfigError(
            f"split={split!r} with tasks_file={path!r}: a task file's run is of split {FILE_SPLIT!r}"
        )
    try:
        tasks = read_tasks(path, WRITE_AGAIN)
    except OSError as error:  # no such file, a folder, not readable
        raise ConfigError(
            f"tasks_file={path} cannot be read ({error.strerror or error}): give a task file, gzip JSON Lines "
            "as cluedo_env.reasoning.splits.write_tasks writes them"
        ) from None
    except ValueError as error:  # a task check_task refuses, a repeated id, a damaged file
        raise ConfigError(f"tasks_file: {error}") from None
    if not tasks:
        raise ConfigError(f"tasks_file={path} holds no task: give a file of one task or more")
    first = tasks[0]
    for number, task in enumerate(tasks, 1):
        if task["version"] != first["version"]:
            raise ConfigError(
                f"tasks_file={path} mixes task versions: line 1 (task {first['id']!r}) is "
                f"{first['version']}, line {number} (task {task['id']!r}) is {task['version']}; "
                "give each version's tasks a file of its own"
            )
    if version is not None and version != first["version"]:
        raise ConfigError(
            f"version={version!r} with tasks_file={path!r}, whose tasks are {first['version']}: a task file's run "
            "is of its tasks' version; leave out version"
        )
    source = {"version": first["version"], "split": FILE_SPLIT, "tasks_file": Path(path).name}
    return tasks, source | {"tasks_file_sha256": checksum(tasks)}
