"""The chat client against hostile servers: real HTTP listeners on 127.0.0.1, each in its own threads.

Each server misbehaves in one way a real one can (it drips its answer a byte at
a time, sends megabytes, counts tokens in nonsense, echoes the request's
``Authorization`` header back), and the client must stay within its bounds:
an attempt ends by ``timeout_s`` whatever arrives meanwhile, a reply is at most
``max_reply_bytes``, ``usage`` is whole numbers of tokens or the reply is
refused, and no message repeats the key. Times are checked only as generous
upper bounds (a 1 s timeout returns within 5 s).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from agents.arena import play_batch
from agents.baselines.notepad_agent import NotepadAgent
from agents.llm.chat import ECHO_CHARS, MAX_USAGE_TOKENS, ChatClient, ChatError, ChatReplyError
from agents.llm.llm_agent import LLMAgent
from cluedo_env import core
from experiments.common.settings import AgentSpec, GameSettings, LineupConfig, TournamentConfig
from experiments.common.tournament_run import run_tournament
from experiments.scripted_chat_server import ScriptedChatServer

SECRET = "sk-test-0123456789abcdefSECRET"
HI = [{"role": "user", "content": "Your legal commands:\n- roll\n"}]


def completion(text: str = "roll", usage: object = None) -> bytes:
    """A well-formed chat completion (with ``usage`` when given)."""
    body: dict = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body).encode()


class HostileServer:
    """A listener on 127.0.0.1 whose every POST is answered by ``answer(handler)``, writing raw bytes."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler, threading.Event], None]) -> None:
        self.stopping = threading.Event()
        self.requests: list[dict[str, str]] = []  # the headers of each request
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append(dict(self.headers))
                with contextlib.suppress(OSError):  # the client hung up: what a bounded client does
                    answer(self, server.stopping)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()


def client(url: str, **options) -> ChatClient:
    return ChatClient(url, "m", **{"network_retries": 0, "backoff_s": 0.0, "timeout_s": 1.0, **options})


def timed(function: Callable[[], object]) -> tuple[BaseException | None, float]:
    """The exception ``function`` raised (None if none) and the seconds it took."""
    start = time.monotonic()
    try:
        function()
    except Exception as error:
        return error, time.monotonic() - start
    return None, time.monotonic() - start


# --- the deadline -------------------------------------------------------------------------------


