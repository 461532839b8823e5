"""Statistics and plots of tournament games: head to head seat for seat, stable colours, honest axes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cluedo_env.intervals import wilson_interval
from experiments.common.report import write_report
from experiments.common.report_plots import AGENT_COLOURS, OTHER_COLOURS, agent_colour
from experiments.common.summary import ahead_interval, summarise
from experiments.plot_training import can_win, curriculum_events, figure


def game(seats, winner_seat, deal=0, turns=30):
    return {
        "config": "test", "lineup": "+".join(seats), "deal": deal, "seed": deal, "rotation": 0,
        "players": len(seats), "seats": list(seats), "turns": turns, "truncated": False, "decisions": 0,
        "winner": None if winner_seat is None else seats[winner_seat], "winner_seat": winner_seat,
        "accusations": [0] * len(seats), "wrong_accusations": [0] * len(seats),
    }  # fmt: skip


def test_head_to_head_compares_seat_for_seat():
    # S against three copies of N: S wins 2 games, an N seat wins 2, one game without a winner.
    records = [game(("S", "N", "N", "N"), w, deal=d) for d, w in enumerate([0, 0, 1, 3, None])]
    h2h = {(h["agent"], h["opponent"]): h for h in summarise(records)["head_to_head"]}
    s_vs_n = h2h["S", "N"]
    assert (s_vs_n["games"], s_vs_n["decisive_games"]) == (5, 4)
    # Each S win puts S's seat ahead of 3 N seats; each N win puts one N seat ahead of S's.
    assert s_vs_n["ahead_share"] == pytest.approx(6 / 8)
    assert h2h["N", "S"]["ahead_share"] == pytest.approx(2 / 8)
    # The interval is Wilson's for S's 2 of the 4 decisive games, each S win worth 3 seats, each N win 1.
    low, high = wilson_interval(2, 4)
    expected = (3 * low / (3 * low + 1 - low), 3 * high / (3 * high + 1 - high))
    assert (s_vs_n["ahead_low"], s_vs_n["ahead_high"]) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("copies", "x", "decisive"), [(3, 0.15, 200), (3, 0.05, 400), (3, 0.56, 2000), (1, 0.3, 100)]
)
def test_head_to_head_intervals_cover_the_share_95_times_in_100(copies, x, decisive):
    """One agent against ``copies`` copies of another, winning ``x`` of the decisive games: the interval
    holds the true seat-for-seat share about 95% of the time (Wilson's interval of the seat-for-seat
    share counted as games covered 80% to 98%, not 95%)."""
    rng = np.random.default_rng(0)
    seats = ("S", *["N"] * copies)
    truth = copies * x / (copies * x + 1 - x)
    covered = []
    for wins in rng.binomial(decisive, x, 400):
        together = [{"seats": seats, "winner": "S" if g < wins else "N"} for g in range(decisive)]
        low, high = ahead_interval(together, "S", "N")
        covered.append(low <= truth <= high)
    assert 0.92 <= np.mean(covered) <= 0.98


@pytest.mark.parametrize(
    ("n", "x_one", "x_five"), [(100, 0.5, 1 / 6), (100, 0.7, 0.3), (10, 0.8, 0.1), (5, 0.9, 0.1)]
)
def test_pooled_head_to_head_intervals_cover_the_share_95_times_in_100(n, x_one, x_five):
    """S against one N, and against five N, pooled (``n`` decisive games of each): the interval holds the
    seat-for-seat share at least about 95% of the time. Wilson's carried over by the mean seats covered 89%
    at 100 games; a bootstrap within each seating 64% and 39% at 10 and 5 games, where a seating's games
    were all won by one side (zero-width intervals)."""
    rng = np.random.default_rng(1)
    truth = (n * x_one + 5 * n * x_five) / (n * x_one + 5 * n * x_five + n * (1 - x_one) + n * (1 - x_five))
    covered = []
    for wins_one, wins_five in zip(rng.binomial(n, x_one, 400), rng.binomial(n, x_five, 400), strict=True):
        together = [{"seats": ("S", "N"), "winner": "S" if g < wins_one else "N"} for g in range(n)]
        together += [{"seats": ("S", *["N"] * 5), "winner": "S" if g < wins_five else "N"} for g in range(n)]
        low, high = ahead_interval(together, "S", "N")
        assert low < high
        covered.append(low <= truth <= high)
        assert ahead_interval(together[::-1], "S", "N") == (low, high)  # the same games in any order
    assert np.mean(covered) >= 0.93


def test_head_to_head_at_one_table_is_not_the_win_share():
    # Four agents at one table: "A won, B at the table" would be A's win share in every cell.
    winners = [0] * 5 + [1] * 3 + [2] * 2
    records = [game(("A", "B", "C", "D"), w, deal=d) for d, w in enumerate(winners)]
    h2h = {(h["agent"], h["opponent"]): h["ahead_share"] for h in summarise(records)["head_to_head"]}
    assert h2h["A", "B"] == pytest.approx(5 / 8) and h2h["A", "C"] == pytest.approx(5 / 7)
    assert h2h["A", "D"] == 1.0


def test_pooled_runs_of_two_seeds_count_their_deals_apart():
    """Deal indices start at 0 in every run; the deals are told apart by their seeds (a pooled report
    of seeds 0 and 1 said 10 deals for 20)."""
    seed_0 = [game(("A", "B"), 0, deal=d) for d in range(10)]
    seed_1 = [
        game(("A", "B"), 1, deal=d) | {"seed": 1_000_000_000 + d, "config": "seed 1"} for d in range(10)
    ]
    assert summarise(seed_0 + seed_1)["by_players"][2]["deals"] == 20
    assert summarise(seed_0)["by_players"][2]["deals"] == 10


def test_the_colour_an_agent_asks_for_does_not_depend_on_the_other_entrants():
    assert agent_colour("sat") == AGENT_COLOURS["sat"]
    assert agent_colour("my_agent") == agent_colour("my_agent") in OTHER_COLOURS


def test_plots_keep_to_the_data(tmp_path):
    records = [game(("sat", "random", "random"), 0, deal=d) for d in range(20)]
    records += [game(("notepad", "random", "random"), 0 if d % 2 else None, deal=d) for d in range(20)]
    summary = write_report(records, tmp_path, plots=True)
    for name in ("win_share", "lineups", "ratings", "turns_to_win", "head_to_head"):
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000, name
    assert "A ahead of B, seat for seat" in (tmp_path / "report.md").read_text()
    assert summary["games"] == 40


def test_training_curves_have_intervals_and_the_final_evaluation(tmp_path):
    import numpy as np

    config = {
        "game": {"num_players": 4},
        "eval_games": 100,
        "eval_opponents": [{"name": "random", "options": {"accuse": "never"}, "label": "random_never"},
                           {"name": "notepad"}],
        "total_timesteps": 2000,
        "opponents": [{"name": "random", "start": 0.0, "stop": 0.75}, {"name": "notepad", "start": 0.25}],
        "snapshot_every": 0,
    }  # fmt: skip
    curves = {
        "eval/win_rate/notepad": (np.array([1000, 2000]), np.array([0.2, 0.3])),
        "eval/win_rate/random_never": (np.array([1000, 2000]), np.array([0.5, 0.9])),
        "charts/episodic_return": (np.arange(100, 2100, 100), np.linspace(-1, 0, 20)),
    }
    final = {"notepad": {"games": 400, "wins": 120}}
    fig = figure(curves, config, final, "test")
    wins = fig.axes[0]
    labels = [t.get_text() for t in wins.get_legend().get_texts()]
    assert "vs 3 notepad, final: 30.0% of 400" in labels
    assert "fair share 1/4 (vs 3 notepad)" in labels  # never-accusing opponents cannot win: no fair share
    six = figure(curves, {**config, "game": {"num_players": 6}}, final, "test")  # (said "vs 3" at any count)
    labels = [t.get_text() for t in six.axes[0].get_legend().get_texts()]
    assert "vs 5 notepad, final: 30.0% of 400" in labels and "fair share 1/6 (vs 5 notepad)" in labels
    assert len(wins.containers) == 3  # two evaluation curves and the final point, each with error bars
    assert wins.get_xlabel() == "agent-steps (thousands)"
    assert not can_win(config["eval_opponents"][0]) and can_win(config["eval_opponents"][1])
    # the pool's changes are marked where they happen, and named on the return's panel
    assert curriculum_events(config) == [(500.0, "notepad players join the pool"),
                                         (1500.0, "random players leave the pool")]  # fmt: skip
    marks = [line.get_xdata()[0] for line in fig.axes[1].lines[1:]]
    assert marks == [0.5, 1.5]  # thousands
    assert [t.get_text() for t in fig.axes[1].texts] == [
        "notepad players join the pool (0.5k)", "random players leave the pool (1.5k)"]  # fmt: skip
    # the first snapshot joins after the first update that is a multiple of snapshot_every from
    # snapshot_start on (20 updates of 100 agent-steps: update 12, not 10)
    snapshots = {"snapshot_every": 3, "snapshot_start": 0.5, "num_envs": 10, "num_steps": 10}
    assert curriculum_events({**config, **snapshots})[1] == (1200.0, "snapshots of the learner join")
    assert curriculum_events({**config, **snapshots, "snapshot_every": 25}) == curriculum_events(config)


def test_learning_plots_say_their_loads_and_draw_two_evaluations_as_points(tmp_path):
    import json

    from experiments import plot_rllib, plot_sb3

    def point(steps, rate):
        return {"agent_steps": steps, "wins": int(100 * rate), "games": 100, "win_rate": rate,
                "low": rate - 0.1, "high": rate + 0.1}  # fmt: skip

    many, two = (
        [point(s, 0.1 * k) for k, s in enumerate((1e5, 2e5, 3e5), 1)],
        [point(1e5, 0.5), point(4e5, 0.6)],
    )
    speed = {name: {"agent_steps": [1e5, 2e5], "agent_steps_per_second": [900.0, 1000.0]}
             for name in (plot_rllib.RLLIB, plot_rllib.PPO)}  # fmt: skip
    rates = {plot_rllib.RLLIB: {"notepad": many}, plot_rllib.PPO: {"notepad": two}}
    fig = plot_rllib.figure(speed, rates, ["notepad"], {plot_rllib.RLLIB: "load average 5 to 21"})
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == [
        f"{plot_rllib.RLLIB}\nload average 5 to 21",
        f"{plot_rllib.PPO}\n{plot_rllib.NOT_RECORDED}",
    ]
    joined = {c.get_label(): c.lines[0].get_linestyle() for c in fig.axes[1].containers}
    assert joined == {plot_rllib.RLLIB: "-", plot_rllib.PPO: "None"}

    # redrawn from its own points file, the loads given once are kept
    points = tmp_path / "points.json"
    points.write_text(
        json.dumps({"throughput": speed, "win_rates": rates, "loads": {plot_rllib.PPO: "load 4"}})
    )
    plot_rllib.main(
        ["--points", str(points), "--png", str(tmp_path / "r.png"), "--json", str(tmp_path / "again.json")]
    )
    assert json.loads((tmp_path / "again.json").read_text())["loads"] == {plot_rllib.PPO: "load 4"}
    assert (tmp_path / "r.png").stat().st_size > 10_000
    with pytest.raises(SystemExit):
        plot_rllib.main(["--points", str(points)])  # no --png: it would have nowhere to go

    fig = plot_sb3.figure({"three": many, "two": two}, "t")
    assert {c.get_label(): c.lines[0].get_linestyle() for c in fig.axes[0].containers} == {
        "three": "-",
        "two": "None",
    }
    (tmp_path / "sb3.json").write_text(json.dumps({"three": many, "two": two}))
    plot_sb3.main(["--earlier", str(tmp_path / "sb3.json"), "--png", str(tmp_path / "s.png")])
    assert (tmp_path / "s.png").stat().st_size > 10_000


def test_the_heading_says_every_seat_rotation_only_where_every_deal_had_them():
    """Web games (one seat each) were said to be played "under every seat rotation"."""
    from experiments.common.report_tables import players_heading

    rotated = [game(("A", "B"), 0, deal=0) | {"rotation": r} for r in (0, 1)]
    heading = players_heading(summarise(rotated), 2)
    assert "every seat rotation" in heading and "not every" not in heading
    once = [game(("A", "B"), 0, deal=d) for d in range(2)]
    assert "not every deal under every seat rotation" in players_heading(summarise(once), 2)


def test_the_method_says_how_games_without_a_winner_count_in_a_win_share(tmp_path):
    """With 2 of 6 games without a winner the seats won 1/6 on average; the report said only "the fair
    share is 1/N"."""
    records = [game(("A", "B", "C", "D"), w, deal=d) for d, w in enumerate([0, 1, None, 2, None, 0])]
    write_report(records, tmp_path, plots=False)
    method = (tmp_path / "report.md").read_text().partition("## Method")[2]
    assert (
        "a game without a winner (stopped at max_turns, or every player eliminated) counts as a loss for every "
        "seat, and 2 of the 6 games at 4 players (33.3%) had none. The fair share 1/N (the leaderboard's fair "
        "column; dashed in the plots) is of all games; the seats' shares average the even share of the decided "
        "games, (1 - 33.3%)/4 = 16.7% at 4 players (dotted in the plots)."
    ) in method
    decided = [game(("A", "B", "C", "D"), w, deal=d) for d, w in enumerate([0, 1, 3, 2])]
    write_report(decided, tmp_path / "decided", plots=False)
    method = (tmp_path / "decided/report.md").read_text().partition("## Method")[2]
    assert "twice); the fair share is 1/N. Intervals are 95%" in method and "without a winner" not in method


