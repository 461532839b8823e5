"""The reasoning players: complete deduction (SAT), exact odds (belief), search (ismcts; determinize, its special case)."""
