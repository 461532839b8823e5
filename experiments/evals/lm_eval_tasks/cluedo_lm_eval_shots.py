"""The lm-evaluation-harness task ``cluedo_reasoning``'s few-shot sampler, ``NoShots``: none are drawn.

The data has only a test split, so lm-eval would draw the shots from it, each ending with its target
(the answer key), often another card of the question's own task. ``--num_fewshot`` above 0 stops the
run when lm-eval builds the requests, before any model call.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.samplers import ContextSampler


class NoShots(ContextSampler):
    """The task's few-shot sampler: none are drawn (see the module docstring)."""

    def sample(self, n: int, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        """No documents for ``n`` 0.

        Raises:
            ValueError: ``n`` above 0 (``--num_fewshot``).
        """
        if n:
            raise ValueError(
                f"cluedo_reasoning takes no few-shot examples (num_fewshot={n}; only 0 is accepted): its one "
                "split is the test data, so each shot would be another question with its answer, often a card "
                "of the same task; run without --num_fewshot"
            )
        return []
