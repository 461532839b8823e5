"""
# Cluedo

Cluedo (Clue in North America) is a deduction game for 3 to 6 players (2 with
the duel variant). An envelope holds one suspect, one weapon and one room card;
the other cards are dealt to the players. Players move their pawns on a board
of corridors and rooms, suggest a suspect and weapon in the room their pawn is
in, and learn from the other players' refutations (a refuter shows one of the
named cards secretly to the suggester). The first player to accuse the envelope
correctly wins; a wrong accusation puts the player out, though it keeps
refuting. The rules and every variant are those of the project's
[`docs/RULES.md`](../docs/RULES.md),
played by the compiled rules core `cluedo_env.core` on a batch of one game.

| Import             | `from cluedo_env import cluedo_v0`                                        |
|--------------------|---------------------------------------------------------------------------|
| Registry           | `pettingzoo.make("aec", "cluedo/cluedo-v0")` once this module is imported |
| Actions            | Discrete                                                                  |
| Parallel API       | No                                                                        |
| Manual Control     | No                                                                        |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default)      |
| Agents             | `num_players`: 3 to 6; 2 with `duel=True`                                 |
| Action Shape       | (1,)                                                                      |
| Action Values      | [0, 404] (classic cards, `movement="compact"`; see Action Space)          |
| Observation Shape  | (575,) (4 players, classic cards; see Observation Space)                  |
| Observation Values | [0, 1]                                                                    |

## Usage

```python
from cluedo_env import cluedo_v0

env = cluedo_v0.env(num_players=4, render_mode="ansi")
env.reset(seed=42)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        action = env.action_space(agent).sample(observation["action_mask"])
    env.step(action)
env.close()
```

`env()` is `raw_env` wrapped in PettingZoo's `TerminateIllegalWrapper` (an
illegal action ends the game with reward -1 for the player who made it and 0
for the others), `AssertOutOfBoundsWrapper` and `OrderEnforcingWrapper`
(`cluedo_env.wrappers`: the same, reading the env below without a failed lookup).
`raw_env` raises `ValueError` on an illegal action instead. A game ended by an
illegal action has no `GAME_OVER` event (its reasons, `core.events.END_REASONS`,
have none for it, and the envelope stays secret): that step's `events` are
empty, every agent is terminated (and truncated too: the wrapper sets both, so
check `terminated` first), and `render()` names the player (`Game over:
illegal action by P2 (Mrs White)`).

`agent_selection` is the player who decides now: the turn player, or during a
refutation the refuter choosing which card to show. A player who accused
wrongly stays among the live agents (not terminated) until the game ends,
because it still refutes. When the game ends every agent is terminated (or
truncated, at `max_turns`) and steps `None` once, in turn, as in PettingZoo's
classic environments.

For single-agent training (one learner seat against agents) and batched
training, `cluedo_env.gym_env` has the Gymnasium forms `CluedoSingleAgentEnv`
and `CluedoVectorEnv`.

`reset(seed=s)` plays the core's game `s` (the deal and every roll follow from
`s`, so `core.init(config, [s])` with the same actions replays it) and seeds
player `p`'s action space with `s + p`, so that the example above, whose actions
`sample` draws, plays the same game at every run; `reset()` without a seed draws
the game seed from the environment's generator, which a seeded reset reseeds.

## Observation Space

The observation is a dict: `"observation"`, the float32 vector below, and
`"action_mask"`, an int8 vector over the actions (1 = legal). The mask is all
zeros for every player but the one deciding now, and for everyone once the game
is over. `infos[agent]` holds the same `"action_mask"` and `"events"`: the
`int16[n, 7]` event rows of the last step as that player sees them (`core.events`
explains the rows; after `reset` they are the deal, in which each player sees
only its own cards). Player axes are relative to the viewer: index `j` is player
`(viewer + j) % P`, so index 0 is the viewer itself.

The vector is `core.observe(state, player)`, built from named pieces
(`core.observation_pieces(config)` gives their names, shapes and offsets). For
the default config (4 players, classic cards, `observation_type="player"`):

| indices | piece            | shape  | meaning                                                                 |
|---------|------------------|--------|-------------------------------------------------------------------------|
| 0-20    | `hand`           | 21     | 1 for each card the viewer holds                                        |
| 21-41   | `unseen`         | 21     | 1 for each card the viewer has not seen (hand, shown, looked at)        |
| 42-125  | `shown_to_me`    | 4 x 21 | player j showed the viewer card c                                       |
| 126-146 | `face_down_seen` | 21     | face-down cards the viewer looked at (duel)                             |
| 147-230 | `passed`         | 4 x 21 | player j passed on a suggestion naming card c                           |
| 231-314 | `showed`         | 4 x 21 | times (/ 4, at most 1) player j showed a card for a suggestion naming c |
| 315-398 | `accused`        | 4 x 21 | player j accused wrongly naming card c                                  |
| 399-402 | `eliminated`     | 4      | player j is out (accused wrongly)                                       |
| 403-462 | `pawn_room`      | 6 x 10 | room of each suspect's pawn (last column: in no room)                   |
| 463-474 | `pawn_square`    | 6 x 2  | (row / 24, col / 23) of a pawn on a square                              |
| 475-528 | `weapon_room`    | 6 x 9  | room of each weapon                                                     |
| 529-537 | `room_distance`  | 9      | moves from the viewer's pawn into each room / 33 (0 inside)             |
| 538-543 | `phase`          | 6      | one-hot phase: turn, move, suggest, refute, accuse, over                |
| 544     | `dice`           | 1      | total of the last roll / 12 (0 before a roll)                           |
| 545-548 | `turn_player`    | 4      | whose turn it is                                                        |
| 549-552 | `current_player` | 4      | who decides now (the refuter while refuting)                            |
| 553-573 | `suggestion`     | 21     | the three cards of the current suggestion                               |
| 574     | `turn`           | 1      | turn / max_turns                                                        |

With `C` cards, `P` players, `S` suspects, `W` weapons and `R` rooms, the size is
`4C + 4PC + 3P + S(R + 3) + WR + R + 8`: every piece with a `P` axis grows with
the player count (classic cards: 401, 488, 575, 662, 749 for 2 to 6 players), and
editions with a 7th weapon add a card (`C = 22`) and a weapon row.
With `board="none"` the pieces `pawn_square` and `room_distance` stay 0.
`observation_type="seer"` appends `owner` (`C x (P + 2)`: who holds each card,
the envelope's cards, face-down duel cards), which reveals the hidden cards: it
is meant for debugging and oracle baselines, never for a fair player.

## Action Space

One flat `Discrete(A)` space of named ranges (`core.ActionLayout`; `encode`,
`decode` and `action_to_string` convert). For the default config:

| actions | range           | size | meaning                                                         |
|---------|-----------------|------|-----------------------------------------------------------------|
| 0       | `roll`          | 1    | roll the dice (start of a turn)                                 |
| 1       | `passage`       | 1    | take the secret passage instead of rolling                      |
| 2       | `stay`          | 1    | stay in the room to suggest there again                         |
| 3       | `no_move`       | 1    | after a roll with every way blocked: stay put                   |
| 4-12    | `enter`         | 9    | enter room r (after a roll; with board='none': go to room r)    |
| 13-21   | `toward`        | 9    | head toward room r (stop on the reachable square nearest to it) |
| 22-57   | `suggest`       | 36   | suggest suspect s with weapon w, in this room (index s * W + w) |
| 58      | `no_suggestion` | 1    | end the move without suggesting                                 |
| 59-79   | `show`          | 21   | (refuter) show card c to the suggester                          |
| 80-403  | `accuse`        | 324  | accuse suspect s, weapon w, room r (index (s * W + w) * R + r)  |
| 404     | `end_turn`      | 1    | end the turn without accusing                                   |

With `movement="squares"` the `toward` range is replaced by `square`, one action
per playable square of the board (188), and later ranges shift (A = 584).
Editions with 7 weapons widen `suggest`, `show` and `accuse` (A = 466). The
player count does not change the action space.

## Rewards

Rewards arrive on the step that ends the game; every other step gives 0. The
`reward_scheme` argument picks them:

| `reward_scheme`        | winner | each other player | every player accused wrongly | truncated at `max_turns` |
|------------------------|--------|-------------------|------------------------------|--------------------------|
| `"win_loss"` (default) | +1     | -1                | -1 each                      | 0                        |
| `"win_only"`           | +1     | 0                 | 0                            | 0                        |
| `"zero_sum"`           | +1     | -1 / (P - 1)      | 0                            | 0                        |

`"win_loss"` is the core's own `state.rewards`.

## Variants

`preset` picks an edition as its booklet plays it (`core.PRESETS`, sources in the
project's [`docs/RULES.md`](../docs/RULES.md)): `"classic"` (default: the 1996 rules),
`"fr_1996"` (the same with the French cards), `"de_2023"` (the 2023 German rules:
accusations only from a room) and `"de_2023_duel"` (their duel for two). Every
field of `core.GameConfig` is also a keyword argument, changing the preset's
value; the classic preset's values are:

| argument          | default     | alternatives                                                     |
|-------------------|-------------|------------------------------------------------------------------|
| `edition`         | `"classic"` | `"classic_fr"`, `"classic_fr_1999"`, `"classic_fr_2000"` (7 weapons), `"de_2023"` |
| `num_players`     | 4           | 3 to 6; 2 with `duel=True`                                       |
| `board`           | `"classic"` | `"none"`: no movement, each turn the player picks a room          |
| `dice`            | 2           | 1                                                                |
| `stay_in_room`    | True        | False: a pawn must leave its room before suggesting again       |
| `accuse_anywhere` | True        | False: accuse only from a room                                   |
| `start_player`    | `"dice"`    | `"scarlet"`, `"random"`                                          |
| `duel`            | False       | True: 2 players, 4 cards face down on the corner rooms           |
| `max_turns`       | 500         | 1 to 32,767 (then the game is truncated)                         |
| `movement`        | `"compact"` | `"squares"`: one action per reachable square                     |
| `auto_refute`     | False       | True: a refuter holding one named card shows it without a step   |
| `deal`            | `"keys"`    | `"uniform"`: a uniform shuffle (`"keys"`: as every published game; docs/RULES.md, Set-up) |

and `observation_type` (`"player"` or `"seer"`), `reward_scheme` (above) and
`render_mode` (`"ansi"`: the board as text, `"rgb_array"`: a picture,
`"human"`: the text printed after every step). The frames are a spectator's, not
a player's: the picture names the card a refuter showed in the last step (the
Gymnasium envs draw from the learner's seat). A bad value raises `ValueError`
naming the value and what is accepted.

## Version History

* v0: Initial release.
"""

