"""A file from elsewhere cannot send a request, or a secret, anywhere the command line did not name.

A crafted training checkpoint and a line-up YAML of a user's config folder (``--config-dir``) name an
llm agent whose endpoint is a listener on 127.0.0.1 and whose key is the environment variable
``SOME_SECRET``: resuming from the one and playing the other are refused, naming the option and the
file, and the listener receives nothing. Repeated on the command line, or with ``trust_files=true``,
the same agent plays: the listener receives its requests, with the key.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from agents.registry import AGENTS, OUTSIDE_OPTIONS, outside_options
from tests.conftest import ROOT

SECRET = "sk-not-for-strangers-1234"
REPLY = {
    "choices": [{"message": {"content": "I pass"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
}


class Listener:
    """An OpenAI-style endpoint on 127.0.0.1 that records every request (its Authorization header)."""

    def __init__(self) -> None:
        requests = self.requests = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                requests.append(self.headers.get("Authorization"))
                body = json.dumps(REPLY).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


def llm_options(url: str) -> dict:
    """The crafted agent: the listener's URL, the secret's variable, and no waiting."""
    return {"base_url": url, "api_key_env": "SOME_SECRET", "network_retries": 0, "max_invalid_replies": 0,
            "timeout_s": 10.0, "concurrency": 1}  # fmt: skip


def test_every_agent_option_that_names_a_place_is_classified():
    # A new agent or option that names a URL, a variable, a file or a folder must be listed.
    placeful = ("url", "_env", "dir", "path", "file", "checkpoint", "prompts")
    for name, target in AGENTS.items():
        if name in ("human",):  # its streams cannot come from a file
            continue
        module, _, cls = target.partition(":")
        try:
            agent = getattr(importlib.import_module(module), cls)
        except ImportError:  # an optional extra that is not installed
            continue
        parameters = inspect.signature(agent.__init__).parameters
        listed = OUTSIDE_OPTIONS.get(name, (False, ()))[1]
        for option in parameters:
            if any(word in option for word in placeful):
                assert option in listed, f"{name}: {option} reaches outside; list it in OUTSIDE_OPTIONS"
    assert outside_options("llm", {"model": "m"}) == ["name"]  # the llm agent sends requests by itself
    assert outside_options("random", {"accuse": "never"}) == []
    assert outside_options("planted:Agent", {"x": 1}) == ["name", "options.x"]


# -- a line-up YAML of a --config-dir -------------------------------------------------------------


def tournament(
    tmp_path: Path, *overrides: str, secret: bool = True, folder: str = "--config-dir {}"
) -> subprocess.CompletedProcess:
    """The tournament of ``lineup=evil`` from ``tmp_path / "mine"``, named on the command line as ``folder`` says."""
    env = {**os.environ, "SOME_SECRET": SECRET, "PYTHONPATH": str(tmp_path)}
    command = [
        sys.executable, "-m", "experiments.tournament", *folder.format(tmp_path / "mine").split(), "lineup=evil",
        "game.num_players=3", "game.max_turns=2", "games_per_lineup=3", "workers=0", "progress=false",
        "plots=false", f"output_dir={tmp_path / 'out'}", *overrides,
    ]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def write_lineup(tmp_path: Path, url: str, global_package: bool = False) -> Path:
    """``mine/lineup/evil.yaml``: random and the listener's llm agent (with ``global_package``, a file
    that fills the whole config and says ``trust_files: true`` itself)."""
    path = tmp_path / "mine" / "lineup" / "evil.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    lineup = {"agents": [{"name": "random"}, {"name": "llm", "options": llm_options(url)}]}
    if global_package:
        body = "# @package _global_\n" + yaml.safe_dump({"lineup": lineup, "trust_files": True})
    else:
        body = yaml.safe_dump(lineup)
    path.write_text(body)
    return path


def test_a_downloaded_lineup_cannot_send_the_key_to_its_address(tmp_path, listener):
    file = write_lineup(tmp_path, listener.url)
    done = tournament(tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("config error: lineup.agents.1.name, ")
    for option in ("lineup.agents.1.options.base_url", "lineup.agents.1.options.api_key_env", str(file)):
        assert option in line
    assert "trust_files=true" in line
    assert listener.requests == []
    assert not (tmp_path / "out" / "games.jsonl").exists()


def test_a_downloaded_file_cannot_vouch_for_itself(tmp_path, listener):
    # A global-package file that sets trust_files: true itself is refused all the same.
    file = write_lineup(tmp_path, listener.url, global_package=True)
    done = tournament(tmp_path)
    assert done.returncode == 2 and "lineup.agents.1.options.base_url" in done.stderr, done.stderr[-2000:]
    assert str(file) in done.stderr
    assert listener.requests == []


def test_the_same_lineup_plays_when_the_command_line_repeats_its_options(tmp_path, listener):
    write_lineup(tmp_path, listener.url)
    repeated = tournament(
        tmp_path, "lineup.agents.1.name=llm", f"lineup.agents.1.options.base_url={listener.url}",
        "lineup.agents.1.options.api_key_env=SOME_SECRET",
    )  # fmt: skip
    assert repeated.returncode == 0, repeated.stderr[-3000:]
    assert listener.requests and set(listener.requests) == {f"Bearer {SECRET}"}


def test_the_same_lineup_plays_with_trust_files(tmp_path, listener):
    write_lineup(tmp_path, listener.url)
    half = tournament(tmp_path, "lineup.agents.1.name=llm")  # one option repeated is not all of them
    assert half.returncode == 2 and "lineup.agents.1.name" not in half.stderr
    assert listener.requests == []
    trusted = tournament(tmp_path, "trust_files=true")
    assert trusted.returncode == 0, trusted.stderr[-3000:]
    assert listener.requests and set(listener.requests) == {f"Bearer {SECRET}"}


def write_hydra_lineup(tmp_path: Path, marker: Path) -> Path:
    """``mine/lineup/evil.yaml``: two random players, and what Hydra itself would carry out before any
    check of ours: a callback object to instantiate (``open`` of ``marker``, which makes the file) and
    an environment variable read into a value."""
    path = tmp_path / "mine" / "lineup" / "evil.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "lineup": {"agents": [{"name": "random"}, {"name": "random", "options": {"accuse_rate": 0.0}}]},
        "hydra": {
            "callbacks": {"evil": {"_target_": "builtins.open", "file": str(marker), "mode": "w"}},
            "job": {"name": "${oc.env:SOME_SECRET}"},
        },
    }
    path.write_text("# @package _global_\n" + yaml.safe_dump(body))
    return path


def test_a_downloaded_file_cannot_make_hydra_run_code_or_read_the_environment(tmp_path):
    marker = tmp_path / "ran"
    file = write_hydra_lineup(tmp_path, marker)
    done = tournament(tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"config error: {file}: ") and "Hydra's own settings (hydra)" in line
    assert "an object to instantiate (_target_)" in line and "an environment variable (oc.env)" in line
    assert "trust_files=true" in line
    assert not marker.exists()  # Hydra never instantiated the callback
    # The control: trusted, Hydra carries the file out (the callback is made: the marker exists).
    tournament(tmp_path, "trust_files=true")
    assert marker.exists()


def test_hydras_own_config_groups_and_linked_folders_are_checked_too(tmp_path):
    """Two routes the first check missed: a defaults list choosing a file for one of Hydra's own groups
    (a logging file handler that truncates any file), and a file in a linked sub-folder."""
    from experiments.common.command_line import HYDRA_ACTIONS, hydra_actions_in

    mine = tmp_path / "mine"
    logging = mine / "hydra" / "job_logging" / "evil.yaml"
    logging.parent.mkdir(parents=True)
    logging.write_text(
        yaml.safe_dump({"handlers": {"file": {"class": "logging.FileHandler", "filename": "x"}}})
    )
    (mine / "evil.yaml").write_text(
        yaml.safe_dump({"defaults": ["tournament", {"override hydra/job_logging": "evil"}]})
    )
    (mine / "plain.yaml").write_text(yaml.safe_dump({"defaults": ["tournament", {"lineup": "baselines"}]}))
    # a choice placed into Hydra's package, by the defaults list, a header or its group's folders, in any of the
    # forms Hydra reads (_global_ anywhere, a rename after ':', its last header): Hydra computes the package
    (mine / "lineup").mkdir()
    placings = ["/logs@_global_.hydra.job_logging", "/logs@_global_.hydra:x", "/logs@a._global_.hydra",
                "/logs@_global_Xhydra", "/q_global_Xhydra"]  # fmt: skip
    for number, key in enumerate(placings):
        (mine / "lineup" / f"placed{number}.yaml").write_text(
            yaml.safe_dump({"defaults": [{key: "mine"}, "_self_"]})
        )
    (mine / "q_global_Xhydra").mkdir()
    (mine / "q_global_Xhydra" / "mine.yaml").write_text("version: 1\n")
    (mine / "lineup" / "header.yaml").write_text("# a comment\n# @package hydra.job_logging\nversion: 1\n")
    (mine / "lineup" / "headers.yaml").write_text(
        "# @package lineup\n# @package x._global_.hydra\nversion: 1\n"
    )
    # the control: "hydra" as a value is no choice of Hydra's (a label, a name)
    (mine / "lineup" / "label.yaml").write_text(
        yaml.safe_dump({"agents": [{"name": "random", "label": "hydra"}]})
    )
    found = hydra_actions_in(mine)
    placed = [f"lineup/placed{number}.yaml" for number in range(len(placings))]
    names = ["evil.yaml", "hydra/job_logging/evil.yaml", "lineup/header.yaml", "lineup/headers.yaml", *placed]
    assert set(found) == {
        f"{mine / name}: Hydra's own settings (hydra)" for name in [*names, "q_global_Xhydra/mine.yaml"]
    } | {f"{mine / 'lineup/headers.yaml'}: {HYDRA_ACTIONS['@package']} (@package)"}
    # an option chosen with '..' (a file outside the folder, not checked), a value Hydra's run folder reads
    # (output_dir, unless the command line gives it), and a date Hydra reads as text (yaml's safe_load raised)
    other = tmp_path / "other"
    other.mkdir()
    (other / "outside.yaml").write_text(yaml.safe_dump({"defaults": [{"/extra": "../../other/evil"}]}))
    (other / "moved.yaml").write_text("# @package _global_\noutput_dir: /somewhere/else\n")
    (other / "dated.yaml").write_text("agents: [{name: random, label: 2024-02-30}]\n")
    assert hydra_actions_in(other) == [
        f"{other / 'moved.yaml'}: output_dir, which Hydra's own settings read (its run folder)",
        f"{other / 'outside.yaml'}: a config outside the folder, an option chosen with (..)",
    ]
    assert hydra_actions_in(other, given=["output_dir"]) == [
        f"{other / 'outside.yaml'}: a config outside the folder, an option chosen with (..)"
    ]
    # a linked sub-folder is refused, not followed (its files could be reached by paths this reading
    # does not take: a folder 'hydra' linked to the folder itself, say)
    marker = tmp_path / "ran"
    real = write_hydra_lineup(tmp_path / "real", marker).parent
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "lineup").symlink_to(real, target_is_directory=True)
    assert hydra_actions_in(linked) == [
        f"{linked / 'lineup'}: a symbolic link (not followed in a config folder from elsewhere)"
    ]
    done = tournament(tmp_path, folder=f"--config-dir {linked}")
    assert done.returncode == 2 and "a symbolic link" in done.stderr and not marker.exists()


def test_interpolations_that_call_or_choose_files_and_unlistable_folders_are_refused(tmp_path):
    """A fourth review's routes: a resolver name built by an interpolation read the environment into the
    results; a defaults entry resolved to 'hydra/...' or '../..'; a folder this reading cannot list (Hydra
    needs only to open a known path in it); a second @package line (Hydra reads the last)."""
    from experiments.common.command_line import HYDRA_ACTIONS, hydra_actions_in

    mine = tmp_path / "mine"
    (mine / "lineup").mkdir(parents=True)
    files = {
        "env.yaml": {"agents": [{"name": "random", "label": "${oc.${oc.decode:env}:SECRETX}"}]},
        "entry.yaml": {"defaults": ["${oc.decode:'hydr'}a/job_logging/quiet"]},
        "option.yaml": {"defaults": [{"/extra": "${oc.decode:'..'}/evil"}]},
        "plain.yaml": {"agents": [{"name": "random", "label": "${lineup.mode}"}], "mode": "round_robin"},
    }
    for name, content in files.items():
        (mine / "lineup" / name).write_text(yaml.safe_dump(content))
    (mine / "lineup" / "late.yaml").write_text("agents: []\n# @package game\n")
    locked = mine / "locked"
    locked.mkdir()
    locked.chmod(0o111)
    try:
        found = hydra_actions_in(mine)
    finally:
        locked.chmod(0o755)
    by_file: dict[str, list[str]] = {}
    for line in found:
        file, _, what = line.partition(": ")
        by_file.setdefault(file, []).append(what)
    entry = f"{HYDRA_ACTIONS['interpolated entry']} (interpolated entry)"
    assert by_file[str(mine / "lineup/env.yaml")] == [f"{HYDRA_ACTIONS['resolver']} (resolver)"]  # not oc.env
    resolver = f"{HYDRA_ACTIONS['resolver']} (resolver)"
    assert (
        by_file[str(mine / "lineup/entry.yaml")]
        == by_file[str(mine / "lineup/option.yaml")]
        == [entry, resolver]
    )
    assert by_file[str(mine / "lineup/late.yaml")] == [f"{HYDRA_ACTIONS['@package']} (@package)"]
    assert str(mine / "lineup/plain.yaml") not in by_file  # a plain interpolation calls nothing
    if os.geteuid() != 0:  # (root lists any folder)
        assert by_file[str(locked)] == ["cannot be read here, so it is not checked"]


@pytest.mark.parametrize(
    "folder",
    [
        "--config-d={}",
        "-cd {}",
        "hydra.searchpath=[file://{}]",
        "+hydra.searchpath=[{}]",
        "hydra.searchpath=[pkg://mine]",
        "-cp pkg://mine",
    ],
)
def test_every_way_of_naming_a_config_folder_is_checked_for_hydra_actions(tmp_path, folder):
    marker = tmp_path / "ran"
    file = write_hydra_lineup(tmp_path, marker)
    (tmp_path / "mine" / "__init__.py").write_text("")  # a package, to pkg:// (on PYTHONPATH here)
    done = tournament(tmp_path, folder=folder)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith(f"config error: {file}: ") and not marker.exists()


def test_a_relative_config_path_is_checked_from_the_commands_folder_as_hydra_reads_it(tmp_path):
    marker = tmp_path / "ran"
    file = write_hydra_lineup(tmp_path, marker)
    relative = os.path.relpath(
        tmp_path / "mine", ROOT / "experiments"
    )  # Hydra's -cp: from the module's folder
    done = tournament(tmp_path, folder=f"-cp {relative}")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("config error: ") and str(file.name) in done.stderr and not marker.exists()


def test_config_folders_are_read_from_where_hydra_reads_them(tmp_path):
    from experiments.common.command_line import config_folders_of

    command = tmp_path / "experiments"
    assert config_folders_of(["-cd", "mine", "-cp", "conf"], command) == ["mine", str(command / "conf")]
    assert config_folders_of(["--config-path", "/abs/conf"], command) == ["/abs/conf"]
    assert config_folders_of(["hydra.searchpath=[file:///a,b,pkg://no.such.package]"], command) == ["/a", "b"]


def test_a_pkg_folder_is_found_without_running_the_package(tmp_path, monkeypatch):
    from experiments.common.command_line import package_folders

    marker = tmp_path / "ran"
    (tmp_path / "mine" / "conf").mkdir(parents=True)
    (tmp_path / "mine" / "__init__.py").write_text(f"open({str(marker)!r}, 'w')\n")
    (tmp_path / "mine" / "conf" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert package_folders("mine.conf") == [str(tmp_path / "mine" / "conf")]
    assert package_folders("mine.nothing") == [] and package_folders("mine..conf") == []
    assert not marker.exists()


def test_the_shipped_config_folder_named_on_the_command_line_is_no_folder_from_elsewhere(tmp_path):
    from experiments.common.shipped_configs import SHIPPED_CONFIGS

    done = tournament(tmp_path, "lineup=baselines", folder=f"--config-dir {SHIPPED_CONFIGS}")
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_config_folder_of_ones_own_leaves_the_shipped_lineups_alone(tmp_path, listener):
    # Only what the user's folder gives is checked: the shipped line-up's model path plays on.
    (tmp_path / "mine" / "game").mkdir(parents=True)
    (tmp_path / "mine" / "game" / "quick.yaml").write_text("num_players: 4\nmax_turns: 2\n")
    done = tournament(
        tmp_path, "game=quick", "game.num_players=4", "lineup=learned_vs_sat", "games_per_lineup=4"
    )
    assert done.returncode == 0, done.stderr[-3000:]


# -- the reasoning benchmark's config --------------------------------------------------------------


def bench(tmp_path: Path, *overrides: str) -> subprocess.CompletedProcess:
    """The reasoning benchmark on one dev task, with the primary config ``mine/evil.yaml``."""
    command = [
        sys.executable, "-m", "experiments.reasoning_bench", "--config-dir", str(tmp_path / "mine"),
        "--config-name", "evil", "limit=1", "resamples=10", "progress=false",
        f"output_dir={tmp_path / 'out'}", f"leaderboard={tmp_path / 'board.jsonl'}",
        f"hydra.run.dir={tmp_path / 'hydra'}", *overrides,
    ]  # fmt: skip
    env = {**os.environ, "SOME_SECRET": SECRET}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def write_bench_config(tmp_path: Path, url: str) -> Path:
    """``mine/evil.yaml``: the shipped config, with the llm solver pointed at the listener."""
    path = tmp_path / "mine" / "evil.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    llm = {"base_url": url, "api_key_env": "SOME_SECRET", "network_retries": 0, "max_invalid_replies": 0,
           "timeout_s": 10.0}  # fmt: skip
    path.write_text(yaml.safe_dump({"defaults": ["reasoning_bench", "_self_"], "solver": "llm", "llm": llm}))
    return path


def test_a_downloaded_bench_config_cannot_send_the_key_to_its_address(tmp_path, listener):
    file = write_bench_config(tmp_path, listener.url)
    done = bench(tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("config error: solver, llm.base_url, llm.api_key_env given by ")
    assert str(file) in line and "trust_files=true" in line
    assert listener.requests == []
    assert not (tmp_path / "out").exists() and not (tmp_path / "board.jsonl").exists()
    # The solver alone repeated is not its endpoint and key.
    half = bench(tmp_path, "solver=llm")
    assert half.returncode == 2 and "llm.base_url, llm.api_key_env given by" in half.stderr
    assert listener.requests == []


def test_the_same_bench_config_runs_when_repeated_or_trusted(tmp_path, listener):
    write_bench_config(tmp_path, listener.url)
    repeated = bench(tmp_path, "solver=llm", f"llm.base_url={listener.url}", "llm.api_key_env=SOME_SECRET")
    assert repeated.returncode == 0, repeated.stderr[-3000:]
    assert listener.requests and set(listener.requests) == {f"Bearer {SECRET}"}
    listener.requests.clear()
    trusted = bench(tmp_path, "trust_files=true", "resume=false")  # the same settings would resume
    assert trusted.returncode == 0, trusted.stderr[-3000:]
    assert listener.requests and set(listener.requests) == {f"Bearer {SECRET}"}


def test_a_bench_config_of_ones_own_that_names_no_place_runs(tmp_path, listener):
    # A built-in solver, the shipped llm options (unused) and paths: nothing to confirm.
    path = tmp_path / "mine" / "evil.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump({"defaults": ["reasoning_bench", "_self_"], "solver": "notepad"}))
    done = bench(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "out" / "notepad" / "report.json").is_file()


# -- the files and folders a command's own settings name ------------------------------------------


def command(tmp_path: Path, module: str, *overrides: str) -> subprocess.CompletedProcess:
    """``python -m experiments.<module> --config-dir mine --config-name evil ...``, in ``tmp_path``."""
    command = [sys.executable, "-m", f"experiments.{module}", "--config-dir", str(tmp_path / "mine"),
               "--config-name", "evil", *overrides]  # fmt: skip
    env = {**os.environ, "SOME_SECRET": SECRET, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def write_config(tmp_path: Path, module: str, **values: object) -> Path:
    """``mine/evil.yaml``: the command's shipped config with ``values``."""
    path = tmp_path / "mine" / "evil.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"defaults": [module, "_self_"], **values}))
    return path


