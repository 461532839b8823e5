"""The game in words: canonical commands round trip, replies parsed or refused, the text view's privacy, TextEnv."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test
from test_privacy import scrambled

from agents.baselines.random_agent import sample_legal
from cluedo_env import core
from cluedo_env.commands import (
    CommandError,
    command,
    final_answer_complete,
    legal_commands_text,
    parse_command,
)
from cluedo_env.core import events as ev
from cluedo_env.core.state import Phase
from cluedo_env.text import notepad_text, rules_summary, text_view
from cluedo_env.text_env import CommandSpace, text_env
from cluedo_env.transcript import story

# Every player count, edition, board and movement mode, and the variant switches that change decisions.
CONFIGS = [
    core.GameConfig(num_players=2, duel=True),
    core.GameConfig(num_players=3, edition="classic_fr", auto_refute=True),
    core.GameConfig(num_players=4),
    core.GameConfig(num_players=4, edition="de_2023", movement="squares", dice=1),
    core.GameConfig(num_players=5, edition="classic_fr_1999", board="none"),
    core.GameConfig(num_players=6, edition="classic_fr_2000", stay_in_room=False, accuse_anywhere=False),
    core.GameConfig(num_players=3, edition="de_2023", board="none", duel=False),
]


def calm_actions(rng: np.random.Generator, config: core.GameConfig, mask: np.ndarray) -> np.ndarray:
    """Random legal actions that accuse rarely, so that games reach every phase."""
    layout = core.rules_for(config).layout
    calm = mask.copy()
    calm[:, layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = False
    rare = rng.random(len(mask)) < 0.02
    calm[rare | ~calm.any(axis=1)] = mask[rare | ~calm.any(axis=1)]
    return sample_legal(rng, calm)


def random_states(config: core.GameConfig, games: int = 3, steps: int = 400, seed: int = 0):
    """(state, event log per game, mask) at every step of random games."""
    rng = np.random.default_rng(seed)
    state = core.init(config, np.arange(seed, seed + games))
    logs = [[state.events[g, : state.num_events[g]].copy()] for g in range(games)]
    for _ in range(steps):
        if state.done.all():
            return
        mask = core.legal_action_mask(state)
        yield state, [np.concatenate(log) for log in logs], mask
        mask[state.done] = True
        core.step(state, calm_actions(rng, config, mask))
        for g in range(games):
            logs[g].append(state.events[g, : state.num_events[g]].copy())


# --- round trip -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.edition}-{c.board}-{c.movement}"
)
def test_every_legal_command_parses_to_its_action(config):
    phases = set()
    for state, _, mask in random_states(config, games=2, steps=160):
        for g in np.flatnonzero(~state.done):
            phases.add(int(state.phase[g]))
            player = int(state.current_player[g])
            room = int(state.location[g, player])
            for action in np.flatnonzero(mask[g]):
                assert parse_command(config, command(config, action), mask[g], room=room) == action
    expected = {core.Phase.TURN, core.Phase.SUGGEST, core.Phase.ACCUSE, core.Phase.REFUTE}
    if config.board == "classic":
        expected.add(core.Phase.MOVE)
    if config.auto_refute:
        expected.discard(core.Phase.REFUTE)  # some refutations still ask, but not always in a short run
    assert expected <= phases


def test_canonical_commands_are_distinct_and_in_the_edition_names():
    for name in core.EDITIONS:
        config = core.GameConfig(edition=name, num_players=3, board="none")
        layout = core.ActionLayout(config)
        commands = [command(config, a) for a in range(layout.num_actions)]
        assert len(set(commands)) == len(commands)
        e = config.cards
        assert command(config, layout.encode("accuse", 5, 4, 7)) == (
            f"accuse {e.suspects[5]} with the {e.weapons[4]} in the {e.rooms[7]}"
        )


def test_the_commands_of_the_issue():
    config = core.GameConfig()
    lay = core.ActionLayout(config)
    assert command(config, lay.encode("roll")) == "roll"
    assert command(config, lay.encode("passage")) == "take the passage"
    assert command(config, lay.encode("enter", 0)) == "enter the Kitchen"
    assert command(config, lay.encode("toward", 7)) == "head toward the Hall"
    assert command(config, lay.encode("suggest", 1, 4)) == "suggest Colonel Mustard with the Rope"
    assert command(config, lay.encode("show", 6 + 4)) == "show the Rope"
    assert command(config, lay.encode("show", 1)) == "show Colonel Mustard"
    assert command(config, lay.encode("accuse", 5, 4, 7)) == "accuse Professor Plum with the Rope in the Hall"
    assert command(config, lay.encode("end_turn")) == "end turn"
    squares = core.GameConfig(movement="squares")
    assert command(squares, core.ActionLayout(squares).encode("square", 0)).startswith("move to square ")


# --- replies in free text ---------------------------------------------------------------------

CLASSIC = core.GameConfig()
LAY = core.ActionLayout(CLASSIC)
KITCHEN, BALLROOM, HALL, STUDY = 0, 1, 7, 8
ROPE, LEAD_PIPE, WRENCH = 4, 2, 5
MUSTARD, WHITE, PLUM = 1, 2, 5
S, W = 6, 6


def legal(*actions: int) -> np.ndarray:
    mask = np.zeros(LAY.num_actions, dtype=bool)
    mask[list(actions)] = True
    return mask


ALL_ACCUSATIONS = [LAY.ACCUSE + k for k in range(LAY.sizes["accuse"])]
ALL_SUGGESTIONS = [LAY.SUGGEST + k for k in range(LAY.sizes["suggest"])]
TURN = legal(LAY.encode("roll"), LAY.encode("passage"), *ALL_ACCUSATIONS)
MOVE = legal(LAY.encode("enter", KITCHEN), LAY.encode("enter", HALL), LAY.encode("toward", STUDY))
SUGGEST = legal(*ALL_SUGGESTIONS, LAY.encode("no_suggestion"))
REFUTE = legal(LAY.encode("show", S + ROPE), LAY.encode("show", S + W + KITCHEN))
ACCUSE = legal(LAY.encode("end_turn"), *ALL_ACCUSATIONS)
PICK = legal(*(LAY.encode("enter", r) for r in range(9)), *ALL_ACCUSATIONS)  # board "none": a room or accuse

PARAPHRASES = [
    (TURN, "roll", LAY.encode("roll")),
    (TURN, "Roll the dice.", LAY.encode("roll")),
    (TURN, "I'll take the secret passage", LAY.encode("passage")),
    (TURN, "Let me think about the Rope and Plum.\nFinal answer: ROLL", LAY.encode("roll")),
    (TURN, "**Final answer:** take the passage", LAY.encode("passage")),
    (TURN, "I could accuse, but not yet. Final answer:\n\n  roll", LAY.encode("roll")),
    (TURN, "final answer - Roll.", LAY.encode("roll")),
    (TURN, "<think>Accuse Plum? Or take the passage? No.</think>\nroll", LAY.encode("roll")),
    (MOVE, "go to the kitchen", LAY.encode("enter", KITCHEN)),
    (MOVE, "Enter the Hall!", LAY.encode("enter", HALL)),
    (MOVE, "head towards the study", LAY.encode("toward", STUDY)),
    (MOVE, "move toward the Study", LAY.encode("toward", STUDY)),
    (MOVE, "Study", LAY.encode("toward", STUDY)),  # the only legal action naming the Study
    (MOVE, "hall", LAY.encode("enter", HALL)),
    (SUGGEST, "suggest Mustard with the rope", LAY.encode("suggest", MUSTARD, ROPE)),
    (
        SUGGEST,
        "I suggest Colonel Mustard, with the Rope, in the Kitchen.",
        LAY.encode("suggest", MUSTARD, ROPE),
    ),
    (SUGGEST, "Mrs White with the lead pipe", LAY.encode("suggest", WHITE, LEAD_PIPE)),
    (SUGGEST, "make no suggestion", LAY.encode("no_suggestion")),
    (SUGGEST, "No suggestion this time", LAY.encode("no_suggestion")),
    (SUGGEST, "I don't want to suggest anything", LAY.encode("no_suggestion")),
    (SUGGEST, "pass", LAY.encode("no_suggestion")),
    (REFUTE, "show the rope", LAY.encode("show", S + ROPE)),
    (REFUTE, "Rope", LAY.encode("show", S + ROPE)),
    (REFUTE, "I will reveal the Kitchen card", LAY.encode("show", S + W + KITCHEN)),
    (ACCUSE, "accuse plum with the rope in the hall", LAY.encode("accuse", PLUM, ROPE, HALL)),
    (ACCUSE, "I accuse Professor Plum, with the Rope, in the Hall.", LAY.encode("accuse", PLUM, ROPE, HALL)),
    (ACCUSE, "Final answer: `accuse Plum with the Rope in the Hall`", LAY.encode("accuse", PLUM, ROPE, HALL)),
    # a statement before "; ...?" is no question ("Should I accuse ...; or wait?" is)
    (ACCUSE, "I won't accuse yet; why risk it?", LAY.encode("end_turn")),
    (ACCUSE, "end my turn", LAY.encode("end_turn")),
    (ACCUSE, "End turn without accusing.", LAY.encode("end_turn")),
    (ACCUSE, "I won't accuse yet", LAY.encode("end_turn")),
    (ACCUSE, "pass", LAY.encode("end_turn")),
    # a negation reaches to the end of its sentence only, and "why not" is none
    (SUGGEST, "I'm not sure. Suggest Plum with the Wrench", LAY.encode("suggest", PLUM, WRENCH)),
    (SUGGEST, "Why not suggest Plum with the Rope?", LAY.encode("suggest", PLUM, ROPE)),
    (TURN, "I won't accuse yet. Roll.", LAY.encode("roll")),  # a declined verb beside an asked one: dropped
    # a verb asked and declined is what its last mention says
    (
        SUGGEST,
        "I won't suggest the same thing twice, so I suggest Mustard with the Rope.",
        LAY.encode("suggest", MUSTARD, ROPE),
    ),
    # a question weighing an accusation asks for nothing, and its cards are not the reply's
    (SUGGEST, "Is it too early to accuse? Yes. Mustard with the Rope.", LAY.encode("suggest", MUSTARD, ROPE)),
    (
        SUGGEST,
        "It's too early to accuse, so why not suggest Mustard with the Rope?",
        LAY.encode("suggest", MUSTARD, ROPE),
    ),
    (TURN, "Too early for an accusation, so why not roll?", LAY.encode("roll")),
    (
        TURN,
        "My final answer depends on the dice. Final answer: roll",
        LAY.encode("roll"),
    ),  # prose is no marker
    (REFUTE, "Should I accuse? Not my turn. Rope.", LAY.encode("show", S + ROPE)),
    (TURN, "Take the secret passage to the Study", LAY.encode("passage")),  # the Kitchen's passage
    # a negation reaches to the end of its clause only: a comma, colon or line break ends it
    (TURN, "No, roll.", LAY.encode("roll")),
    (TURN, "Not sure, roll.", LAY.encode("roll")),
    (TURN, "No new info\nRoll", LAY.encode("roll")),
    (REFUTE, "No, show the Rope.", LAY.encode("show", S + ROPE)),
    (ACCUSE, "No accusation, end turn.", LAY.encode("end_turn")),
    (ACCUSE, "I can't accuse yet, end turn", LAY.encode("end_turn")),
    (SUGGEST, "No suggestion, pass.", LAY.encode("no_suggestion")),
    (TURN, "I don't know who has it, so I'll roll", LAY.encode("roll")),
    # a hedge reaches to the end of its clause; "would like" asks
    (
        ACCUSE,
        "I'd like to accuse Professor Plum with the Rope in the Hall",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    (
        ACCUSE,
        "I would like to accuse Plum with the Rope in the Hall.",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    # a negation before "accuse" reaches back to "so", "therefore" ...; "no doubt" is none
    (TURN, "Roll. Should", LAY.encode("roll")),  # a lone asking word was a crash (TypeError)
    (
        ACCUSE,
        "I'm sure now.\n\nFinal answer: accuse Plum with the Rope in the Hall\nIt has to be.",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    # an accusation's clause opens plainly, and nothing before it weighs it
    (
        ACCUSE,
        "Considering all the evidence, I accuse Plum with the Rope in the Hall.",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    (
        ACCUSE,
        "As I said before, I accuse Plum with the Rope in the Hall.",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    (
        ACCUSE,
        "Nobody refuted, so I accuse Plum with the Rope in the Hall.",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    (ACCUSE, "I'm confident: accuse Plum with the Rope in the Hall.", LAY.encode("accuse", PLUM, ROPE, HALL)),
    (
        ACCUSE,
        "Without a doubt, accuse Plum with the Rope in the Hall.",
        LAY.encode("accuse", PLUM, ROPE, HALL),
    ),
    (ACCUSE, "Accuse Col. Mustard with the Rope in the Hall.", LAY.encode("accuse", MUSTARD, ROPE, HALL)),
    # UK Cluedo's and later US Clue's spellings, and a title written out that is not the card's
    (ACCUSE, "Accuse Miss Scarlett with the Rope in the Hall.", LAY.encode("accuse", 0, ROPE, HALL)),
    (ACCUSE, "Accuse Miss Peacock with the Spanner in the Hall.", LAY.encode("accuse", 4, WRENCH, HALL)),
    (ACCUSE, "Accuse Plum with the knife in the Billiards Room.", LAY.encode("accuse", PLUM, 1, 4)),
    (ACCUSE, "I accuse Plum with the Lead Piping in the Hall.", LAY.encode("accuse", PLUM, LEAD_PIPE, HALL)),
    (SUGGEST, "Suggest Miss Scarlett with the Spanner", LAY.encode("suggest", 0, WRENCH)),
    # an accusation only mentioned beside another verb leaves that verb's reading as it was
    (PICK, "I'll hold off on the accusation and go to the Kitchen", LAY.encode("enter", KITCHEN)),
    (
        SUGGEST,
        "Suggest Mustard with the Rope in the Kitchen before accusing",
        LAY.encode("suggest", MUSTARD, ROPE),
    ),
    # ... and so does one hedged or put off in its own part of the sentence
    (
        SUGGEST,
        "Suggest Plum with the Rope, and accuse Plum with the Rope in the Kitchen if nobody refutes",
        LAY.encode("suggest", PLUM, ROPE),
    ),
    (TURN, "Roll, and accuse later", LAY.encode("roll")),
]


@pytest.mark.parametrize(("mask", "reply", "action"), PARAPHRASES, ids=[p[1][:40] for p in PARAPHRASES])
def test_paraphrases_give_the_action(mask, reply, action):
    assert parse_command(CLASSIC, reply, mask, room=KITCHEN) == action


BAD_REPLIES = [
    (TURN, "", "empty"),
    (TURN, "   \n", "empty"),
    (TURN, "I am not sure what to do.", "is not a command"),
    (TURN, "Roll, I think.\nFinal answer:", "empty"),  # only the final answer counts
    (TURN, "roll or end turn", "several things"),
    (TURN, "show the Rope", "'show the Rope' is not legal now"),
    (TURN, "end turn", "not legal now"),
    (MOVE, "enter the Ballroom", "not legal now"),
    (MOVE, "enter the Kitchen or the Hall", "exactly one room"),
    (MOVE, "go to the Kitchen with the Rope", "takes a room only"),
    (SUGGEST, "suggest Mustard or Plum with the Rope", "exactly one suspect"),
    (SUGGEST, "suggest Mustard with the Rope in the Hall", "the room your pawn is in"),
    (SUGGEST, "suggest Mustard", "exactly one weapon"),
    (SUGGEST, "Mrs", "is not a command"),  # a title is not a name
    (REFUTE, "show the Rope and the Kitchen", "exactly one card"),
    (REFUTE, "show the Wrench", "not legal now"),
    (ACCUSE, "accuse Mustard with the Rope", "exactly one room"),
    (ACCUSE, "Plum, Rope, Hall", "is not a command"),  # an accusation must say "accuse"
    # an accusation weighed in a question is not made (a wrong one puts the player out)
    (ACCUSE, "Is it time to accuse Plum with the Rope in the Hall? Probably not yet", "is not a command"),
    (
        SUGGEST,
        "Should I accuse Plum with the Rope in the Kitchen?",
        "only asks whether to accuse",
    ),  # no suggestion
    (
        ACCUSE,
        "Accuse Professor Plum with the Rope in the Hall?",
        "only asks whether to accuse",
    ),  # not the command
    (SUGGEST, "Suggest Plum with the Rope. Actually, don't suggest.", "declines to suggest but names"),
    # an accusation asked and declined is refused, whatever comes last (a wrong one puts the player out)
    (
        ACCUSE,
        "Accuse Plum with the Rope in the Hall. No, I won't accuse yet.",
        "declines to accuse but names cards",
    ),
    (
        ACCUSE,
        "I won't accuse Plum with the Rope in the Hall now: a wrong accusation puts me out.",
        "declines to accuse but names cards",
    ),
    (
        ACCUSE,
        "It is Plum with the Rope in the Hall. I'll hold off on the accusation.",
        "give the accusation alone",
    ),
    (
        ACCUSE,
        "Not accusing wastes a turn, so I accuse Plum with the Rope in the Hall.",
        "declines to accuse but",
    ),
    # a hedge makes an accusation a thought (a wrong one puts the player out)
    (ACCUSE, "I could accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (
        ACCUSE,
        "If I were sure I would accuse Plum with the Rope in the Hall, but I am not.",
        "give the accusation alone",
    ),
    (ACCUSE, "It's too risky to accuse Plum with the Rope in the Hall yet.", "give the accusation alone"),
    (ACCUSE, "I refuse to accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (ACCUSE, "I'll avoid accusing Plum with the Rope in the Hall.", "give the accusation alone"),
    (
        ACCUSE,
        "I could accuse Plum with the Rope in the Hall. No, I won't accuse yet.",
        "declines to accuse but",
    ),
    # any negation before "accuse" in its clause declines it; a condition after it hedges it
    (ACCUSE, "I don't think I should accuse Plum with the Rope in the Hall.", "declines to accuse but"),
    (ACCUSE, "I'm not confident enough to accuse Plum with the Rope in the Hall.", "declines to accuse but"),
    (ACCUSE, "It is not the right time to accuse Plum with the Rope in the Hall.", "declines to accuse but"),
    (ACCUSE, "It's premature to accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (ACCUSE, "I will wait to accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (ACCUSE, "Accuse Plum with the Rope in the Hall, if I were sure.", "give the accusation alone"),
    (ACCUSE, "Let me not rush: accuse Plum with the Rope in the Hall later.", "declines to accuse but"),
    (ACCUSE, "Accusing Plum with the Rope in the Hall now would be a gamble.", "give the accusation alone"),
    (ACCUSE, "Let me think. Accuse Plum with the Rope in the Hall is risky.", "give the accusation alone"),
    # a verb only declined says nothing of what to do instead
    (TURN, "Don't roll.", "only declines (roll)"),
    (TURN, "I will not roll yet.", "only declines (roll)"),
    (MOVE, "I don't want to enter the Hall.", "only declines (enter)"),
    (MOVE, "Not the Hall.", "names cards with a negation"),
    (REFUTE, "I won't show the Rope.", "only declines (show)"),
    (REFUTE, "I'd rather not reveal the Kitchen.", "only declines (show)"),
    (ACCUSE, "**Should I accuse Plum with the Rope in the Hall?** Not yet.", "is not a command"),
    (
        ACCUSE,
        "Should I accuse Plum with the Rope in the Hall; or wait?",
        "is not a command",
    ),  # ";" in a question
    # declining in a question still declines (a wrong accusation puts the player out)
    (
        ACCUSE,
        "Accuse Plum with the Rope in the Hall. Actually, I won't accuse, or should I?",
        "declines to accuse but names cards",
    ),
    (
        ACCUSE,
        "My final answer depends on one thing: should I accuse Plum with the Rope in the Hall now\nor wait?",
        "only asks whether to accuse",
    ),
    (SUGGEST, "Don't suggest Plum with the Rope", "declines to suggest but names a suspect and a weapon"),
    (TURN, "Take the secret passage to the Lounge", "'passage' takes no card"),  # not where it leads
    # a condition earlier in the sentence hedges it, also across a comma, colon or line break
    (ACCUSE, "If I'm right, I accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (ACCUSE, "If my notes are right:\nAccuse Plum with the Rope in the Hall", "give the accusation alone"),
    (
        ACCUSE,
        "Unless someone shows me the Rope, I'll accuse Plum with the Rope in the Hall.",
        "give the accusation alone",
    ),
    (ACCUSE, "Maybe next turn, I'll accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    # "would like" asks, but not when the sentence takes it back
    (
        ACCUSE,
        "I'd like to accuse Plum with the Rope in the Hall, but it's too early.",
        "give the accusation alone",
    ),
    (ACCUSE, "I'd like to accuse Plum with the Rope in the Hall next turn.", "give the accusation alone"),
    (ACCUSE, "I'd like to accuse Plum with the Rope in the Hall; but not yet.", "give the accusation alone"),
    (ACCUSE, "Accuse Plum with the Rope in the Hall, but not yet.", "give the accusation alone"),
    (ACCUSE, "I will accuse Plum with the Rope in the Hall once I'm sure.", "give the accusation alone"),
    (ACCUSE, "Accuse Mrs. White with the Rope in the Hall if nobody refutes.", "give the accusation alone"),
    # a lone asking word is no crash
    (TURN, "should", "is not a command"),
    (TURN, "Do", "is not a command"),
    # an accusation is asked only plainly, alone (a wrong one puts the player out): the rest is refused
    (ACCUSE, "I accuse Plum with the Rope in the Hall; who else could it be?", "give the accusation alone"),
    (
        ACCUSE,
        "I might need more information first\n\nAccuse Plum with the Rope in the Hall",
        "give the accusation alone",
    ),
    (
        ACCUSE,
        "There is no other possibility so I accuse Plum with the Rope in the Hall.",
        "give the accusation alone",
    ),
    (ACCUSE, "I have no doubt so I accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (ACCUSE, "Without any doubt I accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (
        ACCUSE,
        "Nobody else could hold it, so I accuse Plum with the Rope in the Hall.",
        "give the accusation alone",
    ),
    (ACCUSE, "If nobody shows a card... accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (
        ACCUSE,
        "If nobody has shown the Rope so far, I accuse Plum with the Rope in the Hall.",
        "give the accusation alone",
    ),
    (ACCUSE, "I may accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    (ACCUSE, "Accusing Plum with the Rope in the Hall now is a mistake.", "give the accusation alone"),
    (ACCUSE, "Accuse Plum with the Rope in the Hall: no.", "give the accusation alone"),
    (
        ACCUSE,
        "Option A: accuse Plum with the Rope in the Hall. Option B: wait. I pick B.",
        "give the accusation alone",
    ),
    (TURN, "Stay in the Study", "You can only stay in the room you are in (the Kitchen)"),
    (
        ACCUSE,
        "Final answer: accuse Plum with the Rope in the Hall\n(only if nobody has the Rope)",
        "give the accusation alone",
    ),
    (  # the canonical command itself, as a model copies it from the list
        ACCUSE,
        "Final answer: accuse Professor Plum with the Rope in the Hall\n(only if nobody has the Rope)",
        "give the accusation alone",
    ),
    (
        ACCUSE,
        "Assuming nobody has the Rope, accuse Plum with the Rope in the Hall.",
        "give the accusation alone",
    ),
    (ACCUSE, "In case nobody refutes, accuse Plum with the Rope in the Hall.", "give the accusation alone"),
    # a plain accusation with a name the game does not know: which card is missing, and the names to use
    (
        ACCUSE,
        "Accuse Professor Pear with the Rope in the Hall.",
        "Name exactly one suspect (the reply names none; the suspects: Miss Scarlet, Colonel Mustard,",
    ),
    (
        ACCUSE,
        "I accuse Plum with the Dagger in the Hall, since Mustard showed me the Rope.",
        "give the accusation alone",
    ),
    (
        ACCUSE,
        "I accuse Plum with the Candle Stick in the Hall.",
        "Name exactly one weapon (the reply names none; the weapons: Candlestick, Dagger,",
    ),
    (
        ACCUSE,
        "Should nobody hold the Rope, accuse Plum with the Rope in the Hall.",
        "give the accusation alone",
    ),
    # a question asks for nothing, and its cards are not the reply's ("why not roll?" proposes)
    (TURN, "Roll? No.", "is not a command"),
    (TURN, "Should I roll? Not sure.", "is not a command"),
    (REFUTE, "Show the Rope? No.", "is not a command"),
    (ACCUSE, "End turn? No.", "is not a command"),
    # an accusation beside another action, in either order, asks for two things
    (PICK, "go to the Kitchen and accuse Plum with the Rope in the Hall", "several things (accuse, enter)"),
    (PICK, "Accuse Plum with the Rope in the Hall and go to the Kitchen", "several things (accuse, enter)"),
    (
        PICK,
        "First enter the Kitchen, then accuse Plum with the Rope in the Hall",
        "several things (accuse, enter)",
    ),
    (
        MOVE,
        "Head toward the Study and accuse Plum with the Rope in the Hall",
        "several things (accuse, toward)",
    ),
    (TURN, "I'll roll and accuse Plum with the Rope in the Hall.", "several things (accuse, roll)"),
    (
        SUGGEST,
        "Suggest Plum with the Rope and accuse Plum with the Rope in the Hall",
        "several things (accuse, suggest)",
    ),
    # ... wherever its cards sit (the pawn is in the Kitchen: these were played as the suggestion)
    (
        SUGGEST,
        "Suggest Plum with the Rope and then accuse Plum with the Rope in the Kitchen",
        "several things (accuse, suggest)",
    ),
    (
        SUGGEST,
        "Suggest Plum with the Rope in the Kitchen and accuse Plum with the Rope in the Kitchen",
        "several things (accuse, suggest)",
    ),
    (
        SUGGEST,
        "Accuse Plum with the Rope in the Kitchen and I'll suggest Plum with the Rope",
        "several things (accuse, suggest)",
    ),
    # an accusation only mentioned leaves the other command's own refusal (it said "several things")
    (
        SUGGEST,
        "Suggest Plum and Mustard with the Rope before accusing",
        "Name exactly one suspect (the reply names 2",
    ),
    (TURN, "I'll roll rather than accuse Plum with the Rope in the Hall", "'roll' takes no card"),
    # the command's words, as the other refusals give them (it said 'end_turn')
    (
        ACCUSE,
        "End my turn now and I'll accuse Plum with the Rope in the Kitchen next turn",
        "'end turn' takes no card, but the reply names Professor Plum, Rope, Kitchen",
    ),
]


@pytest.mark.parametrize(
    ("mask", "reply", "why"), BAD_REPLIES, ids=[b[1][:40] or "empty" for b in BAD_REPLIES]
)
def test_bad_replies_get_a_clear_error_listing_the_legal_commands(mask, reply, why):
    with pytest.raises(CommandError) as caught:
        parse_command(CLASSIC, reply, mask, room=KITCHEN)
    assert why in caught.value.reason
    assert "Legal commands now:" in str(caught.value)
    assert str(caught.value).endswith(legal_commands_text(CLASSIC, mask))
    assert isinstance(caught.value, ValueError)


def test_an_accusation_asked_beside_another_command_is_refused_as_such_and_one_mentioned_is_not():
    """The pawn is in the Kitchen: a suggestion asked beside an accusation is refused as several things
    whether the accusation names the Kitchen (the suggestion's cards) or the Hall; where the accusation is
    only mentioned, the suggestion is played, or refused for its own reason."""
    for where in ("Kitchen", "Hall"):
        for reply in (
            f"Suggest Plum with the Rope and accuse Plum with the Rope in the {where}",
            f"Suggest Plum with the Rope and then accuse Plum with the Rope in the {where}",
            f"I suggest Plum with the Rope, then I accuse Plum with the Rope in the {where}",
            f"I'm not sure. Suggest Plum with the Rope and accuse Plum with the Rope in the {where}.",
        ):
            with pytest.raises(CommandError) as caught:
                parse_command(CLASSIC, reply, SUGGEST, room=KITCHEN)
            assert (
                caught.value.reason == "The reply asks for several things (accuse, suggest): give one command"
            )
    assert parse_command(CLASSIC, "Suggest Plum with the Rope before accusing", SUGGEST, room=KITCHEN) == (
        LAY.encode("suggest", PLUM, ROPE)
    )
    with pytest.raises(CommandError) as caught:
        parse_command(
            CLASSIC, "Suggest Plum with the Rope in the Hall before accusing", SUGGEST, room=KITCHEN
        )
    assert caught.value.reason == "A suggestion is made in the room your pawn is in (you are in the Kitchen)"


@pytest.mark.parametrize(
    ("reply", "complete"),
    [
        ("Let me think.\nFinal answer: roll\n\nI roll because", True),
        ("Final answer:\n\n  accuse Plum with the Rope in the Hall\n", True),
        ("<think>Final answer: roll\n</think> I could accuse Plum", False),  # thinking is no answer
        ("Final answer: accuse Plum with the Rope in the", False),  # cut inside its line
        ("Final answer:\r\n\r\nsuggest Mustard with the Ro", False),  # (blank lines of \r\n)
        ("Before my final answer, let me think. I could accuse Plum with the Rope in the Hall, but", False),
        (
            "Before my final answer, let me think. I could accuse Plum with the Rope\nin the Hall, but I",
            False,
        ),
        ("I could accuse Plum with the Rope in the Hall, but", False),
    ],
)
def test_a_cut_reply_counts_only_a_final_answer_it_wrote_whole(reply, complete):
    assert final_answer_complete(reply) is complete


def test_bare_cards_never_accuse_and_ambiguity_asks_which():
    # "Plum, Rope, Hall" in the suggest phase is a suggestion only if the pawn is in the Hall.
    assert parse_command(CLASSIC, "Plum, Rope, Hall", SUGGEST, room=HALL) == LAY.encode("suggest", PLUM, ROPE)
    with pytest.raises(CommandError, match="suggestion is made in the room"):
        parse_command(CLASSIC, "suggest Plum with the Rope in the Hall", SUGGEST, room=KITCHEN)
    both = legal(LAY.encode("suggest", PLUM, ROPE), LAY.encode("accuse", PLUM, ROPE, HALL))
    assert parse_command(CLASSIC, "Plum Rope Hall", both, room=HALL) == LAY.encode("suggest", PLUM, ROPE)
    # A card that could be shown or entered as a room: the legal one, or a question.
    two = legal(LAY.encode("show", S + W + HALL), LAY.encode("enter", HALL))
    with pytest.raises(CommandError, match="could mean 'show the Hall' or 'enter the Hall'"):
        parse_command(CLASSIC, "the Hall", two, room=KITCHEN)


def test_edition_names_accents_and_short_names():
    fr = core.GameConfig(edition="classic_fr")
    lay = core.ActionLayout(fr)
    mask = np.ones(lay.num_actions, dtype=bool)
    # Rose, Poignard, Véranda; Moutarde, Corde, Bibliothèque
    assert parse_command(fr, "accuse Rose with the Poignard in the Veranda", mask) == lay.encode(
        "accuse", 0, 0, 2
    )
    assert parse_command(fr, "ACCUSE moutarde WITH LA CORDE IN LA BIBLIOTHEQUE", mask) == lay.encode(
        "accuse", 1, 4, 5
    )
    assert parse_command(fr, "show the Clé anglaise", mask) == lay.encode("show", 6 + 5)
    assert parse_command(fr, "show the cle", mask) == lay.encode("show", 6 + 5)
    de = core.GameConfig(edition="de_2023")
    lay = core.ActionLayout(de)
    mask = np.ones(lay.num_actions, dtype=bool)
    assert parse_command(de, "show Köchin Weiß", mask) == lay.encode("show", 2)
    assert parse_command(de, "show weiss", mask) == lay.encode("show", 2)
    assert parse_command(de, "show the Kuche", mask) == lay.encode("show", 6 + 6 + 0)
    with pytest.raises(CommandError, match="exactly one card"):
        parse_command(de, "show the Kitchen", mask)  # English names are not this edition's


def test_squares_by_row_and_column():
    config = core.GameConfig(movement="squares")
    lay = core.ActionLayout(config)
    squares = core.classic_board().squares
    k = 17
    row, col = squares[k]
    mask = legal_mask = np.zeros(lay.num_actions, dtype=bool)
    legal_mask[lay.encode("square", k)] = True
    for reply in (
        f"move to square {row},{col}",
        f"square ({row}, {col})",
        f"Final answer: move to {row},{col}",
    ):
        assert parse_command(config, reply, mask) == lay.encode("square", k)
    with pytest.raises(CommandError, match="not a square"):
        parse_command(config, "move to square 0,0", mask)
    # a move to a square beside an accusation asks for two things (it was played as the move)
    for reply in (
        f"move to square {row},{col} and accuse Plum with the Rope in the Hall",
        f"Accuse Plum with the Rope in the Hall, then move to square {row},{col}",
    ):
        with pytest.raises(CommandError, match=r"several things \(accuse, square\)"):
            parse_command(config, reply, mask)


def test_legal_commands_text_lists_forms_for_full_sets():
    text = legal_commands_text(CLASSIC, ACCUSE)
    assert text.splitlines()[0] == "- end turn"
    assert "- accuse <suspect> with the <weapon> in the <room>" in text
    assert "rooms: Kitchen, Ballroom" in text
    assert legal_commands_text(CLASSIC, REFUTE) == "- show the Rope\n- show the Kitchen"


# --- the text view ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "sizes"),
    [
        (core.GameConfig(num_players=4), "P0 5, P1 5, P2 4, P3 4"),  # 18 cards: the first seats hold one more
        (core.GameConfig(num_players=5), "P0 4, P1 4, P2 4, P3 3, P4 3"),
        (core.GameConfig(num_players=2, duel=True), "P0 7, P1 7"),  # 4 of the 18 lie face down
    ],
    ids=["4p", "5p", "duel"],
)
def test_the_view_says_how_many_cards_each_player_holds(config, sizes):
    """Every player knows the hand sizes; the exact posterior (and the reasoning tasks' counting tier) uses them."""
    state = core.init(config, [7])
    for player in range(config.num_players):
        text = text_view(state, player, state.events[0, : state.num_events[0]])
        assert f"Cards in each hand: {sizes}." in text
        assert (state._owner[0] == player).sum() == int(sizes.split(", ")[player].split()[1])


def test_the_view_has_every_part_and_nothing_of_other_hands():
    config = core.GameConfig(num_players=4)
    for state, logs, _ in random_states(config, games=1, steps=120):
        player = int(state.current_player[0])
        if state.phase[0] != core.Phase.REFUTE:
            continue
        text = text_view(state, player, logs[0], notepad=True, rules=True)
        e = config.cards
        hand = np.flatnonzero(state._owner[0] == player)
        assert f"Your cards: {', '.join(e.cards[c] for c in hand)}." in text
        assert rules_summary(config) in text
        assert notepad_text(config, player, logs[0]) in text
        assert "Your legal commands:\n- show " in text
        for line in story(
            config, core.private_view(logs[0], player), skip=(ev.DEAL, ev.TURN, ev.ROLL, ev.MOVE)
        ):
            if not line.startswith("the "):  # weapon moves are skipped too
                assert line in text
        others = [p for p in range(4) if p != player]
        watcher = text_view(state, others[0], logs[0])
        assert "It is not your decision" in watcher and "legal commands" not in watcher.lower()
        return
    pytest.fail("no refutation in the random game")


@pytest.mark.parametrize("config", CONFIGS[:2], ids=["duel", "3p-auto-refute"])
def test_every_note_on_the_notepad_is_true_of_the_deal(config):
    """What a notepad says holds in the deal: your cards, a card shown by P2 is P2's, a card seen
    face down lies face down, a card passed on is not held by those players (never the viewer)."""
    e, checked = config.cards, 0
    for t, (state, logs, _) in enumerate(random_states(config, games=2, steps=300, seed=3)):
        if t % 25:
            continue
        for game in range(2):
            owner = state._owner[game]
            for viewer in range(config.num_players):
                text = notepad_text(config, viewer, logs[game]).splitlines()
                notes = dict(line.strip().split(": ", 1) for line in text if line.startswith("    "))
                assert list(notes) == list(e.cards)
                for card, note in enumerate(notes.values()):
                    if note == "yours":
                        assert owner[card] == viewer
                    elif note.startswith("shown by P"):
                        assert owner[card] == int(note.removeprefix("shown by P"))
                    elif note == "seen face down":
                        assert owner[card] == core.FACE_DOWN
                    elif note.startswith("not held by "):
                        players = {
                            int(p.removeprefix("P")) for p in note.removeprefix("not held by ").split(", ")
                        }
                        assert viewer not in players and owner[card] not in players
                    else:
                        assert note == "?"
                    checked += note != "?"
    assert checked > 50


def scrambled_log(log: np.ndarray, viewer: int, rng: np.random.Generator, num_cards: int) -> np.ndarray:
    """The log with every card the viewer may not see replaced by a random card."""
    hidden = core.private_view(log, viewer)[:, ev.CARD] < 0
    other = log.copy()
    other[hidden & (log[:, ev.CARD] >= 0), ev.CARD] = rng.integers(0, num_cards, size=hidden.sum())[
        (log[hidden, ev.CARD] >= 0)
    ]
    return other


def text_privacy_violations(view_fn, config: core.GameConfig, steps: int = 300) -> list[str]:
    """Compare each viewer's text with the text of a twin world scrambled where it cannot see."""
    rng = np.random.default_rng(0)
    violations = []
    for t, (state, logs, _) in enumerate(random_states(config, games=3, steps=steps, seed=7)):
        if t % 11:
            continue
        for game in np.flatnonzero(~state.done)[:3]:
            for viewer in range(config.num_players):
                twin = scrambled(state, int(game), viewer, rng)
                twin_log = scrambled_log(logs[game], viewer, rng, config.cards.num_cards)
                if view_fn(state.take([game]), viewer, logs[game]) != view_fn(twin, viewer, twin_log):
                    violations.append(f"text of P{viewer}, game {game}, step {t}")
    return violations


def player_text(state: core.State, viewer: int, log: np.ndarray) -> str:
    return text_view(state, viewer, log, notepad=True, rules=True)


def leaky_text(state: core.State, viewer: int, log: np.ndarray) -> str:
    """A deliberately broken view: the history from the full log, not the viewer's private view."""
    return player_text(state, viewer, log) + "\n".join(story(state.config, log))


def test_the_view_offers_an_accusation_only_where_the_rules_allow_one():
    """With accusations from a room only (de_2023), the end of a move on a square says so."""
    config = core.GameConfig.preset("de_2023", num_players=3)
    ends = {True: 0, False: 0}
    states = (s for seed in range(3) for s in random_states(config, games=1, steps=400, seed=seed))
    for state, logs, _ in states:
        player = int(state.current_player[0])
        if state.phase[0] != Phase.ACCUSE:
            continue
        view = text_view(state, player, core.private_view(logs[0], player))
        may = any(line.startswith("- accuse") for line in view.split("Your legal commands:")[1].splitlines())
        assert ("accuse (suspect, weapon, room" in view) == may
        ends[may] += 1
    assert ends[True] and ends[False]


def test_the_view_and_the_story_count_turns_alike():
    """People read "Turn 3." in the view and "turn 3: ..." in the story of the same moment: both count
    from 1, the story's latest turn line is the view's turn."""
    config = core.GameConfig(num_players=3)
    seen = set()
    for state, logs, _ in random_states(config, games=1, steps=300):
        turn_lines = [line for line in story(config, logs[0]) if line.startswith("turn ")]
        shown = int(text_view(state, 0, logs[0]).split("\n\nTurn ")[1].split(".")[0])
        assert turn_lines[0].startswith("turn 1: ")
        assert turn_lines[-1].startswith(f"turn {shown}: ")
        seen.add(shown)
    assert len(seen) > 3


@pytest.mark.parametrize("config", CONFIGS[:4], ids=lambda c: f"{c.num_players}p-{c.edition}")
def test_text_view_ignores_what_the_viewer_cannot_see(config):
    assert text_privacy_violations(player_text, config) == []


def test_a_leaky_text_view_is_caught():
    assert text_privacy_violations(leaky_text, core.GameConfig(num_players=4), steps=80)


# --- the text env -----------------------------------------------------------------------------

# What api_test says of any env whose observations are dicts and whose action space is not Discrete.
TEXT_ENV_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably",
    "Action space for each agent probably",
    "Action mask numpy array is all zeros",
)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=4),
        dict(num_players=2, duel=True),
        dict(num_players=5, edition="de_2023", movement="squares"),
    ],
    ids=["4p", "duel", "5p-de-squares"],
)
def test_text_env_passes_pettingzoo_api_test(kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(text_env(**kwargs), num_cycles=100)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(TEXT_ENV_WARNINGS)}
    assert not unexpected, unexpected


