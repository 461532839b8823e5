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
