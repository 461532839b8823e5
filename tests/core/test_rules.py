"""Scripted games, one per rule of docs/RULES.md, with the deal written in the test."""

from __future__ import annotations

import dataclasses
import gc
import os
import re
import signal
import sys
import threading
import time
import weakref

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.config import CONFIGS_KEPT
from cluedo_env.core.rng import draw_die, game_key
from cluedo_env.core.state import Phase
from tests.conftest import ROOT
from tests.scripted import (
    CLASSIC,
    ENVELOPE,
    HANDS,
    act,
    events,
    kinds,
    legal,
    legal_kinds,
    room,
    square,
    written_game,
)


def rigged_roll(state: core.State, total: int) -> None:
    """Move the game's dice counter to a place where the next roll totals ``total``."""
    key = state._key[:1]
    for counter in range(1024, 200_000, 2):
        dice = draw_die(key, np.array([counter, counter + 1]))
        if int(dice.sum()) == total:
            state._draws[0] = counter
            return
    raise AssertionError(f"no roll of {total} found")


def game(**changes) -> core.State:
    return written_game(CLASSIC.replace(**changes), ENVELOPE, HANDS)


# --- set-up -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_puts_every_card_in_one_place(players):
    config = core.GameConfig(num_players=players)
    state = core.init(config, np.arange(200))
    owner = state._owner
    e = config.cards
    for category in (range(6), range(6, 12), range(12, 21)):
        assert ((owner[:, list(category)] == core.ENVELOPE).sum(axis=1) == 1).all()
    sizes = np.stack([(owner == p).sum(axis=1) for p in range(players)], axis=1)
    assert (sizes.sum(axis=1) == e.num_cards - 3).all()
    assert (sizes.max(axis=1) - sizes.min(axis=1) <= 1).all()
    assert np.array_equal(
        state._envelope, np.sort(np.argwhere(owner == core.ENVELOPE)[:, 1].reshape(-1, 3), axis=1)
    )


def test_deal_events_tell_each_player_only_their_hand():
    state = core.init(CLASSIC, [7])
    deals = [event for event in events(state) if event.kind == ev.DEAL]
    assert len(deals) == 18
    for player in range(4):
        view = ev.read_events(core.private_view(state.events[0], player))
        seen = {e.card for e in view if e.kind == ev.DEAL and e.card >= 0}
        assert seen == set(np.flatnonzero(state._owner[0] == player).tolist())
    assert kinds(state)[-2:] == ["START", "TURN"]


def test_all_pawns_and_weapons_start_in_place():
    state = core.init(CLASSIC, [0])
    assert [core.classic_board().squares[loc - 9] for loc in state.location[0]] == [
        (24, 7), (17, 0), (0, 9), (0, 14), (6, 23), (19, 23),
    ]  # fmt: skip
    rooms = CLASSIC.cards.rooms
    assert [rooms[r] for r in state.weapon_room[0]] == [
        "Dining Room", "Lounge", "Conservatory", "Study", "Ballroom", "Kitchen",
    ]  # fmt: skip


def test_start_player_switch():
    seeds = np.arange(600)
    assert (core.init(CLASSIC, seeds).turn_player == 0).all()
    for rule in ("dice", "random"):
        first = core.init(CLASSIC.replace(start_player=rule), seeds).turn_player
        counts = np.bincount(first, minlength=4)
        assert counts.min() > 100, (rule, counts)  # every player starts sometimes, about evenly


# --- movement ---------------------------------------------------------------------


def test_roll_then_enter_a_reachable_room_ends_the_move():
    state = game()
    state.location[0, 0] = square(7, 4)  # on the Kitchen's door square
    rigged_roll(state, 6)
    assert legal_kinds(state) == {"roll", "accuse"}
    act(state, "roll")
    assert state.phase[0] == Phase.MOVE
    assert "enter Kitchen" in legal(state)
    assert kinds_after(state, "enter", room(CLASSIC, "Kitchen")) == ["MOVE"]
    assert state.location[0, 0] == room(CLASSIC, "Kitchen")
    assert state.phase[0] == Phase.SUGGEST  # the move ended in the room: suggest next


def kinds_after(state, kind, *args):
    act(state, kind, *args)
    return kinds(state)


def test_pawns_block_squares_and_doors():
    state = game()
    state.location[0, 0] = square(8, 4)  # two steps below the Kitchen door square (7,4)
    state.location[0, 1] = square(7, 4)  # Mustard stands on the door square
    rigged_roll(state, 3)
    act(state, "roll")
    assert "enter Kitchen" not in legal(state)
    rows = np.flatnonzero(state.reachable[0])
    reached = {core.classic_board().squares[k] for k in rows}
    assert (7, 4) not in reached and (8, 5) in reached


def test_leave_a_room_by_any_door_and_never_back_in():
    state = game(movement="squares")
    state.location[0, 0] = room(CLASSIC, "Ballroom")
    rigged_roll(state, 2)
    act(state, "roll")
    reached = {core.classic_board().squares[k] for k in np.flatnonzero(state.reachable[0])}
    for door in [(5, 7), (8, 9), (8, 14), (5, 16)]:
        assert door in reached  # one step onto each of the four doors
    assert "enter Ballroom" not in legal(state)


