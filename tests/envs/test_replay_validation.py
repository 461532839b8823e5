"""A forged replay (its digest recomputed) with a value of the wrong type or range is altered, never replayed.

Each forgery changes one value of a real record and rewrites the end line to match, as someone who
knows the format would: the digest no longer helps, so the values themselves must be checked.
``--verify`` then says "altered" and why (exit status 1), never crashes, and never takes a value
for another (a seed of 7.9 for 7, an event of 65,670 for 134). The controls show that the same
forgery with a well-formed value verifies: the rejection is the value's.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.replay import AlteredRecord, load_jsonl, main, record_random_game, verify

CONFIG = core.GameConfig(num_players=3, max_turns=30)
SEED = 7


@pytest.fixture
def record(tmp_path) -> Path:
    """A finished random game's record (seed 7)."""
    path = tmp_path / "game.jsonl"
    assert record_random_game(CONFIG, seed=SEED, path=path, rng_seed=2).finished
    return path


def body_of(path: Path) -> list[bytes]:
    """The header and step lines (the end line left out)."""
    return path.read_bytes().splitlines(keepends=True)[:-1]


def forge(path: Path, body: list[bytes], finished: bool = True, **end: object) -> None:
    """Write ``body`` with an end line that matches it (``end`` overrides its fields)."""
    data = b"".join(body)
    fields = {"steps": len(body) - 1, "finished": finished, "sha256": hashlib.sha256(data).hexdigest(), **end}
    path.write_bytes(data + json.dumps({"end": fields}).encode() + b"\n")


def replaced(line: bytes, old: str, new: str) -> bytes:
    assert line.count(old.encode()) == 1, (line, old)
    return line.replace(old.encode(), new.encode())


def verify_says(path: Path, capsys) -> tuple[int, str]:
    status = main([str(path), "--verify"])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def step_line(body: list[bytes], step: int) -> dict:
    return json.loads(body[step + 1])


# -- the two forgeries ------------------------------------------------------------------------


def test_an_action_of_1e400_is_altered_not_an_overflow(record, capsys):
    body = body_of(record)
    action = step_line(body, 1)["action"]
    body[2] = replaced(body[2], f'"action":{action},', '"action":1e400,')
    forge(record, body)
    with pytest.raises(
        AlteredRecord, match=r"line 3: altered: .*action must be an integer in \[0, \d+\), got inf"
    ):
        load_jsonl(record)
    status, said = verify_says(record, capsys)
    assert status == 1 and "altered" in said and "got inf" in said and "Traceback" not in said


def test_a_seed_of_7_9_is_altered_not_seed_7(record, capsys):
    body = body_of(record)
    body[0] = replaced(body[0], f'"seed":{SEED},', '"seed":7.9,')
    forge(record, body)
    with pytest.raises(
        AlteredRecord, match=r"line 1: altered: bad header \(seed must be an integer .*got 7\.9\)"
    ):
        load_jsonl(record)
    status, said = verify_says(record, capsys)
    assert status == 1 and "got 7.9" in said


def test_control_the_same_forgery_with_a_whole_seed_verifies(record, capsys):
    """Rewriting the line and the end line is not what is refused: an integer seed of 7 verifies."""
    body = body_of(record)
    body[0] = replaced(body[0], f'"seed":{SEED},', f'"seed": {SEED},')  # the line changed, the value kept
    forge(record, body)
    assert verify_says(record, capsys)[0] == 0


@pytest.mark.parametrize("seed", ["7.0", "true", '"7"', "-1", str(2**63), "1e400", "null", "[7]"])
def test_a_seed_that_is_not_an_integer_in_range_is_altered(record, seed):
    body = body_of(record)
    body[0] = replaced(body[0], f'"seed":{SEED},', f'"seed":{seed},')
    forge(record, body)
    with pytest.raises(
        AlteredRecord, match=r"bad header \(seed must be an integer in \[0, 9223372036854775808\)"
    ):
        load_jsonl(record)


