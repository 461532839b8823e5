"""How often the screen's best K suggestions of a room hold the exact best of all 36.

Positions: seat 0's records at 20%, 45% and 70% of whole games of SAT agents (deals 100 on), a
random room each; the exact expected information (``answer_information``) of every suggestion of
the room against the screen's order (``screen_information``).

    python docs/results/2026-12-01-belief-vs-sat/screen_vs_exact.py 4 10    # players, games
"""

from __future__ import annotations

import sys

import numpy as np

from agents.arena import EventLog, play_batch
from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.inference.beliefs import Beliefs
from cluedo_env.inference.from_events import RecordMaker, setup_of
from cluedo_env.inference.information import answer_information, screen_information


def main(players: int, games: int) -> None:
    config = core.GameConfig(num_players=players)
    setup = setup_of(config)
    S, W, R = setup.deck.sizes
    logs = EventLog(games)
    agents = [make_agent("sat", seed=k) for k in range(players)]
    play_batch(config, agents, np.arange(100, 100 + games), on_step=logs)
    rng = np.random.default_rng(0)
    hits, lost, positions = np.zeros(6), np.zeros(6), 0
    for log in logs:
        view = core.private_view(log, 0)
        maker = RecordMaker(setup, 0)
        records = maker.add_events(view)
        for fraction in (0.2, 0.45, 0.7):
            beliefs = Beliefs(setup, 0, records[: max(1, int(len(records) * fraction))])
            room = int(rng.integers(R))
            screen = screen_information(setup, 0, beliefs.posterior().probabilities())[:, :, room].ravel()
            exact = np.array(
                [answer_information(beliefs, (s, S + w, S + W + room)) for s in range(S) for w in range(W)]
            )
            if exact.max() <= 1e-12:
                continue  # nothing to learn in this room
            order = np.argsort(-screen, kind="stable")
            positions += 1
            for k in range(1, 7):
                best_of_k = exact[order[:k]].max()
                hits[k - 1] += best_of_k >= exact.max() - 1e-12
                lost[k - 1] += exact.max() - best_of_k
    print(
        f"{players} players, {positions} positions: for K = 1..6, the screen's best K hold the exact best in",
        np.round(hits / positions, 3).tolist(),
        "of positions; bits lost on average",
        np.round(lost / positions, 4).tolist(),
    )


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
