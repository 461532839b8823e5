"""experiments.compare: two agents game by game on the same deals, checked on games written by hand."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest

from cluedo_env.intervals import Z95, paired_difference_interval
from experiments.compare import compare, main, mcnemar_exact, seated_once


def game(
    deal: int, rotation: int, lineup: list[str], winner_agent: int | None, wrong: tuple[int, ...] = ()
) -> dict:
    """A well-formed one-vs-field record: agent k of ``lineup`` sits at seat (k + rotation) % 4."""
    players = len(lineup)
    seats = [""] * players
    for k, label in enumerate(lineup):
        seats[(k + rotation) % players] = label
    winner_seat = None if winner_agent is None else (winner_agent + rotation) % players
    accusations = [0] * players
    wrong_accusations = [0] * players
    for agent in wrong:
        seat = (agent + rotation) % players
        accusations[seat] = wrong_accusations[seat] = 1
    if winner_seat is not None:
        accusations[winner_seat] = 1
    return {
        "config": "abc" + lineup[0], "lineup": "+".join(lineup), "deal": deal, "seed": deal, "rotation": rotation,
        "players": players, "seats": seats, "winner": None if winner_seat is None else seats[winner_seat],
        "winner_seat": winner_seat, "turns": 20, "truncated": winner_seat is None and not wrong, "decisions": 50,
        "accusations": accusations, "wrong_accusations": wrong_accusations,
    }  # fmt: skip


FIELD = ["sat", "sat", "sat"]
# (deal, rotation): who wins with A seated (agent 0 = A), and with B seated.
OUTCOMES = {(0, 0): (0, 0), (0, 1): (0, 1), (1, 0): (2, 0), (1, 1): (1, 0), (2, 0): (3, 3), (2, 1): (1, 2)}


def runs():
    a = [game(d, r, ["imitation", *FIELD], wa) for (d, r), (wa, _) in OUTCOMES.items()]
    b = [
        game(d, r, ["learned", *FIELD], wb, wrong=(0,) if wb else ()) for (d, r), (_, wb) in OUTCOMES.items()
    ]
    return a, b


def test_pairs_are_the_same_deal_and_seat_and_the_difference_is_the_mean_of_the_pairs():
    a, b = runs()
    result = compare(a, b, "imitation", "learned")
    # A wins (0,0) (0,1); B wins (0,0) (1,0) (1,1): both won one deal, only A one, only B two.
    assert result["pairs"] == 6 and result["a"]["wins"] == 2 and result["b"]["wins"] == 3
    assert (result["only_a_won"], result["only_b_won"]) == (1, 2)
    # Tango's score interval of the 2x2 table: both won 1, only A 1, only B 2, neither 2.
    assert (result["difference"], *result["difference_interval"]) == paired_difference_interval(1, 1, 2, 2)
    assert (
        result["difference"] == pytest.approx(1 / 6)
        and result["difference_method"] == "Tango's score interval, 95%"
    )
    assert result["b"]["wrong_accusations"] == 3 and result["a"]["wrong_accusations"] == 0


def test_games_of_other_deals_rotations_or_fields_are_not_paired():
    a, b = runs()
    b[0] = game(0, 0, ["learned", "sat", "sat", "notepad"], 0)  # another field: no partner
    b[1] = game(9, 1, ["learned", *FIELD], 0)  # another deal
    assert compare(a, b, "imitation", "learned")["pairs"] == 4
    with pytest.raises(ValueError, match="no game of A"):
        compare(a, [game(7, 0, ["learned", *FIELD], 0)], "imitation", "learned")


def test_a_field_labelled_star_is_not_taken_for_the_compared_agents_seat():
    """``*`` stood for the compared agent's seat, and is a label an entrant may take: A's agent at seat 0
    beside a ``*`` at seat 1 was paired with B's agent at seat 1 beside a ``*`` at seat 0."""
    a = [game(0, 0, ["a", "*", "sat", "sat"], 0), game(1, 0, ["a", "*", "sat", "sat"], 1)]
    b = [game(0, 0, ["*", "b", "sat", "sat"], 1), game(1, 0, ["b", "*", "sat", "sat"], 0)]
    assert compare(a, b, "a", "b")["pairs"] == 1  # deal 1 only: the same seat against the same field
    with pytest.raises(ValueError, match="no game of A"):
        compare(a[:1], b[:1], "a", "b")


def test_mcnemar_exact_is_the_two_sided_binomial_tail_by_enumeration():
    for only_b, only_a in [(0, 0), (3, 0), (5, 2), (2, 5), (7, 7), (10, 1)]:
        n = only_a + only_b
        observed = abs(only_b - only_a)
        splits = [sum(bits) for bits in itertools.product((0, 1), repeat=n)]  # every split, equally likely
        as_uneven = Fraction(sum(abs(2 * k - n) >= observed for k in splits), 2**n)
        assert mcnemar_exact(only_b, only_a) == pytest.approx(float(as_uneven)), (only_b, only_a)