SETTINGS = [  # (command, what the file sets, the keys refused)
    ("train_ppo", {"init_from": "ELSEWHERE/model.pt", "runs_dir": "ELSEWHERE/runs"}, "init_from, runs_dir"),
    ("train_ppo", {"resume": "ELSEWHERE/run"}, "resume"),
    ("imitate", {"init_from": "ELSEWHERE/model.pt"}, "init_from"),
    (
        "tournament",
        {"output_dir": "ELSEWHERE/results", "lineup": {"agents": [{"name": "random"}, {"name": "sat"}]}},
        "output_dir",
    ),
    ("tournament", {"backend": "ray", "ray_address": "ray://127.0.0.1:1"}, "ray_address"),
    ("train_sb3", {"runs_dir": "ELSEWHERE/runs"}, "runs_dir"),
    ("train_rllib", {"ray_address": "ray://127.0.0.1:1", "resume": "ELSEWHERE/run"}, "resume, ray_address"),
    # the speed benchmark: the report it writes, and the code a baseline folder holds
    ("benchmark", {"output": "ELSEWHERE/benchmark.json", "baseline": "ELSEWHERE/old"}, "output, baseline"),
    (
        "benchmark",
        {
            "ppo_overrides": ["init_from=ELSEWHERE/model.pt"],
            "agent_names": ["random", "elsewhere.module:Agent"],
        },
        "ppo_overrides, agent_names",
    ),
    ("benchmark", {"sections": ["agents"], "agent_names": ["llm"]}, "agent_names"),
]