def test_secret_passage_replaces_the_roll():
    state = game()
    state.location[0, 0] = room(CLASSIC, "Kitchen")
    assert {"passage", "roll", "stay"} <= legal_kinds(state)
    act(state, "passage")
    assert state.location[0, 0] == room(CLASSIC, "Study")
    assert events(state)[0].how == ev.MOVE_PASSAGE
    assert state.phase[0] == Phase.SUGGEST
    state2 = game()
    state2.location[0, 0] = room(CLASSIC, "Hall")
    assert "passage" not in legal_kinds(state2)


def test_stay_in_room_switch():
    state = game()
    state.location[0, 0] = room(CLASSIC, "Hall")
    assert "stay" in legal_kinds(state)
    strict = game(stay_in_room=False)
    strict.location[0, 0] = room(CLASSIC, "Hall")
    assert "stay" not in legal_kinds(strict)


def test_moved_by_a_suggestion_may_suggest_there_without_moving():
    state = game(stay_in_room=False)
    state.location[0, 0] = room(CLASSIC, "Kitchen")
    act(state, "passage")  # Scarlet: Kitchen -> Study
    act(state, "suggest", "Colonel Mustard", "Rope")  # Mustard's pawn is summoned to the Study
    assert state.location[0, 1] == room(CLASSIC, "Study") and state.summoned[0, 1]
    assert legal(state) == {"show Colonel Mustard"}  # P1 is asked first and holds Mustard only
    act(state, "show", "Colonel Mustard")
    act(state, "end_turn")
    assert state.turn_player[0] == 1
    assert "stay" in legal_kinds(state)  # may suggest in the Study without moving
    act(state, "stay")
    assert state.phase[0] == Phase.SUGGEST


def test_reachable_squares_equal_brute_force_paths():
    """The flood fill equals an enumeration of simple paths of up to ``roll`` steps."""
    from cluedo_env.core.movement import MoveTables, flood_fill, reachable

    board = core.classic_board()
    tables = MoveTables(board)
    rng = np.random.default_rng(3)
    for trial in range(300):
        pawns = 9 + rng.choice(board.num_squares, size=6, replace=False)
        if trial % 3 == 1:  # the others in rooms: nothing in the way
            pawns[1:] = rng.integers(9, size=5)
        elif trial % 3 == 2:  # one other on a square (the table of one-pawn moves, when near)
            pawns[2:] = rng.integers(9, size=4)
        if rng.random() < 0.4:
            pawns[0] = rng.integers(9)
        roll = int(rng.integers(1, 13))
        blocked = {int(p) - 9 for p in pawns[1:] if p >= 9}
        want_squares, want_rooms = _paths(board, int(pawns[0]), roll, blocked)
        for method in (reachable, flood_fill):  # the table shortcut and the fill agree with brute force
            squares, rooms = method(tables, pawns[:1], np.array([roll]), pawns[None, :])
            assert set(np.flatnonzero(squares[0])) == want_squares
            assert set(np.flatnonzero(rooms[0])) == want_rooms


def test_pawn_free_tables_equal_the_flood_fill():
    """Every move with the other pawns out of the way (in rooms) from every location: the distance
    tables ``reach`` reads equal the flood fill."""
    from cluedo_env.core.movement import MAX_ROLL, MoveTables, flood_fill, reachable

    board = core.classic_board()
    tables = MoveTables(board)
    R, N = board.num_rooms, board.num_squares
    start = np.repeat(np.arange(R + N), MAX_ROLL)
    rolls = np.tile(np.arange(1, MAX_ROLL + 1), R + N)
    pawns = np.zeros((len(start), 6), dtype=np.int64)  # the five others in the Kitchen
    pawns[:, 0] = start
    for got, want in zip(reachable(tables, start, rolls, pawns), flood_fill(tables, start, rolls, pawns)):
        np.testing.assert_array_equal(got, want)


def _paths(board, start, roll, blocked):
    squares, rooms = set(), set()
    door_of = {}
    for r, doors in enumerate(board.doors):
        for d in doors:
            door_of.setdefault(d, []).append(r)

    def walk(at, used, visited):
        for r in door_of.get(at, []):
            if used < roll and r != start:
                rooms.add(r)
        if used == roll:
            return
        for nxt in board.neighbours[at]:
            if nxt not in visited and nxt not in blocked:
                squares.add(nxt)
                walk(nxt, used + 1, visited | {nxt})

    if start < 9:
        for d in board.doors[start]:
            if d not in blocked:
                squares.add(d)
                walk(d, 1, {d})
    else:
        walk(start - 9, 0, {start - 9})
    return squares, rooms


# --- suggestions and refutation ---------------------------------------------------


def in_room(state, name):
    state.location[0, state.turn_player[0]] = room(state.config, name)
    act(state, "stay")


