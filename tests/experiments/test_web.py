"""The web app (experiments/web, python -m experiments.serve): whole games played through its HTTP
API against real agents, privacy over every response (with leaky controls), clear errors for bad input.

The privacy check reads every response of a game before its end, as JSON and as text, for a
hidden card: one held by another player or in the envelope that the person was neither shown nor
heard named in public (a suggestion, an accusation). Card ids go only under the keys ``card`` and
``cards``; a hidden card's name may appear nowhere (but as a seated player's name: the players
are suspects, in public).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web app needs the web extra: pip install -e '.[web]'")
from fastapi.testclient import TestClient

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.state import ENVELOPE
from cluedo_env.inference.beliefs import beliefs_from_events
from cluedo_env.replay import load_jsonl, verify
from experiments.web.app import create_app
from experiments.web.session import WebGame, seat_view

CARDS = core.GameConfig().cards


def leaky_envelope_view(game: WebGame) -> dict:
    """A deliberately broken view: the person's view and the envelope's cards by id."""
    return {
        **seat_view(game),
        "solution": {"cards": np.flatnonzero(game.state._owner[0] == ENVELOPE).tolist()},
    }


def leaky_names_view(game: WebGame) -> dict:
    """A deliberately broken view: the next player's hand in a sentence of the story."""
    view = seat_view(game)
    other = (game.seat + 1) % game.config.num_players
    held = ", ".join(CARDS.cards[c] for c in np.flatnonzero(game.state._owner[0] == other))
    return {**view, "story": [*view["story"], f"P{other} holds {held}"]}


def leaky_posterior_view(game: WebGame) -> dict:
    """A deliberately broken view: a "posterior" that is the deal itself (every card certain where it lies)."""
    view = seat_view(game)
    if view["beliefs"] is None:
        return view
    owner = game.state._owner[0]
    players = [[float(owner[c] == p) for p in range(game.config.num_players)] for c in range(len(owner))]
    return {**view, "beliefs": {"players": players, "envelope": [float(o == ENVELOPE) for o in owner]}}


def posterior_leaks(view: dict, record, step: int, seat: int) -> list[str]:
    """Where the heat map's payload (``beliefs``) of ``seat``'s view after ``step`` steps differs from
    the exact posterior the test computes from that seat's private view of the recorded events alone."""
    rows = core.private_view(np.concatenate([record.initial_events, *record.events[:step]]), seat)
    chances = beliefs_from_events(record.config, seat, rows).probabilities()
    expected = {"players": chances[:, : record.config.num_players], "envelope": chances[:, ENVELOPE]}
    return [
        f"{key} of card {card} ({CARDS.cards[card]}): sent {got}, the seat's own view gives {want}"
        for key, want_all in expected.items()
        for card, (got, want) in enumerate(zip(np.array(view["beliefs"][key]), want_all))
        if not np.allclose(got, want, atol=1e-4)
    ]


def hidden_cards(game: WebGame) -> set[int]:
    """The cards the person may not know of now, from the game's full record (not from its view)."""
    record = game.recorder.record
    return hidden_after(
        np.concatenate([record.initial_events, *record.events]), game.state._owner[0], game.seat
    )


def hidden_after(events: np.ndarray, owner: np.ndarray, seat: int) -> set[int]:
    """The cards ``seat`` may not know of after the full ``events``, the deal being ``owner``."""
    rows = core.private_view(events, seat)
    known = set(np.flatnonzero(owner == seat).tolist())
    for event in ev.read_events(rows):
        if event.kind == ev.SHOW and event.suggester == seat and event.card >= 0:
            known.add(event.card)
        elif event.kind in (ev.SUGGEST, ev.ACCUSE):
            known.update(event.cards)
    return set(range(CARDS.num_cards)) - known


