"""The reasoning benchmark on a task file of the user's (``tasks_file``): scored as the same tasks of a
split are, refused in one line before anything is written where it cannot be scored, resumed, kept apart
from another file's run, and never named by a config file from elsewhere the command line does not repeat.
Before, a task file could only be scored by a script of the user's, without report, resume or provenance.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from agents.solvers import SOLVERS
from cluedo_env.reasoning.splits import checksum, load_split, sample_tasks, write_tasks
from experiments.common.reasoning_tasks import default_output_dir
from experiments.common.value_checks import ConfigError
from experiments.reasoning_bench import ReasoningBenchConfig, run
from tests.conftest import ROOT


def settings(tmp_path, **given) -> ReasoningBenchConfig:
    """The beliefs solver, 50 resamples, into ``tmp_path/out`` and ``tmp_path/board.jsonl``."""
    given = {"solver": "beliefs", "output_dir": str(tmp_path / "out"), **given}
    return ReasoningBenchConfig(
        resamples=50, progress=False, leaderboard=str(tmp_path / "board.jsonl"), **given
    )


def dev_tasks(n: int) -> list[dict]:
    """``n`` tasks of v2/dev, as ``limit=n`` samples them."""
    return sample_tasks(load_split("v2", "dev"), n, seed=0)


def command(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    return subprocess.run(
        [sys.executable, "-m", "experiments.reasoning_bench", "resamples=10", "progress=false",
         "leaderboard=board.jsonl", f"hydra.run.dir={tmp_path / 'hydra'}", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def test_a_task_file_is_scored_as_the_same_tasks_of_the_split(tmp_path, monkeypatch):
    tasks = dev_tasks(12)
    sha = write_tasks(tasks, tmp_path / "mine.jsonl.gz")
    split = run(settings(tmp_path, limit=12, output_dir=str(tmp_path / "split")))
    monkeypatch.chdir(tmp_path)  # the default output_dir names the file
    mine = run(settings(tmp_path, tasks_file="mine.jsonl.gz", output_dir=None))
    assert json.dumps(mine["summary"]) == json.dumps(split["summary"]) and mine["tasks"] == 12
    assert mine["tasks_sha256"] == split["tasks_sha256"] == sha
    assert (mine["version"], mine["split"], mine["tasks_file"], mine["tasks_file_sha256"]) == (
        "v2", "file", "mine.jsonl.gz", sha
    )  # fmt: skip
    out = tmp_path / "outputs" / "reasoning" / "file-mine" / "beliefs"
    assert json.loads((out / "report.json").read_text())["tasks_file_sha256"] == sha
    assert (out / "report.md").read_text().startswith("# beliefs on v2 tasks of mine.jsonl.gz (12 tasks")
    (scores,) = out.glob("scores-*.jsonl")
    header = json.loads(scores.read_text().splitlines()[0])["settings"]
    assert (header["split"], header["tasks_file"], header["tasks_file_sha256"]) == (
        "file",
        "mine.jsonl.gz",
        sha,
    )
    of_split, of_file = [json.loads(line) for line in (tmp_path / "board.jsonl").read_text().splitlines()]
    assert (of_split["split"], of_file["split"]) == ("dev", "file") and "tasks_file" not in of_split
    assert (of_file["tasks_file"], of_file["tasks_file_sha256"]) == ("mine.jsonl.gz", sha)
    some = run(settings(tmp_path, tasks_file="mine.jsonl.gz", limit=5))  # by tier, as a split's sample
    assert (
        some["tasks_sha256"] == checksum(sample_tasks(tasks, 5, seed=0)) and some["tasks_file_sha256"] == sha
    )
    assert default_output_dir("v2", "dev", "a/b/mine.jsonl.gz") == "outputs/reasoning/file-mine"
    assert default_output_dir("v2", "dev") == "outputs/reasoning/v2-dev"


def test_a_task_file_that_cannot_be_scored_is_refused_in_one_line_before_anything_is_written(tmp_path):
    tasks = dev_tasks(3)
    tasks[1] = dict(tasks[1], hand=["lounge", *tasks[1]["hand"][1:]])  # not the edition's name, nor held
    write_tasks(tasks, tmp_path / "bad.jsonl.gz")
    done = command(tmp_path, "tasks_file=bad.jsonl.gz", "output_dir=out")
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: tasks_file: bad.jsonl.gz:2: task {tasks[1]['id']!r}: hand "), line
    write_tasks(dev_tasks(2) + load_split("v1", "dev")[:1], tmp_path / "mixed.jsonl.gz")
    write_tasks([], tmp_path / "empty.jsonl.gz")
    for name, said in (
        ("mixed", r"mixed.jsonl.gz mixes task versions: line 1 \(task 'v2-dev-\d+'\) is v2, line 3 .* is v1"),
        ("empty", "empty.jsonl.gz holds no task"),
        ("missing", r"missing.jsonl.gz cannot be read \(No such file or directory\)"),
    ):
        with pytest.raises(ConfigError, match=f"^tasks_file={re.escape(str(tmp_path))}/{said}"):
            run(settings(tmp_path, tasks_file=str(tmp_path / f"{name}.jsonl.gz")))
    with pytest.raises(ConfigError, match=r"^tasks_file must be the path of a task file or null, got ' '$"):
        run(settings(tmp_path, tasks_file=" "))
    assert not (tmp_path / "out").exists() and not (tmp_path / "board.jsonl").exists()


def test_a_stopped_run_of_a_task_file_goes_on_where_it_stopped(tmp_path, monkeypatch):
    seen = []

    def stops_after_4(task):  # the beliefs solver's answers, and a user's Ctrl-C at the 5th task
        if len(seen) == 4:
            raise KeyboardInterrupt
        seen.append(task["id"])
        return SOLVERS["beliefs"](task)

    write_tasks(dev_tasks(10), tmp_path / "mine.jsonl.gz")
    monkeypatch.setitem(SOLVERS, "stops", stops_after_4)
    cfg = settings(tmp_path, solver="stops", tasks_file=str(tmp_path / "mine.jsonl.gz"))
    with pytest.raises(KeyboardInterrupt, match="4 of 10 tasks scored are kept"):
        run(cfg)
    monkeypatch.setitem(SOLVERS, "stops", lambda task: (seen.append(task["id"]), SOLVERS["beliefs"](task))[1])
    resumed = run(cfg)
    assert len(seen) == 10 and len(set(seen)) == 10  # only the 6 not scored yet
    whole = run(settings(tmp_path, tasks_file=cfg.tasks_file))
    assert json.dumps(resumed["summary"]) == json.dumps(whole["summary"])


def test_another_files_run_in_the_same_output_dir_is_kept_apart(tmp_path, monkeypatch):
    """Runs of other settings keep a scores file of their own: an edited file (or another of the same
    name) is one, nothing of the first file's scores gone on from, even for the tasks both hold."""
    seen = []
    monkeypatch.setitem(
        SOLVERS, "counted", lambda task: (seen.append(task["id"]), SOLVERS["beliefs"](task))[1]
    )
    tasks, path = dev_tasks(9), tmp_path / "mine.jsonl.gz"
    first = write_tasks(tasks[:6], path)
    cfg = settings(tmp_path, solver="counted", tasks_file=str(path))
    run(cfg)
    second = write_tasks(tasks[3:], path)  # the file edited: three tasks of the first, three new
    report = run(cfg)
    assert len(seen) == 12 and report["tasks_file_sha256"] == second != first
    folder = tmp_path / "out" / "counted"
    assert len(list(folder.glob("scores-*.jsonl"))) == 2
    assert json.loads((folder / "report.json").read_text())["tasks_sha256"] == second
    lines = [json.loads(line) for line in (tmp_path / "board.jsonl").read_text().splitlines()]
    assert [line["tasks_file_sha256"] for line in lines] == [first, second]