def test_seated_once_finds_the_one_agent_against_a_field():
    a, _ = runs()
    assert seated_once(a) == ["imitation"]
    assert seated_once([game(0, 0, ["x", "y", "z", "w"], 0)]) == ["w", "x", "y", "z"]


def test_the_command_prints_the_paired_difference_and_json(tmp_path, capsys):
    a, b = runs()
    for name, records in (("a", a), ("b", b)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    main([str(tmp_path / "a"), str(tmp_path / "b"), "--names", "imitation", "learned"])
    out = capsys.readouterr().out
    assert (
        "6 pairs of games" in out and "learned - imitation: +16.7 points [-39.8, +63.0] (Tango's score" in out
    )
    assert "imitation (imitation): 2 wins in 6 paired games, 33.3% [9.7%, 70.0%] (95% Wilson interval)" in out
    main([str(tmp_path / "a"), str(tmp_path / "b"), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["pairs"] == 6 and math.isclose(result["difference"], 1 / 6)
    main([str(tmp_path / "a"), str(tmp_path / "a"), "--names", "imitation", "imitation"])  # every pair tied
    assert "+0.0 points [-39.0, +39.0] (Tango's score interval, 95%, paired);" in capsys.readouterr().out
    main([str(tmp_path / "a"), str(tmp_path / "a"), "--json"])  # z^2 / (6 + z^2) each way, not a point
    interval = json.loads(capsys.readouterr().out, parse_constant=pytest.fail)["difference_interval"]
    assert interval == pytest.approx([-(Z95**2) / (6 + Z95**2), Z95**2 / (6 + Z95**2)])
    with (tmp_path / "b" / "games.jsonl").open("a", encoding="utf-8") as games:
        games.write("not a record\n")  # set aside, said on stderr: stdout stays --json's
    main([str(tmp_path / "a"), str(tmp_path / "b"), "--json"])
    printed = capsys.readouterr()
    assert json.loads(printed.out)["pairs"] == 6 and "not a record" not in printed.out and printed.err


def test_nine_of_ten_deals_won_by_b_alone_stay_within_100_points(tmp_path, capsys):
    """The Student t interval printed +90.0 points [+67.4, +112.6] here: past the largest possible difference."""
    wins_b = [0] * 9 + [None]
    for name, label, winners in (("a", "notepad", [None] * 10), ("b", "learned", wins_b)):
        (tmp_path / name).mkdir()
        records = [game(d, 0, [label, *FIELD], w) for d, w in enumerate(winners)]
        (tmp_path / name / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    main([str(tmp_path / "a"), str(tmp_path / "b")])
    out = capsys.readouterr().out
    assert "b - a: +90.0 points [+37.3, +98.2] (Tango's score interval, 95%, paired); only b won 9" in out
    assert "a (notepad): 0 wins in 10 paired games, 0.0% [0.0%, 27.8%] (95% Wilson interval)" in out


def test_the_command_refuses_a_folder_without_games_or_a_run_without_one_agent(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "games.jsonl.gz").write_bytes(b"")
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "empty"), str(tmp_path / "empty")])
    assert stop.value.code == 2 and "gunzip it first" in capsys.readouterr().err
    (tmp_path / "round").mkdir()
    (tmp_path / "round" / "games.jsonl").write_text(json.dumps(game(0, 0, ["w", "x", "y", "z"], 0)) + "\n")
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "round"), str(tmp_path / "round")])
    assert stop.value.code == 2 and "--agents A B" in capsys.readouterr().err


def test_the_command_refuses_runs_played_under_other_rules(tmp_path, capsys):
    a, b = runs()
    for name, records, board in (("a", a, "classic"), ("b", b, "none")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        (tmp_path / name / "config.yaml").write_text(f"game:\n  num_players: 4\n  board: {board}\nseed: 0\n")
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "a"), str(tmp_path / "b")])
    assert stop.value.code == 2
    assert "other rules (game.board: 'classic' in A, 'none' in B)" in capsys.readouterr().err
    (tmp_path / "b" / "config.yaml").write_text("game:\n  num_players: 4\n  board: classic\nseed: 1\n")
    main([str(tmp_path / "a"), str(tmp_path / "b")])  # the same rules (another run seed is no rule)
    assert "6 pairs of games" in capsys.readouterr().out