def card_ids(value: object) -> list[int]:
    """Every card id of a response: the values under the keys ``card`` and ``cards``."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "card":
                found.append(item)
            elif key == "cards":
                found.extend(item)
            else:
                found.extend(card_ids(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(card_ids(item))
    return found


def leaks(response: dict, game: WebGame, hidden: set[int] | None = None) -> list[str]:
    """What of ``response`` names a card hidden from the person (``hidden_cards``), by id or by name."""
    hidden = hidden_cards(game) if hidden is None else hidden
    text = json.dumps(response)
    seated = {CARDS.suspects[p] for p in range(game.config.num_players)}
    by_id = [f"card id {c} ({CARDS.cards[c]})" for c in card_ids(response) if c in hidden]
    by_name = [
        f"name {CARDS.cards[c]!r}"
        for c in sorted(hidden)
        if CARDS.cards[c] not in seated and CARDS.cards[c] in text
    ]
    return by_id + by_name


def play_game(client: TestClient, settings: dict, choose) -> tuple[list[dict], list[list[str]], WebGame]:
    """Play a game through the API, ``choose(view) -> action id`` for the person; every response
    (the new game's, each action's and a fresh GET after it) with its leaks when read: hidden
    cards by id or name (``leaks``), a posterior unlike the seat's own (``posterior_leaks``)."""
    response = client.post("/api/games", json=settings)
    assert response.status_code == 200, response.text
    view = response.json()
    game = client.app.state.games[view["game"]]
    record = game.recorder.record

    def read(view: dict) -> list[str]:  # card ids and names, and the posterior against the seat's own view
        return leaks(view, game) + posterior_leaks(view, record, record.num_steps, game.seat)

    views, found = [view], [read(view)]
    while not view["over"]:
        assert view["legal"], "the person's view came back without a decision while the game runs"
        response = client.post(
            f"/api/games/{view['game']}/actions", json={"action": choose(view), "step": view["step"]}
        )
        assert response.status_code == 200, response.text
        view = response.json()
        again = client.get(f"/api/games/{view['game']}").json()
        assert again == view
        views.append(view)
        found.append(read(view) if not view["over"] else [])
        assert len(views) < 2000, "the game did not end"
    return views, found, game


def no_accusation(rng: np.random.Generator):
    """A person who picks a random legal action, never an accusation unless nothing else is legal."""

    def choose(view: dict) -> int:
        calm = [a for a in view["legal"] if a["kind"] != "accuse"] or view["legal"]
        return calm[int(rng.integers(len(calm)))]["id"]

    return choose


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path / "replays"))


def test_no_response_before_the_end_names_a_hidden_card(client):
    views, found, _game = play_game(
        client, {"agents": ["notepad", "sat", "notepad"], "seed": 11}, no_accusation(np.random.default_rng(0))
    )
    assert views[-1]["over"] and len(views) > 10
    assert [leak for leak in found if leak] == []
    shown = [line for v in views for line in v["story"] if "shows" in line and "to P0" in line]
    assert shown, "the person was never shown a card: the check saw no private information"


@pytest.mark.parametrize(
    "leaky",
    [leaky_envelope_view, leaky_names_view, leaky_posterior_view],
    ids=["envelope_ids", "hand_names", "posterior_from_the_deal"],
)
def test_a_leaky_view_is_caught(tmp_path, leaky):
    client = TestClient(create_app(tmp_path, view=leaky))
    _views, found, _game = play_game(
        client,
        {"agents": ["notepad", "notepad", "notepad"], "seed": 11},
        no_accusation(np.random.default_rng(0)),
    )
    assert found[0], "the first response, which holds the leak, passed the check"


def test_a_whole_game_against_three_sat_agents_ends_with_the_reveal_and_a_replay(client, tmp_path):
    views, _found, _game = play_game(client, {"seed": 5}, no_accusation(np.random.default_rng(1)))
    end = views[-1]
    assert [p["agent"] for p in end["players"]] == ["you", "sat", "sat", "sat"]
    assert end["winner"] >= 1 and end["winner_name"].startswith(
        f"P{end['winner']} "
    )  # the person never accused
    envelope = end["envelope"]["cards"]
    assert [CARDS.category(c) for c in envelope] == [0, 1, 2]
    hands = [h["cards"] for h in end["hands"]]
    assert sorted(envelope + [c for hand in hands for c in hand]) == list(range(CARDS.num_cards))
    assert [len(h) for h in hands] == [p["hand_size"] for p in end["players"]]
    assert hands[0] == end["hand"]["cards"]
    record = load_jsonl(tmp_path / "replays" / end["replay"])
    assert record.finished and record.seed == 5
    final = verify(record)
    assert int(final.winner[0]) == end["winner"]


def test_the_first_legal_action_always_plays_a_game_to_its_end(client):
    views, _found, _game = play_game(client, {"agents": ["random", "notepad"]}, lambda v: v["legal"][0]["id"])
    assert views[-1]["over"] and len(views[0]["players"]) == 3


