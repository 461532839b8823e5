"""A tampered ``games.jsonl`` is never counted: each bad record is rejected, named by line and field, and told.

The real results of a small tournament are the baseline: they validate, and their report read again
is byte for byte the run's own. Each tampering below changes one record of them; the control shows
that the same record, were it counted, would move the leaderboard.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from test_tournament import settings

from agents.llm.llm_agent import COUNTS
from cluedo_env import core
from experiments.common import games_file
from experiments.common.chunks import deal_seed
from experiments.common.games_file import (
    REJECTED_SUFFIX,
    check_game_record,
    load_games,
    read_games,
    record_key,
)
from experiments.common.report import json_ready
from experiments.common.stats import main as stats_main
from experiments.common.summary import summarise
from experiments.common.tournament_run import run_tournament

# random, notepad and sat at one table: sat wins most games, random hardly any.
RUN = (
    "lineup.agents=[{name: random}, {name: notepad}, {name: sat}]",
    "game.num_players=3",
    "game.max_turns=60",
    "games_per_lineup=12",
    "batch_size=4",
    "workers=0",
    "progress=false",
    "plots=false",
)
REPORT_FILES = (
    "report.md",
    "leaderboard.csv",
    "seats.csv",
    "seat_advantage.csv",
    "head_to_head.csv",
    "lineups.csv",
)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """The folder of a real tournament (12 games)."""
    out = tmp_path_factory.mktemp("run")
    run_tournament(settings(*RUN), out)
    return out


@pytest.fixture
def games(run) -> list[dict]:
    """The run's records, in file order (fresh copies: a test may change them)."""
    return [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]