def test_suggestion_moves_the_suspect_and_weapon_into_the_room():
    state = game()
    in_room(state, "Hall")
    act(state, "suggest", "Professor Plum", "Dagger")
    hall = room(CLASSIC, "Hall")
    assert state.location[0, 5] == hall and state.weapon_room[0, 1] == hall
    assert kinds(state)[:3] == ["SUGGEST", "MOVE", "WEAPON"]


def test_first_player_clockwise_holding_a_card_refutes_and_chooses():
    state = game()
    in_room(state, "Lounge")  # P2 holds Lounge and Professor Plum
    act(state, "suggest", "Professor Plum", "Rope")
    assert kinds(state)[-1] == "PASS"  # P1 holds none of Plum, Rope, Lounge
    assert state.phase[0] == Phase.REFUTE and state.current_player[0] == 2
    assert legal(state) == {"show Professor Plum", "show Lounge"}  # the refuter chooses
    act(state, "show", "Lounge")
    assert events(state) == [(ev.SHOW, 2, 0, -1, -1, -1, CLASSIC.cards.card_id("Lounge"))]
    assert state.current_player[0] == 0 and state.phase[0] == Phase.ACCUSE
    # The shown card is private to suggester and refuter.
    assert core.private_view(state.events[0, :1], 1)[0, ev.CARD] == -1
    assert core.private_view(state.events[0, :1], 0)[0, ev.CARD] == CLASSIC.cards.card_id("Lounge")


def test_seed_004_nobody_refutes_and_the_suggesters_own_cards_do_not_count():
    # P0 holds the Rope and the Kitchen, suggests Mustard with the Rope in the Kitchen.
    state = written_game(CLASSIC, ("Colonel Mustard", "Lead Pipe", "Ballroom"), [
        ["Rope", "Kitchen", "Miss Scarlet", "Candlestick"],
        ["Mrs Peacock", "Dagger", "Conservatory", "Dining Room"],
        ["Mrs White", "Library", "Billiard Room", "Lounge", "Professor Plum"],
        ["Reverend Green", "Revolver", "Wrench", "Hall", "Study"],
    ])  # fmt: skip
    in_room(state, "Kitchen")
    act(state, "suggest", "Colonel Mustard", "Rope")
    assert kinds(state)[-4:] == ["PASS", "PASS", "PASS", "NO_REFUTE"]
    assert [event.player for event in events(state)[-4:-1]] == [1, 2, 3]  # asked clockwise from P1
    assert state.phase[0] == Phase.ACCUSE


def test_eliminated_players_still_refute():
    state = game()
    state.eliminated[0, 1] = True
    in_room(state, "Dining Room")  # P1 holds Dining Room
    act(state, "suggest", "Mrs Peacock", "Rope")
    assert state.phase[0] == Phase.REFUTE and state.current_player[0] == 1


def test_auto_refute_with_a_single_card():
    state = game(auto_refute=True)
    in_room(state, "Dining Room")
    act(state, "suggest", "Mrs Peacock", "Rope")
    assert kinds(state)[-1] == "SHOW" and state.phase[0] == Phase.ACCUSE


def test_no_suggestion_outside_a_room():
    state = game()
    state.location[0, 0] = square(16, 9)
    rigged_roll(state, 2)
    act(state, "roll")
    options = legal_kinds(state)
    assert "toward" in options and "suggest" not in options


# --- accusations and the end -------------------------------------------------------


def test_right_accusation_wins_and_ends_the_game():
    state = game()
    act(state, "accuse", *ENVELOPE)
    assert state.terminated[0] and state.winner[0] == 0
    assert state.rewards[0].tolist() == [1.0, -1.0, -1.0, -1.0]
    assert kinds(state) == ["ACCUSE", "GAME_OVER"]
    assert not core.legal_action_mask(state)[0].any() and state.current_player[0] == -1


def test_wrong_accusation_puts_the_player_out_but_not_out_of_refuting():
    state = game()
    act(state, "accuse", "Mrs Peacock", "Rope", "Kitchen")
    assert state.eliminated[0, 0] and not state.terminated[0]
    assert state.turn_player[0] == 1 and kinds(state) == ["ACCUSE", "TURN"]
    # P1 suggests in the Kitchen: P2 and P3 pass, P0 (out) must still show the Kitchen.
    in_room(state, "Kitchen")
    act(state, "suggest", "Mrs Peacock", "Rope")
    assert kinds(state)[-2:] == ["PASS", "PASS"]
    assert state.phase[0] == Phase.REFUTE and state.current_player[0] == 0
    assert legal(state) == {"show Kitchen"}


def test_every_player_wrong_ends_with_no_winner():
    state = game()
    for _ in range(4):
        act(state, "accuse", "Miss Scarlet", "Rope", "Library")
    assert state.terminated[0] and state.winner[0] == -1
    assert state.rewards[0].tolist() == [-1.0] * 4
    assert events(state)[-1].name == "GAME_OVER" and events(state)[-1].reason == ev.END_ALL_WRONG