def test_the_page_and_the_catalogue_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    assert page.text.index("/static/board.js") < page.text.index("/static/app.js")  # (app.js draws with it)
    for name in ("board.js", "app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    catalogue = client.get("/api/catalogue").json()
    assert catalogue["cards"] == list(CARDS.cards)
    board = catalogue["board"]
    assert len(board["rooms"]) == CARDS.num_rooms and len(board["doors"]) >= CARDS.num_rooms
    assert len(board["passages"]) == 4 and len(board["starts"]) == CARDS.num_suspects


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"agents": ["sat", "bogus"]}, ["'bogus'", "'notepad'", "'sat'"]),
        ({"agents": ["sat"]}, ["2 to 5 agents", "got 1"]),
        ({"agents": ["sat", "sat"], "seat": 3}, ["seat must be in [0, 3)", "got 3"]),
        ({"agents": ["sat", "sat"], "seed": -1}, ["seed must be in [0,", "got -1"]),
        ({"agents": ["human", "sat"]}, ["'human'", "'random'"]),
    ],
)
def test_bad_settings_are_refused_naming_the_value(client, settings, named):
    response = client.post("/api/games", json=settings)
    assert response.status_code == 400
    for words in named:
        assert words in response.json()["detail"]


def test_bad_actions_and_unknown_games_are_refused_naming_the_value(client):
    view = client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 2}).json()
    legal = [a["id"] for a in view["legal"]]
    illegal = next(a for a in range(10_000) if a not in legal)
    response = client.post(
        f"/api/games/{view['game']}/actions", json={"action": illegal, "step": view["step"]}
    )
    assert response.status_code == 400
    assert f"action {illegal} is not legal now" in response.json()["detail"]
    assert str(legal) in response.json()["detail"]
    assert (
        client.post(f"/api/games/{view['game']}/actions", json={"action": "roll", "step": 0}).status_code
        == 422
    )
    assert client.post(f"/api/games/{view['game']}/actions", json={"action": legal[0]}).status_code == 422
    for path in ("/api/games/nosuchgame", "/api/games/nosuchgame/actions"):
        response = (
            client.post(path, json={"action": 0, "step": 0}) if path.endswith("actions") else client.get(path)
        )
        assert response.status_code == 404
        assert (
            "no game 'nosuchgame'" in response.json()["detail"]
            and "POST /api/games" in response.json()["detail"]
        )


def test_an_action_after_the_end_is_refused(client):
    views, _found, _game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 3}, lambda v: v["legal"][0]["id"]
    )
    response = client.post(
        f"/api/games/{views[-1]['game']}/actions", json={"action": 0, "step": views[-1]["step"]}
    )
    assert response.status_code == 400 and "is over" in response.json()["detail"]


def test_a_request_sent_twice_is_not_played_at_a_decision_the_person_has_not_seen(client):
    view = client.post("/api/games", json={"agents": ["notepad"] * 3, "seed": 1}).json()
    path = f"/api/games/{view['game']}/actions"
    request = {"action": view["legal"][0]["id"], "step": view["step"]}
    after = client.post(path, json=request).json()
    assert after["step"] > view["step"]
    response = client.post(path, json=request)  # the same click again: it answers the old view
    assert response.status_code == 409 and f"the game is at step {after['step']}" in response.json()["detail"]
    assert client.get(f"/api/games/{view['game']}").json() == after  # nothing played


def test_serve_binds_this_machine_by_default_and_prints_the_address(monkeypatch, capsys, tmp_path):
    import uvicorn

    from experiments import serve

    monkeypatch.chdir(tmp_path)  # (the default replay folder, results/web, is made at start)
    started = {}
    monkeypatch.setattr(
        uvicorn, "run", lambda app, host, port, log_level: started.update(host=host, port=port)
    )
    serve.main([])
    assert started == {"host": "127.0.0.1", "port": 8000}
    assert "http://127.0.0.1:8000/" in capsys.readouterr().out
    for port in ("70000", "0"):
        with pytest.raises(SystemExit):
            serve.main(["--port", port])
        assert f"--port must be in [1, 65536), got {port}" in capsys.readouterr().err
    serve.main(["--host", "::1", "--port", "8001"])
    assert "http://[::1]:8001/" in capsys.readouterr().out


def test_serve_refuses_folders_it_could_not_save_games_in_before_it_starts(monkeypatch, capsys, tmp_path):
    import uvicorn

    from experiments import serve

    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: pytest.fail("the server started"))
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    for option in ("--replays", "--results"):
        with pytest.raises(SystemExit):
            serve.main([option, str(blocked / "games") if option == "--results" else str(blocked)])
        assert f"{option} {blocked}" in capsys.readouterr().err
    assert blocked.read_text() == "not a folder"
    with pytest.raises(SystemExit):  # games.jsonl would be listed, and refused, as a replay
        serve.main(["--replays", str(tmp_path / "web"), "--results", str(tmp_path / "web")])
    assert "--results must be another folder than --replays" in capsys.readouterr().err