def test_the_report_says_where_the_line_ups_did_not_all_play_the_same_deals(tmp_path):
    """A run stopped partway (or resumed for more games and stopped again) had played A+C's deals 0 to 3
    and B+C's 0 and 1; its report said "4 deals per line-up", "4 deals, every seat rotation" and "Every
    line-up plays the same deals under every seat rotation"."""

    def played(lineups: dict) -> list[dict]:
        return [
            game(seats, 0, deal=d) | {"rotation": r}
            for seats, deals in lineups.items()
            for d in range(deals)
            for r in (0, 1)
        ]

    meta = {"config_hash": "abc", "deals_per_lineup": 4}  # what the run's earlier, finished session said
    write_report(played({("A", "C"): 4, ("B", "C"): 2}), tmp_path / "stopped", meta=meta, plots=False)
    report = (tmp_path / "stopped/report.md").read_text()
    assert "- ? deals per line-up, each under every seat rotation" in report
    assert (
        "2 players: 12 games (2 line-ups, 4 deals, not the same for every line-up: 2 to 4 deals per line-up, "
        "2 played by every line-up; every seat rotation); "
    ) in report
    assert (
        "Not every line-up played the same deals (at 2 players: 2 to 4 deals per line-up, 2 played by every "
        "line-up); each line-up played each of its deals under every seat rotation; intervals treat"
    ) in report
    assert "Every line-up plays the same deals" not in report
    stats = json.loads((tmp_path / "stopped/stats.json").read_text())
    assert stats["by_players"]["2"]["same_deals"] is False
    assert stats["by_players"]["2"]["shared_deals"] == 2 and stats["by_players"]["2"]["lineup_deals"] == [
        2,
        4,
    ]

    write_report(played({("A", "C"): 4, ("B", "C"): 4}), tmp_path / "finished", meta=meta, plots=False)
    report = (tmp_path / "finished/report.md").read_text()
    assert "- 4 deals per line-up, each under every seat rotation" in report
    assert "2 players: 16 games (2 line-ups, 4 deals, every seat rotation); " in report
    assert "Every line-up plays the same deals under every seat rotation; intervals treat" in report

    web = [game(("A", "C"), 0, deal=d) for d in range(3)] + [game(("B", "C"), 0, deal=d) for d in (3, 4)]
    write_report(web, tmp_path / "web", plots=False)  # games of one seat each, every one on its own deal
    report = (tmp_path / "web/report.md").read_text()
    assert (
        "(2 line-ups, 5 deals, not the same for every line-up: 2 to 3 deals per line-up, 0 played by"
        in report
    )
    assert (
        "Not every line-up played the same deals (at 2 players: 2 to 3 deals per line-up, 0 played by every "
        "line-up), and not every deal was played under every seat rotation (a run stopped partway, or games "
        "of one seat such as the web page's); intervals treat"
    ) in report

    one_rotation_short = played({("A", "C"): 4, ("B", "C"): 4})[:-1]  # a run stopped before its last game
    write_report(one_rotation_short, tmp_path / "short", meta=meta, plots=False)
    report = (tmp_path / "short/report.md").read_text()
    assert "- 4 deals per line-up, not each under every seat rotation" in report
    assert "each under every seat rotation; run seed" not in report.replace("not each under", "")