def test_eliminated_players_are_skipped_in_turn_order():
    state = game()
    act(state, "accuse", "Miss Scarlet", "Rope", "Library")  # P0 out
    act(state, "accuse", "Miss Scarlet", "Rope", "Library")  # P1 out
    assert state.turn_player[0] == 2
    for expected in (3, 2, 3):
        state.phase[0] = Phase.ACCUSE
        act(state, "end_turn")
        assert state.turn_player[0] == expected


def test_accuse_anywhere_switch():
    state = game(accuse_anywhere=False)
    assert "accuse" not in legal_kinds(state)  # on the start square
    state.location[0, 0] = room(CLASSIC, "Hall")
    assert "accuse" in legal_kinds(state)


def test_truncation_at_max_turns():
    state = game(max_turns=2)
    state.phase[0] = Phase.ACCUSE
    act(state, "end_turn")
    state.phase[0] = Phase.ACCUSE
    act(state, "end_turn")
    assert state.truncated[0] and not state.terminated[0]
    assert state.rewards[0].tolist() == [0.0] * 4
    assert events(state)[-1].reason == ev.END_TRUNCATED


# --- variants ---------------------------------------------------------------------


def test_board_none_picks_any_room():
    state = game(board="none")
    assert legal_kinds(state) == {"enter", "accuse"}
    act(state, "enter", room(CLASSIC, "Study"))
    assert state.location[0, 0] == room(CLASSIC, "Study") and state.phase[0] == Phase.SUGGEST


def duel_game(batch: int = 1, board: str = "classic") -> core.State:
    """A written duel deal (the corner rooms' own cards face down), ``batch`` copies of it."""
    config = core.GameConfig(num_players=2, duel=True, start_player="scarlet", board=board)
    one = written_game(
        config,
        ENVELOPE,
        [
            [
                "Miss Scarlet",
                "Candlestick",
                "Ballroom",
                "Colonel Mustard",
                "Dagger",
                "Dining Room",
                "Mrs White",
            ],
            ["Lead Pipe", "Billiard Room", "Professor Plum", "Reverend Green", "Revolver", "Hall", "Wrench"],
        ],
        face_down={
            "Kitchen": "Kitchen",
            "Conservatory": "Conservatory",
            "Lounge": "Lounge",
            "Study": "Study",
        },
    )
    return one if batch == 1 else one.take([0] * batch)


def test_duel_face_down_cards_are_looked_at_on_entering():
    state = duel_game()
    config = state.config
    state.location[0, 0] = room(config, "Kitchen")
    act(state, "passage")
    assert kinds(state) == ["MOVE", "PEEK"]
    peek = events(state)[1]
    assert peek.card == config.cards.card_id("Study")
    assert core.private_view(state.events[0, 1:2], 1)[0, ev.CARD] == -1  # the other player does not see it


def test_duel_without_a_board_picking_the_room_the_pawn_is_in_is_staying_with_no_new_look():
    """docs/RULES.md: "Staying in a room is not entering it"; with board="none" the room the pawn is
    in, picked again, is stayed in (its card was seen on entering)."""
    state = duel_game(board="none")
    config = state.config
    kitchen = room(config, "Kitchen")
    act(state, "enter", kitchen)
    assert kinds(state) == ["MOVE", "PEEK"]
    for pick in (room(config, "Hall"), kitchen):  # Mustard's turn, then Scarlet's again
        act(state, "no_suggestion")
        act(state, "end_turn")
        act(state, "enter", pick)
    assert state.turn_player[0] == 0 and state.location[0, 0] == kitchen
    assert kinds(state) == ["MOVE"]  # Scarlet picks the Kitchen she is in: no second look
    assert state.phase[0] == Phase.SUGGEST  # she may suggest there, as after staying


@pytest.mark.parametrize("batch", [1, 40], ids=["one_game", "batched"])
def test_duel_a_pawn_summoned_into_a_corner_room_looks_at_its_card(batch):
    """Seed 002: "a player entering a room with a card looks at it", whoever brought the pawn in."""
    state = duel_game(batch)
    config = state.config
    study = config.cards.card_id("Study")
    state.location[:, 0] = room(config, "Kitchen")
    act(state, "passage")  # Scarlet (player 0) takes the passage to the Study and looks at its card
    act(state, "suggest", "Colonel Mustard", "Rope")  # Mustard (player 1) is summoned to the Study
    for game in range(batch):
        assert kinds(state, game)[:3] == ["SUGGEST", "MOVE", "PEEK"]
        peek = events(state, game)[2]
        assert (peek.player, peek.peeked_room, peek.card) == (1, room(config, "Study"), study)
    assert state._peeked[:, 1, study].all()
    assert (
        core.private_view(state.events[0, 2:3], 0)[0, ev.CARD] == -1
    )  # Scarlet does not see what Mustard saw
    unseen = core.observation_pieces(config)[1]
    assert unseen[0] == "unseen"
    seen_by_mustard = core.observe(state, 1)[:, unseen[2] + study]
    assert (seen_by_mustard == 0).all()


def test_duel_needs_two_players_and_two_players_need_the_duel():
    with pytest.raises(ValueError, match="num_players"):
        core.GameConfig(num_players=2)
    with pytest.raises(ValueError, match="num_players"):
        core.GameConfig(num_players=3, duel=True)