def write_lines(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def a_win_of(games: list[dict], agent: str) -> int:
    return next(i for i, g in enumerate(games) if g["winner"] == agent)


def wins(summary: dict, agent: str) -> int:
    return next(a["wins"] for a in summary["agents"] if a["agent"] == agent)


# -- the real results are well formed -----------------------------------------------------------------


def test_a_real_tournaments_games_validate(run, games):
    records, rejected = load_games(run / "games.jsonl")
    assert rejected == [] and records == games and len(games) == 12
    for record in games:
        check_game_record(record)
        assert set(record) == set(games_file.RECORD_FIELDS)  # every field the tournament writes is checked


def test_the_report_of_valid_results_read_again_is_the_runs_own(run, tmp_path, capsys):
    again = tmp_path / "again"
    again.mkdir()
    for name in ("games.jsonl", "stats.json"):
        shutil.copy(run / name, again / name)
    stats_main([str(again), "--no-plots"])
    assert "rejected" not in capsys.readouterr().out
    for name in REPORT_FILES:
        assert (again / name).read_bytes() == (run / name).read_bytes(), name


def test_the_bounds_agree_with_the_rules_and_the_tournament():
    assert deal_seed(1, 0) == games_file.DEAL_SEED_STRIDE  # the tournament deals with the file's stride
    assert games_file.MAX_TURNS == core.config.MAX_TURNS
    assert games_file.SEED_BOUND == core.SEED_BOUND
    assert (games_file.MIN_PLAYERS, games_file.MAX_PLAYERS) == (2, 6)
    core.GameConfig(num_players=2, duel=True)
    core.GameConfig(num_players=6)
    for players in (1, 7):
        with pytest.raises(ValueError, match="num_players"):
            core.GameConfig(num_players=players)
    assert set(games_file.LLM_COUNTS) <= set(COUNTS)


# -- each tampering is rejected by name ---------------------------------------------------------------


def other_seat(record: dict, agent: str) -> int:
    return record["seats"].index(agent)


def move_the_win_to_random(record: dict) -> None:
    """The issue's tampering: random's seat as winner_seat, ``winner`` left as it was."""
    record["winner_seat"] = other_seat(record, "random")


def move_winner_and_seat_to_random(record: dict) -> None:
    record["winner_seat"] = other_seat(record, "random")
    record["winner"] = "random"


def relabel_random(label: str):
    """Random renamed ``label`` through the record (its line-up and seats), the rest consistent: a label
    from a games.jsonl of elsewhere reaches report.md's tables, the CSV files, the plots and the terminal."""

    def tamper(record: dict) -> None:
        record["lineup"] = "+".join(label if x == "random" else x for x in record["lineup"].split("+"))
        record["seats"] = [label if x == "random" else x for x in record["seats"]]

    return tamper


TAMPERINGS = {
    "winner_seat of another agent": (move_the_win_to_random, r"winner '\w+' is not the agent at winner_seat"),
    "winner and winner_seat moved together": (
        move_winner_and_seat_to_random,
        r"winner_seat \d must be the one seat that accused rightly",
    ),
    "winner_seat out of range": (lambda r: r.update(winner_seat=3), r"winner_seat must be an integer in \[0, 2\]"),
    "winner_seat a float": (lambda r: r.update(winner_seat=1.0), r"winner_seat must be an integer .* got 1\.0"),
    "winner without winner_seat": (lambda r: r.update(winner_seat=None), "winner_seat is null"),
    "deal beyond the run's range": (lambda r: r.update(deal=10**30), r"deal must be an integer in \[0, 999999999\]"),
    "deal of another seed": (lambda r: r.update(deal=r["deal"] + 500), r"seed \d+ is not the seed of deal"),
    "deal negative": (lambda r: r.update(deal=-1), "deal must be an integer"),
    "deal a bool": (lambda r: r.update(deal=True), "deal must be an integer .* got True"),
    "seats too short": (lambda r: r.update(seats=r["seats"][:2]), "seats must be a list of the 3 players' agent labels, got 2"),
    "seats too long": (lambda r: r.update(seats=[*r["seats"], "sat"]), "got 4 entries"),
    "seats swapped": (lambda r: r.update(seats=r["seats"][::-1]), "are not line-up .* under rotation"),
    "seats not a list": (lambda r: r.update(seats="sat"), "seats must be a list"),
    "players a string": (lambda r: r.update(players="3"), r"players must be an integer in \[2, 6\], got '3'"),
    "players unlike the line-up": (lambda r: r.update(players=4), "players is 4, but lineup"),
    "rotation out of range": (lambda r: r.update(rotation=3), r"rotation must be an integer in \[0, 2\]"),
    "turns negative": (lambda r: r.update(turns=-5), "turns must be an integer"),
    "turns infinite": (lambda r: r.update(turns=float("inf")), "turns must be an integer .* got inf"),
    "truncated not a bool": (lambda r: r.update(truncated="no"), "truncated must be true or false"),
    "a winner in a truncated game": (lambda r: r.update(truncated=True), "a truncated game has no winner"),
    "two accusations by one seat": (
        lambda r: r["accusations"].__setitem__(0, 2),
        r"accusations\[0\] must be an integer in \[0, 1\]",
    ),
    "more wrong accusations than accusations": (
        lambda r: r.update(accusations=[0, 0, 0], wrong_accusations=[1, 0, 0]),
        "seat 0 has 1 wrong accusations but 0 accusations",
    ),
    "accusations of the wrong length": (lambda r: r.update(accusations=[0, 1]), "one count per seat"),
    "no winner, nobody out": (
        lambda r: r.update(winner=None, winner_seat=None, accusations=[0, 0, 0], wrong_accusations=[0, 0, 0]),
        "not truncated ends with every seat out",
    ),
    "no winner but a right accusation": (
        lambda r: r.update(winner=None, winner_seat=None),
        r"no winner, but seat\(s\) \[\d\] accused rightly",
    ),
    "decisions negative": (lambda r: r.update(decisions=-1), "decisions must be an integer >= 0"),
    "config empty": (lambda r: r.update(config=""), "config must be the run's config hash"),
    "lineup with an empty label": (lambda r: r.update(lineup="random++sat"), "lineup must be agent labels"),
    # labels the report would show as something else (experiments.common.labels)
    "a label with a newline": (relabel_random("r\n## heading"), r"lineup: label 'r\\n## heading' holds the control character '\\n'"),
    "a label with ESC": (relabel_random("r\x1b[2J"), r"label 'r\\x1b\[2J' holds the control character '\\x1b'"),
    "a label with a bidi override": (relabel_random("r\u202eexe"), r"label 'r\\u202eexe' holds the control character"),
    "a label with a lone surrogate": (relabel_random("r\ud83d"), r"label 'r\\ud83d' holds the control character"),
    "a label with '|'": (relabel_random("sat|fast"), r"lineup: label 'sat\|fast' holds '\|'"),
    "a label with '$'": (relabel_random("random_$x$"), r"lineup: label 'random_\$x\$' holds '\$'"),
    "a label starting with '='": (relabel_random('=HYPERLINK("x")'), r"label '=HYPERLINK\(\"x\"\)' starts with '='"),
    "a label starting with '-'": (relabel_random("-2"), r"label '-2' starts with '-'"),
    "a label starting with '@'": (relabel_random("@SUM(A1)"), r"label '@SUM\(A1\)' starts with '@'"),
    "a label starting with a space": (relabel_random(" random"), r"label ' random' starts with ' '"),
    "a field missing": (lambda r: r.pop("wrong_accusations"), "no field 'wrong_accusations'"),
    "llm tokens negative": (
        lambda r: r.update(llm={"0": dict.fromkeys(games_file.LLM_COUNTS, 0) | {"prompt_tokens": -33_000_000}}),
        r"llm\['0'\]\['prompt_tokens'\] must be an integer >= 0",
    ),
    "llm seat out of range": (lambda r: r.update(llm={"7": dict.fromkeys(games_file.LLM_COUNTS, 0)}), "llm must map seats"),
    "llm more invalid replies than replies": (
        lambda r: r.update(llm={"1": dict.fromkeys(games_file.LLM_COUNTS, 0) | {"invalid_replies": 3}}),
        "3 invalid_replies, more than its 0 replies",
    ),
    "llm counts missing": (lambda r: r.update(llm={"1": {"replies": 1}}), "must hold the counts"),
}  # fmt: skip


@pytest.mark.parametrize("name", TAMPERINGS)
def test_a_tampered_record_is_rejected_naming_line_and_field(run, games, tmp_path, name):
    tamper, message = TAMPERINGS[name]
    target = a_win_of(games, "sat")
    original = json.loads(json.dumps(games[target]))
    tamper(games[target])
    path = write_lines(tmp_path / "games.jsonl", games)
    with pytest.warns(RuntimeWarning, match=rf"1 line\(s\) are not game records \(line {target + 1}\)"):
        records, rejected = load_games(path)
    assert len(rejected) == 1 and rejected[0].startswith(f"line {target + 1}: ")
    assert re.search(message, rejected[0]), rejected[0]
    assert original not in records and games[target] not in records
    assert records == [g for i, g in enumerate(games) if i != target]  # the others all kept


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"config": "abc", "lineup": "a+b+c", "deal"', "not JSON"),
        (b"\x00\x00garbage", "not JSON"),
        (b"[1, 2, 3]", "a game record is a JSON object, got list"),
        (b'{"turns": NaN}', "no field"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
        (b'{"deal": ' + b"9" * 5000 + b"}", "not a JSON game record"),
    ],
)
def test_a_line_that_is_no_record_is_rejected_with_the_reason(games, tmp_path, line, reason):
    path = tmp_path / "games.jsonl"
    path.write_bytes(json.dumps(games[0]).encode() + b"\n" + line + b"\n")
    with pytest.warns(RuntimeWarning, match=r"line\(s\) are not game records \(line 2\)"):
        records, rejected = load_games(path)
    assert records == games[:1] and len(rejected) == 1 and reason in rejected[0]


