"""Cluedo as an OpenSpiel game: importing this module registers ``python_cluedo`` with
``pyspiel.register_game`` (the ``openspiel`` extra: ``pip install -e ".[openspiel]"``)::

    import pyspiel
    import cluedo_env.openspiel_game  # registers python_cluedo
    game = pyspiel.load_game("python_cluedo", {"players": 3, "board": "none"})

Parameters are ``GameConfig``'s fields: ``players`` (``num_players``), ``edition``, ``board``,
``dice``, ``stay_in_room``, ``accuse_anywhere``, ``start_player``, ``duel``, ``max_turns``,
``movement``, ``auto_refute`` and ``deal``, validated by ``GameConfig`` (a bad value gets its
message). ``deal`` changes no play: the deal is chance nodes, each uniform over the cards left
(``deal="uniform"``'s shuffle); it is carried so that the game of any config names that config.

A game is its parameters, as in OpenSpiel: ``CluedoGame.from_config`` writes every field of the
config as one (``game_parameters``), so ``str(game)``, ``pyspiel.load_game(str(game))``,
``pyspiel.serialize_game_and_state`` and pickling or deep-copying a game or a state give back the
game of an equal config. The one config that parameters cannot write is one of a custom ``Edition``
(not in ``EDITIONS``): its game writes the edition's name, which ``load_game`` refuses, and
pickling or copying it or its states raises ``ValueError`` (``CluedoGame.require_parameters``).

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
from cluedo_env.core.editions import EDITIONS, Edition
from cluedo_env.openspiel_observer import CluedoObserver, observation_tensor_size
from cluedo_env.openspiel_state import CluedoState

__all__ = ["GAME_TYPE", "CluedoGame", "config_from_params", "game_info", "game_parameters", "max_game_length"]

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
    "deal": _DEFAULTS.deal,
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
    if not (isinstance(values["edition"], str) and values["edition"] in EDITIONS):
        raise ValueError(
            f"edition must be one of {sorted(EDITIONS)}, got {values['edition']!r} (the game of a custom "
            "Edition is made by CluedoGame.from_config and is not loaded by name)"
        )
    values["num_players"] = values.pop("players")
    return GameConfig(**values)


def game_parameters(config: GameConfig) -> dict:
    """The OpenSpiel parameters of a config, every one of ``PARAMETERS`` (``config_from_params``'
    inverse). A custom ``Edition`` is written by its name, which ``config_from_params`` refuses."""
    edition = config.edition if isinstance(config.edition, str) else config.edition.name
    values = {name: getattr(config, name) for name in PARAMETERS if name not in ("players", "edition")}
    return {"players": config.num_players, "edition": edition, **values}


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
        if params and config is not None:
            raise ValueError(f"CluedoGame takes params or a config, not both; got params {params}")
        self._config = config if config is not None else config_from_params(dict(params or {}))
        super().__init__(GAME_TYPE, game_info(self._config), game_parameters(self._config))

    @classmethod
    def from_config(cls, config: GameConfig) -> CluedoGame:
        """The game of a config, its parameters the config's fields (``game_parameters``); one of a
        custom ``Edition`` is not loaded by name, pickled or copied (``require_parameters``)."""
        return cls(config=config)

    @property
    def config(self) -> GameConfig:
        """The game's rules: its parameters' (a copy that pickle or ``copy`` makes without
        ``__init__`` has only these), or the config it was made from."""
        try:
            return self._config
        except AttributeError:  # made by pickle or copy
            self._config = config_from_params(self.get_parameters())
            return self._config

    def require_parameters(self, doing: str) -> None:
        """Raise ``ValueError`` when the parameters do not give the game back: a custom ``Edition``'s
        game, which ``doing`` (what was asked, such as ``"pickle"``) would turn into another game."""
        if isinstance(self.config.edition, Edition):
            raise ValueError(
                f"cannot {doing} the python_cluedo game of the custom edition {self.config.edition.name!r}: "
                f"its parameters name only the editions {sorted(EDITIONS)}, so they would load another game; "
                "keep its GameConfig instead (CluedoGame.from_config makes the game again, and the game's "
                "deserialize_state replays a state's serialize())"
            )

    def __getstate__(self) -> str:
        """Pickle and ``copy`` write the game as its parameters (as OpenSpiel's own Python games);
        ``ValueError`` for a custom ``Edition``'s (``require_parameters``)."""
        self.require_parameters("pickle or copy")
        return super().__getstate__()

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
