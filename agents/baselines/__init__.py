"""The simple players: uniformly random, a stateless example, and the casual notepad player."""
