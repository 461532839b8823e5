"""The replay command's outputs, checked before any work: never the record it reads, each option given
what it takes, and a picture no larger than ``render_image.MAX_PIXELS``.

``--transcript REC`` replaced the record with its transcript (exit status 0); ``--frames FILE`` said
"[Errno 17] File exists" and ``--gif FOLDER`` "unknown file extension", neither naming the option; and
``--scale 100000`` had no upper bound: the first frame took all the memory there was.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import cluedo_env.render
from cluedo_env import core, render_image
from cluedo_env.render import render_rgb
from cluedo_env.replay import main, record_random_game

CLASSIC = core.GameConfig(num_players=3, max_turns=30)


@pytest.fixture
def record(tmp_path):
    """A short random game's record, and its bytes."""
    path = tmp_path / "game-0.jsonl"
    record_random_game(CLASSIC, seed=0, path=path)
    return path, path.read_bytes()


def refused(argv, capsys) -> str:
    """What the command said in refusing ``argv`` (exit status 2, one line, no traceback)."""
    assert main([str(a) for a in argv]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.count("\n") == 1, said
    return said.err


@pytest.mark.parametrize("option", ["--transcript", "--gif"])
def test_an_output_that_is_the_record_itself_is_refused_and_the_record_kept(record, option, capsys):
    path, before = record
    said = refused([path, option, path], capsys)
    assert f"error: {option} {path} is the record itself, which it would replace: give a file for" in said
    also = path.parent / "link.jsonl"  # another name for the same file
    also.symlink_to(path)
    assert f"{option} {also} is the record itself" in refused([path, option, also], capsys)
    assert path.read_bytes() == before
    assert main([str(path), "--verify"]) == 0


def test_frames_given_a_file_and_a_gif_given_a_folder_are_refused_naming_the_option(record, tmp_path, capsys):
    path, before = record
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    said = refused([path, "--frames", taken], capsys)
    assert (
        said
        == f"error: --frames {taken} is not a folder: give a folder for the PNG frames (made if missing)\n"
    )
    said = refused([path, "--gif", tmp_path], capsys)
    assert said == f"error: --gif {tmp_path} is a folder: give a file for the GIF (e.g. game.gif)\n"
    said = refused([path, "--transcript", ""], capsys)
    assert said == "error: --transcript is empty: give a file for the transcript (e.g. game.txt)\n"
    assert taken.read_text() == "mine\n" and path.read_bytes() == before


def test_a_gif_named_without_its_extension_is_a_gif(record, tmp_path, capsys):
    path, _ = record
    assert main([str(path), "--gif", str(tmp_path / "game"), "--every", "10"]) == 0
    with Image.open(tmp_path / "game") as gif:
        assert gif.format == "GIF" and gif.n_frames > 1


def test_a_scale_past_the_pictures_limit_is_refused_before_any_frame(record, tmp_path, capsys, monkeypatch):
    path, _ = record
    monkeypatch.setattr(cluedo_env.render, "render_rgb", lambda *a, **k: pytest.fail("a frame was drawn"))
    said = refused([path, "--scale", 100000, "--gif", tmp_path / "g.gif"], capsys)
    assert said == (
        "error: --scale must be from 8 to 92 pixels per board cell (a picture of at most 8,000,000 pixels), "
        "got 100000\n"
    )
    assert not (tmp_path / "g.gif").exists()


@pytest.mark.parametrize("board", ["classic", "none"])
def test_render_rgb_draws_up_to_the_largest_scale_and_refuses_one_more(board):
    config = core.GameConfig(num_players=3, board=board)
    state = core.init(config, np.array([0]))
    top = render_image.max_scale(config)
    height, width, _ = render_rgb(state, scale=top).shape
    assert height * width <= render_image.MAX_PIXELS < height * width * ((top + 1) / top) ** 2
    with pytest.raises(ValueError, match=rf"scale must be from 8 to {top} pixels per cell .*got {top + 1}"):
        render_rgb(state, scale=top + 1)
    assert render_image.max_scale(core.GameConfig()) == 92  # as the docs say