# -- every field of a step ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("action", "-1", r"action must be an integer in \[0, \d+\), got -1"),
        ("action", str(2**64), r"action must be an integer .*got 18446744073709551616"),
        ("action", "1.0", r"action must be an integer .*got 1\.0"),
        ("action", '"7"', r"action must be an integer .*got '7'"),
        ("action", "true", r"action must be an integer .*got True"),
        ("action", "9" * 5000, r"not JSON \(ValueError: .*digits"),
        ("player", "1.0", r"player must be an integer in \[0, 3\), got 1\.0"),
        ("player", "true", r"player must be an integer .*got True"),
        ("player", "3", r"player must be an integer in \[0, 3\), got 3"),
        ("step", "1.0", r"step 1\.0 out of order, expected step 1"),
        ("step", '"1"', r"step '1' out of order"),
        ("action_text", '"accuse Plum, Rope, Study"', r"action_text 'accuse Plum, Rope, Study' is not the text of action"),
    ],
)  # fmt: skip
def test_a_step_value_of_the_wrong_type_or_range_is_altered(record, capsys, field, value, message):
    body = body_of(record)
    old = json.dumps(step_line(body, 1)[field])
    body[2] = replaced(body[2], f'"{field}":{old}', f'"{field}":{value}')
    forge(record, body)
    with pytest.raises(AlteredRecord, match=rf"line 3: altered: bad step \({message}"):
        load_jsonl(record)
    status, said = verify_says(record, capsys)
    assert status == 1 and "altered" in said


def test_an_event_beyond_int16_is_altered_not_wrapped(record):
    body = body_of(record)
    entry = step_line(body, 1)
    row = entry["events"][0]
    column = next(c for c, value in enumerate(row) if value > 0)
    wrapped = [*row[:column], row[column] + 2**16, *row[column + 1 :]]
    # The control: read as int64 and cast to int16, the forged value becomes the true one again.
    assert np.asarray([wrapped], dtype=np.int64).astype(np.int16).tolist() == [row]
    entry["events"][0] = wrapped
    body[2] = json.dumps(entry, separators=(",", ":")).encode() + b"\n"
    forge(record, body)
    with pytest.raises(AlteredRecord, match=rf"row 0, column {column} is {row[column] + 2**16}"):
        load_jsonl(record)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ("0", "got 0"),
        ("{}", "got {}"),
        ('"abc"', "got 'abc'"),
        ("[[1, 2, 3]]", "row 0 is \\[1, 2, 3\\]"),
        ("[[3, 1, 5, 3, 8, -1, 1.5]]", "row 0, column 6 is 1.5"),
        ("[[3, 1, 5, 3, 8, -1, true]]", "row 0, column 6 is True"),
    ],
)
def test_events_that_are_not_rows_of_int16_are_altered(record, events, message):
    body = body_of(record)
    entry = step_line(body, 0)
    text = json.dumps(entry, separators=(",", ":"))
    old = json.dumps(entry["events"], separators=(",", ":"))
    body[1] = replaced(text.encode() + b"\n", f'"events":{old}', f'"events":{events}')
    forge(record, body)
    with pytest.raises(
        AlteredRecord,
        match=rf"line 2: altered: bad step \(events: events must be a list of rows of 7 integers in \[-32768, 32767\].* {message}",
    ):
        load_jsonl(record)


def test_a_step_with_a_field_more_or_less_is_altered(record):
    body = body_of(record)
    entry = step_line(body, 0)
    for changed in ({**entry, "note": "hello"}, {k: v for k, v in entry.items() if k != "action_text"}):
        forge(record, [body[0], json.dumps(changed).encode() + b"\n", *body[2:]])
        with pytest.raises(
            AlteredRecord, match=r"line 2: altered: bad step \(a step line is a JSON object of the fields"
        ):
            load_jsonl(record)
    forge(
        record, [body[0], b"[" * 100_000 + b"]" * 100_000 + b"\n", *body[2:]]
    )  # deeper than the parser goes
    with pytest.raises(AlteredRecord, match=r"line 2: altered: bad step \(not JSON \(RecursionError"):
        load_jsonl(record)


