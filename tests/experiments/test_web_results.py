"""Finished web games join tournament results (experiments/web/results.py, ``serve --results``): each
is appended to ``games.jsonl`` as the tournament's game record with the person as the agent
``human``, and ``cluedo-stats`` reports it, alone or pooled with a real tournament's folder.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web app needs the web extra: pip install -e '.[web]'")
from fastapi.testclient import TestClient

from cluedo_env.core import events as ev
from experiments.common import stats
from experiments.common.games_file import load_games
from experiments.web.app import create_app
from experiments.web.results import game_result
from tests.conftest import ROOT


def finish(client: TestClient, settings: dict, rng: np.random.Generator, accuse: bool = False) -> dict:
    """Play a game through the API to its end (at random; ``accuse``: the first accusation offered) -> the end view."""
    view = client.post("/api/games", json=settings).json()
    while not view["over"]:
        accusations = [a for a in view["legal"] if a["kind"] == "accuse"]
        calm = [a for a in view["legal"] if a["kind"] != "accuse"] or view["legal"]
        chosen = accusations[0] if accuse and accusations else calm[int(rng.integers(len(calm)))]
        view = client.post(
            f"/api/games/{view['game']}/actions", json={"action": chosen["id"], "step": view["step"]}
        ).json()
    return view


@pytest.fixture
def web_games(tmp_path, monkeypatch):
    """Two finished games in a results folder, their deals drawn by the server (here the seeds 31 and
    32): the person at seat 0, then at seat 2 accusing at once."""
    import experiments.web.app as web_app

    results = tmp_path / "web-results"
    client = TestClient(create_app(tmp_path / "replays", results_dir=results))
    rng = np.random.default_rng(5)
    drawn = iter([31, 32])
    monkeypatch.setattr(web_app.secrets, "randbelow", lambda bound: next(drawn))
    ends = [
        finish(client, {"agents": ["random", "notepad"], "seat": 0}, rng),
        finish(client, {"agents": ["notepad", "random"], "seat": 2}, rng, accuse=True),
    ]
    return results, ends


def test_a_game_whose_seed_the_person_chose_joins_as_a_row_of_its_own(tmp_path):
    """A chosen seed may be a deal the person has seen end (its envelope shown): not a fair game of ``human``."""
    results = tmp_path / "web-results"
    client = TestClient(create_app(tmp_path / "replays", results_dir=results))
    end = finish(client, {"agents": ["random", "notepad"], "seat": 1, "seed": 31}, np.random.default_rng(5))
    (record,), _rejected = load_games(results / "games.jsonl")
    assert record["seats"] == ["random", "human_seeded", "notepad"] and record["seed"] == 31
    assert record["config"] == f"web-{end['game']}"


def test_each_finished_game_is_a_checked_record_with_the_person_as_human(web_games):
    results, ends = web_games
    records, rejected = load_games(results / "games.jsonl")  # every field checked as a tournament's
    assert rejected == [] and len(records) == 2
    first, second = records
    assert first["seats"] == ["human", "random", "notepad"] and first["lineup"] == "human+random+notepad"
    assert second["seats"] == ["notepad", "random", "human"] and second["rotation"] == 2
    assert second["lineup"] == "human+notepad+random"  # human first, then the seats after it in turn
    for record, end in zip(records, ends):
        assert record["winner_seat"] == (end["winner"] if end["winner"] >= 0 else None)
        assert record["config"] == f"web-{end['game']}" and record["players"] == 3
    assert second["accusations"][2] == 1  # the person accused
    assert second["wrong_accusations"][2] == int(ends[1]["winner"] != 2)


def test_two_web_games_give_a_human_row_with_two_seats_beside_the_agents(web_games, tmp_path, capsys):
    results, ends = web_games
    out = tmp_path / "report"
    stats.main([str(results), "--output", str(out), "--no-plots"])
    rows = {r["agent"]: r for r in json.loads((out / "stats.json").read_text())["agents"]}
    assert set(rows) == {"human", "random", "notepad"}
    assert rows["human"]["seats_played"] == 2
    assert rows["human"]["wins"] == sum(end["winner"] == end["seat"] for end in ends)
    assert "| human |" in (out / "report.md").read_text() and "human" in capsys.readouterr().out


def test_web_games_pool_with_a_tournament_run(web_games, tmp_path):
    results, _ends = web_games
    run = tmp_path / "tournament"
    done = subprocess.run(
        [sys.executable, "-m", "experiments.tournament", "lineup.agents=[{name: random}, {name: notepad}]",
         "game.num_players=3", "game.max_turns=40", "batch_size=1", "plots=false", "games_per_lineup=2",
         "workers=0", "progress=false", f"output_dir={run}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = tmp_path / "pooled"
    stats.main([str(run), str(results), "--output", str(out), "--no-plots"])
    rows = {r["agent"]: r for r in json.loads((out / "stats.json").read_text())["agents"]}
    tournament = load_games(run / "games.jsonl")[0]
    assert rows["human"]["seats_played"] == 2
    for agent in ("random", "notepad"):  # its seats in both folders, one in each web game
        assert rows[agent]["seats_played"] == sum(r["seats"].count(agent) for r in tournament) + 2


def test_an_unfinished_game_is_refused(tmp_path):
    client = TestClient(create_app(tmp_path / "replays"))
    view = client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 1}).json()
    game = client.app.state.games[view["game"]]
    with pytest.raises(ValueError, match="is not over: only finished games join the results"):
        game_result(game.game_id, game.seat, game.names, game.recorder.record, game.state)


def test_serve_passes_its_results_folder_to_the_app(monkeypatch, tmp_path):
    import uvicorn

    from experiments import serve

    started = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, log_level: started.update(app=app))
    serve.main(["--results", str(tmp_path / "mine")])
    assert started["app"].state.results_dir == tmp_path / "mine"
    serve.main([])
    assert started["app"].state.results_dir is None


def test_a_person_out_is_not_asked_again_and_the_lost_game_joins_the_results(tmp_path):
    """Out after a wrong accusation, the person was still asked to refute: a page left then left the game
    unfinished, dropped after an idle hour, and its loss and wrong accusation were never in the results."""
    results = tmp_path / "web-results"
    client = TestClient(create_app(tmp_path / "replays", results_dir=results))
    view = client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 5}).json()
    game = client.app.state.games[view["game"]]
    hand = view["hand"]["cards"]
    wrong = next(a for a in view["legal"] if a["kind"] == "accuse" and a["suspect"] in hand)  # a suspect held
    end = client.post(
        f"/api/games/{view['game']}/actions", json={"action": wrong["id"], "step": view["step"]}
    )
    end = end.json()
    assert end["over"] and end["players"][0]["out"] and end["save_error"] is None  # not asked again
    (record,), _rejected = load_games(results / "games.jsonl")
    assert record["seats"][0] == "human_seeded" and record["wrong_accusations"][0] == 1
    assert record["winner_seat"] == end["winner"] != 0
    shown, suggested = [], None
    for rows in game.recorder.record.events:
        for event in ev.read_events(rows):
            if event.kind == ev.SUGGEST:
                suggested = event.cards
            elif event.kind == ev.SHOW and event.player == 0:  # the person's refutations once out
                shown.append((event.card, min(c for c in suggested if c in hand)))
    assert shown, "seed 5 no longer asks the person to refute once out: pick another seed"
    assert [card for card, _ in shown] == [lowest for _, lowest in shown]  # the first legal action


def test_a_record_after_a_torn_line_starts_on_a_line_of_its_own(tmp_path):
    """An append cut short (a full disk) left a torn line; the next game's record was glued onto it and
    lost to cluedo-stats, while the page said it was saved."""
    results = tmp_path / "web-results"
    results.mkdir()
    torn = '{"config":"web-1f2e3d4c5b6a","lineup":"human+notep'
    (results / "games.jsonl").write_text(torn)
    client = TestClient(create_app(tmp_path / "replays", results_dir=results))
    with pytest.warns(
        RuntimeWarning, match="moved to games.jsonl.rejected, their results are not in the results folder"
    ):
        end = finish(client, {"agents": ["notepad", "notepad"], "seed": 3}, np.random.default_rng(0))
    assert end["save_error"] is None
    records, rejected = load_games(results / "games.jsonl")
    assert [r["config"] for r in records] == [f"web-{end['game']}"] and rejected == []
    assert (results / "games.jsonl.rejected").read_text() == torn + "\n"
