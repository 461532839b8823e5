"""Agents by name, so configs and command lines can pick them."""

from __future__ import annotations

import importlib

from agents.base import Agent

__all__ = ["AGENTS", "load_named", "make_agent"]

# name -> "module:Class"
AGENTS = {
    "random": "agents.random_agent:RandomAgent",
    "notepad": "agents.notepad:NotepadAgent",
    "sat": "agents.sat:SatAgent",
    "belief": "agents.belief:BeliefAgent",
    "determinize": "agents.determinize:DeterminizeAgent",
    "ppo": "agents.ppo.agent:PPOAgent",
    "llm": "agents.llm:LLMAgent",
    "human": "agents.human:HumanAgent",
    "sb3": "agents.sb3_agent:SB3Agent",
    "rllib": "agents.rllib_agent:RLlibAgent",
}


def load_named(target: str, what: str) -> object:
    """The object that ``target``, ``"package.module:name"``, names (an agent class, a solver).

    Raises:
        ValueError: naming ``what`` and the error when the module or the name cannot be loaded.
    """
    module_name, _, attribute = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load {what}: {error}") from error


def make_agent(name: str, seed: int = 0, **options: object) -> Agent:
    """An agent by registered name, or by import path ``"package.module:Class"``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    target = AGENTS.get(name, name)
    if ":" not in target:
        raise ValueError(f"agent must be one of {sorted(AGENTS)} or 'module:Class', got {name!r}")
    cls = load_named(target, f"agent {name!r} ({target})")
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise ValueError(f"{target} is not an Agent subclass")
    return cls(seed=seed, **options)
