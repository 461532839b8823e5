"""The results file of a tournament, ``games.jsonl``: one game record (a JSON object) per line.

``load_games`` reads it back and is the one place a game record is checked: every reader
(``cluedo-stats``, the tournament's resume and report, ``experiments.common.llm_report``
through them) gets only well-formed records. A line that is not one is rejected, counted
and named with the reason (line and field), and with ``repair`` moved aside;
``read_games`` is ``load_games`` without the list of rejections. ``GameWriter`` appends
records, synced per chunk so that a killed run loses at most the line it was writing.
``experiments.common.tournament_run`` writes the file and ``experiments.common.stats`` (``cluedo-stats``)
reads it; neither imports the other.

A game record (``experiments.common.chunks.game_record``), checked field by field
(``check_game_record``):

=====================  =============================================================================
``config``             the run's config hash, a non-empty string
``lineup``             the agent labels in agent order joined by ``+`` (each a label that
                       ``experiments.common.labels.label_refusal`` accepts)
``players``            an int in [2, 6], the number of labels of ``lineup``
``rotation``           an int in [0, players)
``deal``               an int in [0, DEAL_SEED_STRIDE): deals of a run are numbered below the stride
``seed``               the deal's core seed, ``run seed * DEAL_SEED_STRIDE + deal``, in [0, 2**63)
``seats``              the agent label of each seat: ``lineup`` under ``rotation``
                       (agent ``k`` sits at seat ``(k + rotation) % players``)
``winner_seat``        null or an int in [0, players); ``winner`` is null with it, else ``seats[winner_seat]``
``turns``              an int in [1, MAX_TURNS]; ``truncated`` a bool; ``decisions`` an int >= 0
``accusations``        per seat, 0 or 1 (a player accuses once: right, it wins; wrong, it is out)
``wrong_accusations``  per seat, 0 or 1 and at most its accusations; the winner's one accusation
                       was right, every other accusation wrong; with no winner the game was
                       truncated, or every seat accused wrongly; a truncated game has no winner
``llm`` (optional)     per seat (``"0"``, ``"1"``, ...) the counts of a language-model seat:
                       ints >= 0, with ``LLM_COUNTS``; invalid replies at most the replies,
                       fallbacks at most the decisions
=====================  =============================================================================

Across the file, two lines with different results for one game (config, line-up, deal,
rotation) are both rejected: which one is true cannot be told, so the game is missing and a
resumed run plays it again. Identical copies are kept for ``experiments.common.summary.unique_games``,
which counts a game once.
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from pathlib import Path

from cluedo_env.whole_files import write_whole
from experiments.common.labels import label_refusal
from experiments.common.write_failures import writing

__all__ = [
    "DEAL_SEED_STRIDE",
    "GAMES_FILE",
    "LLM_COUNTS",
    "MAX_PLAYERS",
    "MAX_TURNS",
    "MIN_PLAYERS",
    "RECORD_FIELDS",
    "REJECTED_SUFFIX",
    "GameWriter",
    "check_game_record",
    "load_games",
    "no_games_file",
    "read_games",
    "record_key",
    "rejection_note",
]

GAMES_FILE = "games.jsonl"  # a tournament folder's game records, one JSON line a game

REJECTED_SUFFIX = ".rejected"
RECORD_FIELDS = (
    "config",
    "lineup",
    "deal",
    "seed",
    "rotation",
    "players",
    "seats",
    "winner",
    "winner_seat",
    "turns",
    "truncated",
    "decisions",
    "accusations",
    "wrong_accusations",
)
# Deal d of a run with seed s is dealt from core seed s * DEAL_SEED_STRIDE + d (chunks.deal_seed; settings.MAX_SEED).
DEAL_SEED_STRIDE = 1_000_000_000
# Twins of the core's player counts, MAX_TURNS and seed bound (tests/experiments/test_results_validation.py checks
# that they agree): this module does not import the compiled core.
MIN_PLAYERS, MAX_PLAYERS = 2, 6
MAX_TURNS = 2**15 - 1
SEED_BOUND = 2**63
# The counts of a language-model seat that experiments.common.llm_report adds up (agents.llm.llm_agent.COUNTS has them all).
LLM_COUNTS = ("decisions", "replies", "invalid_replies", "fallbacks", "prompt_tokens", "completion_tokens")
SHOWN_CHARS = 80  # of a value quoted in a message
NOTE_LINES = 10  # rejections named in a message; the others are counted


def load_games(
    path: Path, repair: bool = False, lost: str = "their games are played again on resume"
) -> tuple[list[dict], list[str]]:
    """The well-formed game records of a ``games.jsonl``, and a reason for each line rejected.

    A rejected line is a torn record (a writer killed mid-line), garbage, or JSON that is not a
    well-formed game record (``check_game_record``; two different results for one game). It is
    not counted: its game is missing, so a resumed run plays it again. Rejections are also
    told as a ``RuntimeWarning``.

    Args:
        path: The file (missing: no games).
        repair: Also move the rejected lines out of the file, appending them to
            ``games.jsonl.rejected`` beside it (the file is rewritten atomically), so that
            appends start on a clean line.
        lost: What becomes of the rejected lines' games, said in the warning (a tournament plays
            them again; the web app's results lose them).

    Returns:
        The records in file order, and ``"line N: why"`` for each rejected line.
    """
    path = Path(path)
    if not path.exists():
        return [], []
    data = path.read_bytes()
    parsed: list[tuple[int, bytes, dict]] = []
    bad: dict[int, tuple[bytes, str]] = {}
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            parsed.append((number, line, _parse_record(line)))
        except ValueError as error:
            bad[number] = (line, str(error))
    games: dict[tuple, list[tuple[int, bytes, dict]]] = {}
    for entry in parsed:
        games.setdefault(_game_key(entry[2]), []).append(entry)
    for key, copies in games.items():
        if any(record != copies[0][2] for _, _, record in copies):
            lines = ", ".join(str(number) for number, _, _ in copies)
            why = f"different results for one game (line-up {key[1]}, deal {key[2]}, rotation {key[3]}) on lines {lines}"
            bad.update((number, (line, why)) for number, line, _ in copies)
    records = [record for number, _, record in parsed if number not in bad]
    rejected = [f"line {number}: {bad[number][1]}" for number in sorted(bad)]
    if bad:
        numbers = ", ".join(str(number) for number in sorted(bad)[:NOTE_LINES])
        numbers += " ..." if len(bad) > NOTE_LINES else ""
        where = f"moved to {path.name}{REJECTED_SUFFIX}" if repair else "left in place"
        warnings.warn(
            f"{path}: {len(bad)} line(s) are not game records (line {numbers}); skipped and {where}, "
            f"{lost}: {_reasons(rejected)}",
            RuntimeWarning,
            stacklevel=3,
        )
    clean = b"".join(line + b"\n" for number, line, _ in parsed if number not in bad)
    if repair and data != clean:
        if bad:
            with path.with_name(path.name + REJECTED_SUFFIX).open("ab") as file:
                file.write(b"".join(bad[number][0] + b"\n" for number in sorted(bad)))
                file.flush()
                os.fsync(file.fileno())
        write_whole(path, clean)  # a kill now leaves the old file or the clean one, never half of each
    return records, rejected


def no_games_file(folder: Path) -> str | None:
    """Why ``folder`` is not a tournament folder to read (``None``: it holds ``games.jsonl``)."""
    if (folder / GAMES_FILE).is_file():
        return None
    if not folder.is_dir():
        return f"{folder} is not a folder (name the tournament's output folder, which holds {GAMES_FILE})"
    zipped = f" (it holds {GAMES_FILE}.gz: gunzip it first)" if (folder / f"{GAMES_FILE}.gz").exists() else ""
    return f"{folder} has no {GAMES_FILE}{zipped}"


def read_games(path: Path, repair: bool = False) -> list[dict]:
    """The well-formed game records of a ``games.jsonl`` (``load_games`` without the rejections)."""
    return load_games(path, repair)[0]


def rejection_note(path: Path, rejected: list[str]) -> str:
    """``"N malformed records rejected from PATH (not counted): line 3: why; ..."`` for a report."""
    return f"{len(rejected)} malformed record(s) rejected from {path} (not counted): {_reasons(rejected)}"


def _reasons(rejected: list[str]) -> str:
    more = len(rejected) - NOTE_LINES
    return "; ".join(rejected[:NOTE_LINES]) + (f"; and {more} more" if more > 0 else "")


def record_key(record: dict) -> tuple[str, int, int]:
    """(line-up, deal, rotation): what identifies a game within a run."""
    return record["lineup"], record["deal"], record["rotation"]


def _game_key(record: dict) -> tuple:
    return record["config"], *record_key(record)


def _parse_record(line: bytes) -> dict:
    """The game record on one line of ``games.jsonl``; ``ValueError`` saying why it is not one."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ValueError("not JSON (a torn line or garbage)") from None
    except ValueError as error:  # an integer beyond Python's digit limit
        raise ValueError(f"not a JSON game record ({error})") from None
    check_game_record(record)
    return record


