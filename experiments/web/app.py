"""The web app: a page to play Cluedo against agents, and its JSON API (FastAPI).

=======================================  ==========================================================
``GET /``                                the page (``static/``: ``index.html``, ``*.js``, ``style.css``)
``GET /api/catalogue``                   the cards' names and the classic board's geometry (the same
                                         for every game: no game data)
``POST /api/games``                      a new game: ``{"agents": ["sat", "sat", "sat"], "seat": 0,
                                         "seed": 7}`` (all optional, the body too) -> the person's
                                         view
``GET /api/games/{game}``                the person's view of a game now
``POST /api/games/{game}/actions``       play ``{"action": id, "step": n}`` (one of the view's
                                         ``legal`` ids; ``step``, the view's: an action sent for an
                                         older view is refused with 409), then the agents; -> the
                                         person's view
``DELETE /api/games/{game}``             the person leaves: the game is dropped at once (not saved
                                         unless it was over) -> ``{"left": game, "over": bool}``
``POST /api/games/{game}/closed``        the page showing it was closed or reloaded: kept, but
                                         dropped before any unfinished game that is open when the
                                         server is full; asking for the game again unmarks it; ->
                                         ``{"closed": game, "marked": bool}`` (false: another page
                                         asked for the game since, see below)
``GET /api/replays``                     the saved games (the replay folder's files, newest first)
``GET /api/replays/{name}?step=&seat=``  a saved game after ``step`` steps from ``seat``'s view, or
                                         ``seat=all``: everyone's, with the envelope and the hands
``POST /api/replays``                    upload a replay file (the request's body, at most
                                         ``upload.MAX_UPLOAD_BYTES``): checked and replayed on the
                                         core (``upload.store_upload``) -> ``{"replay": name}``
=======================================  ==========================================================

Every view is ``session.seat_view``'s (the person's private view; at the end the envelope and
the hands). Bad input is answered with a ``detail`` naming the value and what is accepted:

- 400: an unknown agent, an illegal action, a step or seat out of range, a page id of another
  form (``page_id``), an upload that is no valid replay, a file of the replay folder that is none
  or that the page cannot draw (named by its file name, not the folder's path);
- 404: an unknown game or replay;
- 409: an action for a view that is no longer the game's;
- 413: a request body over ``MAX_REQUEST_BYTES`` (``/api/games``) or an upload over
  ``upload.MAX_UPLOAD_BYTES``;
- 422: a body that is not JSON, or whose fields have the wrong type (``true`` is not a number, a
  seed is a whole number or its digits: not ``"1e3"``) or are unknown, in one line naming each
  field;
- 503: ``MAX_GAMES`` games kept and none of them finished, closed or idle for ``IDLE_S``
  (dropped in that order to make room for a new one); 507: as many uploads kept as the folder
  holds (``upload.MAX_UPLOADS``).

A page draws an id of its own when it loads (``app.js``'s ``PAGE``) and names it in each request
for a game (``?page=``: the new game, its view, an action, the closed notice). Only the closed
notice of the page that last asked for a game marks it: a reloaded page's notice may arrive after
the new page's first request for the game, and then marks nothing. Requests naming no page (a
script's) count as one page: a notice naming none marks the game when the last request for it named
none either. A page id is 1 to 64 letters, digits, ``-`` or ``_`` (400 otherwise).

A game's id (48 random bits) is the only key to it: whoever holds it may play or leave it, as
nobody else can guess it; a finished game's id is its replay's name (listed), and leaving it then
loses nothing.

A game whose seed the person chose joins the results as ``human_seeded`` (``results``).
``create_app(view=...)`` takes another view function only for the privacy test's leaky control.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, field_validator
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cluedo_env import core
from cluedo_env.board_view import board_layout, classic_room_cells, door_edges, passage_markers
from cluedo_env.core.board import COLS, ROWS, classic_board
from experiments.web.replay_view import list_replays, replay_view
from experiments.web.session import WEB_AGENTS, ActionRefused, WebGame, seat_view
from experiments.web.upload import MAX_UPLOAD_BYTES, UploadRefused, store_upload

__all__ = [
    "DEFAULT_AGENTS",
    "MAX_REQUEST_BYTES",
    "ActionRequest",
    "BodyLimit",
    "NewGame",
    "SameOrigin",
    "catalogue",
    "create_app",
    "left_unfinished",
    "page_id",
]

STATIC = Path(__file__).parent / "static"
DEFAULT_AGENTS = ("sat", "sat", "sat")
MAX_GAMES = 64  # games kept in memory; a new one makes room by dropping a finished, closed or idle one
IDLE_S = 3600.0  # a game not asked for this long may be dropped to make room
MAX_REQUEST_BYTES = 16 * 2**10  # a body of /api/games... (a new game's settings, an action: under 1 KB)
PAGE_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")  # a page's id (app.js draws 16 hex digits)


class BodyLimit:
    """ASGI middleware: a ``POST`` under ``prefix`` whose body passes ``limit`` bytes is answered 413
    before the app reads it (declared by its length, or counted as it arrives without one)."""

    def __init__(self, app: ASGIApp, limit: int, prefix: str) -> None:
        self.app, self.limit, self.prefix = app, limit, prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        too_big = JSONResponse(
            {"detail": f"the request's body is over the limit of {self.limit} bytes"}, status_code=413
        )
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await too_big(scope, receive, send)
            return
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await too_big(scope, receive, send)
                return
        whole: list[Message] = [{"type": "http.request", "body": bytes(body), "more_body": False}]

        async def replay() -> Message:  # the body read above, then what comes after it (a disconnect)
            return whole.pop() if whole else await receive()

        await self.app(scope, replay, send)


def _hostname(host: str) -> str | None:
    """The host name of a ``Host`` header (an IPv6 address without its brackets), lower case; None for
    one that is no host."""
    try:
        return urlsplit(f"//{host}").hostname or None
    except ValueError:  # ("[::1", "[evil]:8000")
        return None


class SameOrigin:
    """ASGI middleware: requests of this server's own pages only.

    A request other than ``GET`` or ``HEAD`` (a ``POST``, a ``DELETE``) that a browser sent from
    another site's page (its ``Origin`` is not the request's own address, nor one of ``origins``) is
    answered 403: browsers send ``Origin`` with every such request, also the ``no-cors`` ones a page
    may send to any address without reading the answer, and without this check any page open in the
    browser could deal games until the server is full, or upload replays. A request without
    ``Origin`` (a script, ``curl``) is the user's own and passes. Given
    ``hosts``, a request naming another host (its ``Host`` header, brackets of IPv6 read) is answered 400:
    a page of a name that resolves to this machine (DNS rebinding) cannot read it.
    """

    def __init__(self, app: ASGIApp, hosts: Sequence[str] | None = None, origins: Sequence[str] = ()) -> None:
        self.app = app
        self.hosts = None if hosts is None else {h.strip("[]").casefold() for h in hosts}
        self.origins = {o.rstrip("/").casefold() for o in origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin", b"").decode("latin-1")
        refused = None
        if self.hosts is not None and _hostname(host) not in self.hosts:
            refused = JSONResponse({"detail": f"this server answers for {sorted(self.hosts)}, not {host[:80]!r}"},
                                   status_code=400)  # fmt: skip
        elif (
            scope["method"] not in ("GET", "HEAD")
            and origin
            and urlsplit(origin).netloc != host
            and origin.rstrip("/").casefold() not in self.origins
        ):
            refused = JSONResponse(
                {"detail": f"a request from another site's page ({origin[:80]}) is refused"}, status_code=403
            )
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RequestBody(BaseModel):
    """A request body: no unknown fields, and no ``true`` or ``false`` read as a number."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _not_a_boolean(cls, value: object) -> object:
        if isinstance(value, bool):
            raise ValueError(f"expected a number, got {str(value).lower()}")
        return value


