"""Uploading a replay to the web app (``POST /api/replays``, experiments/web/upload.py): a good record
is kept under a generated name and can be watched; untrusted bad ones are refused with a 4xx naming
what was wrong, and leave nothing behind.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi", reason="the web app needs the web extra: pip install -e '.[web]'")
from fastapi.testclient import TestClient

from cluedo_env import core
from cluedo_env.replay import load_jsonl, record_random_game
from experiments.web.app import create_app
from experiments.web.upload import MAX_UPLOAD_BYTES


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "replays"


@pytest.fixture
def client(folder):
    return TestClient(create_app(folder))


@pytest.fixture
def good(tmp_path):
    """A finished 3-player game played by random legal actions, written by the project's recorder."""
    path = tmp_path / "good.jsonl"
    record_random_game(core.GameConfig(num_players=3), seed=21, path=path, rng_seed=4)
    return path


def test_a_good_replay_is_kept_under_a_generated_name_and_can_be_watched(client, folder, good):
    response = client.post("/api/replays", content=good.read_bytes())
    assert response.status_code == 200, response.text
    name = response.json()["replay"]
    assert re.fullmatch(r"upload-[0-9a-f]{16}\.jsonl", name)
    assert (folder / name).read_bytes() == good.read_bytes()
    assert client.get("/api/replays").json()["replays"] == [name]
    record = load_jsonl(good)
    last = client.get(f"/api/replays/{name}", params={"step": record.num_steps}).json()
    assert last["over"] and last["steps"] == record.num_steps and len(last["players"]) == 3
    seat = client.get(f"/api/replays/{name}", params={"step": 5, "seat": 2}).json()
    assert seat["viewer"] == 2 and seat["beliefs"] is not None and "envelope" not in seat
    again = client.post("/api/replays", content=good.read_bytes()).json()["replay"]
    assert again == name and client.get("/api/replays").json()["replays"] == [
        name
    ]  # the same file, kept once


def test_uploads_past_the_folders_limit_are_refused_and_leave_nothing(
    client, folder, good, tmp_path, monkeypatch
):
    import experiments.web.upload as upload

    monkeypatch.setattr(upload, "MAX_UPLOADS", 1)
    kept = client.post("/api/replays", content=good.read_bytes()).json()["replay"]
    other = tmp_path / "other.jsonl"
    record_random_game(core.GameConfig(num_players=3), seed=22, path=other, rng_seed=4)
    response = client.post("/api/replays", content=other.read_bytes())
    assert response.status_code == 507 and "the most it keeps (1)" in response.json()["detail"]
    assert [p.name for p in folder.iterdir()] == [kept]
    assert client.post("/api/replays", content=good.read_bytes()).json()["replay"] == kept  # kept already


def test_uploads_checked_at_once_keep_no_more_than_the_limit(folder, tmp_path, monkeypatch):
    """Each upload is checked on a thread of its own: the count is taken again, under a lock, when one is kept."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import experiments.web.upload as upload

    monkeypatch.setattr(upload, "MAX_UPLOADS", 2)
    all_checking = threading.Barrier(6, timeout=60)
    check = upload.verify

    def slow_check(record):  # every upload is being checked before any is kept
        check(record)
        all_checking.wait()

    monkeypatch.setattr(upload, "verify", slow_check)
    files = []
    for seed in range(6):
        path = tmp_path / f"game{seed}.jsonl"
        record_random_game(core.GameConfig(num_players=3), seed=30 + seed, path=path, rng_seed=4)
        files.append(path.read_bytes())

    def keep(data: bytes) -> str:
        try:
            return upload.store_upload(folder, data)
        except upload.UploadRefused as refused:
            return str(refused.status)

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(keep, files))
    assert answers.count("507") == 4 and len(list(folder.glob("upload-*.jsonl"))) == 2
    assert not list(folder.glob(".upload-*"))  # no part left behind


def _illegal_step(good, tmp_path):
    """The good record with one action changed to an illegal one, written with a fresh digest."""
    record = load_jsonl(good)
    assert record.actions[0] == 0  # the first player rolls from a start square
    record.actions[0] = 1  # a secret passage instead: there is none outside a room
    path = tmp_path / "illegal.jsonl"
    record.to_jsonl(path)
    return path.read_bytes()


def _other_board(tmp_path):
    path = tmp_path / "noboard.jsonl"
    record_random_game(core.GameConfig(num_players=3, board="none"), seed=3, path=path)
    return path.read_bytes()


@pytest.mark.parametrize(
    ("make", "status", "named"),
    [
        (lambda good, tmp: b"", 400, ["the upload is empty"]),
        (lambda good, tmp: b"hello, not json\n", 400, ["line 1: not JSON", "cluedo-replay"]),
        (lambda good, tmp: b'[1, 2, 3]\n{"end": 1}\n', 400, ["line 1: not a cluedo-replay header"]),
        (lambda good, tmp: b"\n".join(good.read_bytes().splitlines()[:-1]) + b"\n", 400, ["incomplete"]),
        (
            lambda good, tmp: good.read_bytes().replace(b'"action_text":"roll"', b'"action_text":"rool"', 1),
            400,
            ["altered", "sha256"],
        ),
        (_illegal_step, 400, ["step 0", "cannot be replayed", "illegal action 1 (passage)"]),
        (lambda good, tmp: _other_board(tmp), 400, ["classic board", "board 'none'"]),
        (lambda good, tmp: b"x" * (MAX_UPLOAD_BYTES + 1), 413, [f"at most {MAX_UPLOAD_BYTES} bytes"]),
    ],
    ids=["empty", "not_json", "wrong_shape", "cut", "edited", "illegal_action", "other_board", "too_big"],
)
def test_a_bad_upload_is_refused_naming_what_is_wrong_and_leaves_nothing(
    client, folder, good, tmp_path, make, status, named
):
    response = client.post("/api/replays", content=make(good, tmp_path))
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    for words in named:
        assert words in detail, detail
    assert str(folder) not in detail  # the server's paths stay its own
    assert not folder.exists() or list(folder.iterdir()) == []
    assert client.get("/api/replays").json()["replays"] == []


def test_an_upload_without_a_length_is_cut_off_at_the_limit(client, folder):
    def body():
        for _ in range(MAX_UPLOAD_BYTES // 2**16 + 2):
            yield b"y" * 2**16

    response = client.post("/api/replays", content=body())
    assert response.status_code == 413 and "over the limit" in response.json()["detail"]
    assert not folder.exists() or list(folder.iterdir()) == []


def test_a_record_of_another_edition_is_refused(client, folder, tmp_path):
    path = tmp_path / "fr.jsonl"
    record_random_game(core.GameConfig(num_players=3, edition="classic_fr_1999"), seed=2, path=path)
    response = client.post("/api/replays", content=path.read_bytes())
    assert response.status_code == 400
    assert "classic edition" in response.json()["detail"] and "'classic_fr_1999'" in response.json()["detail"]
    assert not folder.exists() or list(folder.iterdir()) == []