def test_a_replay_is_stepped_through_from_a_seat_without_a_leak_and_from_everyone_with_the_truth(client):
    views, _found, game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 8}, lambda v: v["legal"][0]["id"]
    )
    name = views[-1]["replay"]
    assert client.get("/api/replays").json()["replays"] == [name]
    record = game.recorder.record
    owner = game.state._owner[0]
    for seat in range(3):
        stories = []
        for step in range(record.num_steps + 1):
            view = client.get(f"/api/replays/{name}", params={"step": step, "seat": seat}).json()
            assert (view["step"], view["steps"], view["viewer"], view["seat"]) == (
                step,
                record.num_steps,
                seat,
                seat,
            )
            if step < record.num_steps:
                hidden = hidden_after(
                    np.concatenate([record.initial_events, *record.events[:step]]), owner, seat
                )
                assert leaks(view, game, hidden) == [], (seat, step)
            assert posterior_leaks(view, record, step, seat) == [], (seat, step)
            stories.append(len(view["story"]))
        assert stories == sorted(stories) and stories[-1] > stories[0]  # the story grows step by step
    assert view["over"] and view["winner"] == views[-1]["winner"]
    everyone = client.get(f"/api/replays/{name}", params={"step": 0}).json()
    assert everyone["viewer"] == "all" and everyone["envelope"] == views[-1]["envelope"]
    assert everyone["hands"] == views[-1]["hands"] and not everyone["over"]
    assert everyone["beliefs"] is None  # everyone's view shows the truth, no seat's posterior


def test_a_replay_posterior_from_the_deal_is_caught(tmp_path):
    client = TestClient(create_app(tmp_path, view=leaky_posterior_view))
    views, _found, game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 8}, lambda v: v["legal"][0]["id"]
    )
    record = game.recorder.record
    for step in (0, record.num_steps // 2):
        view = client.get(f"/api/replays/{views[-1]['replay']}", params={"step": step, "seat": 1}).json()
        seen = np.concatenate([record.initial_events, *record.events[:step]])
        assert leaks(view, game, hidden_after(seen, game.state._owner[0], 1)) == []  # no card id, no name
        assert posterior_leaks(view, record, step, 1), "a posterior read from the deal passed the check"


def test_bad_replay_requests_are_refused_naming_the_value(client):
    views, _found, _game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 9}, lambda v: v["legal"][0]["id"]
    )
    name = views[-1]["replay"]
    steps = client.get(f"/api/replays/{name}").json()["steps"]
    for params, words in [
        ({"step": steps + 1}, f"step must be in [0, {steps}]"),
        ({"step": -1}, "got -1"),
        ({"seat": 3}, "seat must be in [0, 3) or 'all'"),
        ({"seat": "me"}, "seat must be a seat number or 'all', got 'me'"),
    ]:
        response = client.get(f"/api/replays/{name}", params=params)
        assert response.status_code == 400 and words in response.json()["detail"], response.text
    for missing in ("nosuch.jsonl", "notes.txt"):
        response = client.get(f"/api/replays/{missing}")
        assert response.status_code == 404 and f"no replay {missing!r}" in response.json()["detail"]


def test_the_notepad_posterior_is_the_persons_and_what_it_makes_certain_is_true(client):
    views, _found, game = play_game(
        client, {"agents": ["notepad", "sat"], "seed": 12}, no_accusation(np.random.default_rng(2))
    )
    owner, seat = game.state._owner[0], game.seat
    certain = 0
    for view in views:
        players, envelope = np.array(view["beliefs"]["players"]), np.array(view["beliefs"]["envelope"])
        assert np.allclose(players.sum(axis=1) + envelope, 1, atol=1e-3)
        assert np.allclose([envelope[c].sum() for c in (range(6), range(6, 12), range(12, 21))], 1, atol=1e-3)
        assert (players[view["hand"]["cards"], seat] == 1).all()
        for card, holder in zip(*np.nonzero(players == 1)):
            assert owner[card] == holder
        assert (owner[envelope == 1] == ENVELOPE).all()
        certain += int((players == 1).sum() + (envelope == 1).sum())
    assert certain > len(views) * len(views[0]["hand"]["cards"])  # more than its own hand became certain


