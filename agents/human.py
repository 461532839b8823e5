"""A seat played by a person at the terminal, in words.

    python -m experiments.play --human 0 --players 4          # you are P0, against notepad, random, notepad

The person sees what its player may know: at the start the rules and its
cards, during the game what happens as it happens (suggestions, who cannot
refute, who shows a card, accusations; the cards shown to it by name), and at
each of its decisions the board, the decision and the legal commands. It types
a command (``roll``, ``enter the Kitchen``, ``suggest Plum with the Rope``,
``show the Rope``, ``end turn``, ...; ``cluedo_env.commands`` reads it as
tolerantly as a language model's reply) or one of:

==========  ===============================================
``help``    these words and the legal commands
``notepad`` the notepad: every card and what you have seen of it
``history`` everything you have seen so far
``rules``   the rules summary
``view``    the whole view again
``quit``    stop the game
==========  ===============================================

An unknown or illegal command is answered with the reason and the legal
commands, and the person types again; a near miss also with "Did you mean: ...?",
which ``yes`` plays (an accusation only with the cards the reply named, asked
plainly: ``closest_command``). ``quit``, or the end of the input, stops
the program (``SystemExit`` with a message). At the end of the game the story of the
game from the player's view is printed, with the envelope. The agent plays one
game at a time (a batch of one), of an edition whose cards a command can all name
(``check_config``: ``cluedo_env.reply_words.card_names``).
"""

from __future__ import annotations

import contextlib
import difflib
import re
import sys
from typing import TextIO

import numpy as np

from agents.base import Agent
from cluedo_env import core, reply_words
from cluedo_env.commands import CommandError, command, legal_actions, parse_command
from cluedo_env.core import events as ev
from cluedo_env.text import HISTORY_SKIP, hand_sizes_text, notepad_text, rules_summary, text_view
from cluedo_env.transcript import story

__all__ = ["HumanAgent"]

HELP = """Type a command from the list below, in your own words if you like ("go to the kitchen",
"suggest plum with the rope", "end my turn"), or one of:
  help      this text and the legal commands
  notepad   every card and what you have seen of it
  history   everything you have seen so far
  rules     the rules summary
  view      the whole view again
  quit      stop the game"""
# What is told as it happens: the rolls, walks and turn changes are left to the board's lines.
LIVE_SKIP = HISTORY_SKIP


