"""The reasoning benchmark's solver: an import path that leads to no callable is refused in one line
before anything is loaded or written (it gave Hydra's traceback once the split had loaded, after an empty
output folder was made), and a solver's or a model's text is written whatever it holds (a lone surrogate
stopped the run with a UnicodeEncodeError, its task never written, so a resume crashed again).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from agents.solvers import SOLVERS
from experiments import reasoning_bench
from experiments.reasoning_bench import ReasoningBenchConfig, run
from experiments.scripted_chat_server import ScriptedChatServer
from tests.conftest import ROOT

SOLVER_FILE = "NOT_CALLABLE = 3\n\ndef solve(task):\n    return {}\n"
# Imported, it leaves a file behind: a module given by a config file of elsewhere must not be.
TRIPWIRE = "import pathlib\npathlib.Path('imported').write_text('yes')\n\ndef solve(task):\n    return {}\n"


def same(a: dict, b: dict) -> bool:
    """Two summaries alike (NaN, a precision of no claim, alike too)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def command(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    return subprocess.run(
        [sys.executable, "-m", "experiments.reasoning_bench", "limit=1", "resamples=10", "progress=false",
         "output_dir=out", "leaderboard=board.jsonl", f"hydra.run.dir={tmp_path / 'hydra'}", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("solver", "said"),
    [
        ("nosuchmod:solve", "cannot load solver 'nosuchmod:solve': No module named 'nosuchmod'"),
        ("mysolvers:missing", "cannot load solver 'mysolvers:missing': module 'mysolvers' has no attribute"),
        ("mysolvers:NOT_CALLABLE", "solver 'mysolvers:NOT_CALLABLE' is not callable"),
        ("..mysolvers:solve", "'..mysolvers:solve' is not an import path 'package.module:function'"),
    ],
)
def test_a_bad_import_path_stops_the_command_in_one_line_before_anything_is_written(tmp_path, solver, said):
    (tmp_path / "mysolvers.py").write_text(SOLVER_FILE)
    done = command(tmp_path, f"solver={solver}")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"config error: solver: {said}"), lines[0]
    assert "solver must be one of ['beliefs', 'notepad', 'sat', 'uniform', 'llm'] or 'package." in lines[0]
    assert not (tmp_path / "out").exists() and not (tmp_path / "board.jsonl").exists()


def test_a_bad_import_path_is_refused_before_the_split_is_loaded(tmp_path, monkeypatch):
    def no_split(*args, **kwargs):
        raise AssertionError("the split was loaded")

    monkeypatch.setattr(reasoning_bench, "load_split", no_split)
    with pytest.raises(ValueError, match=r"^solver: cannot load solver 'agents\.solvers:nothing'"):
        run(ReasoningBenchConfig(solver="agents.solvers:nothing", output_dir=str(tmp_path / "out")))
    assert not (tmp_path / "out").exists()


def test_an_import_path_from_a_config_file_of_elsewhere_is_refused_before_it_is_imported(tmp_path):
    (tmp_path / "tripwire.py").write_text(TRIPWIRE)
    (tmp_path / "mine").mkdir()
    for solver in ("tripwire:solve", "nosuchmod:solve"):  # (the second not refused as a bad path first)
        (tmp_path / "mine" / "evil.yaml").write_text(
            yaml.safe_dump({"defaults": ["reasoning_bench", "_self_"], "solver": solver})
        )
        done = command(tmp_path, "--config-dir", str(tmp_path / "mine"), "--config-name", "evil")
        assert done.returncode == 2, done.stderr[-2000:]
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("config error: solver given by ") and "trust_files=true" in line, line
    assert not (tmp_path / "imported").exists() and not (tmp_path / "out").exists()


def test_a_solvers_error_holding_a_lone_surrogate_is_written_and_read_back(tmp_path, monkeypatch, capsys):
    name = b"caf\xe9.txt".decode("utf-8", "surrogateescape")  # a file name as the OS reads it: caf\udce9.txt

    def raises(task):
        raise FileNotFoundError(f"no table of Köchin Weiß in {name}")

    monkeypatch.setitem(SOLVERS, "surrogate", raises)
    cfg = ReasoningBenchConfig(
        solver="surrogate", limit=3, resamples=10, progress=False,
        output_dir=str(tmp_path / "out"), leaderboard=str(tmp_path / "b.jsonl"),
    )  # fmt: skip
    report = run(cfg)
    assert report["summary"]["problems"]["kinds"]["solver raised FileNotFoundError"] == 3
    (path,) = (tmp_path / "out" / "surrogate").glob("scores-*.jsonl")
    raw = path.read_bytes()
    assert "Köchin Weiß".encode() in raw and b"caf\\udce9.txt" in raw  # other text as it is, as before
    rows = [json.loads(line) for line in raw.decode("utf-8").splitlines()[1:]]
    assert [row["error"] for row in rows] == [f"no table of Köchin Weiß in {name}"] * 3
    capsys.readouterr()
    assert same(run(cfg)["summary"], report["summary"])
    assert "resuming: 3 of 3 tasks already scored" in capsys.readouterr().out


class HalfAnEmoji(ScriptedChatServer):
    """The scripted server, whose replies start with half an emoji (JSON's "\\ud83d": valid JSON)."""

    def _answer(self, messages: list[dict]) -> dict:
        reply = super()._answer(messages)
        message = reply["choices"][0]["message"]
        message["content"] = "Thinking \ud83d ...\n" + message["content"]
        return reply


def test_a_model_reply_holding_a_lone_surrogate_is_written_and_read_back(tmp_path):
    llm = {"api_key_env": None, "backoff_s": 0.0}
    cfg = ReasoningBenchConfig(
        solver="llm", limit=3, resamples=10, progress=False,
        output_dir=str(tmp_path / "out"), leaderboard=str(tmp_path / "b.jsonl"),
    )  # fmt: skip
    with HalfAnEmoji(["answer"]) as server:
        cfg.llm = {"base_url": server.url, **llm}
        report = run(cfg)
        assert len(server.log) == 3
    assert report["solver_counts"]["unanswered"] == 0
    folder = tmp_path / "out" / "llm"
    transcripts = [json.loads(line) for line in (folder / "transcripts.jsonl").read_text().splitlines()]
    assert len(transcripts) == 3
    # (the chat client reads the half character as U+FFFD; a solver's own error keeps it, escaped: above)
    assert all(t["messages"][-1]["content"].startswith("Thinking \ufffd ...\n") for t in transcripts)
    with HalfAnEmoji(["answer"], port=int(server.url.rsplit(":", 1)[1].split("/")[0])) as server:
        cfg.llm = {"base_url": server.url, **llm}
        assert same(run(cfg)["summary"], report["summary"])
        assert server.log == []  # every task read back from the scores file, none asked again
