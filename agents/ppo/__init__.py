"""PPO agents trained on the batched core (needs the ``train`` extra: torch).

- ``network``: the actor-critic network;
- ``distributions``: the masked categorical distributions over the actions;
- ``model``: model files (save, load, the record a checkpoint holds);
- ``agent``: ``PPOAgent``, a trained network behind the batched agent interface
  (``agents.registry`` name ``"ppo"``);
- ``learned``: ``LearnedAgent``, the shipped learning agent (``agents.registry`` name ``"learned"``:
  the imitation model below, its most likely action);
- ``games``: the learner's batch of games against a pool of opponents (training);
- ``features``: the belief pieces a learner may read (exact marginals, entailed facts);
- ``warm_start``: a network that starts as a trained one, new input columns at zero;
- ``imitation``: recording a teacher agent's decisions and fitting a network to them;
- ``shipped/``: two 4-player classic models, each with the config of its run, its
  2,000-game evaluation and its curves: ``cluedo_ppo_4p.pt`` (PPO against random and
  notepad players; ``train_ppo.yaml``, ``evaluation.json``, ``training_curves.json``)
  and ``cluedo_ppo_imitation_4p.pt``, the learning agent that beats the SAT agent
  (that model with belief features, fitted to the belief agent's play; ``imitate.yaml``,
  ``imitation_evaluation.json``, ``imitation_history.json``). A model argument may name
  either by its file name.

Training: ``python -m experiments.train_ppo`` (``configs/train_ppo.yaml``) and
``python -m experiments.imitate`` (``configs/imitate.yaml``).
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