class NewGame(RequestBody):
    """A new game's settings: the agents at the other seats (in seat order), the person's seat, the seed
    (None: drawn by the server; a chosen one marks the person ``human_seeded`` in the results)."""

    agents: list[str] = list(DEFAULT_AGENTS)
    seat: int = 0
    seed: int | None = None

    @field_validator("seed", mode="before")
    @classmethod
    def _whole(cls, value: object) -> object:
        """A JSON integer, or its digits as a string (the page sends the digits: a JavaScript number
        rounds a seed above 2**53); not ``"1e3"``, ``1000.0`` or ``" 7"``. (Its range: ``WebGame``; a
        boolean: ``_not_a_boolean``.)"""
        if (
            value is None
            or type(value) in (int, bool)
            or (isinstance(value, str) and value.isascii() and value.isdigit())
        ):
            return value
        raise ValueError(
            f"seed must be a whole number in [0, {core.SEED_BOUND}) (a JSON integer or its digits), "
            f"or null for a seed drawn by the server, got {value!r:.60}"
        )


class ActionRequest(RequestBody):
    """The person's action: an id from the view's ``legal`` list, and the view's ``step`` (the actions
    played in the game when the view was drawn): a request from an older view is refused (409), so a
    click sent twice is not played at a later decision the person has not seen."""

    action: int
    step: int


