"""Output paths checked before any work: a command does not write over another command's files, nor
into the current folder by an empty path, nor die at its first save after the work.

The tournament wrote into any folder: ``output_dir=`` (empty) put its report over a ``report.md`` of the
current folder, and a training run's folder lost its ``config.yaml``. ``cluedo-stats --output`` did the
same with an empty path, and died with a traceback on a file. The benchmark measured its first section
before finding that ``output`` was a folder; a plot named ``curve`` wrote ``curve.png`` and said
``curve``; ``play --games 99999999999999999999`` ran out of memory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from test_tournament import SMALL, settings

from experiments import play
from experiments.common import stats
from experiments.common.folder_lock import FolderRefused
from experiments.common.output_folders import refuse_unwritable
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT

pytest.importorskip("matplotlib")

TRAINING_RUN = {
    "config.yaml": "exp_name: mine\nlearning_rate: 0.001\n",
    "model.pt": "weights",
    "events.out": "",
}
REASONING_RUN = {"report.md": "# my reasoning report\n", "report.json": "{}\n", "scores-ab12.jsonl": "{}\n"}


def tournament_run(*args, **kwargs):
    from experiments.common.tournament_run import run_tournament

    return run_tournament(*args, **kwargs)


def folder_of(path, files: dict[str, str]):
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def held(path) -> dict[str, str]:
    return {p.name: p.read_text() for p in path.iterdir()}


# -- the tournament's output_dir ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "files, named",
    [(TRAINING_RUN, "events.out, model.pt"), (REASONING_RUN, "report.json, scores-ab12.jsonl")],
)
def test_a_tournament_refuses_another_commands_folder_and_writes_nothing_there(tmp_path, files, named):
    folder = folder_of(tmp_path / "other", files)
    with pytest.raises(FolderRefused, match=rf"{re.escape(str(folder))} is not empty and not a tournament's "
                       rf"folder \(no games.jsonl, no run.json of one\): it holds {named}.*new or empty output_dir"):  # fmt: skip
        tournament_run(settings(*SMALL, "workers=0"), folder)
    assert held(folder) == files


def test_a_tournament_resumes_its_own_folder_and_takes_one_of_only_its_files(tmp_path):
    s = settings(*SMALL, "workers=0")
    own = tmp_path / "run"
    tournament_run(s, own)
    (own / "notes.txt").write_text("mine\n")  # a file of the user's beside the games: still the run's folder
    assert tournament_run(s, own)["games"] == 12
    stopped = folder_of(tmp_path / "stopped", {"config.yaml": "games_per_lineup: 6\n", "tournament.lock": ""})
    assert tournament_run(s, stopped)["games"] == 12  # a run stopped before its run.json
    from experiments.common.output_paths import others_in
    from experiments.common.tournament_run import TOURNAMENT_FILES

    plotted = tmp_path / "plotted"
    tournament_run(settings(*SMALL, "workers=0", "plots=true"), plotted)
    assert others_in(plotted, TOURNAMENT_FILES) == []  # every file it writes is one it takes a folder of


def test_a_games_file_that_is_a_folder_is_refused_in_one_line(tmp_path):
    (tmp_path / "run" / "games.jsonl").mkdir(parents=True)
    with pytest.raises(FolderRefused, match=r"run/games.jsonl is not a file: a tournament appends its games"):
        tournament_run(settings(*SMALL, "workers=0"), tmp_path / "run")


def test_an_empty_output_dir_is_refused_and_the_current_folder_left_alone(tmp_path):
    (tmp_path / "report.md").write_text("my notes\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "experiments.tournament", *SMALL, "workers=0", "output_dir="],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert done.stderr == (
        "error: output_dir= is empty: give output_dir= the folder to write into, not the current one "
        "(e.g. output_dir=results/run1)\n"
    )
    assert held(tmp_path) == {"report.md": "my notes\n"}


def test_an_empty_runs_dir_is_refused_in_one_line(capsys):
    """train_ppo's and imitate's ``runs_dir``, reasoning_bench's ``output_dir`` (its Hydra callback)."""
    with pytest.raises(SystemExit) as stopped:
        refuse_unwritable({"runs_dir": " "})
    assert stopped.value.code == 1
    assert capsys.readouterr().err.startswith("error: runs_dir= is empty: give runs_dir= the folder")


# -- cluedo-stats --output ---------------------------------------------------------------------------


