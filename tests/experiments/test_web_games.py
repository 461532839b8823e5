"""The games the web app keeps (experiments/web/app.py): a game left is dropped at once, a closed
page's game makes room before a game in play (the notice of a page reloaded, arriving late, marks
nothing), the limit's 503 says why, and a bad request body is refused in one line naming the field.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web app needs the web extra: pip install -e '.[web]'")
from fastapi.testclient import TestClient

import experiments.web.app as web_app
from experiments.web.app import create_app, left_unfinished

NEW = {"agents": ["notepad", "notepad"], "seed": 1}


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path / "replays"))


def deal(client: TestClient, settings: dict = NEW) -> str:
    response = client.post("/api/games", json=settings)
    assert response.status_code == 200, response.text
    return response.json()["game"]


def lose(client: TestClient) -> str:
    """A game the person ends at once by a wrong accusation (seed 5: a suspect of their own hand)."""
    view = client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 5}).json()
    wrong = next(a for a in view["legal"] if a["kind"] == "accuse" and a["suspect"] in view["hand"]["cards"])
    end = client.post(
        f"/api/games/{view['game']}/actions", json={"action": wrong["id"], "step": view["step"]}
    )
    assert end.json()["over"]
    return view["game"]


def test_a_game_left_is_dropped_at_once_and_counted_as_left_unfinished(client):
    game = deal(client)
    response = client.delete(f"/api/games/{game}")
    assert response.status_code == 200 and response.json() == {"left": game, "over": False}
    assert game not in client.app.state.games and left_unfinished(client.app) == 1
    for response in (
        client.get(f"/api/games/{game}"),
        client.post(f"/api/games/{game}/actions", json={"action": 0, "step": 0}),
        client.delete(f"/api/games/{game}"),  # left twice
    ):
        assert response.status_code == 404 and f"no game {game!r}" in response.json()["detail"]


def test_a_finished_game_left_is_no_game_left_unfinished(client):
    game = lose(client)
    assert client.delete(f"/api/games/{game}").json() == {"left": game, "over": True}
    assert left_unfinished(client.app) == 0 and client.app.state.games == {}


def test_games_dealt_and_left_never_fill_the_server(client, monkeypatch):
    """A person trying deals (Start, Leave, 64 times) filled the server: every new game was refused for an hour."""
    monkeypatch.setattr(web_app, "MAX_GAMES", 3)
    for _ in range(7):
        assert client.delete(f"/api/games/{deal(client)}").status_code == 200
    assert client.post("/api/games", json=NEW).status_code == 200


def test_a_full_server_drops_a_finished_game_then_a_closed_one_then_refuses(client, monkeypatch):
    monkeypatch.setattr(web_app, "MAX_GAMES", 3)
    idle, closed = deal(client), deal(client)
    finished = lose(client)  # the most recently seen
    client.app.state.games[idle].seen -= web_app.IDLE_S + 1  # not asked for in over an hour
    assert client.post(f"/api/games/{closed}/closed").json() == {"closed": closed, "marked": True}
    first = deal(client)
    assert finished not in client.app.state.games, "a game in play was dropped before a finished one"
    second = deal(client)
    assert set(client.app.state.games) == {idle, first, second}  # the closed page's game, before the idle
    third = deal(client)
    assert set(client.app.state.games) == {first, second, third}
    refused = client.post("/api/games", json=NEW)
    assert refused.status_code == 503
    assert refused.json()["detail"] == (
        "3 games are in play, the most this server keeps at once (3); try again when one of them ends, is "
        "left (its page closed), or has been idle 60 minutes"
    )
    assert left_unfinished(client.app) == 2 + 3  # the closed and the idle games dropped, three in play


def test_a_closed_page_s_game_asked_for_again_is_kept(client, monkeypatch):
    """A reload closes the page (it says so) and then asks for the game: it is the person's again."""
    monkeypatch.setattr(web_app, "MAX_GAMES", 2)
    game = deal(client)
    assert client.post(f"/api/games/{game}/closed").status_code == 200
    assert client.app.state.games[game].closed
    assert client.get(f"/api/games/{game}").status_code == 200 and not client.app.state.games[game].closed
    deal(client)
    assert client.post("/api/games", json=NEW).status_code == 503
    assert client.get(f"/api/games/{game}").status_code == 200
    assert client.post("/api/games/nosuchgame/closed").status_code == 404