def catalogue() -> dict:
    """The classic edition's card names and the classic board's geometry, for drawing the page."""
    e = core.GameConfig().cards
    board = classic_board()
    return {
        "suspects": list(e.suspects),
        "weapons": list(e.weapons),
        "rooms": list(e.rooms),
        "cards": list(e.cards),
        "board": {
            "rows": ROWS,
            "cols": COLS,
            "squares": [list(square) for square in board.squares],
            "starts": [list(board.squares[s]) for s in board.starts],
            "rooms": [[list(cell) for cell in cells] for cells in classic_room_cells()],
            "labels": [list(box) for box in board_layout("classic", e.num_rooms).rooms],
            "doors": [[list(cell), list(square)] for cell, square in door_edges()],
            "passages": [
                {"room": room, "cell": list(cell), "to": int(board.passages[room])}
                for room, cell in passage_markers().items()
            ],
        },
    }


def invalid_field(error: dict) -> str:
    """One of a request's validation errors (pydantic's) in words: the field, what is wrong, the value
    (cut to 60 characters: a value is never sent back as JSON, which has no NaN)."""
    where = ".".join(str(part) for part in error["loc"] if part != "body")
    said = error["msg"].removeprefix("Value error, ")
    if error["type"] == "json_invalid":
        return f"the body is not JSON ({error.get('ctx', {}).get('error', said)} at character {where})"
    if error["type"] != "missing" and "got " not in said:
        said += f", got {error.get('input')!r:.60}"
    return said if said.startswith(f"{where} ") else f"{where or 'the body'}: {said}"


def page_id(page: str | None) -> str | None:
    """The ``page`` query parameter of a request for a game: the id the page that sent it drew when it
    loaded, or None for a request naming none (a script's).

    Raises:
        HTTPException: 400 for an id that is not 1 to 64 letters, digits, ``-`` or ``_``.
    """
    if page is not None and not PAGE_ID.fullmatch(page):
        raise HTTPException(
            400, f"page must be 1 to 64 letters, digits, '-' or '_' (the id a page draws when it loads), got {page!r:.80}"
        )  # fmt: skip
    return page


def left_unfinished(app: FastAPI) -> int:
    """How many games of ``app`` the person left before their end (left, dropped to make room, or still
    in play now): saved neither as replays nor in the results. (A game the person is out of is played
    to its end at once, so it is never one of them.)"""
    return app.state.dropped_unfinished + sum(not game.over for game in list(app.state.games.values()))


