"""``python_cluedo`` is its parameters, as OpenSpiel's own games are: the game of any config its
parameters can write comes back equal from ``str``/``load_game``, ``serialize_game_and_state``,
pickle and ``deepcopy``; the game of a custom edition, which they cannot write, is refused loudly."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from cluedo_env import core  # noqa: E402
from cluedo_env.core.editions import Edition  # noqa: E402
from cluedo_env.openspiel_game import CluedoGame  # noqa: E402

CONFIGS = {
    "3p-no-board-20-turns": core.GameConfig(num_players=3, board="none", max_turns=20),
    "de_2023-3p": core.GameConfig.preset("de_2023", num_players=3, max_turns=30),
    "duel": core.GameConfig.preset("de_2023_duel", max_turns=30),
    "variants": core.GameConfig(
        num_players=5,
        dice=1,
        stay_in_room=False,
        accuse_anywhere=False,
        start_player="scarlet",
        movement="squares",
        max_turns=30,
    ),
    "uniform-deal": core.GameConfig(num_players=6, board="none", max_turns=30, deal="uniform"),
}
TINY = Edition(
    name="tiny",
    suspects=("Scarlett", "Mustard", "White"),
    weapons=("Rope", "Knife", "Pipe"),
    rooms=("Hall", "Study", "Lounge"),
    weapon_start_rooms=(0, 1, 2),
)


def played(game, steps: int = 40):
    """A state after ``steps`` random actions of ``game`` (seeded)."""
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def assert_same_state(again, state) -> None:
    """``again`` is ``state``: the same game (config and string), history and every player's view."""
    game = state.get_game()
    assert again.get_game().config == game.config and str(again.get_game()) == str(game)
    assert again.history() == state.history() and str(again) == str(state)
    for player in range(game.num_players()):
        assert again.information_state_string(player) == state.information_state_string(player)


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS)
def test_the_game_of_a_config_is_its_string(config):
    """``from_config`` passed no parameters: ``str(game)`` was ``python_cluedo()``, which loads the
    4-player classic game."""
    game = CluedoGame.from_config(config)
    assert f"players={config.num_players}" in str(game) and f"max_turns={config.max_turns}" in str(game)
    again = pyspiel.load_game(str(game))
    assert again.config == config and str(again) == str(game)
    assert again.num_players() == game.num_players() == config.num_players
    assert again.num_distinct_actions() == game.num_distinct_actions()


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS)
def test_serialize_game_and_state_gives_the_same_game_and_state(config):
    """It gave the 4-player classic game with the state's history."""
    game = CluedoGame.from_config(config)
    state = played(game)
    new_game, new_state = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert new_game.config == config
    assert_same_state(new_state, state)


@pytest.mark.parametrize(
    "copier", [lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy], ids=["pickle", "deepcopy"]
)
@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS)
def test_pickle_and_deepcopy_give_the_same_game_and_state(config, copier):
    """A copied game had no ``config`` (the copy is made without ``__init__``), and a copied state
    of a ``from_config`` game came back in the 4-player classic game."""
    game = CluedoGame.from_config(config)
    again = copier(game)
    assert again.config == config and str(again) == str(game)
    assert_same_state(played(again), played(game))
    state = played(game)
    assert_same_state(copier(state), state)


def test_a_loaded_game_pickles_and_copies_to_its_parameters():
    game = pyspiel.load_game("python_cluedo", {"players": 3, "max_turns": 30})
    for again in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert str(again) == str(game) and again.config == game.config
        assert again.observation_tensor_size() == game.observation_tensor_size()


def test_openspiels_consistency_test_serialises_a_game_made_from_a_config():
    pyspiel.random_sim_test(
        CluedoGame.from_config(CONFIGS["3p-no-board-20-turns"]), num_sims=3, serialize=True, verbose=False
    )


def test_the_game_of_a_custom_edition_is_not_written_as_another_game():
    """Its string loaded the 4-player classic game (405 actions for its 57)."""
    game = CluedoGame.from_config(core.GameConfig(edition=TINY, num_players=3, board="none", max_turns=30))
    state = played(game, 10)
    assert "edition=tiny" in str(game)
    unloadable = r"edition must be one of \[.*\], got 'tiny' \(the game of a custom Edition"
    with pytest.raises(ValueError, match=unloadable):
        pyspiel.load_game(str(game))
    with pytest.raises(ValueError, match=unloadable):
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    for copier in (pickle.dumps, copy.deepcopy):
        with pytest.raises(
            ValueError, match="cannot pickle or copy the python_cluedo game of the custom edition 'tiny'"
        ):
            copier(game)
        with pytest.raises(
            ValueError, match="cannot pickle or copy a state of the python_cluedo game of the custom"
        ):
            copier(state)
    assert_same_state(state.clone(), state)  # what a search copies still works
    assert_same_state(game.deserialize_state(state.serialize()), state)


def test_a_config_and_parameters_together_are_refused():
    with pytest.raises(
        ValueError, match=r"CluedoGame takes params or a config, not both; got params \{'players': 3\}"
    ):
        CluedoGame({"players": 3}, config=CONFIGS["duel"])
