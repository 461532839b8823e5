"""Agents by name, so configs and command lines can pick them."""

from __future__ import annotations

import importlib

from agents.base import Agent

__all__ = ["AGENTS", "make_agent"]

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


def make_agent(name: str, seed: int = 0, **options: object) -> Agent:
    """An agent by registered name, or by import path ``"package.module:Class"``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    target = AGENTS.get(name, name)
    if ":" not in target:
        raise ValueError(f"agent must be one of {sorted(AGENTS)} or 'module:Class', got {name!r}")
    module_name, _, class_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load agent {name!r} ({target}): {error}") from error
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise ValueError(f"{target} is not an Agent subclass")
    return cls(seed=seed, **options)