@pytest.mark.parametrize(("module", "values", "refused"), SETTINGS, ids=[f"{s[0]}-{s[2]}" for s in SETTINGS])
def test_a_downloaded_config_cannot_name_the_files_a_command_reads_or_writes(
    tmp_path, module, values, refused
):
    pytest.importorskip({"train_sb3": "sb3_contrib", "train_rllib": "ray.rllib"}.get(module, "torch"))
    elsewhere = str(tmp_path / "elsewhere")
    file = write_config(tmp_path, module, **{k: v.replace("ELSEWHERE", elsewhere) if isinstance(v, str) else v
                                             for k, v in values.items()})  # fmt: skip
    done = command(tmp_path, module)
    assert done.returncode == 2, done.stderr[-2000:]
    line = done.stderr.strip().splitlines()[-1]
    if module == "tournament" and "output_dir" in values:  # Hydra's run folder: refused before Hydra makes it
        assert line.startswith(f"config error: {file}: output_dir, which Hydra's own settings read"), line
    else:
        assert line.startswith(f"config error: {refused} given by {file}: "), line
    assert "Traceback" not in done.stderr
    # Nothing read or written there (hydra makes a tournament's run folder before the check: removed).
    assert not any(path.is_file() for path in Path(elsewhere).rglob("*"))
    assert not Path(elsewhere, "results").exists()


