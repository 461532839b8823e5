"""Gymnasium environments: one learner seat against opponents that play through the batched Agent interface.

``CluedoSingleAgentEnv`` is one game: ``step(action)`` applies the learner's
action, then the opponents' actions until the learner must decide again (its
next turn, or a refutation it must choose) or the game ends. It passes
Gymnasium's ``check_env``.

``CluedoVectorEnv`` is the same over a batch of ``num_envs`` games, driving the
batched core directly: the opponents act for all games at once through
``Agent.act``, with no per-game Python loop on the hot path. It autoresets in
``AutoresetMode.SAME_STEP`` (declared in ``metadata["autoreset_mode"]``): on the
step where game ``i`` ends, ``terminations[i]`` or ``truncations[i]`` is True,
``rewards[i]`` is that episode's last reward, and ``observations`` already hold
the first observation of the next game; the ended episode's last observation is
``infos["final_obs"][i]`` (an object array of observation dicts, with the mask
``infos["_final_obs"]``) and its facts are in ``infos["final_info"]`` (``winner``,
``learner_seat``, ``turns``, ``illegal_action``, each with its ``_`` mask), as
Gymnasium's ``SyncVectorEnv`` lays them out.

Spaces (both envs; the vector env's ``single_*`` spaces):

- observation: ``Dict(observation=Box(0, 1, (D,), float32), action_mask=Box(0, 1, (A,), int8))``:
  the learner's ``core.observe`` vector (see ``cluedo_v0``'s documentation for
  its index table) and its legal actions. The vector env returns
  ``{"observation": float32[B, D], "action_mask": int8[B, A]}``.
- action: ``Discrete(A)`` (``MultiDiscrete`` of B of them for the vector env). As Gymnasium has it,
  ``reset(seed=s)`` seeds the env and not its spaces: ``env.action_space.seed(s)`` makes ``sample``
  repeat too (``cluedo_v0``'s ``reset`` seeds its players' spaces itself).

Rewards are the learner's, under ``reward_scheme`` (``cluedo_env.rewards.REWARD_SCHEMES``),
on the step that ends the game; 0 otherwise. An illegal action, with
``illegal_action="terminate"`` (default), ends the episode with
``illegal_reward`` (default -1) and ``terminated=True`` without playing it;
with ``"raise"`` it raises ``ValueError``. An action that is not an integer (a float, a bool)
raises ``TypeError`` in either mode; one integer in an array or tensor (``predict()``,
``dist.sample()``) is that integer, as ``core.step`` reads an array of actions.

A wrong accusation puts the learner out, but it still refutes until the game
ends (as the rules have it), and against opponents that never accuse that game
runs to ``max_turns`` with a reward of 0. With ``elimination_reward`` set (for
example -1), the learner's wrong accusation instead ends its episode at once
(``terminated=True``) with that reward: a shorter, clearer signal for learning.

Opponents: a list of ``num_players - 1`` agents (``agents.base.Agent``, or anything
with the methods of ``cluedo_env.table.Player``) or agent names (``"sat"``,
``"module:Class"``, resolved by ``cluedo_env.table.make_player``), seated clockwise
after the learner in list order and driven by ``cluedo_env.table.LearnerTable``; default
the registry's ``"random"`` agent with ``accuse="rarely"``. ``learner_seat`` is a player
index or ``"random"`` (drawn at every reset). A game that ends before the
learner's first decision (possible only with a tiny ``max_turns`` or opponents
that win on their first turn) is dealt again from a seed drawn from the env's
generator, so every episode starts with the learner to act. The vector env redeals single games and
tells each opponent through ``Agent.reset_games(games, seats)``.

An agent object plays in one env at a time: it keeps the notes of that env's games. Every
``reset`` claims the env's opponents (``cluedo_env.table.claim_players``) and refuses, with a
``ValueError`` naming the agent, those that another env still open holds, such as one list of
agents given to both envs of ``gymnasium.make_vec(..., vectorization_mode="sync")``, to each env
of a ``DummyVecEnv`` or to a training and an evaluation env. Give each env its own agent
objects, or agent names (each env then makes its own). An env's agents are free again once it
is closed (``close()``) or garbage-collected. The envs of ``vectorization_mode="async"`` run in
processes of their own, on their own copies of the agents: none is refused for its parent's
claims. ``agents.arena.play_batch`` refuses the agents an open env holds too.

Info (single env): ``action_mask``, ``events`` (``int16[n, 7]``: the event rows
the learner saw since its last decision, through ``core.private_view``; left out with
``events_in_info=False``, for Gymnasium's own vector envs, which cannot stack rows that vary
in number), ``learner_seat`` and, once the game is over, ``winner``; ``illegal_action`` is
True on the step an illegal action ended.

Masks: ``action_masks()`` gives the legal actions now (``bool[A]``, or ``bool[B, A]``
for the vector env), the same as the observation's ``action_mask``. sb3-contrib's
``MaskablePPO`` finds it on the single env with no wrapper; for the vector env,
``cluedo_env.sb3.CluedoSB3VecEnv`` makes it a Stable-Baselines3 ``VecEnv``.

``register_envs()`` registers the Gymnasium id ``"cluedo/Cluedo-v0"`` (``gymnasium.make``
gives the single env, ``gymnasium.make_vec`` the vector env) and PettingZoo's
``"cluedo/cluedo-v0"``.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cluedo_env import cluedo_v0, core
from cluedo_env.cluedo_v0 import SEED_BOUND, check_seed, observation_space, observe_players, unwrap_integer
from cluedo_env.core.config import check_choice
from cluedo_env.core.integers import ONE_INTEGER, one_integer
from cluedo_env.core.state import Phase
from cluedo_env.render import render_ansi, render_rgb
from cluedo_env.rewards import REWARD_SCHEMES
from cluedo_env.table import (
    LearnerTable,
    Player,
    Table,
    claim_players,
    make_player,
    opponent_seats,
    release_players,
)

__all__ = ["GYM_ID", "ILLEGAL_ACTIONS", "CluedoSingleAgentEnv", "CluedoVectorEnv", "register_envs"]

GYM_ID = "cluedo/Cluedo-v0"
ILLEGAL_ACTIONS = ("terminate", "raise")


def register_envs() -> None:
    """Register ``cluedo/Cluedo-v0`` with Gymnasium and ``cluedo/cluedo-v0`` with PettingZoo (idempotent)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="cluedo_env.gym_env:CluedoSingleAgentEnv",
            vector_entry_point="cluedo_env.gym_env:CluedoVectorEnv",
        )
    cluedo_v0.register()


