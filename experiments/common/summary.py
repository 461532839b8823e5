"""The statistics of tournament games: win shares with intervals, turns, accusations, ratings, head to head.

Input: game records as written by ``experiments.tournament`` (``games.jsonl``:
``players``, ``seats`` (agent label per seat), ``winner`` (label or null),
``winner_seat``, ``turns``, ``truncated``, ``accusations`` and
``wrong_accusations`` per seat, plus ``lineup``, ``deal``, ``rotation``), checked as
the file is read (``experiments.common.games_file.load_games``).

What ``summarise`` reports, per player count (the fair share of a seat, ``fair_share``, is ``1/N``):

- **Win share** of each agent: games won / seats played (an agent seated twice
  in a game counts twice), with a 95% Wilson score interval; also per seat (``seats``), and of
  each seat whoever sat there (``seat_advantage``: the games that seat won). A game without a
  winner (``no_winner_share`` of the games: stopped at ``max_turns``, or every player eliminated)
  is a loss for every seat, so the seats' shares average ``(1 - no_winner_share)/N``, the even
  share of the decided games, below the fair share of all games.
- **Turns to win**: the game's length in the games an agent won (correct
  accusation), mean with a 95% Student t interval, and median.
- **Wrong accusations**: share of an agent's seats that made a wrong
  accusation (which eliminates the player), with a Wilson interval.
- **Accusations per seat** (``accusations_per_seat``): the accusations an agent's seats made, right
  or wrong, over the seats it played (an agent seated twice in a game counts both seats' accusations
  and both seats), not over the games it played in.
- **OpenSkill ratings** (Plackett-Luce, ``experiments.common.ratings``): each game is one
  match, each seat a team of one; the winner ranks first and everybody else ties second (no
  winner: all tie). Copies of one agent in a game share its rating and their
  updates are averaged. Games are rated in a fixed order (players, deal seed, deal, rotation,
  line-up, config) so that ratings do not depend on which process finished first, nor
  on the order in which pooled runs are given. The rows of a player count carry the ratings
  from its games only; ``ratings`` (and its plot) rates all the games together.
  ``mu``, ``sigma`` (its uncertainty) and ``ordinal = mu - 3 sigma``.
- **Head to head**: for each pair of agents, in the games where both sat and
  one of them won, how often A's seat finished ahead of B's, seat for seat:
  each seat of A against each seat of B is one comparison, which the winner's
  seat wins (so an agent seated three times is not credited three chances).
  50% is even. The 95% Wilson interval takes the games one of them won as the
  trials (comparisons within one game are not independent).

Each player count's ``by_players`` entry also says whether every line-up played the same deals
(``same_deals``; a run stopped partway, or runs of other line-ups pooled, can leave them apart), how many
deals every line-up played (``shared_deals``), the fewest and most one line-up played (``lineup_deals``),
and whether each line-up played each of its deals under every seat rotation (``every_rotation``).

The intervals (``cluedo_env.intervals``) treat games as independent draws. Duplicate deals
and seat rotations balance luck between agents but make games of one deal correlated,
so the intervals are, if anything, slightly optimistic for a single agent's share.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from cluedo_env.intervals import mean_interval, wilson_interval
from experiments.common.ratings import openskill_ratings

__all__ = ["BOOTSTRAP_RESAMPLES", "ahead_interval", "summarise", "unique_games"]

BOOTSTRAP_RESAMPLES = 2000  # head to head pooled over line-ups that seat the two in other numbers


def unique_games(
    records: Iterable[dict], origins: Iterable[tuple[str, Hashable]] | None = None
) -> list[dict]:
    """The records with each game once.

    A game is what decides its result: the rules and the agents of its seats, its line-up, its deal
    seed and its seat rotation. Without ``origins`` a record's config hash stands for its rules and
    agents. ``origins`` gives, record by record, the run it was read from and its rules and agents of
    its seats (``cluedo-stats`` reads them from each run's ``config.yaml``): a game that two runs
    played then counts once though their config hashes differ, as they do for settings that change
    no game of a line-up they share (``lineup.field`` given or left to its default, ``lineup.mode``).

    A game recorded twice (two runs wrote into one folder, one folder was pooled twice, two runs
    played it) would count twice and narrow every interval: a copy with the same result (its config
    hash aside) is dropped with a ``RuntimeWarning``, and of two copies under other hashes the one of
    the smaller hash is kept (the ratings' order does not depend on the runs'); two different results
    for one game raise ``ValueError`` naming the game and the fields that differ (with ``origins``,
    the two runs).
    """
    kept: dict[tuple, tuple[dict, str | None]] = {}
    copies, shared = 0, defaultdict(int)  # (run, run) -> games both played under other config hashes
    given = origins is not None
    pairs = zip(records, origins, strict=True) if given else ((r, (None, None)) for r in records)
    for record, (run, identity) in pairs:
        key = (
            identity if given else record.get("config"),
            record["lineup"],
            record["seed"],
            record["rotation"],
        )
        if key not in kept:
            kept[key] = record, run
            continue
        first, first_run = kept[key]
        differ = sorted(
            k for k in first.keys() | record.keys() if k != "config" and first.get(k) != record.get(k)
        )
        if differ:
            where = f" in {first_run} and {run}" if given else f" (config {first.get('config')})"
            raise ValueError(
                f"two different results for one game (line-up {record['lineup']}, deal {record['deal']}, seed "
                f"{record['seed']}, rotation {record['rotation']}){where}: "
                + ", ".join(f"{k} {first.get(k)!r} and {record.get(k)!r}" for k in differ)
                + (
                    "; runs of one seed play the same deals, and under another batch_size or other code an "
                    "agent draws otherwise: pool runs of other seeds"
                    if given
                    else "; the results are not from one run"
                )
            )
        copies += 1
        if first.get("config") != record.get("config"):
            shared[first_run, run] += 1
            if str(record.get("config")) < str(first.get("config")):
                kept[key] = record, run
    if copies:
        also = "".join(
            f"; {n} of them played by both {a} and {b}, whose config hashes differ but not their games"
            for (a, b), n in shared.items()
        )
        warnings.warn(
            f"{copies} duplicate game record(s) dropped: each game counts once{also}",
            RuntimeWarning,
            stacklevel=2,
        )
    return [record for record, _ in kept.values()]


def ahead_interval(together: Sequence[dict], a: str, b: str) -> tuple[float, float]:
    """The 95% interval of how often ``a``'s seat finished ahead of ``b``'s, seat for seat, in the
    games ``together`` (both at the table; at least one won by either).

    A win of ``a`` puts it ahead of the ``b`` seats of its game, a win of ``b`` one ``b`` seat ahead of
    each ``a`` seat, and a game counts once. Where every game seats them in the same numbers (a
    line-up), the share is a monotone function of ``a``'s share of the decisive games, and the interval
    is Wilson's for that share carried over (exact). Pooled over line-ups that seat them in other
    numbers, Wilson's carried over by the mean seats behind a win is too narrow where the seatings'
    shares differ, and a bootstrap of the games within each seating too narrow where a seating has few
    games or one winner only (it never varies there): the interval spans both, the bootstrap's being the
    percentile interval of ``BOOTSTRAP_RESAMPLES`` resamples (seeded, the seatings in order: the same
    games give the same interval in any order).
    """
    decisive = [r for r in together if r["winner"] in (a, b)]
    seatings: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])  # (a seats, b seats) -> wins
    for r in decisive:
        seatings[r["seats"].count(a), r["seats"].count(b)][r["winner"] == b] += 1
    ahead = sum(b_seats * won for (_, b_seats), (won, _) in seatings.items())
    behind = sum(a_seats * lost for (a_seats, _), (_, lost) in seatings.items())
    a_wins = sum(won for won, _ in seatings.values())
    per_a_win = ahead / a_wins if a_wins else np.mean([r["seats"].count(b) for r in decisive])
    per_b_win = (
        behind / (len(decisive) - a_wins) if behind else np.mean([r["seats"].count(a) for r in decisive])
    )
    low, high = wilson_interval(a_wins, len(decisive))

    def seat_for_seat(x: float) -> float:
        return float(per_a_win * x / (per_a_win * x + per_b_win * (1 - x)))

    low, high = seat_for_seat(low), seat_for_seat(high)
    if len(seatings) > 1 and ahead and behind:
        rng = np.random.default_rng(0)
        resampled_ahead = resampled_behind = np.zeros(BOOTSTRAP_RESAMPLES)
        for (a_seats, b_seats), (won, lost) in sorted(seatings.items()):  # resampled games: binomial wins
            wins = rng.binomial(won + lost, won / (won + lost), BOOTSTRAP_RESAMPLES)
            resampled_ahead = resampled_ahead + b_seats * wins
            resampled_behind = resampled_behind + a_seats * (won + lost - wins)
        shares = resampled_ahead / (resampled_ahead + resampled_behind)
        low, high = min(low, float(np.quantile(shares, 0.025))), max(high, float(np.quantile(shares, 0.975)))
    return low, high


def summarise(records: Sequence[dict]) -> dict:
    """All statistics of a list of game records (see the module docstring).

    Returns:
        ``{"games", "by_players": {N: {...}}, "agents": [rows], "seats": [rows],
        "seat_advantage": [rows], "head_to_head": [rows], "lineups": [rows: one per agent of each line-up],
        "ratings": {label: {...}},
        "turns_to_win": {N: {label: [turns]}}}``; rows carry ``players``.
        Duplicate records of a game count once (``unique_games``).
    """
    records = unique_games(records)
    agents, seats, seat_advantage, head_to_head, by_lineup = [], [], [], [], []
    by_players, turns_by_players = {}, {}
    ratings = openskill_ratings(records)
    for players in sorted({r["players"] for r in records}):
        games = [r for r in records if r["players"] == players]
        rated = ratings if len(games) == len(records) else openskill_ratings(games)
        labels = sorted({label for r in games for label in r["seats"]})
        seat_games = defaultdict(int)
        seat_wins = defaultdict(int)
        wrong = defaultdict(int)
        accusations = defaultdict(int)
        turns_to_win = defaultdict(list)
        for r in games:
            for seat, label in enumerate(r["seats"]):
                seat_games[label, seat] += 1
                seat_wins[label, seat] += r["winner_seat"] == seat
                wrong[label] += r["wrong_accusations"][seat] > 0
                accusations[label] += r["accusations"][seat]
            if r["winner"] is not None:
                turns_to_win[r["winner"]].append(r["turns"])

        wins_of = {label: sum(seat_wins[label, s] for s in range(players)) for label in labels}
        seats_of = {label: sum(seat_games[label, s] for s in range(players)) for label in labels}
        labels.sort(
            key=lambda label: (-wins_of[label] / seats_of[label], label)
        )  # best first, in every table
        for label in labels:
            n = sum(seat_games[label, s] for s in range(players))
            k = sum(seat_wins[label, s] for s in range(players))
            mean, low, high = mean_interval(turns_to_win[label])
            low = max(low, 0.0)  # turns are never negative (the t interval of a few wins can be)
            agents.append(
                {
                    "players": players,
                    "agent": label,
                    "seats_played": n,
                    "wins": k,
                    "win_share": k / n,
                    "win_low": wilson_interval(k, n)[0],
                    "win_high": wilson_interval(k, n)[1],
                    "fair_share": 1 / players,
                    "turns_to_win_mean": mean,
                    "turns_to_win_low": low,
                    "turns_to_win_high": high,
                    "turns_to_win_median": float(np.median(turns_to_win[label]))
                    if turns_to_win[label]
                    else math.nan,
                    "wrong_accusation_rate": wrong[label] / n,
                    "wrong_accusation_low": wilson_interval(wrong[label], n)[0],
                    "wrong_accusation_high": wilson_interval(wrong[label], n)[1],
                    "accusations_per_seat": accusations[label] / n,
                    **{f"rating_{key}": rated[label][key] for key in ("mu", "sigma", "ordinal")},
                }
            )
            for seat in range(players):
                n, k = seat_games[label, seat], seat_wins[label, seat]
                if n:
                    low, high = wilson_interval(k, n)
                    seats.append(
                        {"players": players, "agent": label, "seat": seat, "games": n, "wins": k,
                         "win_share": k / n, "win_low": low, "win_high": high}
                    )  # fmt: skip
        for seat in range(players):
            k = sum(r["winner_seat"] == seat for r in games)
            low, high = wilson_interval(k, len(games))
            seat_advantage.append(
                {"players": players, "seat": seat, "games": len(games), "wins": k,
                 "win_share": k / len(games), "win_low": low, "win_high": high}
            )  # fmt: skip
        for a in labels:
            for b in labels:
                if a == b:
                    continue
                together = [r for r in games if a in r["seats"] and b in r["seats"]]
                if not together:
                    continue
                a_wins = sum(r["winner"] == a for r in together)
                b_wins = sum(r["winner"] == b for r in together)
                # Seat-for-seat comparisons: the winning seat of A is ahead of every seat of B.
                ahead = sum(r["seats"].count(b) for r in together if r["winner"] == a)
                behind = sum(r["seats"].count(a) for r in together if r["winner"] == b)
                decisive = a_wins + b_wins
                share = ahead / (ahead + behind) if decisive else math.nan
                low, high = ahead_interval(together, a, b) if decisive else (math.nan,) * 2
                head_to_head.append(
                    {"players": players, "agent": a, "opponent": b, "games": len(together),
                     "agent_wins": a_wins, "opponent_wins": b_wins, "decisive_games": decisive,
                     "ahead_share": share, "ahead_low": low, "ahead_high": high}
                )  # fmt: skip
        for lineup in sorted(
            {r["lineup"] for r in games}, key=lambda x: [labels.index(a) for a in x.split("+")]
        ):
            played = [r for r in games if r["lineup"] == lineup]
            for label in sorted(set(played[0]["seats"]), key=labels.index):
                n = sum(r["seats"].count(label) for r in played)
                k = sum(r["winner"] == label for r in played)
                low, high = wilson_interval(k, n)
                by_lineup.append(
                    {"players": players, "lineup": lineup, "games": len(played), "agent": label,
                     "copies": played[0]["seats"].count(label), "seats_played": n, "wins": k,
                     "win_share": k / n, "win_low": low, "win_high": high,
                     "no_winner_share": sum(r["winner"] is None for r in played) / len(played),
                     "mean_turns": float(np.mean([r["turns"] for r in played]))}
                )  # fmt: skip
        no_winner = sum(r["winner"] is None for r in games)
        rotations = defaultdict(set)  # (line-up, deal) -> the seat rotations it was played under
        deals = defaultdict(set)  # line-up -> the deals it played
        for r in games:
            rotations[r["lineup"], r["seed"]].add(r["rotation"])
            deals[r["lineup"]].add(r["seed"])
        counts = [len(played) for played in deals.values()]
        by_players[players] = {
            "games": len(games),
            "lineups": len(deals),
            "deals": len({r["seed"] for r in games}),  # deal seeds: pooled runs of other seeds count apart
            "same_deals": all(played == deals[games[0]["lineup"]] for played in deals.values()),
            "shared_deals": len(set.intersection(*deals.values())),
            "lineup_deals": [min(counts), max(counts)],
            "every_rotation": all(len(played) == players for played in rotations.values()),
            "no_winner_share": no_winner / len(games),
            "truncated_share": sum(r["truncated"] for r in games) / len(games),
            "mean_turns": float(np.mean([r["turns"] for r in games])),
        }
        turns_by_players[players] = {label: turns_to_win[label] for label in labels}
    return {
        "games": len(records),
        "by_players": by_players,
        "agents": agents,
        "seats": seats,
        "seat_advantage": seat_advantage,
        "head_to_head": head_to_head,
        "lineups": by_lineup,
        "ratings": ratings,
        "turns_to_win": turns_by_players,
    }