def read_csv(path) -> list[dict]:
    import csv

    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def test_seats_csv_is_one_table_and_the_seat_advantage_is_its_own(tmp_path):
    """The seat advantage's rows were appended to ``seats.csv`` under the agent ``*``: a sum of its wins
    counted every win twice, and an entrant labelled ``*`` that won nothing showed the seats' wins."""
    winners = [0, 1, 1, 2, 1, None]  # "*" (seat 0) wins once; A (seat 1) three times; B once; one draw
    records = [game(("*", "A", "B"), w, deal=d) for d, w in enumerate(winners)]
    records += [game(("B", "A", "*"), 0, deal=d) for d in range(6, 8)]  # B wins twice from seat 0
    write_report(records, tmp_path, plots=False)
    seats = read_csv(tmp_path / "seats.csv")
    assert list(seats[0]) == ["players", "agent", "seat", "games", "wins", "win_share", "win_low", "win_high"]
    assert sum(int(s["wins"]) for s in seats) == 7  # each decided game once
    assert {(s["agent"], s["seat"]): int(s["wins"]) for s in seats if s["agent"] == "*"} == {
        ("*", "0"): 1,
        ("*", "2"): 0,
    }
    advantage = read_csv(tmp_path / "seat_advantage.csv")
    assert list(advantage[0]) == ["players", "seat", "games", "wins", "win_share", "win_low", "win_high"]
    assert [(a["players"], a["seat"], a["games"], a["wins"]) for a in advantage] == [
        ("3", "0", "8", "3"),
        ("3", "1", "8", "3"),
        ("3", "2", "8", "1"),
    ]


def test_the_leaderboard_counts_accusations_per_seat_played(tmp_path):
    """An agent seated twice in a game counts both seats: the column said per game (``accusations_per_game``)
    for what is per seat."""
    twice = game(("A", "A", "B"), 2, deal=0) | {"accusations": [1, 0, 1]}
    once = game(("A", "B", "B"), 0, deal=1) | {"accusations": [1, 0, 0]}
    write_report([twice, once], tmp_path, plots=False)
    rows = {row["agent"]: row for row in read_csv(tmp_path / "leaderboard.csv")}
    assert "accusations_per_game" not in rows["A"]
    assert float(rows["A"]["accusations_per_seat"]) == pytest.approx(2 / 3)  # 2 accusations, 3 seats, 2 games
    assert float(rows["B"]["accusations_per_seat"]) == pytest.approx(1 / 3)