@pytest.mark.parametrize("edition", sorted(core.EDITIONS))
def test_editions_play(edition):
    config = core.GameConfig(edition=edition)
    e = config.cards
    assert len(e.suspects) == 6 and len(e.rooms) == 9 and len(e.weapons) in (6, 7)
    state = core.init(config, np.arange(20))
    assert ((state._owner == core.ENVELOPE).sum(axis=1) == 3).all()
    assert core.legal_action_mask(state).shape == (20, core.rules_for(config).A)


# --- presets --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("classic", {}),
        ("fr_1996", dict(edition="classic_fr", dice=2, stay_in_room=True, accuse_anywhere=True)),
        ("de_2023", dict(edition="de_2023", dice=2, stay_in_room=True, accuse_anywhere=False)),
        ("de_2023_duel", dict(edition="de_2023", accuse_anywhere=False, num_players=2, duel=True)),
    ],
)
def test_presets_set_what_their_booklets_decide(name, fields):
    config = core.GameConfig.preset(name)
    assert config == core.GameConfig(**fields)
    assert core.PRESETS[name].source  # every preset names its source
    state = core.init(config, np.arange(20))
    assert core.legal_action_mask(state).any(axis=1).all()


def test_de_2023_accuses_only_from_a_room():
    config = core.GameConfig.preset("de_2023", start_player="scarlet")

    def german(names):  # the same cards (by card id) under their names in the German edition
        return [config.cards.cards[CLASSIC.cards.card_id(name)] for name in names]

    state = written_game(config, tuple(german(ENVELOPE)), [german(hand) for hand in HANDS])
    assert "accuse" not in legal_kinds(state)  # on the start square
    state.location[0, 0] = room(state.config, "Küche")
    assert "accuse" in legal_kinds(state)  # in any room, not only the one accused


def test_preset_changes_and_bad_names():
    assert core.GameConfig.preset("de_2023", num_players=3).num_players == 3
    with pytest.raises(
        ValueError, match=r"preset must be one of \['classic', 'de_2023', 'de_2023_duel', 'fr_1996'\]"
    ):
        core.GameConfig.preset("uk_1949")
    with pytest.raises(ValueError, match=r"unknown GameConfig field\(s\) \['dices'\]"):
        core.GameConfig.preset("de_2023", dices=1)


@pytest.mark.parametrize("name", sorted(core.PRESETS))
def test_hydra_game_configs_of_the_presets(name):
    """``game=<preset>`` in the experiments' Hydra configs is the preset, field for field."""
    from hydra import compose, initialize_config_dir

    configs = ROOT / "configs"
    with initialize_config_dir(config_dir=str(configs), version_base=None):
        game = compose(f"game/{name}").game
    assert core.GameConfig(**game) == core.GameConfig.preset(name)


# --- the rules document --------------------------------------------------------------


