"""Human play: ``python -m experiments.play --human 0`` driven through its standard input, to the end of a game."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading

import numpy as np
import pytest

from agents.arena import play_batch
from agents.baselines.random_agent import RandomAgent
from agents.human import HumanAgent
from cluedo_env import core
from tests.conftest import ROOT

PROMPT = "\n> "  # the agent's prompt, on a line of its own ("<suspect> " ends in "> " too)


class Terminal:
    """A subprocess whose output is read up to each prompt, with a time limit on the whole session."""

    def __init__(self, args: list[str], limit_s: float = 300.0) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.timer = threading.Timer(limit_s, self.proc.kill)
        self.timer.start()
        self.transcript = ""

    def until_prompt(self) -> str | None:
        """The output up to the next prompt (None when the program ended)."""
        chunk = b""
        while not (chunk.endswith(PROMPT.encode()) or chunk == PROMPT[1:].encode()):
            byte = self.proc.stdout.read(1)
            if not byte:
                self.transcript += chunk.decode()
                return None
            chunk += byte
        text = chunk.decode()
        self.transcript += text
        return text

    def type(self, line: str) -> None:
        self.transcript += line + "\n"
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait()
        self.timer.cancel()
        return code


def legal_lines(screen: str) -> list[str]:
    """The commands after the last legal-commands header of a screen."""
    header = list(re.finditer(r"legal commands( now)?:\n", screen, re.IGNORECASE))[-1]
    lines = []
    for line in screen[header.end() :].splitlines():
        if not line.startswith("- "):
            break
        lines.append(line[2:])
    return lines


def test_a_human_plays_a_whole_game_in_the_terminal():
    seed, players = 0, 3
    config = core.GameConfig(num_players=players)
    envelope = core.init(config, [seed])._envelope[0]  # the test plays a detective who knows the answer
    e = config.cards
    solution = f"accuse {e.cards[envelope[0]]} with the {e.cards[envelope[1]]} in the {e.cards[envelope[2]]}"
    terminal = Terminal(["experiments.play", "--human", "0", "--players", str(players), "--seed", str(seed)])
    decisions = 0
    typed = {"help": False, "notepad": False, "nonsense": False}
    rng = np.random.default_rng(0)
    while (screen := terminal.until_prompt()) is not None:
        for word in ("help", "notepad", "nonsense"):  # the extra words, once, at the first decision
            if not typed[word]:
                typed[word] = True
                terminal.type(word if word != "nonsense" else "dance a jig")
                break
        else:
            commands = legal_lines(screen)
            decisions += 1
            if decisions > 40 and any(c.startswith("accuse <") for c in commands):
                terminal.type(solution)
            else:
                calm = [c for c in commands if "<" not in c and c != "end turn"] or ["end turn"]
                terminal.type(calm[int(rng.integers(len(calm)))] if "roll" not in calm else "roll")
        assert decisions < 2000
    code = terminal.close()
    out = terminal.transcript
    assert code == 0, out[-3000:]
    assert "Type a command from the list below" in out  # help
    assert "Notepad (what you have seen):" in out
    assert "'dance a jig' is not a command" in out
    assert "=== The game is over. The story of the game, as you saw it ===" in out
    assert re.search(r"P\d \([^)]*\) wins\. It was ", out)
    assert re.search(r"\*\*\* (You won|Nobody won|You lost: P\d \([^)]*\) won)\. \*\*\*", out)
    assert "=== summary: 1 games" in out
    assert out.count("is not legal now") == 0  # every command the test typed was legal


def test_the_end_of_the_input_stops_the_game_with_a_message():
    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO("roll\n"), stdout=out)
    agents = [human, RandomAgent(1), RandomAgent(2)]
    with pytest.raises(SystemExit, match="input ended"):
        play_batch(core.GameConfig(num_players=3, start_player="scarlet"), agents, seeds=[0])
    assert "You rolled" in out.getvalue()


def test_a_human_plays_one_game_at_a_time():
    with pytest.raises(ValueError, match="one game at a time"):
        HumanAgent(stdout=io.StringIO()).reset(core.GameConfig(num_players=3), np.array([0, 0]))


def test_a_near_miss_is_answered_with_the_legal_command_it_was_close_to():
    from agents.human import closest_command
    from cluedo_env.commands import command, legal_actions

    config = core.GameConfig(num_players=3)
    state = core.init(config, [0])
    mask = core.legal_action_mask(state)[0]
    roll = next(a for a in legal_actions(mask) if command(config, a) == "roll")
    only = np.zeros_like(mask)
    only[roll] = True
    assert closest_command(config, "rol", only) == "roll"
    assert closest_command(config, "dance a jig", only) is None
    show = core.rules_for(config).layout  # the action ids
    scarlet = config.cards.cards.index("Miss Scarlet")
    shows = np.zeros_like(mask)
    shows[show.encode("show", scarlet)] = True
    assert closest_command(config, "show scarlett", shows) == command(config, show.encode("show", scarlet))


def test_the_game_ends_with_its_result_in_one_line():
    from agents.human import result_line

    config = core.GameConfig(num_players=3)
    assert result_line(config, 0, 0) == "*** You won. ***"
    assert result_line(config, 0, -1) == "*** Nobody won. ***"
    assert result_line(config, 0, 2) == f"*** You lost: P2 ({config.cards.suspects[2]}) won. ***"


def test_at_a_terminal_the_command_is_read_with_readline_editing(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    prompts = []
    monkeypatch.setattr(sys, "stdin", Tty(""))
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or "  roll ")
    monkeypatch.delitem(sys.modules, "readline", raising=False)
    assert HumanAgent()._read("> ") == "roll"
    assert prompts == ["> "] and "readline" in sys.modules

    def ended(prompt):
        raise EOFError

    monkeypatch.setattr("builtins.input", ended)
    with pytest.raises(SystemExit, match="input ended"):
        HumanAgent()._read("> ")


def test_the_human_is_told_how_many_cards_each_player_holds():
    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO(""), stdout=out)
    with pytest.raises(SystemExit):
        play_batch(
            core.GameConfig(num_players=4), [human, RandomAgent(), RandomAgent(), RandomAgent()], seeds=[3]
        )
    assert "Cards in each hand: P0 5, P1 5, P2 4, P3 4." in out.getvalue()


def test_a_near_miss_naming_a_room_is_answered_with_that_rooms_command():
    """``head towards the hall`` was answered "Did you mean: head toward the Ballroom?" where the Hall
    could be entered."""
    from agents.human import closest_command

    config = core.GameConfig(num_players=3)
    lay = core.rules_for(config).layout
    hall, ballroom = config.cards.rooms.index("Hall"), config.cards.rooms.index("Ballroom")
    mask = np.zeros(lay.num_actions, dtype=bool)
    mask[[lay.encode("enter", hall), lay.encode("toward", ballroom)]] = True
    assert closest_command(config, "head towards the hall", mask) == "enter the Hall"
    start = core.legal_action_mask(core.init(config, [0]))[0]  # roll, or accuse: no room to go to yet
    assert closest_command(config, "go to the kitchen", start) is None  # never a (wrong) accusation
    said = "suggest Colonel Mustard with the Rope in the Kitchen"  # nor for a suggestion out of turn
    assert closest_command(config, said, start) is None
    meant = "acuse Colonel Mustard with the Rope in the Kitchen"  # but to one who tried to accuse
    assert closest_command(config, meant, start) == "accuse Colonel Mustard with the Rope in the Kitchen"


def test_yes_plays_the_command_offered_and_a_line_that_is_not_text_is_asked_again(monkeypatch):
    """ "Did you mean: roll?" asked a question that "yes" could not answer; bytes that are not UTF-8 ended
    the game with a traceback."""
    from agents.human import HumanAgent as Human

    config = core.GameConfig(num_players=3)
    state = core.init(config, [0])
    player = int(state.current_player[0])
    out = io.StringIO()
    for yes in ("yes", "yes。", "Yes！"):  # a full-width full stop or exclamation mark too
        agent = Human(stdin=io.StringIO(f"rol\n{yes}\n"), stdout=out)
        agent.reset(config, np.array([player]))
        action = agent.act(state, np.array([0]), core.legal_action_mask(state))[0]
        assert "Did you mean: roll?" in out.getvalue()
        assert core.rules_for(config).layout.decode(int(action))[0] == "roll", out.getvalue()[-500:]

    class Undecodable(io.StringIO):
        def readline(self, *args):
            if not hasattr(self, "said"):
                self.said = True
                raise UnicodeDecodeError("utf-8", b"\xe9", 0, 1, "invalid continuation byte")
            return "roll\n"

    agent = Human(stdin=Undecodable(), stdout=out)
    assert agent._read("> ") == "roll" and "not text in utf-8" in out.getvalue()


def test_readline_is_optional_at_a_terminal(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Tty(""))
    monkeypatch.setattr("builtins.input", lambda prompt: "roll")
    monkeypatch.setitem(sys.modules, "readline", None)  # Windows' CPython has none
    assert HumanAgent()._read("> ") == "roll"


def test_two_human_seats_are_refused_at_one_terminal():
    done = subprocess.run([sys.executable, "-m", "experiments.play", "--agents", "human,human,sat"], cwd=ROOT,
                          capture_output=True, text=True, input="", timeout=120)  # fmt: skip
    assert done.returncode == 2 and "one human seat a terminal, got 2" in done.stderr


def test_a_piped_line_that_is_not_utf8_does_not_take_the_lines_after_it():
    """A strict decoder raised on the line and dropped the lines read with it: the game ended at "the input
    ended" though more commands followed."""
    done = subprocess.run([sys.executable, "-m", "experiments.play", "--human", "0", "--seed", "1"], cwd=ROOT,
                          input=b"r\xe9ll\nroll\n", capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})  # fmt: skip
    out = done.stdout.decode()
    assert "'r\ufffdll' is not a command" in out and "UnicodeDecodeError" not in done.stderr.decode()
    assert out.count("> ") >= 3  # asked again after the bad line, and after the roll


