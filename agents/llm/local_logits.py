"""The local model's next-token probabilities read in this process: likelihood scoring without a server.

``LocalLogits().score_next(prompt, top, candidates)`` answers like
``agents.llm.chat.ChatClient.score_next`` (a ``ChatReply`` whose ``top_logprobs``
are the most likely first tokens), reading the logits of llama.cpp through
``llama_cpp.Llama`` in this process, and adds the log-probability of each
token of ``candidates`` (``"A"`` and ``" A"`` for each letter), which a server's
top-``k`` list may leave out.

The values are llama.cpp's, not exact: they depend on how the prompt is split into batches, and
``score_next`` evaluates only what a prompt does not share with the previous one, so a prompt's values
depend on the request before it (measured: the same question -3.8718 alone, -3.8129 after the previous
card's prompt; over 64 questions at most 0.33 nats apart, no most likely token changed).

Why. llama-cpp-python's server gives ``logprobs`` only when it keeps the logits of
every token (``logits_all``), and then, with Gemma 3's sliding-window cache, even a
prompt whose prefix is cached costs seconds per request (measured on 2 loaded
cores: about 10 s per one-token answer, against 0.1 s without ``logits_all``).
Here only the last token's logits are read
(``logits_all`` off), the shared prefix of a task's prompts is evaluated once,
and the log-softmax over the 262,144-token vocabulary is one numpy call.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from agents.llm.chat import ChatReply
from agents.llm.local_model import INSTALL_HINT, LocalModelMissing
from agents.llm.local_model import model_file as gguf

__all__ = ["LocalLogits"]


class LocalLogits:
    """The local model loaded in this process, for next-token log-probabilities (see the module docstring).

    Args:
        model_file: The GGUF (None: ``agents.llm.local_model.model_file()``, the packaged model).
        n_ctx: Context window in tokens.
        n_threads: CPU threads (None: llama.cpp's default).
    """

    url = "in-process"

    def __init__(
        self, model_file: str | os.PathLike | None = None, n_ctx: int = 4096, n_threads: int | None = None
    ) -> None:
        try:
            import llama_cpp
        except ImportError as error:
            raise LocalModelMissing(f"llama-cpp-python is not installed ({error}): {INSTALL_HINT}") from None
        self._get_logits = llama_cpp.llama_get_logits
        self._model = llama_cpp.Llama(
            model_path=str(gguf(model_file)),
            n_ctx=n_ctx,
            n_threads=n_threads,
            logits_all=False,
            swa_full=True,  # a full-size sliding-window cache: a cached prefix can be kept whatever its length
            verbose=False,
        )
        self._vocab = self._model.n_vocab()
        self._tokens: list[int] = []  # what the context holds now
        self._lock = threading.Lock()

    def _token_of(self, text: str) -> int | None:
        ids = self._model.tokenize(text.encode(), add_bos=False, special=False)
        return ids[0] if len(ids) == 1 else None

    def score_next(self, prompt: str, top: int = 20, candidates: tuple[str, ...] = ()) -> ChatReply:
        """The most likely first tokens after ``prompt`` and those of ``candidates`` (one-token strings),
        each with the natural log of its probability as llama.cpp computes it (it varies by up to about
        0.3 nats with the previous request: see the module docstring)."""
        with self._lock:
            tokens = self._model.tokenize(prompt.encode(), add_bos=True, special=False)
            if len(tokens) >= self._model.n_ctx():
                raise ValueError(
                    f"the prompt has {len(tokens)} tokens, over the context of {self._model.n_ctx()}"
                )
            shared = 0
            for old, new in zip(self._tokens, tokens[:-1]):  # at least the last token is evaluated
                if old != new:
                    break
                shared += 1
            self._model.n_tokens = shared  # eval() drops the cache from here on
            self._model.eval(tokens[shared:])
            self._tokens = list(tokens)
            last = self._get_logits(self._model.ctx)  # the last token's (the only ones kept)
            logits = np.ctypeslib.as_array(last, shape=(self._vocab,)).astype(np.float64)
        peak = logits.max()
        logprobs = logits - peak - np.log(np.exp(logits - peak).sum())
        best = np.argpartition(-logprobs, top)[:top]
        found = {
            self._model.detokenize([int(t)]).decode("utf-8", errors="ignore"): float(logprobs[t])
            for t in best
        }
        for text in candidates:
            token = self._token_of(text)
            if token is not None:
                found[text] = float(logprobs[token])
        return ChatReply(
            text="",
            prompt_tokens=len(tokens),
            completion_tokens=0,
            network_retries=0,
            top_logprobs=found,
        )

    def close(self) -> None:
        """Free the model."""
        self._model.close()
