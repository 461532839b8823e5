"""PPO agents trained on the batched core (needs the ``train`` extra: torch).

- ``network``: the actor-critic network;
- ``distributions``: the masked categorical distributions over the actions;
- ``model``: model files (save, load, the record a checkpoint holds);
- ``agent``: ``PPOAgent``, a trained network behind the batched agent interface
  (``agents.registry`` name ``"ppo"``);
- ``games``: the learner's batch of games against a pool of opponents (training);
- ``shipped/``: a trained 4-player classic model (``cluedo_ppo_4p.pt``), the config of
  its run (``train_ppo.yaml``), its 2,000-game evaluation (``evaluation.json``) and
  learning curves (``training_curves.json``).

Training: ``python -m experiments.train_ppo`` (``experiments/configs/train_ppo.yaml``).
"""

from agents.ppo.agent import DEFAULT_CHECKPOINT, PPOAgent
from agents.ppo.distributions import MaskedCategorical
from agents.ppo.model import load_model, save_model
from agents.ppo.network import ActorCritic, NetworkSettings

__all__ = [
    "DEFAULT_CHECKPOINT",
    "ActorCritic",
    "MaskedCategorical",
    "NetworkSettings",
    "PPOAgent",
    "load_model",
    "save_model",
]
