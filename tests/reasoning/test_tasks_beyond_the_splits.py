"""Reasoning tasks of games the shipped splits never hold: a custom edition's (its ``config`` names the
edition by its name only, which ``GameConfig`` does not know) and the duel's (its ``table`` owner).

Scripted games, their deals written here.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.llm.llm_agent import load_prompts
from agents.llm.solver import PROMPT_FILES, PROMPTS_DIR, solver_messages, task_rules
from agents.solvers import SOLVERS
from cluedo_env import core
from cluedo_env.core import events as ev
from cluedo_env.reasoning.score import public_view, score_answer
from cluedo_env.reasoning.tasks import make_task
from cluedo_env.text import rules_summary
from tests.envs.test_text_editions import ENVELOPE, FACE_DOWN, HANDS, SMALL  # (a custom edition, a duel deal)
from tests.scripted import act, room, written_game

CUSTOM = core.GameConfig(edition=SMALL, num_players=3, board="none", start_player="scarlet")
DUEL = core.GameConfig.preset("de_2023_duel", board="none", start_player="scarlet")


def written(config, envelope, hands, face_down=None):
    """The game dealt as written (``written_game``), and its deal's events telling each player its hand."""
    state = written_game(config, envelope, hands, face_down=face_down)
    rows = state.step_events(0).copy()
    to_deal = [[config.cards.card_id(c) for c in hand] for hand in hands]
    for row in np.flatnonzero(rows[:, ev.KIND] == ev.DEAL):
        rows[row, ev.CARD] = to_deal[rows[row, ev.PLAYER]].pop()
    return state, [tuple(row) for row in rows]


def test_every_built_in_solver_answers_a_custom_editions_task():
    state, log = written(
        CUSTOM,
        ("Dee", "Cord", "Åsgard"),
        [["Ann", "Axe", "Attic"], ["Bob", "Bat", "Barn"], ["Cy", "Cellar", "Den"]],
    )
    log += act(state, "enter", room(CUSTOM, "Barn"))
    log += act(state, "suggest", "Bob", "Cord")
    log += act(state, "show", "Barn")
    assert state.phase[0] == core.Phase.ACCUSE and state.current_player[0] == 0
    task = make_task(CUSTOM, 0, np.array(log), state=state)
    assert task["config"]["edition"] == "mini"  # by its name: GameConfig(**task["config"]) refuses it
    for name, solve in SOLVERS.items():
        answer = solve(public_view(task))
        scores = score_answer(task, answer)
        assert not scores["problems"], (name, scores["problems"])
        assert ["Barn", "player 1", True] in answer["facts"], name  # shown by Bob
    perfect = score_answer(task, SOLVERS["beliefs"](public_view(task)))
    assert perfect["tp"] == perfect["claimed"] == perfect["certain"] > 0
    assert perfect["excess_log_loss"] == pytest.approx(0, abs=1e-9)


def test_a_v1_task_of_a_custom_edition_has_its_rules_summary():
    """A ``v1`` task holds no ``rules``: the llm solver makes them from the task's config and cards."""
    state, log = written(
        CUSTOM,
        ("Dee", "Cord", "Åsgard"),
        [["Ann", "Axe", "Attic"], ["Bob", "Bat", "Barn"], ["Cy", "Cellar", "Den"]],
    )
    log += act(state, "enter", room(CUSTOM, "Åsgard"))
    task = public_view(make_task(CUSTOM, 1, np.array(log), version="v1"))
    assert "rules" not in task
    assert task_rules(task) == rules_summary(CUSTOM)
    assert "Åsgard" in task_rules(task)


def duel_task(version="v2"):
    """P0 goes to the Küche (an Anwältin Porz lies there face down) and suggests; P1 shows the Seil."""
    state, log = written(DUEL, ENVELOPE, HANDS, face_down=FACE_DOWN)  # (the duel deal of test_text_editions)
    log += act(state, "enter", room(DUEL, "Küche"))
    log += act(state, "suggest", "Oberst von Gatow", "Seil")
    log += act(state, "show", "Seil")
    assert state.phase[0] == core.Phase.ACCUSE
    return make_task(DUEL, 0, np.array(log), version=version, state=state if version == "v2" else None)


def test_a_duel_tasks_question_names_its_owners_as_the_text_does():
    """Two players: no "player 2" to point at; the "table" is said to be the face-down cards, by room."""
    task = duel_task()
    assert ["Anwältin Porz", "table", True, "seen"] in task["answers"]["facts"]
    prompts = load_prompts("default", root=PROMPTS_DIR, files=PROMPT_FILES)
    system, question = (m["content"] for m in solver_messages(public_view(task), prompts))
    assert "Owners: player 0, player 1, envelope, table." in question
    assert (
        '"player 1" is P1 in the text; "envelope" is the envelope; "table" is the 4 cards lying face'
        in question
    )
    assert "one on each of the Küche, the Wintergarten, the Salon and the Arbeitszimmer" in question
    assert '"player 2"' not in question
    assert "one on each of the Küche, the Wintergarten, the Salon and the Arbeitszimmer." in system
    for name, solve in SOLVERS.items():  # the table is an owner of every solver's answer
        answer = solve(public_view(task))
        assert not score_answer(task, answer)["problems"], name
        assert answer["probabilities"]["Anwältin Porz"]["table"] == 1, name


def test_a_v1_duel_tasks_rules_name_the_rooms_too():
    task = public_view(duel_task("v1"))
    assert task_rules(task) == rules_summary(DUEL)


def test_a_task_of_three_or_more_players_is_asked_as_before():
    state, log = written(
        CUSTOM,
        ("Dee", "Cord", "Åsgard"),
        [["Ann", "Axe", "Attic"], ["Bob", "Bat", "Barn"], ["Cy", "Cellar", "Den"]],
    )
    log += act(state, "enter", room(CUSTOM, "Barn"))
    task = make_task(CUSTOM, 0, np.array(log), state=state)
    prompts = load_prompts("default", root=PROMPTS_DIR, files=PROMPT_FILES)
    question = solver_messages(public_view(task), prompts)[1]["content"]
    assert (
        'Owners: player 0, player 1, player 2, envelope. ("player 2" is P2 in the text; "envelope" is the envelope.)'
        in question
    )
