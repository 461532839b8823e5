"""The reasoning benchmark's scores file: a run's identity, and the tasks it has scored, a line each.

``experiments.reasoning_bench`` writes ``<output_dir>/<solver>/scores-<hash of the settings>.jsonl``:
the run's settings on the first line, then one line per task as it is scored, so that a run stopped
(a slow model, Ctrl-C, a server down) goes on where it stopped. Settings that cannot change a task's
answer are left out of them (``llm_identity``), and credentials never go in. Its lines, and those of
``transcripts.jsonl``, are ``json_text``: UTF-8 text whatever a solver or a model said.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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
    path: Path, settings: dict[str, Any], resume: bool, template: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The per-task lines of an earlier run of the same settings, by task id (none if ``resume`` is
    off or there is no file); a file of other settings, or one that is not ours, stops the run.
    ``template``: a task's ``score_answer``, whose figures every line's ``scored`` must have."""
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
        if not is_score_row(
            row, template
        ):  # a line cut short when the run was stopped (or spoilt): scored again
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


def is_score_row(row: Any, template: dict[str, Any]) -> bool:
    """Whether ``row`` has all the report reads of a scored task (``reasoning_bench._score_one``'s line):
    its ``scored`` the figures of ``template`` (a ``score_answer``), numbers where they are numbers."""
    if not (
        isinstance(row, dict)
        and isinstance(row.get("id"), str)
        and is_read_number(row.get("seconds"))
        and isinstance(row.get("counts"), dict)
        and all(is_read_number(v) for v in row["counts"].values())
        and isinstance(row.get("transcripts"), list)
        and isinstance(row.get("scored"), dict)
        and row["scored"].keys() == template.keys()
    ):
        return False
    scored = row["scored"]
    return (
        all(is_read_number(scored[k]) for k, v in template.items() if is_read_number(v))
        and isinstance(scored["pairs"], list)
        and all(
            isinstance(pair, list) and len(pair) == 2 and all(map(is_read_number, pair))
            for pair in scored["pairs"]
        )
        and isinstance(scored["problems"], list)
        and all(isinstance(problem, str) for problem in scored["problems"])
    )
