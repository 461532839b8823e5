"""The reasoning benchmark's scores file: a run's identity, and the tasks it has scored, a line each.

``experiments.reasoning_bench`` writes ``<output_dir>/<solver>/scores-<hash of the settings>.jsonl``:
the run's settings on the first line, then one line per task as it is scored, so that a run stopped
(a slow model, Ctrl-C, a server down) goes on where it stopped. Settings that cannot change a task's
answer are left out of them (``llm_identity``), and credentials never go in. Its lines, and those of
``transcripts.jsonl``, are ``json_text``: UTF-8 text whatever a solver or a model said.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cluedo_env.reasoning.score import score_answer
from experiments.common.url_credentials import hide_url_credentials
from experiments.common.value_checks import ConfigError, is_read_number

__all__ = ["TRANSPORT_OPTIONS", "is_score_row", "json_text", "llm_identity", "scored_before"]

# Options of the llm solver that say how a request travels or where its key is read, never what is asked
# or answered: a run that stopped because every attempt ran past timeout_s goes on with a larger one.
TRANSPORT_OPTIONS = ("api_key_env", "timeout_s", "network_retries", "backoff_s", "max_reply_bytes")
# A lone surrogate: a str may hold one (a reply's JSON "\ud83d", half an emoji; a file name read with
# surrogateescape), UTF-8 cannot encode it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any) -> str:
    """``value`` as one line of JSON that UTF-8 can encode: other characters as they are (a German card
    name stays readable), a lone surrogate as JSON's escape of it (``\\ud83d``), which reads back as
    the same character. (A surrogate can only be inside a JSON string: the rest of the line is ASCII.)"""
    text = json.dumps(value, ensure_ascii=False)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def llm_identity(options: dict[str, Any]) -> dict[str, Any]:
    """The llm solver's options that make a run's identity: all but ``TRANSPORT_OPTIONS``, as JSON, with
    the credentials of any URL (``base_url``'s user and password, a key in its query) hidden."""
    kept = json.loads(
        json.dumps({k: v for k, v in options.items() if k not in TRANSPORT_OPTIONS}, default=str)
    )
    return {k: hide_url_credentials(v) if isinstance(v, str) else v for k, v in kept.items()}


def scored_before(
    path: Path, settings: dict[str, Any], resume: bool, tasks: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The per-task lines of an earlier run of the same settings, by task id (none if ``resume`` is
    off or there is no file); a file of other settings, or one that is not ours, stops the run.
    ``tasks``: the run's tasks by id. A line that is not a scored task of them (``is_score_row``: cut
    short by a stop, spoilt, or with figures its task's scoring cannot give) is left out, and its task
    scored again."""
    data = path.read_bytes() if path.exists() else b""
    lines = data.splitlines()  # bytes: a row cut inside a character spoils that row only
    if not lines:  # no file, or one a stop emptied before its first line
        return {}
    header = _json_line(lines[0])
    if header != {"settings": settings}:
        raise ConfigError(
            f"{path} holds a run of other settings ({lines[0][:200].decode('utf-8', 'replace')!r}); "
            "move it away or pick another output_dir: it is not overwritten"
        )
    if not resume:
        return {}
    done, cut = {}, False
    for line in lines[1:]:
        row = _json_line(line)
        task = tasks.get(row["id"]) if isinstance(row, dict) and isinstance(row.get("id"), str) else None
        if task is None or not is_score_row(row, task):
            # a line cut short when the run was stopped, spoilt, or impossible for its task: scored again
            cut = True
            continue
        done[row["id"]], cut = row, False
    if not data.endswith(b"\n"):  # the next row must start a line of its own
        with path.open("r+b") as file:
            if cut:  # a last row cut short: dropped (its task is scored again)
                file.truncate(data.rfind(b"\n") + 1)
            else:  # a last row written whole but for its newline: kept
                file.seek(0, 2)
                file.write(b"\n")
    return done


def _json_line(line: bytes) -> Any:
    """A line's JSON value, or None where it is not UTF-8 JSON."""
    try:
        return json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
        return None


def is_score_row(row: Any, task: Mapping[str, Any]) -> bool:
    """Whether ``row`` is a line ``reasoning_bench._score_one`` could have written for ``task``: its
    ``scored`` has the figures of ``score_answer``, every number finite; the figures the answer key
    fixes (``certain``, ``certain_<label>``, ``one``, ``entropy``, ``brier_floor``) are the task's;
    ``tp``, ``claimed``, ``found_<label>`` and ``rejected_rows`` are counts, ``tp`` at most ``claimed``
    and ``certain``, ``found_<label>`` at most ``certain_<label>``, ``rejected_rows`` at most the
    task's cards; ``solved`` is 0 or 1, the pairs' probabilities in [0, 1], ``brier`` within 2 of
    ``brier_floor``, ``log_loss`` at least 0 and ``excess_log_loss`` its excess over ``entropy``."""
    template = score_answer(task, {})
    if not (
        isinstance(row, dict)
        and isinstance(row.get("id"), str)
        and _finite(row.get("seconds"))
        and row["seconds"] >= 0
        and isinstance(row.get("counts"), dict)
        and all(_finite(v) for v in row["counts"].values())
        and isinstance(row.get("transcripts"), list)
        and isinstance(row.get("scored"), dict)
        and row["scored"].keys() == template.keys()
    ):
        return False
    scored = row["scored"]
    numbers = [k for k, v in template.items() if is_read_number(v)]
    if not (
        all(_finite(scored[k]) for k in numbers)
        and isinstance(scored["pairs"], list)
        and len(scored["pairs"]) <= len(task["answers"]["probabilities"])
        and all(
            isinstance(pair, list) and len(pair) == 2 and all(_finite(p) and 0 <= p <= 1 for p in pair)
            for pair in scored["pairs"]
        )
        and isinstance(scored["problems"], list)
        and all(isinstance(problem, str) for problem in scored["problems"])
    ):
        return False
    labels = [k.removeprefix("certain_") for k in template if k.startswith("certain_")]
    fixed = ["certain", "one", "entropy", "brier_floor"] + [f"certain_{label}" for label in labels]
    counts = ["tp", "claimed", "rejected_rows"] + [f"found_{label}" for label in labels]
    return (
        all(math.isclose(scored[k], template[k], rel_tol=1e-9, abs_tol=1e-12) for k in fixed)
        and all(float(scored[k]).is_integer() and scored[k] >= 0 for k in counts)
        and scored["tp"] <= min(scored["claimed"], scored["certain"])
        and all(scored[f"found_{label}"] <= scored[f"certain_{label}"] for label in labels)
        and scored["rejected_rows"] <= len(task["answers"]["probabilities"])
        and scored["solved"] in (0, 1)
        and scored["brier_floor"] - 1e-9 <= scored["brier"] <= scored["brier_floor"] + 2 + 1e-9
        and scored["log_loss"] >= 0
        and math.isclose(
            scored["excess_log_loss"], scored["log_loss"] - scored["entropy"], rel_tol=1e-9, abs_tol=1e-9
        )
    )


def _finite(value: Any) -> bool:
    """Whether a value read from a file is a finite number (``is_read_number``, not NaN or infinite)."""
    return is_read_number(value) and math.isfinite(value)
