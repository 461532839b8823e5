"""What the training scripts share, one concept a module.

``ppo_training`` is PPO on the batched core in CleanRL's shape (``TrainConfig``, the rollout and
update loop ``train``); ``experiments/train_ppo.py`` is its command and ``experiments/benchmark``
times it. It stands on:

- ``league``: the opponents of a run (``OpponentSettings``), the pool they are drawn from
  (``OpponentPool``: curriculum windows, snapshots of the learner, PFSP) and ``snapshot_network``.
- ``advantages``: a rollout's learner decisions (``Rollout``) and GAE over each game's decisions.
- ``shaping``: the potential-based reward for cards seen (``knowledge_potential``), also of
  ``train_sb3`` and ``train_rllib``.
- ``evaluation``: the learner against a fixed evaluation set (``evaluate``), Wilson intervals,
  the final evaluation's ``evaluation.json``; also of ``imitate``, ``train_sb3`` and ``train_rllib``.
- ``checkpoints``: a run's checkpoint files (save, find, read, check their weights).
- ``init_from``: the model a run's network starts from (``check_init_from``; also of ``imitate``).
- ``imitation_sessions``: ``imitate``'s sessions in its ``run.json`` (each run's code and the
  batches it found and played) and which code recorded a folder's decisions (``decisions_code``).
- ``resume``: what a resumed run is (its checkpoint's config, the values a resume may change,
  the code and options only a checkpoint names).
- ``run_logs``: the scalars a run logged (TensorBoard, or exported ``training_curves.json``).
- ``rllib_algorithm``: ``train_rllib``'s RLlib plumbing (envs, callbacks, the ``PPOConfig``).
"""
