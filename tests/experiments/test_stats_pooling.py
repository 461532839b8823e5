"""``cluedo-stats`` pooling runs: a game two runs both played counts once, whatever their config hashes."""

from __future__ import annotations

import json
import re

import pytest
from test_tournament import SMALL, settings

from cluedo_env import __version__
from experiments.common import stats
from experiments.common.code_revision import code_name
from experiments.common.tournament_run import run_tournament

# notepad against two random players (the default field is the first agent, random), 2 deals x 3 rotations.
VS_FIELD = (*SMALL, "lineup.mode=one_vs_field", "batch_size=2")


def pooled_games(tmp_path, *runs: str, mixed: bool = False) -> int:
    out = tmp_path / "pooled"
    stats.main(
        [*(str(tmp_path / run) for run in runs), "--output", str(out), "--no-plots"] + ["--mixed"] * mixed
    )
    return json.loads((out / "stats.json").read_text())["games"]


def test_runs_whose_hashes_differ_but_not_their_games_count_each_game_once(tmp_path):
    """``lineup.field=[random]`` and the default field (random) play the same games under other config
    hashes: pooled, the 6 games were counted as 12, every interval too narrow."""
    run_tournament(settings(*VS_FIELD, "lineup.field=[random]", "workers=0"), tmp_path / "given")
    run_tournament(settings(*VS_FIELD, "lineup.field=[]", "workers=0"), tmp_path / "default")
    hashes = {
        json.loads((tmp_path / run / "run.json").read_text())["config_hash"] for run in ("given", "default")
    }
    assert len(hashes) == 2
    with pytest.warns(
        RuntimeWarning, match=r"6 duplicate game record\(s\) dropped: .*6 of them played by both"
    ):
        assert pooled_games(tmp_path, "given", "default") == 6


def test_one_game_with_two_results_in_two_runs_is_refused_naming_the_runs_and_the_game(tmp_path, capsys):
    """The same seed with another batch_size plays the same deals with other draws of the agents: its games
    were pooled beside the first run's as others (the deals counted twice)."""
    run_tournament(settings(*VS_FIELD, "workers=0"), tmp_path / "two")
    run_tournament(settings(*VS_FIELD, "batch_size=1", "workers=0"), tmp_path / "one")
    with pytest.raises(SystemExit) as stopped:
        pooled_games(tmp_path, "two", "one")
    said = capsys.readouterr().err
    assert stopped.value.code == 2
    assert re.search(
        r"two different results for one game \(line-up notepad\+random\+random, deal (\d), seed \1, ", said
    )
    assert f"in {tmp_path / 'two'} and {tmp_path / 'one'}: " in said and "pool runs of other seeds" in said
    assert not (tmp_path / "pooled").exists()


def test_a_pilot_pooled_with_a_larger_run_and_runs_of_other_agents_under_one_label(tmp_path):
    run_tournament(settings(*VS_FIELD, "workers=0"), tmp_path / "pilot")
    run_tournament(settings(*VS_FIELD, "games_per_lineup=12", "workers=0"), tmp_path / "larger")
    with pytest.warns(RuntimeWarning, match=r"6 duplicate game record\(s\) dropped: each game counts once$"):
        assert pooled_games(tmp_path, "pilot", "larger") == 12
    # Another agent under the label random: other games, pooled with --mixed, each counted.
    never = "lineup.agents=[{name: random, options: {accuse: never}}, {name: notepad}]"
    run_tournament(settings(*VS_FIELD, never, "workers=0"), tmp_path / "never")
    assert pooled_games(tmp_path, "pilot", "never", mixed=True) == 12