def test_a_message_quotes_a_long_value_cut_short(games, tmp_path):
    games[0]["lineup"] = "x" * 100_000
    with pytest.warns(RuntimeWarning) as told:
        _, rejected = load_games(write_lines(tmp_path / "games.jsonl", games))
    assert "lineup" in rejected[0] and len(rejected[0]) < 300 and len(str(told[0].message)) < 1000


def test_the_control_a_tampered_winner_seat_would_move_the_leaderboard(games):
    """What the tampering did when counted: random gains a win, with no warning."""
    target = a_win_of(games, "sat")
    honest = summarise(games)
    move_the_win_to_random(games[target])
    counted = summarise(games)
    assert wins(counted, "random") == wins(honest, "random") + 1


def test_the_tampered_leaderboard_is_the_honest_one_minus_the_rejected_games(games, tmp_path, capsys):
    """``python -m experiments.common.stats`` on a tampered folder: the tampered games are left out, and said so."""
    sat_wins = [i for i, g in enumerate(games) if g["winner"] == "sat"][:2]
    far, copied = [i for i in range(len(games)) if i not in sat_wins][:2]
    honest = [g for i, g in enumerate(games) if i not in (*sat_wins, far)]
    for i in sat_wins:
        move_the_win_to_random(games[i])
    games[far]["deal"] = 10**30
    games.append(games[copied] | {"deal": 7})  # an extra deal that was never dealt: its seed is deal 0's
    folder = tmp_path / "tampered"
    folder.mkdir()
    write_lines(folder / "games.jsonl", games)
    with pytest.warns(RuntimeWarning, match=r"4 line\(s\) are not game records"):
        stats_main([str(folder), "--no-plots"])
    assert "4 malformed record(s) rejected from" in capsys.readouterr().out
    report = (folder / "report.md").read_text()
    assert "**Rejected:** 4 malformed record(s) rejected from" in report
    assert "deal must be an integer" in report and "is not the seed of deal 7" in report
    summary = json.loads((folder / "stats.json").read_text())
    expected = json.loads(json.dumps(json_ready(summarise(honest))))
    for part in ("games", "by_players", "agents", "seats", "head_to_head", "lineups", "ratings"):
        assert summary[part] == expected[part], part
    assert summary["by_players"]["3"]["deals"] == 4  # no extra deal


