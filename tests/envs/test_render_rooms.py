"""The text picture of a custom edition of more than 9 rooms (``board="none"``, as docs/RULES.md allows):
the rooms past the classic board's 9 letters are listed by their number."""

from __future__ import annotations

from cluedo_env import cluedo_v0, core
from cluedo_env.core.editions import Edition
from cluedo_env.render import render_ansi, room_label

ELEVEN_ROOMS = Edition(
    "eleven", ("Ann", "Bob", "Cy"), ("Axe", "Bat"), tuple(f"Room {k}" for k in range(11)), (0, 9)
)


def test_rooms_past_the_ninth_are_listed_by_their_number():
    config = core.GameConfig(edition=ELEVEN_ROOMS, num_players=3, board="none")
    text = render_ansi(core.init(config, [0]))
    assert "  Room 0 (K): pawns -; weapons Axe" in text
    assert "  Room 8 (S): pawns -; weapons -" in text
    assert "  Room 9 (10): pawns -; weapons Bat" in text
    assert "  Room 10 (11): pawns -; weapons -" in text
    assert [room_label(r) for r in range(11)] == [*"KBCDRLOHS", "10", "11"]


def test_the_env_renders_such_an_edition():
    env = cluedo_v0.env(edition=ELEVEN_ROOMS, num_players=3, board="none", render_mode="ansi")
    env.reset(seed=0)
    assert "Room 10 (11)" in env.render()
