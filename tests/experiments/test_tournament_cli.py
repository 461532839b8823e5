"""The tournament as a user meets it: agent checks before any game, Ctrl-C, resume and subset messages."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import warnings

import pytest
from hydra import compose, initialize_config_dir

from agents.ppo.agent import PPOAgent
from cluedo_env import core
from experiments.common.games_file import read_games
from experiments.common.settings import load_config
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT, sigint_as_from_a_shell

SMALL = [
    "lineup.agents=[{name: random}, {name: notepad}]",
    "game.num_players=3",
    "game.max_turns=40",
    "batch_size=1",
    "plots=false",
]


def tournament(*overrides: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.tournament", *overrides],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def compose_tournament(*overrides: str):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        return compose("tournament", overrides=list(overrides))


def test_a_model_for_other_sizes_is_refused_before_any_game():
    with pytest.raises(
        ConfigError, match=r"lineup.agents\[4\] \(learned\) cannot play these rules.*827.*698"
    ):
        load_config(compose_tournament("lineup=all", "game.num_players=3"))


def test_a_model_for_other_rules_of_the_same_sizes_warns():
    with pytest.warns(UserWarning, match=r"untested: edition='classic_fr' \(trained: 'classic'\)"):
        load_config(compose_tournament("lineup=all", "game.edition=classic_fr"))
    agent = PPOAgent()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.check_config(core.GameConfig(num_players=4))  # its own rules: silent
    with pytest.raises(ValueError, match="reads observations of 575"):
        agent.check_config(core.GameConfig(num_players=4, movement="squares"))


def test_a_failed_check_leaves_no_folder_and_no_log(tmp_path):
    out = tmp_path / "run"
    done = tournament("lineup=all", "game.num_players=3", f"output_dir={out}")
    assert done.returncode == 2
    assert "config error: lineup.agents[4] (learned) cannot play these rules" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
    ok = tournament(*SMALL, "games_per_lineup=3", "workers=0", f"output_dir={out}")
    assert ok.returncode == 0, ok.stderr
    assert not (out / "tournament.log").exists() and not (out / ".hydra").exists()


def test_ctrl_c_prints_one_line_with_the_command_that_resumes(tmp_path):
    out = tmp_path / "run"
    overrides = [*SMALL, "game.max_turns=200", "games_per_lineup=3000", "workers=2", "progress=false"]
    # A small run of the same line-up first: on a cold numba cache (a fresh checkout) its workers compile,
    # so that the Ctrl-C below reaches workers that play, not ones still compiling for a minute.
    tournament(*[o for o in overrides if not o.startswith("games_per_lineup")], "games_per_lineup=6",
               f"output_dir={tmp_path / 'warm'}")  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "experiments.tournament", *overrides, f"output_dir={out}"],
        cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # a hang is shown: SIGABRT prints every thread's stack
        preexec_fn=sigint_as_from_a_shell,
    )  # fmt: skip
    games = out / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (games.exists() and games.stat().st_size):
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before Ctrl-C"
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the run and its workers
    try:
        stdout, stderr = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        stdout, stderr = process.communicate(timeout=60)
        pytest.fail(f"the run had not stopped 120 s after Ctrl-C; its threads then:\n{stderr[-6000:]}")
    assert process.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr + stdout, stderr
    interrupted = [line for line in (stdout + stderr).splitlines() if line.startswith("interrupted:")]
    assert len(interrupted) == 1
    found = len(read_games(games))
    assert f"interrupted: {found} games kept in {games}; to resume: " in interrupted[0]
    command = shlex.split(interrupted[0].partition("to resume: ")[2])
    assert command[:3] == ["python", "-m", "experiments.tournament"]
    assert f"output_dir={out}" in command

    # The resume command as printed (smaller, so that the test is quick) says what it found.
    resumed = tournament(
        *[c for c in command[3:] if not c.startswith("games_per_lineup")], "games_per_lineup=60"
    )
    assert resumed.returncode == 0, resumed.stderr
    planned = 2 * 20 * 3  # line-ups x deals x rotations
    kept = min(found, planned)
    assert (
        f"resuming: {kept} of the {planned} games found in {games}; {planned - kept} to play"
        in resumed.stdout
    )


def test_a_smaller_games_per_lineup_says_it_reports_a_subset(tmp_path):
    out = tmp_path / "run"
    assert tournament(*SMALL, "games_per_lineup=12", "workers=0", f"output_dir={out}").returncode == 0
    again = tournament(*SMALL, "games_per_lineup=6", "workers=0", f"output_dir={out}")
    assert again.returncode == 0, again.stderr
    note = "12 of the 24 games in games.jsonl are beyond games_per_lineup=6 and left out of this report"
    assert note in again.stdout
    assert note in (out / "report.md").read_text()