def test_a_reloaded_page_s_closed_notice_arriving_late_leaves_the_game_open(client, monkeypatch):
    """Page A deals a game and is reloaded: page B asks for the game, then A's closed notice (sent as A
    closed) arrives. It marked the game closed, so a full server dropped it, in play, before an idle game."""
    monkeypatch.setattr(web_app, "MAX_GAMES", 2)
    idle = deal(client)
    client.app.state.games[idle].seen -= web_app.IDLE_S + 1  # not asked for in over an hour
    response = client.post("/api/games", params={"page": "a1"}, json=NEW)  # page A deals
    game = response.json()["game"]
    assert client.get(f"/api/games/{game}", params={"page": "b2"}).status_code == 200  # page B, the reload
    late = client.post(f"/api/games/{game}/closed", params={"page": "a1"})  # A's notice, after B's request
    assert late.status_code == 200
    assert not client.app.state.games[game].closed, "the reloaded page's game is marked closed"
    assert late.json() == {"closed": game, "marked": False}
    new = deal(client)  # the server is full: the idle game makes room
    assert set(client.app.state.games) == {game, new}, (
        "a full server dropped the game in play, not the idle one"
    )


def test_only_the_page_that_last_asked_for_a_game_marks_it_closed(client, monkeypatch):
    """The page that dealt the game, or asked for it last (an action, a view), closes it; a page back from
    the browser's cache asks again and unmarks it; a full server drops the closed game before an idle one."""
    monkeypatch.setattr(web_app, "MAX_GAMES", 2)
    game = client.post("/api/games", params={"page": "a1"}, json=NEW).json()["game"]
    games = client.app.state.games
    assert client.post(f"/api/games/{game}/closed", params={"page": "c3"}).json()["marked"] is False
    assert client.post(f"/api/games/{game}/closed").json()["marked"] is False  # a script's: no page named
    assert not games[game].closed
    assert client.post(f"/api/games/{game}/closed", params={"page": "a1"}).json()["marked"] is True
    assert games[game].closed
    assert client.get(f"/api/games/{game}", params={"page": "a1"}).status_code == 200  # back from the cache
    assert not games[game].closed
    view = client.get(f"/api/games/{game}", params={"page": "b2"}).json()  # another tab, which plays
    legal = next(a for a in view["legal"] if a["kind"] != "accuse")
    played = client.post(
        f"/api/games/{game}/actions",
        params={"page": "b2"},
        json={"action": legal["id"], "step": view["step"]},
    )
    assert played.status_code == 200
    assert client.post(f"/api/games/{game}/closed", params={"page": "a1"}).json()["marked"] is False
    assert client.post(f"/api/games/{game}/closed", params={"page": "b2"}).json()["marked"] is True
    idle = deal(client)
    games[idle].seen -= web_app.IDLE_S + 1
    kept = deal(client)
    assert set(games) == {idle, kept}, "the closed page's game is not dropped first"


@pytest.mark.parametrize("page", ["", "a b", "x" * 65, "é1", "a1\n"])
def test_a_page_id_of_another_form_is_refused_in_one_sentence(client, page):
    game = deal(client)
    said = (
        "page must be 1 to 64 letters, digits, '-' or '_' (the id a page draws when it loads), "
        f"got {page!r:.80}"
    )
    for response in (
        client.post("/api/games", params={"page": page}, json=NEW),
        client.get(f"/api/games/{game}", params={"page": page}),
        client.post(f"/api/games/{game}/actions", params={"page": page}, json={"action": 0, "step": 0}),
        client.post(f"/api/games/{game}/closed", params={"page": page}),
    ):
        assert response.status_code == 400 and response.json()["detail"] == said
    assert set(client.app.state.games) == {game} and not client.app.state.games[game].closed


