"""A player's transcript of a recorded game never names the deal seed: ``core.init(config, [seed])``
deals every hand and the envelope again (the omniscient transcript names it, as the control)."""

from __future__ import annotations

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
