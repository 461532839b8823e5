"""Serve the local model on 127.0.0.1 until Ctrl-C: llama.cpp's OpenAI-compatible server, started and stopped here.

    pip install -e ".[local-llm]"
    python -m experiments.serve_model                     # prints the URL; Ctrl-C stops it
    python -m experiments.serve_model --port 8000 --check # and asks it one question first
    python -m experiments.serve_model --log server.log    # and keeps the server's log there

Any llm agent or solver then plays or answers through it with ``base_url=<the URL>``
``model=local api=completions`` (or, without this command, ``model=local`` alone starts a
server of its own in the process that needs it: ``agents.llm.local_model``). The model is
Gemma 3 270M (base), under the Gemma Terms of Use (ai.google.dev/gemma/terms; a copy comes
with the model package). The server stops with this command, however it ends. Its log (its start
and its errors, no line per request) is a temporary file, printed at the start and deleted when the
server stops, unless the server died by itself (then it is kept, and its end printed); ``--log FILE``
writes it to FILE instead, kept.
"""

from __future__ import annotations

import argparse
import sys
import time

from cluedo_env.console import replace_unencodable

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m experiments.serve_model [--port N] [--model-file GGUF] [--check] [--log FILE]``."""
    replace_unencodable()
    from agents.llm.chat import ChatClient
    from agents.llm.local_model import LOCAL_MODEL_NAME, LocalModelMissing, LocalServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--model-file", default=None, help="a GGUF to serve (default: the packaged model)")
    parser.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens (default 8192)")
    parser.add_argument(
        "--no-logprobs", action="store_true", help="no logprobs (likelihood scoring), prompts read faster"
    )
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: llama.cpp's)")
    parser.add_argument("--check", action="store_true", help="ask one completion and print it and its time")
    parser.add_argument(
        "--log",
        default=None,
        help="write the server's log to this file, kept (default: a temporary file, deleted)",
    )
    args = parser.parse_args(argv)
    server = LocalServer(
        args.model_file,
        port=args.port,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        logprobs=not args.no_logprobs,
        log_file=args.log,
    )
    started = time.perf_counter()
    try:
        server.start()
    except (LocalModelMissing, FileNotFoundError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        print(
            f"local model at {server.url} (model {LOCAL_MODEL_NAME!r}), up in {time.perf_counter() - started:.1f} s"
        )
        print(
            f"server log: {server.log}"
            + ("" if args.log else " (deleted when it stops; --log FILE keeps one)")
        )
        if args.check:
            client = ChatClient(
                server.url, LOCAL_MODEL_NAME, api="completions", max_tokens=16, api_key_env=None
            )
            asked = time.perf_counter()
            reply = client.complete([{"role": "user", "content": "The board game Cluedo is"}])
            print(
                f"check: {reply.text!r} ({reply.prompt_tokens} + {reply.completion_tokens} tokens, "
                f"{time.perf_counter() - asked:.2f} s)"
            )
            client.close()
        print("Ctrl-C stops it")
        while server.running:
            time.sleep(0.5)
        print(f"the server exited:\n{server.log_tail()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