def _config(preset: str | None, config: core.GameConfig | None, rules: dict[str, Any]) -> core.GameConfig:
    """The rules from a preset or a config, and GameConfig field values (a bad one is a ValueError)."""
    if config is not None and not isinstance(config, core.GameConfig):
        raise ValueError(f"config must be a GameConfig or None, got {config!r}")
    if preset is not None and config is not None:
        raise ValueError(f"give a preset or a config, not both (preset={preset!r} and a config were given)")
    base = core.GameConfig.preset(preset) if preset is not None else config or core.GameConfig()
    return base.replace(**rules)


def _opponents(config: core.GameConfig, opponents: Sequence[Player | str] | None) -> list[Player]:
    count = config.num_players - 1
    if opponents is None:
        return [make_player("random", seed=k + 1, accuse="rarely") for k in range(count)]
    if isinstance(opponents, str | Player) or len(opponents) != count:
        raise ValueError(
            f"opponents must be a list of num_players - 1 = {count} agents or names, got {opponents!r}"
        )
    made = [make_player(o, seed=k + 1) if isinstance(o, str) else o for k, o in enumerate(opponents)]
    for agent in made:
        if not isinstance(agent, Player):
            raise ValueError(
                f"opponents must be agents (agents.base.Agent, or any cluedo_env.table.Player) or agent names, "
                f"got {agent!r}"
            )
    if len({id(a) for a in made}) != count:
        raise ValueError("each opponent seat needs its own agent object")
    return made


def _check_common(
    observation_type: str, reward_scheme: str, illegal_action: str, render_mode: str | None, modes: list
) -> None:
    check_choice("observation_type", observation_type, core.OBSERVATION_KINDS)
    check_choice("reward_scheme", reward_scheme, REWARD_SCHEMES)
    check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
    check_choice("render_mode", render_mode, [None, *modes])


