"""The report's plots: distinct agent colours within a report, the same in each of its figures, and
legends clear of the bars."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from experiments.common.report import write_report
from experiments.common.report_plots import AGENT_COLOURS, OTHER_COLOURS, agent_colour, agent_colours

# lineup=belief_ablations's labels: belief_screen_only and belief_no_risk ask for one colour (agent_colour).
LABELS = ("belief_screen_only", "belief_no_info", "belief_no_risk", "sat")


def game(seats, winner_seat, deal, rotation):
    return {
        "config": "test", "lineup": "+".join(LABELS), "deal": deal, "seed": deal, "rotation": rotation,
        "players": len(seats), "seats": list(seats), "turns": 20 + deal, "truncated": False, "decisions": 0,
        "winner": seats[winner_seat], "winner_seat": winner_seat,
        "accusations": [0] * len(seats), "wrong_accusations": [0] * len(seats),
    }  # fmt: skip


def drawn_figures(tmp_path, monkeypatch, records) -> dict[str, Figure]:
    """The figures ``write_report`` saves, by file name, kept for a look at what they drew."""
    figures, save = {}, Figure.savefig

    def keep(fig, path, **options):
        save(fig, path, **options)
        figures[Path(path).stem] = fig

    monkeypatch.setattr(Figure, "savefig", keep)
    write_report(records, tmp_path, plots=True)
    return figures


def ablation_games() -> list[dict]:
    """The four agents at one table under every rotation, belief_no_risk winning every game: its bars
    reach 1.0 in every seat, where the seat panel's legend was."""
    records = []
    for deal in range(6):
        for rotation in range(4):
            seats = [LABELS[(seat - rotation) % 4] for seat in range(4)]
            records.append(game(seats, seats.index("belief_no_risk"), deal, rotation))
    return records


def test_each_agent_of_a_report_has_its_own_colour_in_every_figure(tmp_path, monkeypatch):
    figures = drawn_figures(tmp_path, monkeypatch, ablation_games())
    seat_panel = figures["win_share"].axes[1]
    bars = [c for c in seat_panel.containers if isinstance(c, BarContainer)]
    by_seat = {agent.get_label(): to_rgb(agent.patches[0].get_facecolor()) for agent in bars}
    assert sorted(by_seat) == sorted(LABELS)
    assert len(set(by_seat.values())) == len(LABELS), by_seat  # one colour per agent, told apart by it
    for ax in figures["turns_to_win"].axes:  # another figure: each agent's histogram in its colour
        label = ax.get_title(loc="left").split(",")[0]
        bins = [p for c in ax.containers if isinstance(c, BarContainer) for p in c.patches]
        assert {to_rgb(p.get_facecolor()) for p in bins} == {by_seat[label]}, label


def shared_games() -> list[dict]:
    """The four agents under every rotation, each winning some games, one game in eight without a
    winner: both reference lines are drawn (two lines of legend), the last agent's bar well off 0."""
    records = []
    for deal in range(8):
        for rotation in range(4):
            seats = [LABELS[(seat - rotation) % 4] for seat in range(4)]
            records.append(game(seats, seats.index(LABELS[(deal + rotation) % 4]), deal, rotation))
            if rotation == 3 and deal % 2 == 0:
                records[-1] |= {"winner": None, "winner_seat": None, "truncated": True}
    return records


@pytest.mark.parametrize("games", [ablation_games, shared_games])
def test_legends_leave_the_bars_and_their_intervals_uncovered(tmp_path, monkeypatch, games):
    figures = drawn_figures(tmp_path, monkeypatch, games())
    fig = figures["win_share"]
    fig.canvas.draw()
    covered = []
    for number, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent()
        for bar in ax.patches:
            extent = bar.get_window_extent()
            if extent.width > 0 and extent.height > 0 and extent.overlaps(box):
                covered.append(f"axes {number}: a bar at {bar.get_x():.2f}, {bar.get_y():.2f}")
        for lines in ax.collections:  # the intervals' lines: their ends
            for segment in lines.get_segments():
                ends = ax.transData.transform(np.asarray(segment))
                if any(box.contains(x, y) for x, y in ends):
                    covered.append(f"axes {number}: an interval ending at {segment.tolist()}")
    assert covered == []


def test_agent_colours_are_distinct_and_each_label_keeps_the_colour_it_asks_for_where_it_can():
    colours = agent_colours(LABELS)
    assert agent_colour("belief_screen_only") == agent_colour("belief_no_risk")  # the clash
    assert len(set(colours.values())) == len(LABELS)
    assert colours["sat"] == AGENT_COLOURS["sat"]
    assert colours["belief_no_risk"] == agent_colour("belief_no_risk")  # sorts first: its own
    assert colours["belief_screen_only"] in OTHER_COLOURS
    assert agent_colours(LABELS[::-1]) == colours  # not the order the labels come in
    assert agent_colours(["belief_screen_only", "sat"])["belief_screen_only"] == agent_colour(
        "belief_screen_only"
    )
    many = agent_colours([f"agent_{n}" for n in range(40)] + list(AGENT_COLOURS))
    assert len(set(many.values())) == 44


def test_the_reference_lines_say_a_game_without_a_winner_is_a_loss_for_every_seat(tmp_path, monkeypatch):
    """With a third of the games without a winner the seats won 16.7% on average, and the only line was
    "fair share 1/4"."""
    records = [game(LABELS, deal % 4, deal, 0) for deal in range(12)]
    for record in records[::3]:  # 4 of the 12 games: no winner
        record |= {"winner": None, "winner_seat": None, "truncated": True}
    figures = drawn_figures(tmp_path, monkeypatch, records)
    for ax in figures["win_share"].axes:
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert lines["fair share 1/4 of all games"].get_linestyle() == "--"
        even = lines["even share of the decided games, (1 - 33.3%)/4 = 16.7%"]
        assert even.get_linestyle() == ":" and pytest.approx(1 / 6) in (*even.get_xdata(), *even.get_ydata())
    assert "dotted: 1/N of its decided games" in figures["lineups"].axes[0].get_xlabel()
    decided = drawn_figures(tmp_path / "decided", monkeypatch, ablation_games())["win_share"]
    assert [line.get_label() for line in decided.axes[0].get_lines() if line.get_label()[0] != "_"] == [
        "fair share 1/4"
    ]


def test_the_turns_to_win_histograms_count_whole_games(tmp_path, monkeypatch):
    """A count axis of one or two wins was marked 0.5 and 1.5 games."""
    records = [game(LABELS, deal % 4, deal, 0) for deal in range(8)]  # each agent: 2 wins, bins of 1
    for ax in drawn_figures(tmp_path, monkeypatch, records)["turns_to_win"].axes:
        ticks = ax.get_yticks()
        assert len(ticks) >= 2 and all(tick == round(tick) for tick in ticks), ticks
