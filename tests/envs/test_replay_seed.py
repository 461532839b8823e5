"""A player's transcript of a recorded game never names the deal seed: ``core.init(config, [seed])``
deals every hand and the envelope again (the omniscient transcript names it, as the control)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.replay import main, record_random_game, transcript

CONFIG = core.GameConfig(num_players=4, max_turns=40)
SEED = 7_346_291_805_512_337_419  # a seed no other number in a transcript spells


def test_a_players_transcript_leaves_the_seed_out_and_the_omniscient_one_names_it(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    record = record_random_game(CONFIG, seed=SEED, path=path, rng_seed=1)
    everything = transcript(record, None)
    assert f"seed {SEED}" in everything[0]  # the control: the check finds the seed where it is
    for viewer in range(CONFIG.num_players):
        lines = transcript(record, viewer)
        assert not [line for line in lines if str(SEED) in line]
        assert lines[0] == f"Game of 4 players, as seen by P{viewer} ({CONFIG.cards.suspects[viewer]})"

    out = tmp_path / "p1.txt"  # the command line, as a player's transcript is asked for
    assert main([str(path), "--viewer", "1", "--transcript", str(out)]) == 0
    assert str(SEED) not in out.read_text() + capsys.readouterr().out
    assert main([str(path), "--viewer", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Game of 4 players, as seen by P1") and str(SEED) not in printed
    assert main([str(path)]) == 0 and f"seed {SEED}" in capsys.readouterr().out


@pytest.mark.parametrize("viewer", [True, np.True_, np.array(True), 1.0, np.float64(1), "1", 4, -1])
def test_a_viewer_that_is_not_a_player_is_refused_naming_it_and_the_players(viewer):
    """True was told as "as seen by PTrue (Colonel Mustard)"; np.True_ and 1.0 raised an unclear TypeError."""
    record = record_random_game(CONFIG, seed=3, rng_seed=1)
    with pytest.raises(
        ValueError,
        match=rf"viewer must be a player in \[0, 4\) \(.*\) or None, got {re.escape(repr(viewer))}$",
    ):
        transcript(record, viewer)


def test_a_numpy_integer_viewer_or_one_in_a_zero_d_array_is_told_as_its_player():
    record = record_random_game(CONFIG, seed=3, rng_seed=1)
    for given in (np.int64(1), np.uint8(1), np.array(1)):  # (a 0-d array was refused)
        lines = transcript(record, given)
        assert lines == transcript(record, 1) and lines[0].endswith("as seen by P1 (Colonel Mustard)")