def test_the_weapons_are_where_the_suggestions_put_them(client):
    views, _found, _game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 6}, no_accusation(np.random.default_rng(3))
    )
    rooms = CARDS.num_suspects + CARDS.num_weapons
    suggested = [v for v in views if v["suggestion"] and not v["over"]]
    assert suggested, "no suggestion was on the table in any view"
    for view in views:
        assert set(view["weapons"]) <= set(range(CARDS.num_rooms))  # every weapon lies in a room
    for view in suggested:
        suspect, weapon, room = view["suggestion"]["cards"]
        assert view["weapons"][weapon - CARDS.num_suspects] == room - rooms
        assert view["pawns"][suspect] == {"room": room - rooms}


def test_a_game_that_cannot_be_saved_still_ends_and_says_why(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    client = TestClient(create_app(blocked))
    views, _found, _game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 3}, lambda v: v["legal"][0]["id"]
    )
    end = views[-1]
    assert end["over"] and end["replay"] is None
    assert end["save_error"].startswith("the replay could not be written: ")
    assert blocked.read_text() == "not a folder"
    client = TestClient(create_app(tmp_path / "replays", results_dir=blocked))
    views, _found, _game = play_game(
        client, {"agents": ["notepad", "notepad"], "seed": 3}, lambda v: v["legal"][0]["id"]
    )
    end = views[-1]  # the replay written, the result not
    assert end["replay"] and end["save_error"].startswith("the result could not be added to games.jsonl: ")
    assert blocked.read_text() == "not a folder"


@pytest.mark.parametrize(
    ("body", "status", "named"),
    [
        ({"agents": ["notepad", "notepad"], "seat": True}, 422, "expected a number, got true"),
        ({"agents": ["notepad", "notepad"], "seed": False}, 422, "expected a number, got false"),
        ({"agents": ["notepad", "notepad"], "pad": "x"}, 422, "pad"),
        ({"agents": ["notepad", "notepad"], "pad": "x" * 20_000}, 413, "over the limit of 16384 bytes"),
    ],
    ids=["seat_true", "seed_false", "unknown_field", "too_big"],
)
def test_new_game_bodies_of_the_wrong_type_or_size_are_refused(client, body, status, named):
    response = client.post("/api/games", json=body)
    assert response.status_code == status
    assert named in json.dumps(response.json()["detail"])


def test_a_body_without_a_length_is_cut_off_at_the_limit_and_no_body_is_the_default_game(client):
    def chunks():
        yield b'{"agents": ["notepad", "notepad"], "pad": "'
        for _ in range(40):
            yield b"x" * 1024

    response = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and "over the limit" in response.json()["detail"]
    view = client.post("/api/games").json()
    assert [p["agent"] for p in view["players"]] == ["you", "sat", "sat", "sat"]
    action = {"action": True, "step": view["step"]}
    assert client.post(f"/api/games/{view['game']}/actions", json=action).status_code == 422


def test_a_truncated_replay_ends_at_its_last_turn(client, tmp_path):
    from cluedo_env.replay import record_random_game

    folder = tmp_path / "replays"
    folder.mkdir()
    record = record_random_game(
        core.GameConfig(num_players=3, max_turns=3), seed=2, path=folder / "short.jsonl"
    )
    end = client.get("/api/replays/short.jsonl", params={"step": record.num_steps}).json()
    assert end["truncated"], "seed 2 no longer reaches the turn limit"
    assert end["turn"] == 3


def test_replay_requests_name_no_server_path_and_refuse_odd_digits(client, tmp_path):
    missing = client.get("/api/replays/nope.jsonl").json()["detail"]
    assert "no replay 'nope.jsonl'" in missing and str(tmp_path) not in missing
    response = client.get("/api/replays/nope.jsonl", params={"seat": "²"})
    assert response.status_code == 400 and "seat must be a seat number or 'all'" in response.json()["detail"]


def test_a_duel_replay_notes_the_cards_a_seat_looked_at_and_the_end_shows_the_face_down_cards(tmp_path):
    from cluedo_env.core import events as ev
    from cluedo_env.core.state import FACE_DOWN
    from cluedo_env.replay import record_random_game

    folder = tmp_path / "replays"
    folder.mkdir()
    record = record_random_game(core.GameConfig(num_players=2, duel=True), seed=4, path=folder / "duel.jsonl")
    client = TestClient(create_app(folder))
    peeks = [
        (step + 1, e)
        for step, rows in enumerate(record.events)
        for e in ev.read_events(rows)
        if e.kind == ev.PEEK and e.card >= 0
    ]
    assert peeks, "no card looked at in this game: pick another seed"
    step, peek = peeks[0]
    view = client.get("/api/replays/duel.jsonl", params={"step": step, "seat": peek.player}).json()
    assert {"card": peek.card, "note": "seen face down"} in view["notes"]
    everyone = client.get("/api/replays/duel.jsonl", params={"step": 0}).json()
    owner = replay_owner(record)
    assert everyone["face_down"]["cards"] == [c for c in range(len(owner)) if owner[c] == FACE_DOWN]
    assert everyone["face_down"]["cards"]


