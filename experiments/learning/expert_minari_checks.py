"""Checks of an expert dataset's Minari part: its ``metadata.json`` against what the writer writes, and
its episodes played again in the env.

``metadata_problem`` comes first, before anything else reads the Minari part. Minari acts on what
that file says: ``minari.load_dataset`` rebuilds a missing observation or action space by making
the env of its ``env_spec`` (``gymnasium.make`` imports the spec's ``entry_point``, any module of
the machine, and calls it with the spec's ``kwargs``), ``recover_environment()`` makes the env of
``env_spec`` or ``eval_env_spec``, and ``data_format`` picks the files it reads. A downloaded
folder's file could name any code there, so it must hold both spaces, each that of the env
(``make_expert_env`` of the card's rules and agents, serialised as Minari serialises it), ``env_spec``
and ``eval_env_spec`` (where present) exactly that env's spec (``cluedo_env.gym_env``'s env against
the card's opponents), and ``data_format`` ``parquet``. The spaces Minari reads from the file are
rebuilt by its own ``deserialize_space``, which only makes the gymnasium spaces of a fixed list of
types from JSON values, importing nothing.

``minari_problems`` then plays every episode again (``episode_problems``), reading its files as
Minari reads them. ``claim_problems`` holds what the files say of the dataset to what the writer
writes: the words of ``metadata.json`` (its author, algorithm name and description), and each
episode's own ``metadata.json`` (its steps, which Minari adds up for a dataset's ``total_steps``, and
its seed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import gymnasium
import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
from minari.serialization import serialize_space

from cluedo_env import core
from experiments.learning.expert_minari import MINARI_ID, make_expert_env, minari_words

__all__ = ["claim_problems", "episode_problems", "metadata_problem", "minari_problems"]

SPACES = ("observation_space", "action_space")
SPECS = ("env_spec", "eval_env_spec")  # each may be absent; where present, the env's own
# What minari.create_dataset_from_buffers writes where it is given them, which the writer never gives.
NOT_WRITTEN = ("author_email", "code_permalink", "ref_min_score", "ref_max_score", "num_episodes_average_score",
               "requirements")  # fmt: skip
# What reading a file that is not Minari's raises.
ERRORS = (OSError, ValueError, RecursionError, LookupError, TypeError, pa.ArrowException)


def metadata_problem(data: Path, config: core.GameConfig, agents: list[str]) -> str | None:
    """Why Minari must not load the dataset in ``data`` (Minari's folder of it; None: nothing wrong, or
    no ``metadata.json``), in one line: its ``metadata.json`` is not what the writer writes for
    ``agents`` (the expert, then its opponents) on ``config``'s board. Reads only that file, as JSON."""
    path = data / "metadata.json"
    if not path.exists():
        return None
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:  # (not JSON, not UTF-8, nested too deeply)
        return f"minari: metadata.json is not Minari's ({type(error).__name__}: {error})"
    if not isinstance(metadata, dict):
        return f"minari: metadata.json is not Minari's (a JSON {type(metadata).__name__}, not an object)"
    env = make_expert_env(agents[1:], config.board)
    try:
        wrong = _unlike_the_writers(metadata, env)
    finally:
        env.close()
    if wrong:
        return (
            f"minari: metadata.json {wrong}, not what this command writes: Minari (load_dataset, "
            "recover_environment) could run code a crafted one names, so the Minari part is not read further"
        )
    return None


def _unlike_the_writers(metadata: dict, env: gymnasium.Env) -> str | None:
    """How ``metadata`` differs from what ``write_minari`` writes with ``env`` (None: it does not)."""
    missing = [key for key in SPACES if key not in metadata]
    if missing:
        return f"has no {' and no '.join(missing)} (Minari would make the env its env_spec names to get it)"
    for key, space in zip(SPACES, (env.observation_space, env.action_space), strict=True):
        if _parsed(metadata[key]) != json.loads(serialize_space(space)):
            return f"{key} is {_shown(metadata[key])} (accepted: the env's, as Minari serialises it)"
    ours = json.loads(env.spec.to_json())
    for key in SPECS:
        if key not in metadata:
            continue
        spec = _parsed(metadata[key])
        if spec == ours:
            continue
        if not isinstance(spec, dict):
            return f"{key} is not an env spec ({_shown(metadata[key])}; accepted: that of {ours['id']})"
        if spec.get("entry_point") != ours["entry_point"]:
            return f"{key} names entry point {spec.get('entry_point')!r} (accepted: {ours['entry_point']!r})"
        name = sorted(k for k in {*spec, *ours} if spec.get(k, ...) != ours.get(k, ...))[0]
        return (
            f"{key}'s {name} is {_shown(spec.get(name))} (accepted: {_shown(ours.get(name))}, as in the spec "
            f"of {ours['id']} against the card's opponents)"
        )
    if metadata.get("data_format") != "parquet":
        return f"data_format is {metadata.get('data_format')!r} (accepted: 'parquet')"
    return None


def _parsed(text: object) -> object:
    """A metadata value Minari parses as JSON, parsed (None: not a string of JSON)."""
    try:
        return json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None