def test_text_env_plays_a_game_in_commands_and_refuses_bad_ones():
    env = text_env(num_players=3, max_turns=30, notepad=True)
    env.reset(seed=3)
    agent = env.agent_selection
    observation, *_ = env.last()
    assert "Your legal commands:" in observation["text"] and "Notepad" in observation["text"]
    before = env.unwrapped.game_state.copy()
    with pytest.raises(CommandError, match="not legal now"):
        env.step("show the Rope")
    with pytest.raises(TypeError):
        env.step(0)
    assert env.unwrapped.game_state == before and env.agent_selection == agent
    steps = 0
    for _ in env.agent_iter():
        _, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        commands = [c for c in info["legal_commands"] if not c.startswith("accuse")]
        declined = "make no suggestion" in commands  # a step without events: the infos still list commands
        env.step("make no suggestion" if declined else commands[steps % len(commands)])
        steps += 1
    assert env.unwrapped.game_state.done.all() and steps > 30
    assert "The game is over." in env.observe("player_0")["text"]


def test_text_env_copies_mid_game_and_takes_a_numpy_seed():
    """Its infos hold the legal commands as a list (a copy made them read-only, arrays only); a seed
    from ``rng.integers`` deals the same game as the Python int."""
    env = text_env(num_players=3, max_turns=30)
    env.reset(seed=np.int64(4))
    same = text_env(num_players=3, max_turns=30)
    same.reset(seed=4)
    assert env.observe(env.agent_selection)["text"] == same.observe(same.agent_selection)["text"]
    for _ in range(5):
        env.step(env.infos[env.agent_selection]["legal_commands"][0])
    for copied in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        agent = copied.agent_selection
        assert copied.observe(agent)["text"] == env.observe(agent)["text"]
        assert copied.infos[agent]["legal_commands"] == env.infos[agent]["legal_commands"]


