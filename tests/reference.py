"""A slow, obviously correct, single-game reference implementation of the rules.

Used only by tests (``test_differential.py``): it is written independently of
``cluedo_env/core/game.py`` and ``movement.py``, in plain Python (lists, sets,
ints, a plain breadth-first search over the board's ``neighbours``), straight
from ``docs/RULES.md`` and the conventions of the core (card ids, locations, event
rows, draw counters). It shares with the core only the counter-based random
numbers (``rng``), the config, the editions, the parsed board data and the
action layout.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from cluedo_env.core import events as ev
from cluedo_env.core.actions import ActionLayout
from cluedo_env.core.board import classic_board
from cluedo_env.core.config import GameConfig
from cluedo_env.core.rng import draw, draw_die, game_key

__all__ = ["ReferenceGame"]

# Phases, by name (independent of the core's numbering).
TURN, MOVE, SUGGEST, REFUTE, ACCUSE, OVER = "turn", "move", "suggest", "refute", "accuse", "over"

ENVELOPE_OWNER = -1
FACE_DOWN_OWNER = -2
DUEL_ROOMS = (0, 2, 6, 8)  # Kitchen, Conservatory, Lounge, Study
START_ROLL_ROUNDS = 16
TURN_DICE_COUNTER = 1024
UNIFORM_DEAL_DRAWS = 384  # deal="uniform": card c's fresh key is draw 384 + c

_BOARD_CACHE: dict[str, object] = {}


def _board_tables():
    """Plain-Python copies of the classic board's data (built once)."""
    if "tables" not in _BOARD_CACHE:
        board = classic_board()
        _BOARD_CACHE["tables"] = {
            "neighbours": [list(n) for n in board.neighbours],
            "doors": [list(d) for d in board.doors],
            "starts": list(board.starts),
            "passages": [int(x) for x in board.passages],
            "room_distance": [[int(x) for x in row] for row in board.room_distance.tolist()],
            "num_squares": board.num_squares,
        }
    return _BOARD_CACHE["tables"]


def _event(kind, player, a=-1, b=-1, c=-1, d=-1, card=-1):
    return (int(kind), int(player), int(a), int(b), int(c), int(d), int(card))


