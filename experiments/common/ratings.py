"""OpenSkill ratings of tournament agents (Plackett-Luce), from their game records.

The match model: each game is one match, each seat a team of one; the winner ranks first and
everybody else ties second (no winner: all tie). Copies of one agent in a game share its rating and
their updates are averaged. Games are rated in a fixed order (players, deal seed, deal, rotation, line-up, config) so
that ratings do not depend on which process finished first. ``mu``, ``sigma`` (its uncertainty) and
``ordinal = mu - 3 sigma``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from experiments.common.extras import missing_extra

__all__ = ["RATING_ORDINAL_SIGMAS", "openskill_ratings"]

RATING_ORDINAL_SIGMAS = 3


def openskill_ratings(records: Iterable[dict]) -> dict[str, dict]:
    """OpenSkill Plackett-Luce ratings of the agents (see the module docstring for the match model)."""
    try:  # openskill comes with an extra: a core-only install is told which to install
        from openskill.models import PlackettLuce
    except ModuleNotFoundError as error:
        raise missing_extra(error) from error

    model = PlackettLuce()
    rating: dict[str, object] = {}
    played: dict[str, int] = defaultdict(int)
    for record in sorted(records, key=_rating_order):
        seats = record["seats"]
        for label in seats:
            if label not in rating:
                rating[label] = model.rating(name=label)
        winner = record["winner_seat"]
        ranks = [1 if winner is None or seat == winner else 2 for seat in range(len(seats))]
        updated = model.rate([[rating[label]] for label in seats], ranks=ranks)
        for label in set(seats):
            mine = [updated[s][0] for s, other in enumerate(seats) if other == label]
            rating[label] = model.rating(
                mu=float(np.mean([r.mu for r in mine])),
                sigma=float(np.mean([r.sigma for r in mine])),
                name=label,
            )
            played[label] += 1
    return {
        label: {
            "mu": r.mu,
            "sigma": r.sigma,
            "ordinal": r.mu - RATING_ORDINAL_SIGMAS * r.sigma,
            "games": played[label],
        }
        for label, r in rating.items()
    }


def _rating_order(record: dict) -> tuple:
    """Where a game comes in the rating: a total order of games, also of runs pooled in any order."""
    return (
        record["players"],
        record["seed"],
        record["deal"],
        record["rotation"],
        record["lineup"],
        record["config"],
    )