def test_cluedo_stats_refuses_an_output_it_cannot_take_before_reading_a_game(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    tournament_run(settings(*SMALL, "workers=0"), run)
    monkeypatch.chdir(folder_of(tmp_path / "here", {"report.md": "my notes\n"}))
    monkeypatch.setattr(stats, "load_games", lambda *a: pytest.fail("a game was read"))
    a_file = tmp_path / "a.txt"
    a_file.write_text("mine\n")
    training = folder_of(tmp_path / "ppo", TRAINING_RUN)
    for output, said in [
        ("", "argument --output: an empty path; give a folder for the report"),
        (a_file, f"error: --output {a_file} is a file: give a folder for the report (made if missing)"),
        (training, f"error: --output {training} is not empty and not a folder of the runs or of an earlier "
                   "report: it holds config.yaml, events.out, model.pt."),
    ]:  # fmt: skip
        with pytest.raises(SystemExit) as stopped:
            stats.main([str(run), "--output", str(output), "--no-plots"])
        assert stopped.value.code == 2 and said in capsys.readouterr().err
    assert held(tmp_path / "here") == {"report.md": "my notes\n"}
    assert a_file.read_text() == "mine\n" and held(training) == TRAINING_RUN


def test_cluedo_stats_writes_into_a_new_folder_an_earlier_reports_and_a_runs(tmp_path, capsys):
    run = tmp_path / "run"
    tournament_run(settings(*SMALL, "workers=0"), run)
    for output in (tmp_path / "pooled", tmp_path / "pooled", run):  # the second time: its earlier report
        stats.main([str(run), "--output", str(output), "--no-plots"])
        assert f"report: {output / 'report.md'}" in capsys.readouterr().out


# -- the benchmark's output= -------------------------------------------------------------------------


@pytest.mark.parametrize("folder", [False, True])
def test_the_benchmark_refuses_an_output_that_is_no_file_before_measuring(tmp_path, monkeypatch, folder):
    import experiments.benchmark as benchmark

    monkeypatch.setitem(benchmark.SECTION_STEPS, "core", (lambda cfg: pytest.fail("measured"), None))
    monkeypatch.chdir(tmp_path)
    output = str(tmp_path) if folder else ""
    said = f"output={output} is a folder" if folder else "output= is empty"
    with pytest.raises(ConfigError, match=rf"^{re.escape(said)}: give the JSON file for the report"):
        benchmark.main_with(benchmark.BenchmarkConfig(sections=["core"], output=output))


# -- the plots' --png and --json ---------------------------------------------------------------------

SHIPPED = ROOT / "agents/ppo/shipped"


def test_a_figure_named_without_an_extension_is_told_by_the_name_written(tmp_path, capsys):
    pytest.importorskip("yaml")
    from experiments.plot_training import main

    main([str(SHIPPED), "--png", str(tmp_path / "curve")])
    assert [p.name for p in tmp_path.iterdir()] == ["curve.png"]
    assert capsys.readouterr().out == f"figure: {tmp_path / 'curve.png'}\n"


def test_an_empty_png_and_a_json_folder_are_refused_before_any_figure(tmp_path, capsys, monkeypatch):
    pytest.importorskip("yaml")
    from experiments.plot_imitation import main as plot_imitation
    from experiments.plot_training import main as plot_training

    monkeypatch.chdir(folder_of(tmp_path / "here", {}))
    for main, argv in ((plot_training, [str(SHIPPED)]), (plot_imitation, [str(SHIPPED)])):
        with pytest.raises(SystemExit) as stopped:
            main([*argv, "--png", ""])
        assert stopped.value.code == 2
        assert "argument --png: an empty path; give the figure's file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        plot_training([str(SHIPPED), "--png", str(tmp_path / "c.png"), "--json", str(tmp_path)])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        f"error: --json {tmp_path} is a folder: give a JSON file for the curves (e.g. curves.json)\n"
    )
    assert not (tmp_path / "c.png").exists() and held(tmp_path / "here") == {}


# -- play --games --------------------------------------------------------------------------------------


def test_play_refuses_more_games_than_it_holds_at_once_before_any_game(monkeypatch, capsys):
    monkeypatch.setattr(play, "EventLog", lambda games: pytest.fail(f"{games} games begun"))
    with pytest.raises(SystemExit) as stopped:
        play.main(["--quiet", "--games", "99999999999999999999"])
    assert stopped.value.code == 2
    assert "error: --games must be at most 10000 (the games are played at once" in capsys.readouterr().err


@pytest.mark.parametrize(("leaderboard", "said"), [("", "leaderboard= is empty"), ("{tmp}", "is a folder")])
def test_reasoning_bench_refuses_a_leaderboard_it_cannot_append_to_before_scoring(
    tmp_path, leaderboard, said
):
    # it scored every task (hours of a model's calls), then failed appending the leaderboard's line
    from experiments.reasoning_bench import ReasoningBenchConfig

    config = ReasoningBenchConfig(solver="uniform", leaderboard=leaderboard.format(tmp=tmp_path))
    with pytest.raises(ConfigError, match=f"{said}: give a JSON Lines file"):
        config.validate()


def test_expert_dataset_refuses_an_empty_out_folder_in_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "experiments.expert_dataset", "--out", ""],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "argument --out: an empty path" in done.stderr
    assert "Traceback" not in done.stderr
