"""A client for OpenAI-compatible chat-completions endpoints (hosted services, vLLM, llama.cpp, ...).

``ChatClient(base_url, model).complete(messages)`` posts one
``/chat/completions`` request and returns the reply's text with its token
counts. Network failures (connection errors, timeouts, HTTP 408/429/5xx, a body
that is not a chat completion) are retried with exponential backoff, up to
``network_retries`` times, and counted; other HTTP errors (a wrong model name,
a bad key) raise ``ChatError`` at once, since asking again cannot help. The API
key is read from the environment variable named by ``api_key_env`` (never from
a config file), and is only sent when set.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import httpx

__all__ = ["ChatClient", "ChatError", "ChatReply"]

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ChatError(RuntimeError):
    """A request that failed for good (after its retries, or at once for a client error)."""


@dataclass(frozen=True)
class ChatReply:
    """One chat completion.

    Attributes:
        text: The assistant message's content.
        prompt_tokens: Tokens of the prompt, as the server counted them (0 if it did not say).
        completion_tokens: Tokens of the reply, as the server counted them.
        network_retries: Requests that failed and were sent again before this one succeeded.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    network_retries: int


class ChatClient:
    """Posts chat-completion requests to one endpoint and model (thread-safe: share it between threads).

    Args:
        base_url: The API root, e.g. ``http://127.0.0.1:8000/v1`` (vLLM) or ``https://api.openai.com/v1``.
        model: The model name the server knows.
        api_key_env: Name of the environment variable holding the API key (unset or empty: no key sent).
        temperature: Sampling temperature.
        max_tokens: Most tokens of one reply (``max_tokens`` of the request).
        timeout_s: Seconds to wait for one request.
        network_retries: Attempts after the first one when the network or server fails.
        backoff_s: Wait before the first retry; it doubles each retry (capped at 60 s).
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
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        for name, value in (("timeout_s", timeout_s), ("backoff_s", backoff_s)):
            if not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
        if not isinstance(network_retries, int) or network_retries < 0:
            raise ValueError(f"network_retries must be an integer >= 0, got {network_retries!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.network_retries = network_retries
        self.backoff_s = float(backoff_s)
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(api_key_env, "") if api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(headers=headers, timeout=timeout_s)

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        """The assistant's reply to a conversation (``[{"role": ..., "content": ...}, ...]``).

        Raises:
            ChatError: the request failed ``network_retries + 1`` times, or the server refused it.
        """
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        failures: list[str] = []
        for attempt in range(self.network_retries + 1):
            if attempt:
                time.sleep(min(self.backoff_s * 2 ** (attempt - 1), 60.0))
            try:
                response = self._http.post(self.url, json=body)
            except httpx.TransportError as error:  # connection refused, reset, timeout
                failures.append(f"{type(error).__name__}: {error}")
                continue
            if response.status_code in RETRY_STATUS:
                failures.append(f"HTTP {response.status_code}: {response.text[:200]}")
                continue
            if response.status_code != 200:
                raise ChatError(f"{self.url} answered HTTP {response.status_code}: {response.text[:500]}")
            try:
                data = response.json()
                text = data["choices"][0]["message"]["content"]
                if not isinstance(text, str):
                    raise TypeError(f"content is {type(text).__name__}")
            except (ValueError, KeyError, IndexError, TypeError) as error:
                failures.append(f"not a chat completion ({error}): {response.text[:200]}")
                continue
            usage = data.get("usage") or {}
            return ChatReply(
                text=text,
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
                network_retries=attempt,
            )
        raise ChatError(
            f"{self.url} failed {len(failures)} times (network_retries={self.network_retries}); last: "
            f"{failures[-1]}"
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()