def replay_owner(record) -> list[int]:
    """Each card's owner in a recorded game (the deal's events)."""
    from cluedo_env.replay import replay

    return next(iter(replay(record)))._owner[0].tolist()


def test_a_game_without_a_seed_draws_one_from_every_seed(client):
    """A seed below 2**31 could be found by dealing them all and matching one's hand and who starts."""
    seeds = []
    for _ in range(8):
        view = client.post("/api/games", json={"agents": ["notepad"] * 2}).json()
        seeds.append(client.app.state.games[view["game"]].seed)
    assert all(0 <= seed < core.SEED_BOUND for seed in seeds)
    assert max(seeds) >= 2**40  # all eight below it: a chance of 2**-184


def test_a_seed_sent_as_its_digits_is_kept_exactly(client):
    """The page sends the seed field's digits (a JavaScript number would round it above 2**53)."""
    view = client.post("/api/games", json={"agents": ["notepad"] * 2, "seed": "9007199254740993"}).json()
    assert client.app.state.games[view["game"]].seed == 9007199254740993


@pytest.mark.parametrize("body", ['{"seed": NaN}', '{"seat": Infinity}', '{"agents": ["sat", "sat", NaN]}'])
def test_a_body_with_a_number_json_does_not_have_is_refused_not_a_server_error(client, body):
    """FastAPI's 422 echoed the value, and a NaN could not be written back: the answer was a 500."""
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["detail"].startswith(
        ("seed", "seat:", "agents.2:")
    )


def test_a_page_of_another_site_or_another_host_name_is_refused(tmp_path):
    """Any page open in the browser could deal games (a no-cors POST) until the server was full, or
    upload replays; a name that resolves to this machine (DNS rebinding) could read its answers."""
    from experiments.serve import LOOPBACK

    app = create_app(tmp_path / "replays", hosts=LOOPBACK, origins=["https://cluedo.example.org"])
    local = TestClient(app, base_url="http://127.0.0.1:8000")
    foreign = {"origin": "http://localhost:18766"}
    assert local.post("/api/games", json={}, headers=foreign).status_code == 403
    assert local.post("/api/replays", files={"file": ("a.jsonl", b"{}")}, headers=foreign).status_code == 403
    assert local.post("/api/games", json={}, headers={"origin": "http://127.0.0.1:8000"}).status_code == 200
    assert local.post("/api/games", json={}).status_code == 200  # a script of the user's sends no Origin
    assert TestClient(app, base_url="http://rebound.example:8000").get("/").status_code == 400
    assert TestClient(app, base_url="http://[::1]:8000").get("/").status_code == 200  # (brackets read)
    assert (
        local.post("/api/games", json={}, headers={"origin": "null"}).status_code == 403
    )  # a sandboxed frame
    proxied = {"origin": "https://cluedo.example.org"}  # a reverse proxy's page, given with --origin
    assert local.post("/api/games", json={}, headers=proxied).status_code == 200
    for odd in ("[evil]:8000", "[::1", ""):  # no host at all: 400, not a server error
        assert local.get("/", headers={"host": odd}).status_code == 400


def test_serve_takes_a_proxys_origin_as_a_browser_writes_it(monkeypatch, capsys, tmp_path):
    import uvicorn

    from experiments import serve

    monkeypatch.chdir(tmp_path)
    started = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, log_level: started.update(app=app))
    serve.main(["--origin", "https://Cluedo.Example.org:443/"])
    client = TestClient(started["app"], base_url="http://cluedo.example.org")  # the proxy kept the Host
    assert (
        client.post("/api/games", json={}, headers={"origin": "https://cluedo.example.org"}).status_code
        == 200
    )
    for bad in ("cluedo.example.org", "https://cluedo.example.org/cluedo/", "ftp://x"):
        with pytest.raises(SystemExit):
            serve.main(["--origin", bad])
        assert "--origin must be an address such as" in capsys.readouterr().err
