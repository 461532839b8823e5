"""Rendering (text and pictures) and game records: record, save, load, replay, verify, transcript, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from PIL import Image

from cluedo_env import cluedo_v0, core
from cluedo_env.board_view import status_lines
from cluedo_env.core import events as ev
from cluedo_env.core.editions import get_edition
from cluedo_env.core.state import Phase
from cluedo_env.render import render_ansi, render_rgb
from cluedo_env.replay import (
    AlteredRecord,
    GameRecorder,
    load_jsonl,
    record_random_game,
    replay,
    transcript,
    verify,
)
from cluedo_env.transcript import describe_event
from tests.conftest import ROOT

CONFIGS = {
    "classic-4": core.GameConfig(num_players=4),
    "squares-6": core.GameConfig(num_players=6, movement="squares", max_turns=120),
    "none-5": core.GameConfig(num_players=5, board="none", edition="classic_fr_2000", max_turns=120),
    "duel-2": core.GameConfig(num_players=2, duel=True, auto_refute=True, max_turns=150),
}


def play_recorded(config: core.GameConfig, seeds: list[int], rng_seed: int = 0, accuse_rate: float = 0.02):
    """Random games in one batch, each recorded by its own GameRecorder.

    Returns the batch's state at the end, and per game its recorder and its state as it
    ended (later steps of the batch clear a finished game's events and rewards).
    """
    rng = np.random.default_rng(rng_seed)
    layout = core.rules_for(config).layout
    accusations = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    recorders = [GameRecorder(config, seed) for seed in seeds]
    state = core.init(config, seeds)
    finals: list[core.State | None] = [None] * len(seeds)
    while not state.done.all():
        running = ~state.done
        mask = core.legal_action_mask(state)
        calm = mask.copy()
        calm[:, accusations] = False
        use_calm = calm.any(axis=1) & (rng.random(len(seeds)) > accuse_rate)
        choice = np.where(use_calm[:, None], calm, mask)
        choice[~running] = True
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in choice])
        core.step(state, actions)
        for game in np.flatnonzero(running):
            recorders[game].append(int(actions[game]), state, game=int(game))
            if state.done[game]:
                finals[game] = state.take([game])
    return state, recorders, finals


def mid_game(config: core.GameConfig, seed: int = 3, steps: int = 150) -> core.State:
    state = core.init(config, [seed])
    rng = np.random.default_rng(seed)
    layout = core.rules_for(config).layout
    for _ in range(steps):
        mask = core.legal_action_mask(state)[0]
        mask[layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
        core.step(state, [rng.choice(np.flatnonzero(mask))])
    return state


# --- rendering --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CONFIGS))
def test_ansi_shows_every_room_and_the_pawns(name):
    config = CONFIGS[name]
    state = mid_game(config)
    text = render_ansi(state)
    for room in config.cards.rooms:
        assert room in text
    assert f"phase {Phase.NAMES[int(state.phase[0])]}" in text
    assert f"Turn {int(state.turn[0]) + 1}: " in text  # from 1, as the text view and the story count
    if config.board == "classic":
        grid = text.splitlines()[:25]
        assert all(len(line) == 24 for line in grid)
        for suspect in range(config.cards.num_suspects):
            assert sum(line.count(str(suspect)) for line in grid) == 1, f"pawn {suspect} not drawn once"
    else:
        assert len(text.splitlines()) < 25  # no grid, just the listing


def test_ansi_lists_the_suggestion_and_eliminations():
    state = mid_game(CONFIGS["classic-4"])
    e = state.config.cards
    state.suggestion[0] = [1, e.card_id("Rope"), e.card_id("Library")]
    state.eliminated[0, 2] = True
    text = render_ansi(state)
    assert "Suggestion: Colonel Mustard with the Rope in the Library" in text
    assert "Eliminated: P2 (Mrs White)" in text


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("scale", [12, 24])
def test_rgb_frame_is_a_picture(name, scale):
    config = CONFIGS[name]
    image = render_rgb(mid_game(config), scale=scale, viewer=0)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    if config.board == "classic":
        assert image.shape == (25 * scale, (24 + 13) * scale, 3)
    colours = (image[..., 0].astype(np.int32) << 16) | (image[..., 1].astype(np.int32) << 8) | image[..., 2]
    assert len(np.unique(colours)) > 20


def test_rgb_draws_the_pawns_where_they_are():
    config = CONFIGS["classic-4"]
    state = core.init(config, [0])
    before = render_rgb(state, scale=16)
    state.location[0, 0] = 0  # Miss Scarlet into the Kitchen
    after = render_rgb(state, scale=16)
    changed = np.argwhere((before != after).any(axis=2))
    kitchen = changed[(changed[:, 0] < 7 * 16) & (changed[:, 1] < 6 * 16)]
    start = changed[(changed[:, 0] >= 24 * 16) & (changed[:, 1] // 16 == 7)]
    assert len(kitchen) and len(start)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_env_frames_after_an_illegal_move_say_who_made_it(render_mode):
    """``env()`` ends the game on an illegal move outside the rules (no winner, nobody out): the
    result line says so instead of "everybody accused wrongly", in the text and in the picture."""
    wrapped = cluedo_v0.env(num_players=4, render_mode=render_mode)
    wrapped.reset(seed=3)
    assert wrapped.agent_selection == "player_2"
    illegal = int(np.flatnonzero(wrapped.infos["player_2"]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PettingZoo warns of the illegal move)
        wrapped.step(illegal)
    state = wrapped.unwrapped.game_state
    ending = "illegal action by P2 (Mrs White)"
    assert status_lines(state, 0, ending)[-2:] == ["Eliminated: none", f"Game over: {ending}"]
    frame = wrapped.render()
    if render_mode == "ansi":
        assert f"Eliminated: none\nGame over: {ending}\nRooms:" in frame
        assert "accused wrongly" not in frame
    else:
        np.testing.assert_array_equal(frame, render_rgb(state, ending=ending))
        assert (frame != render_rgb(state)).any()  # (which says "everybody accused wrongly")
    wrapped.reset(seed=3)  # a new game has no ending yet
    assert "Game over" not in "".join(status_lines(wrapped.unwrapped.game_state, 0))
    if render_mode == "ansi":
        assert "Game over" not in wrapped.render()


# --- records ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CONFIGS))
def test_record_save_load_replays_identically(name, tmp_path):
    config = CONFIGS[name]
    seeds = [11, 12]
    _, recorders, finals = play_recorded(config, seeds)
    for game, recorder in enumerate(recorders):
        path = tmp_path / f"game{game}.jsonl"
        recorder.to_jsonl(path)
        record = load_jsonl(path)
        assert record.config == config and record.seed == seeds[game]
        assert record.actions == recorder.record.actions and record.players == recorder.record.players
        assert all(np.array_equal(a, b) for a, b in zip(record.events, recorder.record.events))
        final = verify(record)
        assert final == finals[game]
        states = list(replay(record))
        assert len(states) == record.num_steps + 1 and states[-1] == final


def test_record_random_game_writes_a_verifiable_record(tmp_path):
    config = CONFIGS["classic-4"]
    path = tmp_path / "random.jsonl"
    record = record_random_game(config, seed=5, path=path, rng_seed=1)
    assert load_jsonl(path).actions == record.actions
    final = verify(load_jsonl(path))
    assert final.done[0]
    header, first = (json.loads(line) for line in path.read_text().splitlines()[:2])
    assert (
        header["format"] == "cluedo-replay"
        and header["version"] == 2
        and header["config"]["edition"] == "classic"
    )
    assert header["seed"] == 5 and len(header["initial_events"]) > 0
    assert set(first) == {"step", "player", "action", "action_text", "events"}
    end = json.loads(path.read_text().splitlines()[-1])["end"]
    assert end["steps"] == record.num_steps and end["finished"] is True and len(end["sha256"]) == 64
    assert all(len(row) == 7 for row in first["events"])


def test_a_config_built_from_an_edition_object_round_trips(tmp_path):
    config = core.GameConfig(edition=get_edition("de_2023"), board="none", max_turns=30)
    record = record_random_game(config, seed=2, path=tmp_path / "de.jsonl")
    loaded = load_jsonl(tmp_path / "de.jsonl")
    assert loaded.config == config and loaded.actions == record.actions
    verify(loaded)


def test_verify_names_the_first_step_that_differs(tmp_path):
    config = CONFIGS["classic-4"]
    record = record_random_game(config, seed=9, rng_seed=3)
    # The first suggestion: suggest another suspect or weapon instead.
    layout = core.rules_for(config).layout
    k = next(k for k, action in enumerate(record.actions) if layout.decode(action)[0] == "suggest")
    suspect, weapon = layout.decode(record.actions[k])[1]
    record.actions[k] = layout.encode("suggest", (suspect + 1) % config.cards.num_suspects, weapon)
    with pytest.raises(ValueError, match=rf"^step {k}: "):
        verify(record)


def test_verify_detects_a_changed_event_and_an_illegal_action(tmp_path):
    config = CONFIGS["duel-2"]
    record = record_random_game(config, seed=4)
    record.events[2][0, 2] += 1
    with pytest.raises(AlteredRecord, match=r"^step 2: events differ"):
        verify(record)
    record = record_random_game(config, seed=4)
    record.actions[0] = core.rules_for(config).layout.END_TURN  # not legal at the start of a turn
    with pytest.raises(ValueError, match=r"^step 0: the recorded action cannot be replayed"):
        verify(record)


def test_load_names_the_bad_file(tmp_path):
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(FileNotFoundError, match=r"missing\.jsonl"):
        load_jsonl(missing)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"hello": 1}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl, line 1: not a cluedo-replay header"):
        load_jsonl(bad)
    good = tmp_path / "good.jsonl"
    record_random_game(CONFIGS["duel-2"].replace(max_turns=3), seed=1, path=good)
    lines = good.read_text().splitlines(keepends=True)
    good.write_text("".join(lines[:2]) + "not json\n" + "".join(lines[2:]))
    with pytest.raises(AlteredRecord, match=r"good\.jsonl: altered: .*sha256"):
        load_jsonl(good)


def test_recorder_refuses_steps_after_the_end():
    config = CONFIGS["duel-2"].replace(max_turns=2)
    state, recorders, _ = play_recorded(config, [1])
    with pytest.raises(ValueError, match="ended"):
        recorders[0].append(0, state)


# --- transcripts ----------------------------------------------------------------------------


def test_transcript_from_a_player_hides_what_it_may_not_see():
    config = CONFIGS["classic-4"]
    viewer = 1
    record = record_random_game(config, seed=21, rng_seed=2)
    lines = transcript(record, viewer)
    text = "\n".join(lines)
    hidden = 0
    for label, events in [("deal", record.initial_events), *enumerate(record.events)]:
        view = core.private_view(events, viewer)
        for full, seen in zip(events, view):
            if full[ev.CARD] >= 0 and seen[ev.CARD] < 0:
                hidden += 1
                assert f"{label}: {describe_event(config, full)}" not in text
            if full[ev.KIND] == ev.DEAL and full[ev.PLAYER] != viewer:
                continue
            assert f"{label}: {describe_event(config, seen)}" in lines
    assert hidden > 0
    hand = {
        config.cards.cards[c]
        for c in record.initial_events[:, ev.CARD][record.initial_events[:, ev.PLAYER] == viewer]
    }
    dealt = {line.split(" is dealt ")[1] for line in lines if " is dealt " in line}
    assert dealt == hand
    everything = transcript(record, None)
    assert sum(" is dealt " in line for line in everything) == config.num_hidden_cards


# --- command line --------------------------------------------------------------------------------


def test_cli_writes_a_gif_frames_and_a_transcript(tmp_path):
    record_path = tmp_path / "tiny.jsonl"
    record_random_game(core.GameConfig(num_players=3, max_turns=20), seed=3, path=record_path)
    gif, text, frames = tmp_path / "out.gif", tmp_path / "out.txt", tmp_path / "frames"
    command = [sys.executable, "-m", "cluedo_env.replay", str(record_path), "--gif", str(gif)]
    command += ["--viewer", "2", "--transcript", str(text), "--frames", str(frames), "--scale", "10"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with Image.open(gif) as image:
        assert image.n_frames > 2
    assert len(list(frames.glob("*.png"))) > 2
    lines = text.read_text().splitlines()
    assert "as seen by P2" in lines[0] and any("It was" in line for line in lines)

    every = subprocess.run(
        [*command[:5], str(tmp_path / "every.gif"), "--every", "5", "--scale", "10"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert every.returncode == 0, every.stderr


def test_cli_names_a_missing_or_invalid_file(tmp_path):
    missing = tmp_path / "nothing.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "cluedo_env.replay", str(missing), "--gif", str(tmp_path / "x.gif")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and str(missing) in done.stderr and "cluedo-replay" in done.stderr
