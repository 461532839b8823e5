"""experiments/play.py: games between chosen agents, the duel, and clear errors for a bad command line."""

from __future__ import annotations

import ast
import io
import re
from collections import Counter

import numpy as np
import pytest

from agents.registry import AGENTS
from cluedo_env import __version__, core
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
        (
            ["--preset", "de"],
            "--preset must be one of ['classic', 'de_2023', 'de_2023_duel', 'fr_1996'], got 'de'",
        ),
        (
            ["--preset", "de_2023_duel", "--players", "4"],
            "--preset de_2023_duel with these options: num_players",
        ),
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


def test_a_preset_sets_the_rules_and_the_other_options_override_it(capsys):
    from experiments.play import _setup

    _args, config, names, _agents = _setup(["--preset", "de_2023", "--players", "3", "--board", "none"])
    assert config == core.GameConfig.preset("de_2023", num_players=3, board="none") and len(names) == 3
    assert _setup(["--preset", "de_2023_duel"])[1] == core.GameConfig.preset("de_2023_duel")
    assert _setup(["--preset", "fr_1996", "--agents", "sat,random,random"])[1] == core.GameConfig.preset(
        "fr_1996", num_players=3
    )
    main(["--preset", "de_2023", "--games", "1", "--seed", "2"])
    output = capsys.readouterr().out
    assert "P3 (Bürgermeister Grün) starts" in output
    assert "1 games, 4 players, preset de_2023, classic board: P0 sat" in output


def test_after_a_persons_game_only_the_summary_follows_their_story(capsys, monkeypatch):
    """The whole story of the game followed the person's own, with every card the others showed each other
    ("P3 (Reverend Green) shows Professor Plum to P1")."""
    seed, seat = 2, 2  # the others suggest and show before P2's first decision
    envelope = core.init(core.GameConfig(), [seed])._envelope[0]
    cards = core.GameConfig().cards.cards
    solution = f"accuse {cards[envelope[0]]} with the {cards[envelope[1]]} in the {cards[envelope[2]]}"
    monkeypatch.setattr("sys.stdin", io.StringIO(solution + "\n"))
    main(["--human", str(seat), "--seed", str(seed)])
    output = capsys.readouterr().out
    assert "*** You won. ***" in output and "=== summary: 1 games" in output
    assert "=== game 0" not in output
    shows = re.findall(r"P\d \([^)]*\) shows (.+?) to P(\d)", output)
    assert shows and all(card == "a card" or int(to) == seat for card, to in shows)


def test_a_person_gets_a_new_deal_each_sitting(capsys, monkeypatch):
    """Without --seed every sitting dealt seed 0: the same hand, and the envelope the last end screen showed."""
    import secrets

    config, draw, drawn = core.GameConfig(), secrets.randbelow, []
    monkeypatch.setattr("secrets.randbelow", lambda bound: drawn.append(draw(bound)) or drawn[-1])  # (a spy)
    for sitting in range(2):
        monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))  # the person leaves at their first decision
        with pytest.raises(SystemExit, match="You left the game"):
            main(["--human", "0"])
        out, err = capsys.readouterr()
        seed = drawn[sitting]
        hand = re.search(r"Your cards: ([^\n]*)\.", out).group(1).split(", ")
        dealt = core.init(config, [seed])._owner[0] == 0
        assert sorted(hand) == sorted(config.cards.cards[c] for c in np.flatnonzero(dealt))  # the drawn deal
        assert str(seed) not in out + err  # a game left before its end never told its seed
    assert len(drawn) == 2 and drawn[0] != drawn[1]


def test_a_persons_drawn_seed_is_printed_after_the_game_and_a_given_one_kept(capsys, monkeypatch):
    seed = 8_642_097_531_864_209_753  # drawn by the patched draw; a number nothing else prints
    monkeypatch.setattr("secrets.randbelow", lambda bound: seed if bound == core.SEED_BOUND else 0)
    envelope = core.init(core.GameConfig(), [seed])._envelope[0]
    cards = core.GameConfig().cards.cards
    accusation = f"accuse {cards[envelope[0]]} with the {cards[envelope[1]]} in the {cards[envelope[2]]}"
    monkeypatch.setattr("sys.stdin", io.StringIO(accusation + "\n"))
    main(["--human", "0"])
    output = capsys.readouterr().out
    assert "*** You won. ***" in output
    assert output.index(str(seed)) > output.index("=== summary: 1 games")  # first named in the summary
    assert f"  seed: {seed} (--seed {seed} deals this game again)" in output.splitlines()
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit):
        main(["--human", "0", "--seed", "5"])
    out, err = capsys.readouterr()
    hand = re.search(r"Your cards: ([^\n]*)\.", out).group(1).split(", ")
    dealt = core.init(core.GameConfig(), [5])._owner[0] == 0
    assert sorted(hand) == sorted(cards[c] for c in np.flatnonzero(dealt)) and "seed: " not in out + err


def test_games_of_agents_alone_still_start_from_seed_0(capsys):
    from experiments.play import _setup

    assert _setup(["--games", "2"])[0].seed == 0
    main(["--games", "1"])
    output = capsys.readouterr().out
    assert "=== game 0 (seed 0)" in output and "  seed: " not in output
    too_high = usage_error(capsys, ["--games", "2", "--seed", str(core.SEED_BOUND - 1)])
    assert f"--seed must be at most {core.SEED_BOUND - 2} (2**63 - --games" in too_high


def test_a_person_plays_a_ppo_agent_whatever_seed_is_drawn(capsys, monkeypatch):
    """The seats' agents are seeded seed * 100 + k: past 2**64 for most drawn seeds, where torch's
    generator refused ("Overflow when unpacking long long") and no game against ppo started."""
    pytest.importorskip("torch")
    seed = core.SEED_BOUND - 1
    monkeypatch.setattr("secrets.randbelow", lambda bound: seed if bound == core.SEED_BOUND else 0)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit, match="You left the game"):
        main(["--agents", "human,ppo,sat,sat"])
    assert "Your cards: " in capsys.readouterr().out
