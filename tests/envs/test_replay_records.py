"""Damaged game records: a cut file is incomplete, a changed one altered, and ``--verify`` says which."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cluedo_env import core, game_record
from cluedo_env.replay import (
    AlteredRecord,
    GameRecorder,
    IncompleteRecord,
    load_jsonl,
    main,
    record_random_game,
    verify,
)
from tests.conftest import ROOT

CONFIG = core.GameConfig(num_players=3, max_turns=30)


def finished_record(path: Path) -> Path:
    """A finished random game's record, written at ``path``."""
    record = record_random_game(CONFIG, seed=7, path=path, rng_seed=2)
    assert record.finished and record.num_steps > 5
    return path


@pytest.fixture
def finished(tmp_path) -> Path:
    return finished_record(tmp_path / "game.jsonl")


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def with_end_line(body: list[bytes], steps: int, finished: bool) -> bytes:
    """What a forger who rewrites the end line writes: the lines and a matching end line."""
    data = b"".join(body)
    end = {"end": {"steps": steps, "finished": finished, "sha256": hashlib.sha256(data).hexdigest()}}
    return data + json.dumps(end).encode() + b"\n"


def verify_says(path: Path, capsys) -> tuple[int, str]:
    status = main([str(path), "--verify"])
    return status, capsys.readouterr().out


def test_a_whole_record_verifies(finished, capsys):
    status, out = verify_says(finished, capsys)
    assert status == 0 and out.startswith(f"{finished}: verified: ")
    assert "the game ended" in out or "the game was truncated" in out


@pytest.mark.parametrize("keep", [1, 2, -1])
def test_a_record_cut_at_a_line_boundary_is_incomplete(finished, keep, capsys):
    lines = lines_of(finished)
    finished.write_bytes(b"".join(lines[:keep]))  # the header alone, one step, every step but no end line
    with pytest.raises(IncompleteRecord, match=r"incomplete: .* no end line"):
        load_jsonl(finished)
    status, out = verify_says(finished, capsys)
    assert status == 1 and out.startswith(f"{finished}: incomplete: ")


def test_a_record_cut_inside_a_line_is_incomplete(finished, capsys):
    data = finished.read_bytes()
    finished.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(IncompleteRecord, match="cut short"):
        load_jsonl(finished)
    assert verify_says(finished, capsys)[0] == 1


def test_a_changed_or_removed_step_line_is_altered(finished, capsys):
    lines = lines_of(finished)
    entry = json.loads(lines[3])
    entry["action"] += 1
    changed = [*lines[:3], json.dumps(entry, separators=(",", ":")).encode() + b"\n", *lines[4:]]
    finished.write_bytes(b"".join(changed))
    with pytest.raises(AlteredRecord, match=r"altered: .*sha256"):
        load_jsonl(finished)
    status, out = verify_says(finished, capsys)
    assert status == 1 and "altered" in out
    finished.write_bytes(b"".join([*lines[:3], *lines[4:]]))  # a step removed
    with pytest.raises(AlteredRecord, match="altered"):
        load_jsonl(finished)


def test_steps_after_the_game_ended_are_altered(finished, capsys):
    lines = lines_of(finished)
    steps = len(lines) - 2
    last = json.loads(lines[-2])
    extra = {**last, "step": steps, "events": []}
    after_end = [*lines, json.dumps(extra).encode() + b"\n"]  # appended after the end line
    finished.write_bytes(b"".join(after_end))
    with pytest.raises(AlteredRecord, match="a line after the end line"):
        load_jsonl(finished)
    # The end line rewritten to cover the extra step: the digest matches, the rules do not.
    finished.write_bytes(with_end_line([*lines[:-1], json.dumps(extra).encode() + b"\n"], steps + 1, True))
    with pytest.raises(AlteredRecord, match=rf"^step {steps}: recorded after the game ended"):
        verify(load_jsonl(finished))
    status, out = verify_says(finished, capsys)
    assert status == 1 and "altered" in out and "after the game ended" in out


