"""The reasoning benchmark in the LLM evaluation harnesses researchers use (``pip install -e ".[evals]"``).

- ``experiments.evals.inspect_task``: the Inspect AI task ``cluedo_reasoning`` (generation: the LLM
  solver's prompt, the answer scored by ``cluedo_env.reasoning.score``);
- ``experiments.evals.lm_eval_data`` and the task folder ``experiments/evals/lm_eval_tasks``: the
  lm-evaluation-harness task ``cluedo_reasoning`` (each card's holder, multiple choice by
  loglikelihood: the likelihood solver's prompts, aggregated per task by the same scorer);
- ``experiments.evals.lm_eval_local``: the local model (Gemma 3 270M, llama.cpp in this process) as an
  lm-evaluation-harness model, ``cluedo-local``.

See ``docs/guides/harnesses.md``.
"""

from __future__ import annotations

__all__ = ["missing_harness"]


def missing_harness(error: ModuleNotFoundError, harness: str) -> ModuleNotFoundError:
    """``error`` (a harness's import failing) restated with the extra that installs ``harness``."""
    return ModuleNotFoundError(
        f"No module named {error.name!r}: {harness} comes with the 'evals' extra of cluedo-env. "
        'Install it in the checkout with: pip install -e ".[evals]"',
        name=error.name,
    )
