"""Agents by name, so configs and command lines can pick them.

``OUTSIDE_OPTIONS`` names what of an agent reaches outside the game (the network, the
environment's secrets, the file system, code): ``outside_options`` lists those of one agent's
options, for the commands that must not take them from a file they did not write
(``experiments.common.trust.refuse_untrusted_options``).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Mapping

from agents.base import Agent
from cluedo_env.optional_modules import missing_extra_text

__all__ = ["AGENTS", "OUTSIDE_OPTIONS", "load_named", "make_agent", "outside_options"]

# name -> "module:Class"
AGENTS = {
    "random": "agents.baselines.random_agent:RandomAgent",
    "notepad": "agents.baselines.notepad_agent:NotepadAgent",
    "sat": "agents.reasoners.sat_agent:SatAgent",
    "belief": "agents.reasoners.belief_agent:BeliefAgent",
    "determinize": "agents.reasoners.ismcts:DeterminizeAgent",  # ismcts restricted to accuse or wait
    "ismcts": "agents.reasoners.ismcts:ISMCTSAgent",  # information-set MCTS on the compiled rollouts
    "ppo": "agents.ppo.agent:PPOAgent",  # any model file (checkpoint=...); default the first PPO model
    "learned": "agents.ppo.learned:LearnedAgent",  # the shipped learning agent (PPO from the imitation model)
    "llm": "agents.llm.llm_agent:LLMAgent",
    "human": "agents.human:HumanAgent",
    "sb3": "agents.integrations.sb3_agent:SB3Agent",
    "rllib": "agents.integrations.rllib_agent:RLlibAgent",
    "openspiel": "agents.integrations.openspiel_agent:OpenSpielAgent",
}

# name -> (does the agent itself reach outside, its options that do). The llm agent sends requests
# (to its default endpoint, with its default key variable, even without options; model=local starts a
# server on 127.0.0.1); its base_url is where, api_key_env the environment variable sent, prompts a
# folder read, record_dir one written, model_file the GGUF the local server reads.
# A model path is a file read. An agent by import path runs code, and all its options count.
OUTSIDE_OPTIONS: dict[str, tuple[bool, tuple[str, ...]]] = {
    "llm": (True, ("base_url", "api_key_env", "prompts", "record_dir", "model_file")),
    "ppo": (False, ("checkpoint",)),
    "learned": (False, ("checkpoint",)),
    "sb3": (False, ("path",)),
    "rllib": (False, ("path",)),
}


def outside_options(name: str, options: Mapping[str, object]) -> list[str]:
    """What of agent ``name`` with ``options`` reaches the network, the file system or code.

    Returns:
        ``"name"`` when the agent itself does (the llm agent; an agent by import path), then
        ``"options.<key>"`` for each such option given (every option of an import path's agent).
    """
    if name not in AGENTS:  # "module:Class": importing it runs code
        return ["name", *(f"options.{key}" for key in options)]
    itself, keys = OUTSIDE_OPTIONS.get(name, (False, ()))
    return ["name"] * itself + [f"options.{key}" for key in options if key in keys]


def load_named(target: str, what: str) -> object:
    """The object that ``target``, ``"package.module:name"``, names (an agent class, a solver).

    Raises:
        ValueError: naming ``what`` and the error when the module or the name cannot be loaded.
    """
    module_name, _, attribute = target.partition(":")
    try:
        return getattr(_import(module_name), attribute)
    except (ImportError, AttributeError) as error:
        said = missing_extra_text(error.name) if isinstance(error, ModuleNotFoundError) else None
        raise ValueError(f"cannot load {what}: {said or error}") from error


def _import(module_name: str) -> object:
    """The module, looked for in the current folder too, as ``python -m`` finds it there: an installed
    ``cluedo-*`` command's script does not put the current folder on ``sys.path``."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        here = os.getcwd()
        top = module_name.partition(".")[0]
        if error.name != top or here in (os.path.abspath(p or ".") for p in sys.path):
            raise
        sys.path.append(here)  # after the installed packages: a file here never shadows one of them
        return importlib.import_module(module_name)


def make_agent(name: str, seed: int = 0, **options: object) -> Agent:
    """An agent by registered name, or by import path ``"package.module:Class"``.

    Raises:
        ValueError: for an unknown name, listing the known ones; for an option the agent does not
            take, naming it.
    """
    target = AGENTS.get(name, name)
    if ":" not in target:
        raise ValueError(f"agent must be one of {sorted(AGENTS)} or 'module:Class', got {name!r}")
    cls = load_named(target, f"agent {name!r} ({target})")
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise ValueError(f"{target} is not an Agent subclass")
    try:
        return cls(seed=seed, **options)
    except TypeError as error:  # Python names an unknown keyword after the class that refused it
        unknown = re.search(r"unexpected keyword argument '(\w+)'", str(error))
        if unknown is None or unknown.group(1) not in options or unknown.group(1) in _named_options(cls):
            raise  # not the user's option (a taken option's value went wrong inside the agent)
        raise ValueError(
            f"agent {name!r} has no option {unknown.group(1)!r} (its options are the arguments of {target})"
        ) from error


def _named_options(cls: type) -> set[str]:
    """The keyword arguments ``cls`` names in its ``__init__`` and in its parents' where it passes
    ``**options`` on to them."""
    named: set[str] = set()
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        parameters = inspect.signature(vars(klass)["__init__"]).parameters.values()
        named |= {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind == p.VAR_KEYWORD for p in parameters):
            break
    return named
