"""The notepad baseline: plays like a careful casual player with the game's detective notepad.

What it writes down, from its own event views:

- its own cards and every card shown to it are crossed off (not in the envelope);
- when nobody can refute its own suggestion, the named cards it does not hold
  are in the envelope (the classic inference; it does not reason about
  other players' passes or showings). In the duel a named card may also lie
  face down on a room, so it draws this inference only for cards it has not
  seen once it has looked at every face-down card.

How it plays:

- it accuses as soon as exactly one candidate is left in every category;
- it walks to the nearest room that is still a candidate (entering one when
  the roll allows, else heading toward the nearest), takes a secret passage
  into a candidate room, and stays in a candidate room to suggest again;
- it suggests a random candidate suspect and weapon (cards not crossed off);
- asked to refute, it shows a card it already showed to that player when it
  can (revealing nothing new), else a random one of the named cards it holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from cluedo_env import core
from cluedo_env.core import events as ev

__all__ = ["NotepadAgent"]


class NotepadAgent(Agent):
    """A careful casual player (see the module docstring)."""

    name = "notepad"
    NOTES = ("crossed", "in_envelope", "hand", "peeked", "shown_to")  # what it writes down, per game

    def reset(self, config: core.GameConfig, seats: np.ndarray, seed: int | None = None) -> None:
        super().reset(config, seats, seed)
        B, C, P = len(self.seats), config.cards.num_cards, config.num_players
        self.crossed = np.zeros((B, C), dtype=bool)
        self.in_envelope = np.zeros((B, C), dtype=bool)
        self.hand = np.zeros((B, C), dtype=bool)
        self.peeked = np.zeros((B, C), dtype=bool)
        self.shown_to = np.zeros((B, P, C), dtype=bool)  # cards I showed to each player
        rules = core.rules_for(config)
        self.layout = rules.layout
        self.category = np.array([config.cards.category(c) for c in range(C)])
        self.S, self.W, self.R = rules.S, rules.W, rules.R
        self.room_distance = None
        if config.board == "classic":
            # moves from any location (rooms, then squares) into each room
            self.room_distance = rules.location_room_distance

    def reset_games(self, games: np.ndarray, seats: np.ndarray) -> None:
        super().reset_games(games, seats)
        for notes in (self.crossed, self.in_envelope, self.hand, self.peeked, self.shown_to):
            notes[games] = False

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), **{name: getattr(self, name).copy() for name in self.NOTES}}

    def load_state_dict(self, config: core.GameConfig, state: Mapping[str, Any]) -> None:
        super().load_state_dict(config, state)
        for name in self.NOTES:
            getattr(self, name)[...] = state[name]

    def observe(self, state: core.State, events: np.ndarray) -> None:
        kind, player, card = events[..., 0], events[..., 1], events[..., 6]
        seat = self.seats[:, None]
        game, row = np.nonzero(((kind == ev.DEAL) | (kind == ev.PEEK)) & (player == seat) & (card >= 0))
        self.crossed[game, card[game, row]] = True
        self.hand[game, card[game, row]] = kind[game, row] == ev.DEAL
        self.peeked[game, card[game, row]] = kind[game, row] == ev.PEEK
        game, row = np.nonzero((kind == ev.SHOW) & (card >= 0))
        to_me = events[game, row, 2] == self.seats[game]
        self.crossed[game[to_me], card[game[to_me], row[to_me]]] = True
        by_me = player[game, row] == self.seats[game]
        g, r = game[by_me], row[by_me]
        self.shown_to[g, events[g, r, 2], card[g, r]] = True
        # Nobody refuted my suggestion: the named cards I do not hold are in the envelope.
        game, row = np.nonzero((kind == ev.NO_REFUTE) & (player == seat))
        game = game[self.peeked[game].sum(axis=1) == self.config.num_face_down]
        if len(game):
            suggestion = state.suggestion[game]
            unseen = ~self.crossed[game[:, None], suggestion]
            self.in_envelope[game[:, None], suggestion] |= unseen

    def candidates(self, games: np.ndarray) -> np.ndarray:
        """``bool[len(games), C]``: cards that may still be in the envelope."""
        candidate = ~self.crossed[games]
        known = self.in_envelope[games]
        for cat in range(3):
            in_cat = self.category == cat
            settled = (known & in_cat).any(axis=1)
            candidate[np.ix_(settled, in_cat)] = known[np.ix_(settled, in_cat)]
        return candidate

    def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
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
        useful_room = np.zeros((n, R + 1), dtype=bool)
        useful_room[:, :R] = rooms
        here = np.where(location < R, location, R)
        in_useful = useful_room[rows, here]

        # Start of a turn: stay in a candidate room, else a passage into one, else roll.
        turn = phase == core.Phase.TURN
        preference[turn & in_useful, lay.STAY] += 4.0
        if lay.sizes["enter"]:
            target = self.config.board == "classic"
            if target:
                passage_to = core.rules_for(self.config).passages[np.minimum(here, R - 1)]
                good_passage = (
                    (here < R)
                    & (passage_to >= 0)
                    & useful_room[rows, np.where(passage_to >= 0, passage_to, R)]
                )
                preference[turn & good_passage, lay.PASSAGE] += 3.0
                preference[turn, lay.ROLL] += 2.0
            enter = slice(lay.ENTER, lay.ENTER + R)
            preference[:, enter] += np.where(rooms, 5.0, 0.0)
        # After a roll: the nearest candidate room.
        move = phase == core.Phase.MOVE
        if self.room_distance is not None and move.any():
            distance = self.room_distance[location[move]]  # [m, R]
            far = np.where(rooms[move], distance, np.inf)
            nearest = np.argmin(far, axis=1)
            if lay.sizes["toward"]:
                preference[np.flatnonzero(move), lay.TOWARD + nearest] += 3.0
            else:
                squares = slice(lay.SQUARE, lay.SQUARE + lay.sizes["square"])
                to_room = self.room_distance[R:, :][:, nearest].T  # [m, N] moves from square into that room
                preference[np.flatnonzero(move), squares] -= to_room / 100.0
                preference[np.flatnonzero(move), squares] += 3.0
        # Suggest candidate cards (a random suspect and weapon among them).
        suggest = phase == core.Phase.SUGGEST
        if suggest.any():
            pick_s = np.argmax(np.where(suspects, self.rng.random((n, S)), -1.0), axis=1)
            pick_w = np.argmax(np.where(weapons, self.rng.random((n, W)), -1.0), axis=1)
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