def test_a_shortened_record_that_claims_to_be_finished_is_altered(finished):
    lines = lines_of(finished)
    finished.write_bytes(with_end_line(lines[:-3], len(lines) - 4, True))
    with pytest.raises(AlteredRecord, match=r"says the game is finished .* the replay is still running"):
        verify(load_jsonl(finished))


def test_a_game_saved_while_running_verifies_as_unfinished(tmp_path, capsys):
    recorder = GameRecorder(CONFIG, seed=3)
    state = core.init(CONFIG, [3])
    for _ in range(12):
        action = int(core.legal_action_mask(state)[0].argmax())
        core.step(state, [action])
        recorder.append(action, state)
    assert not state.done[0]
    path = tmp_path / "running.jsonl"
    recorder.to_jsonl(path)
    record = load_jsonl(path)
    assert not record.finished and record.num_steps == 12
    verify(record)
    status, out = verify_says(path, capsys)
    assert status == 0 and "12 steps" in out and "still running" in out


def test_cli_verify_from_the_shell(finished):
    data = finished.read_bytes()
    finished.write_bytes(data[: data.rindex(b'{"end"')])
    done = subprocess.run([sys.executable, "-m", "cluedo_env.replay", str(finished), "--verify"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1 and "incomplete" in done.stdout


@pytest.mark.parametrize(
    "damage",
    [
        lambda end: end.replace(b'{"end"', b'{"enD"'),
        lambda end: end[1:],  # its first byte removed
        lambda end: end.replace(b'"finished":true', b'"finished":tru'),  # not JSON
        lambda end: end.replace(b"}}", b'},"signed":1}'),  # a field more: not an end line
    ],
    ids=["a key changed", "the first byte removed", "not JSON", "a field more"],
)
def test_a_damaged_end_line_is_altered_not_cut(finished, damage, capsys):
    lines = lines_of(finished)
    finished.write_bytes(b"".join([*lines[:-1], damage(lines[-1])]))
    with pytest.raises(AlteredRecord, match=rf"line {len(lines)}: altered: no end line.* not cut"):
        load_jsonl(finished)
    status, out = verify_says(finished, capsys)
    assert status == 1 and "altered" in out and "incomplete" not in out


@pytest.mark.parametrize("keep", [1, 20, -1], ids=["its first byte", "20 bytes", "all but its line break"])
def test_a_record_cut_inside_its_end_line_is_incomplete(finished, keep, capsys):
    lines = lines_of(finished)
    finished.write_bytes(b"".join(lines[:-1]) + lines[-1][:keep].rstrip(b"}\n"))
    with pytest.raises(IncompleteRecord, match="cut short"):
        load_jsonl(finished)
    assert verify_says(finished, capsys)[0] == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda header: header[1:],  # not JSON
        lambda header: header.replace(b'"version":2', b'"version":3'),
        lambda header: header.replace(b'"format":"cluedo-replay"', b'"format":"cluedo-replaz"'),
    ],
    ids=["not JSON", "another version", "another format"],
)
def test_a_damaged_header_before_an_intact_end_line_is_altered(finished, damage, capsys):
    lines = lines_of(finished)
    finished.write_bytes(b"".join([damage(lines[0]), *lines[1:]]))
    with pytest.raises(AlteredRecord, match=r"line 1: altered: .*do not match its sha256 digest"):
        load_jsonl(finished)
    status, out = verify_says(finished, capsys)
    assert status == 1 and "altered" in out
    finished.write_bytes(b"".join([damage(lines[0]), *lines[1:-1]]))  # no end line: not a record
    with pytest.raises(ValueError, match=r"line 1: ") as raised:
        load_jsonl(finished)
    assert not isinstance(raised.value, AlteredRecord | IncompleteRecord)
    assert verify_says(finished, capsys)[0] == 2


def test_the_format_described_is_the_format_written(finished):
    header = json.loads(lines_of(finished)[0])
    assert f'"version": {header["version"]}, "config"' in game_record.__doc__
