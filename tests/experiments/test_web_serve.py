"""``python -m experiments.serve``: the host check on every loopback address, and the games left
unfinished (never saved, never in ``--results``) counted when the server stops.
"""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("fastapi", reason="the web app needs the web extra: pip install -e '.[web]'")
import uvicorn
from fastapi.testclient import TestClient

import experiments.web.app as web_app
from experiments import serve
from experiments.web.app import create_app, left_unfinished


def served(monkeypatch, argv: list[str], then=None):
    """The app ``serve.main(argv)`` starts (uvicorn not started; ``then(app)`` runs in its place)."""
    started = {}

    def run(app, host, port, log_level):
        started["app"] = app
        if then is not None:
            then(app)

    monkeypatch.setattr(uvicorn, "run", run)
    serve.main(argv)
    return started["app"]


@pytest.mark.parametrize(
    ("host", "browser_host"),
    [("127.0.1.1", "127.0.1.1"), ("0:0:0:0:0:0:0:1", "[::1]"), ("localhost", "localhost")],
)
def test_every_loopback_host_refuses_a_page_of_another_name(monkeypatch, tmp_path, host, browser_host):
    """Only 127.0.0.1, localhost and ::1 as spelled turned the check on: 127.0.1.1 (Debian's own name's
    address) and ::1 written long were open to DNS rebinding."""
    app = served(monkeypatch, ["--host", host, "--replays", str(tmp_path)])
    assert TestClient(app, base_url="http://rebound.example:8000").get("/api/replays").status_code == 400
    assert TestClient(app, base_url=f"http://{browser_host}:8000").get("/api/replays").status_code == 200


def test_a_host_is_loopback_only_when_every_address_is(monkeypatch):
    assert serve.loopback_only("127.0.1.1") and serve.loopback_only("::1")
    assert not serve.loopback_only("0.0.0.0") and not serve.loopback_only("192.0.2.7")
    addresses = {"here.example": ["127.0.1.1"], "both.example": ["127.0.0.1", "192.0.2.7"]}

    def resolve(name, port):
        if name not in addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in addresses[name]]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert serve.loopback_only("here.example")
    assert not serve.loopback_only("both.example") and not serve.loopback_only("nowhere.example")


def test_serve_says_how_many_games_were_left_unfinished_when_it_stops(monkeypatch, tmp_path, capsys):
    """A game left before its end has no result: it is in neither --replays nor --results, and was
    nowhere counted."""

    def play(app):  # two games dealt, one finished by a wrong accusation at once (seed 5), one left
        client = TestClient(app, base_url="http://127.0.0.1:8000")  # (served on this machine only)
        client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 1})
        view = client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 5}).json()
        wrong = next(
            a for a in view["legal"] if a["kind"] == "accuse" and a["suspect"] in view["hand"]["cards"]
        )
        assert client.post(
            f"/api/games/{view['game']}/actions", json={"action": wrong["id"], "step": view["step"]}
        ).json()["over"]

    served(monkeypatch, ["--replays", str(tmp_path / "replays")], then=play)
    assert (
        "Cluedo: 1 game(s) left unfinished: not saved as replays, nor in --results" in capsys.readouterr().out
    )


def test_games_dropped_idle_before_their_end_are_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(web_app, "MAX_GAMES", 1)
    monkeypatch.setattr(web_app, "IDLE_S", -1.0)  # every game idle
    app = create_app(tmp_path / "replays")
    client = TestClient(app)
    for seed in (1, 2):
        client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": seed})
    assert len(app.state.games) == 1 and left_unfinished(app) == 2  # one dropped, one in play
