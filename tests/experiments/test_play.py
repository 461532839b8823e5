"""experiments/play.py: games between chosen agents, the duel, and clear errors for a bad command line."""

from __future__ import annotations

import ast
import io
from collections import Counter

import pytest

from agents.registry import AGENTS
from cluedo_env import __version__
from experiments.play import default_agents, main


def outcomes(output: str) -> dict[str, int]:
    """The summary's ``outcomes: {...}`` line as a dict."""
    (line,) = [line for line in output.splitlines() if line.strip().startswith("outcomes:")]
    return ast.literal_eval(line.split("outcomes:", 1)[1].strip())


def usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    return capsys.readouterr().err


def test_default_line_up_is_sat_then_notepad_and_random_in_turn():
    assert default_agents(2) == ["sat", "notepad"]
    assert default_agents(4) == ["sat", "notepad", "random", "notepad"]
    assert default_agents(6) == ["sat", "notepad", "random", "notepad", "random", "notepad"]


def test_default_games_end_with_a_winner(capsys):
    main(["--games", "12", "--quiet"])
    output = capsys.readouterr().out
    assert "4 players, classic board: P0 sat, P1 notepad, P2 random, P3 notepad" in output
    counts = outcomes(output)
    assert sum(counts.values()) == 12
    won = sum(n for outcome, n in counts.items() if outcome.endswith(" won"))
    assert won >= 11, counts  # the old default (uniformly random players) ended with "nobody won"


def test_the_default_command_tells_the_story_of_a_game_someone_wins(capsys):
    main([])
    output = capsys.readouterr().out
    assert output.count("=== game ") == 3
    assert "P0 (Miss Scarlet) suggests" in output
    assert "nobody won" not in output and "truncated" not in outcomes(output)


def test_agents_sit_in_the_order_given_and_set_the_player_count(capsys):
    main(["--agents", "random,sat,random", "--games", "4", "--quiet", "--seed", "3"])
    output = capsys.readouterr().out
    assert "3 players, classic board: P0 random, P1 sat, P2 random" in output
    assert set(outcomes(output)) <= {"P0 (random) won", "P1 (sat) won", "P2 (random) won", "nobody won"}


def test_duel_plays_two_players(capsys):
    main(["--duel", "--games", "2", "--quiet", "--board", "none"])
    output = capsys.readouterr().out
    assert "2 games, duel, none board: P0 sat, P1 notepad" in output
    assert sum(outcomes(output).values()) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--agents", "sat,bogus"],
            f"--agents: agent must be one of {sorted(AGENTS)}",
        ),
        (["--agents", "sat,bogus"], "got 'bogus'"),
        (["--agents", "sat,,notepad"], "--agents needs comma-separated names, got 'sat,,notepad'"),
        (["--agents", "sat,notepad,random", "--players", "4"], "names 3 agents for 4 players"),
        (["--agents", "sat,notepad"], "2 players play the duel: add --duel"),
        (["--players", "2"], "2 players play the duel: add --duel"),
        (["--duel", "--players", "4"], "num_players must be one of [2] with duel=True, got 4"),
        (["--players", "7"], "num_players must be one of [3, 4, 5, 6]"),
        (["--players", "0"], "num_players must be one of [3, 4, 5, 6]"),  # not the default's 4 players
        (["--seed", "-1"], "--seed must be >= 0, got -1"),
        (["--board", "hex"], "board must be one of ['classic', 'none'], got 'hex'"),
        (["--games", "0"], "--games must be at least 1, got 0"),
    ],
)
def test_bad_command_lines_are_named(capsys, argv, message):
    assert message in usage_error(capsys, argv)


def test_version_is_printed(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"cluedo-env {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    assert f"(cluedo-env {__version__})" in capsys.readouterr().out


def test_record_saves_replays_that_verify_and_end_as_the_games_did(capsys, tmp_path):
    from cluedo_env.game_record import load_jsonl
    from cluedo_env.replay import verify

    main(["--games", "3", "--seed", "5", "--quiet", "--record", str(tmp_path / "games")])
    counts = outcomes(capsys.readouterr().out)
    winners = Counter()
    for seed in (5, 6, 7):
        record = load_jsonl(tmp_path / "games" / f"game-{seed}.jsonl")
        state = verify(record)  # replays to the recorded events, step by step
        assert record.finished and int(state.seed[0]) == seed
        winners[f"P{int(state.winner[0])} ({default_agents(4)[int(state.winner[0])]}) won"] += 1
    assert dict(winners) == counts


def test_record_keeps_a_game_left_early_as_far_as_it_went(capsys, tmp_path, monkeypatch):
    from cluedo_env.game_record import load_jsonl
    from cluedo_env.replay import verify

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))  # the human leaves at their first decision
    with pytest.raises(SystemExit, match="You left the game"):
        main(["--agents", "sat,human,notepad,random", "--seed", "3", "--record", str(tmp_path)])
    assert "unfinished games saved as far as they went: 1" in capsys.readouterr().err
    record = load_jsonl(tmp_path / "game-3.jsonl")
    state = verify(record)  # the seats before the human played; the file is whole and replays
    assert not record.finished and record.num_steps > 0 and not state.done[0]
    assert int(state.current_player[0]) == 1  # where the human left


def test_record_into_a_folder_that_cannot_be_made_is_refused_before_any_game(capsys, tmp_path):
    (tmp_path / "a-file").write_text("")
    message = usage_error(capsys, ["--games", "1", "--record", str(tmp_path / "a-file" / "games")])
    assert f"--record: cannot make the folder {tmp_path / 'a-file' / 'games'}" in message


def test_record_never_overwrites_a_replay(capsys, tmp_path):
    (tmp_path / "game-0.jsonl").write_text("kept")
    message = usage_error(capsys, ["--games", "1", "--record", str(tmp_path)])
    assert f"--record: {tmp_path / 'game-0.jsonl'} exists; choose another folder" in message
    assert (tmp_path / "game-0.jsonl").read_text() == "kept"
