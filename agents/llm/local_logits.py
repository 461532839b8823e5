"""The local model's next-token probabilities read in this process: likelihood scoring without a server.

``LocalLogits().score_next(prompt, top, candidates)`` answers like
``agents.llm.chat.ChatClient.score_next`` (a ``ChatReply`` whose ``top_logprobs``
are the most likely first tokens), reading the logits of llama.cpp through
``llama_cpp.Llama`` in this process, and adds the log-probability of each
token of ``candidates`` (``"A"`` and ``" A"`` for each letter), which a server's
top-``k`` list may leave out.

The values are llama.cpp's, not exact (another split of the prompt into batches moves them, by up to
about 0.3 nats), but a function of the prompt alone (with the model file and the thread count): the same
to the bit whatever was asked before, so a resumed or sampled benchmark run, lm-eval's ``cluedo-local``
and a run in another order give a prompt the same values. Every prompt is evaluated in the same blocks,
one llama.cpp batch each: they start at every multiple of ``BLOCK_TOKENS`` (256) tokens and at the
prompt's last paragraph (after its last blank line). The cache of the previous prompt is kept up to a
block start within the prefix the two prompts share and before which both have the same blocks: of a
task's next card only the last paragraph (``Card: <card>`` and ``Holder:``) is evaluated; of a new task,
all from the last multiple of 256 before its text parts from the previous task's. (Evaluating only what
a prompt did not share with the previous one, as this did before, the same question scored -3.8718
alone and -3.8129 after the previous card's prompt; over 64 questions at most 0.33 nats apart.)

The blocks' cost, measured on the shared 2-core machine (2026-12-07, load 2 to 9; each card of a task
asked of every variant in turn, so that the load's swings hit each alike): over 13 tasks of the
benchmark's ``limit=100`` sample (276 questions), 1.27 times the time of evaluating only what a prompt
does not share with the previous one (2.19 s a question against 1.72 s), and 1.53 times with blocks that
start after every blank line too (more batches); over 13 others, blocks at multiples of 64 tokens alone
took 2.18 times, at multiples of 32 2.94 times. Over the 2,116 questions of ``limit=100`` these blocks
evaluate 125,379 tokens in 2,617 batches, against 113,742 in 2,270; blocks at multiples of 32, 64, 128
and 256 alone evaluate 146,616, 184,184, 248,248 and 391,224 tokens (each card evaluates again what its
block holds before its line).

Why. llama-cpp-python's server gives ``logprobs`` only when it keeps the logits of
every token (``logits_all``), and then, with Gemma 3's sliding-window cache, even a
prompt whose prefix is cached costs seconds per request (measured on 2 loaded
cores: about 10 s per one-token answer, against 0.1 s without ``logits_all``).
The server also evaluates only what a prompt does not share with the request before,
and has no option not to, so its values depend on that request (measured on one
question: 0.22 nats apart alone and after another card's prompt or an unrelated one).
Here only the last token's logits are read
(``logits_all`` off), the shared prefix of a task's prompts is evaluated once,
and the log-softmax over the 262,144-token vocabulary is one numpy call.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from agents.llm.chat import ChatReply
from agents.llm.local_model import INSTALL_HINT, MODEL_FILE_ENV, LocalModelMissing
from agents.llm.local_model import model_file as gguf

__all__ = ["BLOCK_TOKENS", "LocalLogits"]

# A prompt's blocks start at every multiple of BLOCK_TOKENS and at its last paragraph (module docstring).
BLOCK_TOKENS = 256


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
        path = gguf(model_file)
        named = model_file if model_file is not None else os.environ.get(MODEL_FILE_ENV) or None
        # what a copy loads: this file, wherever it runs (the packaged model where none was named)
        self._args = (None if named is None else path.resolve(), n_ctx, n_threads)
        self._get_logits = llama_cpp.llama_get_logits
        self._model = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            logits_all=False,
            n_batch=BLOCK_TOKENS,  # a block is one batch: llama.cpp splits none further
            swa_full=True,  # a full-size sliding-window cache: a cached prefix can be kept whatever its length
            verbose=False,
        )
        self._vocab = self._model.n_vocab()
        self._tokens: list[int] = []  # what the context holds now
        self._starts: list[int] = []  # where its blocks start
        self._blank_lines: dict[int, bool] = {}  # token -> whether its text holds a blank line
        self._lock = threading.Lock()

    def _block_starts(self, tokens: list[int]) -> list[int]:
        """Where the blocks of a prompt start: 0, every multiple of ``BLOCK_TOKENS`` and the start of its
        last paragraph (after its last token holding a blank line), below its end."""
        last = 0
        for position in range(len(tokens) - 1, 0, -1):
            token = tokens[position - 1]
            blank = self._blank_lines.get(token)
            if blank is None:
                blank = self._blank_lines[token] = b"\n\n" in self._model.detokenize([token])
            if blank:
                last = position
                break
        return sorted({0, last, *range(BLOCK_TOKENS, len(tokens), BLOCK_TOKENS)})

    def _token_of(self, text: str) -> int | None:
        ids = self._model.tokenize(text.encode(), add_bos=False, special=False)
        return ids[0] if len(ids) == 1 else None

    def score_next(self, prompt: str, top: int = 20, candidates: tuple[str, ...] = ()) -> ChatReply:
        """The most likely first tokens after ``prompt`` and those of ``candidates`` (one-token strings),
        each with the natural log of its probability as llama.cpp computes it, whatever was asked before
        (see the module docstring)."""
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
            starts = self._block_starts(tokens)
            kept = 0  # the cache is kept up to a block's start where both prompts have had the same blocks
            for cached, start in zip(self._starts, starts):
                if cached != start or start > shared:
                    break
                kept = start
            self._model.n_tokens = kept  # eval() drops the cache from here on
            self._tokens, self._starts = tokens[:kept], [start for start in starts if start < kept]
            for start, end in zip(starts, [*starts[1:], len(tokens)]):
                if start >= kept:  # one llama.cpp batch per block
                    self._model.eval(tokens[start:end])
                    self._tokens = tokens[:end]
                    self._starts.append(start)
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

    def __reduce__(self) -> tuple:
        """Every copy (pickled, ``copy.copy`` or ``copy.deepcopy``, in this process too) loads the same model
        file again, with its own empty context (about 360 MB more): llama.cpp's weights and context are no
        Python values."""
        return (type(self), self._args)

    def close(self) -> None:
        """Free the model."""
        self._model.close()
