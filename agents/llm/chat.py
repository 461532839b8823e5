"""A client for OpenAI-compatible chat-completions endpoints (hosted services, vLLM, llama.cpp, ...).

``ChatClient(base_url, model).complete(messages)`` posts one ``/chat/completions`` request and returns the
reply's text with its token counts. With ``api="completions"`` (a base model, which has no chat template)
the same conversation is sent to ``/completions`` as one plain prompt (``plain_prompt``: the messages'
texts one after the other, each reply after the prompt it answers), cut at ``stop``.
``score_next(prompt)`` asks ``/completions`` for one token with its ``top_logprobs`` (whatever ``api`` says):
the likelihood a base model gives to each short answer (``agents.llm.likelihood``). The API key is read from
the environment variable named by ``api_key_env`` (never from a config file), and is only sent when set. Half
a character in a reply (a lone surrogate, which JSON's escapes can say) is read as U+FFFD.

Failures, and what they raise after the retries:

- Network failures (connection errors, timeouts, HTTP 408/409/425/429 and 5xx but 501 and 505) are retried
  with exponential backoff, up to ``network_retries`` times, and counted; when the last attempt failed so,
  ``ChatError``: the server is down or overloaded, and a run should stop (and resume later) rather than
  play on without it.
- A reply that is not a usable chat completion (not JSON, no message text, ``usage`` counts that are not
  whole numbers of tokens in ``[0, MAX_USAGE_TOKENS]``, a body over ``max_reply_bytes``) is retried the
  same way; when the last attempt got one, ``ChatReplyError`` (a ``ChatError``): the server answers but
  misbehaves, and a player falls back on its own move (``agents.llm.llm_agent``).
- Other HTTP errors (a wrong model name, a bad key) raise ``ChatError`` at once: asking again cannot help.
- A refused connection before the endpoint ever answered (a wrong URL, a server not started) is tried once
  more (after ``backoff_s``), then raises ``ChatUnreachable`` (a ``ChatError``) naming the URL and how to
  start a server, instead of backing off for half a minute. Once it has answered, a refused connection is
  a network failure like the others (a restarting server).

Bounds. Each attempt has a wall-clock deadline of ``timeout_s`` from sending the request to the last byte
of the reply, whatever the server sends meanwhile (a server that sends one byte a second is cut off at the
deadline: its socket is shut down, ``agents.llm.deadline``); every attempt opens its own connection so that
the deadline can reach it. A reply body over ``max_reply_bytes`` is refused without reading the rest; the request asks for no
compression (``Accept-Encoding: identity``), and a gzip or deflate body sent anyway is bounded the same
once uncompressed.

Redaction. No message of this module repeats a credential: the API key's value, any password in
``base_url`` (as written, percent-decoded, and in the base64 ``user:password`` of the Basic header sent
from it), the values of its query of ``agents.llm.errors.SECRET_QUERY_CHARS`` characters or more, and whatever follows
``Bearer`` / ``Basic`` or an ``Authorization`` / ``api-key`` header name are replaced by ``[redacted]`` in
every error, and at most ``ECHO_CHARS`` characters of a server's answer are quoted. A reply's text is
returned with the key's value and the password redacted too, since transcripts are files people share (not
the query's values, which may be words a reply uses). httpx sends a user in ``base_url`` as
``Authorization: Basic``, dropping any other, so such a ``base_url`` is refused (``ValueError``) while
``api_key_env`` holds a key: give one or the other.

Copies. A client pickles (and deep-copies) as its options: never the API key (read again from ``api_key_env``;
none with a user in ``base_url``), nor a connection. A ``base_url`` holding a secret (user, password, a query
key) is refused by pickle (``TypeError``; a deep copy, in memory, keeps it): pass the key in ``api_key_env``.

Same replies. Inside ``with agents.llm.same_replies.same_replies():`` a request that any client sent before
in the block gets the reply it got then (``agents.testing.check_agent(..., same_replies=True)``).
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import time
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit, urlunsplit

import httpx

from agents.llm.deadline import Deadline
from agents.llm.errors import START_A_SERVER, ChatError, ChatReplyError, ChatUnreachable, secret_query_value
from agents.llm.same_replies import reply_once

__all__ = [
    "ECHO_CHARS",
    "MAX_REPLY_BYTES",
    "MAX_USAGE_TOKENS",
    "REPLY_COUNTS",
    "ChatClient",
    "ChatError",
    "ChatReply",
    "ChatReplyError",
    "ChatUnreachable",
    "add_reply_counts",
    "check_top",
    "plain_prompt",
]

APIS = ("chat", "completions")

# Statuses worth asking again: a timeout, a conflict, too early or too many requests, and the server's
# errors but "not implemented" (501) and "HTTP version not supported" (505), which asking again cannot mend.
RETRY_STATUS = frozenset({408, 409, 425, 429, *range(500, 600)} - {501, 505})
MAX_REPLY_BYTES = 512 * 1024  # default bound of a reply body: a 4,096-token answer is ~20 KB of JSON
MAX_USAGE_TOKENS = 100_000_000  # the most tokens one request may report (beyond any context window)
ECHO_CHARS = 200  # the most characters of a server's answer an error quotes
REDACTED = "[redacted]"
MAX_TOP = 100  # the most first tokens score_next asks logprobs of
# A credential after its scheme or header name, in headers a server echoes as text or as JSON.
_CREDENTIALS = (
    re.compile(r"(?i)\b(bearer|basic)(\s+)[^\s\"',;]+"),
    re.compile(
        r"(?i)\b(authorization|proxy-authorization|x-api-key|api[-_]?key)([\"']?\s*[:=]\s*[\"']?)[^\"',;}\r\n]+"
    ),
)


class _BadReply(ValueError):
    """One attempt's answer is not a usable chat completion (internal: retried, then ``ChatReplyError``)."""