@pytest.mark.parametrize(("deal", "refused"), [("keys", False), ("uniform", True)])
def test_a_run_from_before_the_deal_field_compares_as_deal_keys(tmp_path, capsys, deal, refused):
    """Runs recorded before ``GameConfig.deal`` existed write no ``deal``: they were dealt as "keys" is."""
    a, b = runs()
    for name, records, extra in (("a", a, ""), ("b", b, f"  deal: {deal}\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        (tmp_path / name / "config.yaml").write_text(f"game:\n  num_players: 4\n{extra}seed: 0\n")
    if refused:
        with pytest.raises(SystemExit) as stop:
            main([str(tmp_path / "a"), str(tmp_path / "b")])
        assert stop.value.code == 2 and "game.deal: 'keys' in A, 'uniform' in B" in capsys.readouterr().err
    else:
        main([str(tmp_path / "a"), str(tmp_path / "b")])


def write_run(folder, records, *sessions):
    """A tournament folder of ``records``, with a ``run.json`` of ``sessions`` ((games_found, revision, dirty)
    each) where any are given."""
    folder.mkdir()
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if sessions:
        info = {
            "config_hash": records[0]["config"],
            "sessions": [
                {"version": "0.2.0", "git": {"revision": revision, "dirty": dirty}, "games_found": found}
                for found, revision, dirty in sessions
            ],
        }
        (folder / "run.json").write_text(json.dumps(info))


OLD, NEW = "25af10099c0c56b5dc17af51565318e9c9c087f6", "28ce0afdba8c827bbbc08310c972399bb40029ef"


def test_runs_played_by_other_code_are_compared_with_a_note_naming_each_code(tmp_path, capsys):
    """A rule can change between two revisions while the config does not (0.1.0's duel against this one's):
    the difference was printed as the agents' alone."""
    a, b = runs()
    write_run(tmp_path / "a", a, (0, OLD, False))
    write_run(tmp_path / "b", b, (0, NEW, True))
    main([str(tmp_path / "a"), str(tmp_path / "b"), "--names", "imitation", "learned"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"note: other code played the runs: imitation by revision {OLD}; learned by revision {NEW} with "
        "uncommitted changes. A deal seed is the same game only where the rules did not change between the "
        "codes, so the difference may come from the code as well as from the agents"
    )
    assert lines[1].startswith("6 pairs of games") and "learned - imitation: +16.7 points" in lines[-1]
    main([str(tmp_path / "a"), str(tmp_path / "b"), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["code_note"].startswith(f"other code played the runs: a by revision {OLD}; b by")
    assert result["code"]["a"] == [{"revision": OLD, "dirty": False, "version": "0.2.0", "games": 6}]


def test_runs_of_one_code_print_no_note_and_unknown_code_is_said(tmp_path, capsys):
    a, b = runs()
    write_run(tmp_path / "a", a, (0, OLD, False))
    # B resumed under other code for a deal A did not play: no paired game of B is that code's.
    extra = game(5, 0, ["learned", *FIELD], 0)
    write_run(tmp_path / "b", [*b, extra], (0, OLD, False), (6, NEW, False))
    main([str(tmp_path / "a"), str(tmp_path / "b")])
    out = capsys.readouterr().out
    assert "note" not in out and out.startswith("6 pairs of games")
    main([str(tmp_path / "a"), str(tmp_path / "b"), "--json"])
    assert json.loads(capsys.readouterr().out)["code_note"] is None
    write_run(tmp_path / "by hand", b)  # no run.json
    main([str(tmp_path / "a"), str(tmp_path / "by hand")])
    assert capsys.readouterr().out.startswith(
        f"note: the code of the runs may differ: a by revision {OLD}; by hand by unknown code (no run.json of its "
        "games). A deal seed is the same game only where the rules did not change"
    )
    # Games from before the first recorded session (its run.json lost) are of unknown code too.
    write_run(tmp_path / "lost", a, (3, OLD, False))
    main([str(tmp_path / "lost"), str(tmp_path / "a")])
    assert capsys.readouterr().out.startswith(
        f"note: the code of the runs may differ: lost by unknown code (3 games) and revision {OLD} (3 games); "
        f"a by revision {OLD}."
    )


def test_a_run_json_of_the_wrong_shape_is_unknown_code_not_a_crash(tmp_path, capsys):
    a, b = runs()
    write_run(tmp_path / "a", a, (0, OLD, False))
    write_run(tmp_path / "b", b, (0, OLD, False))
    info = json.loads((tmp_path / "b" / "run.json").read_text())
    (tmp_path / "b" / "run.json").write_text(json.dumps({**info, "config_hash": [info["config_hash"]]}))
    main([str(tmp_path / "a"), str(tmp_path / "b")])  # a list is no hash: it raised TypeError (unhashable)
    assert capsys.readouterr().out.startswith("note: the code of the runs may differ: a by revision")
