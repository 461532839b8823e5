"""The expert games as a Minari dataset: an expert playing the single-agent Gymnasium env.

Minari records one agent's episodes, so the dataset is of ``cluedo/Cluedo-v0``
(``cluedo_env.gym_env.CluedoSingleAgentEnv``): the expert (an ``agents.registry`` agent) plays
the learner seat (drawn by the env at each reset) through ``EnvExpert``, against opponents named
in the env's own arguments. Each episode keeps what ``minari.DataCollector`` keeps of a step: the
env's observations (the core's observation and the action mask), the expert's actions, the
learner's rewards, terminations and truncations, and the reset's seed. They are written with
``minari.create_dataset_from_buffers`` (the same files): the collector needs jax
(``minari[create]``) only to append a step's arrays.

``write_minari`` stores it under ``root`` (Minari's ``MINARI_DATASETS_PATH``), whole or not at
all: the episodes are written into ``root.partial`` and the folder renamed when done. Load it with::

    MINARI_DATASETS_PATH=<root> python -c "import minari; print(minari.load_dataset('cluedo/expert-v1'))"
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import gymnasium
import minari
import numpy as np
from minari.data_collector import EpisodeBuffer
from tqdm import tqdm

from agents.base import Agent
from agents.registry import make_agent
from cluedo_env.gym_env import GYM_ID, register_envs

__all__ = [
    "MINARI_ID",
    "EnvExpert",
    "datasets_path",
    "make_expert_env",
    "minari_words",
    "stored_counts",
    "write_minari",
]

MINARI_ID = "cluedo/expert-v1"


class EnvExpert:
    """An agent of the batched interface playing the learner seat of a single-agent env (a batch of one).

    ``start`` after ``reset``, then ``act`` for each decision, and ``see`` with the info of each
    ``step`` that did not end the episode: the agent reads the learner's events from
    ``info["events"]`` (its private view since its last decision) and decides from the env's
    core state and mask.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def start(self, env: gymnasium.Env, info: dict, seed: int) -> None:
        """A new episode: the agent reset to the learner's seat, and shown the deal."""
        base = env.unwrapped
        self.agent.reset(base.config, np.array([info["learner_seat"]], dtype=np.int64), seed=seed)
        self.see(env, info)

    def see(self, env: gymnasium.Env, info: dict) -> None:
        """Show the agent the learner's events of ``info``."""
        if self.agent.observes:
            events = np.asarray(info["events"], dtype=np.int16)[None]
            self.agent.observe(env.unwrapped.game_state, events)

    def act(self, env: gymnasium.Env, observation: dict) -> int:
        """The agent's action at the learner's decision."""
        mask = np.asarray(observation["action_mask"], dtype=bool)[None]
        return int(self.agent.act(env.unwrapped.game_state, np.zeros(1, dtype=np.int64), mask)[0])


def make_expert_env(opponents: Sequence[str], board: str = "classic") -> gymnasium.Env:
    """``gymnasium.make("cluedo/Cluedo-v0")`` with opponents by name: its spec is plain data (Minari keeps it)."""
    register_envs()
    return gymnasium.make(GYM_ID, opponents=list(opponents), num_players=len(opponents) + 1, board=board)


def stored_counts(root: Path) -> dict[str, int] | None:
    """``episodes`` and ``steps`` of the dataset stored under ``root`` (None: there is none)."""
    path = root / MINARI_ID / "data" / "metadata.json"
    if not path.is_file():
        return None
    metadata = json.loads(path.read_text(encoding="utf-8"))
    return {"episodes": int(metadata["total_episodes"]), "steps": int(metadata["total_steps"])}


@contextmanager
def datasets_path(root: Path) -> Iterator[None]:
    """Minari's ``MINARI_DATASETS_PATH`` set to ``root`` for the block (restored after)."""
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = before


def write_minari(
    root: Path,
    names: Sequence[str],
    seeds: Sequence[int],
    agent_seed: int,
    board: str = "classic",
    progress: bool = True,
) -> dict[str, int]:
    """One episode per seed of ``names[0]`` (the expert) against ``names[1:]``, stored in ``root``.

    Returns:
        ``episodes`` and ``steps`` (the expert's decisions) of the dataset.
    """
    root = Path(root).absolute()  # Minari's own paths go wrong under a relative MINARI_DATASETS_PATH
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)  # a killed run's episodes: started again
    partial.mkdir(parents=True)
    expert = EnvExpert(make_agent(names[0], seed=agent_seed))
    env = make_expert_env(names[1:], board)
    episodes = []
    try:
        for seed in tqdm(list(seeds), desc="minari episodes", unit=" episodes", disable=not progress):
            episodes.append(_episode(env, expert, len(episodes), int(seed)))
        with datasets_path(partial), warnings.catch_warnings():
            # Minari asks for a link to the code and an author's email: the card names the command.
            warnings.filterwarnings("ignore", message="`(code_permalink|author_email)` is set to None")
            dataset = minari.create_dataset_from_buffers(
                dataset_id=MINARI_ID,
                buffer=episodes,
                env=env,
                eval_env=env.spec,
                **minari_words(names, seeds),
                data_format="parquet",
            )
            counts = {"episodes": int(dataset.total_episodes), "steps": int(dataset.total_steps)}
    finally:
        env.close()
        expert.agent.close()
    shutil.rmtree(root, ignore_errors=True)
    os.replace(partial, root)
    return counts


def minari_words(names: Sequence[str], seeds: Sequence[int]) -> dict[str, str]:
    """What ``write_minari`` tells Minari of the dataset of ``names`` (the expert, then its opponents) and
    ``seeds`` (its episodes', at least one): its ``algorithm_name``, ``author`` and ``description``."""
    return {
        "algorithm_name": f"expert: the {names[0]} agent (agents.registry)",
        "author": "cluedo-env (python -m experiments.expert_dataset)",
        "description": (
            f"Cluedo, one learner seat of cluedo/Cluedo-v0 played by the {names[0]} agent against "
            f"{', '.join(names[1:])}; seeds {int(seeds[0])} to {int(seeds[-1])}."
        ),
    }


def _episode(env: gymnasium.Env, expert: EnvExpert, index: int, seed: int) -> EpisodeBuffer:
    """One episode of ``expert`` from ``seed``, as a Minari ``EpisodeBuffer`` (observations, actions,
    rewards, terminations, truncations: what ``minari.DataCollector`` keeps of a step)."""
    observation, info = env.reset(seed=seed)
    expert.start(env, info, seed)
    observations, actions, rewards, terminations, truncations = [observation], [], [], [], []
    while True:
        action = expert.act(env, observation)
        observation, reward, terminated, truncated, info = env.step(action)
        observations.append(observation)
        actions.append(action)
        rewards.append(float(reward))
        terminations.append(bool(terminated))
        truncations.append(bool(truncated))
        if terminated or truncated:
            break
        expert.see(env, info)
    return EpisodeBuffer(
        id=index,
        seed=seed,
        observations={key: np.stack([o[key] for o in observations]) for key in observation},
        actions=np.array(actions, dtype=np.int64),
        rewards=rewards,
        terminations=terminations,
        truncations=truncations,
    )