def _set_up(
    env: CluedoSingleAgentEnv | CluedoVectorEnv,
    num_games: int,
    learner_seat: int | str,
    opponents: Sequence[Player | str] | None,
    observation_type: str,
    reward_scheme: str,
    illegal_action: str,
    illegal_reward: float,
    elimination_reward: float | None,
    render_mode: str | None,
    preset: str | None,
    config: core.GameConfig | None,
    rules: dict[str, Any],
) -> None:
    """Check the arguments both envs share and set what they hold alike: rules, options, layout, table."""
    env.config = _config(preset, config, rules)
    _check_common(observation_type, reward_scheme, illegal_action, render_mode, env.metadata["render_modes"])
    _check_seat(learner_seat, env.config.num_players)
    env.observation_type = observation_type
    env.reward_scheme = reward_scheme
    env.illegal_action = illegal_action
    for name, value in (("illegal_reward", illegal_reward), ("elimination_reward", elimination_reward)):
        if name == "elimination_reward" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
    env.illegal_reward = float(illegal_reward)
    env.elimination_reward = None if elimination_reward is None else float(elimination_reward)
    env.render_mode = render_mode
    env.layout = core.ActionLayout(env.config)
    env._seat_choice = learner_seat  # a player index or "random", for LearnerTable.start
    players = _opponents(env.config, opponents)
    seats = opponent_seats(np.zeros(num_games, dtype=np.int64), env.config.num_players)
    env.table = LearnerTable(env.config, num_games, Table(players, seats, env.config.num_players))


def _check_seat(learner_seat: int | str, num_players: int) -> None:
    if learner_seat == "random":
        return
    if (
        not isinstance(learner_seat, int | np.integer)
        or isinstance(learner_seat, bool)
        or not 0 <= learner_seat < num_players
    ):
        raise ValueError(
            f"learner_seat must be 'random' or a player in [0, {num_players}), got {learner_seat!r}"
        )


def _one_action(action: object) -> int:
    """The Python int ``action`` is (``core.integers.one_integer``: an int, a numpy integer, or an array or
    tensor of one integer); a ``TypeError`` naming it otherwise (a bool or a float too)."""
    value = one_integer(action)
    if value is None:
        raise TypeError(f"action must be {ONE_INTEGER}, got {action!r}")
    return value


