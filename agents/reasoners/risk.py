"""The risk of being beaten to the solution: how soon an opponent becomes certain.

The belief agent may accuse before it is certain (``agents.reasoners.belief_agent``). Whether
that pays depends on how long the opponents need: the chance that an opponent
accuses rightly on its next turn, given that it has not before, is its
*hazard*. Two models of it, ``RISK_MODELS``:

``"evidence"`` (``evidence_hazard``): read from what the agent sees of each
opponent. Every suggestion of the opponent that somebody refuted (an answer
it received) adds ``per_answer``, every one that nobody could refute adds
``per_unrefuted`` (nobody holds the named cards it lacks: it may well know
the envelope now). The hazard is held for the turns ahead. An opponent that
asks little, or is answered in a hard deal, counts as slow; one whose
suggestion went unrefuted counts as close.

``"sat_hazard"`` (``hazard``): the SAT agent's, by the turns the opponent
has taken, unconditioned on what it has seen. An opponent that plays by
complete deduction (the SAT agent, the strongest of the project) accuses as
soon as the envelope is entailed, so the chance that it accuses rightly on its
``n``-th turn, given that it has not before, is its hazard at turn ``n``.

``SAT_HAZARD[P][n]`` is that hazard at a table of ``P`` SAT agents on the
classic board (2 players: the duel; turns counted from 0; past the table's
end the last value holds), measured by ``sat_hazards``: SAT self-play, every SAT player followed
turn by turn, the Kaplan-Meier estimate (correct accusations at turn ``n``
over the players still in and not yet certain who began turn ``n``; a game
that ends earlier censors its other players; late turns, which few players
reach, are pooled into one estimate). Regenerate the table with::

    python -m agents.reasoners.risk --games 400

The hazard grows with the turns a player has taken (each answer narrows its
candidates) and falls with the number of players (each hand is smaller, so
the same answers place fewer cards: more turns are needed). Against SAT
agents it overrates the opponents exactly where it matters: a position still
unsure late in the game is a hard deal, where they are slower than average
(``docs/results/2026-12-01-belief-vs-sat``).
"""

from __future__ import annotations

import argparse

import numpy as np

from cluedo_env import core
from cluedo_env.console import replace_unencodable
from cluedo_env.core import events as ev

__all__ = ["RISK_MODELS", "SAT_HAZARD", "evidence_hazard", "hazard", "sat_hazards"]

RISK_MODELS = ("evidence", "sat_hazard")

# Measured by ``python -m agents.reasoners.risk --games 400`` (see the module docstring), 2026-12-01.
SAT_HAZARD: dict[int, tuple[float, ...]] = {
    2: (0.0, 0.0, 0.0, 0.005, 0.01, 0.055, 0.121, 0.187, 0.325, 0.372, 0.372, 0.372),
    3: (0.0, 0.0, 0.004, 0.012, 0.043, 0.056, 0.108, 0.18, 0.289, 0.289, 0.289, 0.289),
    4: (0.0, 0.002, 0.001, 0.015, 0.054, 0.103, 0.196, 0.252, 0.252, 0.252, 0.252, 0.252),
    5: (0.0, 0.001, 0.008, 0.028, 0.082, 0.159, 0.26, 0.26, 0.26, 0.26, 0.26, 0.26),
    6: (0.0, 0.001, 0.01, 0.055, 0.15, 0.241, 0.241, 0.241, 0.241, 0.241, 0.241, 0.241),
}


def hazard(num_players: int, turns_taken: np.ndarray) -> np.ndarray:
    """A SAT opponent's chance to accuse rightly on its next turn, having taken ``turns_taken`` turns.

    Raises:
        ValueError: For a number of players without a measured table.
    """
    if num_players not in SAT_HAZARD:
        raise ValueError(f"no SAT hazard measured for {num_players} players; measured: {sorted(SAT_HAZARD)}")
    table = np.asarray(SAT_HAZARD[num_players])
    return table[np.minimum(np.asarray(turns_taken, dtype=np.int64), len(table) - 1)]


def evidence_hazard(
    answers: np.ndarray, unrefuted: np.ndarray, per_answer: float, per_unrefuted: float
) -> np.ndarray:
    """An opponent's chance to accuse rightly on its next turn, from what the agent has seen of it.

    Args:
        answers: Its suggestions that somebody refuted (the answers it received), per opponent.
        unrefuted: Its suggestions that nobody could refute, per opponent.
        per_answer: The hazard each answer adds.
        per_unrefuted: The hazard each unrefuted suggestion adds.

    Returns:
        ``min(1, per_answer * answers + per_unrefuted * unrefuted)``, per opponent.
    """
    return np.minimum(1.0, per_answer * np.asarray(answers) + per_unrefuted * np.asarray(unrefuted))


def sat_hazards(
    num_players: int, games: int, seed: int = 0, horizon: int = 12, min_at_risk: int = 100
) -> tuple[float, ...]:
    """The Kaplan-Meier hazard of a SAT player's correct accusation by own turn, from self-play.

    Args:
        num_players: Players at the table (classic board), every one a SAT agent.
        games: Games to play (deals ``seed .. seed + games - 1``).
        seed: The first deal's seed.
        horizon: Turns per player in the table (later turns pool into the last).
        min_at_risk: Turns with fewer players at risk pool with all later ones.

    Returns:
        ``horizon`` hazards, rounded to 3 decimals.
    """
    from agents.arena import play_batch
    from agents.registry import make_agent

    config = core.GameConfig(num_players=num_players, duel=num_players == 2)  # 2 players: the duel
    at_risk = np.zeros(horizon, dtype=np.int64)
    certain = np.zeros(horizon, dtype=np.int64)
    taken = np.zeros((games, num_players), dtype=np.int64)  # turns each player has begun
    done = np.zeros((games, num_players), dtype=bool)  # accused (or the game ended)

    def follow(state: core.State) -> None:
        for game in np.flatnonzero(state.num_events > 0).tolist():
            for row in state.step_events(game):
                kind, player = int(row[ev.KIND]), int(row[ev.PLAYER])
                if kind == ev.TURN and not done[game, player]:
                    taken[game, player] += 1
                    at_risk[min(taken[game, player] - 1, horizon - 1)] += 1
                elif kind == ev.ACCUSE:
                    if row[ev.CORRECT] == 1:
                        certain[min(taken[game, player] - 1, horizon - 1)] += 1
                    done[game, player] = True

    agents = [make_agent("sat", seed=seed + k) for k in range(num_players)]
    play_batch(config, agents, np.arange(seed, seed + games), on_step=follow)
    # Late turns are reached in few games: from the first turn with fewer than ``min_at_risk``
    # players at risk on, the turns are pooled into one estimate (a hazard from a handful of
    # players would read 0 or 1).
    sparse = np.flatnonzero(at_risk < min_at_risk)
    tail = int(sparse[0]) if len(sparse) else horizon
    tail = max(tail, 1)
    hazards = [round(float(c / a), 3) for c, a in zip(certain[: tail - 1], at_risk[: tail - 1], strict=True)]
    pooled = round(float(certain[tail - 1 :].sum() / max(at_risk[tail - 1 :].sum(), 1)), 3)
    hazards += [pooled] * (horizon - tail + 1)
    return tuple(hazards)


if __name__ == "__main__":
    replace_unencodable()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    args = parser.parse_args()
    for players in args.players:
        print(f"    {players}: {sat_hazards(players, args.games)},", flush=True)
