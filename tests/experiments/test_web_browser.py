"""The web page in a real browser: Debian's Chromium, driven by Playwright, clicks a whole game
through against three agents, on the real server (uvicorn on 127.0.0.1), then steps through its
replay and plays it to the end.

Skipped, saying why, where Chromium (``/usr/bin/chromium``, the Debian package ``chromium``) or
Playwright (``pip install pytest-playwright``) is missing. Screenshots of the first move onto the board
(``web-move.png``), of the end screen (``web-end.png``) and of the replay's last step seen by
everyone (``web-replay.png``) and by P0 with its posterior's heat map (``web-posterior.png``) are saved in the test's temporary folder
and, when ``$CLUEDO_ARTEFACTS`` names a folder, there.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="needs Playwright: pip install pytest-playwright"
)
uvicorn = pytest.importorskip("uvicorn", reason="the web app needs the web extra: pip install -e '.[web]'")

from cluedo_env import core  # noqa: E402
from cluedo_env.replay import record_random_game  # noqa: E402
from experiments.web.app import create_app  # noqa: E402

CARDS = core.GameConfig().cards
WEAPONS = CARDS.weapons
MAX_CLICKS = 600
WAIT_MS = 60_000


class Gate:
    """ASGI middleware before the served app: a request whose path ends with ``held`` (none while it is
    None) waits until ``opened`` is set, as a slow network would hold it; ``waiting`` lists their
    queries as they arrive, ``answered`` the bodies of their answers."""

    def __init__(self) -> None:
        self.app, self.held, self.opened = None, None, threading.Event()
        self.waiting: list[str] = []
        self.answered: list[bytes] = []

    async def __call__(self, scope, receive, send) -> None:
        if not (self.held and scope["type"] == "http" and scope["path"].endswith(self.held)):
            await self.app(scope, receive, send)
            return
        self.waiting.append(scope["query_string"].decode())
        await asyncio.to_thread(self.opened.wait, 30)
        body = bytearray()

        async def answer(message) -> None:
            body.extend(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, answer)
        self.answered.append(bytes(body))


@pytest.fixture
def gate():
    return Gate()


@pytest.fixture
def served(tmp_path, gate):
    """The app on a free port of 127.0.0.1, served by uvicorn in a thread behind ``gate``; its address
    and the app."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = gate.app = create_app(tmp_path / "replays")
    running = uvicorn.Server(uvicorn.Config(gate, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    running.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def server(served):
    """The served app's address."""
    return served[0]


def until(condition, what: str) -> None:
    """Wait (10 s at most) until ``condition()`` holds: the server's side of a request the page sent
    without waiting for its answer."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def deal(page):
    """Start a game of seed 4 against notepad agents, and wait for its first view."""
    for menu in page.locator("#agent-choices select").all():
        menu.select_option("notepad")
    page.fill("#seed", "4")
    page.click("#start")
    page.wait_for_selector("#game[data-renders]", timeout=WAIT_MS)


def next_click(page):
    """What the person clicks next: an enterable room on the board, else the first legal choice
    that is no accusation (a suggestion's menus as they come)."""
    room = page.locator("#marks .enterable")
    if room.count():
        return room.first
    choices = page.locator(
        "#actions button[data-action-id]:not([data-kind=accuse]), #actions button[data-submit=suggest]"
    )
    return choices.first if choices.count() else None


def step_through_the_replay(page, tmp_path):
    """Back at the start: open the game just played from everyone's view, step on, play it to the end."""
    page.click("#again")
    page.wait_for_selector("#replay-name option", state="attached")
    page.select_option("#replay-seat", "all")
    page.click("#open")
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert page.inner_text("#step-text").startswith("step 0 of ")
    assert "Everyone's view" in page.inner_text("#result")
    assert page.locator("#board #pieces g.weapon").count() == len(WEAPONS)
    for expected in (1, 2):
        page.click("#step-on")
        page.wait_for_function(
            f"document.getElementById('step-text').textContent.startsWith('step {expected} of')"
        )
    page.select_option("#speed", "100")
    page.click("#play-replay")
    steps = int(page.get_attribute("#step", "max"))
    page.wait_for_function(
        f"document.getElementById('step-text').textContent.startsWith('step {steps} of')", timeout=WAIT_MS * 2
    )
    assert page.inner_text("#result").endswith("won.")
    assert not page.is_visible("#posterior")  # everyone's view shows the truth, no seat's posterior
    page.screenshot(path=str(tmp_path / "web-replay.png"))
    page.select_option("#bar-seat", "0")
    page.wait_for_function("document.getElementById('step-text').textContent.includes('seen by P0')")
    assert page.is_visible("#posterior")
    assert page.locator("#heatmap tr[data-card]").count() == len(CARDS.cards)
    hand = set(page.locator("#hand li").all_inner_texts())
    for row in page.locator("#heatmap tr[data-card]").all():
        cells = row.locator("td").all_inner_texts()  # the card, then a percentage per player and the envelope
        assert len(cells) == 1 + 4 + 1 and sum(map(int, cells[1:])) in range(97, 104), cells
        if cells[0] in hand:
            assert cells[1:] == ["100", "0", "0", "0", "0"], cells
    page.click("#step-back")  # before the last step the game runs: P0 sees no envelope, no hands
    page.wait_for_function(
        f"document.getElementById('step-text').textContent.startsWith('step {steps - 1} of')"
    )
    assert page.is_visible("#posterior") and page.is_hidden("#end")
    page.screenshot(path=str(tmp_path / "web-posterior.png"), full_page=True)
    page.click("#close-replay")
    page.wait_for_selector("#saved:not([hidden])")


@pytest.fixture
def chromium(server):
    """Chromium on the served page, the board drawn: the page and the list of its script errors."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server)
        page.wait_for_selector("#board #base rect.room", state="attached")
        yield page, errors
        browser.close()


def test_a_whole_game_clicked_through_in_chromium(chromium, tmp_path):
    page, errors = chromium
    deal(page)
    assert page.locator("#hand li").count() == 5
    assert page.locator("#board #pieces circle.pawn").count() == 6
    weapons = page.locator("#board #pieces g.weapon title")
    assert sorted(weapons.all_text_contents()) == sorted(WEAPONS)  # each weapon's token, named
    assert page.locator("#notepad td.heat").count() == 21  # the chance of each card in the envelope
    page.check("#auto-mark")
    clicks, entered = 0, False
    while page.locator("#end[hidden]").count():
        target = next_click(page)
        assert target is not None, f"no legal choice on the page: {page.inner_text('#now')}"
        if target.get_attribute("class") == "enterable" and not entered:
            page.screenshot(path=str(tmp_path / "web-move.png"))  # the reachable squares and rooms
            entered = True
        drawn = page.get_attribute("#game", "data-renders")
        target.click()
        page.wait_for_function(
            f"document.getElementById('game').dataset.renders !== '{drawn}'", timeout=WAIT_MS
        )
        clicks += 1
        assert clicks < MAX_CLICKS, "the game did not end"
    assert "(deduced)" in page.inner_text("#notepad")
    assert not page.is_visible("#replay-bar")  # a live game has no replay controls
    result = page.inner_text("#result")
    assert result.endswith("won.") or result.endswith("won!") or "nobody" in result.lower()
    assert "The envelope:" in page.inner_text("#reveal") and "Saved as the replay" in page.inner_text(
        "#reveal"
    )
    assert entered, "no room was entered by a click on the board"
    assert errors == []
    shot = tmp_path / "web-end.png"
    page.screenshot(path=str(shot), full_page=True)
    step_through_the_replay(page, tmp_path)
    assert errors == []
    assert shot.stat().st_size > 10_000
    if os.environ.get("CLUEDO_ARTEFACTS"):
        folder = Path(os.environ["CLUEDO_ARTEFACTS"])
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("web-move.png", "web-end.png", "web-replay.png", "web-posterior.png"):
            shutil.copy(tmp_path / name, folder / name)
    assert list((tmp_path / "replays").glob("*.jsonl"))


def test_a_replay_uploaded_in_chromium_is_watched_from_a_seat(chromium, tmp_path):
    page, errors = chromium
    good, bad = tmp_path / "game.jsonl", tmp_path / "notes.jsonl"
    record = record_random_game(core.GameConfig(num_players=3), seed=21, path=good, rng_seed=4)
    bad.write_text("not a replay\n")
    page.set_input_files("#upload", str(bad))
    page.wait_for_function("document.getElementById('status').textContent.includes('refused')")
    assert "line 1: not JSON" in page.inner_text("#status")
    assert page.locator("#replay-name option").count() == 0
    page.set_input_files("#upload", str(good))
    page.wait_for_function("document.getElementById('status').textContent.includes('uploaded as')")
    name = page.input_value("#replay-name")
    assert name.startswith("upload-") and page.inner_text("#status").endswith(name)
    page.select_option("#replay-seat", "2")
    page.click("#open")
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert page.inner_text("#step-text") == f"step 0 of {record.num_steps}, seen by P2 (Mrs White)"
    assert page.locator("#heatmap tr[data-card]").count() == len(CARDS.cards)
    assert errors == []


def test_a_game_survives_a_lost_answer_and_a_reload_in_chromium(chromium):
    """A move whose answer did not arrive left every later click answered 409 with nothing to redraw the
    game; a reload lost the game (its id was nowhere but in the page)."""
    page, errors = chromium
    deal(page)
    kept = page.evaluate("location.hash")
    assert kept.startswith("#game=")

    def lost(route):  # the move reaches the server; its answer does not reach the page
        route.fetch()
        route.abort()

    page.route("**/actions*", lost, times=1)
    drawn = page.get_attribute("#game", "data-renders")
    next_click(page).click()
    page.wait_for_function(f"document.getElementById('game').dataset.renders !== '{drawn}'", timeout=WAIT_MS)
    assert "the game is drawn as it is now" in page.inner_text("#status")
    now = page.inner_text("#now")
    page.reload()
    page.wait_for_selector("#game[data-renders]", timeout=WAIT_MS)
    assert (
        page.evaluate("location.hash") == kept and page.is_visible("#game") and page.inner_text("#now") == now
    )
    drawn = page.get_attribute("#game", "data-renders")
    next_click(page).click()  # and it plays on
    page.wait_for_function(f"document.getElementById('game').dataset.renders !== '{drawn}'", timeout=WAIT_MS)
    page.click("#leave")  # a game left before its end: back to the start, and a reload stays there
    assert page.is_visible("#setup") and page.evaluate("location.hash") == ""
    page.reload()
    page.wait_for_selector("#board #base rect.room", state="attached")
    assert page.is_visible("#setup") and page.is_hidden("#game")
    assert errors == []


def test_a_game_left_while_the_others_play_stays_left_in_chromium(chromium):
    """The answer to the move made before leaving brought the game back (and into the address)."""
    page, errors = chromium
    deal(page)
    held = []
    page.route("**/actions*", lambda route: held.append(route), times=1)  # the move's request waits here
    next_click(page).click()
    page.wait_for_function("document.getElementById('status').textContent.includes('the others are playing')")
    page.click("#leave")
    held[0].continue_()  # the answer comes after the person left
    page.wait_for_timeout(1500)
    assert page.is_visible("#setup") and page.is_hidden("#game") and page.evaluate("location.hash") == ""
    assert errors == []


def heading_at_the_end(page, name: str, seat: str) -> str:
    """The end's heading of replay ``name`` seen by ``seat`` (a seat number or "all") at its last step."""
    page.select_option("#replay-name", name)
    page.select_option("#replay-seat", seat)
    page.click("#open")
    page.wait_for_selector("#replay-bar:not([hidden])")
    steps = int(page.get_attribute("#step", "max"))
    page.eval_on_selector(
        "#step", "(el, v) => { el.value = v; el.dispatchEvent(new Event('change')); }", steps
    )
    page.wait_for_function(
        f"document.getElementById('step-text').textContent.startsWith('step {steps} of')", timeout=WAIT_MS
    )
    heading = page.inner_text("#result")
    page.click("#close-replay")
    page.wait_for_selector("#saved:not([hidden])")
    return heading


def test_the_end_of_a_replay_names_the_winner_or_why_nobody_won_in_chromium(chromium, tmp_path):
    """Everyone's view has seat -1, and a game nobody won has winner -1: a truncated or all-out game was
    headed "You won!"; so was a replay seen by its winner's seat."""
    from fastapi.testclient import TestClient

    page, errors = chromium
    folder = tmp_path / "replays"  # the server's
    folder.mkdir(exist_ok=True)
    record_random_game(core.GameConfig(num_players=3, max_turns=3), seed=2, path=folder / "short.jsonl")
    record_random_game(
        core.GameConfig(num_players=3), seed=0, path=folder / "allout.jsonl"
    )  # all accuse wrongly
    client = TestClient(create_app(folder))  # a game an agent wins, the person never accusing
    view = client.post("/api/games", json={"agents": ["notepad", "notepad"], "seed": 4}).json()
    while not view["over"]:
        calm = [a for a in view["legal"] if a["kind"] != "accuse"]
        view = client.post(
            f"/api/games/{view['game']}/actions", json={"action": calm[0]["id"], "step": view["step"]}
        ).json()
    assert view["winner"] > 0, "seed 4 no longer ends with an agent's win: pick another seed"
    page.reload()
    page.wait_for_selector(f"#replay-name option[value='{view['replay']}']", state="attached")
    assert heading_at_the_end(page, "short.jsonl", "all") == "Out of turns: nobody won."
    assert heading_at_the_end(page, "allout.jsonl", "all") == "Everyone accused wrongly: nobody won."
    assert heading_at_the_end(page, "allout.jsonl", "1") == "Everyone accused wrongly: nobody won."
    won = f"{view['winner_name']} won."
    assert heading_at_the_end(page, view["replay"], "all") == won
    assert heading_at_the_end(page, view["replay"], str(view["winner"])) == won
    assert errors == []


def test_a_game_left_is_dropped_and_a_closed_page_says_so_in_chromium(chromium, served):
    """ "Leave this game" only went back to the start: the server kept the game an hour, and 64 deals
    tried and left refused every new game on the server."""
    page, errors = chromium
    games = served[1].state.games
    deal(page)
    game = page.evaluate("view.game")
    page.click("#leave")
    until(lambda: game not in games, "the game left is still on the server")
    deal(page)
    game = page.evaluate("view.game")
    page.goto("about:blank")  # the tab leaves the page: the game is marked, not dropped (a reload comes back)
    until(lambda: games[game].closed, "the server was not told that the page was closed")
    page.go_back()
    page.wait_for_selector("#game[data-renders]", timeout=WAIT_MS)
    until(lambda: not games[game].closed, "the game asked for again is still marked closed")
    assert errors == []


def test_a_reloaded_page_s_late_closed_notice_leaves_its_game_open_in_chromium(chromium, served, gate):
    """A reload sends the old page's closed notice (a beacon) and the new page's request for the game, in
    either order: a notice arriving last marked the game the person plays on, dropped first when full."""
    page, errors = chromium
    games = served[1].state.games
    deal(page)
    game = page.evaluate("view.game")
    gate.held = "/closed"  # the old page's notice waits until the new page has its game
    page.reload()
    page.wait_for_selector("#game[data-renders]", timeout=WAIT_MS)
    until(lambda: gate.waiting, "the page sent no closed notice as it was reloaded")
    gate.opened.set()
    until(lambda: gate.answered, "the closed notice got no answer")
    assert not games[game].closed, "the reloaded page's game is marked closed"
    assert json.loads(gate.answered[0]) == {"closed": game, "marked": False}
    old, new = gate.waiting[0], page.evaluate("PAGE")  # each page's id, drawn when it loaded
    assert games[game].page == new and old.startswith("page=") and old != f"page={new}"
    assert errors == []


def test_a_server_that_does_not_answer_or_lost_the_game_is_said_in_words_in_chromium(chromium, served):
    """A restarted server's 404 left the dead game on the page ("no game '956a...': start one with POST
    /api/games"), a stopped one said "Failed to fetch; Failed to fetch", and a seed of 1e3 was sent as
    typed (a list of pydantic's errors came back)."""
    page, errors = chromium
    page.fill("#seed", "1e3")
    page.click("#start")
    assert page.inner_text("#status").startswith("the seed must be a whole number written in digits")
    assert page.is_visible("#setup") and served[1].state.games == {}
    deal(page)
    page.route("**/api/games/**", lambda route: route.abort())  # the server is down
    next_click(page).click()
    page.wait_for_function("document.getElementById('status').textContent.startsWith('the server does not')")
    page.wait_for_timeout(500)
    assert (
        page.inner_text("#status")
        == "the server does not answer (stopped, or the network is down); try again once it is back"
    )
    page.unroute("**/api/games/**")
    served[1].state.games.clear()  # what a restart leaves
    next_click(page).click()
    page.wait_for_selector("#setup:not([hidden])")
    assert page.inner_text("#status").startswith("that game is no longer on the server (it was restarted")
    assert page.is_hidden("#game") and page.evaluate("location.hash") == ""
    assert errors == []