def test_two_different_results_for_one_game_are_both_rejected(games, tmp_path):
    changed = games[3] | {"turns": games[3]["turns"] + 1, "decisions": games[3]["decisions"] + 1}
    path = write_lines(tmp_path / "games.jsonl", [*games, changed])
    with pytest.warns(RuntimeWarning, match=rf"line\(s\) are not game records \(line 4, {len(games) + 1}\)"):
        records, rejected = load_games(path)
    assert records == games[:3] + games[4:]
    assert all(
        "different results for one game" in r and f"on lines 4, {len(games) + 1}" in r for r in rejected
    )


def test_an_identical_copy_is_kept_for_the_statistics_to_count_once(games, tmp_path):
    path = write_lines(tmp_path / "games.jsonl", [*games, games[0]])
    records, rejected = load_games(path)
    assert rejected == [] and len(records) == len(games) + 1
    with pytest.warns(RuntimeWarning, match="1 duplicate game record"):
        assert summarise(records)["games"] == len(games)


def test_a_resumed_tournament_sets_a_tampered_record_aside_and_plays_its_game_again(run, games, tmp_path):
    target = a_win_of(games, "sat")
    move_the_win_to_random(games[target])
    games[target + 1]["seats"] = games[target + 1]["seats"][:2]
    out = tmp_path / "resumed"
    out.mkdir()
    write_lines(out / "games.jsonl", games)
    shutil.copy(run / "run.json", out / "run.json")  # its session: the report names the code of its games
    with pytest.warns(
        RuntimeWarning, match=rf"2 line\(s\) are not game records \(line {target + 1}, {target + 2}\)"
    ):
        run_tournament(settings(*RUN), out)
    assert sorted(read_games(out / "games.jsonl"), key=record_key) == sorted(
        read_games(run / "games.jsonl"), key=record_key
    )
    set_aside = (out / f"games.jsonl{REJECTED_SUFFIX}").read_text().splitlines()
    assert [json.loads(line) for line in set_aside] == games[target : target + 2]
    for name in REPORT_FILES:
        assert (out / name).read_bytes() == (run / name).read_bytes(), name


def test_a_folder_without_games_is_refused_and_nothing_is_written(run, tmp_path, capsys):
    zipped = tmp_path / "zipped"
    zipped.mkdir()
    (zipped / "games.jsonl.gz").write_bytes(gzip.compress((run / "games.jsonl").read_bytes()))
    (zipped / "report.md").write_text("the run's report")
    for argv, why in (
        ([str(zipped)], "has no games.jsonl (it holds games.jsonl.gz: gunzip it first)"),
        ([str(tmp_path / "typo")], "is not a folder"),
        ([str(run / "games.jsonl")], "is not a folder"),
        ([str(run), str(zipped), "--output", str(tmp_path / "pooled")], "has no games.jsonl"),
    ):
        with pytest.raises(SystemExit) as stopped:
            stats_main([*argv, "--no-plots"])
        assert stopped.value.code == 2 and why in capsys.readouterr().err
    assert (zipped / "report.md").read_text() == "the run's report"
    assert not (tmp_path / "typo").exists() and not (tmp_path / "pooled").exists()


