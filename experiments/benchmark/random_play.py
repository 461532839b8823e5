"""The benchmark's random play: uniformly random legal actions, accusing rarely; finished games dealt again at once."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable

import numpy as np

from agents.baselines.random_agent import sample_legal
from cluedo_env import core

ACCUSE_RATE = 0.02


def random_choice(rng: np.random.Generator, mask: np.ndarray, accuse: slice) -> np.ndarray:
    """The benchmark's random player: no accusation unless drawn (2%) or nothing else is legal."""
    calm = mask.copy()
    calm[:, accuse] = False
    use_calm = calm.any(axis=1) & (rng.random(len(mask)) >= ACCUSE_RATE)
    return sample_legal(rng, np.where(use_calm[:, None], calm, mask))


class RandomBatch:
    """A batch of games under the benchmark's random play; finished games are dealt again at once.

    Args:
        config: The rules.
        batch: Games in the batch.
        seed: Seed of the deals and of the policy's generator.
        observe: Whether each step also observes for the acting player (the ``observe`` section).
        choose: The policy, ``choose(rng, mask, accuse) -> int[batch]`` (``accuse``: the slice of
            accusation actions); default ``random_choice``, the compiled random player.
        fused: Whether the mask comes from ``step(..., mask=)`` and ``reset(..., mask=)`` (True)
            or from ``legal_action_mask`` before each step (False); None: fused where the core's
            ``step`` takes a mask (a baseline revision's may not).
        check: ``step``'s ``check`` (users' loops keep its default, True).

    Attributes:
        state: The batch.
        age: ``int[batch]``: decisions each game has played since its deal.
        redealt: ``bool[batch]``: whether the game in each slot was dealt after the first deal.
    """

    def __init__(
        self,
        config: core.GameConfig,
        batch: int,
        seed: int,
        observe: bool = False,
        choose: Callable[[np.random.Generator, np.ndarray, slice], np.ndarray] | None = None,
        fused: bool | None = None,
        check: bool = False,
    ) -> None:
        layout = core.rules_for(config).layout
        self.config = config
        self.accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
        self.observe = observe
        self.rng = np.random.default_rng(seed)
        self.state = core.init(config, seed * 1_000_003 + np.arange(batch))
        self.next_seed = seed * 1_000_003 + batch
        self.age = np.zeros(batch, dtype=np.int64)
        self.redealt = np.zeros(batch, dtype=bool)
        # The core keeps the legal actions up to date with each step and re-deal (a baseline revision
        # whose step takes no mask computes them after each step instead).
        if fused is None:
            fused = "mask" in inspect.signature(core.step).parameters
        self.choose = random_choice if choose is None else choose
        self.check = check
        self.mask = core.legal_action_mask(self.state) if fused else None
        self.observe_into = "out" in inspect.signature(core.observe).parameters
        # Observations into one array, as a training loop passes ``out`` (no allocation per step).
        self.observations = np.empty((batch, core.observation_size(config)), dtype=np.float32)

    def warm_up(self) -> None:
        """Make, untimed, the first calls of every core function this batch's steps make (the first call
        of a compiled function in a process costs milliseconds, which a short timing would count), on
        throwaway batches of one game and of two, played until every game was dealt again (a batch of one
        takes calls of its own: 7.6 ms on its first step after a warm-up of two games only), and, for a
        batch that the core steps in parallel (``parallel_from()`` games or more), a few steps of a
        throwaway batch of that size (the parallel step's first call: 24 ms, where later ones take 0.2)."""
        for games in (1, 2):
            spare = self.spare(games)
            while not spare.redealt.all():
                spare.step()
        parallel = parallel_from()
        if parallel is not None and len(self.age) >= parallel:
            spare = self.spare(parallel)
            for _ in range(3):
                spare.step()

    def spare(self, games: int) -> RandomBatch:
        """A throwaway batch of ``games`` games played as this one is (policy, fused mask, check, observe)."""
        return RandomBatch(
            self.config, games, 0, self.observe, self.choose, self.mask is not None, self.check
        )

    def step(self) -> tuple[float, float, int]:
        """One decision in every game: (core seconds, seconds choosing the actions, games finished).

        Core time is the legal actions (+ ``observe``) + ``step`` + re-dealing.
        """
        state, fused = self.state, self.mask is not None
        start = time.perf_counter()
        mask = self.mask if fused else core.legal_action_mask(state)
        if self.observe:
            if self.observe_into:
                core.observe(state, state.current_player, out=self.observations)
            else:  # (a baseline revision whose observe writes no given array)
                core.observe(state, state.current_player)
        middle = time.perf_counter()
        actions = self.choose(self.rng, mask, self.accuse)
        chosen = time.perf_counter()
        core.step(state, actions, check=self.check, **({"mask": mask} if fused else {}))
        done = state.done.nonzero()[0]  # (np.flatnonzero costs 1.5 µs more, most of a B = 1 step)
        if len(done):
            seeds = np.arange(self.next_seed, self.next_seed + len(done))
            core.reset(state, done, seeds, **({"mask": mask} if fused else {}))
            self.next_seed += len(done)
        end = time.perf_counter()
        self.age += 1
        self.age[done] = 0
        self.redealt[done] = True
        return (middle - start) + (end - chosen), chosen - middle, len(done)


def parallel_from() -> int | None:
    """The batch size from which the core steps, masks and observes games on numba's threads
    (``core.game.PARALLEL_BATCH``); None for a core without it (a baseline revision's numpy core)."""
    return getattr(getattr(core, "game", None), "PARALLEL_BATCH", None)


def game_length(config: core.GameConfig, games: int, seed: int) -> float:
    """Mean decisions in a complete game under the benchmark's random play."""
    layout = core.rules_for(config).layout
    accuse = slice(layout.ACCUSE, layout.ACCUSE + layout.sizes["accuse"])
    rng = np.random.default_rng(seed)
    state = core.init(config, 10**9 + np.arange(games))
    decisions = 0
    while not state.done.all():
        mask = core.legal_action_mask(state)
        decisions += int((~state.done).sum())
        mask[state.done] = True
        core.step(state, random_choice(rng, mask, accuse), check=False)
    return decisions / games