class CluedoSingleAgentEnv(gymnasium.Env):
    """One game of Cluedo from one learner seat; the opponents play in between (see the module docstring).

    Args:
        learner_seat: The learner's player index, or ``"random"`` (drawn at every reset).
        opponents: ``num_players - 1`` agents or agent names (default: random agents that
            accuse rarely), seated clockwise after the learner.
        observation_type: ``"player"`` or ``"seer"``.
        reward_scheme: One of ``cluedo_env.rewards.REWARD_SCHEMES``.
        illegal_action: ``"terminate"`` (end the episode with ``illegal_reward``) or ``"raise"``.
        illegal_reward: The reward of an illegal action with ``illegal_action="terminate"``.
        elimination_reward: None (default: after a wrong accusation the learner refutes until the
            game ends) or the reward with which the learner's wrong accusation ends its episode.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` (the learner's view) or ``"human"`` (printed text).
        events_in_info: Whether ``info`` holds ``events``. Their rows vary in number from step to step,
            which Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` (``gymnasium.make_vec`` with
            ``vectorization_mode="sync"`` or ``"async"``) cannot stack into one array: pass False there.
        preset: None, or a rule preset of ``core.PRESETS`` (an edition as its booklet plays it:
            ``"classic"``, ``"fr_1996"``, ``"de_2023"``, ``"de_2023_duel"``), changed by ``rules``.
        config: A ``core.GameConfig`` (default: the classic rules), changed by ``rules``; not with ``preset``.
        **rules: ``core.GameConfig`` fields (``num_players=4``, ``board="none"``, ...).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        learner_seat: int | str = "random",
        opponents: Sequence[Player | str] | None = None,
        observation_type: str = "player",
        reward_scheme: str = "win_loss",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        elimination_reward: float | None = None,
        render_mode: str | None = None,
        events_in_info: bool = True,
        preset: str | None = None,
        config: core.GameConfig | None = None,
        **rules: Any,
    ) -> None:
        if not isinstance(events_in_info, bool | np.bool_):
            raise ValueError(f"events_in_info must be True or False, got {events_in_info!r}")
        _set_up(
            self, 1, learner_seat, opponents, observation_type, reward_scheme, illegal_action,
            illegal_reward, elimination_reward, render_mode, preset, config, rules,
        )  # fmt: skip
        self.events_in_info = bool(events_in_info)
        self.observation_space = observation_space(self.config, observation_type)
        self.action_space = spaces.Discrete(self.layout.num_actions)
        self.table.learner_events = []
        self._mask = np.zeros(self.layout.num_actions, dtype=np.int8)
        self._ended = True

    @property
    def game_state(self) -> core.State | None:
        """The core state of the game (a batch of one), after ``reset``."""
        return self.table.state

    @property
    def learner_seat(self) -> int:
        """The learner's player index in the current game."""
        return int(self.table.seat[0])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal a game (``seed``: the core's game seed, an int in ``[0, 2**63)``; None draws one) and
        play up to the learner's decision."""
        if seed is not None:
            seed = check_seed(seed)  # refused before the generator is reseeded
        # one env at a time plays these agents (see the module docstring): refused before any change
        claim_players(self.table.players.players, self, "opponents")
        super().reset(seed=seed)
        self.table.learner_events = []
        seeds = None if seed is None else [seed]
        self.table.start(np.zeros(1, dtype=np.int64), self.np_random, seeds, self._seat_choice)
        self._ended = False
        observation, info = self._observation(), self._info()
        if self.render_mode == "human":
            self.render()
        return observation, info

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents' until the learner decides again or the game ends.

        ``action``: one integer, in an array or tensor too (``_one_action``; see the module docstring)."""
        if self._ended:
            raise RuntimeError("the episode is over: call reset() before step()")
        action = _one_action(action)
        if not 0 <= action < len(self._mask) or not self._mask[action]:
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action!r}; the legal actions are the 1s of observation['action_mask']"
                )
            self._ended = True
            observation = self._observation()
            self._mask[:] = 0  # the episode is over: no legal action (in the observation too), no new events
            self.table.learner_events = []
            info = self._info()
            info["illegal_action"] = True
            return observation, self.illegal_reward, True, False, info
        self.table.learner_events = []
        self.table.step(np.array([action], dtype=np.int64))
        if self.elimination_reward is not None and self.table.learner_out()[0]:
            self._ended = True
            observation = self._observation()
            self._mask[:] = 0  # the learner has no more decisions in this episode
            info = self._info()
            return observation, self.elimination_reward, True, False, info
        self.table.advance()
        state = self.table.state
        self._ended = bool(state.done[0])
        reward = float(self.table.rewards(self.reward_scheme)[0])
        observation, info = self._observation(), self._info()
        if self.render_mode == "human":
            self.render()
        return observation, reward, bool(state.terminated[0]), bool(state.truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """``bool[A]``: the learner's legal actions now (all False once the episode is over).

        The same as ``observation["action_mask"]``; the method is where sb3-contrib's
        ``MaskablePPO`` looks for the mask, so it needs no ``ActionMasker`` wrapper.
        """
        return self._mask.astype(bool)

    def _observation(self) -> dict[str, np.ndarray]:
        state = self.table.state
        observation = observe_players(state, self.learner_seat, kind=self.observation_type)[0]
        if state.phase[0] == Phase.OVER:
            self._mask = np.zeros(self.layout.num_actions, dtype=np.int8)
        else:  # the mask the table's steps keep (core.step(..., mask=)), copied: the next step rewrites it
            self._mask = self.table.legal_actions()[0].view(np.int8).copy()
        return {"observation": observation, "action_mask": self._mask}

    def _info(self) -> dict[str, Any]:
        events = self.table.learner_events
        info = {"action_mask": self._mask.copy()}
        if self.events_in_info:
            info["events"] = np.concatenate(events) if events else np.zeros((0, 7), dtype=np.int16)
        info |= {"learner_seat": self.learner_seat, "illegal_action": False}
        if self.table.state.phase[0] == Phase.OVER:
            info["winner"] = int(self.table.state.winner[0])
        return info

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the board as text; ``"rgb_array"``: a picture from the learner's seat; ``"human"``: print."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.table.state is None:
            gymnasium.logger.warn("You are calling render method before reset() has been called.")
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self.table.state, viewer=self.learner_seat)
        text = render_ansi(self.table.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Free the opponents for another env (``cluedo_env.table.release_players``)."""
        release_players(self)


_SINGLE_OPTIONS = inspect.signature(CluedoSingleAgentEnv)
_VECTOR_OPTIONS = _SINGLE_OPTIONS.replace(
    parameters=[p for p in _SINGLE_OPTIONS.parameters.values() if p.name != "events_in_info"]
)


class CluedoVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of Cluedo, one learner seat each, on the batched core (see the module docstring).

    Args:
        num_envs: Games in the batch (B).
        **options: ``CluedoSingleAgentEnv``'s keyword arguments, with its defaults
            (``learner_seat``, ``opponents``, ``observation_type``, ``reward_scheme``,
            ``illegal_action``, ``illegal_reward``, ``elimination_reward``, ``render_mode``,
            ``config`` and the ``core.GameConfig`` fields), but ``events_in_info`` (this env's info
            holds no events); each opponent agent plays its seat in every game of the batch, and
            ``render_mode`` is ``None``, ``"ansi"`` or ``"rgb_array"``: ``render()`` gives one frame
            per game.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 2,
        "autoreset_mode": AutoresetMode.SAME_STEP,
    }

    def __init__(self, num_envs: int = 8, **options: Any) -> None:
        if not isinstance(num_envs, int | np.integer) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        self.num_envs = int(num_envs)
        if "events_in_info" in options:
            raise ValueError(
                "CluedoVectorEnv takes no events_in_info: its info holds no events. The option is the single "
                "env's, for Gymnasium's own vector envs (gymnasium.make_vec with vectorization_mode='sync' or "
                "'async')"
            )
        # The single-agent env's signature is the one list of options and defaults.
        options = _VECTOR_OPTIONS.bind(**options)
        options.apply_defaults()
        _set_up(self, self.num_envs, **options.arguments)
        self.single_observation_space = observation_space(self.config, self.observation_type)
        self.single_action_space = spaces.Discrete(self.layout.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._rows = np.arange(self.num_envs)
        self._mask = np.zeros((self.num_envs, self.layout.num_actions), dtype=bool)

    @property
    def game_state(self) -> core.State | None:
        """The core state of the batch, after ``reset``."""
        return self.table.state

    @property
    def decisions(self) -> int:
        """Every player's decisions played since the env was made, the learners' and the opponents'.

        The agent-steps of ``experiments.train_ppo``'s budgets; the learners' own decisions
        are the steps times ``num_envs``.
        """
        return self.table.decisions

    @property
    def learner_seats(self) -> np.ndarray:
        """``int64[B]``: the learner's player index in each game."""
        return self.table.seat.copy()

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game: ``seed`` gives game i the seed ``seed + i`` (or ``seed[i]`` for a list);
        every game's seed is an int in ``[0, 2**63)``. The env's generator (the learners' seats with
        ``learner_seat="random"``, the seeds of the games dealt later) is seeded by ``seed``, or by the
        whole list (``np_random_seed`` is then -1, as Gymnasium says of a generator no one int seeds).
        A reset after ``close()`` opens the env again (its next ``close()`` frees its agents again)."""
        seeds = None
        seed = unwrap_integer(seed)  # one seed in an array: the first game's
        if seed is not None:  # every argument is checked before any change
            if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
                first = check_seed(seed, top=SEED_BOUND - self.num_envs + 1)  # seed + i, i < num_envs
                seeds = first + np.arange(self.num_envs)
            elif (
                not isinstance(seed, Sequence | np.ndarray)
                or (isinstance(seed, np.ndarray) and seed.ndim == 0)  # (a float or a bool in a 0-d array)
                or len(seed) != self.num_envs
            ):
                raise ValueError(f"seed must be an int or {self.num_envs} ints, got {seed!r}")
            else:
                seeds = np.array([check_seed(s, f"seed[{i}]") for i, s in enumerate(seed)], dtype=np.int64)
        # one env at a time plays these agents (see the module docstring): refused before any change
        claim_players(self.table.players.players, self, "opponents")
        self.closed = False  # open again after a close(), so that the next close() frees the agents again
        if seed is not None:
            if isinstance(seed, int | np.integer):
                self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(int(seed))
            else:  # every seed of the list seeds what comes after (seats, the next deals); no one int is its seed
                words = seeds.astype(np.uint64).view(np.uint32)  # two words a seed: no two lists alike
                self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))
                self._np_random_seed = -1
        self.table.start(self._rows, self.np_random, seeds, self._seat_choice)
        return self._observations(), {}

    def close_extras(self, **kwargs: Any) -> None:
        """Free the opponents for another env (``cluedo_env.table.release_players``; ``close()`` calls it)."""
        release_players(self)

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learners' actions, then the opponents' until every learner decides again; autoreset (same step)."""
        if self.table.state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got {actions!r}")
        in_range = (actions >= 0) & (actions < self.layout.num_actions)
        illegal = ~(in_range & self._mask[self._rows, np.where(in_range, actions, 0)])
        if illegal.any() and self.illegal_action == "raise":
            games = np.flatnonzero(illegal).tolist()
            raise ValueError(f"illegal actions {actions[illegal].tolist()} in games {games}; see action_mask")
        table, state = self.table, self.table.state
        table.step(np.where(illegal, 0, actions), paused=illegal)
        out = np.zeros(self.num_envs, dtype=bool)
        if self.elimination_reward is not None:
            out = table.learner_out() & ~illegal  # their episodes end now: the opponents do not play on
        table.advance(skip=out)
        rewards = np.where(illegal, self.illegal_reward, table.rewards(self.reward_scheme))
        rewards = np.where(out, self.elimination_reward, rewards).astype(np.float64)
        terminations = state.terminated | illegal | out
        truncations = state.truncated & ~illegal & ~out  # (out on the last turn: terminated, as alone)
        ended = np.flatnonzero(terminations | truncations)
        infos: dict[str, Any] = {}
        if len(ended):
            infos = self._final_infos(ended, illegal, out)
            table.start(ended, self.np_random, learner_seat=self._seat_choice)
        return self._observations(), rewards, terminations, truncations, infos

    def action_masks(self) -> np.ndarray:
        """``bool[B, A]``: each game's legal actions now (those of the next game where one just ended).

        The same as ``observations["action_mask"]``, for masked policies that ask the env;
        ``cluedo_env.sb3.CluedoSB3VecEnv`` hands it to sb3-contrib's ``MaskablePPO``.
        """
        return self._mask.copy()

    def _observations(self) -> dict[str, np.ndarray]:
        state = self.table.state
        self._mask = self.table.legal_actions()
        return {
            "observation": observe_players(state, self.table.seat, kind=self.observation_type),
            "action_mask": self._mask.astype(np.int8),
        }

    def _final_infos(self, ended: np.ndarray, illegal: np.ndarray, out: np.ndarray) -> dict[str, Any]:
        """The ended episodes' last observations and facts, laid out as ``SyncVectorEnv`` does.

        ``out``: the learner accused wrongly and its episode ends (with ``elimination_reward``).
        """
        state, B = self.table.state, self.num_envs
        seats = self.table.seat[ended]
        observations = observe_players(state, seats, games=ended, kind=self.observation_type)
        # an ended episode has no decision left (an illegal action's included)
        masks = np.zeros((len(ended), self.layout.num_actions), dtype=np.int8)
        final_obs = np.full(B, None, dtype=object)
        for i, game in enumerate(ended.tolist()):  # only the games that ended this step
            final_obs[game] = {"observation": observations[i], "action_mask": masks[i]}
        present = np.zeros(B, dtype=bool)
        present[ended] = True
        final_info: dict[str, Any] = {}
        facts = {
            "winner": state.winner.astype(np.int64),
            "learner_seat": self.table.seat,
            "turns": state.turns_played,
            "illegal_action": illegal,
        }
        for key, values in facts.items():
            final_info[key] = np.where(present, values, np.zeros_like(values))
            final_info[f"_{key}"] = present.copy()
        return {
            "final_obs": final_obs,
            "_final_obs": present,
            "final_info": final_info,
            "_final_info": present.copy(),
        }

    def render(self) -> tuple[str | np.ndarray, ...] | None:
        """One frame per game: text (``"ansi"``) or pictures from the learners' seats (``"rgb_array"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        state = self.table.state
        if state is None:
            gymnasium.logger.warn("You are calling render method before reset() has been called.")
            return None
        if self.render_mode == "ansi":
            return tuple(render_ansi(state, game) for game in range(self.num_envs))
        return tuple(
            render_rgb(state, game, viewer=int(self.table.seat[game])) for game in range(self.num_envs)
        )