# -- the header and the end line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"num_players":3', '"num_players":3.0', "num_players"),
        ('"max_turns":30', '"max_turns":true', "max_turns"),
        ('"config":{', '"note":1,"config":{', "the header's fields are"),
        ('"edition":"classic"', '"edition":{"name":"x"}', "config edition must have the fields"),
        ('"initial_events":[[0,0,', '"initial_events":[[0.0,0,', "initial_events: .*row 0, column 0 is 0.0"),
    ],
)
def test_a_header_value_of_the_wrong_type_is_altered(record, old, new, message):
    body = body_of(record)
    body[0] = replaced(body[0], old, new)
    forge(record, body)
    with pytest.raises(AlteredRecord, match=rf"line 1: altered: bad header \(.*{message}"):
        load_jsonl(record)


def test_a_version_of_2_0_is_not_version_2(record, capsys):
    body = body_of(record)
    body[0] = replaced(body[0], '"version":2', '"version":2.0')
    forge(record, body)
    with pytest.raises(ValueError, match=r"line 1: version 2\.0 is not supported; expected 2"):
        load_jsonl(record)
    assert verify_says(record, capsys)[0] == 2


@pytest.mark.parametrize(
    "end",
    [{"steps": True}, {"steps": 1.0}, {"finished": "yes"}, {"signed": "by me"}],
    ids=["steps true", "steps a float", "finished a string", "a field more"],
)
def test_an_end_line_of_the_wrong_types_is_altered(record, end):
    body = body_of(record)[:2]  # the header and one step: a step count of 1, which equals True and 1.0
    forge(record, body, **{"finished": False, **end})
    with pytest.raises(AlteredRecord, match=r"line 3: altered: the end line says"):
        load_jsonl(record)
    forge(record, body, finished=False)  # the control: the same lines with a well-formed end line
    verify(load_jsonl(record))


# -- card names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelled", "shown"),
    [
        (r"Dining\nRoom", r"'Dining\\nRoom' \(U\+000A"),  # a line of its own in the transcript
        (r"Dining\u001b[2J\u001b[HRoom", r"'Dining\\x1b\[2J\\x1b\[HRoom' \(U\+001B"),  # clears the screen
        (r"\u202eDining Room", r"'\\u202eDining Room' \(U\+202E"),  # prints the rest backwards
    ],
)
def test_a_card_name_with_a_control_character_is_refused_not_printed(tmp_path, capsys, spelled, shown):
    """A record spells a custom edition out: the issue's record named a room ``Dining\\nRoom``, which
    split the printed transcript's line (a name like ``Hall\\n2: P1 wins`` would forge one), and ESC
    sequences that cleared the terminal. Every line of this one is forged consistently (the name in
    the header and in each step's action text, the digest recomputed), so only the name is wrong."""
    edition = core.Edition(
        name="small",
        suspects=("Red", "Blue", "Green"),
        weapons=("Rope", "Knife"),
        rooms=("Hall", "Dining Room", "Attic"),
        weapon_start_rooms=(0, 1),
    )
    path = tmp_path / "game.jsonl"
    record_random_game(core.GameConfig(edition=edition, board="none", num_players=3), seed=SEED, path=path)
    body = [line.replace(b"Dining Room", spelled.encode()) for line in body_of(path)]
    assert body != body_of(path)
    forge(path, body)
    with pytest.raises(
        AlteredRecord, match=rf"line 1: altered: bad header \(Edition 'small': rooms\[1\] .*{shown}"
    ):
        load_jsonl(path)
    status = main([str(path)])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert "rooms[1] must hold no control character" in captured.err and "Traceback" not in captured.err
    assert "\x1b" not in captured.err and "\u202e" not in captured.err and captured.err.count("\n") == 1
    assert verify_says(path, capsys)[0] == 1
