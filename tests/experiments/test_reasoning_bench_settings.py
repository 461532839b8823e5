"""The reasoning benchmark's llm settings: checked before a split is loaded, kept out of the run's files
where they are credentials, left out of a run's identity where they cannot change an answer, and a
solver's failure told apart from the model's.

Against the scripted server (``experiments.scripted_chat_server``) over real HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agents.llm.errors import ChatError
from experiments import reasoning_bench
from experiments.reasoning_bench import ReasoningBenchConfig, run
from experiments.scripted_chat_server import ScriptedChatServer
from tests.conftest import ROOT

SECRETS = ("S3cretPassw0rd", "AIzaSyQUERYSECRET1")


def command(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    return subprocess.run(
        [sys.executable, "-m", "experiments.reasoning_bench", "solver=llm", "llm.api_key_env=null",
         "progress=false", "resamples=10", f"hydra.run.dir={tmp_path / 'hydra'}", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def settings(tmp_path, **llm) -> ReasoningBenchConfig:
    return ReasoningBenchConfig(
        solver="llm", llm={"api_key_env": None, "backoff_s": 0.0, **llm}, limit=5, resamples=10, progress=False,
        output_dir=str(tmp_path / "out"), leaderboard=str(tmp_path / "board.jsonl"),
    )  # fmt: skip


def test_a_urls_credentials_stay_out_of_the_runs_files(tmp_path):
    """A password in base_url went into the scores file's first line and Hydra's .hydra/ copies of the
    settings; a key in its query into the first line too."""
    with ScriptedChatServer(["answer"]) as server:
        url = server.url.replace("http://", f"http://alice:{SECRETS[0]}@")
        done = command(
            tmp_path, f"llm.base_url={url}", "limit=2", "output_dir=out", "leaderboard=board.jsonl"
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(server.log) == 2  # the run asked its tasks
        with pytest.raises(ChatError, match="404"):  # (the scripted server routes no query: the run stops)
            run(settings(tmp_path, base_url=f"{server.url}?key={SECRETS[1]}"))
    files = [path for path in tmp_path.rglob("*") if path.is_file() and "numba" not in path.parts]
    assert any(path.name.startswith("scores-") for path in files)
    assert not any(".hydra" in path.parts for path in files)
    for path in files:
        assert not any(secret.encode() in path.read_bytes() for secret in SECRETS), path
    headers = [
        json.loads(path.read_text().splitlines()[0]) for path in files if path.name.startswith("scores-")
    ]
    assert {h["settings"]["llm"]["base_url"] for h in headers} == {
        server.url.replace("http://", "http://[redacted]@"),
        f"{server.url}?key=[redacted]",
    }


def test_a_run_goes_on_after_its_transport_options_change(tmp_path):
    """Every attempt ran past timeout_s, or the retries were too few: the same command with a larger
    timeout_s or more retries asked every task again, under a run identity of its own."""
    with ScriptedChatServer(["answer"], fail_after=2) as server, pytest.raises(ChatError, match="HTTP 500"):
        run(settings(tmp_path, base_url=server.url, network_retries=0, timeout_s=300.0))
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    changed = {"network_retries": 3, "timeout_s": 600.0, "backoff_s": 1.0, "max_reply_bytes": 10**6}
    with ScriptedChatServer(["answer"], port=port) as server:
        report = run(settings(tmp_path, base_url=server.url, **changed))
        assert len(server.log) == 3  # only the tasks not scored yet
    (scores,) = (tmp_path / "out" / "llm").glob("scores-*.jsonl")
    assert report["tasks"] == 5 and len(scores.read_text().splitlines()) == 1 + 5
    header = json.loads(scores.read_text().splitlines()[0])["settings"]["llm"]
    assert header == {"base_url": server.url}  # what is asked and how: model, prompts, sampling (defaults)
    with ScriptedChatServer(["answer"], port=port) as server:
        run(settings(tmp_path, base_url=server.url, temperature=0.5))  # sampling: another run, all asked
        assert len(server.log) == 5
    assert len(list((tmp_path / "out" / "llm").glob("scores-*.jsonl"))) == 2


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("llm.base_url=notaurl", "llm: base_url must be an http(s) URL, got 'notaurl'"),
        ("llm.temperature=abc", "llm: temperature must be a finite number >= 0, got 'abc'"),
        ("llm.temperature=nan", "llm: temperature must be a finite number >= 0, got nan"),
        ("llm.max_tokens=0", "llm: max_tokens must be an integer >= 1, got 0"),
        ("+llm.foo=1", "llm: no option foo in the llm solver; its options are base_url, model,"),
    ],
)
def test_a_bad_llm_option_stops_the_command_in_one_line_before_anything_is_written(tmp_path, given, said):
    """They gave Hydra's traceback, after the split had loaded and the folder had been made and locked."""
    done = command(tmp_path, given, "limit=1", "output_dir=out", "leaderboard=board.jsonl")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"config error: {said}")
    assert not (tmp_path / "out").exists() and not (tmp_path / "board.jsonl").exists()


