"""A scripted OpenAI-compatible chat server on 127.0.0.1, to test and dry-run language-model play.

    python -m experiments.scripted_chat_server --port 8000 --script malformed,valid
    python -m experiments.tournament game=classic3 game.max_turns=60 workers=0 games_per_lineup=2 \\
        'lineup.agents=[{name: llm}, {name: notepad}, {name: sat}]'   # llm's default: http://127.0.0.1:8000/v1

It answers ``POST /v1/chat/completions`` like a model that reads the legal
commands listed in the last user message (``cluedo_env.text.text_view`` and
the parser's errors list them) and picks one, deterministically from the
message's text: a random legal command that is not an accusation, filling in a
suggestion form with random names. It never accuses, so games between scripted
models only end at ``max_turns``.

The script says how it answers each request, by attempt (the number of
assistant messages already in the conversation: 0 for the first ask of a
decision, 1 after one invalid reply, ...); past the end of the script the last
entry repeats. Entries:

- ``valid``: a legal command alone;
- ``final``: reasoning that names cards, then ``Final answer: <legal command>``;
- ``malformed``: no command at all;
- ``illegal``: a well-formed command that is not legal now (a card of the
  player's hand shown outside a refutation; ``end turn`` while refuting);
- ``ambiguous``: two commands at once (``roll or end turn``);
- ``cut``: reasoning cut off at the token limit (``finish_reason`` ``"length"``) that
  names a legal command on the way (``... I could <legal command>, but``);
- ``answer``: for the reasoning benchmark's language-model solver
  (``agents.llm.solver``): a JSON answer, in a fenced block after
  a sentence, claiming the cards of the view's ``Your cards:`` line as held by
  the player the view addresses (``You are P<k> ...``) and the envelope
  ``"not yet"`` (sound, and far from complete).

``fail_first=n`` answers the first ``n`` requests with HTTP 500 (network
failures to retry); ``fail_after=n`` answers every request after the first
``n`` answered ones with HTTP 500 (a server that goes down); ``usage=value``
sends ``value`` as every reply's ``usage`` instead of the token counts (a
misbehaving server: ``"lots"``, ``[1, 2]``, ``{"prompt_tokens": -5}``, ...).
Every request is logged (``server.log``): its attempt, the
kind of reply, the last user message, the reply and the token counts it
reported (words of the messages and of the reply), so tests can check the
agent's counts and records against what the server did. It listens on
127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cluedo_env.console import replace_unencodable

__all__ = ["REPLY_KINDS", "ScriptedChatServer", "scripted_reply"]

REPLY_KINDS = ("valid", "final", "malformed", "illegal", "ambiguous", "answer", "cut")
HOST = "127.0.0.1"
LEGAL_HEADER = re.compile(r"legal commands( now)?:\n", re.IGNORECASE)  # the view's and the errors' lists


def _legal_commands(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The concrete commands and the forms' name lists of the last legal-commands section of a message."""
    headers = list(LEGAL_HEADER.finditer(text))
    commands: list[str] = []
    names: dict[str, list[str]] = {}
    if not headers:
        return commands, names
    for line in text[headers[-1].end() :].splitlines():
        stripped = line.strip()
        if stripped.startswith("- "):
            commands.append(stripped[2:])
        elif re.match(r"^(suspects|weapons|rooms): ", stripped):
            key, _, values = stripped.partition(": ")
            names[key] = values.split(", ")
        elif stripped and not line.startswith(" "):
            break
    return commands, names


def scripted_reply(kind: str, message: str) -> str:
    """The reply of ``kind`` to a user message (deterministic in the message's text)."""
    if kind not in REPLY_KINDS:
        raise ValueError(f"reply kind must be one of {list(REPLY_KINDS)}, got {kind!r}")
    rng = random.Random(hashlib.blake2b(message.encode(), digest_size=8).digest())
    commands, names = _legal_commands(message)
    refuting = any(c.startswith("show ") for c in commands)
    if kind == "malformed":
        return "Hmm, I am not sure what to do here."
    if kind == "ambiguous":
        return "roll or end turn"
    if kind == "answer":
        me = re.search(r"You are (?:P|player )(\d+)", message)  # v2 text views, v1 sentences
        hand = re.search(r"Your cards: ([^\n]*)\.", message)
        cards = hand.group(1).split(", ") if hand and hand.group(1) != "none" else []
        owner = f"player {me.group(1)}" if me else "player 0"
        answer = {"facts": [[card, owner, True] for card in cards], "envelope": "not yet"}
        return f"I can only be sure of my own cards.\n```json\n{json.dumps(answer, ensure_ascii=False)}\n```"
    if kind == "illegal":
        if refuting:
            return "end turn"
        hand = re.search(r"Your cards: ([^\n]*)\.", message)
        card = hand.group(1).split(", ")[0] if hand else "nothing"
        return f"show {card}"
    choices = [c for c in commands if "<" not in c]
    if any(c.startswith("suggest <") for c in commands) and names.get("suspects") and names.get("weapons"):
        choices.append(f"suggest {rng.choice(names['suspects'])} with the {rng.choice(names['weapons'])}")
    if not choices:  # only accusations are legal (it never happens in the game: end turn is always there)
        choices = ["end turn"]
    chosen = rng.choice(choices)
    if kind == "final":
        return (
            f"Let me think. Nobody showed me the Rope, and Mustard is still possible.\nFinal answer: {chosen}"
        )
    if kind == "cut":
        return f"Let me think step by step. I could {chosen}, but"
    return chosen