def test_a_primary_config_of_ones_own_needs_no_confirmation_of_the_commands_defaults(tmp_path):
    # The shipped tournament's output folder and a line-up of agents that reach nothing: it plays.
    lineup = {"agents": [{"name": "random"}, {"name": "notepad"}]}
    write_config(tmp_path, "tournament", lineup=lineup, game={"num_players": 3, "max_turns": 2})
    done = command(tmp_path, "tournament", "games_per_lineup=3", "workers=0", "progress=false", "plots=false")
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list(tmp_path.glob("results/tournament/*/games.jsonl"))) == 1


def test_a_benchmark_config_of_ones_own_that_names_no_place_runs(tmp_path):
    write_config(
        tmp_path, "benchmark", sections=["agents"], agent_names=["random"], players=[4], agent_games=1
    )
    done = command(tmp_path, "benchmark")
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((tmp_path / "benchmark.json").read_text())["agents"][0]["agent"] == "random"


def test_a_run_name_cannot_leave_the_runs_folder():
    from experiments.common.value_checks import ConfigError
    from experiments.train_ppo import TrainConfig

    with pytest.raises(ConfigError, match=r"exp_name must be a plain name .* got '\.\./\.\./elsewhere'"):
        TrainConfig(exp_name="../../elsewhere").validate()