def test_rules_document_covers_every_switch_edition_and_preset():
    """docs/RULES.md keeps in step with the code: every field, edition and preset has its row."""
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| `")}
    fields = {f.name for f in dataclasses.fields(core.GameConfig) if f.init}
    assert {f"`{name}`" for name in fields} <= rows
    assert {f"`{name}`" for name in core.EDITIONS} <= rows
    assert {f"`{name}`" for name in core.PRESETS} <= rows
    assert "32,767" in text and f"{core.config.MAX_TURNS:,}" == "32,767"


def test_every_citation_of_the_rules_document_points_at_it():
    """The packages' docstrings, the README and the configs cite docs/RULES.md, which exists."""
    paths = [
        *ROOT.glob("cluedo_env/**/*.py"),
        *ROOT.glob("agents/**/*.py"),
        *ROOT.glob("experiments/**/*.py"),
        *ROOT.glob("configs/**/*.yaml"),
        ROOT / "README.md",
    ]
    cited = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in paths
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"(?<!docs/)RULES\.md", line)
    ]
    assert cited == []
    assert (ROOT / "docs" / "RULES.md").is_file()


# --- config errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("num_players", 7, r"num_players must be one of \[3, 4, 5, 6\].*got 7"),
        ("num_players", 1, r"num_players .* got 1"),
        ("dice", 3, r"dice must be one of \[1, 2\], got 3"),
        ("board", "hex", r"board must be one of \['classic', 'none'\], got 'hex'"),
        ("edition", "klingon", r"edition must be one of .*got 'klingon'"),
        ("start_player", "oldest", r"start_player must be one of .*got 'oldest'"),
        ("movement", "teleport", r"movement must be one of .*got 'teleport'"),
        ("max_turns", 0, r"max_turns must be an integer in \[1, 32767\], got 0"),
        ("max_turns", 32768, r"max_turns must be an integer in \[1, 32767\], got 32768"),
        ("num_players", 4.0, r"num_players must be an integer \(int or numpy integer\), got 4.0"),
        ("dice", "2", r"dice must be an integer .*got .2."),
        ("max_turns", True, r"max_turns must be an integer .*got True"),
        ("stay_in_room", "yes", r"stay_in_room must be True or False, got 'yes'"),
    ],
)
def test_bad_config_names_the_field_and_what_is_accepted(field, value, message):
    with pytest.raises(ValueError, match=message):
        core.GameConfig(**{field: value})


def test_illegal_action_is_refused_with_a_clear_error():
    state = game()
    layout = core.rules_for(CLASSIC).layout
    with pytest.raises(ValueError, match=r"illegal action .*suggest.* phase 'turn'"):
        core.step(state, [layout.encode("suggest", 0, 0)])
    with pytest.raises(ValueError, match=r"action must be in \[0, 405\)"):
        core.step(state, [9999])


@pytest.mark.parametrize(
    ("kind", "args"),
    [("show", (1.5,)), ("accuse", (True, False, 0)), ("suggest", (0, 1.0)), ("enter", ("3",))],
)
def test_encode_refuses_arguments_that_are_not_integers(kind, args):
    """``encode("show", 1.5)`` gave action 60.5 and ``encode("accuse", True, False, 0)`` action 134."""
    layout = core.ActionLayout(CLASSIC)
    with pytest.raises(
        ValueError, match=rf"{kind} takes one integer argument per range of .*got {re.escape(str(args))}"
    ):
        layout.encode(kind, *args)


@pytest.mark.parametrize("action", [True, 80.0, np.float64(80), np.bool_(True), "80"])
def test_decode_refuses_an_action_that_is_not_an_integer(action):
    """``decode(True)`` read it as action 1 (``passage``), ``decode(80.0)`` raised a TypeError."""
    with pytest.raises(
        ValueError, match=rf"action must be an int \(.*\) in \[0, 405\), got {re.escape(repr(action))}"
    ):
        core.ActionLayout(CLASSIC).decode(action)


def test_decode_and_encode_take_one_integer_in_a_zero_d_array_as_the_envs_do():
    """SB3's ``predict()`` gives one observation's action as a 0-d array: ``decode`` refused it."""
    layout = core.ActionLayout(CLASSIC)
    assert layout.decode(np.array(80)) == layout.decode(80)
    assert layout.action_to_string(np.array(80)) == layout.action_to_string(80)
    assert layout.encode("suggest", np.array(2), np.array([3], dtype=np.uint8)) == layout.encode(
        "suggest", 2, 3
    )


def test_encode_and_decode_take_numpy_integers_and_give_python_ints():
    """A uint64 beside an int64 made numpy promote to float64: ``encode`` gave 80.0, which ``step`` refuses."""
    layout = core.ActionLayout(CLASSIC)
    action = layout.encode("accuse", np.int64(0), np.uint64(0), np.int8(0))
    assert type(action) is int and action == layout.encode("accuse", 0, 0, 0) == layout.ACCUSE
    for given in (np.uint64(action + 1), np.int32(action + 1)):
        kind, args = layout.decode(given)
        assert (kind, args) == ("accuse", (0, 0, 1)) and all(type(a) is int for a in args)


def test_integer_like_config_values_are_normalised_once():
    """numpy integers and bools are accepted in every field and stored as Python ints and bools."""
    plain = core.GameConfig(num_players=5, dice=1, max_turns=40, duel=False, stay_in_room=False)
    numpy = core.GameConfig(
        num_players=np.int64(5),
        dice=np.int8(1),
        max_turns=np.uint16(40),
        duel=np.False_,
        stay_in_room=np.False_,
    )
    assert numpy == plain and hash(numpy) == hash(plain)
    for name in ("num_players", "dice", "max_turns", "duel", "stay_in_room"):
        assert type(getattr(numpy, name)) is type(getattr(plain, name))
    assert core.init(numpy, [3]) == core.init(plain, [3])


@pytest.mark.parametrize("batch", [1, 3], ids=["one_game", "batched"])
@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        (lambda n: [0.0] * n, TypeError, r"actions must be integers .*float64"),
        (lambda n: [0.9] * n, TypeError, r"actions must be integers"),
        (lambda n: ["0"] * n, TypeError, r"actions must be integers"),
        (lambda n: [True] * n, TypeError, r"actions must be integers .*bool"),
        (lambda n: np.zeros((n, 1), dtype=np.int64), ValueError, r"actions must have shape \(\d+,\)"),
        (lambda n: [0] * (n + 1), ValueError, r"actions must have shape"),
    ],
)
def test_step_accepts_only_integer_actions_one_per_game(batch, actions, error, message):
    state = game().take([0] * batch)
    before = state.copy()
    with pytest.raises(error, match=message):
        core.step(state, actions(batch))
    assert state == before


def test_step_games_are_game_indices():
    """``games=`` takes indices in ``step`` as in ``reset`` and ``observe``: a bool mask (once the
    form ``step`` took), floats, an index outside the batch or one given twice are refused, naming
    the value and what is accepted, and nothing changes."""
    state = game().take([0, 0, 0])
    before = state.copy()
    roll = core.rules_for(CLASSIC).layout.encode("roll")
    for games in (np.array([True, False, True]), [True, False, True], np.array([0.0, 2.0]), [[0, 2]]):
        with pytest.raises(
            TypeError,
            match=r"games must be a list or 1-D integer array of game indices in "
            r"\[0, 3\) \(for a bool mask, pass np.flatnonzero\(mask\)\), got ",
        ):
            core.step(state, [roll] * 3, games=games)
    with pytest.raises(ValueError, match=r"games must be indices in \[0, 3\), got \[3\]"):
        core.step(state, [roll] * 3, games=[3])
    with pytest.raises(
        ValueError, match=r"games must be distinct game indices .*got \[2, 2\]: game 2 2 times"
    ):
        core.step(state, [roll] * 3, games=[2, 2])
    assert state == before
    core.step(state, [roll] * 3, games=[2, 0])
    assert state.phase.tolist() == [Phase.MOVE, Phase.TURN, Phase.MOVE]
    core.step(state, [roll] * 3, games=[])  # no game steps
    assert state.phase.tolist() == [Phase.MOVE, Phase.TURN, Phase.MOVE]


def test_a_pawn_at_exactly_the_rolls_distance_is_not_a_destination():
    """Regression: pawns in rooms must not free a square that another pawn stands on."""
    from cluedo_env.core.movement import MoveTables, reachable

    board = core.classic_board()
    start = square(2, 6)
    white = square(0, 9)
    pawns = np.array([[1, start, white, 6, 1, square(19, 23)]])
    squares, _ = reachable(MoveTables(board), np.array([start]), np.array([5]), pawns)
    assert not squares[0, white - 9]


def test_compiled_draw_equals_the_batched_draw():
    """The compiled rules' ``rules.draw`` (one game, one draw) equals ``rng.draw``, wrap-around included."""
    from cluedo_env.core.rng import draw
    from cluedo_env.core.rules import draw as draw_one

    keys = np.concatenate([game_key(np.arange(20)), np.array([0, 1, 2**64 - 1], dtype=np.uint64)])
    counters = np.array([0, 1, 1023, 1024, 5000, 2**32 - 1], dtype=np.uint32)
    want = draw(keys[:, None], counters[None, :])
    got = [[draw_one(k, c) for c in counters] for k in keys]
    assert np.array_equal(np.array(got, dtype=np.uint64), want)


def test_room_distances_are_the_moves_into_each_room_that_the_observation_uses():
    board = core.classic_board()
    distances = core.room_distances(board)
    R = board.num_rooms
    assert distances.shape == (R + board.num_squares, R) and not distances.flags.writeable
    np.testing.assert_array_equal(distances, core.rules_for(core.GameConfig()).location_room_distance)
    assert (np.diag(distances[:R]) == 0).all()
    door = board.doors[0][0]
    assert distances[R + door, 0] == 1  # from a door square, one move enters
    assert distances[0, 1] == 1 + distances[R + np.array(board.doors[0]), 1].min()  # leave, then walk


def test_state_fields_live_in_one_buffer_laid_out_as_the_compiled_rules_read_it():
    """Every field is a view of ``State._buffer``, where the buffer's header says (``layout.pack``),
    and the compiled rules' views (``views.state_views``) are the same arrays; a replaced field is
    packed again (the compiled step then sees it); a field of the wrong shape is refused, and leaves the state as it was."""
    from numba import literally, njit

    from cluedo_env.core.layout import NUMBERS, STATE_FIELDS, TABLE_FIELDS
    from cluedo_env.core.views import state_views, table_views

    @njit
    def compiled_field(buffer, tables, k):  # field k as the compiled rules see it
        field = state_views(buffer, table_views(tables))[literally(k)]
        return field.ctypes.data, field.shape, field.itemsize

    @njit
    def compiled_table(buffer, k):  # table k (after the numbers) as the compiled rules see it
        table = table_views(buffer)[literally(k)]
        return table.ctypes.data, table.shape, table.itemsize

    @njit
    def compiled_numbers(buffer):
        t = table_views(buffer)
        return t.A, t.R, t.duel

    duel = core.GameConfig(num_players=2, duel=True)
    for config, batch in ((core.GameConfig(num_players=3), 5), (duel, 1), (core.GameConfig(board="none"), 2)):
        state = core.init(config, np.arange(batch))
        assert all(getattr(state, name).base is state._buffer for name, _, _ in STATE_FIELDS)
        for k, (name, _, _) in enumerate(STATE_FIELDS):
            field = getattr(state, name)
            address = field.ctypes.data if field.size else None  # (numpy's address of an empty view varies)
            seen = compiled_field(state._buffer, core.rules_for(config).tables, k)
            assert (seen[0] if field.size else None, *seen[1:]) == (address, field.shape, field.itemsize), (
                name
            )
        rules = core.rules_for(config)
        assert compiled_numbers(rules.tables) == (rules.A, rules.R, int(config.duel))
        numbers = rules._numbers()
        start, end = rules.tables.ctypes.data, rules.tables.ctypes.data + rules.tables.nbytes
        for k, field in enumerate(TABLE_FIELDS):
            address, seen, itemsize = compiled_table(rules.tables, len(NUMBERS) + k)
            assert (seen, itemsize) == (field.shape_for(numbers), np.dtype(field.dtype).itemsize), field.name
            assert start <= address <= end - np.prod(seen) * itemsize, name
    state = core.init(CLASSIC, [0, 1])
    state.turn_player = np.array([2, 2])  # replaced: copied into a new buffer, read by the step
    assert state.turn_player.base is state._buffer
    core.step(state, [core.rules_for(CLASSIC).layout.encode("roll")] * 2, check=False)
    assert (state.events[:, 0, [ev.KIND, ev.PLAYER]] == [ev.ROLL, 2]).all()
    with pytest.raises(ValueError, match=r"State.location must have shape \(2, 6\)"):
        core.State(**{**state.arrays(), "config": CLASSIC, "location": np.zeros((2, 5))})
    before = state.copy()
    with pytest.raises(ValueError, match=r"State.location must have shape \(2, 6\)"):
        state.location = np.zeros((2, 5))  # refused: the state stays as it was (it kept the bad array)
    assert state.location.base is state._buffer and state.location.shape == (2, 6)
    assert all(np.array_equal(a, b) for a, b in zip(state.arrays().values(), before.arrays().values()))


def test_rule_tables_are_cached_by_config_value_and_leave_the_config_as_it_is():
    a, b = core.GameConfig(num_players=3), core.GameConfig(num_players=3)
    assert core.rules_for(a) is core.rules_for(b) is core.rules_for(a)
    assert set(vars(a)) == {field.name for field in dataclasses.fields(a)}  # nothing hidden on it
    assert core.rules_for(core.GameConfig(num_players=5)) is not core.rules_for(a)


def test_a_sweep_over_configs_keeps_the_rules_of_the_last_ones_only_and_a_forgotten_config_plays_on():
    first = core.GameConfig(num_players=3, max_turns=1000)
    state = core.init(first, [5])
    seen_before = core.observe(state, 0)
    first_rules = weakref.ref(core.rules_for(first))
    for turns in range(1001, 1002 + CONFIGS_KEPT):  # a max_turns curriculum: one config per value
        core.observe(core.init(first.replace(max_turns=turns), [0]), 0)
    gc.collect()
    assert first_rules() is None  # forgotten: a sweep's memory stays within CONFIGS_KEPT configs
    np.testing.assert_array_equal(core.observe(state, 0), seen_before)  # its rules are built again
    action = int(np.flatnonzero(core.legal_action_mask(state)[0])[0])
    again = core.init(first, [5])
    core.step(state, [action])
    core.step(again, [action])
    np.testing.assert_array_equal(core.observe(state, 0), core.observe(again, 0))


def in_threads(work, threads: int = 8) -> list[BaseException]:
    """Run ``work()`` in ``threads`` threads started together, switching between them as often as the
    interpreter can (where unguarded shared state breaks); what they raised."""
    raised: list[BaseException] = []
    start = threading.Barrier(threads)

    def run() -> None:
        start.wait()
        try:
            work()
        except BaseException as error:  # (any of them is the failure)
            raised.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=run) for _ in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return raised


class LetsOthersIn(dict):
    """A dict that lets the other threads run while it hands out an iterator (the moment an unguarded
    cache, changed meanwhile, breaks at): rare with a plain dict, every time with this one."""

    def __iter__(self):
        keys = super().__iter__()
        time.sleep(1e-4)
        return keys


def test_threads_sweeping_more_configs_than_are_kept_each_get_their_configs_rules(monkeypatch):
    monkeypatch.setattr(core.game, "_RULES_BY_VALUE", LetsOthersIn(core.game._RULES_BY_VALUE))
    monkeypatch.setattr(core.game, "_RULES_BY_IDENTITY", {})  # (both put back as they were together)
    base = core.GameConfig(num_players=3, max_turns=3000)

    def sweep() -> None:
        for _ in range(4):
            for turns in range(3000, 3016 + CONFIGS_KEPT):  # a config object of its own at each call
                config = base.replace(max_turns=turns)
                rules = core.rules_for(config)
                assert rules.config == config

    assert in_threads(sweep) == []


def test_threads_asking_at_once_for_a_new_configs_rules_share_one_rules():
    got: list[core.Rules] = []
    config = core.GameConfig(num_players=4, max_turns=4321)
    assert in_threads(lambda: got.append(core.rules_for(config.replace()))) == []
    assert len(got) == 8 and all(rules is got[0] for rules in got)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_child_forked_while_a_thread_builds_rules_builds_its_own():
    with core.game._RULES_LOCK:  # as a thread of the parent holds it while it builds a config's rules
        child = os.fork()
        if child == 0:  # the child: one new config's rules, then out (whatever happens, no pytest teardown)
            built = False
            try:
                built = core.rules_for(core.GameConfig(num_players=5, max_turns=4567)) is not None
            finally:
                os._exit(0 if built else 1)
    for _ in range(600):  # up to 60 s
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        pytest.fail("the forked child still waits for its parent's lock after 60 s")
    assert os.waitstatus_to_exitcode(status) == 0
