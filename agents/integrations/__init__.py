"""Policies trained by other libraries (Stable-Baselines3, RLlib) as agents of this project."""