def test_command_space_samples_legal_commands():
    config = core.GameConfig()
    space = CommandSpace(config, seed=0)
    mask = np.zeros(core.ActionLayout(config).num_actions, dtype=np.int8)
    mask[[0, 1]] = 1
    assert {space.sample(mask) for _ in range(20)} == {"roll", "take the passage"}
    assert space.contains("anything") and not space.contains(3)


def test_staying_in_a_room_from_a_square_is_refused_not_a_crash():
    """With the pawn on a square (a location past the rooms) "stay in the Kitchen" raised IndexError."""
    with pytest.raises(CommandError, match=r"only stay in the room you are in \(none: you are not in one\)"):
        parse_command(CLASSIC, "I'll stay in the Kitchen", TURN, room=CLASSIC.cards.num_rooms + 5)


def test_a_declined_move_to_a_square_is_refused():
    """ "Don't move to 0,9" was played as the move (the coordinates' fallback did not read the negation)."""
    squares = core.GameConfig(movement="squares")
    layout = core.ActionLayout(squares)
    mask = [layout.encode("square", k) for k in range(layout.sizes["square"])]
    with pytest.raises(CommandError, match=r"only declines \(move\)"):
        parse_command(squares, "Don't move to 0,9.", mask)
    assert command(squares, parse_command(squares, "Move to 0,9.", mask)) == "move to square 0,9"