def test_a_report_of_more_games_than_the_run_counted_drops_what_it_said_of_its_subset(run, tmp_path):
    folder = tmp_path / "subset"
    folder.mkdir()
    shutil.copy(run / "games.jsonl", folder / "games.jsonl")
    stats = json.loads((run / "stats.json").read_text())
    every_deal = stats["meta"]["deals_per_lineup"]
    stats["meta"] |= {"note": "6 of the 12 games are left out", "deals_per_lineup": 1}
    (folder / "stats.json").write_text(json.dumps(stats))
    stats_main([str(folder), "--no-plots"])
    meta = json.loads((folder / "stats.json").read_text())["meta"]
    assert "note" not in meta and meta["seed"] == stats["meta"]["seed"]
    assert meta["deals_per_lineup"] == every_deal > 1  # counted again from the file (it said "?")
    assert f"- {every_deal} deals per line-up" in (folder / "report.md").read_text()
    assert "left out" not in (folder / "report.md").read_text()


def test_a_stats_json_that_is_not_a_report_is_left_out_with_a_warning(run, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copy(run / "games.jsonl", folder / "games.jsonl")
    (folder / "stats.json").write_text("[1, 2]")
    with pytest.warns(RuntimeWarning, match="not a report of experiments.common.stats"):
        stats_main([str(folder), "--no-plots"])
    assert json.loads((folder / "stats.json").read_text())["meta"] == {"runs": [str(folder)]}


@pytest.mark.parametrize(
    "odd",
    ["![pixel](https://tracker.example/p.png) random", "0\n# Forged heading <img src=x>", "sat|fast"],
)
def test_a_stats_json_of_elsewhere_whose_details_would_act_in_the_report_is_left_out(run, tmp_path, odd):
    """Its meta reached report.md's header as it was: a remote image, a link, a heading, a table cell."""
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copy(run / "games.jsonl", folder / "games.jsonl")
    stats = json.loads((run / "stats.json").read_text())
    label = next(iter(stats["meta"]["agents"]))
    stats["meta"]["agents"] = {odd: stats["meta"]["agents"][label]}
    (folder / "stats.json").write_text(json.dumps(stats))
    with pytest.warns(RuntimeWarning, match="which report.md would not show as it is"):
        stats_main([str(folder), "--no-plots"])
    assert odd not in (folder / "report.md").read_text()
    assert json.loads((folder / "stats.json").read_text())["meta"] == {"runs": [str(folder)]}
    stats["meta"]["agents"], stats["meta"]["seed"] = {label: stats["meta"]["agents"][odd]}, odd
    (folder / "stats.json").write_text(json.dumps(stats))  # the same in a value
    with pytest.warns(RuntimeWarning, match="which report.md would not show as it is"):
        stats_main([str(folder), "--no-plots"])


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("max_turns: 60", "max_turns: 80"), "play 3 players under other rules (game.max_turns: 60 and 80)"),
        (
            ("- name: sat\n    options: {}", "- name: sat\n    options:\n      move_discount: 0.5"),
            "'sat' is ",
        ),
        (("- name: random\n", "- name: mypackage.agents:random\n"), "'random' is "),  # one label, two agents
    ],
)
def test_runs_of_other_rules_or_agents_are_pooled_only_when_told(run, tmp_path, capsys, change, said):
    """They were pooled in silence: one ``sat`` row of two agents, one table of two rule sets."""
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(run / "games.jsonl", other / "games.jsonl")
    config = (run / "config.yaml").read_text()
    assert change[0] in config
    (other / "config.yaml").write_text(config.replace(*change))
    pooled = tmp_path / "pooled"
    with pytest.raises(SystemExit) as stopped:
        stats_main([str(run), str(other), "--output", str(pooled), "--no-plots"])
    assert stopped.value.code == 2 and said in capsys.readouterr().err and not pooled.exists()
    stats_main([str(run), str(other), "--output", str(pooled), "--no-plots", "--mixed"])
    report = (pooled / "report.md").read_text()
    assert "**Note:** pooled with --mixed: " in report and said in report


def test_runs_of_other_seeds_and_player_counts_pool(run, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(run / "games.jsonl", other / "games.jsonl")
    config = (run / "config.yaml").read_text()
    (other / "config.yaml").write_text(
        config.replace("seed: 0", "seed: 1").replace("num_players: 3", "num_players: 4")
    )
    stats_main([str(run), str(other), "--output", str(tmp_path / "pooled"), "--no-plots"])
    assert "--mixed" not in (tmp_path / "pooled" / "report.md").read_text()
