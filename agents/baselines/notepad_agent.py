"""The notepad baseline: plays like a careful casual player with the game's detective notepad.

What it writes down, from its own event views:

- its own cards, every card shown to it and every face-down card it looked at
  (duel) are crossed off (not in the envelope);
- when nobody can refute its own suggestion, it marks the named cards it does
  not hold: nobody else holds them, so they are in the envelope (the classic
  inference; it does not reason about other players' passes or showings). In
  the duel a marked card may also lie face down on a room, so it counts marked
  cards as in the envelope only once it has looked at every face-down card.

How it plays:

- it accuses as soon as exactly one candidate is left in every category;
- it walks to the nearest room worth a visit: a candidate room, or in the duel
  a room whose face-down card it has not looked at (entering one when the roll
  allows, else heading toward the nearest), takes a secret passage into such
  a room, and stays in a candidate room to suggest again (staying does not
  look at a face-down card; a candidate room already marked, waiting for the
  face-down cards, is not worth staying in). In the duel it counts the moves
  around pawns that never move on their own (``agents.routes``), heads where
  the way is open, and takes a passage when they shut it in;
- it suggests a random candidate suspect and weapon (cards not crossed off),
  preferring in the duel those not yet marked;
- asked to refute, it shows a card it already showed to that player when it
  can (revealing nothing new), else a random one of the named cards it holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from agents.routes import Routes
from cluedo_env import core
from cluedo_env.core import events as ev

__all__ = ["NotepadAgent"]


class NotepadAgent(Agent):
    """A careful casual player (see the module docstring)."""

    name = "notepad"
    NOTES = ("crossed", "unrefuted", "hand", "peeked", "looked", "shown_to")  # what it writes down, per game

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        B, C, P = len(self.seats), config.cards.num_cards, config.num_players
        rules = core.rules_for(config)
        self.crossed = np.zeros((B, C), dtype=bool)
        self.unrefuted = np.zeros((B, C), dtype=bool)  # named in my suggestion, nobody else holds it
        self.hand = np.zeros((B, C), dtype=bool)
        self.peeked = np.zeros((B, C), dtype=bool)
        self.looked = np.zeros((B, rules.R), dtype=bool)  # rooms whose face-down card I looked at
        self.shown_to = np.zeros((B, P, C), dtype=bool)  # cards I showed to each player
        self.face_down_room = np.zeros(rules.R, dtype=bool)
        if config.duel:
            self.face_down_room[list(core.CORNER_ROOMS)] = True
        self.layout = rules.layout
        self.category = np.array([config.cards.category(c) for c in range(C)])
        self.S, self.W, self.R = rules.S, rules.W, rules.R
        self.routes = Routes(config) if config.board == "classic" else None

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for name in self.NOTES:
            getattr(self, name)[games] = False

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), **{name: getattr(self, name).copy() for name in self.NOTES}}

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        for name in self.NOTES:
            getattr(self, name)[...] = state[name]

    def observe(self, state: core.State, events: np.ndarray) -> None:
        kind, player, card = events[..., ev.KIND], events[..., ev.PLAYER], events[..., ev.CARD]
        seat = self.seats[:, None]
        game, row = np.nonzero(((kind == ev.DEAL) | (kind == ev.PEEK)) & (player == seat) & (card >= 0))
        self.crossed[game, card[game, row]] = True
        self.hand[game, card[game, row]] = kind[game, row] == ev.DEAL
        self.peeked[game, card[game, row]] = kind[game, row] == ev.PEEK
        peek = kind[game, row] == ev.PEEK
        self.looked[game[peek], events[game[peek], row[peek], ev.PEEKED_ROOM]] = True
        game, row = np.nonzero((kind == ev.SHOW) & (card >= 0))
        to_me = events[game, row, ev.SUGGESTER] == self.seats[game]
        self.crossed[game[to_me], card[game[to_me], row[to_me]]] = True
        by_me = player[game, row] == self.seats[game]
        g, r = game[by_me], row[by_me]
        self.shown_to[g, events[g, r, ev.SUGGESTER], card[g, r]] = True
        # Nobody refuted my suggestion: nobody else holds the named cards.
        game, row = np.nonzero((kind == ev.NO_REFUTE) & (player == seat))
        if len(game):
            self.unrefuted[game[:, None], state.suggestion[game]] = True

    def in_envelope(self, games: np.ndarray) -> np.ndarray:
        """``bool[len(games), C]``: cards it knows are in the envelope.

        Marked cards it does not hold and has not seen, once every face-down card is seen (a
        marked card may lie face down until then).
        """
        all_seen = self.peeked[games].sum(axis=1) == self.config.num_face_down
        return self.unrefuted[games] & ~self.crossed[games] & all_seen[:, None]

    def candidates(self, games: np.ndarray) -> np.ndarray:
        """``bool[len(games), C]``: cards that may still be in the envelope."""
        candidate = ~self.crossed[games]
        known = self.in_envelope(games)
        for cat in range(3):
            in_cat = self.category == cat
            settled = (known & in_cat).any(axis=1)
            candidate[np.ix_(settled, in_cat)] = known[np.ix_(settled, in_cat)]
        return candidate

    def _into_rooms(
        self, state: core.State, games: np.ndarray, seat: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Moves from each location into each room in these games, ``float[m, R+N, R]``, and
        whether a pawn standing still lengthens some route, ``bool[m]`` (``agents.routes``)."""
        if not self.routes.walk_around:  # the pawn-free table, shared by every game
            free = self.routes.free
            return np.broadcast_to(free, (len(games), *free.shape)), np.zeros(len(games), dtype=bool)
        tables = [
            self.routes.around(self.routes.standing(state, int(g), int(p))) for g, p in zip(games, seat)
        ]
        return np.stack([t for t, _ in tables]), np.array(
            [lengthened for _, lengthened in tables], dtype=bool
        )

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        games, mask = np.asarray(games, dtype=np.int64), np.asarray(mask, dtype=bool)  # (a list; a 0/1 mask)
        lay = self.layout
        candidate = self.candidates(games)
        S, W, R = self.S, self.W, self.R
        suspects, weapons, rooms = candidate[:, :S], candidate[:, S : S + W], candidate[:, S + W :]
        solved = (suspects.sum(axis=1) == 1) & (weapons.sum(axis=1) == 1) & (rooms.sum(axis=1) == 1)
        accusation = (
            lay.ACCUSE
            + (np.argmax(suspects, axis=1) * W + np.argmax(weapons, axis=1)) * R
            + np.argmax(rooms, axis=1)
        )
        n = len(games)
        rows = np.arange(n)
        noise = self.rng.random((n, mask.shape[1]))
        preference = np.where(mask, noise, -np.inf)  # default: any legal action, at random
        accusations = slice(lay.ACCUSE, lay.ACCUSE + lay.sizes["accuse"])
        preference[:, accusations] = -np.inf  # never a random accusation
        preference[:, lay.END_TURN] += 1.0

        phase = state.phase[games]
        seat = self.seats[games]
        location = state.location[games, seat]
        # Worth suggesting in: a candidate room not marked and waiting for the face-down cards.
        # Worth arriving in: those, and the rooms whose face-down card it has not looked at.
        waiting = self.unrefuted[games] & candidate & ~self.in_envelope(games)
        suggest_room = np.zeros((n, R + 1), dtype=bool)
        suggest_room[:, :R] = rooms & ~waiting[:, S + W :]
        useful_room = suggest_room.copy()
        useful_room[:, :R] |= self.face_down_room & ~self.looked[games]
        here = np.where(location < R, location, R)

        # Start of a turn: stay in a room worth suggesting in, else a passage into a useful
        # room, else roll.
        turn = phase == core.Phase.TURN
        preference[turn & suggest_room[rows, here], lay.STAY] += 4.0
        if lay.sizes["enter"]:
            target = self.config.board == "classic"
            if target:
                passage_to = core.classic_board().passages[np.minimum(here, R - 1)]
                good_passage = (
                    (here < R)
                    & (passage_to >= 0)
                    & useful_room[rows, np.where(passage_to >= 0, passage_to, R)]
                )
                # Or a passage anywhere when standing pawns close every way on foot to a useful room.
                into_here = self._into_rooms(state, games, seat)[0][rows, location]  # [n, R]
                into_here[rows, np.minimum(here, R - 1)] = np.inf  # a roll never re-enters it
                shut_in = (here < R) & ~np.isfinite(np.where(useful_room[:, :R], into_here, np.inf)).any(
                    axis=1
                )
                good_passage |= shut_in & (passage_to >= 0)
                preference[turn & good_passage, lay.PASSAGE] += 3.0
                preference[turn, lay.ROLL] += 2.0
            enter = slice(lay.ENTER, lay.ENTER + R)
            preference[:, enter] += np.where(useful_room[:, :R], 5.0, 0.0)
        # After a roll: the nearest useful room (not the one it leaves: a roll never re-enters it).
        move = phase == core.Phase.MOVE
        if self.routes is not None and move.any():
            idx = np.flatnonzero(move)
            into, lengthened = self._into_rooms(state, games[idx], seat[idx])  # [m, R+N, R], [m]
            far = np.where(useful_room[idx, :R], into[np.arange(len(idx)), location[idx]], np.inf)
            far[here[idx, None] == np.arange(R)] = np.inf
            nearest = np.argmin(far, axis=1)
            if lay.sizes["toward"]:
                target = lay.TOWARD + nearest
                for k in np.flatnonzero(lengthened):
                    # A standing pawn is in some way: the move that stops nearest a useful room.
                    i = idx[k]
                    towards = np.flatnonzero(mask[i, lay.TOWARD : lay.TOWARD + R])
                    if len(towards):
                        stops = [self.routes.toward_stop(state, int(games[i]), int(r)) for r in towards]
                        cost = np.where(np.isfinite(far[k]), into[k][R + np.array(stops)], np.inf).min(axis=1)
                        target[k] = lay.TOWARD + towards[np.argmin(cost)]
                preference[idx, target] += 3.0
            else:
                squares = slice(lay.SQUARE, lay.SQUARE + lay.sizes["square"])
                to_room = into[np.arange(len(idx)), R:, nearest]  # [m, N] moves from square into that room
                preference[idx, squares] -= np.minimum(to_room, 1000.0) / 100.0  # closed ways: far
                preference[idx, squares] += 3.0
        # Suggest candidate cards (a random suspect and weapon among them, not marked if it can).
        suggest = phase == core.Phase.SUGGEST
        if suggest.any():
            fresh = candidate & ~waiting
            for lo, hi in ((0, S), (S, S + W)):
                none = ~fresh[:, lo:hi].any(axis=1)
                fresh[none, lo:hi] = candidate[none, lo:hi]
            pick_s = np.argmax(np.where(fresh[:, :S], self.rng.random((n, S)), -1.0), axis=1)
            pick_w = np.argmax(np.where(fresh[:, S : S + W], self.rng.random((n, W)), -1.0), axis=1)
            idx = np.flatnonzero(suggest)
            preference[idx, lay.SUGGEST + pick_s[idx] * W + pick_w[idx]] += 10.0
        # Refute with a card already shown to that player if possible.
        refute = phase == core.Phase.REFUTE
        if refute.any():
            idx = np.flatnonzero(refute)
            suggester = state.turn_player[games[idx]]
            shown = self.shown_to[games[idx], suggester]  # [m, C]
            show = slice(lay.SHOW, lay.SHOW + shown.shape[1])
            preference[idx, show] += np.where(shown, 2.0, 0.0)
        # Accuse only when solved.
        may_accuse = solved & mask[rows, accusation]
        preference[rows[may_accuse], accusation[may_accuse]] = 100.0
        return np.argmax(preference, axis=1)