def test_a_bad_llm_option_is_refused_before_the_split_is_loaded(tmp_path, monkeypatch):
    def no_split(*args, **kwargs):
        raise AssertionError("the split was loaded")

    monkeypatch.setattr(reasoning_bench, "load_split", no_split)
    for llm, said in (({"temperature": "inf"}, "temperature"), ({"prompts": "nowhere"}, "prompts must be")):
        with pytest.raises(ValueError, match=f"^llm: {said}"):
            run(settings(tmp_path, base_url="http://alice:pw@127.0.0.1:9/v1", **llm))
    assert not (tmp_path / "out").exists()


def test_a_solver_failure_that_is_not_the_models_stops_the_run_and_keeps_the_tasks_scored(
    tmp_path, monkeypatch
):
    """A temperature of "nan" made every request fail to encode (a ValueError, no reply asked): each task
    was scored as an empty answer, and the run ended with a leaderboard line for a model never asked."""
    from agents.llm.chat import ChatClient

    complete = ChatClient.complete
    calls = []

    def fails_at_the_third(self, messages):
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("Out of range float values are not JSON compliant")
        return complete(self, messages)

    monkeypatch.setattr(ChatClient, "complete", fails_at_the_third)
    with ScriptedChatServer(["answer"]) as server, pytest.raises(Exception) as stopped:
        run(settings(tmp_path, base_url=server.url))
    assert type(stopped.value).__name__ == "SolverFailed"
    assert str(stopped.value).startswith("the llm solver raised ValueError on task v2-dev-")
    assert not (tmp_path / "board.jsonl").exists()  # no result of a run that did not finish
    (scores,) = (tmp_path / "out" / "llm").glob("scores-*.jsonl")
    assert len(scores.read_text().splitlines()) == 1 + 2  # the settings, the two tasks answered
    monkeypatch.setattr(ChatClient, "complete", complete)
    with ScriptedChatServer(["answer"], port=int(server.url.rsplit(":", 1)[1].split("/")[0])) as server:
        report = run(settings(tmp_path, base_url=server.url))
        assert len(server.log) == 3 and report["solver_counts"]["tasks"] == 5  # the tasks not scored, asked
    assert not any("solver raised" in kind for kind in report["summary"]["problems"]["kinds"])


@pytest.mark.parametrize(("output_dir", "folder"), [("out", "out"), ("null", "outputs")])
def test_the_command_writes_only_its_scores_and_leaderboard(tmp_path, output_dir, folder):
    """Hydra made an empty log file in ``outputs/reasoning/hydra/<time>/`` under the folder the command was
    run from, wherever ``output_dir`` pointed (and ``output_dir=null``, the default folder, must still work)."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    done = subprocess.run(
        [sys.executable, "-m", "experiments.reasoning_bench", "solver=sat", "limit=2", "resamples=10",
         "progress=false", f"output_dir={output_dir}", "leaderboard=board.jsonl"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    made = {path.relative_to(tmp_path).parts[0] for path in tmp_path.rglob("*") if "numba" not in path.parts}
    assert made == {folder, "board.jsonl"}
    assert not any(path.suffix == ".log" for path in tmp_path.rglob("*"))