from __future__ import annotations

import inspect
from dataclasses import fields
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.core.config import check_choice
from cluedo_env.core.integers import ONE_INTEGER, one_integer
from cluedo_env.core.state import Phase
from cluedo_env.render import render_ansi, render_rgb
from cluedo_env.rewards import REWARD_SCHEMES, final_rewards
from cluedo_env.space_tables import PIECE_MEANINGS, RANGE_MEANINGS, action_table, observation_table
from cluedo_env.transcript import player_name
from cluedo_env.wrappers import AssertOutOfBounds, OrderEnforcing, TerminateIllegal

__all__ = [
    "PIECE_MEANINGS",
    "RANGE_MEANINGS",
    "REWARD_SCHEMES",
    "action_table",
    "check_seed",
    "env",
    "final_rewards",
    "observation_space",
    "observation_table",
    "observe_players",
    "raw_env",
    "register",
    "unwrap_integer",
]

REGISTRY_ID = "cluedo/cluedo-v0"
SEED_BOUND = core.SEED_BOUND  # game seeds lie in [0, 2**63), drawn ones too


def observation_space(config: core.GameConfig, kind: str = "player") -> spaces.Dict:
    """One player's observation space: ``observation`` (float32 in [0, 1]) and ``action_mask`` (int8)."""
    A, D = core.ActionLayout(config).num_actions, core.observation_size(config, kind)
    return spaces.Dict(
        {
            "observation": spaces.Box(low=0.0, high=1.0, shape=(D,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(A,), dtype=np.int8),
        }
    )


def observe_players(
    state: core.State, players: np.ndarray | int, games: np.ndarray | None = None, kind: str = "player"
) -> np.ndarray:
    """``core.observe``: the one place every env of the package observes (values lie in [0, 1])."""
    return core.observe(state, players, games=games, kind=kind)


def unwrap_integer(value: object) -> object:
    """The integer in ``value`` when it is a 0-d integer numpy array, else ``value`` itself: how the envs
    read a seed (where a 1-D array is a seed per game). An action is read by ``core.integers.one_integer``."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return value.item()
    return value


def check_seed(seed: object, what: str = "seed", top: int = SEED_BOUND) -> int:
    """``seed`` as a Python int if it is an integer (an int, a numpy integer or one in a 0-d array;
    not a bool) in ``[0, top)``, the core's game seeds; a ``ValueError`` naming it and the range
    otherwise (before any change). Every env's ``reset`` reads its seeds so."""
    seed = unwrap_integer(seed)
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or not 0 <= seed < top:
        bound = "2**63" if top == SEED_BOUND else f"2**63 - {SEED_BOUND - top}"
        raise ValueError(
            f"{what} must be an int in [0, {bound}) (a numpy integer, or one in a 0-d array: a game seed "
            f"of the core), got {seed!r}"
        )
    return int(seed)


def env(**kwargs: Any) -> AECEnv:
    """The Cluedo AEC environment with PettingZoo's standard wrappers (see the module docstring)."""
    environment = raw_env(**kwargs)
    environment = TerminateIllegal(environment, illegal_reward=-1)
    environment = AssertOutOfBounds(environment)
    environment = OrderEnforcing(environment)
    return environment


def _config_fields() -> list[str]:
    """The fields of ``core.GameConfig`` that the env takes as keywords."""
    return sorted(field.name for field in fields(core.GameConfig) if field.init)


class raw_env(AECEnv):
    """The unwrapped Cluedo AEC environment over the core (one game).

    It pickles and deep-copies with the game under way: a copy continues exactly as the
    original would (same state, generator, agents, rewards and masks).

    Args:
        preset: A rule preset of ``core.PRESETS`` (an edition as its booklet plays it:
            ``"classic"``, ``"fr_1996"``, ``"de_2023"``, ``"de_2023_duel"``).
        observation_type: ``"player"`` (what the player may know) or ``"seer"``
            (everything, for debugging and oracles).
        reward_scheme: One of ``REWARD_SCHEMES`` (``cluedo_env.rewards``).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        **rules: Fields of ``core.GameConfig`` (``edition``, ``num_players``, ``board``,
            ... as in the module's "Variants" table), changing the preset's (``None``: the
            preset's value; the classic preset's are ``GameConfig``'s defaults, the classic
            1996 rules). An unknown keyword raises ``ValueError`` listing the keywords taken.

    Attributes:
        config: The ``core.GameConfig``.
        layout: The ``core.ActionLayout`` (``action_to_string`` etc.).
        game_state: The core ``State`` of the game (a batch of one), after ``reset``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "cluedo_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        preset: str = "classic",
        observation_type: str = "player",
        reward_scheme: str = "win_loss",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        super().__init__()
        unknown = sorted(set(rules) - set(_config_fields()))
        if unknown:
            own = [name for name in inspect.signature(raw_env).parameters if name != "rules"]
            raise ValueError(
                f"unknown keyword argument(s) {unknown}; the env takes {own} and the GameConfig "
                f"fields {_config_fields()}"
            )
        # The preset's rules with the fields given changed (validated; None keeps the preset's value).
        base = core.GameConfig.preset(preset)
        self.config = base.replace(
            **{k: getattr(base, k, None) if v is None else v for k, v in rules.items()}
        )
        check_choice("observation_type", observation_type, core.OBSERVATION_KINDS)
        check_choice("reward_scheme", reward_scheme, REWARD_SCHEMES)
        check_choice("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        self.observation_type = observation_type
        self.reward_scheme = reward_scheme
        self.render_mode = render_mode
        self.layout = core.ActionLayout(self.config)

        P = self.config.num_players
        self.possible_agents = [f"player_{p}" for p in range(P)]
        self.agents = self.possible_agents[:]
        self._index = {agent: p for p, agent in enumerate(self.possible_agents)}
        A = self.layout.num_actions
        self.action_spaces = {agent: spaces.Discrete(A) for agent in self.possible_agents}
        self.observation_spaces = {
            agent: observation_space(self.config, observation_type) for agent in self.possible_agents
        }
        self._mask_shape = (1, A)  # the legal actions of the batch of one game, as core.step writes them
        self._no_actions = np.zeros(A, dtype=np.int8)
        self._no_actions.flags.writeable = False  # shared by every player that does not decide
        self._viewers = np.arange(P)[:, None]
        self._rng = np.random.default_rng()  # reseeded by reset(seed=...)
        self._mask = self._no_actions
        self.game_state: core.State | None = None
        self._ending: str | None = None  # why the game ended, when it ended outside the rules

    # --- spaces ---------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # --- the game -------------------------------------------------------------------

    def __setstate__(self, fields: dict) -> None:
        # Pickling copies every attribute (the game under way included); the arrays shared by the
        # players' observations and infos are read-only again, as ``_after_core_step`` made them.
        self.__dict__.update(fields)
        for info in self.infos.values() if hasattr(self, "infos") else ():
            for value in info.values():
                if isinstance(value, np.ndarray):  # (a wrapper's infos may hold other values)
                    value.setflags(write=False)
        for array in (self._no_actions, self._mask):
            array.setflags(write=False)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: game ``seed`` of the core (an int, numpy integer or 0-d integer array in
        ``[0, 2**63)``, as ``core.init`` takes), or one drawn from the env's generator. A seed also
        seeds player ``p``'s action space with ``seed + p`` (as ``TextEnv`` seeds its command spaces),
        so that its ``sample(mask)`` plays the same game again. Any other seed raises ``ValueError``
        before any change."""
        if seed is not None:
            seed = check_seed(seed)
            state = core.init(self.config, [seed])
            self._rng = np.random.default_rng(seed)
            for p, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + p)
        else:
            state = core.init(self.config, [int(self._rng.integers(SEED_BOUND))])
        self.game_state = state
        self._ending = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._after_core_step()

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action: one integer (``core.integers.one_integer``: an int, a numpy
        integer, or an array or tensor of one integer) legal in its mask, or ``None`` for an agent whose
        game is over. Anything that is not one integer (a float, a bool) raises ``TypeError``; an integer
        out of range or that the mask forbids, ``ValueError``."""
        if self.game_state is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            raise RuntimeError(
                "the game is over and every agent has stepped None: call reset() for a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if self.game_state.phase.item() != Phase.OVER:
                self._end_game_outside("the agents were terminated outside the rules")
            self._was_dead_step(action)
            return
        mask = self._mask
        value = one_integer(action)
        if value is None:
            raise TypeError(
                f"action must be {ONE_INTEGER} in [0, {len(mask)}) legal for {agent}, got {action!r}"
            )
        if not (0 <= value < len(mask) and mask[value]):
            raise ValueError(self._illegal_message(agent, value))
        self._cumulative_rewards[agent] = 0.0
        # The mask of this decision was computed after the previous step: no need for the core's check.
        # The step writes the legal actions after it into a new array (the players' observations and
        # infos of this step keep theirs), in its own pass: no second call works them out.
        after = np.empty(self._mask_shape, dtype=bool)
        core.step(self.game_state, [value], check=False, mask=after)
        self._after_core_step(after)
        if self.render_mode == "human":
            self.render()

    def _illegal_message(self, agent: str, action: int) -> str:
        in_range = 0 <= action < len(self._mask)
        what = f" ({self.layout.action_to_string(action)})" if in_range else ""
        phase = Phase.NAMES[self.game_state.phase[0]]
        return (
            f"illegal action {action!r}{what} for {agent} in phase {phase!r}; "
            f"the legal actions are the 1s of infos[{agent!r}]['action_mask']"
        )

    def _deads_step_first(self) -> str:
        # PettingZoo's TerminateIllegalWrapper ends the game from outside after an illegal action
        # (every agent terminated) and then calls this, the selected agent being the one who made
        # it: the core game ends with it.
        if self.game_state is not None and self.game_state.phase.item() != Phase.OVER:
            player = self._index[self.agent_selection]
            self._end_game_outside(f"illegal action by {player_name(self.config, player)}")
        return super()._deads_step_first()

    def _end_game_outside(self, ending: str) -> None:
        """End the core game when the agents were terminated from outside the rules (an illegal
        action under ``TerminateIllegalWrapper``): terminated, no winner, nobody to decide, every
        mask all zeros, no events (``GAME_OVER`` has no reason for it), and ``ending`` kept for
        ``render``'s result line."""
        state = self.game_state
        state.phase[0] = Phase.OVER
        state.current_player[0] = -1
        state.terminated[0] = True
        self._ending = ending
        self._mask = self._no_actions
        views = self._event_views(state.events[0][:0])
        for info, view in zip(self.infos.values(), views):
            info["action_mask"] = self._no_actions
            info["events"] = view

    def _after_core_step(self, legal: np.ndarray | None = None) -> None:
        """Selection, mask, infos and, at the end of the game, rewards and terminations.

        Runs after ``reset`` and after every step of a live agent, so it is kept to a few array
        calls: a game of one has Python scalars for its phase and players. ``legal``: the
        ``bool[1, A]`` legal actions the step wrote (``core.step(..., mask=)``); None (after a
        deal): worked out here.
        """
        state = self.game_state
        views = self._event_views(state.events[0][: state.num_events.item()])  # (state.step_events(0))
        no_actions = self._no_actions
        if state.phase.item() == Phase.OVER:
            self._mask = no_actions
            self._clear_rewards()
            rewards = final_rewards(self.reward_scheme, state.rewards, state.winner)[0].tolist()
            for agent, reward in zip(self.possible_agents, rewards):
                self.rewards[agent] = reward
            self.terminations = dict.fromkeys(self.agents, bool(state.terminated[0]))
            self.truncations = dict.fromkeys(self.agents, bool(state.truncated[0]))
            self._accumulate_rewards()
            # agent_selection stays on the player who ended the game: it takes the first dead step.
            self.infos = {
                agent: {"action_mask": no_actions, "events": view}
                for agent, view in zip(self.possible_agents, views)
            }
            return
        # Before the step that ends the game every reward is 0 (set by reset, never changed):
        # nothing to clear.
        if legal is None:
            legal = core.legal_action_mask(state)
        mask = legal[0].view(np.int8)
        mask.setflags(write=False)
        self._mask = mask
        player = state.current_player.item()
        self.agent_selection = selected = self.possible_agents[player]
        self.infos = {
            agent: {"action_mask": mask if agent == selected else no_actions, "events": view}
            for agent, view in zip(self.possible_agents, views)
        }

    def _event_views(self, rows: np.ndarray) -> list[np.ndarray]:
        """Each player's view of this step's event rows (read-only; shared when nothing is private)."""
        shared = rows.copy()  # the state's events are overwritten by the next step
        shared.setflags(write=False)
        if max(shared[:, ev.CARD].tolist(), default=-1) < 0:  # no card in any row: all see the same
            return [shared] * self.config.num_players
        views = core.private_view(shared, self._viewers)
        views.setflags(write=False)
        return list(views)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        observation = observe_players(self.game_state, self._index[agent], kind=self.observation_type)[0]
        decides = agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        )
        mask = self._mask if decides else self._no_actions
        return {"observation": observation, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple:
        if self.game_state is None:
            raise RuntimeError("last() before reset(): call reset() first")
        return super().last(observe)

    # --- rendering ------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the board as text; ``"rgb_array"``: a picture; ``"human"``: print the text."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game_state is None:
            gymnasium.logger.warn("You are calling render method before reset() has been called.")
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self.game_state, ending=self._ending)
        text = render_ansi(self.game_state, ending=self._ending)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release (rendering opens no window)."""


def register() -> None:
    """Register ``cluedo/cluedo-v0`` in PettingZoo's registry (idempotent; done when this module is imported)."""
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):  # PettingZoo before 1.26 has no registry
        return
    if REGISTRY_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", REGISTRY_ID, entry_point="cluedo_env.cluedo_v0:env")


register()
