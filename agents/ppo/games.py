"""The learner's games: a batch of games on the core, one seat per game for the learner.

``LearnerGames`` keeps B games running on the batched core. In each game the
learner holds one seat (rotated from deal to deal) and the other P - 1 seats
are played by opponents of one kind, drawn from a weighted pool when the game
is dealt (``set_pool``). Games are dealt again as soon as they end (autoreset),
so the batch stays full and no Python loop runs per game on the hot path:

    seats, obs, mask = games.learner_turn()     # the games where the learner decides now
    reward, over = games.step(learner_actions)  # opponents act, the core steps, games are re-dealt

The games are a ``cluedo_env.table.LearnerTable``, the driver of the Gymnasium envs, and
the opponents ordinary batched agents (``agents.base.Agent``) on its ``cluedo_env.table.Table``,
the one ``agents.arena.play_batch`` uses: ``reset``, ``observe`` with their ``core.private_view``
of every step's events, ``act`` where they decide. Unlike the Gymnasium envs, a step is one
core step of every game (``LearnerTable.step``: the learner's games and the opponents'
together, never ``advance``), so that each rollout step holds the games where the learner
decides at that step; the deals (seeds and seats from the deal count, opponent kinds from the
pool) and the rewards are these games' own. One agent object per (kind, opponent slot) covers
the whole batch; when a game is dealt again, ``Agent.reset_games`` makes that object forget it.

Rewards are the learner's only: ``state.rewards[:, seat]`` when a game ends
(+1 win, -1 another player wins or everybody accused wrongly, 0 truncated),
plus ``wrong_accusation_penalty`` on the step of a wrong accusation. With
``end_episode_on_elimination`` a wrong accusation ends the learner's episode at
once with -1 (+ the penalty) and the game is dealt again: the eliminated
learner could only lose or, at truncation, draw 0, and the games it merely
watches would cost compute without teaching it anything. Without it the game goes
on and the learner's result comes when the game ends, on whatever step that is;
``experiments/train_ppo.py`` refuses that setting (``TrainConfig.validate``), as
that step often falls in a later rollout than the learner's wrong accusation,
with no decision of the learner to credit it to.

With ``belief_features`` the learner's observations carry the belief pieces
(``agents.ppo.features``) after the core's, from a ``BeliefFeatures`` of the
learner's seat fed with every step's events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from agents.base import Agent
from agents.ppo.agent import PPOAgent
from agents.ppo.features import BeliefFeatures, learner_observation
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.table import LearnerTable, Table, opponent_seats

__all__ = ["OUTCOMES", "RETIRED", "LearnerGames", "OpponentKind", "OpponentTable"]

# How a learner's episode ended.
OUTCOMES = ("win", "loss", "wrong_accusation", "truncated")
WIN, LOSS, WRONG, TRUNCATED = range(len(OUTCOMES))
RETIRED = "retired"  # the name of a kind no game uses any more (its agents are gone)
DEAL_SEED_STRIDE = 1_000_000_000  # deal d of a run with seed s uses core seed s * stride + d


@dataclass
class OpponentKind:
    """One kind of opponent: an agent of the registry, or a frozen copy of the learner.

    Attributes:
        label: Name in logs and in the pool (unique).
        name: ``agents.registry`` name or ``"module:Class"`` (ignored with ``network``).
        options: Constructor options of the agent.
        network: A frozen ``ActorCritic`` (a snapshot of the learner), played by ``PPOAgent``.
        group: Label under which results are aggregated (default: ``label``).
    """

    label: str
    name: str = "random"
    options: dict[str, Any] = field(default_factory=dict)
    network: Any = None
    group: str | None = None

    def make(self, seed: int) -> Agent:
        """A new agent of this kind."""
        if self.network is not None:
            return PPOAgent.from_network(self.network, seed=seed)
        return make_agent(self.name, seed=seed, **self.options)


class OpponentTable:
    """The opponents of a batch: P - 1 agents of one kind in each game.

    ``agents[label][k]`` plays opponent slot ``k`` (seat ``learner + 1 + k``) in
    every game of kind ``label``; it is reset for the whole batch when the kind
    is first used, then game by game (``reset_games``) as games are dealt.
    ``players`` seats every kind's agents in the games of their kind
    (``cluedo_env.table.Table``, which asks them to act and shows them events); it is
    one object for good, its players seated anew as agents come or go.
    """

    def __init__(self, config: core.GameConfig, learner_seat: np.ndarray, seed: int) -> None:
        self.config = config
        self.P = config.num_players
        self.batch = len(learner_seat)
        self.seed = seed
        self.kinds: dict[str, OpponentKind] = {}
        self.labels: list[str] = []  # kind index -> label
        self.agents: dict[str, list[Agent]] = {}
        self.kind_of = np.full(self.batch, -1, dtype=np.int64)
        self.seats = opponent_seats(learner_seat, self.P)  # [P-1, B]
        self.made = 0  # agents made so far (seeds)
        self.players = Table([], self._seat_rows(np.arange(self.batch)), self.P)

    def index(self, kind: OpponentKind) -> int:
        """The kind's index (registering it on first use)."""
        if kind.label not in self.kinds:
            self.kinds[kind.label] = kind
            self.labels.append(kind.label)
        return self.labels.index(kind.label)

    def _new_agent(self, kind: OpponentKind) -> Agent:
        self.made += 1
        return kind.make(seed=self.seed * 1000 + self.made)

    def _seat_rows(self, games: np.ndarray) -> np.ndarray:
        """``int64[agents, len(games)]``: each agent's seat in ``games``, -1 where another kind plays."""
        rows = [
            np.where(self.kind_of[games] == self.labels.index(label), self.seats[slot, games], -1)
            for label, agents in self.agents.items()
            for slot in range(len(agents))
        ]
        return np.array(rows, dtype=np.int64).reshape(len(rows), len(games))

    def _seat_agents(self) -> None:
        """Seat every kind's agents at ``players`` (after agents come or go)."""
        agents = [agent for kind in self.agents.values() for agent in kind]
        self.players.seat_players(agents, self._seat_rows(np.arange(self.batch)))

    def assign(
        self, games: np.ndarray, kinds: np.ndarray, learner_seat: np.ndarray, deal_seeds: np.ndarray
    ) -> None:
        """Seat opponents of kind ``kinds[i]`` (indices) in the newly dealt ``games[i]``."""
        self.kind_of[games] = kinds
        self.seats[:, games] = opponent_seats(learner_seat, self.P)
        fresh = []
        for k in np.unique(kinds):
            label = self.labels[k]
            if label not in self.agents:  # first use: one agent per slot, reset on the whole batch
                self.agents[label] = [self._new_agent(self.kinds[label]) for _ in range(self.P - 1)]
                for slot, agent in enumerate(self.agents[label]):
                    agent.reset(self.config, self.seats[slot].copy(), seed=agent.seed + int(deal_seeds[0]))
                fresh.append(k)
        if fresh:
            self._seat_agents()
        else:
            self.players.seat(games, self._seat_rows(games))
        self.players.reset_games(games[~np.isin(kinds, fresh)])

    def state_dict(self) -> dict[str, Any]:
        """The kinds met so far (a snapshot's weights with it), every agent's memory, who sits where."""
        kinds = []
        for label in self.labels:
            kind = self.kinds[label]
            weights = None
            if kind.network is not None:
                weights = {k: v.detach().numpy().copy() for k, v in kind.network.state_dict().items()}
            kinds.append(
                {
                    "label": label,
                    "name": kind.name,
                    "options": kind.options,
                    "group": kind.group,
                    "network": weights,
                }
            )
        return {
            "kinds": kinds,
            "agents": [
                [label, [agent.state_dict() for agent in agents]] for label, agents in self.agents.items()
            ],
            "kind_of": self.kind_of.copy(),
            "seats": self.seats.copy(),
            "made": self.made,
        }

    def load_state_dict(self, state: Mapping[str, Any], network: Callable[[Mapping[str, Any]], Any]) -> None:
        """Continue from ``state_dict``'s output; ``network(weights)`` rebuilds a snapshot's frozen network."""
        self.kinds, self.labels = {}, []
        for saved in state["kinds"]:
            weights = saved["network"]
            kind = OpponentKind(
                saved["label"],
                saved["name"],
                dict(saved["options"]),
                network=None if weights is None else network(weights),
                group=saved["group"],
            )
            self.index(kind)
        self.agents = {}
        for label, agents in state["agents"]:
            self.agents[label] = []
            for saved in agents:
                agent = self.kinds[label].make(seed=int(saved["seed"]))
                agent.load_state_dict(self.config, saved)
                self.agents[label].append(agent)
        self.kind_of[...] = state["kind_of"]
        self.seats[...] = state["seats"]
        self.made = int(state["made"])
        self._seat_agents()

    def drop_unused(self, keep: set[str]) -> None:
        """Forget the agents of kinds that no game uses and that are not in ``keep``."""
        used = {self.labels[k] for k in np.unique(self.kind_of) if k >= 0}
        for label in list(self.agents):
            if label not in used and label not in keep:
                for agent in self.agents.pop(label):
                    agent.close()
                # Keep the label (indices stay valid) but not a snapshot's network.
                self.kinds[label] = replace(self.kinds[label], network=None, name=RETIRED)
        self._seat_agents()