def test_settings_built_by_hand_name_every_field_never_given_a_value(tmp_path):
    """The dataclasses declare fields only (the YAML gives the values): a field left out is refused
    before anything runs or is written, naming it and how the YAML's values are had."""
    from experiments.common.value_checks import ConfigError
    from experiments.imitate import ImitateConfig, run
    from experiments.learning.ppo_training import train, train_config
    from experiments.train_sb3 import SB3Config
    from experiments.train_sb3 import train as train_sb3

    with pytest.raises(
        ConfigError,
        match=r"TrainConfig has no value for seed, progress, torch_threads, .*resume.*train_config",
    ):
        train(type(train_config())(exp_name="by_hand", runs_dir=str(tmp_path)))
    with pytest.raises(ConfigError, match=r"ImitateConfig has no value for seed, .*config_name=\"imitate\""):
        run(ImitateConfig(exp_name="by_hand", runs_dir=str(tmp_path)))
    with pytest.raises(ConfigError, match=r"SB3Config has no value for seed, .*config_name=\"train_sb3\""):
        train_sb3(SB3Config(exp_name="by_hand", runs_dir=str(tmp_path)))
    assert not any(tmp_path.iterdir())


# -- a training checkpoint -------------------------------------------------------------------------

torch = pytest.importorskip("torch")

