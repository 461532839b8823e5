"""``RLlibAgent``: a policy trained by ``experiments/train_rllib.py``, played from its pickle-free export.

RLlib's own checkpoints are pickles (loading one runs whatever code it names),
so the training script also writes the trained module in the project's model
format (``cluedo-ppo-model-v1``: tensors, numbers and strings): ``model.pt`` in
the run folder at the end, ``cluedo_model.pt`` in every checkpoint folder. This
agent reads only those, with torch's ``weights_only=True``, and plays them as
``PPOAgent`` does: a model from anybody runs no code, and RLlib need not be
installed to play it.
"""

from __future__ import annotations

from pathlib import Path

from agents.ppo.agent import PPOAgent

__all__ = ["RLlibAgent", "exported_model"]

EXPORTED_NAMES = ("model.pt", "cluedo_model.pt")


def exported_model(path: str | Path) -> Path:
    """The exported model of a run folder (``model.pt``, else its latest checkpoint's), a checkpoint
    folder (``cluedo_model.pt``) or a model file itself.

    Raises:
        FileNotFoundError: naming the path and the files looked for.
    """
    path = Path(path)
    if path.is_file():
        return path
    for name in EXPORTED_NAMES:
        if (path / name).is_file():
            return path / name
    checkpoints = sorted(path.glob("checkpoints/iteration_*/cluedo_model.pt"))
    if checkpoints:
        return checkpoints[-1]
    raise FileNotFoundError(
        f"no exported RLlib policy at {path}: give a train_rllib run folder (model.pt or "
        "checkpoints/iteration_*/cluedo_model.pt), a checkpoint folder (cluedo_model.pt) or a model file"
    )


class RLlibAgent(PPOAgent):
    """Plays the policy of a ``train_rllib`` run (its exported network; see the module docstring).

    Args:
        seed: Seeds the sampling generator.
        path: A run folder, a checkpoint folder or an exported model file (see ``exported_model``).
        deterministic: Play the most likely legal action instead of sampling.
    """

    name = "rllib"

    def __init__(self, seed: int = 0, path: str | Path = "", deterministic: bool = False) -> None:
        if not str(path):
            raise ValueError(
                "the rllib agent needs path=<train_rllib run folder, checkpoint folder or model.pt>"
            )
        super().__init__(seed, exported_model(path), deterministic)

    def __repr__(self) -> str:
        return f"RLlibAgent(seed={self.seed}, path={self.checkpoint!r}, deterministic={self.deterministic})"
