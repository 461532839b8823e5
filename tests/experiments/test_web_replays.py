"""The replay folder of the web app (``--replays``): a finished game's replay is written whole or not at
all, and a file there that the page cannot show is refused when opened, naming the file, not the folder.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web app needs the web extra: pip install -e '.[web]'")
from fastapi.testclient import TestClient

from cluedo_env import core
from cluedo_env.game_record import GameRecorder
from cluedo_env.replay import record_random_game
from experiments.web.app import create_app


def play_to_the_end(client: TestClient, settings: dict) -> dict:
    """A game through the API, the person taking the first legal action that is no accusation -> the end view."""
    view = client.post("/api/games", json=settings).json()
    while not view["over"]:
        calm = [a for a in view["legal"] if a["kind"] != "accuse"] or view["legal"]
        request = {"action": calm[0]["id"], "step": view["step"]}
        view = client.post(f"/api/games/{view['game']}/actions", json=request).json()
    return view


def test_a_replay_write_cut_short_leaves_no_replay(tmp_path, monkeypatch):
    """A full disk cut the replay's write: the cut file stayed listed under its game's name, and opening
    it answered 400 naming the server's folder."""
    write = GameRecorder.to_jsonl

    def disk_full(recorder, path):  # half of the file written, then no space left
        write(recorder, path)
        data = Path(path).read_bytes()
        Path(path).write_bytes(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(GameRecorder, "to_jsonl", disk_full)
    folder = tmp_path / "replays"
    client = TestClient(create_app(folder))
    end = play_to_the_end(client, {"agents": ["notepad", "notepad"], "seed": 3})
    assert end["replay"] is None
    assert end["save_error"] == "the replay could not be written: No space left on device"
    assert client.get("/api/replays").json()["replays"] == []
    assert list(folder.iterdir()) == []  # nor a part of it under another name


def test_a_cut_file_in_the_folder_is_refused_naming_it_not_the_folder(tmp_path):
    folder = tmp_path / "replays"
    folder.mkdir()
    record_random_game(core.GameConfig(num_players=3), seed=2, path=tmp_path / "whole.jsonl")
    data = (tmp_path / "whole.jsonl").read_bytes()
    (folder / "cut.jsonl").write_bytes(data[: len(data) // 2])
    client = TestClient(create_app(folder))
    response = client.get("/api/replays/cut.jsonl")
    detail = response.json()["detail"]
    assert response.status_code == 400 and detail.startswith("replay 'cut.jsonl': incomplete"), detail
    assert str(tmp_path) not in detail  # the server's paths stay its own


def test_a_file_in_the_folder_the_page_cannot_draw_is_refused_as_its_upload_is(tmp_path):
    """A game of another board (pawns all on one square of the drawn board) was served; its upload was refused."""
    folder = tmp_path / "replays"
    folder.mkdir()
    record_random_game(core.GameConfig(num_players=3, board="none"), seed=3, path=folder / "noboard.jsonl")
    client = TestClient(create_app(folder))
    for params in ({"step": 0}, {"step": 5, "seat": "0"}):
        response = client.get("/api/replays/noboard.jsonl", params=params)
        detail = response.json()["detail"]
        assert response.status_code == 400, detail
        assert detail.startswith(
            "replay 'noboard.jsonl': the page draws the classic edition on the classic board"
        )
        assert "board 'none'" in detail
    upload = client.post("/api/replays", content=(folder / "noboard.jsonl").read_bytes())
    assert upload.status_code == 400 and "board 'none'" in upload.json()["detail"]