class ScriptedChatServer:
    """The server, started in a background thread; use as a context manager.

    Args:
        script: Reply kinds by attempt (see the module docstring).
        fail_first: Requests answered with HTTP 500 before any other.
        fail_after: Answer this many requests, then only HTTP 500 (None: never).
        port: Port on 127.0.0.1 (0: any free port).
        usage: Sent as every reply's ``usage`` (None: the true counts, as ``{"prompt_tokens": ...}``).

    Attributes:
        url: The API root to give clients (``http://127.0.0.1:<port>/v1``).
        log: One dict per request answered (see the module docstring).
    """

    def __init__(
        self,
        script: tuple[str, ...] | list[str] = ("valid",),
        fail_first: int = 0,
        port: int = 0,
        fail_after: int | None = None,
        usage: object = None,
    ) -> None:
        if not script:
            raise ValueError("script must name at least one reply kind")
        for kind in script:
            if kind not in REPLY_KINDS:
                raise ValueError(f"script entries must be among {list(REPLY_KINDS)}, got {kind!r}")
        self.script = tuple(script)
        self.fail_first = fail_first
        self.fail_after = fail_after
        self.usage = usage
        self.log: list[dict] = []
        self._lock = threading.Lock()
        self._failures = 0
        self._server = ThreadingHTTPServer((HOST, port), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://{HOST}:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                length = int(self.headers.get("Content-Length", 0))
                try:
                    body = json.loads(self.rfile.read(length))
                    messages = body["messages"]
                except (ValueError, KeyError) as error:
                    self._send(400, {"error": {"message": f"bad request: {error}"}})
                    return
                with server._lock:
                    fail = server._failures < server.fail_first
                    fail |= server.fail_after is not None and len(server.log) >= server.fail_after
                    server._failures += fail
                if fail:
                    self._send(500, {"error": {"message": "scripted failure"}})
                    return
                self._send(200, server._answer(messages))

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _answer(self, messages: list[dict]) -> dict:
        attempt = sum(m.get("role") == "assistant" for m in messages)
        kind = self.script[min(attempt, len(self.script) - 1)]
        last_user = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
        # The first user message holds the view; retries list the legal commands in the error.
        reply = scripted_reply(kind, last_user if attempt == 0 else last_user + "\n" + messages[1]["content"])
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        completion_tokens = len(reply.split())
        with self._lock:
            self.log.append(
                {
                    "attempt": attempt,
                    "kind": kind,
                    "last_user": last_user,
                    "reply": reply,
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                }
            )
        return {
            "id": f"chatcmpl-{len(self.log)}",
            "object": "chat.completion",
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "length" if kind == "cut" else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            if self.usage is None
            else self.usage,
        }

    def start(self) -> ScriptedChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    replace_unencodable()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    parser.add_argument(
        "--script", default="valid", help=f"comma-separated reply kinds by attempt, of {REPLY_KINDS}"
    )
    parser.add_argument("--fail-first", type=int, default=0, help="answer the first N requests with HTTP 500")
    args = parser.parse_args(argv)
    try:
        server = ScriptedChatServer(args.script.split(","), args.fail_first, args.port)
    except ValueError as error:
        parser.error(str(error))
    except (OSError, OverflowError) as error:  # the port is in use, reserved, or not a port at all
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        parser.error(
            f"cannot listen on {HOST}:{args.port} ({reason}); choose another --port, "
            "or --port 0 for any free one"
        )
    print(f"scripted chat server at {server.url} (script {list(server.script)}); Ctrl-C stops it")
    server._server.serve_forever()


if __name__ == "__main__":
    main()