def test_a_config_file_from_elsewhere_cannot_name_the_task_file(tmp_path):
    write_tasks(dev_tasks(2), tmp_path / "mine.jsonl.gz")
    config = tmp_path / "mine" / "evil.yaml"
    config.parent.mkdir()
    config.write_text(
        yaml.safe_dump({"defaults": ["reasoning_bench", "_self_"], "tasks_file": "mine.jsonl.gz"})
    )
    given = ("--config-dir", str(config.parent), "--config-name", "evil")
    done = command(tmp_path, *given)
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: tasks_file given by {config}: "), line
    assert not (tmp_path / "outputs").exists() and not (tmp_path / "board.jsonl").exists()
    repeated = command(tmp_path, "tasks_file=mine.jsonl.gz", *given)
    assert repeated.returncode == 0, repeated.stderr[-2000:]
    assert (tmp_path / "outputs" / "reasoning" / "file-mine" / "beliefs" / "report.json").is_file()


def test_a_split_or_another_version_given_with_a_task_file_is_refused_before_anything_is_written(tmp_path):
    write_tasks(dev_tasks(2), tmp_path / "mine.jsonl.gz")  # v2 tasks: the version of their run
    done = command(tmp_path, "split=test", "tasks_file=mine.jsonl.gz", "output_dir=out")
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line == (
        "config error: split='test' with tasks_file='mine.jsonl.gz': a task file's run is of split 'file'"
    ), line
    with pytest.raises(ConfigError, match=r"^version='v1' with tasks_file=.*, whose tasks are v2: "):
        run(settings(tmp_path, version="v1", tasks_file=str(tmp_path / "mine.jsonl.gz")))
    assert not (tmp_path / "out").exists() and not (tmp_path / "board.jsonl").exists()


def test_the_version_of_a_task_files_tasks_given_with_it_is_its_runs(tmp_path):
    write_tasks(sample_tasks(load_split("v1", "dev"), 2, seed=0), tmp_path / "old.jsonl.gz")
    report = run(settings(tmp_path, version="v1", tasks_file=str(tmp_path / "old.jsonl.gz")))
    assert (report["version"], report["split"]) == ("v1", "file")
