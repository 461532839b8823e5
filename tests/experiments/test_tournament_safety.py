"""Tournament runs that go wrong: a seed out of range, two runs in one folder, a worker that dies, bad lines."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from test_tournament import SMALL

from agents.baselines.random_agent import RandomAgent
from experiments.common.chunks import Job, deal_seed, plan_chunks, play_chunk
from experiments.common.folder_lock import FolderInUse, FolderWithLinks, lock_folder
from experiments.common.games_file import DEAL_SEED_STRIDE, REJECTED_SUFFIX, read_games, record_key
from experiments.common.settings import MAX_SEED, load_config
from experiments.common.summary import summarise
from experiments.common.tournament_run import run_tournament
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT


def settings(*overrides: str):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        return load_config(compose("tournament", overrides=list(overrides)))


def sorted_games(path: Path) -> list[dict]:
    return sorted(read_games(path), key=record_key)


class DyingAgent(RandomAgent):
    """A random player whose process dies (SIGKILL) on its first move in deal ``die_at_deal``.

    It dies once: it leaves ``marker`` behind, and with the marker in place it plays like ``RandomAgent``.
    """

    def __init__(self, seed: int = 0, marker: str = "", die_at_deal: int = 0) -> None:
        super().__init__(seed, accuse="never")
        self.marker, self.die_at_deal = Path(marker), die_at_deal

    def act(self, state, games, mask):
        if not self.marker.exists() and (state.seed[games] % DEAL_SEED_STRIDE == self.die_at_deal).any():
            self.marker.write_text("died once")
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(state, games, mask)


# -- 13: the seed range ---------------------------------------------------------------------------


def test_a_seed_whose_deal_seeds_overflow_is_refused_naming_the_range():
    with pytest.raises(ConfigError, match=rf"seed must be an integer in \[0, {MAX_SEED}\], got 9300000000"):
        settings(*SMALL, "seed=9300000000")
    with pytest.raises(ConfigError, match=r"seed must be an integer in \[0, "):
        settings(*SMALL, "seed=-1")
    top = settings(*SMALL, f"seed={MAX_SEED}", "workers=0")
    assert deal_seed(MAX_SEED, DEAL_SEED_STRIDE - 1) <= np.iinfo(np.int64).max  # every deal fits
    chunk = plan_chunks(top)[-1]
    job = Job({"num_players": 3, "max_turns": 40}, {"random": ("random", {}), "notepad": ("notepad", {})},
              MAX_SEED, "test")  # fmt: skip
    records = play_chunk(job, chunk)
    assert [r["seed"] for r in records] == [deal_seed(MAX_SEED, chunk.first_deal)]


# -- 2: one run per folder; duplicate records count once -------------------------------------------

HOLD_LOCK = "import sys, time; from pathlib import Path; from experiments.common.folder_lock import lock_folder\n" \
            "with lock_folder(Path(sys.argv[1])):\n    print('locked', flush=True); time.sleep(600)"  # fmt: skip


def test_a_second_run_into_a_folder_in_use_refuses_and_a_killed_holder_leaves_no_lock(tmp_path):
    s = settings(*SMALL, "workers=0")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(FolderInUse, match=rf"{re.escape(str(tmp_path))} is in use .*pid {holder.pid}"):
            run_tournament(s, tmp_path)
        assert not (tmp_path / "games.jsonl").exists()  # refused before touching the results
    finally:
        holder.kill()  # as a crash would: no clean-up runs
        holder.wait()
    run_tournament(s, tmp_path)  # the lock died with its process
    games = read_games(tmp_path / "games.jsonl")
    assert len(games) == len({record_key(g) for g in games}) == 2 * 2 * 3


def test_the_lock_is_held_for_the_run_and_released_after(tmp_path):
    with lock_folder(tmp_path), pytest.raises(FolderInUse, match="another output_dir"):
        run_tournament(settings(*SMALL, "workers=0"), tmp_path)
    run_tournament(settings(*SMALL, "workers=0"), tmp_path)
    with lock_folder(tmp_path):  # free again after a run
        pass


def test_a_folder_whose_links_point_elsewhere_is_refused_and_nothing_is_written_through_them(tmp_path):
    """A downloaded folder's ``tournament.lock`` or ``games.jsonl.rejected`` could be a link to any file of
    the user's: the run (and ``cluedo-stats``'s report into it) would truncate or append to that file."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    folder = tmp_path / "downloaded"
    folder.mkdir()
    (folder / "games.jsonl").write_text("echo not a game record\n")
    (folder / "tournament.lock").symlink_to(victim)
    (folder / ("games.jsonl" + REJECTED_SUFFIX)).symlink_to(victim)
    with pytest.raises(
        FolderWithLinks, match=r"downloaded is or holds symbolic links \(games.jsonl.rejected, tournament"
    ):
        run_tournament(settings(*SMALL, "workers=0"), folder)
    done = subprocess.run([sys.executable, "-m", "experiments.common.stats", str(folder), "--no-plots"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2 and "holds symbolic links" in done.stderr and "Traceback" not in done.stderr
    assert victim.read_text() == "the user's own file\n"
    assert (folder / "games.jsonl").read_text() == "echo not a game record\n"
    assert not (folder / "stats.json").exists()
    # Hydra's own file of a sweep is written before the run's lock: the command checks the folder first.
    (folder / "multirun.yaml").symlink_to(victim)
    sweep = subprocess.run([sys.executable, "-m", "experiments.tournament", "--multirun", f"output_dir={folder}",
                            "game.num_players=3", "games_per_lineup=3", "workers=0", "progress=false"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (
        sweep.returncode == 1 and "holds symbolic links" in sweep.stderr and "Traceback" not in sweep.stderr
    )
    assert victim.read_text() == "the user's own file\n" and not (folder / "0").exists()


@pytest.mark.parametrize(
    "damage", ['{"config_hash": "ab', "[]", '{"config_hash": "x", "sessions": [{"deals_per_lineup": "2"}]}']
)
def test_a_damaged_run_json_is_set_aside_and_the_run_resumes(tmp_path, damage):
    """It stopped every resume with a traceback (a JSON error, or an AttributeError)."""
    s = settings(*SMALL, "workers=0")
    run_tournament(s, tmp_path)
    played = sorted_games(tmp_path / "games.jsonl")
    (tmp_path / "run.json").write_text(damage)
    with pytest.warns(RuntimeWarning, match=r"run.json: .*moved to run.json.unreadable"):
        run_tournament(s, tmp_path)
    assert sorted_games(tmp_path / "games.jsonl") == played  # nothing lost, nothing played twice
    assert (tmp_path / "run.json.unreadable").read_text() == damage
    assert len(json.loads((tmp_path / "run.json").read_text())["sessions"]) == 1


def test_statistics_count_a_duplicated_game_once_and_refuse_two_results_for_one_game(tmp_path):
    run_tournament(settings(*SMALL, "workers=0"), tmp_path)
    games = read_games(tmp_path / "games.jsonl")
    with pytest.warns(RuntimeWarning, match=f"{len(games)} duplicate game record"):
        doubled = summarise(games + games)
    assert doubled == summarise(games)
    assert doubled["games"] == len(games)
    changed = {**games[0], "turns": games[0]["turns"] + 1}
    with pytest.raises(ValueError, match=rf"two different results for one game .*deal {games[0]['deal']}"):
        summarise([*games, changed])


# -- 3: a worker that dies -------------------------------------------------------------------------


def test_a_dead_worker_stops_the_run_with_the_resume_command_and_loses_nothing(tmp_path):
    marker, out = tmp_path / "died", tmp_path / "run"
    agents = f"lineup.agents=[{{name: 'test_tournament_safety:DyingAgent', label: dying, options: {{marker: '{marker}', die_at_deal: 2}}}}, {{name: notepad}}]"
    overrides = [*SMALL, agents, "games_per_lineup=12", "workers=1"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "experiments"), str(ROOT)])}
    command = [sys.executable, "-m", "experiments.tournament", *overrides, f"output_dir={out}"]
    start = time.monotonic()
    died = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert marker.exists() and died.returncode == 1, died.stderr
    assert time.monotonic() - start < 300  # it stopped instead of waiting for the lost chunk
    message = died.stderr
    assert "a worker process of the pool died" in message
    saved = read_games(out / "games.jsonl")
    # One worker plays the chunks in order, deal blocks outermost: every game of deals 0 and 1 is kept.
    assert sorted({g["deal"] for g in saved}) == [0, 1] and len(saved) == 2 * 2 * 3
    assert f"The {len(saved)} of {2 * 4 * 3} games finished are saved" in message
    resume = message.rpartition("resuming: ")[2].strip()
    assert resume.startswith("python -m experiments.tournament") and f"output_dir={out}" in resume

    resumed = subprocess.run([sys.executable, *shlex.split(resume)[1:]], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    after = sorted_games(out / "games.jsonl")
    here = str(ROOT / "tests" / "experiments")
    sys.path.insert(0, here)  # the dying agent's module, for the in-process run
    try:
        run_tournament(settings(*overrides, "workers=0"), tmp_path / "whole")  # the marker is there: no death
    finally:
        sys.path.remove(here)
    assert after == sorted_games(tmp_path / "whole/games.jsonl")


# -- 4: bad lines anywhere in games.jsonl ----------------------------------------------------------


def test_torn_and_garbage_lines_are_set_aside_and_their_games_played_again(tmp_path):
    s = settings(*SMALL, "workers=0")
    run_tournament(s, tmp_path / "whole")
    whole = (tmp_path / "whole/games.jsonl").read_text().splitlines(keepends=True)
    bad = [whole[2][:25] + "\n", "\x00\x00garbage\n", '{"lineup": "no deal"}\n']
    damaged = [whole[0], whole[1], bad[0], whole[3], bad[1], whole[4], bad[2], *whole[5:8]]
    out = tmp_path / "damaged"
    out.mkdir()
    (out / "games.jsonl").write_text("".join(damaged))
    with pytest.warns(RuntimeWarning, match=r"3 line\(s\) are not game records \(line 3, 5, 7\)"):
        run_tournament(s, out)
    assert sorted_games(out / "games.jsonl") == sorted_games(tmp_path / "whole/games.jsonl")
    assert (out / f"games.jsonl{REJECTED_SUFFIX}").read_text() == "".join(bad)
    kept = [whole[0], whole[1], whole[3], whole[4], *whole[5:8]]
    assert (out / "games.jsonl").read_text().startswith("".join(kept))  # finished games kept as written
    assert (out / "games.jsonl").read_text().count("\n") == len(whole)


def test_reading_for_statistics_skips_bad_lines_and_leaves_the_file_alone(tmp_path):
    run_tournament(settings(*SMALL, "workers=0"), tmp_path)
    path = tmp_path / "games.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "not json\n" + "".join(lines[1:]))
    before = path.read_bytes()
    with pytest.warns(RuntimeWarning, match=r"line 2\b.*left in place"):
        games = read_games(path)
    assert len(games) == len(lines) and path.read_bytes() == before
