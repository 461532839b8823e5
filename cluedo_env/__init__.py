"""Cluedo (Clue) as a benchmark for imperfect-information multi-agent reasoning.

``cluedo_env.core`` is the batched rules core, ``cluedo_env.inference`` what one player can know
(certain deduction and exact odds), ``cluedo_env.reasoning`` the reasoning benchmark;
``cluedo_env.cluedo_v0`` is the PettingZoo environment and ``cluedo_env.gym_env`` the Gymnasium ones.
"""

# The one place the version is written: pyproject.toml reads it (dynamic version), every
# command prints it and every run records it. Between releases it is the next one's ``.dev0``, so that
# a run of unreleased code is never recorded as a release's.
__version__ = "0.2.0.dev0"
