"""Agents that play Cluedo, and the card-deduction library they share."""