def test_an_accusation_is_offered_only_with_the_cards_the_reply_named():
    """ "Did you mean" offered the accusation nearest in letters, and "yes" played it: ``acuse scarlett
    with the spanner in the hall`` offered the Dagger, ``accuse plum with the rope`` a room never typed (a
    wrong accusation puts the player out)."""
    from agents.human import closest_command

    config = core.GameConfig(num_players=3)
    start = core.legal_action_mask(core.init(config, [0]))[0]  # roll, or any accusation
    said = "acuse scarlett with the spanner in the hall"  # UK spellings of Miss Scarlet and the Wrench
    assert closest_command(config, said, start) == "accuse Miss Scarlet with the Wrench in the Hall"
    for quoted in (f"“{said}”", f'"{said}"', f"「{said}」"):  # quoted, still an accusation or nothing
        assert closest_command(config, quoted, start) == "accuse Miss Scarlet with the Wrench in the Hall"
    assert closest_command(config, "accuse plum with the rope", start) is None  # no room named
    assert closest_command(config, "“accuse plum with the rope in the”", start) is None  # not the Hall's move
    assert closest_command(config, "acuse plum with the dagger and the rope in the hall", start) is None
    assert closest_command(config, "accuse mustard with the knife in the ballroom?", start) is None  # asks
    assert closest_command(config, "acuse plum with the rope in the hall if nobody has it", start) is None
    board_none = core.GameConfig(num_players=3, board="none")  # where a room's move is legal beside it
    moves = core.legal_action_mask(core.init(board_none, [0]))[0]
    assert closest_command(board_none, "go to the hall", moves) == "enter the Hall"
    assert closest_command(board_none, "accuse plum with the rop in the hall", moves) is None  # not the move
    de = core.GameConfig(num_players=3, edition="de_2023", board="none")
    start = core.legal_action_mask(core.init(de, [0]))[0]
    said = "acuse Gruen with the Seil in the Halle"  # Grün as typed without an umlaut
    assert closest_command(de, said, start) == "accuse Bürgermeister Grün with the Seil in the Halle"


def test_yes_plays_only_an_accusation_of_the_cards_typed():
    config = core.GameConfig(num_players=3)
    state = core.init(config, [0])
    layout = core.rules_for(config).layout
    e = config.cards
    for typed, played in (
        (
            "acuse scarlett with the spanner in the hall\nyes\n",
            ("accuse", (0, e.weapons.index("Wrench"), e.rooms.index("Hall"))),
        ),
        ("accuse plum with the rope\nyes\nroll\n", ("roll", ())),  # nothing offered: "yes" is no command
    ):
        out = io.StringIO()
        agent = HumanAgent(stdin=io.StringIO(typed), stdout=out)
        agent.reset(config, np.array([int(state.current_player[0])]))
        action = agent.act(state, np.array([0]), core.legal_action_mask(state))[0]
        assert layout.decode(int(action)) == played, out.getvalue()[-2000:]