def create_app(
    replay_dir: str | Path = "results/web",
    view: Callable[[WebGame], dict] = seat_view,
    results_dir: str | Path | None = None,
    hosts: Sequence[str] | None = None,
    origins: Sequence[str] = (),
) -> FastAPI:
    """The app; finished games are saved as replays (``cluedo_env.replay``'s format) in ``replay_dir``
    and, given ``results_dir``, appended to its ``games.jsonl`` as tournament game records with the
    person as the agent ``human`` (``experiments.web.results``). A ``POST`` from another site's page than
    this server's (or one of ``origins``, such as a reverse proxy's public address) is refused, and given
    ``hosts``, a request naming another host (``SameOrigin``)."""
    app = FastAPI(title="Cluedo", docs_url=None, redoc_url=None)
    app.add_middleware(BodyLimit, limit=MAX_REQUEST_BYTES, prefix="/api/games")
    app.add_middleware(SameOrigin, hosts=hosts, origins=origins)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        """422 in one line naming each field and what is wrong with it (FastAPI's own answer is a list
        echoing the value as JSON, and a NaN or Infinity in the body then made it a 500)."""
        return JSONResponse({"detail": "; ".join(map(invalid_field, error.errors()))}, status_code=422)

    games: dict[str, WebGame] = {}
    lock = threading.Lock()
    replays = Path(replay_dir)
    results = Path(results_dir) if results_dir is not None else None
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.state.games = games
    app.state.results_dir = results
    app.state.dropped_unfinished = 0  # games dropped idle before their end (``left_unfinished``)

    def find(game_id: str, page: str | None) -> WebGame:
        """The game ``game_id``, asked for now by ``page`` (``page_id``): the page whose closed notice
        counts from now on; the game is no longer marked closed."""
        asker = page_id(page)
        with lock:  # (a closed notice reads game.page and sets the mark under this lock too)
            game = games.get(game_id)
            if game is None:
                raise HTTPException(404, f"no game {game_id!r}: start one with POST /api/games")
            game.seen, game.closed, game.page = time.monotonic(), False, asker
        return game

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/catalogue")
    def get_catalogue() -> dict:
        return catalogue()

    @app.post("/api/games")
    def new_game(settings: NewGame | None = None, page: str | None = None) -> dict:
        settings = settings or NewGame()
        asker = page_id(page)  # the page that deals the game: its closed notice counts
        game_id = secrets.token_hex(6)
        # drawn from every seed: a smaller range could be searched for the deal that matches one's hand
        seed = settings.seed if settings.seed is not None else secrets.randbelow(core.SEED_BOUND)
        try:
            game = WebGame(
                game_id, settings.agents, settings.seat, seed, replays, results, settings.seed is not None
            )
        except ValueError as error:
            raise HTTPException(400, str(error)) from error
        game.page = asker
        with lock:  # kept before the agents play: a game refused here was never played, nor saved
            while len(games) >= MAX_GAMES:
                now = time.monotonic()
                gone = [
                    g for g, kept in games.items() if kept.over or kept.closed or now - kept.seen > IDLE_S
                ]
                if not gone:
                    raise HTTPException(
                        503, f"{len(games)} games are in play, the most this server keeps at once ({MAX_GAMES}); try "
                        f"again when one of them ends, is left (its page closed), or has been idle {IDLE_S / 60:g} minutes"
                    )  # fmt: skip
                # the games over first, then those whose page was closed; of those, the least recently seen
                dropped = games.pop(
                    min(gone, key=lambda g: (not games[g].over, not games[g].closed, games[g].seen))
                )
                app.state.dropped_unfinished += not dropped.over
            games[game_id] = game
        with game.lock:
            game.start()
            return view(game)

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, page: str | None = None) -> dict:
        game = find(game_id, page)
        with game.lock:
            return view(game)

    @app.post("/api/games/{game_id}/actions")
    def act(game_id: str, request: ActionRequest, page: str | None = None) -> dict:
        game = find(game_id, page)
        with game.lock:
            if request.step != game.steps:
                raise HTTPException(
                    409, f"action {request.action} refused: it answers the view at step {request.step}, "
                    f"and the game is at step {game.steps}; draw the game again (GET /api/games/{game_id})"
                )  # fmt: skip
            try:
                game.play(request.action)
            except ActionRefused as error:
                raise HTTPException(400, str(error)) from error
            return view(game)

    @app.delete("/api/games/{game_id}")
    def leave(game_id: str) -> dict:
        with lock:
            if game_id not in games:
                raise HTTPException(404, f"no game {game_id!r}: it was left, or dropped, or never dealt")
            game = games.pop(game_id)
        with game.lock, lock:  # an action on its way is played first: a game it ends is saved, not left
            app.state.dropped_unfinished += not game.over
            return {"left": game_id, "over": game.over}

    @app.post("/api/games/{game_id}/closed")
    def closed(game_id: str, page: str | None = None) -> dict:
        sender = page_id(page)
        with lock:
            game = games.get(game_id)
            if game is None:
                raise HTTPException(404, f"no game {game_id!r}: it was left, or dropped, or never dealt")
            # only the page that last asked for the game closes it: a reloaded page's notice may come
            # after the new page's first request, and would mark the game the person plays on (not
            # seen: a page closing is not a person looking)
            marked = sender == game.page
            game.closed = game.closed or marked
        return {"closed": game_id, "marked": marked}

    @app.get("/api/replays")
    def replays_list() -> dict:
        return {"replays": list_replays(replays)}

    @app.get("/api/replays/{name}")
    def replay_at(name: str, step: int = 0, seat: str = "all") -> dict:
        if seat != "all" and not (seat.isascii() and seat.isdigit()):
            raise HTTPException(400, f"seat must be a seat number or 'all', got {seat!r}")
        try:
            return replay_view(replays, name, step, None if seat == "all" else int(seat), view)
        except FileNotFoundError as error:
            raise HTTPException(404, str(error)) from error
        except ValueError as error:  # a step or seat out of range, a cut or altered file
            raise HTTPException(400, str(error)) from error

    @app.post("/api/replays")
    async def upload(request: Request) -> dict:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES:
            raise HTTPException(
                413, f"the upload is {declared} bytes; at most {MAX_UPLOAD_BYTES} bytes are accepted"
            )
        data = bytearray()
        async for chunk in request.stream():  # a body without a length is cut off at the limit too
            data += chunk
            if len(data) > MAX_UPLOAD_BYTES:
                raise HTTPException(413, f"the upload is over the limit of {MAX_UPLOAD_BYTES} bytes")
        try:
            name = await run_in_threadpool(store_upload, replays, bytes(data))
        except UploadRefused as error:
            raise HTTPException(error.status, str(error)) from error
        return {"replay": name}

    @app.get("/api/agents")
    def agents() -> dict:
        return {"agents": list(WEB_AGENTS), "default": list(DEFAULT_AGENTS)}

    return app
