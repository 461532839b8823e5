"""Two agents compared game by game: the same deals, the same seats, the same opponents.

    python -m experiments.compare results/imitation_vs_sat results/learned_vs_sat
    python -m experiments.compare runs/a runs/b --agents learned learned --names imitation learned --json

Each folder is a tournament's output (``games.jsonl`` of ``experiments.tournament``; unzip a
``games.jsonl.gz`` of ``docs/results`` first) in which the compared agent sits once in a game,
as in ``lineup.mode=one_vs_field`` line-ups. A game of run A and a game of run B form a pair when
they have the same deal seed, the same number of players and seat rotation, and every other seat
holds the same label: the same deal, played by A's agent and by B's agent from the same seat
against the same field. (The field's labels are compared, not its options: run both with one
line-up file, as ``experiments.tournament lineup=learned_vs_sat "lineup.agents=[...]"`` does.)
Runs whose ``config.yaml`` name other rules (its ``game`` section) are refused: a deal seed is the
same deal only under the same rules. Runs whose paired games were not all played by one code version
(each folder's ``run.json``, as the tournament's report counts them: ``code_versions``) are compared,
with a note naming each run's code (``code_note``): a rule can change between two revisions while the
config does not, and a deal seed is the same game only where the rules did not change, so the difference
may come from the code as well as from the agents. A folder without a ``run.json`` of its games (pooled
or written by hand) has unknown code, and gets the note too.

Each pair gives ``d = (B won) - (A won)``, in {-1, 0, 1}. The difference of the win rates is the
mean of ``d``, ``(only B won - only A won) / pairs``, with Tango's 95% score interval for the
difference of paired shares (``cluedo_env.intervals.paired_difference_interval``): both agents
meet the same deals, so the luck of the deal, which both share, drops out and the interval is
narrower than that of two independent rates; it stays within -/+100 points and has a width even
where every pair is tied. Beside it: each agent's wins in the paired games with a 95% Wilson
interval, the discordant pairs (only B won, only A won) with McNemar's exact test (the two-sided
binomial test of the discordant pairs at 1/2), and each agent's wrong accusations.
The games of one deal under several rotations are treated as independent, as everywhere in the
tournament's statistics.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from cluedo_env import __version__
from cluedo_env.console import replace_unencodable
from cluedo_env.intervals import paired_difference_interval, wilson_interval
from experiments.common.games_file import GAMES_FILE, load_games, no_games_file, record_key, rejection_note
from experiments.common.report import json_ready
from experiments.common.run_config import run_rules
from experiments.common.summary import unique_games
from experiments.common.tournament_code import run_code, runs_code_note

__all__ = ["DIFFERENCE_METHOD", "code_note", "compare", "main", "mcnemar_exact", "seated_once"]

DIFFERENCE_METHOD = "Tango's score interval, 95%"  # the paired difference's interval, as printed


def seated_once(records: Sequence[dict]) -> list[str]:
    """The labels that sit exactly once in every one of ``records`` (the candidates to compare)."""
    onces = ({label for label in r["seats"] if r["seats"].count(label) == 1} for r in records)
    return sorted(set.intersection(*onces)) if records else []


def mcnemar_exact(only_b: int, only_a: int) -> float:
    """Two-sided exact McNemar test: P(a split of the discordant pairs at least this uneven | 1/2 each)."""
    n, low = only_a + only_b, min(only_a, only_b)
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, k) for k in range(low + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def _key(record: dict, agent: str) -> tuple:
    """What makes two games the same deal and table but for the compared agent: its seat, and the labels
    of the other seats in order (``agent`` sits once in ``record``; no label stands in for its seat, as
    any label may be some entrant's)."""
    seat = record["seats"].index(agent)
    others = tuple(record["seats"][:seat] + record["seats"][seat + 1 :])
    return record["seed"], record["players"], record["rotation"], seat, others


def _outcome(record: dict, agent: str) -> tuple[bool, int]:
    """Whether ``agent``'s one seat won ``record``'s game, and whether it accused wrongly (0 or 1)."""
    seat = record["seats"].index(agent)
    return record["winner_seat"] == seat, record["wrong_accusations"][seat]


def _seated(records: Sequence[dict], agent: str) -> dict[tuple, dict]:
    """The games of ``records`` in which ``agent`` sits exactly once, by ``_key``."""
    return {_key(r, agent): r for r in records if r["seats"].count(agent) == 1}


def compare(a: Sequence[dict], b: Sequence[dict], agent_a: str, agent_b: str) -> dict:
    """The game-by-game comparison of ``agent_a`` in records ``a`` with ``agent_b`` in records ``b``.

    Only games in which the agent sits exactly once count. Returns the counts, the rates and their 95%
    Wilson intervals over the pairs (fractions, not percent), the paired difference ``B - A`` with
    Tango's 95% score interval (``difference_method`` names it) and McNemar's exact p-value.

    Raises:
        ValueError: if no game of ``a`` has a partner in ``b`` (other deals, or another field).
    """
    games_a, games_b = _seated(a, agent_a), _seated(b, agent_b)
    shared = sorted(games_a.keys() & games_b.keys())
    if not shared:
        raise ValueError(
            f"no game of A ({len(games_a)} with {agent_a!r} seated once) has a partner in B ({len(games_b)} "
            f"with {agent_b!r}): a pair needs the same deal seed, rotation and other seats' labels"
        )
    won_a, wrong_a = zip(*(_outcome(games_a[k], agent_a) for k in shared))
    won_b, wrong_b = zip(*(_outcome(games_b[k], agent_b) for k in shared))
    only_a = sum(x and not y for x, y in zip(won_a, won_b))
    only_b = sum(y and not x for x, y in zip(won_a, won_b))
    both = sum(x and y for x, y in zip(won_a, won_b))
    n = len(shared)
    difference, low, high = paired_difference_interval(both, only_a, only_b, n - both - only_a - only_b)

    def side(agent: str, won: Sequence[bool], wrong: Sequence[int], total: int) -> dict:
        return {
            "agent": agent,
            "games": total,
            "wins": sum(won),
            "win_rate": sum(won) / n,
            "win_interval": wilson_interval(sum(won), n),
            "wrong_accusations": sum(wrong),
            "wrong_accusation_interval": wilson_interval(sum(wrong), n),
        }

    return {
        "pairs": n,
        "a": side(agent_a, won_a, wrong_a, len(games_a)),
        "b": side(agent_b, won_b, wrong_b, len(games_b)),
        "difference": difference,
        "difference_interval": (low, high),
        "difference_method": DIFFERENCE_METHOD,
        "only_a_won": only_a,
        "only_b_won": only_b,
        "mcnemar_p": mcnemar_exact(only_b, only_a),
    }


def code_note(names: Sequence[str], codes: Sequence[list[dict] | None]) -> str | None:
    """What ``compare`` says where the paired games of runs ``names`` were not all played by one code
    version (``codes``: ``run_code`` of each), or may not have been (some code unknown); None where
    they were. Code versions are the same as in the tournament's report (``code_versions``)."""
    said = runs_code_note(list(names), list(codes))
    if said is None:
        return None
    return (
        f"{said}. A deal seed is the same game only where the rules did not change between the codes, so the "
        "difference may come from the code as well as from the agents"
    )


def _read(folder: Path, parser: argparse.ArgumentParser) -> tuple[list[dict], list[dict]]:
    """The folder's game records in file order, and each game once (``unique_games``)."""
    if (why := no_games_file(folder)) is not None:
        parser.exit(2, f"error: {why}\n")
    path = folder / GAMES_FILE
    games, bad = load_games(path)
    if bad:
        print(rejection_note(path, bad), file=sys.stderr)  # (stdout may be --json's)
    try:
        return games, unique_games(games)
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")


def _agent(records: list[dict], given: str | None, folder: Path, parser: argparse.ArgumentParser) -> str:
    if given is not None:
        return given
    candidates = seated_once(records)
    if len(candidates) != 1:
        parser.exit(
            2, f"error: {folder}: say which agent to compare with --agents A B; seated once in every game: "
            f"{', '.join(candidates) or 'none'}\n",
        )  # fmt: skip
    return candidates[0]


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def main(argv: Sequence[str] | None = None) -> None:
    """Compare two tournament runs' agents game by game; print the paired difference of their win rates."""
    replace_unencodable()
    title = __doc__.partition("\n")[0]
    parser = argparse.ArgumentParser(description=f"cluedo-env {__version__}: {title}")
    parser.add_argument("--version", action="version", version=f"cluedo-env {__version__}")
    parser.add_argument("run_a", type=Path, help="tournament output folder (games.jsonl) of agent A")
    parser.add_argument("run_b", type=Path, help="... of agent B, on the same deals")
    parser.add_argument("--agents", nargs=2, metavar=("A", "B"), help="the labels to compare (default: the "
                        "label seated once in every game of each run)")  # fmt: skip
    parser.add_argument("--names", nargs=2, metavar=("A", "B"), help="names to print (default: the folders')")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = parser.parse_args(argv)
    (file_a, a), (file_b, b) = _read(args.run_a, parser), _read(args.run_b, parser)
    rules_a, rules_b = run_rules(args.run_a), run_rules(args.run_b)
    if rules_a is not None and rules_b is not None and rules_a != rules_b:
        differ = sorted(k for k in rules_a.keys() | rules_b.keys() if rules_a.get(k) != rules_b.get(k))
        shown = "; ".join(f"game.{k}: {rules_a.get(k)!r} in A, {rules_b.get(k)!r} in B" for k in differ[:4])
        parser.exit(2, f"error: the runs were played under other rules ({shown}): a deal seed is the same deal "
                       "only under the same rules\n")  # fmt: skip
    given = args.agents or (None, None)
    agent_a, agent_b = _agent(a, given[0], args.run_a, parser), _agent(b, given[1], args.run_b, parser)
    try:
        result = compare(a, b, agent_a, agent_b)
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")
    names = args.names or (args.run_a.name, args.run_b.name)
    games_a, games_b = _seated(a, agent_a), _seated(b, agent_b)
    shared = games_a.keys() & games_b.keys()
    codes = [
        run_code(folder, records, {record_key(games[k]) for k in shared})
        for folder, records, games in ((args.run_a, file_a, games_a), (args.run_b, file_b, games_b))
    ]
    note = code_note(names, codes)
    if args.json:
        code = {"code": {"a": codes[0], "b": codes[1]}, "code_note": note}
        print(json.dumps(json_ready({"names": list(names), **result, **code}), indent=2))  # (NaN: null)
        return
    if note:
        print(f"note: {note}")
    n = result["pairs"]
    print(f"{n} pairs of games (the same deal, seat and field): {names[0]} {result['a']['games']} games, "
          f"{names[1]} {result['b']['games']}")  # fmt: skip
    for name, side in zip(names, (result["a"], result["b"])):
        low, high = side["win_interval"]
        print(f"  {name} ({side['agent']}): {side['wins']} wins in {n} paired games, {_percent(side['win_rate'])} "
              f"[{_percent(low)}, {_percent(high)}] (95% Wilson interval); wrong accusations "
              f"{side['wrong_accusations']}")  # fmt: skip
    low, high = result["difference_interval"]
    interval = f"[{100 * low:+.1f}, {100 * high:+.1f}] ({result['difference_method']}, paired)"
    print(f"  {names[1]} - {names[0]}: {100 * result['difference']:+.1f} points {interval}; only {names[1]} won "
          f"{result['only_b_won']}, only {names[0]} won {result['only_a_won']}, "
          f"McNemar exact p = {result['mcnemar_p']:.3g}")  # fmt: skip


if __name__ == "__main__":
    main()