class LearnerGames:
    """B games in which the learner holds one seat each (see the module docstring).

    Args:
        config: The rules.
        num_games: B.
        seed: Seeds the deals (deal ``d`` uses core seed ``seed * DEAL_SEED_STRIDE + d``),
            the draws of opponent kinds and the opponents' own generators.
        wrong_accusation_penalty: Added to the learner's reward on a wrong accusation.
        end_episode_on_elimination: A wrong accusation ends the learner's episode (reward -1
            plus the penalty) and the game is dealt again.
        belief_features: Append the learner's belief pieces to its observations.
    """

    def __init__(
        self,
        config: core.GameConfig,
        num_games: int,
        seed: int,
        wrong_accusation_penalty: float = 0.0,
        end_episode_on_elimination: bool = True,
        belief_features: bool = False,
    ) -> None:
        self.config = config
        self.P = config.num_players
        self.B = num_games
        self.seed = seed
        self.wrong_accusation_penalty = float(wrong_accusation_penalty)
        self.end_episode_on_elimination = end_episode_on_elimination
        self.rng = np.random.default_rng(seed)
        self.next_deal = 0
        self.table = OpponentTable(config, np.zeros(num_games, dtype=np.int64), seed)
        self.learner_table = LearnerTable(config, num_games, self.table.players)
        self.beliefs = BeliefFeatures(config, self.learner_seat) if belief_features else None
        self.pool: list[int] = []  # kind indices
        self.weights = np.zeros(0)
        # The current episode of each game.
        self.episode_return = np.zeros(num_games, dtype=np.float64)
        self.episode_length = np.zeros(num_games, dtype=np.int64)  # learner decisions (not forced ones)
        self.accused_wrongly = np.zeros(num_games, dtype=bool)
        self.finished: list[dict[str, np.ndarray]] = []
        self._mask: np.ndarray | None = None
        self._learner_games = self._forced = np.zeros(0, dtype=np.int64)

    @property
    def state(self) -> core.State | None:
        """The batch (``LearnerTable.state``), once dealt."""
        return self.learner_table.state

    @property
    def learner_seat(self) -> np.ndarray:
        """``int64[B]``: the learner's seat in each game (``LearnerTable.seat``)."""
        return self.learner_table.seat

    # -- pool and deals --------------------------------------------------------------

    def set_pool(self, kinds: list[OpponentKind], weights: list[float]) -> None:
        """Opponent kinds for the games dealt from now on, drawn with probability proportional to ``weights``."""
        weights = np.asarray(weights, dtype=np.float64)
        if len(kinds) == 0 or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(
                f"the pool needs at least one kind with a positive weight, got {weights.tolist()}"
            )
        self.pool = [self.table.index(kind) for kind in kinds]
        self.weights = weights / weights.sum()
        self.table.drop_unused({kind.label for kind in kinds})

    def _deal(self, games: np.ndarray) -> None:
        n = len(games)
        deals = self.next_deal + np.arange(n)
        self.next_deal += n
        seeds = self.seed * DEAL_SEED_STRIDE + deals
        self.learner_table.deal(games, seeds, deals % self.P)
        kinds = np.asarray(self.pool)[self.rng.choice(len(self.pool), size=n, p=self.weights)]
        self.table.assign(games, kinds, self.learner_seat[games], seeds)
        if self.beliefs is not None:
            self.beliefs.reset_games(games, self.learner_seat[games])
        self.episode_return[games] = 0.0
        self.episode_length[games] = 0
        self.accused_wrongly[games] = False

    def start(self) -> None:
        """Deal the first B games (after ``set_pool``)."""
        if not self.pool:
            raise ValueError("call set_pool before start")
        self._deal(np.arange(self.B))
        self._observe()

    def _observe(self) -> None:
        """Show the opponents (and the learner's belief features) the last step's events."""
        self.learner_table.tell(self.state.events)
        if self.beliefs is not None:
            self.beliefs.observe(self.state.events)

    # -- stepping ----------------------------------------------------------------------

    def learner_turn(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(games, obs, mask)``: the games where the learner decides now, its observations and legal actions.

        Decisions with a single legal action (mostly refuting with the one named
        card held) are left out: ``step`` plays them, as there is nothing to learn.
        """
        state = self.state
        self._mask = mask = self.learner_table.legal_actions()  # as the table's steps and deals keep it
        learner = np.flatnonzero(state.current_player == self.learner_seat)
        choice = mask[learner].sum(axis=1) > 1
        games = learner[choice]
        self._learner_games, self._forced = games, learner[~choice]
        return games, learner_observation(self.state, self.learner_seat, games, self.beliefs), mask[games]

    def observe_learner(self) -> np.ndarray:
        """The learner's observation in every game (also where it does not decide now)."""
        return learner_observation(self.state, self.learner_seat, np.arange(self.B), self.beliefs)

    def step(self, learner_actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply the learner's actions (for the games of ``learner_turn``) and the opponents'.

        Returns:
            ``(reward, over)``, ``float32[B]`` the learner's reward of this step and
            ``bool[B]`` whether its episode ended (the game has been dealt again).
        """
        state, games, forced = self.state, self._learner_games, self._forced
        actions = np.zeros(self.B, dtype=np.int64)
        actions[games] = learner_actions
        actions[forced] = np.argmax(self._mask[forced], axis=1)
        self.episode_length[games] += 1
        # the opponents decide in the other games; they are told after the deals below
        self.learner_table.step(actions, mask=self._mask, tell=False)

        reward = np.zeros(self.B, dtype=np.float32)
        kind, who = state.events[:, :, ev.KIND], state.events[:, :, ev.PLAYER]
        wrong = (
            (kind == ev.ACCUSE) & (who == self.learner_seat[:, None]) & (state.events[:, :, ev.CORRECT] == 0)
        ).any(1)
        reward[wrong] += self.wrong_accusation_penalty
        self.accused_wrongly |= wrong
        ended = state.done.copy()
        seat_reward = state.rewards[np.arange(self.B), self.learner_seat]
        outcome = np.where(state.winner == self.learner_seat, WIN, np.where(state.truncated, TRUNCATED, LOSS))
        if self.end_episode_on_elimination:
            reward[wrong] += -1.0
            reward[ended & ~wrong] += seat_reward[ended & ~wrong]
            over = ended | wrong
        else:
            reward[ended] += seat_reward[ended]
            over = ended
        outcome = np.where(self.accused_wrongly, WRONG, outcome)
        self.episode_return += reward
        done = np.flatnonzero(over)
        if len(done):
            self.finished.append(
                {
                    "kind": self.table.kind_of[done].copy(),
                    "outcome": outcome[done],
                    "return": self.episode_return[done].copy(),
                    "length": self.episode_length[done].copy(),
                    "turns": np.where(state.truncated[done], state.turn[done], state.turn[done] + 1),
                }
            )
            self._deal(done)
        self._observe()
        return reward, over

    # -- checkpoints ---------------------------------------------------------------------

    ARRAYS = ("learner_seat", "weights", "episode_return", "episode_length", "accused_wrongly")

    def state_dict(self) -> dict[str, Any]:
        """Everything the games remember, as plain data: numbers, strings, lists, dicts, numpy arrays.

        With ``load_state_dict`` a training run continues from a checkpoint exactly, with no
        pickle (a checkpoint from elsewhere cannot run code). Opponents save their memory through
        ``Agent.state_dict``; a snapshot of the learner saves its weights.
        """
        if self.state is None:
            raise ValueError("call start before state_dict: no games are dealt yet")
        state = {
            "games": self.B,
            "seed": self.seed,
            "rng": self.rng.bit_generator.state,
            "next_deal": self.next_deal,
            "pool": list(self.pool),
            **{name: getattr(self, name).copy() for name in self.ARRAYS},
            "state": {name: array.copy() for name, array in self.state.arrays().items()},
            "finished": [dict(f) for f in self.finished],
            "table": self.table.state_dict(),
        }
        if self.beliefs is not None:
            state["learner_beliefs"] = self.beliefs.state_dict()
        return state

    def load_state_dict(
        self, state: Mapping[str, Any], network: Callable[[Mapping[str, Any]], Any] | None = None
    ) -> None:
        """Continue from ``state_dict``'s output (these games must have its number of games and seed).

        Args:
            state: What ``state_dict`` returned.
            network: Builds a frozen ``ActorCritic`` from a snapshot's weights (needed when a
                snapshot of the learner is among the opponents).

        Raises:
            ValueError: ``state`` is of another number of games or another seed.
        """
        if (state["games"], state["seed"]) != (self.B, self.seed):
            raise ValueError(
                f"these are {self.B} games of seed {self.seed}; the state is of {state['games']} games "
                f"of seed {state['seed']}"
            )

        def no_network(weights: Mapping[str, Any]) -> Any:
            raise ValueError("the state has a snapshot of the learner among its opponents: pass network=")

        self.rng.bit_generator.state = state["rng"]
        self.next_deal = int(state["next_deal"])
        self.pool = [int(k) for k in state["pool"]]
        for name in self.ARRAYS:
            array = np.array(state[name], dtype=getattr(self, name).dtype)
            if name == "learner_seat":
                self.learner_table.seat[...] = array  # (the learner table's own array)
            else:
                setattr(self, name, array)
        self.learner_table.state = core.State(
            config=self.config, **{k: np.array(v) for k, v in state["state"].items()}
        )
        self.finished = [dict(f) for f in state["finished"]]
        self.table.load_state_dict(state["table"], network or no_network)
        if (self.beliefs is not None) != ("learner_beliefs" in state):
            raise ValueError(
                f"these games {'have' if self.beliefs is not None else 'have no'} belief features; "
                f"the state {'has' if 'learner_beliefs' in state else 'has no'} learner beliefs"
            )
        if self.beliefs is not None:
            self.beliefs.load_state_dict(state["learner_beliefs"])

    def pop_finished(self) -> dict[str, np.ndarray]:
        """The episodes finished since the last call: ``kind`` (labels), ``group``, ``outcome``, ``return``, ``length``, ``turns``."""
        keys = ("kind", "outcome", "return", "length", "turns")
        if not self.finished:
            out = {key: np.zeros(0) for key in keys}
        else:
            out = {key: np.concatenate([f[key] for f in self.finished]) for key in keys}
        self.finished = []
        kinds = [self.table.kinds[self.table.labels[k]] for k in out["kind"].astype(np.int64)]
        out["kind"] = np.array([kind.label for kind in kinds], dtype=object)
        out["group"] = np.array([kind.group or kind.label for kind in kinds], dtype=object)
        return out
