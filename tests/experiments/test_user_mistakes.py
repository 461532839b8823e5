"""A user's mistake on a command line is one clear line (what was wrong, what is accepted), exit
status 2, no traceback: checked before anything is played, built or written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


def command(tmp_path, module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "NUMBA_CACHE_DIR": str(tmp_path / "numba")},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["solver=nosuch"], "solver must be one of ['beliefs', 'notepad', 'sat', 'uniform', 'llm']"),
        (["split=devv"], "no split version='v2' split='devv'; the splits are version=v1 split=dev"),
        (["limit=0"], "limit must be a positive integer or null, got 0"),
        (["limit=[1"], "'limit=[1' is not a setting Hydra can read (no viable alternative at input '[1')"),
        (["--cfg", "job", "solver"], "'solver' is not a setting Hydra can read"),
    ],
)
def test_the_reasoning_bench_refuses_a_bad_value_in_one_line(tmp_path, args, said):
    done = command(tmp_path, "experiments.reasoning_bench", *args, "progress=false")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("config error: ") and said in lines[0]
    written = [p for p in (tmp_path / "outputs").rglob("*") if p.is_file() and "hydra" not in p.parts]
    assert written == []  # nothing but hydra's record of the run


TRAINING_MISTAKES = [  # (command, what is given, what it says)
    ("train_ppo", "num_envs=0", "num_envs must be >= 1, got 0"),
    ("train_ppo", "precision=half", "precision must be one of ('float32', 'bfloat16'), got 'half'"),
    ("train_ppo", "pool_sampling=best", "pool_sampling must be one of ['weights', 'pfsp'], got 'best'"),
    ("train_ppo", "torch_threads=0", "torch_threads must be >= 1, got 0"),
    ("train_ppo", "learning_rate=-1", "learning_rate must be a finite number > 0, got -1.0"),
    ("train_ppo", "network.hidden=[]", "hidden must be a list of 1 to 64 whole widths in [1, 65,536], got []"),
    ("train_ppo", "resume=nowhere", "resume: no checkpoint or run folder at nowhere"),
    ("imitate", "holdout=1.5", "holdout must be in [0, 1), got 1.5"),
    ("imitate", "eval_opponents=[{name: sat, options: {speed: 1}}]",
     "eval_opponents.0 (sat): agent 'sat' has no option 'speed' (its options are the arguments of "
     "agents.reasoners.sat_agent:SatAgent)"),
    ("train_sb3", "policy=nosuch", "policy must be one of ['MultiInputPolicy', 'card'], got 'nosuch'"),
    ("train_sb3", "n_steps=0", "n_steps must be >= 1, got 0"),
    ("train_rllib", "policies=nosuch", "policies must be one of ('shared', 'per_seat'), got 'nosuch'"),
    ("train_rllib", "gamma=1.5", "gamma must be in [0, 1], got 1.5"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("module", "given", "said"), TRAINING_MISTAKES, ids=[m[1] for m in TRAINING_MISTAKES]
)
def test_training_refuses_a_bad_value_in_one_line(tmp_path, module, given, said):
    pytest.importorskip({"train_sb3": "sb3_contrib", "train_rllib": "ray.rllib"}.get(module, "torch"))
    done = command(
        tmp_path, f"experiments.{module}", given, f"runs_dir={tmp_path / 'runs'}", "progress=false"
    )
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0] == f"config error: {said}"
    assert not (tmp_path / "runs").exists()


MISSING_MODEL_FILES = [  # (command, an agent whose model file is not there, what it says)
    ("train_ppo", "eval_opponents=[{name: ppo, options: {checkpoint: nope.pt}}]",
     "eval_opponents.0 (ppo): no PPO model at nope.pt (nor a shipped model of that name: ['cluedo_"),
    ("imitate", "eval_opponents=[{name: learned, options: {checkpoint: nope.npz}}]",
     "eval_opponents.0 (learned): no numpy model at nope.npz"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("module", "given", "said"), MISSING_MODEL_FILES, ids=[m[0] for m in MISSING_MODEL_FILES]
)
def test_training_refuses_an_agent_whose_model_file_is_missing_in_one_line(tmp_path, module, given, said):
    """The agent's FileNotFoundError was not a ``ConfigError``: Hydra's traceback and exit status 1."""
    pytest.importorskip("torch")
    done = command(
        tmp_path, f"experiments.{module}", given, f"runs_dir={tmp_path / 'runs'}", "progress=false"
    )
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"config error: {said}"), lines[0]
    assert not (tmp_path / "runs").exists()


SEARCH_WITH_AUTO_REFUTE = [  # (command, its agent given as a searcher, what it says)
    ("imitate", ["teacher.name=ismcts", "+teacher.options.iterations=4", "games=2", "batch=2", "workers=1"],
     "teacher (ismcts) cannot play these rules: ismcts needs auto_refute=False"),
    ("train_ppo", ["opponents=[{name: determinize, weight: 1.0}]", "num_envs=4", "num_steps=8",
                   "total_timesteps=32"],
     "opponents.0 (determinize) cannot play these rules: determinize needs auto_refute=False"),
    ("train_sb3", ["opponent.name=ismcts", "~opponent.options.accuse"],
     "opponent cannot play these rules: ismcts needs auto_refute=False"),
    ("train_rllib", ["opponent=null", "eval_opponents=[{name: determinize}]"],
     "eval_opponents.0 cannot play these rules: determinize needs auto_refute=False"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("module", "given", "said"), SEARCH_WITH_AUTO_REFUTE, ids=[m[0] for m in SEARCH_WITH_AUTO_REFUTE]
)
def test_training_refuses_an_agent_that_cannot_play_the_rules_in_one_line(tmp_path, module, given, said):
    """ismcts and determinize refuse auto_refute=True when they are reset: imitate's teacher stopped in a
    worker after the run folder and its config were written, train_ppo's opponent on Hydra's traceback."""
    pytest.importorskip({"train_sb3": "sb3_contrib", "train_rllib": "ray.rllib"}.get(module, "torch"))
    done = command(
        tmp_path, f"experiments.{module}", *given, "game.auto_refute=true", f"runs_dir={tmp_path / 'runs'}",
        "final_eval_games=0", "progress=false",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"config error: {said}"), lines[0]
    assert not (tmp_path / "runs").exists()


def test_play_refuses_an_agent_that_cannot_play_the_rules_before_any_game(tmp_path):
    done = command(tmp_path, "experiments.play", "--agents", "sat,ppo,notepad", "--games", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert "--agents: seat 1 (ppo) cannot play these rules" in last and "num_players=3 (trained: 4)" in last
    assert done.stdout == ""  # no game was played


def test_request_logs_are_quiet_unless_asked_for():
    import logging

    from experiments.common.request_logs import quiet_request_logs

    httpx, httpcore = logging.getLogger("httpx"), logging.getLogger("httpcore")
    before = httpx.level, httpcore.level
    try:
        httpx.setLevel(logging.NOTSET)
        httpcore.setLevel(logging.DEBUG)  # as hydra.verbose=httpcore sets it
        quiet_request_logs()
        assert httpx.level == logging.WARNING and not httpx.isEnabledFor(logging.INFO)
        assert httpcore.level == logging.DEBUG
    finally:
        httpx.setLevel(before[0])
        httpcore.setLevel(before[1])


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("experiments.reasoning_bench", ["solver=llm", "llm.base_url={url}", "llm.model=x", "limit=3"]),
        (
            "experiments.tournament",
            [
                "lineup.agents=[{name: llm, options: {base_url: '{url}', model: x}}, {name: random}, {name: notepad}]",
                "lineup.field=[]",
                "games_per_lineup=1",
                "workers=0",
                "progress=false",
                "plots=false",
                "output_dir=out",
            ],
        ),
    ],
)
def test_an_endpoint_nobody_answers_at_stops_the_run_in_one_line(tmp_path, module, args):
    """Two refused connections, then the URL and how to start a server; not half a minute of retries."""
    import os

    url = f"http://127.0.0.1:{free_port()}/v1"
    args = [arg.replace("{url}", url) for arg in args]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: nothing answers at {url}/chat/completions (ConnectError"), last
    assert 'pip install -e ".[local-llm]"' in last and "experiments.serve_model" in last
