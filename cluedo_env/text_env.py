"""``cluedo_v0`` in words: text observations and text actions, for language-model and human players.

Usage::

    from cluedo_env.text_env import text_env

    env = text_env(num_players=4)
    env.reset(seed=0)
    print(env.rules)                      # the rules summary, once
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        print(observation["text"])        # what this player knows and may do
        env.step(info["legal_commands"][0])   # any command; e.g. "roll", "suggest Plum with the Rope"

``TextEnv`` wraps ``cluedo_v0.raw_env`` (every keyword of ``text_env`` is one of
``raw_env``'s). It keeps each player's private view of the events since the deal
and changes three things:

- ``observe(agent)`` is a dict: ``"text"``, ``cluedo_env.text.text_view`` of
  that player (a ``str`` of the ``Text`` space, whose characters are
  ``text_charset(config)``: a custom edition's letters too), with the notepad when
  ``notepad=True``, and ``"action_mask"``, ``raw_env``'s int8 mask (all zeros
  but for the player who decides). The rules summary is ``env.rules``.
- ``step(command)`` takes a command in words (``cluedo_env.commands``); one that
  is unknown, ambiguous or illegal raises ``CommandError`` (a ``ValueError``)
  saying why and listing the legal commands, and changes nothing, so the player
  may answer again. ``None`` is the step of a finished agent, as in PettingZoo.
- ``action_space(agent)`` is ``CommandSpace``: every command string. Its
  ``sample(mask)`` takes the int8 action mask of ``infos[agent]["action_mask"]``
  (kept from ``raw_env``) and returns the command of a random legal action, so
  PettingZoo's generic loops (and ``api_test``) play it as they play the
  numeric env. ``infos[agent]["legal_commands"]`` lists the legal commands.

Rewards, terminations, agent order and seeding are ``raw_env``'s. An edition with a card that no
command can name (a card "A" or "The", or "Study" beside "The Study": ``reply_words.card_names``) is
refused when the env is made (``ValueError``).
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from cluedo_env import cluedo_v0, core, reply_words
from cluedo_env.commands import CommandError, command, parse_command
from cluedo_env.core.editions import EDITIONS
from cluedo_env.text import rules_summary, text_view

__all__ = ["CHARSET", "CommandError", "CommandSpace", "TextEnv", "text_charset", "text_env"]

# The characters of every text view of the built-in editions: printable ASCII and the letters of their
# names. A custom edition's space adds the letters of its own names (``text_charset``).
CHARSET = frozenset(string.printable) | {ch for e in EDITIONS.values() for name in e.cards for ch in name}
MAX_TEXT = 1_000_000  # characters of one observation (a whole game's history fits easily)


def text_charset(config: core.GameConfig) -> frozenset[str]:
    """Every character a text view of this config may hold: ``CHARSET`` and the letters of its edition's
    card names (the players are named by their suspects). The wording around the names is printable
    ASCII, so every built-in edition's space is ``CHARSET``'s, the same for all of them."""
    return CHARSET | {ch for name in config.cards.cards for ch in name}


class CommandSpace(spaces.Space[str]):
    """The commands of a game config: ``contains`` any string; ``sample`` a legal action's command.

    Args:
        config: The rules (the edition names the cards).
        seed: Seed of the space's generator.
    """

    def __init__(self, config: core.GameConfig, seed: int | None = None) -> None:
        super().__init__(shape=None, dtype=str, seed=seed)
        self.config = config
        self.num_actions = core.ActionLayout(config).num_actions

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> str:
        """The command of a random action; with ``mask`` (int8 over the actions), of a random legal one."""
        if probability is not None:
            raise ValueError("CommandSpace.sample takes a mask, not probabilities")
        if mask is None:
            return command(self.config, int(self.np_random.integers(self.num_actions)))
        legal = np.flatnonzero(np.asarray(mask))
        if len(legal) == 0:
            raise ValueError("the mask has no legal action")
        return command(self.config, int(self.np_random.choice(legal)))

    def contains(self, x: Any) -> bool:
        return isinstance(x, str)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"CommandSpace({self.config.cards.name!r}, {self.num_actions} actions)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CommandSpace) and other.config == self.config


class TextEnv(BaseWrapper):
    """``raw_env`` with text observations and commands (see the module docstring).

    Args:
        env: A ``cluedo_v0.raw_env``.
        notepad: Include each player's notepad in its observation.
    """

    def __init__(self, env: cluedo_v0.raw_env, notepad: bool = False) -> None:
        if not isinstance(env, cluedo_v0.raw_env):
            raise TypeError(f"TextEnv wraps a cluedo_v0.raw_env, got {type(env).__name__}")
        reply_words.card_names(env.config)  # an edition with a card no reply can name: ValueError, now
        super().__init__(env)
        self.notepad = notepad
        self.config = env.config
        self.rules = rules_summary(env.config)
        text = spaces.Text(
            max_length=MAX_TEXT, min_length=0, charset="".join(sorted(text_charset(env.config)))
        )
        self._observation_spaces = {
            agent: spaces.Dict({"text": text, "action_mask": env.observation_space(agent)["action_mask"]})
            for agent in env.possible_agents
        }
        self._action_spaces = {agent: CommandSpace(env.config) for agent in env.possible_agents}
        self._history: list[list[np.ndarray]] = [[] for _ in env.possible_agents]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> CommandSpace:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        if seed is not None:
            for p, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(int(seed) + p)  # (a space takes a Python int only)
        self._history = [[] for _ in self.possible_agents]
        self._record()

    def step(self, action: str | None) -> None:
        """Play a command (``None`` for a finished agent); a bad command raises ``CommandError``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            super().step(action)
            self._record(events=False)
            return
        if not isinstance(action, str):
            raise TypeError(f"a TextEnv action is a command string, got {action!r}")
        raw = self.env.unwrapped
        state = raw.game_state
        player = raw.possible_agents.index(agent)
        mask = np.asarray(raw.infos[agent]["action_mask"], dtype=bool)
        chosen = parse_command(self.config, action, mask, room=int(state.location[0, player]))
        super().step(chosen)
        self._record(events=bool(raw.game_state.num_events.item()))

    def _record(self, events: bool = True) -> None:
        """Keep each player's view of the last step's events (``raw_env`` puts them in the infos) where
        it made some, and give every info its ``legal_commands`` (``raw_env`` writes the infos anew)."""
        raw = self.env.unwrapped
        for p, agent in enumerate(raw.possible_agents):
            if events and agent in raw.infos:
                self._history[p].append(np.asarray(raw.infos[agent]["events"]))
        for agent in raw.infos:
            raw.infos[agent]["legal_commands"] = [
                command(self.config, a) for a in np.flatnonzero(raw.infos[agent]["action_mask"])
            ]

    def events(self, agent: str) -> np.ndarray:
        """``int16[n, 7]``: this player's view of every event since the deal."""
        p = self.possible_agents.index(agent)
        rows = self._history[p]
        return np.concatenate(rows) if rows else np.zeros((0, 7), dtype=np.int16)

    def observe(self, agent: str) -> dict[str, Any]:
        raw = self.env.unwrapped
        player = raw.possible_agents.index(agent)
        text = text_view(raw.game_state, player, self.events(agent), notepad=self.notepad)
        return {"text": text, "action_mask": raw.observe(agent)["action_mask"]}

    def __str__(self) -> str:
        return str(self.env)


def text_env(notepad: bool = False, **kwargs: Any) -> TextEnv:
    """``TextEnv(cluedo_v0.raw_env(**kwargs), notepad)``: the Cluedo AEC env in words."""
    return TextEnv(cluedo_v0.raw_env(**kwargs), notepad=notepad)
