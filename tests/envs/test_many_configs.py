"""A process that plays many configs in turn (a curriculum over ``max_turns``, decks drawn at random) keeps
what it derived from the last ``CONFIGS_KEPT`` of them only: its memory stays bounded."""

from __future__ import annotations

import gc
import weakref

from cluedo_env import core
from cluedo_env.core.config import CONFIGS_KEPT
from cluedo_env.text_env import text_env


def play_a_little(reply: str, **rules) -> core.GameConfig:
    """A text env of these rules, dealt, ``reply`` played (its words read against the edition's card names,
    then the commands) and the board shown; then closed."""
    env = text_env(render_mode="ansi", **rules)
    env.reset(seed=0)
    env.step(reply)
    env.render()
    env.close()
    return env.unwrapped.config


def test_envs_of_many_configs_played_in_turn_leave_nothing_of_the_first_config_alive():
    first = weakref.ref(play_a_little("I will roll the dice.", max_turns=1000))
    for turns in range(1001, 1002 + CONFIGS_KEPT):
        play_a_little("I will roll the dice.", max_turns=turns)
    gc.collect()
    assert first() is None  # no cache keyed on configs holds it (rules, observation pieces, commands, names)


def test_a_config_played_again_after_a_sweep_plays_as_before():
    deck = core.Edition("mine", ("Ann", "Bob", "Cy"), ("Axe", "Bat"), ("Hall", "Study", "Loft"), (0, 1))
    rules = dict(edition=deck, board="none", num_players=3)
    env = text_env(**rules)
    env.reset(seed=3)
    before = env.observe(env.agent_selection)["text"]
    for turns in range(1, 2 + CONFIGS_KEPT):
        play_a_little("Let me go to the Study.", **rules, max_turns=turns)
    env.reset(seed=3)
    assert env.observe(env.agent_selection)["text"] == before
