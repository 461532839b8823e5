"""The previous rules core (batched numpy handlers), frozen for ``experiments/benchmark.py``'s side-by-side
comparison with the compiled core. Not part of the package, not used anywhere else; it plays the same games
(the benchmark's figures compare like with like)."""

from experiments.legacy_numpy_core.game import init, legal_action_mask, reset, step

__all__ = ["init", "legal_action_mask", "reset", "step"]