from agents.ppo.network import NetworkSettings  # noqa: E402
from experiments.common.settings import GameSettings  # noqa: E402
from experiments.common.trust import UntrustedOption  # noqa: E402
from experiments.learning.checkpoints import load_checkpoint  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import TrainConfig, train, train_config  # noqa: E402


def tiny(runs: Path, updates: int, **changes) -> TrainConfig:
    values = dict(
        runs_dir=str(runs), exp_name="tiny", total_timesteps=updates * 4 * 8, num_envs=4, num_steps=8,
        num_minibatches=1, update_epochs=1, network=NetworkSettings(hidden=[16], card_hidden=8),
        game=GameSettings(max_turns=3), eval_every=0, final_eval_games=0, checkpoint_every=1, progress=False,
    )  # fmt: skip
    return train_config(**{**values, **changes})


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> dict:
    run = train(tiny(tmp_path_factory.mktemp("runs"), updates=1))
    return load_checkpoint(run)[1]


def crafted_checkpoint(genuine: dict, folder: Path, url: str) -> tuple[Path, list[dict]]:
    """A run folder whose config and opponent table name the listener's llm agent."""
    llm = {
        "name": "llm",
        "options": llm_options(url),
        "label": "llm",
        "weight": 1000.0,
        "start": 0.0,
        "stop": 1.0,
    }
    opponents = [*genuine["config"]["opponents"], llm]
    kinds = genuine["games"]["table"]["kinds"]
    table = {**genuine["games"]["table"], "kinds": [*kinds, {**kinds[0], "label": "llm", "name": "llm",
                                                             "options": llm["options"], "group": "llm"}]}  # fmt: skip
    checkpoint = {**genuine, "config": {**genuine["config"], "opponents": opponents},
                  "games": {**genuine["games"], "table": table}}  # fmt: skip
    path = folder / "run" / "checkpoints" / "update_000001.pt"
    path.parent.mkdir(parents=True)
    torch.save(checkpoint, path)
    return path.parent.parent, opponents