def test_a_run_without_a_readable_config_is_said_to_be_told_apart_by_its_hash_only(tmp_path):
    """With one run's config.yaml gone its games fall back to the config hash: the 6 games the runs share
    counted as 12, and nothing said so."""
    run_tournament(settings(*VS_FIELD, "lineup.field=[random]", "workers=0"), tmp_path / "given")
    run_tournament(settings(*VS_FIELD, "lineup.field=[]", "workers=0"), tmp_path / "default")
    (tmp_path / "default" / "config.yaml").write_text("lineup: [unclosed\n")
    with pytest.warns(
        RuntimeWarning, match=r"default/config\.yaml is missing or does not say .* counts twice"
    ):
        assert pooled_games(tmp_path, "given", "default") == 12


OLD = "25af10099c0c56b5dc17af51565318e9c9c087f6"


def test_a_pooled_report_names_each_runs_code_and_notes_where_it_differs(tmp_path, capsys):
    """A pooled report's meta was only the runs' folders: nothing said which code played them, nor that
    another revision (or unknown code) played one of them, as a run's report and compare say."""
    for seed in (0, 1):
        run_tournament(settings(*VS_FIELD, f"seed={seed}", "workers=0"), tmp_path / f"seed{seed}")
    first, second = str(tmp_path / "seed0"), str(tmp_path / "seed1")
    session = json.loads((tmp_path / "seed0" / "run.json").read_text())["sessions"][0]
    here = {"revision": session["git"]["revision"], "dirty": session["git"]["dirty"], "version": __version__}
    assert pooled_games(tmp_path, "seed0", "seed1") == 12
    meta = json.loads((tmp_path / "pooled" / "stats.json").read_text())["meta"]
    assert meta["run_revisions"] == {first: [here | {"games": 6}], second: [here | {"games": 6}]}
    assert "code_note" not in meta and "note:" not in capsys.readouterr().out
    report = (tmp_path / "pooled" / "report.md").read_text()
    assert f"Pooled games of: `{first}` ({code_name(here, quote='`')}), `{second}` (" in report

    run_json = tmp_path / "seed1" / "run.json"
    info = json.loads(run_json.read_text())
    info["sessions"][0]["git"] = {"revision": OLD, "dirty": False}
    run_json.write_text(json.dumps(info))
    pooled_games(tmp_path, "seed0", "seed1")
    note = (
        f"other code played the runs: {first} by {code_name(here)}; {second} by revision {OLD}. A game's "
        "result can depend on the code, and this report counts every run's games together"
    )
    assert f"\nnote: {note}\n" in capsys.readouterr().out
    assert json.loads((tmp_path / "pooled" / "stats.json").read_text())["meta"]["code_note"] == note
    assert f"**Note:** {note}." in (tmp_path / "pooled" / "report.md").read_text()

    run_json.unlink()  # games of unknown code
    pooled_games(tmp_path, "seed0", "seed1")
    unknown = f"{first} by {code_name(here)}; {second} by unknown code (no run.json of its games). A game's"
    assert f"note: the code of the runs may differ: {unknown}" in capsys.readouterr().out
    meta = json.loads((tmp_path / "pooled" / "stats.json").read_text())["meta"]
    assert meta["run_revisions"][second] is None

    # Pooled into one run's folder, then that run's report written again: the pool's code is not the run's.
    stats.main([first, second, "--output", first, "--no-plots"])
    assert "note: the code of the runs may differ" in capsys.readouterr().out
    stats.main([first, "--no-plots"])
    assert "note:" not in capsys.readouterr().out
    meta = json.loads((tmp_path / "seed0" / "stats.json").read_text())["meta"]
    assert "code_note" not in meta and "run_revisions" not in meta


