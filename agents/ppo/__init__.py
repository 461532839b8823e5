"""Agents by a trained actor-critic network; training needs the ``train`` extra (torch), playing the
shipped learning agent does not.

- ``wiring``: the network's settings and index tables (no torch);
- ``network``: the actor-critic network (torch);
- ``numpy_network``: the same network in numpy, for play without torch, and its ``.npz`` files;
- ``distributions``: the masked categorical distributions over the actions (torch);
- ``model``: model files (save, load, the record a checkpoint holds, the numpy export);
- ``network_agent``: ``NetworkAgent``, what every player by such a network does;
- ``agent``: ``PPOAgent``, a torch network behind the batched agent interface
  (``agents.registry`` name ``"ppo"``);
- ``learned``: ``LearnedAgent``, the shipped learning agent (``agents.registry`` name ``"learned"``:
  the learned model below in numpy, its most likely action);
- ``games``: the learner's batch of games against a pool of opponents (training);
- ``features``: the belief pieces a learner may read (exact marginals, entailed facts);
- ``warm_start``: a network that starts as a trained one, new input columns at zero;
- ``imitation``: recording a teacher agent's decisions and fitting a network to them;
- ``shipped/``: three 4-player classic models, each with the config of its run:
  ``cluedo_ppo_4p.pt`` (PPO against random and notepad players; ``train_ppo.yaml``,
  ``evaluation.json``, ``training_curves.json``); ``cluedo_ppo_imitation_4p.pt`` (that model
  with belief features, fitted to the belief agent's play; ``imitate.yaml``,
  ``imitation_evaluation.json``, ``imitation_history.json``); and ``cluedo_learned_4p.pt``, the
  learning agent (the imitation model trained further by PPO in a league of SAT and belief agents;
  ``learned_from_imitation.yaml``, ``learned_fine_tune.yaml``, ``learned_training_curves.json``),
  with the numpy exports ``cluedo_ppo_imitation_4p.npz`` and ``cluedo_learned_4p.npz``. A model
  argument may name any of them by its file name.

The package imports nothing itself, so that ``agents.ppo.learned`` loads without torch.
Training: ``python -m experiments.train_ppo`` (``configs/train_ppo.yaml``) and
``python -m experiments.imitate`` (``configs/imitate.yaml``).
"""
