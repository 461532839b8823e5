"""A task file from elsewhere (one you wrote, or downloaded): each task is checked as it is read.

``read_tasks`` refuses a task that ``make_task`` could not have written, naming the file, the line, the
task, the field and the value (``cluedo_env.reasoning.task_check.check_task``). Before, it read any JSON
object: a card name not in the edition, a player not at the table or hand sizes that do not deal the deck
reached a solver, which raised (the run scored the task as an empty answer), and an answer key, a text or
a rules summary that did not say what the task's other fields say was scored as it stood, in silence.
A file whose lines are a pinned split's is that split (its checksum vouches for it).
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.reasoning.splits import SPLITS, read_tasks, write_tasks
from cluedo_env.reasoning.task_check import check_task
from cluedo_env.reasoning.tasks import make_task
from cluedo_env.text import rules_summary
from cluedo_env.transcript import describe_event
from tests.reasoning.test_tasks_beyond_the_splits import CUSTOM, duel_task, written
from tests.scripted import act, room

# v2-dev-00005: player 1 (Colonel Mustard) of 4, classic edition and board, hand sizes [5, 5, 4, 4]; its
# hand Mrs Peacock, Conservatory, Kitchen, Reverend Green, Mrs White; the envelope is determined.
SHOWN = "P2 (Mrs White) shows Lounge to P1 (Colonel Mustard)"  # history entry 1, the first card it is shown


@pytest.fixture(scope="module")
def dev() -> list[dict]:
    return read_tasks(SPLITS["v2", "dev"].path())


@pytest.fixture
def task(dev) -> dict:
    task = copy.deepcopy(dev[5])
    assert task["id"] == "v2-dev-00005" and task["observer"] == 1 and task["history"][1]["card"] == "Lounge"
    return task


def refusal(tmp_path, task) -> str:
    """Why ``read_tasks`` refuses a file of this one task (its message names the file, the line, the task)."""
    path = tmp_path / "mine.jsonl.gz"
    write_tasks([task], path)
    with pytest.raises(ValueError) as error:
        read_tasks(path)
    message = str(error.value)
    assert message.startswith(f"{path}:1: task {task.get('id')!r}: "), message
    return message


def test_every_shipped_task_and_one_of_each_kind_of_game_passes_the_check(dev):
    for task in dev + read_tasks(SPLITS["v1", "dev"].path()):
        check_task(task)
    for version in ("v1", "v2"):
        check_task(duel_task(version))  # (the table's face-down cards, looked at)
    state, log = written(
        CUSTOM,
        ("Dee", "Cord", "Åsgard"),
        [["Ann", "Axe", "Attic"], ["Bob", "Bat", "Barn"], ["Cy", "Cellar", "Den"]],
    )
    log += (
        act(state, "enter", room(CUSTOM, "Barn"))
        + act(state, "suggest", "Bob", "Cord")
        + act(state, "show", "Barn")
    )
    check_task(make_task(CUSTOM, 0, np.array(log), state=state))  # a custom edition: its cards are the task's


def test_a_file_of_good_tasks_other_than_a_splits_is_read_as_written(tmp_path, dev):
    path = tmp_path / "mine.jsonl.gz"
    write_tasks(dev[3:6], path)
    assert read_tasks(path) == dev[3:6]


def edit(path: str, value):
    """An edit setting the field at ``path`` ("history.1.card") to ``value`` (a callable: of the old value)."""

    def apply(task: dict) -> None:
        *parents, last = path.split(".")
        for key in parents:
            task = task[int(key) if isinstance(task, list) else key]
        key = int(last) if isinstance(task, list) else last
        task[key] = value(task[key]) if callable(value) else value

    return apply


def renamed(card: str, name: str):
    """An edit giving the probability row of ``card`` under ``name``."""

    def apply(task: dict) -> None:
        rows = task["answers"]["probabilities"]
        rows[name] = rows.pop(card)

    return apply


NAMES = {
    "a typo in a suggestion": (
        edit("history.1.suggest.0", "Miss Scarlett"),
        ["history entry 1 ", "unknown card name 'Miss Scarlett'; accepted names are ['Miss Scarlet', "],
    ),
    "another edition's name": (
        edit("history.4.suggest.1", "Corde"),  # the classic_fr edition's Rope
        ["history entry 4 ", "unknown card name 'Corde'"],
    ),
    "a name in the wrong case": (
        edit("history.1.card", "lounge"),
        [
            "history entry 1 ",
            "is not written as a task writes it",
            "the cards as the classic edition spells them",
            "'card': 'Lounge'",
        ],
    ),
    "a hand that is not its hand entry": (
        edit("hand.0", "Miss Scarlet"),
        ["hand must be the history's hand entry ['Mrs Peacock', ", "got ['Miss Scarlet', "],
    ),
    "a card of the answer key not in the edition": (
        edit("answers.facts.0.0", "Miss Scarlett"),
        ["answers.facts[0] must be [card, owner, holds, label] (a card of the edition", "'Miss Scarlett'"],
    ),
    "a probability row of a card not in the edition": (
        renamed("Rope", "Corde"),
        ["answers.probabilities must have a row for every card of the edition", "'Corde'"],
    ),
    "another edition's cards under this one's name": (
        edit("cards.weapons", list(core.EDITIONS["classic_fr"].weapons)),
        ["cards.weapons must be the classic edition's ['Candlestick', ", "got ['Poignard', "],
    ),
}

PLAYERS = {
    "a suggester not at the table": (
        edit("history.1.by", 4),
        ["history entry 1 ", "must be a player in [0, 4), got 4"],
    ),
    "a player who passed, not at the table": (
        edit("history.2.passed", [7]),
        ["history entry 2 ", "must be a player in [0, 4), got 7"],
    ),
    "an observer not at the table": (edit("observer", 4), ["observer must be a player in [0, 4), got 4"]),
    "players not the config's": (
        edit("players", ["player 0", "player 1", "player 2"]),
        ["players must be ['player 0', 'player 1', 'player 2', 'player 3'] (config.num_players = 4)"],
    ),
    "hand sizes that do not deal the deck": (
        edit("hand_sizes", [5, 5, 5, 4]),
        [
            "hand_sizes must be [5, 5, 4, 4]: the 18 cards outside the envelope dealt one by one from player 0, "
            "got [5, 5, 5, 4]"
        ],
    ),
    "hand sizes that deal it otherwise": (
        edit("hand_sizes", [4, 4, 5, 5]),
        ["hand_sizes must be [5, 5, 4, 4]"],
    ),
}

SHOWS = {
    "a shown card that was not named": (  # by name: it said "shown_card 10 ... (0, 8, 18)", their ids
        edit("history.1.card", "Rope"),
        [
            "history entry 1 ",
            ": shown_card 'Rope' is not one of the named ['Miss Scarlet', 'Lead Pipe', 'Lounge']",
        ],
    ),
    # entry 2: P3 suggests Colonel Mustard, the Revolver, the Conservatory; P1 (the observer) shows
    "the observer showing a card it does not hold": (
        edit("history.2.card", "Revolver"),
        ["history entry 2 ", "says that the player 1 holds 'Revolver', which the entries before it rule out"],
    ),
    "another player showing a card the observer holds": (
        edit("history.4.card", "Conservatory"),
        [
            "history entry 4 ",
            "says that the player 2 holds 'Conservatory', which the entries before it rule out",
        ],
    ),
    "a player passing on a card it showed before": (
        edit("history.4.card", "Colonel Mustard"),  # P2 shows it in entry 4, passes on it in entry 12
        [
            "history entry 12 ",
            "says that the player 2 does not hold 'Colonel Mustard', which the entries before",
        ],
    ),
    "a player seen to hold more cards than its hand": (
        lambda task: task.update(
            history=task["history"][:1]
            + [
                {"seen": card, "owner": "player 3"}
                for card in ("Miss Scarlet", "Colonel Mustard", "Rope", "Dagger", "Hall")
            ]
        ),
        ["history: no deal is consistent with it: the player 3 holds 4 cards, the entries say it holds 5"],
    ),
}


def shown_instead(card: str):
    """History entry 1 and its line of the text show ``card`` instead of the Lounge; the key is left as it was."""

    def apply(task: dict) -> None:
        task["history"][1]["card"] = card
        task["text"] = task["text"].replace(SHOWN, SHOWN.replace("Lounge", card), 1)

    return apply


def move(card: str, source: str, to: str, amount: float):
    """An edit moving ``amount`` of the probability of ``card`` from owner ``source`` to owner ``to``."""

    def apply(task: dict) -> None:
        row = task["answers"]["probabilities"][card]
        row[source], row[to] = row[source] - amount, row[to] + amount

    return apply


KEY = {
    "a stated fact reversed": (
        edit(
            "answers.facts",
            lambda facts: [
                f[:2] + [not f[2]] + f[3:] if f[:2] == ["Mrs White", "player 1"] else f for f in facts
            ],
        ),
        [
            "answers: the history's entries state ['Mrs White', 'player 1', True, 'seen'], the key has "
            "['Mrs White', 'player 1', False, 'seen'] (in facts)"
        ],
    ),
    "a history that shows another card than the key says": (
        shown_instead("Miss Scarlet"),
        ["answers: the history's entries state ['Miss Scarlet', "],
    ),
    "a fact labelled by a rung that does not find it": (
        edit(
            "answers.facts",
            lambda facts: [f[:3] + ["crossing_off"] if f[3] == "one_of" else f for f in facts],
        ),
        [
            "answers: the key has ['Miss Scarlet', 'player 0', True, 'crossing_off'], which the history's entries "
            "do not state (a crossing_off fact)"
        ],
    ),
    "a pair in neither facts nor unknown": (
        edit("answers.unknown", lambda unknown: unknown[1:]),
        ["answers: every card and owner is in facts or unknown; ('Ballroom', 'player 0') is in neither"],
    ),
    "a pair twice": (
        edit("answers.unknown", lambda unknown: unknown + unknown[:1]),
        ["is in the key twice"],
    ),
    "a held card of probability below 1": (
        move("Lounge", "player 2", "envelope", 0.5),
        ["answers.probabilities['Lounge']['player 2'] is 0.5, but ('Lounge', 'player 2') is a fact (held)"],
    ),
    "a card's chance moved from one player to another": (
        move("Ballroom", "player 2", "player 0", 0.01),
        ["answers.probabilities: the player 0's sum to 5.01", "but it holds 5 card(s)"],
    ),
    "an envelope that is not its facts'": (
        edit("answers.envelope", "not yet"),
        ["answers.envelope must be ['Colonel Mustard', 'Candlestick', 'Hall'], as the envelope's facts say"],
    ),
    "a hardest label that is not its facts'": (
        edit("hardest", "sat"),
        ["hardest must be the hardest label of the facts, 'one_of'"],
    ),
    "a tier that is not its label's": (
        edit("tier", 3),
        ["tier must be 2 (hardest 'one_of', 21 records), got 3"],
    ),
    "a record count that is not its history's": (
        edit("num_records", 20),
        ["num_records must be the history's length 21"],
    ),
    "a number of deals of zero": (
        edit("answers.num_deals", "0"),
        ["answers.num_deals must be a positive whole number"],
    ),
}

TYPES = {
    "an observer written as a string": (
        edit("observer", "1"),
        ["observer must be a player in [0, 4), got '1'"],
    ),
    "hand sizes written as floats": (edit("hand_sizes", [5.0, 5, 4, 4]), ["hand_sizes must be [5, 5, 4, 4]"]),
    "a tier written as true": (
        edit("tier", True),
        ["tier must be 2 (hardest 'one_of', 21 records), got True"],
    ),
    "hand sizes written as strings": (
        edit("hand_sizes", ["5", "5", "4", "4"]),
        ["hand_sizes must be [5, 5, 4, 4]"],
    ),
    "a config number written as a string": (
        edit("config.max_turns", "500"),
        ["config: max_turns must be an integer"],
    ),
    "a config switch written as 0": (edit("config.duel", 0), ["config: duel must be True or False, got 0"]),
    "a config field the game does not have": (
        edit("config.fog", True),
        ["config must hold every GameConfig field", "unknown ['fog']"],
    ),
    "a player index written as a float": (edit("history.1.by", 1.0), ['"by" must be a player index']),
    "a fact's holds written as a string": (
        edit("answers.facts.0.2", "true"),
        [
            "answers.facts[0] must be [card, owner, holds, label]",
            "got ['Miss Scarlet', 'player 0', 'true', 'one_of']",
        ],
    ),
    "a probability written as a string": (
        edit("answers.probabilities.Rope.player 0", "1"),
        ["answers.probabilities['Rope']['player 0'] must be a number in [0, 1], got '1'"],
    ),
    "a probability written as true": (
        edit("answers.probabilities.Rope.player 0", True),
        ["must be a number in [0, 1], got True"],
    ),
    "a probability that is not a number": (
        edit("answers.probabilities.Rope.player 0", float("nan")),
        ["got nan"],
    ),
    "a number of deals written as a number": (
        edit("answers.num_deals", 12),
        ["answers.num_deals must be", "got 12"],
    ),
    "a deal seed that is not a whole number": (
        edit("game.seed", 1.5),
        ["game.seed must be a whole number >= 0 (the deal's seed), got 1.5"],
    ),
    "a field the format does not have": (
        edit("difficulty", 3),
        ["a v2 task has the fields ['id', ", "unknown ['difficulty']"],
    ),
    "a field left out": (lambda task: task.pop("rules"), ["missing ['rules']"]),
    "a version the format does not have": (
        edit("version", "v3"),
        ["version must be one of ['v1', 'v2'], got 'v3'"],
    ),
}

TEXT = {
    "rules of another config": (
        edit("rules", rules_summary(core.GameConfig(num_players=3))),
        ["rules must be the rules summary of config 'Cluedo for 4 players. "],
    ),
    "a text of another observer": (
        edit("text", lambda text: text.replace("You are P1 (Colonel Mustard)", "You are P2 (Mrs White)", 1)),
        ["text must begin as observer, hand and hand_sizes say, 'You are P1 (Colonel Mustard). "],
    ),
    "a text of another hand": (
        edit("text", lambda text: text.replace("Your cards: Mrs White,", "Your cards: Miss Scarlet,", 1)),
        ["text must begin as observer, hand and hand_sizes say", "got 'You are P1 (Colonel Mustard). "],
    ),
    "a text whose history shows another card": (
        edit("text", lambda text: text.replace(SHOWN, SHOWN.replace("Lounge", "Lead Pipe"), 1)),
        [
            f"text: its history says {SHOWN.replace('Lounge', 'Lead Pipe')!r} where the history's entries say {SHOWN!r}"
        ],
    ),
    "a text with a suggestion its history lacks": (
        edit(
            "text",
            lambda text: text.replace(
                "- P3 (Reverend Green) starts\n",
                "- P3 (Reverend Green) starts\n"
                "- P3 (Reverend Green) suggests Mrs White with the Rope in the Hall\n",
                1,
            ),
        ),
        ["text: its history says 'P3 (Reverend Green) suggests Mrs White with the Rope in the Hall' where"],
    ),
    "a text that leaves its last lines out": (
        edit(
            "text",
            lambda text: text.replace("- P0 (Miss Scarlet) cannot refute\n- nobody can refute\n", "", 1),
        ),
        ["text: its history ends before 'P0 (Miss Scarlet) cannot refute', which the history's entries say"],
    ),
}

CASES = {**NAMES, **PLAYERS, **SHOWS, **KEY, **TYPES, **TEXT}


@pytest.mark.parametrize("what", list(CASES))
def test_a_task_that_its_fields_or_its_edition_contradict_is_refused_by_field_and_value(tmp_path, task, what):
    change, said = CASES[what]
    change(task)
    message = refusal(tmp_path, task)
    for words in said:
        assert words in message, message


def test_a_v1_texts_deals_are_its_hand(tmp_path):
    task = copy.deepcopy(read_tasks(SPLITS["v1", "dev"].path())[0])
    dealt = next(line for line in task["text"] if line.startswith("P0 (Miss Scarlet) is dealt "))
    task["text"][task["text"].index(dealt)] = "P0 (Miss Scarlet) is dealt Rope"
    assert "Rope" not in task["hand"]
    assert "text: its history names [" in refusal(tmp_path, task)


def test_a_custom_editions_names_are_its_own_cards(tmp_path):
    task = duel_task()  # de_2023: a registered edition, its cards the edition's
    task["id"] = "duel"
    task["config"]["edition"] = "mine"  # a custom edition of the same cards: read from cards
    check_task(task)
    task["history"][2]["suggest"][1] = "Rope"
    assert "unknown card name 'Rope'; accepted names are ['Lady Gloria', 'Oberst von Gatow', " in refusal(
        tmp_path, task
    )


def test_two_tasks_of_one_id_are_refused(tmp_path, dev):
    path = tmp_path / "mine.jsonl.gz"
    write_tasks([dev[5], dev[6] | {"id": dev[5]["id"]}], path)
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))}:2: task id 'v2-dev-00005' is that of line 1 too$"
    ):
        read_tasks(path)


def test_a_task_file_of_json_values_other_than_tasks_is_refused(tmp_path):
    path = tmp_path / "mine.jsonl.gz"
    write_tasks([{"id": "x", "version": "v2"}], path)
    with pytest.raises(
        ValueError, match=r":1: task 'x': a v2 task has the fields \['id', .*missing \['config'"
    ):
        read_tasks(path)


def test_the_turn_lines_of_a_v1_text_are_read_back_not_listed_for_every_turn(monkeypatch):
    """A v1 text's turn lines were checked against every turn's line of every player up to max_turns: for
    this task's 3 players and a max_turns of 32,767, 98,301 sentences worded (seconds) and kept in a cache
    of 64 configs. Each turn line is now read back from its numbers: a turn the config plays, of a player
    at the table, worded as the text words it."""
    import cluedo_env.reasoning.task_check as task_check

    task = copy.deepcopy(read_tasks(SPLITS["v1", "dev"].path())[0])  # 3 players, turns 0 to 11
    task["config"]["max_turns"] = 32_767
    worded = []
    monkeypatch.setattr(
        task_check, "describe_event", lambda *args: worded.append(args) or describe_event(*args)
    )
    task_check._lines.cache_clear()
    check_task(task)
    assert 0 < len(worded) < 1_000
    last = task["text"].index("turn 11: P0 (Miss Scarlet)")
    for wrong in ("turn 011: P0 (Miss Scarlet)", "turn 11: P3 (Mrs Peacock)", "turn 11: P0 (Mrs White)"):
        task["text"][last] = wrong
        with pytest.raises(
            ValueError, match=re.escape(f"text: its history says {wrong!r}, which no history")
        ):
            check_task(task)
    task["config"]["max_turns"], task["text"][last] = 11, "turn 11: P0 (Miss Scarlet)"  # turns 0 to 10
    with pytest.raises(ValueError, match=re.escape("text: its history says 'turn 11: P0 (Miss Scarlet)', ")):
        check_task(task)
