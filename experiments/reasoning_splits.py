"""Regenerate a split of the reasoning benchmark, check it against its pinned checksum, or write and re-pin it.

    nice -n 10 python -m experiments.reasoning_splits --version v2 --split dev --write
    nice -n 10 python -m experiments.reasoning_splits --version v2 --split test --write

(``dev`` is written into the package, ``test`` into ``--cache``; both pin their
new checksum in ``cluedo_env/reasoning/data/checksums.json``.) Without ``--write``
the command regenerates and checks against the pinned checksum. What a split is:
``cluedo_env.reasoning.splits``; how its games are played and cut:
``experiments.common.task_generation``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from cluedo_env.console import replace_unencodable
from cluedo_env.reasoning import splits
from experiments.common.task_generation import generate


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.reasoning_splits --version v2 --split dev [--write]``: regenerate, check, re-pin."""
    replace_unencodable()
    parser = argparse.ArgumentParser(
        prog="python -m experiments.reasoning_splits",
        description="Regenerate a reasoning-benchmark split; check it against its pinned checksum, "
        "or (--write) write it and pin its checksum. Run it under `nice -n 10` on a shared machine.",
    )
    parser.add_argument("--version", required=True, help=f"one of {sorted({v for v, _ in splits.SPLITS})}")
    parser.add_argument("--split", required=True, help="dev or test")
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the split (dev: into the package; test: into --cache) and pin its checksum",
    )
    parser.add_argument("--cache", default="outputs/reasoning/splits", help="folder of splits not shipped")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games at once")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be 1 or more, got {args.workers}")
    if (args.version, args.split) not in splits.SPLITS:
        parser.error(f"unknown split {args.version}/{args.split}; splits are {sorted(splits.SPLITS)}")
    spec = splits.SPLITS[args.version, args.split]
    start = time.perf_counter()
    tasks = list(generate(spec, workers=args.workers))
    digest = splits.checksum(tasks)
    pinned = splits.CHECKSUMS.get((args.version, args.split))
    print(
        f"{args.version}/{args.split}: {len(tasks)} tasks in {time.perf_counter() - start:.0f} s, sha256 {digest}"
    )
    if not args.write:
        print("matches the pinned checksum" if digest == pinned else f"DIFFERS from the pinned {pinned}")
        return 0 if digest == pinned else 1
    splits.pin(args.version, args.split, digest)
    path = spec.path() if spec.shipped else Path(args.cache) / args.version / f"{args.split}.jsonl.gz"
    splits.write_tasks(tasks, path)
    print(
        f"wrote {path}; pinned in {splits.CHECKSUMS_FILE}" + ("" if digest == pinned else f" (was {pinned})")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