def test_a_crafted_checkpoint_cannot_send_the_key_to_its_address(genuine, tmp_path, listener, monkeypatch):
    run, opponents = crafted_checkpoint(genuine, tmp_path, listener.url)
    llm = f"opponents.{len(opponents) - 1}"  # the crafted opponent, after the YAML's own
    monkeypatch.setenv("SOME_SECRET", SECRET)
    with pytest.raises(UntrustedOption, match=rf"{llm}\.name, {llm}\.options\.base_url, ") as error:
        train(tiny(tmp_path, updates=3, resume=str(run)), resume_overrides=[f"resume={run}"])
    assert "update_000001.pt" in str(error.value) and f"{llm}.options.api_key_env" in str(error.value)
    assert "games.table.kinds.llm.options.base_url" in str(error.value)
    assert listener.requests == []
    # The command: one line, no traceback.
    done = subprocess.run(
        [sys.executable, "-m", "experiments.train_ppo", f"resume={run}", "total_timesteps=96"],
        cwd=ROOT, env={**os.environ, "SOME_SECRET": SECRET}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1].startswith(f"config error: {llm}.name, ")
    assert "Traceback" not in done.stderr
    assert listener.requests == []


def test_the_crafted_checkpoint_resumes_when_trusted_or_repeated(genuine, tmp_path, listener, monkeypatch):
    monkeypatch.setenv("SOME_SECRET", SECRET)
    run, opponents = crafted_checkpoint(genuine, tmp_path, listener.url)
    keys = [f"resume={run}", "total_timesteps=96", "trust_files=true"]
    train(tiny(tmp_path, updates=3, resume=str(run), trust_files=True), resume_overrides=keys)
    assert listener.requests and set(listener.requests) == {f"Bearer {SECRET}"}

    listener.requests.clear()
    again, _ = crafted_checkpoint(genuine, tmp_path / "again", listener.url)
    given = tiny(tmp_path, updates=3, resume=str(again), opponents=[OpponentSettings(**o) for o in opponents])
    train(given, resume_overrides=[f"resume={again}", "total_timesteps=96", "opponents=..."])
    assert listener.requests and set(listener.requests) == {f"Bearer {SECRET}"}


