"""The experiments' Hydra configs (YAML): a package, so that an installed copy finds them.

``tournament.yaml``, ``train_ppo.yaml`` and ``benchmark.yaml`` are the primary configs of
``experiments.tournament``, ``experiments.train_ppo`` and ``experiments.benchmark``;
``game/`` holds the rules and ``lineup/`` the entrants of a tournament.
"""
