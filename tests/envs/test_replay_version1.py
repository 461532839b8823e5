"""Version-1 records (cluedo-env 0.1.0, no end line): read as they are, replayed and checked step by step.

Each record here is a version-2 record of a short game turned into version 1 as 0.1.0 wrote it: the
end line dropped and ``"version": 1`` in the header.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluedo_env.replay import (
    VERSION_1_NOTE,
    AlteredRecord,
    IncompleteRecord,
    load_jsonl,
    main,
    replay,
    verify,
)
from experiments.web.upload import UploadRefused, store_upload
from tests.envs.test_replay_records import finished_record, lines_of


@pytest.fixture
def version_2(tmp_path) -> Path:
    """A finished random game's record, as this code writes it (version 2)."""
    return finished_record(tmp_path / "game-v2.jsonl")


def as_version_1(lines: list[bytes]) -> list[bytes]:
    """A version-2 record's lines as 0.1.0 wrote them: no end line, version 1 in the header."""
    assert lines[-1].startswith(b'{"end"') and b'"version":2,' in lines[0]
    return [lines[0].replace(b'"version":2,', b'"version":1,'), *lines[1:-1]]


@pytest.fixture
def version_1(version_2) -> Path:
    path = version_2.with_name("game-v1.jsonl")
    path.write_bytes(b"".join(as_version_1(lines_of(version_2))))
    return path


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    said = capsys.readouterr()
    return status, said.out, said.err


def test_a_version_1_record_loads_replays_and_verifies(version_1, version_2, capsys):
    old, new = load_jsonl(version_1), load_jsonl(version_2)
    assert old.finished is None and new.finished is True  # version 1 does not say whether the game was over
    assert (old.config, old.seed, old.players, old.actions) == (
        new.config,
        new.seed,
        new.players,
        new.actions,
    )
    assert all((a == b).all() for a, b in zip(old.events, new.events, strict=True))
    assert verify(old).done[0] and len(list(replay(old))) == old.num_steps + 1
    status, out, _ = run([str(version_1), "--verify"], capsys)
    assert status == 0 and out.startswith(f"{version_1}: verified: {old.num_steps} steps; ")
    assert out.count(VERSION_1_NOTE) == 1
    status, out, err = run([str(version_1)], capsys)  # the transcript, as the version-2 record's
    assert status == 0 and out == run([str(version_2)], capsys)[1]
    assert err == f"warning: {version_1}: {VERSION_1_NOTE}\n"
    assert VERSION_1_NOTE not in run([str(version_2), "--verify"], capsys)[1]


def test_a_version_1_record_with_an_altered_event_is_refused_naming_the_step(version_1, capsys):
    lines = lines_of(version_1)
    entry = json.loads(lines[4])  # step 3
    assert entry["step"] == 3 and entry["events"]
    entry["events"][0][-1] += 1
    lines[4] = json.dumps(entry, separators=(",", ":")).encode() + b"\n"
    version_1.write_bytes(b"".join(lines))
    record = load_jsonl(version_1)  # no digest to tell: the replay does
    with pytest.raises(AlteredRecord, match=r"^step 3: events differ from the record at event 0"):
        verify(record)
    status, out, _ = run([str(version_1), "--verify"], capsys)
    assert status == 1 and out.startswith(f"{version_1}: altered: step 3: events differ")
    status, _, err = run([str(version_1)], capsys)
    assert status == 2 and "step 3: events differ" in err


def test_a_version_1_record_cut_at_a_line_boundary_reads_as_a_shorter_game(version_1, capsys):
    lines = lines_of(version_1)
    version_1.write_bytes(b"".join(lines[:5]))  # the header and 4 steps: nothing tells that more followed
    assert load_jsonl(version_1).num_steps == 4
    status, out, _ = run([str(version_1), "--verify"], capsys)
    assert status == 0 and "4 steps; the game is still running after the last step" in out
    assert VERSION_1_NOTE in out


def test_a_version_1_record_cut_inside_a_line_is_incomplete(version_1, capsys):
    lines = lines_of(version_1)
    version_1.write_bytes(b"".join(lines[:5]) + lines[5][:20])
    with pytest.raises(
        IncompleteRecord, match=r"incomplete: 6 lines, the last one cut short .* after 4 whole"
    ):
        load_jsonl(version_1)
    status, out, _ = run([str(version_1), "--verify"], capsys)
    assert status == 1 and "incomplete" in out


def test_an_end_line_in_a_version_1_record_is_altered(version_2, capsys):
    lines = lines_of(version_2)
    version_2.write_bytes(b"".join([lines[0].replace(b'"version":2,', b'"version":1,'), *lines[1:]]))
    with pytest.raises(
        AlteredRecord, match=rf"line {len(lines)}: altered: an end line in a version-1 record"
    ):
        load_jsonl(version_2)
    assert run([str(version_2), "--verify"], capsys)[0] == 1


@pytest.mark.parametrize("version", [b"0", b"3", b"true", b'"1"'])
def test_versions_other_than_1_and_2_are_refused(version_1, version, capsys):
    lines = lines_of(version_1)
    version_1.write_bytes(
        b"".join([lines[0].replace(b'"version":1,', b'"version":' + version + b","), *lines[1:]])
    )
    with pytest.raises(ValueError, match=r"line 1: version .* is not supported; expected 2, or 1") as raised:
        load_jsonl(version_1)
    assert not isinstance(raised.value, AlteredRecord | IncompleteRecord)
    assert run([str(version_1), "--verify"], capsys)[0] == 2


def test_a_version_1_record_is_written_as_version_2_once_its_end_is_known(version_1, version_2, tmp_path):
    record = load_jsonl(version_1)
    with pytest.raises(ValueError, match="finished is None"):
        record.to_jsonl(tmp_path / "again.jsonl")
    assert not (tmp_path / "again.jsonl").exists()
    record.finished = bool(verify(record).done[0])
    record.to_jsonl(tmp_path / "again.jsonl")
    assert (tmp_path / "again.jsonl").read_bytes() == version_2.read_bytes()


def test_the_web_page_keeps_an_uploaded_version_1_record_and_refuses_an_altered_one(version_1, tmp_path):
    folder = tmp_path / "replays"
    assert store_upload(folder, version_1.read_bytes()).startswith("upload-")
    lines = lines_of(version_1)
    entry = json.loads(lines[2])
    entry["events"][0][-1] += 1
    lines[2] = json.dumps(entry, separators=(",", ":")).encode() + b"\n"
    with pytest.raises(UploadRefused, match=r"step 1: events differ"):
        store_upload(folder, b"".join(lines))
