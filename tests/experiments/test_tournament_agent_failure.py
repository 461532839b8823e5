"""An agent that fails in a tournament: one line naming it, its line-up, rotation and deal, then the command
that resumes the run; the games already played are kept."""

from __future__ import annotations

import pickle
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest

from agents.baselines.random_agent import RandomAgent
from cluedo_env import core
from experiments.common.chunks import AgentFailed, Chunk, Job, play_chunk
from experiments.common.games_file import read_games
from tests.conftest import ROOT

HERE = "tests.experiments.test_tournament_agent_failure"  # the agents below, by import path
BAD = 4  # the deal (and, with run seed 0, the deal seed) in which they fail


class RaiseOnDeal(RandomAgent):
    """Raises at its third decision in the game of deal seed ``BAD``."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        self.there = 0

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if (state.seed[games] == BAD).any():
            self.there += 1
            if self.there >= 3:
                raise RuntimeError("my agent broke")
        return super().act(state, games, mask)


class IllegalOnDeal(RandomAgent):
    """Plays an illegal action in the game of deal seed ``BAD``."""

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = super().act(state, games, mask)
        bad = state.seed[games] == BAD
        actions[bad] = np.argmin(mask[bad], axis=1)
        return actions


class RaiseInReset(RandomAgent):
    """Raises when a batch starts."""

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        raise RuntimeError("no solver installed")


class RaiseInClose(RandomAgent):
    """Raises when it is closed, the batch played."""

    def close(self) -> None:
        raise OSError("the connection was already closed")


@pytest.mark.parametrize(
    ("agent", "call"), [("RaiseInReset", "reset"), ("RaiseInClose", "close")]
)  # fmt: skip
def test_an_agent_that_fails_to_start_or_to_close_is_named_with_the_chunks_deals(agent, call):
    """An agent that raised in ``reset`` or ``close`` stopped the tournament with a bare traceback."""
    job = Job({"num_players": 3, "max_turns": 40}, {"mine": (f"{HERE}:{agent}", {}), "random": ("random", {})},
              0, "test")  # fmt: skip
    chunk = Chunk(("mine", "random", "random"), rotation=2, first_deal=3, deals=2)
    with pytest.raises(AgentFailed) as failed:
        play_chunk(job, chunk)
    assert failed.match(
        rf"^agent 'mine' \(seat 2\) failed in {call} in line-up mine\+random\+random, rotation 2, deals 3, 4 "
        r"\(seed 3, 4\): (RuntimeError: no solver installed|OSError: the connection was already closed)$"
    ), str(failed.value)


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        ("RaiseOnDeal", "RuntimeError: my agent broke"),
        ("IllegalOnDeal", r"IllegalAction: player IllegalOnDeal\(seed=\d+\) chose an illegal action in games \[1\] "
                          r"\(deal seeds \[4\]\): \[\d+\], which the mask there does not allow"),
    ],
)  # fmt: skip
def test_a_chunk_names_the_agent_that_failed_its_line_up_rotation_and_deal(agent, error):
    """The table's message said "in games [1]", the game's place in the batch, and an exception came
    without the agent or the game."""
    job = Job({"num_players": 3, "max_turns": 40}, {"mine": (f"{HERE}:{agent}", {}), "random": ("random", {})},
              0, "test")  # fmt: skip
    chunk = Chunk(("mine", "random", "random"), rotation=1, first_deal=3, deals=2)
    with pytest.raises(AgentFailed) as failed:
        play_chunk(job, chunk)
    message = str(failed.value)
    pattern = (
        r"^agent 'mine' \(seat 1\) failed in act in line-up mine\+random\+random, rotation 1, "
        rf"(deal 4 \(seed 4\)|deals 3, 4 \(seed 3, 4\)): {error}$"
    )
    assert failed.match(pattern), message
    assert str(pickle.loads(pickle.dumps(failed.value))) == message  # (it crosses the process pool)


def tournament(*overrides: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.tournament", *overrides],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize("agent", ["RaiseOnDeal", "IllegalOnDeal"])
def test_a_failing_agent_stops_the_tournament_in_one_line_with_the_command_that_resumes(tmp_path, agent):
    out = tmp_path / "run"
    done = tournament(
        f"lineup.agents=[{{name: '{HERE}:{agent}'}}, {{name: random}}]", "lineup.mode=one_vs_field",
        "lineup.field=[random]", "game.num_players=3", "game.max_turns=40", "games_per_lineup=18", "batch_size=2",
        "workers=1", "seed=0", "progress=false", "plots=false", f"output_dir={out}",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2, done.stderr
    assert re.match(
        rf"error: agent '{agent}' \(seat 0\) failed in act in line-up {agent}\+random\+random, rotation 0, "
        r"(deal 4 \(seed 4\)|deals 4, 5 \(seed 4, 5\)): \w+: ",
        lines[0],
    ), lines[0]
    # deals 0 to 3 (two blocks of 2) under the 3 rotations were played before the block of deal 4
    games = out / "games.jsonl"
    assert len(read_games(games)) == 12
    assert lines[1].startswith(f"12 games kept in {games}; to resume: python -m experiments.tournament ")
    assert lines[1].endswith(f" output_dir={out}")


def test_the_command_that_resumes_names_the_users_config_folder(tmp_path):
    """A line-up of the user's (``--config-dir``): the printed command left the folder out, so it could not
    find the line-up it was to resume."""
    configs = tmp_path / "configs"
    (configs / "lineup").mkdir(parents=True)
    (configs / "lineup" / "mine.yaml").write_text(
        f"agents:\n  - name: '{HERE}:RaiseOnDeal'\n  - name: random\nmode: one_vs_field\nfield: [random]\n"
    )
    out = tmp_path / "run"
    done = tournament(
        "--config-dir", str(configs), "lineup=mine", "trust_files=true", "game.num_players=3",
        "game.max_turns=40", "games_per_lineup=18", "batch_size=2", "workers=1", "progress=false",
        "plots=false", f"output_dir={out}",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-3000:]
    command = shlex.split(done.stderr.strip().splitlines()[-1].partition("to resume: ")[2])
    assert command[:5] == ["python", "-m", "experiments.tournament", "--config-dir", str(configs)]
    assert "lineup=mine" in command and command[-1] == f"output_dir={out}"
