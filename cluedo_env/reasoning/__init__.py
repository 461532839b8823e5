"""The reasoning benchmark: one player's view of a game cut at a decision, with exact answers.

``tasks`` makes a task, ``ladder`` labels each fact by the weakest reasoner that finds it,
``score`` scores a solver's answers, ``splits`` holds the frozen splits (``data/``) and their
pinned checksums. Solvers are in ``agents.solvers``; the command is
``python -m experiments.reasoning_bench``.
"""
