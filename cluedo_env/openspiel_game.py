"""Cluedo as an OpenSpiel game: importing this module registers ``python_cluedo`` with
``pyspiel.register_game`` (the ``openspiel`` extra: ``pip install -e ".[openspiel]"``)::

    import pyspiel
    import cluedo_env.openspiel_game  # registers python_cluedo
    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none"})

Parameters are ``GameConfig``'s fields: ``players`` (``num_players``), ``edition``, ``board``,
``dice``, ``stay_in_room``, ``accuse_anywhere``, ``start_player``, ``duel``, ``max_turns``,
``movement`` and ``auto_refute``, validated by ``GameConfig`` (a bad value gets its message). Not
``deal``: the deal is chance nodes, each uniform over the cards left (``deal="uniform"``'s shuffle).

The state (``openspiel_state.CluedoState``) is one game of the compiled core, its actions the
core's action ids, with explicit chance nodes for the deal, the starting player and the dice.
Observers (``openspiel_observer``) give the core's observation by its named pieces, and the
information state as the player's private view of every event so far; OpenSpiel's factored types
split either into its public and its private part (so ``generate_playthrough`` prints both).
``resample_from_infostate``
(``openspiel_resample``) draws a state exactly from the player's posterior.

Rewards are the core's: +1 to the winner and -1 to the others; -1 to everybody when all accused
wrongly; 0 to everybody when truncated at ``max_turns``. The sum is not constant, so the game is
general-sum.
"""

from __future__ import annotations

import pyspiel

from cluedo_env.core.config import GameConfig
from cluedo_env.openspiel_observer import CluedoObserver, observation_tensor_size
from cluedo_env.openspiel_state import CluedoState

__all__ = ["GAME_TYPE", "CluedoGame", "config_from_params", "game_info", "max_game_length"]

SHORT_NAME = "python_cluedo"
_DEFAULTS = GameConfig()
PARAMETERS = {
    "players": _DEFAULTS.num_players,
    "edition": _DEFAULTS.edition,
    "board": _DEFAULTS.board,
    "dice": _DEFAULTS.dice,
    "stay_in_room": _DEFAULTS.stay_in_room,
    "accuse_anywhere": _DEFAULTS.accuse_anywhere,
    "start_player": _DEFAULTS.start_player,
    "duel": _DEFAULTS.duel,
    "max_turns": _DEFAULTS.max_turns,
    "movement": _DEFAULTS.movement,
    "auto_refute": _DEFAULTS.auto_refute,
}
DECISIONS_PER_TURN = 6  # roll, its dice (a chance node), move, suggest, refute, accuse or end the turn

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Cluedo",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=True,
    parameter_specification=PARAMETERS,
)


def config_from_params(params: dict) -> GameConfig:
    """The ``GameConfig`` of OpenSpiel parameters (``PARAMETERS``' names; the others default)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown python_cluedo parameter(s) {unknown}; parameters are {sorted(PARAMETERS)}")
    values = {**PARAMETERS, **params}
    values["num_players"] = values.pop("players")
    return GameConfig(**values)


def max_game_length(config: GameConfig) -> int:
    """The most actions a game takes, chance included: the deal's (one per card and the starting
    player) and ``DECISIONS_PER_TURN`` per turn."""
    return config.cards.num_cards + 1 + DECISIONS_PER_TURN * config.max_turns


def game_info(config: GameConfig) -> pyspiel.GameInfo:
    """OpenSpiel's ``GameInfo`` of a config."""
    from cluedo_env.core.game import rules_for

    return pyspiel.GameInfo(
        num_distinct_actions=rules_for(config).A,
        max_chance_outcomes=max(config.cards.num_cards, config.num_players, 6**config.dice),
        num_players=config.num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=None,
        max_game_length=max_game_length(config),
    )


class CluedoGame(pyspiel.Game):
    """``python_cluedo``: a ``GameConfig``'s game (``from_config`` takes any config, an
    ``Edition`` object included, without registering it)."""

    def __init__(self, params: dict | None = None, config: GameConfig | None = None) -> None:
        params = dict(params or {})
        self.config = config if config is not None else config_from_params(params)
        super().__init__(GAME_TYPE, game_info(self.config), params)

    @classmethod
    def from_config(cls, config: GameConfig) -> CluedoGame:
        """The game of a config (not loadable by name when its edition is not registered)."""
        return cls({}, config=config)

    def new_initial_state(self) -> CluedoState:
        """The first chance node of the deal."""
        return CluedoState(self)

    def deserialize_state(self, text: str) -> CluedoState:
        """The state whose ``serialize()`` is ``text``: its actions replayed from the first deal (blank
        lines, such as an editor's last one, are passed over).

        Raises:
            ValueError: a line that is not an action id in ASCII digits below the game's largest, or an
                action the state refuses there (one after the end included); the message names the
                line, counted from 1.
        """
        state = self.new_initial_state()
        top = max(self.num_distinct_actions(), self.max_chance_outcomes())
        for number, line in enumerate(text.splitlines(), start=1):
            digits = line.strip()
            if not digits:
                continue
            if not (digits.isascii() and digits.isdigit()) or int(digits) >= top:
                raise ValueError(
                    f"a python_cluedo state is one action id (below {top}) a line; line {number} is {line[:40]!r}"
                )
            try:
                state.apply_action(int(digits))
            except ValueError as error:  # an action the state refuses, or one after the end
                raise ValueError(f"line {number} of the python_cluedo state ({digits}): {error}") from None
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> CluedoObserver:
        """An observer: the information state when ``iig_obs_type.perfect_recall``, else the observation."""
        if params:
            raise ValueError(f"python_cluedo observers take no parameters, got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return CluedoObserver(self.config, iig_obs_type)

    def observation_tensor_size(self) -> int:
        """Length of the observation (and information state) tensor."""
        return observation_tensor_size(self.config)


pyspiel.register_game(GAME_TYPE, CluedoGame)
