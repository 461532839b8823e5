"""Inputs of the reasoning libraries from elsewhere: event rows, task files, a solver's answers.

Each is refused with an error naming what is wrong and what is accepted, or,
for a solver's answer, counted and reported: never silently read as something
else. Event rows that are not events of the game (a kind, player or card out of
range) were ignored by ``deduce_from_events``; a truncated task file raised a
raw ``EOFError``; the scorer read ``np.float32`` probabilities as missing
(uniform) and a row whose sum overflows as all zero.
"""

from __future__ import annotations

import copy
import gzip
import re
from fractions import Fraction

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.inference.from_events import check_events, deduce_from_events
from cluedo_env.reasoning import splits
from cluedo_env.reasoning.score import score_answer, summarize
from cluedo_env.reasoning.splits import SPLITS, load_split, read_tasks, write_tasks
from cluedo_env.reasoning.tasks import make_task
from experiments.common.task_generation import play_task_games

CONFIG = core.GameConfig(num_players=3, board="none", max_turns=40)
# Classic edition: suspects 0-5, weapons 6-11, rooms 12-20.


@pytest.fixture(scope="module")
def game() -> np.ndarray:
    """The full event log of a finished game of random, SAT and notepad agents."""
    played, _ = play_task_games(CONFIG, ("random", "sat", "notepad"), np.array([11]), rotation=0)
    return played[0]


# ---------------------------------------------------------------------------
# Event rows
# ---------------------------------------------------------------------------


def test_a_real_games_rows_are_all_accepted(game):
    assert len(check_events(CONFIG, game)) == len(game)
    for player in range(CONFIG.num_players):
        knowledge = deduce_from_events(CONFIG, player, game)
        assert (knowledge.status[:, player] >= 0).all()  # it knows its own hand whole


GARBAGE = [
    ("a kind no event has", [99, 0, 0, 0, 0, 0, 0], "a kind in [0, 13) or -1"),
    ("a negative kind other than unused", [-5, 0, 0, 0, 0, 0, 0], "a kind in [0, 13) or -1"),
    ("a player not in the game", [ev.DEAL, 9, -1, -1, -1, -1, 3], "a player in [0, 3)"),
    ("a card not in the deck", [ev.DEAL, 1, -1, -1, -1, -1, 500], "a card in [-1, 21)"),
    ("a suggester not in the game", [ev.SUGGEST, 7, 0, 6, 12, -1, -1], "a player in [0, 3)"),
    ("a weapon card that is a suspect", [ev.SUGGEST, 1, 0, 3, 12, -1, -1], "a weapon card in [6, 12)"),
    ("a room card beyond the deck", [ev.ACCUSE, 1, 0, 6, 30, 0, -1], "a room card in [12, 21)"),
    ("an accusation neither right nor wrong", [ev.ACCUSE, 1, 0, 6, 12, 7, -1], "correct of 0 or 1"),
    ("a pass for a suggester not in the game", [ev.PASS, 1, 9, -1, -1, -1, -1], "a suggester in [0, 3)"),
    ("a shown card not in the deck", [ev.SHOW, 1, 2, -1, -1, -1, 21], "a card in [-1, 21)"),
    ("a winner not in the game", [ev.GAME_OVER, 5, 0, 6, 12, 0, -1], "a GAME_OVER winner in [-1, 3)"),
]


@pytest.mark.parametrize(("what", "row", "accepted"), GARBAGE, ids=[g[0] for g in GARBAGE])
def test_a_garbage_row_is_refused_by_its_index_and_what_is_accepted(game, what, row, accepted):
    at = len(game) // 2
    events = np.insert(game, at, row, axis=0)
    with pytest.raises(ValueError) as error:
        deduce_from_events(CONFIG, 0, events)
    message = str(error.value)
    assert f"event row {at} {row}" in message and accepted in message