class ReferenceGame:
    """One game of Cluedo, stepped one action at a time.

    Attributes:
        current_player: Who decides now (-1 once the game is over).
        terminated, truncated: How the game ended (both False while it runs).
        winner: The winner, or -1.
        rewards: One float per player, for the last step.
        initial_events: The events of the deal (DEAL..., START, TURN).
    """

    def __init__(self, config: GameConfig, seed: int) -> None:
        self.config = config
        e = config.cards
        self.S, self.W, self.R = e.num_suspects, e.num_weapons, e.num_rooms
        self.C = e.num_cards
        self.P = config.num_players
        self.layout = ActionLayout(config)
        self.off = dict(self.layout.offsets)
        self.classic = config.board == "classic"
        self.board = _board_tables() if self.classic else None
        self._key = game_key(np.array([seed]))
        S, W, R, C, P = self.S, self.W, self.R, self.C, self.P

        # All accusations, as a set of action ids (reused).
        self._accusations = frozenset(range(self.off["accuse"], self.off["accuse"] + S * W * R))
        self._suggestions = frozenset(range(self.off["suggest"], self.off["suggest"] + S * W)) | {
            self.off["no_suggestion"]
        }

        # --- the deal ---
        keys = [self._draw(c) for c in range(C)]
        categories = [range(0, S), range(S, S + W), range(S + W, C)]
        self.envelope = []
        for cat in categories:
            best = None
            for c in cat:
                if best is None or keys[c] > keys[best]:  # ties: keep the lower id
                    best = c
            self.envelope.append(best)
        rest = [c for c in range(C) if c not in self.envelope]
        if config.deal == "uniform":  # dealt in the order of fresh keys: a uniform shuffle
            keys = [self._draw(UNIFORM_DEAL_DRAWS + c) for c in range(C)]
        rest.sort(key=lambda c: (keys[c], c))
        self.owner = [None] * C
        for c in self.envelope:
            self.owner[c] = ENVELOPE_OWNER
        self.face_down = {}  # room -> card
        if config.duel:
            for room, card in zip(DUEL_ROOMS, rest[:4], strict=True):
                self.face_down[room] = card
                self.owner[card] = FACE_DOWN_OWNER
            rest = rest[4:]
        self.hands = [set() for _ in range(P)]
        events = []
        for i, card in enumerate(rest):
            holder = i % P
            self.hands[holder].add(card)
            self.owner[card] = holder
            events.append(_event(ev.DEAL, holder, card=card))

        # --- first player ---
        if config.start_player == "scarlet":
            first = 0
        elif config.start_player == "random":
            first = self._draw(C) % P
        else:
            contenders = list(range(P))
            for t in range(START_ROLL_ROUNDS):
                rolls = []
                for p in range(P):
                    if p in contenders:
                        base = C + 2 * P * t
                        roll = self._die(base + 2 * p)
                        if config.dice == 2:
                            roll += self._die(base + 2 * p + 1)
                    else:
                        roll = 0
                    rolls.append(roll)
                best = max(rolls)
                contenders = [p for p in range(P) if rolls[p] == best]
                if len(contenders) == 1:
                    break
            first = min(contenders)

        # --- pawns and weapons ---
        if self.classic:
            self.location = [R + self.board["starts"][s] for s in range(S)]
        else:
            self.location = [R] * S
        self.weapon_room = list(e.weapon_start_rooms)

        # --- turn state ---
        self.dice_counter = TURN_DICE_COUNTER
        self.turn = 0
        self.turn_player = first
        self.current_player = first
        self.phase = TURN
        self.summoned = [False] * P
        self.eliminated = [False] * P
        self.terminated = False
        self.truncated = False
        self.winner = -1
        self.rewards = [0.0] * P
        self.suggestion = None  # (suspect card, weapon card, room card)
        self.refuter = -1
        self.move_squares = {}  # square -> distance, after a roll
        self.move_rooms = set()  # enterable rooms, after a roll
        events.append(_event(ev.START, first, a=first))
        events.append(_event(ev.TURN, first, a=0))
        self.initial_events = events

    # --- randomness ------------------------------------------------------------

    def _draw(self, counter: int) -> int:
        return int(draw(self._key, np.array([counter], dtype=np.uint64))[0])

    def _die(self, counter: int) -> int:
        return int(draw_die(self._key, np.array([counter], dtype=np.uint64))[0])

    # --- helpers -----------------------------------------------------------------

    def _in_room(self, player: int) -> bool:
        return self.location[player] < self.R

    def _may_accuse(self) -> bool:
        return self.config.accuse_anywhere or self._in_room(self.turn_player)

    def _walk(self, total: int) -> None:
        """Where the turn player's pawn can go with ``total`` steps (plain BFS)."""
        R, p = self.R, self.turn_player
        neighbours, doors = self.board["neighbours"], self.board["doors"]
        occupied = set()
        for s, loc in enumerate(self.location):
            if s != p and loc >= R:
                occupied.add(loc - R)
        start = self.location[p]
        dist = {}
        queue = deque()
        if start >= R:
            dist[start - R] = 0
            queue.append(start - R)
        else:
            for d in doors[start]:
                if d not in occupied and d not in dist:
                    dist[d] = 1
                    queue.append(d)
        while queue:
            sq = queue.popleft()
            if dist[sq] >= total:
                continue
            for n in neighbours[sq]:
                if n in occupied or n in dist:
                    continue
                dist[n] = dist[sq] + 1
                queue.append(n)
        self.move_squares = {sq: d for sq, d in dist.items() if 1 <= d <= total}
        self.move_rooms = set()
        for r in range(R):
            if r == start:
                continue
            if any(d in dist and dist[d] <= total - 1 for d in doors[r]):
                self.move_rooms.add(r)

    # --- legal actions -------------------------------------------------------------

    def legal_actions(self) -> set[int]:
        off, R = self.off, self.R
        p = self.turn_player
        legal: set[int] = set()
        if self.phase == OVER:
            return legal
        if self.phase == TURN:
            here = self.location[p]
            in_room = here < R
            if self.classic:
                legal.add(off["roll"])
                if in_room and self.board["passages"][here] >= 0:
                    legal.add(off["passage"])
                if in_room and (self.config.stay_in_room or self.summoned[p]):
                    legal.add(off["stay"])
            else:
                for r in range(R):
                    legal.add(off["enter"] + r)
            if self._may_accuse():
                legal |= self._accusations
        elif self.phase == MOVE:
            for r in self.move_rooms:
                legal.add(off["enter"] + r)
            if self.config.movement == "compact":
                if self.move_squares:
                    for r in range(R):
                        if r not in self.move_rooms and r != self.location[p]:
                            legal.add(off["toward"] + r)
            else:
                for sq in self.move_squares:
                    legal.add(off["square"] + sq)
            if not self.move_squares and not self.move_rooms:
                legal.add(off["no_move"])
        elif self.phase == SUGGEST:
            legal |= self._suggestions
        elif self.phase == REFUTE:
            for c in self.suggestion:
                if c in self.hands[self.refuter]:
                    legal.add(off["show"] + c)
        elif self.phase == ACCUSE:
            if self._may_accuse():
                legal |= self._accusations
            legal.add(off["end_turn"])
        return legal

    # --- step -------------------------------------------------------------------

    def step(self, action: int) -> list[tuple]:
        action = int(action)
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal action {action} ({self.layout.action_to_string(action)}) in {self.phase}"
            )
        kind, args = self.layout.decode(action)
        self.rewards = [0.0] * self.P
        out: list[tuple] = []
        getattr(self, "_do_" + kind)(out, *args)
        return out

    def _arrive(self, out, room, how) -> None:
        """The turn player's pawn comes into ``room`` by its own move."""
        p = self.turn_player
        here = self.location[p]
        out.append(_event(ev.MOVE, p, a=p, b=here, c=room, d=how))
        self.location[p] = room
        if self.config.duel and room in self.face_down and room != here:  # the room it is in: staying
            out.append(_event(ev.PEEK, p, a=room, card=self.face_down[room]))
        self.phase = SUGGEST

    def _do_roll(self, out) -> None:
        p = self.turn_player
        die1 = self._die(self.dice_counter)
        die2 = self._die(self.dice_counter + 1) if self.config.dice == 2 else -1
        self.dice_counter += self.config.dice
        total = die1 + (die2 if die2 > 0 else 0)
        out.append(_event(ev.ROLL, p, a=die1, b=die2, c=total))
        self._walk(total)
        self.phase = MOVE

    def _do_passage(self, out) -> None:
        here = self.location[self.turn_player]
        self._arrive(out, self.board["passages"][here], ev.MOVE_PASSAGE)

    def _do_stay(self, out) -> None:
        p = self.turn_player
        here = self.location[p]
        out.append(_event(ev.MOVE, p, a=p, b=here, c=here, d=ev.MOVE_STAY))
        self.phase = SUGGEST

    def _do_no_move(self, out) -> None:
        p = self.turn_player
        here = self.location[p]
        out.append(_event(ev.MOVE, p, a=p, b=here, c=here, d=ev.MOVE_BLOCKED))
        self.phase = ACCUSE

    def _do_enter(self, out, room) -> None:
        self._arrive(out, room, ev.MOVE_WALK if self.classic else ev.MOVE_CHOOSE_ROOM)

    def _stop_on(self, out, square) -> None:
        p = self.turn_player
        out.append(_event(ev.MOVE, p, a=p, b=self.location[p], c=self.R + square, d=ev.MOVE_WALK))
        self.location[p] = self.R + square
        self.phase = ACCUSE

    def _do_toward(self, out, room) -> None:
        distance = self.board["room_distance"]
        best = min(self.move_squares, key=lambda sq: (distance[sq][room], sq))
        self._stop_on(out, best)

    def _do_square(self, out, square) -> None:
        self._stop_on(out, square)

    def _do_suggest(self, out, s, w) -> None:
        S, W, P = self.S, self.W, self.P
        p = self.turn_player
        room = self.location[p]
        cards = (s, S + w, S + W + room)
        self.suggestion = cards
        out.append(_event(ev.SUGGEST, p, a=cards[0], b=cards[1], c=cards[2]))
        if self.location[s] != room:
            out.append(_event(ev.MOVE, p, a=s, b=self.location[s], c=room, d=ev.MOVE_SUMMONED))
            self.location[s] = room
            if s < P:
                self.summoned[s] = True
                if self.config.duel and room in self.face_down:  # entering by any means shows the card
                    out.append(_event(ev.PEEK, s, a=room, card=self.face_down[room]))
        if self.weapon_room[w] != room:
            out.append(_event(ev.WEAPON, p, a=w, b=self.weapon_room[w], c=room))
            self.weapon_room[w] = room
        self.phase = ACCUSE
        for i in range(1, P):
            q = (p + i) % P
            held = [c for c in cards if c in self.hands[q]]
            if not held:
                out.append(_event(ev.PASS, q, a=p))
                continue
            if self.config.auto_refute and len(held) == 1:
                out.append(_event(ev.SHOW, q, a=p, card=held[0]))
            else:
                self.phase = REFUTE
                self.refuter = q
                self.current_player = q
            return
        out.append(_event(ev.NO_REFUTE, p))

    def _do_no_suggestion(self, out) -> None:
        self.phase = ACCUSE

    def _do_show(self, out, card) -> None:
        out.append(_event(ev.SHOW, self.refuter, a=self.turn_player, card=card))
        self.refuter = -1
        self.phase = ACCUSE
        self.current_player = self.turn_player

    def _do_accuse(self, out, s, w, r) -> None:
        S, W, P = self.S, self.W, self.P
        p = self.turn_player
        cards = [s, S + w, S + W + r]
        right = cards == self.envelope
        out.append(_event(ev.ACCUSE, p, a=cards[0], b=cards[1], c=cards[2], d=1 if right else 0))
        if right:
            self.winner = p
            self.rewards = [1.0 if q == p else -1.0 for q in range(P)]
            self._game_over(out, p, ev.END_WIN, terminated=True)
            return
        self.eliminated[p] = True
        if all(self.eliminated):
            self.rewards = [-1.0] * P
            self._game_over(out, -1, ev.END_ALL_WRONG, terminated=True)
            return
        self._end_of_turn(out)

    def _do_end_turn(self, out) -> None:
        self._end_of_turn(out)

    def _end_of_turn(self, out) -> None:
        p = self.turn_player
        self.summoned[p] = False
        self.turn += 1
        if self.turn >= self.config.max_turns:
            self._game_over(out, -1, ev.END_TRUNCATED, terminated=False)
            return
        for i in range(1, self.P + 1):
            q = (p + i) % self.P
            if not self.eliminated[q]:
                break
        self.turn_player = q
        self.current_player = q
        self.phase = TURN
        out.append(_event(ev.TURN, q, a=self.turn))

    def _game_over(self, out, winner, reason, terminated) -> None:
        env = self.envelope
        out.append(_event(ev.GAME_OVER, winner, a=env[0], b=env[1], c=env[2], d=reason))
        self.terminated = terminated
        self.truncated = not terminated
        self.phase = OVER
        self.current_player = -1