def test_a_page_of_another_site_can_neither_leave_nor_close_a_game(tmp_path):
    from experiments.serve import LOOPBACK

    local = TestClient(create_app(tmp_path / "replays", hosts=LOOPBACK), base_url="http://127.0.0.1:8000")
    game = deal(local)
    foreign = {"origin": "http://localhost:18766"}
    assert local.post(f"/api/games/{game}/closed", headers=foreign).status_code == 403
    assert local.delete(f"/api/games/{game}", headers=foreign).status_code == 403
    assert not local.app.state.games[game].closed
    own = {"origin": "http://127.0.0.1:8000"}  # the page's own request (fetch and sendBeacon send an Origin)
    assert local.post(f"/api/games/{game}/closed", headers=own).status_code == 200
    assert local.delete(f"/api/games/{game}", headers=own).status_code == 200


@pytest.mark.parametrize("seed", ["1e3", 1000.0, "-3", " 7", "0x10", "٣"])
def test_a_seed_that_is_no_whole_number_is_refused_in_one_sentence(client, seed):
    """The page sent "1e3" as typed, and the answer was pydantic's list of errors as JSON."""
    response = client.post("/api/games", json={**NEW, "seed": seed})
    assert response.status_code == 422 and client.app.state.games == {}
    assert response.json()["detail"] == (
        "seed must be a whole number in [0, 9223372036854775808) (a JSON integer or its digits), or null "
        f"for a seed drawn by the server, got {seed!r}"
    )


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('{"action": "roll", "step": 0}', "action: Input should be a valid integer, unable to parse string as an integer, got 'roll'"),
        ('{"action": 0}', "step: Field required"),
        ("{}", "action: Field required; step: Field required"),
        ('{"action": 0, "step": 0, "seat": 1}', "seat: Extra inputs are not permitted, got 1"),
        ("{", "the body is not JSON (Expecting property name enclosed in double quotes at character 1)"),
    ],
    ids=["not_a_number", "no_step", "empty", "unknown_field", "not_json"],
)  # fmt: skip
def test_a_bad_action_body_is_refused_in_one_line_naming_each_field(client, body, said):
    """A 422 was FastAPI's list of errors, which the page showed as JSON."""
    game = deal(client)
    response = client.post(
        f"/api/games/{game}/actions", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422 and response.json()["detail"] == said


def test_a_new_game_drops_only_a_finished_or_idle_game_to_make_room(tmp_path, monkeypatch):
    monkeypatch.setattr(web_app, "MAX_GAMES", 2)
    client = TestClient(create_app(tmp_path / "replays"))
    new = {"agents": ["notepad", "notepad"], "seed": 1}
    first, second = (client.post("/api/games", json=new).json()["game"] for _ in range(2))
    refused = client.post("/api/games", json=new)
    assert refused.status_code == 503 and "2 games are in play" in refused.json()["detail"]
    assert client.get(f"/api/games/{first}").status_code == 200  # both kept, still playable
    client.app.state.games[first].seen -= web_app.IDLE_S + 1  # left alone for over an hour
    third = client.post("/api/games", json=new).json()["game"]
    assert set(client.app.state.games) == {second, third}


def test_a_game_refused_for_room_is_never_played_nor_saved(tmp_path, monkeypatch):
    """Seed 228 with five random agents and the person last: a game over before the person's first
    decision (saved at once). Refused for room, it must leave no replay and no result behind."""
    monkeypatch.setattr(web_app, "MAX_GAMES", 1)
    replays, results = tmp_path / "replays", tmp_path / "results"
    client = TestClient(create_app(replays, results_dir=results))
    client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 1})  # in play, kept
    quick = {"agents": ["random"] * 5, "seat": 5, "seed": 228}
    refused = client.post("/api/games", json=quick)
    assert refused.status_code == 503
    assert not replays.exists() and not results.exists()
    monkeypatch.setattr(web_app, "MAX_GAMES", 2)
    over = client.post("/api/games", json=quick).json()
    assert over["over"] and over["legal"] == [], "seed 228 no longer ends before the person decides"
    assert [p.name for p in replays.iterdir()] == [over["replay"]]  # kept, then played: saved