@pytest.mark.parametrize(
    ("what", "events", "message"),
    [
        ("floats", np.full((2, 7), 0.5), "integer array of shape (n, 7)"),
        ("strings", np.full((2, 7), "a"), "integer array of shape (n, 7)"),
        ("booleans", np.zeros((2, 7), bool), "integer array of shape (n, 7)"),
        ("six columns", np.zeros((2, 6), int), "got dtype int64 and shape (2, 6)"),
        ("one row, flat", np.zeros(7, int), "shape (7,)"),
        ("a uint64 beyond int64", np.full((1, 7), 2**64 - 1, np.uint64), "up to 2**63 - 1"),
    ],
)
def test_rows_that_are_not_an_event_array_are_refused(what, events, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        deduce_from_events(CONFIG, 0, events)


def test_out_of_order_rows_and_impossible_deals_name_the_row(game):
    first_suggestion = int(np.flatnonzero(game[:, ev.KIND] == ev.SUGGEST)[0])
    answers = np.isin(game[:, ev.KIND], (ev.PASS, ev.SHOW, ev.NO_REFUTE))
    answer = int(np.flatnonzero(answers)[0])
    early = np.insert(game, first_suggestion, game[answer], axis=0)  # an answer before any suggestion
    with pytest.raises(ValueError, match=rf"event row {first_suggestion} .*no suggestion before it"):
        deduce_from_events(CONFIG, 0, early)
    own = int(np.flatnonzero((game[:, ev.KIND] == ev.DEAL) & (game[:, ev.PLAYER] == 0))[0])
    twice = np.insert(game, own + 1, game[own], axis=0)
    with pytest.raises(ValueError, match=rf"event row {own + 1} .*deals player 0 a card it already holds"):
        deduce_from_events(CONFIG, 0, twice)
    others_card = int(game[(game[:, ev.KIND] == ev.DEAL) & (game[:, ev.PLAYER] == 1), ev.CARD][0])
    extra = np.insert(game, len(game), [ev.DEAL, 0, -1, -1, -1, -1, others_card], axis=0)
    with pytest.raises(ValueError, match=rf"event row {len(game)} .*more cards than its hand holds \(6\)"):
        deduce_from_events(CONFIG, 0, extra)
    hidden = np.insert(game, own, [ev.DEAL, 0, -1, -1, -1, -1, -1], axis=0)
    with pytest.raises(ValueError, match=rf"event row {own} .*deals player 0 no card"):
        deduce_from_events(CONFIG, 0, hidden)
    for bad in (3, -1, True, 1.0):
        with pytest.raises(ValueError, match=r"player must be an int in \[0, 3\)"):
            deduce_from_events(CONFIG, bad, game)


# ---------------------------------------------------------------------------
# Task files
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dev() -> list[dict]:
    return read_tasks(SPLITS["v2", "dev"].path())


def damaged_files(tmp_path, tasks) -> dict[str, object]:
    whole = tmp_path / "whole.jsonl.gz"
    write_tasks(tasks, whole)
    raw = whole.read_bytes()
    files = {
        "truncated": raw[: len(raw) // 2],
        "cut before its trailer": raw[:-4],
        "not gzip": b"id,version\nv2-dev-00000,v2\n",
        "a flipped byte": raw[:200] + bytes([raw[200] ^ 0xFF]) + raw[201:],
        "not UTF-8": gzip.compress(b'{"id": "\xff\xfe"}\n', mtime=0),
    }
    paths = {}
    for name, data in files.items():
        path = tmp_path / (name.replace(" ", "_") + ".jsonl.gz")
        path.write_bytes(data)
        paths[name] = path
    return paths


def test_a_damaged_task_file_is_refused_by_name(tmp_path, dev):
    for what, path in damaged_files(tmp_path, dev[:40]).items():
        with pytest.raises(ValueError, match="truncated or corrupt") as error:
            read_tasks(path)
        assert str(path) in str(error.value), what
        assert "gzip JSON Lines" in str(error.value)


def test_a_damaged_cached_split_is_refused_by_name(tmp_path, dev):
    cached = tmp_path / "v2" / "test.jsonl.gz"
    cached.parent.mkdir()
    cached.write_bytes(damaged_files(tmp_path, dev[:40])["truncated"].read_bytes())
    with pytest.raises(ValueError, match="truncated or corrupt") as error:
        load_split("v2", "test", cache=tmp_path, progress=False)
    assert str(cached) in str(error.value)


def test_a_damaged_cached_split_is_refused_with_the_command_that_replaces_it(tmp_path, dev):
    """The refusal said to run ``python -m experiments.reasoning_splits``, which stops without --version and
    --split: it gives the whole command, with the split and the cache folder the file is in. Not that
    command's ``--write``, which re-pins the package's checksum too: removing the file, the benchmark's
    command writes it again (without ``generate``, load_split cannot; with it, it does by itself)."""
    cached = tmp_path / "v1" / "test.jsonl.gz"
    cached.parent.mkdir()
    advice = (
        f"remove it: load_split with a generator writes it (python -m experiments.reasoning_bench version=v1 "
        f"split=test cache={tmp_path} does, before it scores)"
    )
    cached.write_bytes(damaged_files(tmp_path, dev[:40])["truncated"].read_bytes())
    with pytest.raises(ValueError, match="truncated or corrupt") as error:
        load_split("v1", "test", cache=tmp_path, progress=False)
    assert str(error.value).endswith(f"one task per line: {advice}")
    cached.write_bytes(gzip.compress(b'{"a": "' + b"x" * splits.MAX_LINE_BYTES + b'"}\n'))
    with pytest.raises(ValueError, match="longer than") as error:
        load_split("v1", "test", cache=tmp_path, progress=False)
    assert str(error.value).endswith(f"not a split's task file; {advice}")


def test_a_cached_split_nested_too_deeply_or_a_gzip_bomb_is_refused_by_line(tmp_path):
    """A cached split from elsewhere: a line of 100,000 '[' raised RecursionError, and a line of 64 MB
    (64 KB of gzip) was read whole, with json.loads, before the checksum was compared."""
    cached = tmp_path / "v1" / "test.jsonl.gz"
    cached.parent.mkdir()
    cached.write_bytes(gzip.compress(b"[" * 100_000 + b"\n"))
    with pytest.raises(ValueError, match="not JSON") as error:
        load_split("v1", "test", cache=tmp_path, progress=False)
    assert str(error.value).startswith(f"{cached}:1 is not JSON")
    with open(cached, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb") as out:
        for _ in range(64):
            out.write(b" " * 2**20)  # one line of 64 MB, never read whole
        out.write(b"{}\n")
    assert cached.stat().st_size < 2**17
    with pytest.raises(ValueError, match="longer than") as error:
        load_split("v1", "test", cache=tmp_path, progress=False)
    assert str(error.value).startswith(f"{cached}:1 is longer than {splits.MAX_LINE_BYTES} bytes")


def test_a_cached_split_of_other_tasks_is_refused_before_it_is_held(tmp_path, dev, monkeypatch):
    """Its checksum is compared as it is read, a task at a time: its tasks are never read whole (a
    file of many small tasks held them all first); a file past ``MAX_FILE_BYTES`` is refused by name."""
    cached = tmp_path / "v2" / "test.jsonl.gz"
    write_tasks(dev[:40], cached)

    def read_whole(path):
        raise AssertionError(f"{path} read whole before its checksum was compared")

    monkeypatch.setattr(splits, "read_tasks", read_whole)
    with pytest.raises(ValueError, match="checksum"):
        load_split("v2", "test", cache=tmp_path, progress=False)
    monkeypatch.undo()
    monkeypatch.setattr(splits, "MAX_FILE_BYTES", 100_000)  # (40 tasks are some 500 KB)
    with pytest.raises(ValueError, match="longer than 100000 bytes uncompressed") as error:
        read_tasks(cached)
    assert str(error.value).startswith(f"task file {cached} is longer")


# ---------------------------------------------------------------------------
# A solver's probabilities
# ---------------------------------------------------------------------------


def exact(task: dict) -> dict:
    answers = task["answers"]
    return {
        "facts": [f[:3] for f in answers["facts"]],
        "envelope": answers["envelope"],
        "probabilities": copy.deepcopy(answers["probabilities"]),
    }


def with_rows(task: dict, value_of) -> dict:
    answer = exact(task)
    answer["probabilities"] = {
        card: {owner: value_of(p) for owner, p in row.items()}
        for card, row in answer["probabilities"].items()
    }
    return answer


@pytest.mark.parametrize(
    "as_number",
    [np.float32, np.float64, np.longdouble, float, Fraction],
    ids=["float32", "float64", "longdouble", "float", "Fraction"],
)
def test_probabilities_of_any_real_type_are_read_as_given(dev, as_number):
    task = dev[3]
    score = score_answer(task, with_rows(task, as_number))
    assert score["rejected_rows"] == 0
    assert not [p for p in score["problems"] if "rejected" in p or "uniform" in p]
    assert score["excess_log_loss"] == pytest.approx(0, abs=1e-6)  # float32 rounding, no more


def test_numpy_booleans_and_integers_are_read_as_given(dev):
    task = dev[3]
    answer = exact(task)
    answer["facts"] = [[card, owner, np.bool_(holds)] for card, owner, holds in answer["facts"]]
    answer["probabilities"] = {
        card: {owner: np.int64(1) if p == 1 else p for owner, p in row.items()}
        for card, row in answer["probabilities"].items()
    }
    score = score_answer(task, answer)
    assert score["tp"] == score["certain"] == score["claimed"]
    assert score["rejected_rows"] == 0 and score["excess_log_loss"] == pytest.approx(0, abs=1e-12)


def test_a_row_whose_sum_overflows_is_rescaled_not_zeroed(dev):
    task = dev[3]
    answer = exact(task)
    for card, row in answer["probabilities"].items():  # each entry finite, the largest 1.7e308
        top = max(row.values())
        answer["probabilities"][card] = {owner: p / top * 1.7e308 for owner, p in row.items()}
    score = score_answer(task, answer)
    assert score["rejected_rows"] == 0
    assert sum("sum to inf: rescaled" in p for p in score["problems"]) > 5
    assert score["excess_log_loss"] == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), -0.25, 10**400, "0.5", True, None, [0.5]],
    ids=["nan", "inf", "negative", "huge int", "string", "bool", "None", "list"],
)
def test_a_bad_row_is_rejected_counted_and_scored_as_uniform(dev, value):
    task = dev[3]
    owners = task["players"] + ["envelope"]
    card = next(c for c, row in task["answers"]["probabilities"].items() if 0 < row["envelope"] < 1)
    bad = exact(task)
    bad["probabilities"][card] = {**bad["probabilities"][card], "player 0": value}
    uniform = exact(task)
    uniform["probabilities"][card] = {o: 1 / len(owners) for o in owners}
    score = score_answer(task, bad)
    assert score["rejected_rows"] == 1
    assert any(f"rejected probabilities of {card!r}" in p for p in score["problems"])
    assert "probability rows rejected, uniform used: 1" in score["problems"]
    assert len(max(score["problems"], key=len)) < 200  # a huge value is not copied whole into the report
    assert score["log_loss"] == score_answer(task, uniform)["log_loss"]
    summary = summarize([score, score], [1, 1], resamples=10)
    assert summary["problems"]["rejected_probability_rows"] == 2


