"""The local model as an lm-evaluation-harness model, ``cluedo-local``, and lm-eval's command line with it registered.

    python -m experiments.evals.lm_eval_data --limit 10
    python -m experiments.evals.lm_eval_local run --model cluedo-local \\
        --include_path experiments/evals/lm_eval_tasks --tasks cluedo_reasoning \\
        --log_samples --output_path outputs/evals/lm_eval

``python -m experiments.evals.lm_eval_local ARGS`` is ``lm_eval ARGS`` (the same command line) once
``cluedo-local`` is registered: lm-eval finds no model outside its own package otherwise.

``cluedo-local`` answers loglikelihood requests with the local model (Gemma 3 270M, the packaged GGUF,
or ``model_file=``) read in this process (``agents.llm.local_logits.LocalLogits``: llama.cpp without
``logits_all``, a shared prefix evaluated once): llama.cpp's log-probability of a one-token
continuation, and whether it is the most likely next token. These are not exact (another split of the
prompt into batches moves them by up to about 0.3 nats), but a function of the prompt alone: every
prompt is evaluated in the same blocks whatever was asked before, so lm-eval's order, a ``--limit``
and the benchmark's own runner give a question the same values, to the bit. The requests that share
a context (a question's choices) are answered from one evaluation. A continuation of several tokens, rolling
loglikelihoods and generation are refused with the reason: the reasoning task asks one token per
choice. Why not lm-eval's ``local-completions`` on the local model's server: it asks ``echo`` logprobs
of every prompt token, which llama-cpp-python's server computes by sorting the 262,144-token
vocabulary once per token (about a third of a second each on 2 cores: minutes per request for a
prompt of a thousand tokens), and it needs the model's tokenizer (Hugging Face or a server's
``/tokenize``); it is the path for servers that serve prompt logprobs cheaply (vLLM).

``--model_args`` takes ``model_file`` (or ``pretrained``, its other name, under which lm-eval files
the results: one of the two), ``n_ctx`` and ``n_threads``; any other key is refused, naming the
accepted ones (lm-eval would otherwise file the results under a model that was never loaded).
``batch_size``, ``max_batch_size`` and ``device``, which lm-eval passes every model, are ignored.
``--apply_chat_template`` is refused: the local model is scored as a base model, on the plain prompt.
"""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm

from cluedo_env.console import replace_unencodable
from experiments.evals import missing_harness

try:
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model
except ModuleNotFoundError as error:  # pragma: no cover - the message is the point
    raise missing_harness(error, "lm-evaluation-harness") from None

__all__ = ["LocalModelLM", "main"]

CHAT_TEMPLATE_REFUSED = (
    "cluedo-local scores the local model as a base model, on the task's plain prompt, without a chat "
    "template: run without --apply_chat_template"
)
MODEL_ARGS = ("model_file", "pretrained", "n_ctx", "n_threads")  # cluedo-local's own --model_args
LM_EVAL_ARGS = ("batch_size", "max_batch_size", "device")  # what lm-eval passes every model: ignored


@register_model("cluedo-local")
class LocalModelLM(LM):
    """The local model for lm-eval's loglikelihood requests (see the module docstring).

    Args:
        model_file: The GGUF (None: the packaged model).
        n_ctx: Context window in tokens.
        n_threads: CPU threads (None: llama.cpp's default).
        pretrained: Another name for ``model_file`` (lm-eval names the results after it).
        **lm_eval_args: What lm-eval passes every model (``batch_size``, ``max_batch_size``,
            ``device``): ignored.

    Raises:
        ValueError: a keyword that is neither one of ``MODEL_ARGS`` nor of ``LM_EVAL_ARGS``, or both
            ``model_file`` and ``pretrained`` (before the model is loaded).
    """

    def __init__(
        self,
        model_file: str | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        pretrained: str | None = None,
        **lm_eval_args: Any,
    ) -> None:
        unknown = sorted(set(lm_eval_args) - set(LM_EVAL_ARGS))
        if unknown:
            raise ValueError(
                f"cluedo-local does not take the model_args {', '.join(map(repr, unknown))}: it takes "
                f"{', '.join(MODEL_ARGS)} (model_file and pretrained name the GGUF; give one), and ignores "
                f"{', '.join(LM_EVAL_ARGS)}"
            )
        if model_file is not None and pretrained is not None:
            raise ValueError(
                f"cluedo-local was given both model_file={model_file!r} and pretrained={pretrained!r}: "
                "they are two names for the GGUF; give one"
            )
        super().__init__()
        from agents.llm.local_logits import LocalLogits

        self.logits = LocalLogits(
            model_file if pretrained is None else pretrained,
            n_ctx=int(n_ctx),
            n_threads=None if n_threads is None else int(n_threads),
        )
        self.evaluations = 0  # contexts read

    @property
    def tokenizer_name(self) -> str:
        """Refused: lm-eval reads it to apply a chat template, and the local model is scored without one.

        Raises:
            NotImplementedError: always, saying so.
        """
        raise NotImplementedError(CHAT_TEMPLATE_REFUSED)

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        """No chat template: ``chat_template`` false gives lm-eval's default; any other is refused.

        Raises:
            NotImplementedError: ``chat_template`` is true or names a template (``--apply_chat_template``).
        """
        if chat_template:
            raise NotImplementedError(CHAT_TEMPLATE_REFUSED)
        return super().chat_template(chat_template)

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        """``(log p(continuation | context), greedy)`` of each request (``request.args``: context, continuation).

        Raises:
            ValueError: a continuation that is not one token of the model.
        """
        results: list[tuple[float, bool] | None] = [None] * len(requests)
        by_context: dict[str, list[int]] = {}
        for index, request in enumerate(requests):
            by_context.setdefault(request.args[0], []).append(index)
        questions = tqdm(by_context.items(), desc="cluedo-local", unit="question", disable=disable_tqdm)
        for context, indices in questions:  # in order of first appearance: a task's cards in a row
            wanted = tuple(dict.fromkeys(requests[i].args[1] for i in indices))
            reply = self.logits.score_next(context, top=1, candidates=wanted)
            self.evaluations += 1
            best = max(reply.top_logprobs.values())
            for i in indices:
                continuation = requests[i].args[1]
                if continuation not in reply.top_logprobs:
                    raise ValueError(
                        f"cluedo-local scores one-token continuations only; {continuation!r} is not one token"
                    )
                value = reply.top_logprobs[continuation]
                results[i] = (value, value >= best)
        return results  # type: ignore[return-value]

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[float]:
        """Refused: ``cluedo-local`` scores next tokens only (see the module docstring)."""
        raise NotImplementedError(
            "cluedo-local answers loglikelihood requests of one-token continuations only"
        )

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        """Refused: ``cluedo-local`` scores next tokens only (see the module docstring)."""
        raise NotImplementedError(
            "cluedo-local does not generate; for generation serve the model (python -m experiments.serve_model) "
            "and use lm-eval's local-completions"
        )


def main(argv: list[str] | None = None) -> None:
    """Entry point: lm-eval's command line (``run``, ``ls``, ``validate``) with ``cluedo-local`` registered."""
    replace_unencodable()
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval", *(sys.argv[1:] if argv is None else argv)]
    cli_evaluate()


if __name__ == "__main__":
    main()
