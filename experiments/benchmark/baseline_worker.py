"""The worker of ``experiments.benchmark.baseline``: this code's benchmark loop over an earlier revision's core.

    python -m experiments.benchmark.baseline_worker FOLDER   # FOLDER first on PYTHONPATH, holding cluedo_env

Answers each request line (a JSON object of ``core_steps.measure_core``'s arguments, with
``num_players`` for the config; or, with ``"section": "env"``, of ``env_steps.measure_env``'s) with
the figures, as one JSON line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def serve(folder: str) -> None:
    """The worker: answers each request line with ``measure_core``'s figures, as one JSON line."""
    import cluedo_env
    from cluedo_env import core
    from experiments.benchmark.core_steps import measure_core
    from experiments.benchmark.env_steps import measure_env

    if not Path(cluedo_env.__file__).resolve().is_relative_to(Path(folder).resolve()):
        raise RuntimeError(f"the baseline worker imported {cluedo_env.__file__}, not the core in {folder}")
    for line in sys.stdin:
        job = json.loads(line)
        if job.pop("section", "core") == "env":  # the PettingZoo env of that revision
            print(json.dumps(measure_env(**job)), flush=True)
            continue
        config = core.GameConfig(num_players=job.pop("num_players"))
        print(json.dumps(measure_core(config, **job)), flush=True)


if __name__ == "__main__":
    serve(sys.argv[1])