def test_a_runs_report_written_again_after_a_pooled_one_in_its_folder_is_the_runs_own(tmp_path, capsys):
    """A pooled report written into one run's folder (``--output`` that run) replaced the run's
    stats.json, and the run's report written again from it said "Pooled games of" both runs over the
    run's games alone, without the run's config, agents or code. It is rebuilt from the run's own files."""
    for seed in (0, 1):
        run_tournament(settings(*VS_FIELD, f"seed={seed}", "workers=0"), tmp_path / f"seed{seed}")
    first, second = tmp_path / "seed0", tmp_path / "seed1"
    own_report, own_stats = (first / "report.md").read_text(), json.loads((first / "stats.json").read_text())
    stats.main([str(first), str(second), "--output", str(first), "--no-plots"])
    assert (first / "report.md").read_text().count("Pooled games of: ") == 1
    stats.main([str(first), "--no-plots"])
    assert (first / "report.md").read_text() == own_report
    again, own_meta = json.loads((first / "stats.json").read_text()), own_stats.pop("meta")
    rounded = {"elapsed_s": round(own_meta["elapsed_s"], 3)}  # as run.json has it
    assert again.pop("meta") == own_meta | rounded
    assert again == own_stats and "Pooled" not in capsys.readouterr().out

    # A folder of games no run.json describes: its report names the folder, and pools nothing.
    (first / "run.json").unlink()
    (first / "stats.json").unlink()
    stats.main([str(first), "--no-plots"])
    assert f"\nGames of: `{first}`\n" in (first / "report.md").read_text()


def test_a_runs_report_of_a_subset_written_again_lists_the_code_of_every_game_it_counts(tmp_path):
    """A run's report of a subset of its file (games_per_lineup below what it holds), written again over all
    the file's games, kept the subset's code list: revision OLD over 24 games, where OLD played 12 of them."""
    run = tmp_path / "run"
    run_tournament(settings(*SMALL, "workers=0"), run)  # 12 games, 6 per line-up
    run_json = run / "run.json"
    info = json.loads(run_json.read_text())
    info["sessions"][0]["git"] = {"revision": OLD, "dirty": False}
    run_json.write_text(json.dumps(info))
    run_tournament(settings(*SMALL, "games_per_lineup=12", "workers=0"), run)  # 12 more, by this code
    run_tournament(settings(*SMALL, "workers=0"), run)  # a report of the first 12 games: OLD's
    assert [v["games"] for v in json.loads((run / "stats.json").read_text())["meta"]["revisions"]] == [12]
    stats.main([str(run), "--no-plots"])
    saved, here = (
        json.loads((run / "stats.json").read_text()),
        json.loads(run_json.read_text())["sessions"][1],
    )
    assert saved["games"] == 24 and "note" not in saved["meta"]
    revisions = [(v["revision"], v["games"]) for v in saved["meta"]["revisions"]]
    assert revisions == [(OLD, 12), (here["git"]["revision"], 12)]
    assert f"played by revision `{OLD}` (12 games); " in (run / "report.md").read_text()


def test_a_rebuilt_report_lists_the_planned_line_ups_in_the_plans_order(tmp_path):
    """A run's report rebuilt from its own files listed the line-ups in the order of games.jsonl (parallel
    workers finish out of order) and left out planned line-ups without games: not the run's report.md."""
    run = tmp_path / "run"
    run_tournament(settings(*SMALL, "workers=0"), run)
    games = (run / "games.jsonl").read_text().splitlines(keepends=True)
    (run / "games.jsonl").write_text("".join(reversed(games)))  # as workers finishing out of order write it
    run_tournament(settings(*SMALL, "workers=0"), run)  # nothing to play: its report of this file
    own_report = (run / "report.md").read_text()
    assert "- line-ups (round_robin): random+random+notepad, random+notepad+notepad\n" in own_report
    (run / "stats.json").unlink()
    stats.main([str(run), "--no-plots"])
    assert (run / "report.md").read_text() == own_report

    (run / "games.jsonl").write_text("".join(g for g in games if '"random+notepad+notepad"' in g))
    (run / "stats.json").unlink()
    stats.main([str(run), "--no-plots"])
    assert (
        "- line-ups (round_robin): random+random+notepad, random+notepad+notepad\n"
        in (run / "report.md").read_text()
    )