@dataclass(frozen=True)
class ChatReply:
    """One chat completion.

    Attributes:
        text: The assistant message's content.
        prompt_tokens: Tokens of the prompt, as the server counted them (0 if it did not say).
        completion_tokens: Tokens of the reply, as the server counted them.
        network_retries: Requests that failed and were sent again before this one succeeded.
        top_logprobs: ``score_next`` only: the most likely first tokens of the reply, token -> natural
            log of its probability (empty otherwise).
        cut: The server stopped the reply at ``max_tokens`` (``finish_reason`` ``"length"``).
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    network_retries: int
    top_logprobs: dict[str, float] = field(default_factory=dict)
    cut: bool = False


# A reply's counts (``ChatReply``'s fields) that the client's users sum in their own counts.
REPLY_COUNTS = ("prompt_tokens", "completion_tokens", "network_retries")


def add_reply_counts(counts: dict[str, int], reply: ChatReply) -> None:
    """Add ``reply``'s tokens and network retries (``REPLY_COUNTS``) to ``counts``, which has those keys."""
    for name in REPLY_COUNTS:
        counts[name] += getattr(reply, name)


def _token_count(usage: dict[str, Any], name: str) -> int:
    """A ``usage`` count: absent or null is 0, anything but an int in ``[0, MAX_USAGE_TOKENS]`` is refused."""
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_USAGE_TOKENS:
        shown = repr(value) if isinstance(value, int | float) else type(value).__name__
        raise _BadReply(
            f"usage.{name} must be a whole number of tokens in [0, {MAX_USAGE_TOKENS:,}], got {shown}"
        )
    return value