def _shown(value: object) -> str:
    """``value`` for a one-line message: its start."""
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def minari_problems(data: Path, counts: dict, config: core.GameConfig, agents: list[str]) -> list[str]:
    """The Minari episodes (``data``: Minari's folder of them), each read as Minari reads it and played
    again in ``make_expert_env`` (the card's agents and rules) from its seed (``episode_problems``).
    ``metadata_problem`` has passed (the caller's duty): this reads the episode count of ``metadata.json``."""
    try:
        held = (
            int(json.loads((data / "metadata.json").read_text(encoding="utf-8"))["total_episodes"])
            if data.exists()
            else 0
        )
    except (OSError, ValueError, RecursionError, LookupError, TypeError) as error:
        return [f"minari: metadata.json is not Minari's ({type(error).__name__}: {error})"]
    said = counts.get("minari_episodes", 0)
    if held != said or not held:
        return [f"minari: {held!r} episodes, the card counts {said!r}"] if held != said else []
    env, problems, index = make_expert_env(agents[1:], config.board), [], 0
    try:  # (stops at an episode it cannot read)
        for index in range(held):
            problems += [f"minari episode {index}: {x}" for x in episode_problems(env, data / str(index))]
    except (OSError, ValueError, RecursionError, LookupError, TypeError, pa.ArrowException) as error:
        problems.append(f"minari episode {index}: not an episode ({type(error).__name__}: {error})")
    env.close()
    return problems


def episode_problems(env: gymnasium.Env, folder: Path) -> list[str]:
    """The first step of a Minari episode (its ``folder``, read as Minari does) unlike the env's play."""
    observation, _ = env.reset(
        seed=int(json.loads((folder / "metadata.json").read_text(encoding="utf-8"))["seed"])
    )
    rows = pads.dataset(folder, ignore_prefixes=["_", ".", "metadata.json"]).to_table().to_pydict()
    last = len(rows["actions"]) - 1  # (Minari keeps a row more than the steps: the last observation's)
    for t in range(last + 1):
        if not all(np.array_equal(observation[key], rows["observations"][t][key]) for key in observation):
            return [f"step {t}: the observation is not the env's"]
        action, mask = rows["actions"][t], observation["action_mask"]
        if t == last:
            break
        if not isinstance(action, int) or not 0 <= action < len(mask) or not mask[action]:
            return [f"step {t}: action {action!r} is not legal"]
        observation, *outcome, _ = env.step(action)
        recorded = [rows[key][t] for key in ("rewards", "terminations", "truncations")]
        if outcome != recorded or (outcome[1] or outcome[2]) != (t == last - 1):
            return [f"step {t} of {last}: reward, terminated, truncated {recorded}; the env: {outcome}"]
    return [] if last > 0 else ["no steps"]


def claim_problems(data: Path, names: Sequence[str], seeds: Sequence[int]) -> list[str]:
    """What the Minari dataset in ``data`` says of itself that ``write_minari`` does not write for ``names``
    (the expert, then its opponents) and ``seeds`` (its episodes'), in a line for the first (none: no
    ``metadata.json``): ``metadata.json`` must count ``len(seeds)`` episodes, hold the writer's
    ``dataset_id``, ``author``, ``algorithm_name`` and ``description`` (``expert_minari.minari_words``)
    and none of ``NOT_WRITTEN`` (reference scores, a code link); each episode's ``metadata.json`` must be
    ``{"id", "total_steps", "seed"}`` of that episode: its index, its steps (its rows but the last
    observation's) and its seed. ``metadata_problem`` has passed (the caller's duty)."""
    path = data / "metadata.json"
    if not path.is_file():
        return []
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
        held = metadata["total_episodes"]
    except ERRORS as error:
        return [f"minari: metadata.json is not Minari's ({type(error).__name__}: {error})"]
    if held != len(seeds) or len(seeds) == 0:
        return [f"minari: metadata.json counts {_shown(held)} episodes, the card's settings {len(seeds)}"]
    words = minari_words(names, seeds)
    for key, ours in {"dataset_id": MINARI_ID, **words, "author": [words["author"]]}.items():
        if metadata.get(key) != ours:
            return [f"minari: metadata.json's {key} is {_shown(metadata.get(key))}, not what the command writes "
                    f"for the card's agents and seeds ({_shown(ours)})"]  # fmt: skip
    extra = [key for key in NOT_WRITTEN if key in metadata]
    if extra:
        return [f"minari: metadata.json holds {', '.join(extra)}, which the command does not write"]
    for index, seed in enumerate(seeds):
        folder = data / str(index)
        try:
            said = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
            steps = pads.dataset(folder, ignore_prefixes=["_", ".", "metadata.json"]).count_rows() - 1
        except ERRORS as error:
            return [f"minari episode {index}: not an episode ({type(error).__name__}: {error})"]
        ours = {"id": index, "total_steps": steps, "seed": int(seed)}
        if said != ours:
            return [f"minari episode {index}: metadata.json is {_shown(said)}, not the episode's {ours} "
                    "(its index, its steps and its seed: what the command writes)"]  # fmt: skip
    return []