def drip_body(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """Headers at once, then the body one byte every half second."""
    body = completion()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.flush()
    for i in range(len(body)):
        if stopping.wait(0.5):
            return
        handler.wfile.write(body[i : i + 1])
        handler.wfile.flush()


def drip_headers(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """The status line and headers themselves one byte every half second (then a long header, forever)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: " + b"x" * 10_000
    for i in range(len(head)):
        if stopping.wait(0.5):
            return
        handler.wfile.write(head[i : i + 1])
        handler.wfile.flush()


@pytest.mark.parametrize("drip", [drip_body, drip_headers], ids=["body", "headers"])
def test_a_server_dripping_a_byte_at_a_time_is_cut_off_at_the_deadline(drip):
    with HostileServer(drip) as server:
        error, seconds = timed(lambda: client(server.url, timeout_s=1.0).complete(HI))
    assert isinstance(error, ChatError) and not isinstance(error, ChatReplyError)  # a timeout: stop, resume
    assert "no complete reply within timeout_s=1 s" in str(error)
    assert seconds < 5.0


def test_every_attempt_has_its_own_deadline():
    with HostileServer(drip_body) as server:
        error, seconds = timed(lambda: client(server.url, timeout_s=1.0, network_retries=2).complete(HI))
        assert len(server.requests) == 3
    assert "failed 3 times" in str(error) and seconds < 3 * 5.0


def test_control_httpx_timeouts_alone_let_the_drip_run_past_them():
    # The old client's httpx timeout bounds each read, not the request: the drip outlives it.
    with HostileServer(drip_body) as server:
        outcome: list[object] = []
        thread = threading.Thread(
            target=lambda: outcome.append(
                timed(lambda: httpx.post(server.url + "/chat/completions", timeout=1.0))
            )
        )
        thread.start()
        thread.join(3.0)
        assert thread.is_alive() and not outcome  # still reading after three times its timeout
    thread.join(10.0)  # the server stopped: the drip ends


# --- the size of a reply ------------------------------------------------------------------------


def send(
    handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None
) -> None:
    handler.send_response(status)
    for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def huge_declared(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """50 MB announced and sent (a text of 'a's in a valid completion)."""
    body = completion("a" * 50_000_000)
    send(handler, 200, body, {"Content-Length": str(len(body))})


def huge_chunked(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """2 MB of one completion in chunks, no length announced."""
    body = completion("a" * 2_000_000)
    handler.protocol_version = "HTTP/1.1"
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for start in range(0, len(body), 65536):
        chunk = body[start : start + 65536]
        handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    handler.wfile.write(b"0\r\n\r\n")


def gzip_bomb(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """50 MB of one completion, sent as 50 KB of gzip (although the client asked for no compression)."""
    body = gzip.compress(completion("a" * 50_000_000))
    send(handler, 200, body, {"Content-Length": str(len(body)), "Content-Encoding": "gzip"})


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (huge_declared, "Content-Length 50,000,0"),
        (huge_chunked, "body is over max_reply_bytes=524,288"),
        (gzip_bomb, "over max_reply_bytes=524,288 once decompressed"),
    ],
    ids=["declared", "chunked", "gzip"],
)
def test_a_reply_over_max_reply_bytes_is_refused_without_reading_it_all(answer, said):
    with HostileServer(answer) as server:
        error, seconds = timed(lambda: client(server.url, timeout_s=30.0).complete(HI))
    assert isinstance(error, ChatReplyError) and said in str(error)
    assert seconds < 5.0


@pytest.mark.parametrize("extra", [0, 1])
def test_max_reply_bytes_is_the_bound(extra):
    body = completion("roll")
    with HostileServer(
        lambda handler, _: send(handler, 200, body, {"Content-Length": str(len(body))})
    ) as server:
        error, _ = timed(lambda: client(server.url, max_reply_bytes=len(body) - extra).complete(HI))
    assert (error is None) == (extra == 0)


def test_an_honestly_compressed_reply_is_read():
    body = completion("end turn", {"prompt_tokens": 3, "completion_tokens": 2})
    packed = gzip.compress(body)
    headers = {"Content-Length": str(len(packed)), "Content-Encoding": "gzip"}
    with HostileServer(lambda handler, _: send(handler, 200, packed, headers)) as server:
        reply = client(server.url).complete(HI)
        assert server.requests[0]["Accept-Encoding"] == "identity"
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("end turn", 3, 2)


# --- usage --------------------------------------------------------------------------------------

BAD_USAGE = [
    "lots",
    [1, 2],
    {"prompt_tokens": "12"},
    {"prompt_tokens": -33_000_000},
    {"prompt_tokens": True},
    {"prompt_tokens": 12.0},
    {"completion_tokens": 10**12},
    {"completion_tokens": MAX_USAGE_TOKENS + 1},
    {"completion_tokens": [3]},
    {"completion_tokens": {"n": 3}},
]


@pytest.mark.parametrize("usage", BAD_USAGE, ids=[json.dumps(u) for u in BAD_USAGE])
def test_a_reply_whose_usage_is_not_whole_numbers_of_tokens_is_refused(usage):
    with ScriptedChatServer(["valid"], usage=usage) as server:
        error, _ = timed(lambda: client(server.url).complete(HI))
    assert isinstance(error, ChatReplyError), error
    assert "usage" in str(error)


@pytest.mark.parametrize(
    ("usage", "counts"),
    [
        ({}, (0, 0)),
        ({"prompt_tokens": None, "completion_tokens": 4}, (0, 4)),
        ({"prompt_tokens": 0, "completion_tokens": MAX_USAGE_TOKENS}, (0, MAX_USAGE_TOKENS)),
    ],
)
def test_usage_that_is_absent_or_whole_numbers_is_read(usage, counts):
    with ScriptedChatServer(["valid"], usage=usage) as server:
        reply = client(server.url).complete(HI)
    assert (reply.prompt_tokens, reply.completion_tokens) == counts


def test_a_malformed_usage_is_retried_like_any_bad_reply():
    with ScriptedChatServer(["valid"], usage="lots") as server:
        error, _ = timed(lambda: client(server.url, network_retries=2).complete(HI))
        assert len(server.log) == 3
    assert isinstance(error, ChatReplyError) and "failed 3 times" in str(error)


# --- credentials --------------------------------------------------------------------------------


def echo(status: int) -> Callable[[BaseHTTPRequestHandler, threading.Event], None]:
    """A server answering ``status`` with the request's key in its message, its headers as JSON and as text."""

    def answer(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
        auth = handler.headers["Authorization"]
        error = {"message": f"Incorrect key in 'Authorization: {auth}'", "headers": dict(handler.headers)}
        body = json.dumps({"error": error}) + str(handler.headers) + "z" * 5000
        send(handler, status, body.encode())

    return answer


def echo_the_path(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """A server refusing the request with its path and query in the message (some do)."""
    send(handler, 404, json.dumps({"error": {"message": f"no route {handler.path}"}}).encode())


def key_in_the_text(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    token = handler.headers["Authorization"].split()[-1]
    send(handler, 200, completion(f"roll (your key is {token})"))


def straddling_the_cap(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """The key itself, bare, across the quoted part's end."""
    token = handler.headers["Authorization"].split()[-1]
    send(handler, 500, ("y" * (ECHO_CHARS - 10) + token + "y" * 100).encode())


def assert_no_part_of_the_key(text: str) -> None:
    for start in range(len(SECRET) - 8):
        assert SECRET[start : start + 8] not in text


@pytest.mark.parametrize(
    "answer",
    [echo(401), echo(500), echo(200), straddling_the_cap],
    ids=["refused", "retried", "not-a-completion", "straddling"],
)
def test_no_error_repeats_the_key_a_server_echoes(monkeypatch, answer):
    monkeypatch.setenv("CLUEDO_TEST_KEY", SECRET)
    with HostileServer(answer) as server:
        error, _ = timed(lambda: client(server.url, api_key_env="CLUEDO_TEST_KEY").complete(HI))
        assert server.requests[0]["Authorization"] == f"Bearer {SECRET}"  # the server got it, and echoed it
    assert isinstance(error, ChatError)
    message = str(error)
    assert_no_part_of_the_key(message)
    assert "[redacted]" in message or answer is straddling_the_cap
    assert len(message) < ECHO_CHARS + 400  # a bounded quote of the 5 KB answer


def test_control_the_echoing_server_does_send_the_key_back(monkeypatch):
    with HostileServer(echo(401)) as server:
        answer = httpx.post(server.url, headers={"Authorization": f"Bearer {SECRET}"}, content=b"{}")
    assert SECRET in answer.text


def test_a_key_in_a_reply_is_redacted_from_its_text(monkeypatch):
    monkeypatch.setenv("CLUEDO_TEST_KEY", SECRET)
    with HostileServer(key_in_the_text) as server:
        reply = client(server.url, api_key_env="CLUEDO_TEST_KEY").complete(HI)
    assert reply.text == "roll (your key is [redacted])"


def test_a_password_in_the_url_is_never_shown():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    chat = client(f"http://alice:hunter2-password@127.0.0.1:{port}/v1?key=hunter3-query", api_key_env=None)
    assert chat.url == f"http://127.0.0.1:{port}/v1/chat/completions"
    error, _ = timed(lambda: chat.complete(HI))
    assert isinstance(error, ChatError)
    assert "hunter2" not in str(error) and "hunter3" not in str(error)


def bare_token(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """A server refusing the request with its Authorization value, without the scheme before it."""
    token = handler.headers["Authorization"].split()[-1]
    send(handler, 401, json.dumps({"error": {"message": f"unknown credentials {token}"}}).encode())


@pytest.mark.parametrize(
    "userinfo, sent",
    [("user:pa55word1234", "user:pa55word1234"), ("us%40er:pa55%3Aword1234", "us@er:pa55:word1234")],
    ids=["as written", "percent-encoded"],
)
def test_a_password_in_the_url_a_server_echoes_as_its_basic_token_is_redacted(userinfo, sent):
    token = base64.b64encode(sent.encode()).decode()
    with HostileServer(bare_token) as server:
        url = server.url.replace("http://", f"http://{userinfo}@")
        error, _ = timed(lambda: client(url, api_key_env=None).complete(HI))
        assert server.requests[0]["Authorization"] == f"Basic {token}"  # what httpx sends from the URL
    assert isinstance(error, ChatError)
    message = str(error)
    assert token.rstrip("=") not in message and "pa55" not in message
    assert "unknown credentials [redacted]" in message
    with HostileServer(key_in_the_text) as server:  # a reply's text, kept in transcripts, too
        reply = client(server.url.replace("http://", f"http://{userinfo}@"), api_key_env=None).complete(HI)
    assert reply.text == "roll (your key is [redacted])"


def test_a_url_with_a_password_and_an_api_key_is_refused(monkeypatch):
    url = "http://user:pa55word1234@127.0.0.1:8000/v1"
    monkeypatch.setenv("CLUEDO_TEST_KEY", SECRET)
    with pytest.raises(
        ValueError, match=r"base_url .* user and password.* CLUEDO_TEST_KEY holds an API key"
    ) as refused:
        client(url, api_key_env="CLUEDO_TEST_KEY")
    assert "pa55" not in str(refused.value) and SECRET not in str(refused.value)
    client(url, api_key_env=None).close()  # the control: either one alone is taken
    client("http://127.0.0.1:8000/v1", api_key_env="CLUEDO_TEST_KEY").close()
    monkeypatch.setenv("CLUEDO_TEST_KEY", "")  # an empty key is no key: none is sent
    client(url, api_key_env="CLUEDO_TEST_KEY").close()


def test_a_query_credential_a_server_echoes_is_redacted():
    with HostileServer(echo_the_path) as server:
        chat = client(server.url + "?key=hunter3-query-secret")
        error, _ = timed(lambda: chat.complete(HI))
    assert isinstance(error, ChatError) and "hunter3" not in str(error) and "[redacted]" in str(error)


def candlestick_in_the_text(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    send(handler, 200, completion("accuse Plum with the Candlestick in the Hall"))


def test_a_replys_words_that_are_a_query_value_of_the_url_stay():
    """Only the key and the password are taken out of a reply's text: a query value is no credential
    to hide there, and the deployment "Candlestick" is a card of the reply's command."""
    with HostileServer(candlestick_in_the_text) as server:
        reply = client(server.url + "?deployment=Candlestick").complete(HI)
    assert reply.text == "accuse Plum with the Candlestick in the Hall"


def test_a_runs_records_and_resume_line_hide_a_urls_password():
    from experiments.common.url_credentials import hide_url_credentials

    given = "lineup.agents.1.options.base_url=http://alice:hunter2@127.0.0.1:8000/v1?api-version=1"
    assert (
        hide_url_credentials(given)
        == "lineup.agents.1.options.base_url=http://[redacted]@127.0.0.1:8000/v1?api-version=1"
    )
    assert hide_url_credentials("base_url: https://example.org/v1") == "base_url: https://example.org/v1"
    # a password may hold an "@", a "?" or a "#"; an "@" after the path is no user's
    for password in ("p@ss", "pa?ss", "pa#ss"):
        assert hide_url_credentials(f"http://alice:{password}@host/v1") == "http://[redacted]@host/v1"
    for plain in ("http://host:8000/v1?u=me@a.b", "http://host/v1#a@b"):
        assert hide_url_credentials(plain) == plain


def test_a_query_value_taken_for_a_key_is_hidden_in_a_runs_records_as_in_the_clients_errors():
    """A key in base_url's query (``?key=AIzaSy...``) went into the tournament's config.yaml and run.json:
    only the user and password were hidden there, while the client's errors hid the query's long values."""
    from experiments.common.url_credentials import hide_url_credentials

    for given, shown in (
        ("base_url: http://host/v1?key=AIzaSyQUERYSECRET1", "base_url: http://host/v1?key=[redacted]"),
        (
            "lineup.agents.0.options.base_url='https://alice:pw@host/v1?api-version=1&key=AIza%2FSy12345'",
            "lineup.agents.0.options.base_url='https://[redacted]@host/v1?api-version=1&key=[redacted]'",
        ),
        (
            '{"base_url": "http://host/v1?deployment=Candlestick"}',
            '{"base_url": "http://host/v1?deployment=[redacted]"}',
        ),
        ("http://host/v1?a=1234567&b=12345678#frag", "http://host/v1?a=1234567&b=[redacted]#frag"),
        ("http://host/v1?flag&key=", "http://host/v1?flag&key="),
        (  # an api-version is needed as written (a printed resume command sends it)
            "https://x.openai.azure.com/v1?api-version=2024-06-01&key=AIzaSy12345",
            "https://x.openai.azure.com/v1?api-version=2024-06-01&key=[redacted]",
        ),
    ):
        assert hide_url_credentials(given) == shown
    # One rule (agents.llm.errors.secret_query_value): the client hides in its errors the very values the
    # records hide.
    query = "a=1234567&b=12345678&c=%2Fsecret%2F&d=Candlestick"
    kept = client("http://127.0.0.1:9/v1?" + query)._query_values
    assert kept == ("12345678", "/secret/", "Candlestick")
    assert hide_url_credentials("http://h/v1?" + query) == (
        "http://h/v1?a=1234567&b=[redacted]&c=[redacted]&d=[redacted]"
    )


# --- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("timeout_s", 0),
        ("timeout_s", float("inf")),
        ("timeout_s", float("nan")),
        ("timeout_s", True),
        ("max_reply_bytes", 0),
        ("max_reply_bytes", True),
        ("max_reply_bytes", 1.5),
        ("network_retries", -1),
        ("temperature", "nan"),  # float() took them, and every request then failed to encode
        ("temperature", "inf"),
        ("temperature", float("nan")),
        ("temperature", float("inf")),
        ("temperature", -0.5),
        ("temperature", "abc"),
        ("temperature", "0.7"),
        ("temperature", True),
    ],
)
def test_bad_bounds_are_named(option, value):
    with pytest.raises(ValueError, match=option):
        ChatClient("http://127.0.0.1:9/v1", "m", **{option: value})


def test_a_temperature_is_a_finite_number_at_least_0():
    with pytest.raises(ValueError, match=r"^temperature must be a finite number >= 0, got 'nan'$"):
        ChatClient("http://127.0.0.1:9/v1", "m", temperature="nan")
    for good in (0, 0.0, 0.7, 2):
        made = ChatClient("http://127.0.0.1:9/v1", "m", api_key_env=None, temperature=good)
        assert made.temperature == good and isinstance(made.temperature, float)
        made.close()


# --- the player and the tournament play on -------------------------------------------------------

CONFIG = core.GameConfig(num_players=3, max_turns=16)


def test_a_player_falls_back_on_a_misbehaving_server_and_counts_it():
    with ScriptedChatServer(["valid"], usage={"prompt_tokens": -33_000_000}) as server:
        agent = LLMAgent(seed=5, base_url=server.url, backoff_s=0.0, network_retries=1, concurrency=3)
        try:
            result = play_batch(CONFIG, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=[0, 1])
        finally:
            agent.close()
        requests = len(server.log)
    counts = [c for c, _ in agent.game_reports()]
    decisions = sum(c["decisions"] for c in counts)
    assert decisions > 0 and (result.turns > 0).all()  # the games ran to their end
    assert sum(c["fallbacks"] for c in counts) == decisions
    assert sum(c["replies"] for c in counts) == sum(c["prompt_tokens"] for c in counts) == 0  # nothing summed
    assert sum(c["network_retries"] for c in counts) == decisions == requests // 2
    for _, transcript in agent.game_reports():
        for decision in transcript["decisions"]:
            assert decision["fallback"] and "usage.prompt_tokens must be a whole number" in decision["error"]


def test_a_tournament_against_a_misbehaving_server_finishes_and_reports_the_fallbacks(tmp_path):
    with ScriptedChatServer(["valid"], usage="lots") as server:
        spec = AgentSpec("llm", {"base_url": server.url, "backoff_s": 0.0, "network_retries": 0})
        settings = TournamentConfig(
            game=GameSettings(num_players=3, max_turns=12),
            lineup=LineupConfig(agents=[spec, AgentSpec("random")]),
            games_per_lineup=2,
            batch_size=2,
            workers=0,
            progress=False,
            plots=False,
        )
        summary = run_tournament(settings, tmp_path)
    llm = summary["llm"]["llm"]
    assert summary["games"] == 6 and llm["decisions"] > 0
    assert llm["fallback_rate"] == 1.0 and llm["replies"] == llm["prompt_tokens"] == 0
    assert "a request the server never answered with a usable reply" in (tmp_path / "report.md").read_text()


# --- text that is no text ---------------------------------------------------------------------


def answer_half_an_emoji(handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
    """A reply whose text ends in half an emoji: a lone surrogate, which JSON's escapes can say
    (``json.dumps`` writes it as ``\\ud83d``) and no UTF-8 can."""
    body = completion("roll \ud83d")
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_half_an_emoji_in_a_reply_is_read_as_a_replacement_character_and_can_be_sent_back():
    """The reply's lone surrogate was kept: sent back in the next request of the conversation (a model
    asked again after a bad reply), httpx could not encode it and the game or benchmark stopped."""
    with HostileServer(answer_half_an_emoji) as server:
        chat = client(server.url)
        reply = chat.complete(HI)
        assert reply.text == "roll \ufffd"
        again = chat.complete([*HI, {"role": "assistant", "content": reply.text}, *HI])
        assert again.text == "roll \ufffd" and len(server.requests) == 2
        reply.text.encode()  # (UTF-8: a file or a request takes it)
