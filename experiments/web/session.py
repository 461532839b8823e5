"""One game in the browser: a person at one seat, agents at the others, on the compiled core.

``WebGame`` deals a game and seats agents (``agents.registry.make_agent``) at every seat but the
person's on a ``cluedo_env.table.Table`` (the person's seat is the table's free seat, whose
actions come from outside); ``start`` and each ``play`` let the agents play until the person
decides. A person who accused wrongly is out and is not asked again: the game is played to its
end at once, the person's refutations the first legal action (``WebGame._advance``). Every step
is recorded (``cluedo_env.game_record.GameRecorder``) and the replay saved when the game is over.

``seat_view`` is everything the server sends the browser: built from the public fields of the
state and the person's ``core.private_view`` of the events, never from the hidden deal, until
the game is over (then ``end_view`` adds the envelope and every hand). Card ids appear only
under the keys ``card`` and ``cards``; names of cards only in the story's sentences (what the
person saw happen), so that the privacy test can read every response for hidden cards.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from cluedo_env import core
from cluedo_env.commands import SIMPLE_COMMANDS
from cluedo_env.core import events as ev
from cluedo_env.core.board import classic_board
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, Phase
from cluedo_env.game_record import GameRecorder
from cluedo_env.inference.beliefs import beliefs_from_events
from cluedo_env.table import Table
from cluedo_env.text import HISTORY_SKIP, not_held_by, notepad_notes
from cluedo_env.transcript import player_name, story
from experiments.web.results import HUMAN, HUMAN_SEEDED, append_result, game_result

__all__ = ["WEB_AGENTS", "ActionRefused", "WebGame", "end_view", "reveal", "seat_view"]

# The agents a browser may seat by name: they play offline, from no file (an import path runs
# code, the llm agent reaches the network, the trained agents read files).
WEB_AGENTS = ("random", "notepad", "sat", "belief", "determinize")


class ActionRefused(ValueError):
    """The person's action is not taken (not legal now, not the person's turn, the game over)."""


class WebGame:
    """A game between a person at ``seat`` and the named agents at the other seats, in turn.

    Args:
        game_id: The game's name in URLs and in its replay's file name.
        agent_names: One name of ``WEB_AGENTS`` per other seat (2 to 5 names: 3 to 6 players).
        seat: The person's seat.
        seed: The deal's seed.
        seed_chosen: Whether the person chose the seed (the game then joins the results as
            ``results.HUMAN_SEEDED``: the person may have seen that deal before).
        replay_dir: Where the finished game's replay is saved (``<game_id>.jsonl``), or None.
        results_dir: Where the finished game's record is appended to ``games.jsonl``, the
            person as the agent ``human`` (``experiments.web.results``), or None.

    Raises:
        ValueError: an unknown agent name, a count of agents or a seat out of range (naming the
            value and what is accepted).
    """

    def __init__(
        self,
        game_id: str,
        agent_names: list[str],
        seat: int,
        seed: int,
        replay_dir: Path | None,
        results_dir: Path | None = None,
        seed_chosen: bool = False,
    ) -> None:
        for name in agent_names:
            if name not in WEB_AGENTS:
                raise ValueError(f"agent must be one of {list(WEB_AGENTS)}, got {name!r}")
        if not 2 <= len(agent_names) <= 5:
            raise ValueError(f"agents must name 2 to 5 agents (3 to 6 players), got {len(agent_names)}")
        players = len(agent_names) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat must be in [0, {players}) for {players} players, got {seat}")
        if not 0 <= seed < core.SEED_BOUND:
            raise ValueError(f"seed must be in [0, {core.SEED_BOUND}), got {seed}")
        self.game_id = game_id
        self.seat = seat
        self.seed = seed
        self.person = HUMAN_SEEDED if seed_chosen else HUMAN
        self.replay_dir = replay_dir
        self.replay_path: Path | None = None
        self.results_dir = results_dir
        self.saved = False  # the finished game's replay and result are written once
        self.save_error: str | None = None  # why they could not be (the end view says it)
        self.seen = time.monotonic()  # when the game was last asked for (an hour idle: dropped to make room)
        self.closed = False  # the page showing it was closed (or reloaded) since it last asked for it
        self.page: str | None = None  # the page that last asked for it (its id; None: a request naming none)
        self.config = core.GameConfig(num_players=players)
        self.layout = core.rules_for(self.config).layout
        others = [s for s in range(players) if s != seat]
        self.names = {s: name for s, name in zip(others, agent_names)}
        self.agents = [make_agent(name, seed=seed * 10 + s) for s, name in self.names.items()]
        self.table = Table(self.agents, np.array(others, dtype=np.int64)[:, None], players)
        self.lock = threading.Lock()  # one request at a time plays this game
        self.state = core.init(self.config, [seed])
        self.recorder = GameRecorder(self.config, seed)
        for agent, s in zip(self.agents, others):
            agent.reset(self.config, np.array([s]), seed=agent.seed + seed)
        self.events: list[np.ndarray] = []  # the person's private view of each step's events
        self._tell()

    def start(self) -> None:
        """Let the agents before the person play (the app calls it once the game is kept: a game
        that ends before the person's first decision is then saved as the person's game)."""
        if self.steps == 0:
            self._advance()

    @property
    def over(self) -> bool:
        return bool(self.state.done[0])

    @property
    def steps(self) -> int:
        """The actions played in the game so far (anyone's)."""
        return self.recorder.record.num_steps

    def _tell(self) -> None:
        state = self.state
        self.table.tell(state, state.events)
        rows = state.events[0, : state.num_events[0]]
        self.events.append(core.private_view(rows, self.seat))

    def _step(self, action: int) -> None:
        actions = np.array([action], dtype=np.int64)
        self.table.play(self.state, actions, check=True, tell=False)  # an agent's choice fills actions
        self.recorder.append(int(actions[0]), self.state)
        self._tell()

    @property
    def out(self) -> bool:
        """Whether the person has accused wrongly: out of the game, which it has lost."""
        return bool(self.state.eliminated[0, self.seat])

    def _advance(self) -> None:
        """Let the agents play until the person decides or the game is over; save a finished game.

        Once the person is out, the game is played to its end without asking them: a player out
        still refutes, and the person's refutations are then the first legal action (the
        lowest-numbered card of the suggestion it holds), so that a lost game ends and is saved
        even when the person leaves the page.
        """
        while not self.over:
            if int(self.state.current_player[0]) != self.seat:
                self._step(0)
            elif self.out:
                self._step(int(self.legal()[0]))
            else:
                return
        if not self.saved:
            self._save()

    def _save(self) -> None:
        """Save the finished game: its replay (written to a hidden ``.part`` file, then renamed: a
        write cut short leaves no replay) and its result; ``save_error`` says what could not be."""
        what = "the replay could not be written"
        try:
            if self.replay_dir is not None and self.replay_path is None:
                self.replay_dir.mkdir(parents=True, exist_ok=True)
                path = self.replay_dir / f"{self.game_id}.jsonl"
                part = self.replay_dir / f".{self.game_id}.part"  # not a replay name: never listed
                try:
                    self.recorder.to_jsonl(part)
                    part.replace(path)
                finally:
                    part.unlink(missing_ok=True)
                self.replay_path = path
            what = "the result could not be added to games.jsonl"
            if self.results_dir is not None:
                record = self.recorder.record
                result = game_result(self.game_id, self.seat, self.names, record, self.state, self.person)
                append_result(self.results_dir, result)
        except OSError as error:  # a full disk, a folder that is a file: the game stays over
            self.save_error = f"{what}: {error.strerror or error}"
            return
        self.saved = True

    def legal(self) -> np.ndarray:
        """The person's legal action ids now (none when it is not the person's decision)."""
        if self.over or int(self.state.current_player[0]) != self.seat:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(core.legal_action_mask(self.state)[0])

    def play(self, action: int) -> None:
        """Play the person's ``action``, then the agents until the person decides again.

        Raises:
            ActionRefused: the action is not one of the person's legal actions now (naming them);
                nothing is played.
        """
        legal = self.legal()
        if action not in legal:
            if self.over:
                raise ActionRefused(f"action {action} refused: game {self.game_id} is over")
            if not len(legal):
                raise ActionRefused(f"action {action} refused: it is not your decision now")
            raise ActionRefused(f"action {action} is not legal now; legal action ids: {legal.tolist()}")
        self._step(action)
        self._advance()

    def history(self) -> np.ndarray:
        """The person's view of every event so far."""
        return np.concatenate(self.events)


def _location(config: core.GameConfig, location: int) -> dict:
    """A pawn's place: ``{"room": r}`` or ``{"square": [row, col]}``."""
    rooms = config.cards.num_rooms
    if location < rooms:
        return {"room": location}
    return {"square": list(classic_board().squares[location - rooms])}


def _action(game: WebGame, action: int) -> dict:
    """One legal action as the page needs it: its id, kind and arguments (card names are the page's)."""
    kind, args = game.layout.decode(int(action))
    entry: dict = {"id": int(action), "kind": kind}
    if kind in SIMPLE_COMMANDS:
        entry["text"] = SIMPLE_COMMANDS[kind]
    elif kind in ("enter", "toward"):
        entry["room"] = int(args[0])
    elif kind == "square":
        entry["square"] = list(classic_board().squares[args[0]])
    elif kind == "show":
        entry["card"] = int(args[0])
    else:  # suggest, accuse: indices within the suspects, weapons and rooms
        entry["suspect"], entry["weapon"] = int(args[0]), int(args[1])
        if kind == "accuse":
            entry["room"] = int(args[2])
    return entry


def _notes(seat: int, view: np.ndarray) -> list[dict]:
    """The person's notepad (``cluedo_env.text.notepad_notes``): a note for each card it has seen
    (held, shown, looked at face down), then one for each other card seen passed on."""
    notes, passed = notepad_notes(seat, view)
    return [{"card": c, "note": note} for c, note in sorted(notes.items())] + [
        {"card": c, "note": not_held_by(players)} for c, players in sorted(passed.items()) if c not in notes
    ]


def _beliefs(config: core.GameConfig, seat: int, view: np.ndarray) -> dict | None:
    """The person's exact posterior from its own view (``cluedo_env.inference.beliefs``): for each
    card in card order, the chance it lies with each player and in the envelope; None for nobody's seat."""
    if seat < 0:
        return None
    chances = beliefs_from_events(config, seat, view).probabilities()
    return {
        "players": np.round(chances[:, : config.num_players], 4).tolist(),
        "envelope": np.round(chances[:, ENVELOPE], 4).tolist(),
    }


def seat_view(game: WebGame) -> dict:
    """What the person at ``game.seat`` may know now, as JSON: the only game data the browser gets.

    Public fields of the state (turn, phase, dice, pawns, weapons, the suggestion on the table,
    who is out), the person's hand, hand sizes, notepad, exact posterior (``beliefs``) and story
    from its private view of the events, and its legal actions when it decides; ``end_view``
    once the game is over.
    """
    state, config, seat = game.state, game.config, game.seat
    view = game.history()
    dealt = view[view[:, ev.KIND] == ev.DEAL]
    hand = sorted(int(c) for c in dealt[(dealt[:, ev.PLAYER] == seat) & (dealt[:, ev.CARD] >= 0), ev.CARD])
    players = [
        {
            "seat": p,
            "name": player_name(config, p),
            "agent": "you" if p == seat else game.names[p],
            "hand_size": int((dealt[:, ev.PLAYER] == p).sum()),
            "out": bool(state.eliminated[0, p]),
        }
        for p in range(config.num_players)
    ]
    suggestion = [int(c) for c in state.suggestion[0]]
    phase = int(state.phase[0])
    result = {
        "game": game.game_id,
        "seat": seat,
        "players": players,
        "hand": {"cards": hand},
        "turn": int(state.turns_played[0]),
        "phase": Phase.NAMES[phase],
        "deciding": int(state.current_player[0]),
        "dice": [int(d) for d in state.dice[0] if d >= 0],
        "pawns": [_location(config, int(loc)) for loc in state.location[0]],
        "weapons": [int(room) for room in state.weapon_room[0]],
        "suggestion": {"cards": suggestion} if suggestion[0] >= 0 else None,
        "story": story(config, view, skip=HISTORY_SKIP),
        "notes": _notes(seat, view),
        "beliefs": _beliefs(config, seat, view),
        "legal": [_action(game, a) for a in game.legal()],
        "reachable": [],
        "enterable": [],
        "over": game.over,
        "step": game.steps,
    }
    if result["legal"] and phase == Phase.MOVE:  # the person's own roll: where it may go
        squares = classic_board().squares
        result["reachable"] = [list(squares[k]) for k in np.flatnonzero(state.reachable[0])]
        result["enterable"] = np.flatnonzero(state.enterable[0]).tolist()
    if game.over:
        result.update(end_view(game))
    return result


def end_view(game: WebGame) -> dict:
    """The end screen, once the game is over: the winner, the envelope, every hand, and
    ``save_error``: why the replay or the result could not be saved (None when they were)."""
    if not game.over:
        raise ValueError(f"game {game.game_id} is not over: the envelope and the hands stay hidden")
    return {**reveal(game), "save_error": game.save_error}


def reveal(game: WebGame) -> dict:
    """The result so far, the envelope and every hand: for the end screen and a replay's
    omniscient view only (``end_view`` checks that the game is over)."""
    owner = game.state._owner[0]
    winner = int(game.state.winner[0])
    return {
        "winner": winner,
        "winner_name": player_name(game.config, winner) if winner >= 0 else None,
        "truncated": bool(game.state.truncated[0]),
        "envelope": {"cards": np.flatnonzero(owner == ENVELOPE).tolist()},
        "hands": [
            {"seat": p, "cards": np.flatnonzero(owner == p).tolist()} for p in range(game.config.num_players)
        ],
        "face_down": {"cards": np.flatnonzero(owner == FACE_DOWN).tolist()},  # the duel's cards on the rooms
        "replay": game.replay_path.name if game.replay_path is not None else None,
    }