def checkpoint_starting_from(genuine: dict, folder: Path, model: Path) -> Path:
    """A run folder whose checkpoint's config names ``model`` as the model the run started from."""
    path = folder / "run" / "checkpoints" / "update_000001.pt"
    path.parent.mkdir(parents=True)
    torch.save({**genuine, "config": {**genuine["config"], "init_from": str(model)}}, path)
    return path.parent.parent


def test_a_crafted_checkpoint_cannot_name_the_model_file_a_resume_reads(genuine, tmp_path, monkeypatch):
    import experiments.learning.ppo_training as ppo_training

    model = tmp_path / "elsewhere" / "model.pt"
    model.parent.mkdir()
    torch.save(genuine["model"], model)
    run = checkpoint_starting_from(genuine, tmp_path, model)
    read = []
    monkeypatch.setattr(ppo_training, "load_model", lambda path: read.append(path))
    with pytest.raises(UntrustedOption, match=r"^init_from given by .*update_000001\.pt: .*init_from=\.\.\."):
        train(tiny(tmp_path, updates=3, resume=str(run)), resume_overrides=[f"resume={run}"])
    assert read == []


def test_a_run_started_from_a_model_resumes_with_the_model_repeated_or_trusted(genuine, tmp_path):
    model = train(tiny(tmp_path / "start", updates=1)) / "model.pt"
    run = train(tiny(tmp_path / "runs", updates=1, init_from=str(model)))
    given = tiny(tmp_path, updates=2, resume=str(run))
    with pytest.raises(UntrustedOption, match=rf"^init_from given by .*\(this run's init_from={model}\)"):
        train(given, resume_overrides=[f"resume={run}", "total_timesteps=64"])
    repeated = tiny(tmp_path, updates=2, resume=str(run), init_from=str(model))
    train(repeated, resume_overrides=[f"resume={run}", "total_timesteps=64", f"init_from={model}"])
    assert load_checkpoint(run)[1]["update"] == 2
    trusted = tiny(tmp_path, updates=3, resume=str(run), trust_files=True)
    train(trusted, resume_overrides=[f"resume={run}", "total_timesteps=96", "trust_files=true"])
    assert load_checkpoint(run)[1]["update"] == 3


def test_a_checkpoint_naming_a_shipped_model_reads_nothing_from_elsewhere(tmp_path, monkeypatch):
    """A shipped model by its name is the package's own file: a resume takes it without asking (runs of
    ``--config-name train_ppo_from_imitation`` start so); the same name standing as a file here does not."""
    from types import SimpleNamespace

    from experiments.learning.resume import _reads_nothing_from_elsewhere

    def reads_nothing(value, given=None):
        return _reads_nothing_from_elsewhere(
            SimpleNamespace(init_from=value), SimpleNamespace(init_from=given), "init_from"
        )

    monkeypatch.chdir(tmp_path)
    assert reads_nothing(None) and reads_nothing("cluedo_ppo_4p.pt")
    assert reads_nothing(str(tmp_path / "mine.pt"), given=str(tmp_path / "mine.pt"))
    assert not reads_nothing(str(tmp_path / "mine.pt"))
    (tmp_path / "cluedo_ppo_4p.pt").write_bytes(b"")  # a file of that name here is read instead
    assert not reads_nothing("cluedo_ppo_4p.pt")