def _first_choice(body: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON object of a completion body and its ``choices[0]`` (chat and ``/completions`` alike).

    Raises:
        _BadReply: naming what is wrong with it.
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as error:  # not UTF-8, not JSON, too deeply nested
        raise _BadReply(f"not JSON ({type(error).__name__})") from None
    if not isinstance(data, dict):
        raise _BadReply(f"the body is a JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _BadReply("no choices[0]")
    return data, choices[0]


def _token_counts(usage: object) -> tuple[int, int]:
    """The prompt and completion token counts of a reply's ``usage`` object.

    Raises:
        _BadReply: naming what is wrong with it.
    """
    if not isinstance(usage, dict):
        raise _BadReply(f"usage is a JSON {type(usage).__name__}, not an object")
    return _token_count(usage, "prompt_tokens"), _token_count(usage, "completion_tokens")


def _completion(body: bytes) -> tuple[str, int, int, bool]:
    """The text, the prompt and completion token counts of a chat-completion body, and whether the
    server cut the reply at its token limit (``finish_reason`` ``"length"``).

    Raises:
        _BadReply: naming what is wrong with it.
    """
    data, choice = _first_choice(body)
    message = choice.get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str):
        raise _BadReply(f"choices[0].message.content is {type(text).__name__}, not text")
    counts = _token_counts({} if data.get("usage") is None else data["usage"])
    return _whole_text(text), *counts, choice.get("finish_reason") == "length"


def _whole_text(text: str) -> str:
    """``text``, each lone surrogate (JSON's ``\\ud83d``: half a character, no UTF-8) read as U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _text_completion(body: bytes) -> tuple[str, int, int, dict[str, float], bool]:
    """The text, the token counts, the first token's ``top_logprobs`` of a ``/completions`` body, and
    whether the server cut the text at its token limit (``finish_reason`` ``"length"``).

    Raises:
        _BadReply: naming what is wrong with it.
    """
    data, choice = _first_choice(body)
    text = choice.get("text")
    if not isinstance(text, str):
        raise _BadReply(f"choices[0].text is {type(text).__name__}, not text")
    counts = _token_counts(data.get("usage") or {})
    top: dict[str, float] = {}
    logprobs = choice.get("logprobs")
    if isinstance(logprobs, dict) and isinstance(logprobs.get("top_logprobs"), list):
        first = logprobs["top_logprobs"][0] if logprobs["top_logprobs"] else None
        if not isinstance(first, dict):
            raise _BadReply("choices[0].logprobs.top_logprobs[0] is not an object")
        for token, value in first.items():
            if not _number(value) or not -math.inf <= value <= 0:
                raise _BadReply(f"a top logprob is not a number <= 0: {value!r}")
            top[_whole_text(str(token))] = float(value)
    return _whole_text(text), *counts, top, choice.get("finish_reason") == "length"


def plain_prompt(messages: list[dict[str, str]]) -> str:
    """A conversation as one plain prompt for a base model: the texts in order, a reply after its prompt.

    A message from the user (or the system) starts a new paragraph; an assistant's reply follows the
    text it answers on the same line (the prompts for base models end with ``-``, a list item, which
    the reply completes).
    """
    text = ""
    for message in messages:
        content = str(message.get("content", ""))
        if message.get("role") == "assistant":
            text += " " + content.strip()
        else:
            text += ("\n\n" if text else "") + content.strip()
    return text


class ChatClient:
    """Posts chat-completion requests to one endpoint and model (thread-safe: share it between threads).

    Args:
        base_url: The API root, e.g. ``http://127.0.0.1:8000/v1`` (vLLM) or ``https://api.openai.com/v1``.
        model: The model name the server knows.
        api_key_env: Name of the environment variable holding the API key (unset or empty: no key sent).
        temperature: Sampling temperature, a finite number >= 0.
        max_tokens: Most tokens of one reply (``max_tokens`` of the request).
        timeout_s: Seconds one attempt may take, from sending the request to the reply's last byte.
        network_retries: Attempts after the first one when the network or server fails.
        backoff_s: Wait before the first retry; it doubles each retry (capped at 60 s).
        max_reply_bytes: Most bytes of a reply body (default ``MAX_REPLY_BYTES``); a longer one is a
            failed attempt.
        api: ``"chat"`` (``/chat/completions``, for chat models) or ``"completions"`` (``/completions``
            with ``plain_prompt``, for base models).
        stop: Strings that end a reply (``stop`` of the request; None: ``["\\n"]`` with
            ``api="completions"``, where a command is one line, and none with ``"chat"``).

    Attributes:
        url: The endpoint, as messages show it (without any user, password or query of ``base_url``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str | None = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout_s: float = 60.0,
        network_retries: int = 5,
        backoff_s: float = 1.0,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        api: str = "chat",
        stop: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        # what a pickled client keeps (``__getstate__``): not the key, which is read again when unpickled
        self._options = {
            "base_url": base_url,
            "model": model,
            "api_key_env": api_key_env,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "timeout_s": timeout_s,
            "network_retries": network_retries,
            "backoff_s": backoff_s,
            "max_reply_bytes": max_reply_bytes,
            "api": api,
            "stop": stop,
        }
        if api not in APIS:
            raise ValueError(f"api must be one of {list(APIS)}, got {api!r}")
        if stop is not None and (
            isinstance(stop, str) or not all(isinstance(s, str) and s for s in stop) or len(stop) > 4
        ):
            raise ValueError(f"stop must be a list of at most 4 non-empty strings, got {stop!r}")
        parts = _http_url(base_url)
        if parts is None:
            raise ValueError(f"base_url must be an http(s) URL, got {_shown_url(base_url)!r}")
        if not _number(timeout_s) or not 0 < timeout_s < math.inf:
            raise ValueError(f"timeout_s must be a number of seconds > 0, got {timeout_s!r}")
        for name, value in (("backoff_s", backoff_s), ("temperature", temperature)):  # (NaN is no JSON)
            if not _number(value) or not 0 <= value < math.inf:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        for name, value, low in (
            ("max_tokens", max_tokens, 1),
            ("network_retries", network_retries, 0),
            ("max_reply_bytes", max_reply_bytes, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        # a query (``?api-version=...``) stays after the path
        root = parts.path.rstrip("/")
        self._chat_url = urlunsplit(parts._replace(path=root + "/chat/completions"))
        self._completions_url = urlunsplit(parts._replace(path=root + "/completions"))
        self._url = self._chat_url if api == "chat" else self._completions_url
        self.url = _shown_url(self._url)
        self.api = api
        self.stop = list(stop) if stop is not None else (["\n"] if api == "completions" else None)
        self.model = model
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.timeout_s = float(timeout_s)
        self.network_retries = network_retries
        self.backoff_s = float(backoff_s)
        self.max_reply_bytes = max_reply_bytes
        self._answered = False  # whether any request has had an HTTP answer (see ChatUnreachable)
        headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
        key = os.environ.get(api_key_env, "") if api_key_env else ""
        if key and (parts.username or parts.password):
            raise ValueError(
                f"base_url {_shown_url(base_url)!r} has a user and password, sent as Basic authorization, "
                f"and the environment variable {api_key_env} holds an API key, sent as Bearer: only one "
                "Authorization is sent (httpx sends the Basic one); take the user and password out of "
                f"base_url, or unset {api_key_env} (or pass api_key_env=None)"
            )
        if key:
            headers["Authorization"] = f"Bearer {key}"
        # longest first, so that no redaction leaves part of a longer secret (a password inside the base64)
        self._secrets = tuple(
            sorted({s for s in (key, *_userinfo_secrets(parts)) if s}, key=len, reverse=True)
        )
        # kept out of errors (a server may echo the path), not out of replies (a deployment named "Candlestick")
        self._query_values = tuple(v for k, v in parse_qsl(parts.query) if secret_query_value(k, v))
        self._has_user = bool(parts.username or parts.password)
        # No kept-alive connections: each attempt's own connection is one its deadline can shut.
        self._http = httpx.Client(
            headers=headers, timeout=self.timeout_s, limits=httpx.Limits(max_keepalive_connections=0)
        )

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        """The assistant's reply to a conversation (``[{"role": ..., "content": ...}, ...]``).

        Raises:
            ChatReplyError: the last of ``network_retries + 1`` attempts got an answer that is not a usable
                chat completion.
            ChatError: the last attempt failed on the network (or timed out), or the server refused the
                request.
        """
        body: dict[str, Any] = {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.api == "chat":
            body["messages"] = messages
        else:
            body["prompt"] = plain_prompt(messages)
        if self.stop:
            body["stop"] = self.stop
        return reply_once(self._url, body, lambda: self._request(self._url, body))

    def score_next(self, prompt: str, top: int = 20, candidates: tuple[str, ...] = ()) -> ChatReply:
        """One token after ``prompt`` (``/completions``, temperature 0) with the ``top`` most likely ones.

        ``candidates`` is ignored: a server gives its top tokens only (``agents.llm.local_logits`` adds them).

        Returns:
            The reply, whose ``top_logprobs`` maps each of the most likely first tokens to the natural
            log of its probability.

        Raises:
            ChatReplyError, ChatError: as ``complete`` does (a reply without ``logprobs`` is refused).
        """
        check_top(top)
        body = {"model": self.model, "prompt": prompt, "temperature": 0.0, "max_tokens": 1, "logprobs": top}
        url = self._completions_url
        return reply_once(url, body, lambda: self._request(url, body, logprobs=True))

    def _request(self, url: str, body: dict[str, Any], logprobs: bool = False) -> ChatReply:
        """One request, with its retries (see the module docstring)."""
        shown = _shown_url(url)
        failures: list[str] = []
        bad_reply = False
        for attempt in range(self.network_retries + 1):
            if attempt:
                time.sleep(min(self.backoff_s * 2 ** (attempt - 1), 60.0))
            try:
                status, answer = self._post(url, body)
            except _BadReply as error:  # too large
                failures.append(f"the reply was refused: {error}")
                bad_reply = True
                continue
            except (httpx.TransportError, TimeoutError) as error:  # refused, reset, timed out, cut off
                failures.append(
                    str(error) if isinstance(error, TimeoutError) else f"{type(error).__name__}: {error}"
                )
                bad_reply = False
                last = len(failures) >= 2 or attempt == self.network_retries  # (no retry asked: at once)
                if isinstance(error, httpx.ConnectError) and not self._answered and last:
                    raise ChatUnreachable(
                        self._redact(f"nothing answers at {shown} ({failures[-1]}): {START_A_SERVER}"),
                        network_retries=len(failures) - 1,
                    ) from None
                continue
            self._answered = True
            if status in RETRY_STATUS:
                failures.append(f"HTTP {status}: {self._echo(answer)}")
                bad_reply = False
                continue
            if status != 200:
                raise ChatError(self._redact(f"{shown} answered HTTP {status}: {self._echo(answer)}"))
            try:
                if url == self._chat_url:
                    text, prompt_tokens, completion_tokens, cut = _completion(answer)
                    top: dict[str, float] = {}
                else:
                    text, prompt_tokens, completion_tokens, top, cut = _text_completion(answer)
                    if logprobs and not top:
                        raise _BadReply("no choices[0].logprobs.top_logprobs")
            except _BadReply as error:
                failures.append(f"not a completion ({error}): {self._echo(answer)}")
                bad_reply = True
                continue
            return ChatReply(
                text=self._redact_secrets(text),
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                network_retries=attempt,
                top_logprobs=top,
                cut=cut,
            )
        error = ChatReplyError if bad_reply else ChatError
        raise error(
            self._redact(
                f"{shown} failed {len(failures)} times (network_retries={self.network_retries}); last: "
                f"{failures[-1]}"
            ),
            network_retries=len(failures) - 1,
        )

    def _post(self, url: str, body: dict[str, Any]) -> tuple[int, bytes]:
        """The status and the body of one attempt, within ``timeout_s`` and ``max_reply_bytes``.

        Raises:
            TimeoutError: the deadline passed before the reply's last byte.
            _BadReply: the body is longer than ``max_reply_bytes`` (or compressed in a way not asked for).
            httpx.TransportError: the connection failed.
        """
        deadline = Deadline(self.timeout_s)
        too_slow = TimeoutError(f"no complete reply within timeout_s={self.timeout_s:g} s")
        limit = self.max_reply_bytes
        try:
            with self._http.stream("POST", url, json=body, extensions={"trace": deadline.trace}) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise _BadReply(f"its Content-Length {int(declared):,} is over max_reply_bytes={limit:,}")
                chunks, size = [], 0
                for chunk in response.iter_raw():  # as sent: a compressed body is bounded below
                    size += len(chunk)
                    if size > limit:
                        raise _BadReply(f"its body is over max_reply_bytes={limit:,}")
                    if deadline.expired:
                        raise too_slow
                    chunks.append(chunk)
                if deadline.expired:
                    raise too_slow
                return response.status_code, _decoded(b"".join(chunks), response.headers, limit)
        except httpx.TransportError:
            if deadline.expired:  # the deadline shut the socket
                raise too_slow from None
            raise
        finally:
            deadline.cancel()

    def _echo(self, answer: bytes) -> str:
        """At most ``ECHO_CHARS`` characters of a server's answer, credentials redacted, quoted."""
        text = self._redact(answer.decode("utf-8", errors="replace"))
        return repr(text[:ECHO_CHARS]) + (
            f" ... ({len(text):,} characters)" if len(text) > ECHO_CHARS else ""
        )

    def _redact_secrets(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def _redact(self, text: str) -> str:
        """``text`` with the key's value, base_url's password and long query values, and anything that looks
        like a credential replaced by ``[redacted]``."""
        text = self._redact_secrets(text)
        for value in self._query_values:
            text = text.replace(value, REDACTED)
        for pattern in _CREDENTIALS:
            text = pattern.sub(rf"\1\2{REDACTED}", text)
        return text

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __getstate__(self) -> dict[str, Any]:
        """Its options, without the API key; a ``base_url`` holding a secret is refused (``TypeError``)."""
        if self._has_user or self._query_values:
            raise TypeError(
                f"a ChatClient whose base_url ({self.url!r}) holds a user, password or query key cannot be pickled "
                "(the pickle would hold it): pass the key in api_key_env, or copy the agent through state_dict"
            )
        return dict(self._options)

    def __setstate__(self, options: dict[str, Any]) -> None:
        """Made again from its options: the key read again from ``api_key_env``, its own connections."""
        self.__init__(**options)

    def __deepcopy__(self, memo: dict[int, Any]) -> ChatClient:
        """Made again from its options, ``base_url``'s secrets included (in memory: no file holds them)."""
        # a user in base_url sent no key (refused with one): its copy reads none, whatever the environment holds
        return ChatClient(**{**self._options, **({"api_key_env": None} if self._has_user else {})})


def _decoded(raw: bytes, headers: httpx.Headers, limit: int) -> bytes:
    """A body as sent, uncompressed (gzip or deflate; the request asks for none) to at most ``limit`` bytes."""
    encoding = headers.get("content-encoding", "identity").strip().lower()
    if encoding in ("", "identity"):
        return raw
    if encoding not in ("gzip", "deflate"):
        raise _BadReply(f"its body is compressed with {encoding[:40]!r}, which the request did not accept")
    decompressor = zlib.decompressobj(wbits=47)  # 47: a gzip or a zlib header
    try:
        body = decompressor.decompress(raw, limit + 1)
    except zlib.error:
        raise _BadReply(f"its {encoding} body does not decompress") from None
    if len(body) > limit or decompressor.unconsumed_tail:
        raise _BadReply(f"its body is over max_reply_bytes={limit:,} once decompressed")
    return body


def _http_url(value: object) -> SplitResult | None:
    """The parts of an http(s) URL with a host (and a numeric port if any); None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return None
    return parts if parts.scheme in ("http", "https") and parts.hostname else None


def _userinfo_secrets(parts: SplitResult) -> tuple[str, ...]:
    """What a server may echo of ``base_url``'s user and password: the password as written and
    percent-decoded, and the base64 ``user:password`` of the Basic header httpx sends (padded and not)."""
    if not (parts.username or parts.password):  # httpx sends no Basic header then
        return ()
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    basic = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return (parts.password or "", password, basic, basic.rstrip("="))


def check_top(top: object) -> None:
    """Refuse (``ValueError``) a ``top`` of ``score_next`` that is not an integer in ``[1, MAX_TOP]``."""
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise ValueError(f"top must be an integer in [1, {MAX_TOP}], got {top!r}")


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)


def _shown_url(url: object) -> object:
    """A URL without its user, password and query (where credentials go), for messages."""
    if not isinstance(url, str):
        return url
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            netloc += f":{parts.port}"
    except ValueError:
        return "<an unparsable URL>"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