class HumanAgent(Agent):
    """A person at the terminal (see the module docstring).

    Args:
        seed: Unused (the person decides); kept for the agent interface.
        stdin: Where commands are read (default: ``sys.stdin``).
        stdout: Where the game is written (default: ``sys.stdout``).
    """

    name = "human"

    def __init__(self, seed: int = 0, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        super().__init__(seed)
        self.stdin = stdin
        self.stdout = stdout
        self._events: list[np.ndarray] = []

    def _write(self, text: str) -> None:
        out = self.stdout or sys.stdout
        out.write(text + "\n")
        out.flush()

    def _read(self, prompt: str) -> str:
        """The next line typed, stripped (a line that is not text in the terminal's encoding is asked again)."""
        while True:
            try:
                return self._read_line(prompt)
            except UnicodeDecodeError as error:
                self._write(f"That line is not text in {error.encoding} ({error.reason}): type it again.")

    def _read_line(self, prompt: str) -> str:
        if self.stdin is None and self.stdout is None and sys.stdin.isatty():
            # A person at a terminal: input() with readline gives line editing and history (arrows), where
            # Python has it (not Windows' CPython).
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (imported for its effect on input())
            try:
                return input(prompt).strip()
            except EOFError:
                raise SystemExit("The input ended before the game did: game abandoned.") from None
        out = self.stdout or sys.stdout
        out.write(prompt)
        out.flush()
        line = (self.stdin or sys.stdin).readline()
        if not line:
            raise SystemExit("The input ended before the game did: game abandoned.")
        return line.strip()

    def check_config(self, config: core.GameConfig) -> None:
        """Refuse (``ValueError``) an edition with a card no command can name (``reply_words.card_names``: a
        card "A" or "The", or "Study" beside "The Study"); ``reset`` calls it too."""
        reply_words.card_names(config)

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        if len(seats) != 1:
            raise ValueError(f"a human plays one game at a time, got a batch of {len(seats)}")
        self.check_config(config)
        super().reset(config, seats, seed)
        self._events = []
        self._write("=== Cluedo ===\n" + rules_summary(config))
        self._write("\nType help at any prompt for the commands.")

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        self._events = []

    @property
    def history(self) -> np.ndarray:
        """This player's view of every event of the game so far."""
        return np.concatenate(self._events) if self._events else np.zeros((0, 7), dtype=np.int16)

    def observe(self, state: core.State, events: np.ndarray) -> None:
        rows = np.array(events[0, : state.num_events[0]])
        self._events.append(rows)
        seat = int(self.seats[0])
        if (rows[:, ev.KIND] == ev.DEAL).any():
            hand = [
                e.card for e in ev.read_events(rows) if e.kind == ev.DEAL and e.player == seat and e.card >= 0
            ]
            cards = ", ".join(self.config.cards.cards[c] for c in sorted(hand))
            self._write(f"\nYou are P{seat} ({self.config.cards.suspects[seat]}). Your cards: {cards}.")
            self._write(hand_sizes_text(self.config, rows))
        for line in story(self.config, rows, skip=LIVE_SKIP):
            self._write(f"  * {line}")
        if (rows[:, ev.KIND] == ev.GAME_OVER).any():
            self._write("\n=== The game is over. The story of the game, as you saw it ===")
            quiet = (ev.DEAL, ev.ROLL, ev.WEAPON)
            for line in story(self.config, self.history, skip=quiet):
                self._write(f"  {line}")
            over = next(e for e in ev.read_events(rows) if e.kind == ev.GAME_OVER)
            self._write("\n" + result_line(self.config, seat, over.player))

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        seat = int(self.seats[0])
        self._write("\n" + text_view(state, seat, self.history, history=False))
        room = int(state.location[0, seat])
        guess = None  # the command last offered as "Did you mean": "yes" plays it
        while True:
            reply = self._read("> ")
            word = reply.casefold()
            said_yes = reply_words.fold_punctuation(word).rstrip(".! ") in ("yes", "y")  # ("yes。" too)
            if guess is not None and said_yes:
                reply = word = guess
            guess = None
            if word == "help":
                self._write(
                    HELP + "\n\n" + text_view(state, seat, self.history, history=False).rsplit("\n\n", 1)[-1]
                )
            elif word == "notepad":
                self._write(notepad_text(self.config, seat, self.history))
            elif word == "history":
                lines = story(self.config, self.history, skip=(ev.DEAL, ev.ROLL, ev.WEAPON))
                self._write("\n".join(f"  {line}" for line in lines))
            elif word == "rules":
                self._write(rules_summary(self.config))
            elif word == "view":
                self._write(text_view(state, seat, self.history, notepad=True))
            elif word in ("quit", "exit"):
                raise SystemExit("You left the game.")
            else:
                try:
                    return np.array([parse_command(self.config, reply, mask[0], room=room)], dtype=np.int64)
                except CommandError as error:
                    self._write(str(error))
                    if guess := closest_command(self.config, reply, mask[0]):
                        self._write(f"Did you mean: {guess}? (yes plays it; help lists the other commands)")
                    else:
                        self._write("(help lists the other commands: notepad, history, rules, view, quit)")


def closest_command(config: core.GameConfig, reply: str, mask: np.ndarray) -> str | None:
    """The legal command nearest a reply that is none (``show scarlett`` -> ``show Miss Scarlet``), or None
    when nothing is close.

    A reply that tried to accuse (its first word, after any quote, begins "acc" or "acus") is offered an accusation or
    nothing, and the accusation only as the parser reads it with "accuse" for that word: asked plainly (no question, hedge
    or negation), naming exactly one suspect, weapon and room by names the parser knows (``acuse scarlett
    with the spanner in the hall`` -> ``accuse Miss Scarlet with the Wrench in the Hall``); a card is never
    guessed, as a wrong accusation puts the player out. The other commands are compared by ``difflib``'s
    similarity of the lower-cased texts, among those that name a room the reply names where there are any
    (``head towards the hall`` -> ``enter the Hall``, not ``head toward the Ballroom``)."""
    unquoted = reply_words.fold_punctuation(reply).strip().lstrip("\"'([*_`")  # (“acuse ...”, 「acuse ...」)
    said = reply.casefold().strip()
    if unquoted.casefold().startswith(("acc", "acus")):  # an accusation or nothing: a move would be played
        return _accusation(config, unquoted, mask)
    commands = {command(config, a).casefold(): command(config, a) for a in legal_actions(mask)}
    words = re.findall(r"\w+", said)
    rooms = [
        room for room in map(str.casefold, config.cards.rooms) if _names(re.findall(r"\w+", room), words)
    ]
    offered = [text for text in commands if not text.startswith("accuse")]
    same_room = [text for text in offered if any(room in text for room in rooms)]
    if same_room:
        return commands[difflib.get_close_matches(said, same_room, n=1, cutoff=0.0)[0]]
    near = difflib.get_close_matches(said, offered, n=1, cutoff=0.6)
    return commands[near[0]] if near else None


def _accusation(config: core.GameConfig, reply: str, mask: np.ndarray) -> str | None:
    """The legal accusation ``reply`` asks for when its first word is read as "accuse" (``parse_command``
    among the legal accusations), or None."""
    layout = core.rules_for(config).layout
    accusations = [a for a in legal_actions(mask) if layout.decode(a)[0] == "accuse"]
    if not accusations:
        return None
    try:
        return command(config, parse_command(config, re.sub(r"^\s*\w+", "accuse", reply), accusations))
    except CommandError:
        return None


def _names(name: list[str], words: list[str]) -> bool:
    """Whether the words of a name stand together among ``words`` (``hall`` is not in ``shall``)."""
    return any(words[i : i + len(name)] == name for i in range(len(words) - len(name) + 1))


def result_line(config: core.GameConfig, seat: int, winner: int) -> str:
    """The game's result in one line, for the person at ``seat`` (``winner``: a seat, or -1 for nobody)."""
    if winner == seat:
        return "*** You won. ***"
    if winner < 0:
        return "*** Nobody won. ***"
    return f"*** You lost: P{winner} ({config.cards.suspects[winner]}) won. ***"