def check_game_record(record: object) -> None:
    """Check one game record (the table of the module docstring).

    Raises:
        ValueError: Naming the first field that is missing, of the wrong type, out of range
            or inconsistent with the others, and what is accepted.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object, got {type(record).__name__}")
    missing = [name for name in RECORD_FIELDS if name not in record]
    if missing:
        raise ValueError(
            f"no field {', '.join(map(repr, missing))} (a game record has {', '.join(RECORD_FIELDS)})"
        )
    if not isinstance(record["config"], str) or not record["config"]:
        raise ValueError(
            f"config must be the run's config hash (a non-empty string), got {_shown(record['config'])}"
        )
    lineup = record["lineup"]
    labels = lineup.split("+") if isinstance(lineup, str) else []
    if not all(labels):
        raise ValueError(f"lineup must be agent labels joined by '+', got {_shown(lineup)}")
    refused = next(filter(None, map(label_refusal, labels)), None)
    if refused:
        raise ValueError(f"lineup: {refused}")
    players = _integer(record, "players", MIN_PLAYERS, MAX_PLAYERS)
    if players != len(labels):
        raise ValueError(f"players is {players}, but lineup {_shown(lineup)} has {len(labels)} agents")
    rotation = _integer(record, "rotation", 0, players - 1)
    deal = _integer(record, "deal", 0, DEAL_SEED_STRIDE - 1)
    seed = _integer(record, "seed", 0, SEED_BOUND - 1)
    if seed % DEAL_SEED_STRIDE != deal:
        raise ValueError(
            f"seed {seed} is not the seed of deal {deal} (run seed * {DEAL_SEED_STRIDE:_} + deal)"
        )
    seats = record["seats"]
    expected = [labels[(seat - rotation) % players] for seat in range(players)]
    if not isinstance(seats, list) or len(seats) != players:
        length = f"{len(seats)} entries" if isinstance(seats, list) else type(seats).__name__
        raise ValueError(f"seats must be a list of the {players} players' agent labels, got {length}")
    if seats != expected:
        raise ValueError(
            f"seats {_shown(seats)} are not line-up {_shown(lineup)} under rotation {rotation} "
            f"(that is {_shown(expected)})"
        )
    _integer(record, "turns", 1, MAX_TURNS)
    if not isinstance(record["truncated"], bool):
        raise ValueError(f"truncated must be true or false, got {_shown(record['truncated'])}")
    _integer(record, "decisions", 0, None)
    accusations = _per_seat(record, "accusations", players)
    wrong = _per_seat(record, "wrong_accusations", players)
    for seat in range(players):
        if wrong[seat] > accusations[seat]:
            raise ValueError(
                f"seat {seat} has {wrong[seat]} wrong accusations but {accusations[seat]} accusations"
            )
    winner_seat, winner = record["winner_seat"], record["winner"]
    if winner_seat is None:
        if winner is not None:
            raise ValueError(f"winner is {_shown(winner)} but winner_seat is null (no winner)")
    else:
        winner_seat = _integer(record, "winner_seat", 0, players - 1)
        if winner != seats[winner_seat]:
            raise ValueError(
                f"winner {_shown(winner)} is not the agent at winner_seat {winner_seat} "
                f"({_shown(seats[winner_seat])})"
            )
    _check_accusations(record["truncated"], winner_seat, accusations, wrong)
    if "llm" in record:
        _check_llm(record["llm"], players)


def _check_accusations(
    truncated: bool, winner_seat: int | None, accusations: list[int], wrong: list[int]
) -> None:
    """The rules: only the winner accused rightly (and did); no winner, truncated or all out."""
    right = [seat for seat in range(len(wrong)) if accusations[seat] > wrong[seat]]
    if winner_seat is not None:
        if truncated:
            raise ValueError(f"a truncated game has no winner, got winner_seat {winner_seat}")
        if right != [winner_seat]:
            raise ValueError(
                f"winner_seat {winner_seat} must be the one seat that accused rightly, "
                f"but the seats that did are {right} (accusations {accusations}, wrong {wrong})"
            )
    elif right:
        raise ValueError(
            f"no winner, but seat(s) {right} accused rightly (accusations {accusations}, wrong {wrong})"
        )
    elif not truncated and not all(wrong):
        raise ValueError(
            f"a game without a winner that is not truncated ends with every seat out, got wrong accusations {wrong}"
        )


def _check_llm(llm: object, players: int) -> None:
    """The counts of the language-model seats: ``{"seat": {count: int >= 0}}``."""
    seats = [str(seat) for seat in range(players)]
    if not isinstance(llm, dict) or not set(llm) <= set(seats):
        shown = _shown(sorted(llm)) if isinstance(llm, dict) else type(llm).__name__
        raise ValueError(f"llm must map seats {seats} to counts, got {shown}")
    for seat, counts in llm.items():
        if not isinstance(counts, dict) or any(name not in counts for name in LLM_COUNTS):
            raise ValueError(
                f"llm[{seat!r}] must hold the counts {', '.join(LLM_COUNTS)}, got {_shown(counts)}"
            )
        for name in counts:
            _integer(counts, name, 0, None, f"llm[{seat!r}][{_shown(name)}]")
        for part, whole in (("invalid_replies", "replies"), ("fallbacks", "decisions")):
            if counts[part] > counts[whole]:
                raise ValueError(
                    f"llm[{seat!r}] has {counts[part]} {part}, more than its {counts[whole]} {whole}"
                )


def _integer(
    record: dict | list, name: str | int, low: int, high: int | None, where: str | None = None
) -> int:
    """``record[name]``, an int (not a bool or a float) in ``[low, high]``; ``ValueError`` otherwise."""
    value = record[name]
    bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        raise ValueError(f"{where or name} must be an integer {bound}, got {_shown(value)}")
    return value


def _per_seat(record: dict, name: str, players: int) -> list[int]:
    """``record[name]``: a list of one 0 or 1 per seat."""
    values = record[name]
    if not isinstance(values, list) or len(values) != players:
        got = f"{len(values)} entries" if isinstance(values, list) else repr(values)
        raise ValueError(f"{name} must list one count per seat ({players}), got {got}")
    for seat in range(players):
        _integer(values, seat, 0, 1, f"{name}[{seat}]")
    return values


def _shown(value: object) -> str:
    """``repr(value)``, cut to ``SHOWN_CHARS``: a message quotes the file, never all of a long value."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


class GameWriter:
    """Appends game records to ``games.jsonl``, one line each, flushed and synced per chunk.

    A write that fails (a full disk, a folder made read-only) raises ``NotWritten`` naming the file
    (``experiments.common.write_failures``) and closes it: the lines written before stay, and a torn last
    line is set aside when the run is resumed (``load_games``).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        with writing(path):
            self.file = path.open("a", encoding="utf-8")

    def write(self, records: list[dict]) -> None:
        """Append ``records``, one JSON line each, and sync the file."""
        with writing(self.path):
            try:
                self.file.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
                self.file.flush()
                os.fsync(self.file.fileno())
            except OSError:
                with contextlib.suppress(OSError):  # what it could not write is dropped, not tried again
                    self.file.close()
                raise

    def close(self) -> None:
        """Close the file (a file closed after a failed write: nothing more)."""
        with writing(self.path):
            self.file.close()