def test_a_small_run_samples_the_splits_mix_of_tiers():
    from collections import Counter

    from cluedo_env.reasoning.splits import SPLITS, read_tasks, sample_tasks

    tasks = read_tasks(SPLITS["v2", "dev"].path())
    mix = Counter(task["tier"] for task in tasks)
    drawn = sample_tasks(tasks, 50, seed=3)
    assert len(drawn) == 50 and len({task["id"] for task in drawn}) == 50
    got = Counter(task["tier"] for task in drawn)
    for tier, count in mix.items():  # each tier its share, to within one task
        assert abs(got[tier] - 50 * count / len(tasks)) < 1
    order = {task["id"]: k for k, task in enumerate(tasks)}
    assert [order[t["id"]] for t in drawn] == sorted(order[t["id"]] for t in drawn)
    assert sample_tasks(tasks, 50, seed=3) == drawn and sample_tasks(tasks, 50, seed=4) != drawn
    first = Counter(task["tier"] for task in tasks[:50])
    assert first != got  # what limit= took before: the first tasks, another mix
    assert sample_tasks(tasks[:7], 10) == tasks[:7]
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        sample_tasks(tasks, 0)


def test_a_game_cut_while_a_suggestion_is_answered_is_refused():
    """Its passes are facts (the task's own text shows them) that the history cannot state: the answer key
    left them out, and a solver that counted them lost points for facts the text gave it."""
    config = core.GameConfig(num_players=4, board="none")
    state = core.init(config, [0])
    log = [state.events[0, : state.num_events[0]].copy()]
    while int(state.phase[0]) != core.Phase.REFUTE:
        before = np.concatenate(log).astype(np.int64)
        # a suggestion first, else the first legal action (no accusation: the game goes on)
        legal = np.flatnonzero(core.legal_action_mask(state)[0])
        layout = core.ActionLayout(config)
        suggest = legal[(legal >= layout.SUGGEST) & (legal < layout.SUGGEST + layout.sizes["suggest"])]
        state = core.step(state, np.array([int(suggest[0] if len(suggest) else legal[0])]))
        log.append(state.events[0, : state.num_events[0]].copy())
    events = np.concatenate(log).astype(np.int64)
    refuter = int(state.current_player[0])
    with pytest.raises(ValueError, match="while a suggestion is being answered"):
        make_task(config, refuter, events, version="v1")
    with pytest.raises(ValueError, match="while a suggestion is being answered"):
        make_task(config, refuter, events, version="v2", state=state)
    assert make_task(config, refuter, before, version="v1")["answers"]["facts"]  # cut before the suggestion
