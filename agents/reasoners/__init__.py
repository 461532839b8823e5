"""The reasoning players: complete deduction (SAT), exact odds (belief), simulation (determinize)."""
