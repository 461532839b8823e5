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
