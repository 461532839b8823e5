"""Write a reasoning-benchmark split as the lm-evaluation-harness task's data: one JSON line per card of a task.

    python -m experiments.evals.lm_eval_data --limit 10          # writes outputs/evals/lm_eval/cluedo_reasoning.jsonl
    python -m experiments.evals.lm_eval_local run --model cluedo-local \\
        --include_path experiments/evals/lm_eval_tasks --tasks cluedo_reasoning --log_samples --output_path outputs/evals/lm_eval

The task ``cluedo_reasoning`` (``experiments/evals/lm_eval_tasks/cluedo_reasoning.yaml``) reads that
file from the folder it is run in. Each line is one question of the likelihood solver
(``agents.llm.likelihood.card_prompts``, the prompts of ``agents/llm/solver_prompts/likelihood``):
``prompt`` (the rules, the task's public view, the owners as lettered options, ``Card: <card>.
Holder:``), ``choices`` (the letters), ``owners`` (what each letter is), ``target`` (the index in
``choices``, from 0, of the owner most likely under the exact posterior, the first of those tied: lm-eval
reads an integer target as the index of a choice), ``exact`` (that posterior, per owner), and where it
comes from: ``version``, ``split``, ``task_id``, ``card``, ``tier``, ``task_sha256`` (the SHA-256 of the
task's canonical JSON line, ``cluedo_env.reasoning.splits.checksum``), ``cache`` and ``seed``. The
scorer refuses a line that is not what this module writes for its task in the split as it is now
(``cluedo_lm_eval_utils.check_doc``). The lines of a task follow each
other, so a server's prompt cache reads its view once. ``--limit`` draws whole tasks, as
``python -m experiments.reasoning_bench limit=N`` draws them; lm-eval's own ``--limit`` (the first
lines) would cut a task, and the cards left out would be scored as uniform.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from agents.llm.likelihood import LIKELIHOOD_PROMPT_FILES, card_prompts
from agents.llm.llm_agent import load_prompts
from agents.llm.solver import PROMPTS_DIR, task_rules, task_view
from cluedo_env.console import replace_unencodable
from cluedo_env.reasoning.score import public_view
from cluedo_env.reasoning.splits import checksum
from experiments.evals.benchmark_tasks import DEFAULT_CACHE, split_tasks

__all__ = ["DEFAULT_OUT", "card_docs", "main", "write_docs"]

DEFAULT_OUT = Path("outputs/evals/lm_eval/cluedo_reasoning.jsonl")  # where the shipped YAML reads


def card_docs(
    item: Mapping[str, Any],
    split: str,
    prompts: str = "likelihood",
    cache: str = DEFAULT_CACHE,
    seed: int = 0,
) -> Iterator[dict[str, Any]]:
    """The lines of one task (see the module docstring); the prompt is built from its public view only.
    ``cache``: the folder of generated splits the task came from (for the record: the scorer reads the
    answer key from its own folder, ``cluedo_lm_eval_utils.cache_folder``); ``seed``: the draw's, with
    which the scorer bootstraps (as ``experiments.reasoning_bench``)."""
    templates = load_prompts(prompts, root=PROMPTS_DIR, files=LIKELIHOOD_PROMPT_FILES)
    owners, letters, _, questions = card_prompts(public_view(item), templates, task_rules, task_view)
    posterior, digest = item["answers"]["probabilities"], checksum([item])
    for card, prompt in questions:
        exact = [posterior[card][owner] for owner in owners]
        yield {
            "version": item["version"],
            "split": split,
            "task_id": item["id"],
            "tier": item["tier"],
            "card": card,
            "prompt": prompt,
            "choices": list(letters),
            "owners": owners,
            "target": max(range(len(owners)), key=exact.__getitem__),
            "exact": exact,
            "task_sha256": digest,
            "cache": str(cache),
            "seed": seed,
        }


def write_docs(
    tasks: list[Mapping[str, Any]],
    split: str,
    out: str | Path,
    prompts: str = "likelihood",
    cache: str = DEFAULT_CACHE,
    seed: int = 0,
) -> int:
    """Write the lines of ``tasks`` (of a split generated into ``cache``, where not shipped) to ``out``
    (its folder made); the number of lines."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = 0
    with open(out, "w", encoding="utf-8") as file:
        for item in tasks:
            for doc in card_docs(item, split, prompts, cache, seed):
                file.write(json.dumps(doc, ensure_ascii=False) + "\n")
                lines += 1
    return lines


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m experiments.evals.lm_eval_data [--version V] [--split S] [--limit N] [--out F]``."""
    replace_unencodable()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="v2", help="benchmark version (default v2)")
    parser.add_argument("--split", default="dev", help="split (default dev, shipped)")
    parser.add_argument("--limit", type=int, default=None, help="tasks drawn as reasoning_bench draws them")
    parser.add_argument("--seed", type=int, default=0, help="seed of that draw (default 0)")
    parser.add_argument("--prompts", default="likelihood", help="likelihood prompt set or a folder of yours")
    parser.add_argument(
        "--cache",
        default=DEFAULT_CACHE,
        help=f"folder of generated splits (default {DEFAULT_CACHE}; the scorer reads CLUEDO_LM_EVAL_CACHE)",
    )
    parser.add_argument(
        "--out", default=str(DEFAULT_OUT), help=f"the JSON Lines file (default {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)
    try:
        tasks = split_tasks(args.version, args.split, args.limit, args.seed, args.cache)
        lines = write_docs(tasks, args.split, args.out, args.prompts, args.cache, args.seed)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {lines} questions of {len(tasks)} tasks of {args.version}/{args.split} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
