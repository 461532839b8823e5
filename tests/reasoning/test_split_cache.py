"""A split's cached file (``load_split``'s ``cache``): written whole, and generated again where it is not the
split's.

``write_tasks`` wrote the file in place: a run killed while it generated the test split left a cut gzip,
and every later run stopped with "truncated or corrupt after 7404 line(s)", advising
``reasoning_splits --write``, which re-pins the package's checksum too.
"""

from __future__ import annotations

import gzip
import threading
import time
import warnings

import pytest

from cluedo_env.reasoning import splits
from cluedo_env.reasoning.splits import SPLITS, SplitSpec, checksum, load_split, read_tasks, write_tasks

TINY = ("v2", "tiny")  # a split not shipped, of the first shipped v2 dev tasks (generate: gives them)


@pytest.fixture(scope="module")
def dev() -> list[dict]:
    return read_tasks(SPLITS["v2", "dev"].path())[:40]


@pytest.fixture
def tiny(monkeypatch, dev) -> list[dict]:
    """The split ``v2/tiny``, pinned: ``dev``'s 40 tasks."""
    monkeypatch.setitem(SPLITS, TINY, SplitSpec(*TINY, seed=9, num_tasks=len(dev)))
    monkeypatch.setitem(splits.CHECKSUMS, TINY, checksum(dev))
    return dev


class Generator:
    """``generate`` of ``load_split``: the tiny split's tasks, and how many times it was asked."""

    def __init__(self, tasks: list[dict]) -> None:
        self.tasks, self.calls = tasks, 0

    def __call__(self, spec: SplitSpec, progress: bool = True) -> list[dict]:
        assert (spec.version, spec.name) == TINY
        self.calls += 1
        return [dict(task) for task in self.tasks]


def test_a_write_stopped_part_way_leaves_the_earlier_file_whole(tmp_path, dev, monkeypatch):
    path = tmp_path / "v2" / "tiny.jsonl.gz"
    write_tasks(dev[:5], path)
    before = path.read_bytes()
    write = gzip.GzipFile.write
    lines = []

    def stop_at_the_tenth_line(self, data):  # Ctrl-C, or a kill, while the file is written
        lines.append(data)
        if len(lines) == 10:
            raise KeyboardInterrupt
        return write(self, data)

    monkeypatch.setattr(gzip.GzipFile, "write", stop_at_the_tenth_line)
    with pytest.raises(KeyboardInterrupt):
        write_tasks(dev, path)
    monkeypatch.undo()
    assert path.read_bytes() == before  # not a cut gzip of the new tasks
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    assert read_tasks(path) == dev[:5]


def test_two_writes_at_once_leave_one_whole_file(tmp_path, dev, monkeypatch):
    path = tmp_path / "tiny.jsonl.gz"
    write = gzip.GzipFile.write

    def slow(self, data):  # each line a pause: the two writers take turns
        time.sleep(0.001)
        return write(self, data)

    monkeypatch.setattr(gzip.GzipFile, "write", slow)
    writers = [threading.Thread(target=write_tasks, args=(tasks, path)) for tasks in (dev[:30], dev[10:])]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    monkeypatch.undo()
    assert read_tasks(path) in (dev[:30], dev[10:])
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.parametrize("damage", ["cut", "other tasks", "not gzip"])
def test_a_cached_split_that_is_not_the_splits_is_generated_again(tmp_path, tiny, damage):
    cached = tmp_path / "v2" / "tiny.jsonl.gz"
    write_tasks(tiny, cached)
    whole = cached.read_bytes()
    if damage == "cut":  # a run killed while it wrote the file in place
        cached.write_bytes(whole[: len(whole) // 2])
    elif damage == "other tasks":
        write_tasks(tiny[:-1], cached)
    else:
        cached.write_text("id,version\n")
    generate = Generator(tiny)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tasks = load_split(*TINY, cache=tmp_path, progress=False, generate=generate)
    assert tasks == tiny and generate.calls == 1
    assert cached.read_bytes() == whole  # the split's file, whole, in its place
    (warning,) = caught
    said = str(warning.message)
    assert warning.category is RuntimeWarning and str(cached) in said and "\n" not in said
    assert said.endswith("the split is generated again in its place")
    assert "--write" not in said and "re-pin" not in said and "reasoning_splits" not in said
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read as it is now, without a word
        assert load_split(*TINY, cache=tmp_path, progress=False, generate=generate) == tiny
    assert generate.calls == 1


def test_without_a_generator_a_cached_split_of_other_tasks_is_refused_with_what_to_do(tmp_path, tiny):
    cached = tmp_path / "v2" / "tiny.jsonl.gz"
    write_tasks(tiny[:-1], cached)
    with pytest.raises(ValueError) as refused:
        load_split(*TINY, cache=tmp_path, progress=False)
    said = str(refused.value)
    assert said.startswith(
        f"split v2/tiny has checksum {checksum(tiny[:-1])}, the pinned one is {checksum(tiny)}"
    )
    assert said.endswith(
        f"{cached} holds other tasks (altered, or written by other code): remove it: load_split with a "
        f"generator writes it (python -m experiments.reasoning_bench version=v2 split=tiny cache={tmp_path} "
        "does, before it scores)"
    )
    assert "re-pin" not in said and "--write" not in said


def test_the_benchmark_goes_on_past_a_cut_cached_split(tmp_path, tiny, monkeypatch, capsys):
    pytest.importorskip("hydra")
    from experiments import reasoning_bench
    from experiments.reasoning_bench import ReasoningBenchConfig, run

    cached = tmp_path / "cache" / "v2" / "tiny.jsonl.gz"
    write_tasks(tiny, cached)
    whole = cached.read_bytes()
    cached.write_bytes(whole[: len(whole) // 2])
    monkeypatch.setattr(reasoning_bench, "generate", Generator(tiny))
    with pytest.warns(RuntimeWarning, match="truncated or corrupt"):
        report = run(ReasoningBenchConfig(solver="uniform", split="tiny", cache=str(tmp_path / "cache"),
                                          output_dir=str(tmp_path / "out"), leaderboard=str(tmp_path / "b.jsonl"),
                                          progress=False))  # fmt: skip
    assert report["tasks"] == len(tiny) and cached.read_bytes() == whole
