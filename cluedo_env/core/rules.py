"""The rules of one game, written once and compiled: deal, roll, move, suggest, show, accuse, next turn,
game over and the legal actions (docs/RULES.md).

Each rule is plain scalar code for game ``i`` of a batch, compiled by numba (``cache=True``:
compiled on the first use in an environment, then loaded from numba's cache). A rule reads and
writes the batch's state through ``g`` (a ``layout.Fields`` tuple: ``g.location[i, s]`` ...) and
reads the config's numbers and tables through ``t`` (a ``layout.Tables`` tuple: ``t.R``,
``t.passage_to[room]`` ...); both are views of byte buffers (``core/layout.py``, ``core/views.py``).
The entry points of ``core/batched.py`` run the rules over the games of a batch, the rules of a
game (``play``, ``legal``) inlined into their loop; ``core/game.py`` checks the input and calls them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cluedo_env.core import events as ev
from cluedo_env.core.actions import RANGE_NAMES
from cluedo_env.core.config import DEALS
from cluedo_env.core.movement import reach
from cluedo_env.core.rng import GOLDEN, M1, M2
from cluedo_env.core.state import ENVELOPE, FACE_DOWN, NOBODY, Phase

__all__ = ["START_PLAYERS", "deal", "draw", "legal", "play"]

# Draw counters: the cards' keys use 0..C-1, the starting rolls the next ones (up to C + 191), the fresh
# keys of deal="uniform" SHUFFLE_DRAWS..SHUFFLE_DRAWS + C - 1 (C <= 127), turn dice count up from DICE_DRAWS.
SHUFFLE_DRAWS = 384
DICE_DRAWS = 1024
DEAL_UNIFORM = 1  # GameConfig.deal "uniform", by its index in config.DEALS (Rules' number "deal")
# (np.int64, not int: numba would compile _highest_rolls once for each literal int it is given)
START_ROLLS = np.int64(2)  # rounds of starting rolls that nearly always settle who starts
START_ROLL_ROUNDS = np.int64(16)  # rounds drawn when those leave a tie
START_PLAYERS = ("dice", "scarlet", "random")  # GameConfig.start_player, by its code here
START_DICE, START_SCARLET, START_RANDOM = range(3)
MAX_KEY = np.uint64(2**64 - 1)
KIND_ROLL, KIND_PASSAGE, KIND_STAY, KIND_NO_MOVE, KIND_ENTER, KIND_TOWARD, KIND_SQUARE = range(7)
KIND_SUGGEST, KIND_NO_SUGGESTION, KIND_SHOW, KIND_ACCUSE, KIND_END_TURN = range(7, 12)
assert RANGE_NAMES[KIND_END_TURN] == "end_turn" and RANGE_NAMES[KIND_SQUARE] == "square"
assert DEALS[DEAL_UNIFORM] == "uniform"
TURN, MOVE, SUGGEST, REFUTE, ACCUSE, OVER = (
    Phase.TURN, Phase.MOVE, Phase.SUGGEST, Phase.REFUTE, Phase.ACCUSE, Phase.OVER
)  # fmt: skip

# --- randomness (core/rng.py, one draw at a time) ---------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def draw(key, counter):
    """``rng.draw`` of one game: the ``uint64`` draw number ``counter`` of the game's ``key``."""
    return _mix(np.uint64(key) + (np.uint64(counter) + np.uint64(1)) * GOLDEN)


@njit(cache=True, nogil=True, inline="always")
def _face(drawn):
    return np.int64(drawn % np.uint64(6)) + 1


# --- events -----------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _event(events, num_events, i, kind, player, a=-1, b=-1, c=-1, d=-1, card=-1):
    """Add an event to game ``i``'s events of this step (see ``core/events.py``). (It takes the two
    arrays rather than the whole state: a compiled call copies every array it is handed.)"""
    row = events[i, num_events[i]]
    row[ev.KIND], row[ev.PLAYER], row[ev.CARD] = kind, player, card
    row[ev.A], row[ev.B], row[ev.C], row[ev.D] = a, b, c, d
    num_events[i] += 1


# --- the deal ----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def deal(g, t, i, seed):
    """Game ``i`` becomes the game of ``seed``: the envelope, the hands, the first player."""
    C, P = t.C, t.P
    key = _mix(np.uint64(seed) * GOLDEN + GOLDEN)
    # Every card gets a random key: in each category the largest goes into the envelope (the
    # first of equal keys), the others are dealt in ascending order of their keys ("keys"), or of
    # fresh keys ("uniform": the envelope's keys leave the other keys of a category smaller, those
    # of the small categories most, so "keys" deals suspects and weapons earlier than rooms).
    card_key = np.empty(C, dtype=np.uint64)
    for card in range(C):
        card_key[card] = draw(key, card)
    first_card = (0, t.S, t.S + t.W, C)
    for category in range(3):
        best = first_card[category]
        for card in range(first_card[category], first_card[category + 1]):
            if card_key[card] > card_key[best]:
                best = card
        g.envelope[i, category] = best
    if t.deal == DEAL_UNIFORM:
        for card in range(C):
            card_key[card] = draw(key, SHUFFLE_DRAWS + card)
    for category in range(3):
        card_key[g.envelope[i, category]] = MAX_KEY  # last, never dealt
    order = _card_order(card_key)
    g.owner[i, :] = ENVELOPE
    g.face_down[i, :] = -1
    for k in range(t.num_face_down):  # the duel: cards face down on the corner rooms
        g.face_down[i, t.corner_rooms[k]] = order[k]
        g.owner[i, order[k]] = FACE_DOWN
    g.num_events[i] = 0
    g.events[i] = -1
    for k in range(C - 3 - t.num_face_down):  # dealt round the table from player 0
        card, player = order[t.num_face_down + k], k % P
        g.owner[i, card] = player
        _event(g.events, g.num_events, i, ev.DEAL, player, card=card)
    first = _first_player(t, key)
    _event(g.events, g.num_events, i, ev.START, first, first)
    _event(g.events, g.num_events, i, ev.TURN, first, 0)

    g.seed[i] = seed
    g.key[i] = key
    g.draws[i] = DICE_DRAWS
    g.phase[i] = TURN
    g.turn_player[i] = first
    g.current_player[i] = first
    g.turn[i] = 0
    for s in range(t.S):  # (element by element: an array's assignment compiles its shape check's
        g.location[i, s] = t.pawn_start[s]  # message, about 2 s of a first run)
    for w in range(t.W):
        g.weapon_room[i, w] = t.weapon_start[w]
    g.dice[i] = -1
    g.suggestion[i] = -1
    g.may_suggest[i] = False
    g.summoned[i] = False
    g.eliminated[i] = False
    g.reachable[i] = False
    g.enterable[i] = False
    g.terminated[i] = False
    g.truncated[i] = False
    g.winner[i] = NOBODY
    g.rewards[i] = 0.0
    g.passed[i] = False
    g.showed[i] = 0
    g.accused[i] = False
    g.shown_to[i] = -1
    g.peeked[i] = False


@njit(cache=True, nogil=True)
def _card_order(card_key):
    """The cards in ascending order of their keys, equal keys in card order (``np.argsort`` with
    ``kind="mergesort"``, written as an insertion sort of the few cards: numba's sort compiles in
    about a second and a half of a first run)."""
    order = np.empty(len(card_key), dtype=np.int64)
    for card in range(len(card_key)):
        k = card
        while k > 0 and card_key[order[k - 1]] > card_key[card]:
            order[k] = order[k - 1]
            k -= 1
        order[k] = card
    return order


@njit(cache=True, nogil=True)
def _first_player(t, key):
    """Who starts: player 0 (``"scarlet"``), a random player, or the highest roll (``"dice"``)."""
    P, C = t.P, t.C
    if t.start_player == START_SCARLET:
        return 0
    if t.start_player == START_RANDOM:
        return np.int64(draw(key, C) % np.uint64(P))
    # Highest roll starts; the tied players roll again. Round r, player p, die d uses counter
    # C + 2P r + 2p + d. The winner is the player whose sequence of rolls is largest (the
    # lowest-numbered of equals): two rounds nearly always settle it, sixteen otherwise.
    first, tied = _highest_rolls(t, key, START_ROLLS)
    if tied:
        first, tied = _highest_rolls(t, key, START_ROLL_ROUNDS)
    return first


@njit(cache=True, nogil=True)
def _highest_rolls(t, key, rounds):
    """The player with the largest sequence of ``rounds`` rolls, and whether another equals it."""
    P = t.P
    best, best_value, tied = 0, np.uint64(0), False
    for p in range(P):
        value = np.uint64(0)  # the rolls (faces less one, summed), 4 bits a round, first highest
        for r in range(rounds):
            roll = np.uint64(0)
            for d in range(t.dice):
                roll += draw(key, t.C + 2 * P * r + 2 * p + d) % np.uint64(6)
            value = value * np.uint64(16) + roll
        if p == 0 or value > best_value:
            best, best_value, tied = p, value, False
        elif value == best_value:
            tied = True
    return best, tied


# --- a turn ------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def roll(g, t, i):
    """The turn player rolls the dice; the squares and rooms its pawn can reach are worked out."""
    player = g.turn_player[i]
    first = _face(draw(g.key[i], g.draws[i]))
    second = _face(draw(g.key[i], g.draws[i] + 1)) if t.dice == 2 else -1
    g.draws[i] += t.dice
    g.dice[i, 0], g.dice[i, 1] = first, second
    total = first + max(second, 0)
    _event(g.events, g.num_events, i, ev.ROLL, player, first, second, total)
    if t.classic:
        pawns = g.location[i]
        reach(
            t.stop_within, t.enter_within, t.distance_from, t.corridor, t.room_doors, t.square_row,
            t.square_col, t.door_room, t.door_square, pawns[player], total, pawns, g.reachable[i],
            g.enterable[i],
        )  # fmt: skip
    g.phase[i] = MOVE


@njit(cache=True, nogil=True, inline="always")
def move(g, t, i, kind, arg):
    """The turn player's own move: a passage, staying, entering a room, a square, or blocked.

    A move that ends in a room (by the passage, staying, entering) lets the player suggest there;
    the others go on to the accusation. In the duel, arriving in a corner room, the player looks
    at the card lying face down there (not on picking, with no board, the room it is in: staying).
    """
    player = g.turn_player[i]
    here = g.location[i, player]
    to = here
    if kind == KIND_PASSAGE:
        to = t.passage_to[here]
    elif kind == KIND_ENTER:
        to = arg
    elif kind == KIND_SQUARE:
        to = t.R + arg
    elif kind == KIND_TOWARD:  # the reachable square with the fewest moves into the room, lowest first
        best, fewest = 0, 256
        for square in range(t.N):
            moves = t.distance_by_room[arg, square] if g.reachable[i, square] else 255
            if moves < fewest:
                best, fewest = square, moves
        to = t.R + best
    g.location[i, player] = to
    _event(g.events, g.num_events, i, ev.MOVE, player, player, here, to, t.move_how[kind])
    phase = t.move_phase[kind]
    if to >= t.R and phase == SUGGEST:  # (an unchecked passage or stay from a square)
        phase = ACCUSE
    g.phase[i] = phase
    if phase == SUGGEST:
        g.may_suggest[i] = True
    # (picking the room it is in, board="none", is staying there: no new look)
    if t.duel and (kind == KIND_PASSAGE or kind == KIND_ENTER) and to < t.R and to != here:  # noqa: SIM109
        _peek(g, i, player, to)


@njit(cache=True, nogil=True, inline="always")
def _peek(g, i, player, room):
    """Duel: ``player`` arrives in ``room`` and looks at the card lying face down there, if any."""
    card = g.face_down[i, room]
    if card >= 0:
        _event(g.events, g.num_events, i, ev.PEEK, player, room, card=card)
        g.peeked[i, player, card] = True


@njit(cache=True, nogil=True, inline="always")
def suggest(g, t, i, arg):
    """The turn player names a suspect and a weapon in its room; both are moved there, and the
    players are asked clockwise: the first holding a named card refutes, those before pass."""
    P = t.P
    suggester = g.turn_player[i]
    room = g.location[i, suggester]
    suspect, weapon_card, room_card = t.suggest_cards[arg, 0], t.suggest_cards[arg, 1], t.S + t.W + room
    g.suggestion[i, 0], g.suggestion[i, 1], g.suggestion[i, 2] = suspect, weapon_card, room_card
    _event(g.events, g.num_events, i, ev.SUGGEST, suggester, suspect, weapon_card, room_card)

    pawn_from = g.location[i, suspect]
    if pawn_from != room:  # the named suspect's pawn is brought into the room
        g.location[i, suspect] = room
        _event(g.events, g.num_events, i, ev.MOVE, suggester, suspect, pawn_from, room, ev.MOVE_SUMMONED)
        if suspect < P:  # a player's pawn: it may suggest there on its next turn
            g.summoned[i, suspect] = True
            if t.duel:
                _peek(g, i, suspect, room)
    weapon = weapon_card - t.S
    weapon_from = g.weapon_room[i, weapon]
    if weapon_from != room:
        g.weapon_room[i, weapon] = room
        _event(g.events, g.num_events, i, ev.WEAPON, suggester, weapon, weapon_from, room)

    for k in range(1, P):
        asked = (suggester + k) % P
        held = 0
        for c in range(3):
            held += g.owner[i, g.suggestion[i, c]] == asked
        if held:
            g.current_player[i] = asked
            g.phase[i] = REFUTE
            if t.auto_refute and held == 1:  # only one card to show: shown without a decision
                for c in range(3):
                    if g.owner[i, g.suggestion[i, c]] == asked:
                        show(g, t, i, g.suggestion[i, c])
            return
        for c in range(3):
            g.passed[i, asked, g.suggestion[i, c]] = True
        _event(g.events, g.num_events, i, ev.PASS, asked, suggester)
    _event(g.events, g.num_events, i, ev.NO_REFUTE, suggester)
    g.phase[i] = ACCUSE


@njit(cache=True, nogil=True, inline="always")
def show(g, t, i, card):
    """The refuter shows ``card`` to the suggester (the others see that a card was shown)."""
    refuter, suggester = g.current_player[i], g.turn_player[i]
    _event(g.events, g.num_events, i, ev.SHOW, refuter, suggester, card=card)
    for c in range(3):
        named = g.suggestion[i, c]
        g.showed[i, refuter, named] = min(g.showed[i, refuter, named], 254) + 1
    g.shown_to[i, suggester, card] = refuter
    g.current_player[i] = suggester
    g.phase[i] = ACCUSE


@njit(cache=True, nogil=True, inline="always")
def accuse(g, t, i, arg):
    """The turn player names three cards: right wins the game; wrong puts the player out of
    moving, suggesting and accusing (it still refutes), and the game ends if everyone is out."""
    accuser = g.turn_player[i]
    right = True
    for c in range(3):
        right &= t.accuse_cards[arg, c] == g.envelope[i, c]
    cards = t.accuse_cards[arg]
    _event(g.events, g.num_events, i, ev.ACCUSE, accuser, cards[0], cards[1], cards[2], 1 if right else 0)
    if right:
        g.winner[i] = accuser
        g.rewards[i] = -1.0
        g.rewards[i, accuser] = 1.0
        _game_over(g, i, accuser, ev.END_WIN, True)
        return
    g.eliminated[i, accuser] = True
    for c in range(3):
        g.accused[i, accuser, t.accuse_cards[arg, c]] = True
    if g.eliminated[i].all():
        g.rewards[i] = -1.0
        _game_over(g, i, NOBODY, ev.END_ALL_WRONG, True)
        return
    next_turn(g, t, i)


@njit(cache=True, nogil=True, inline="always")
def next_turn(g, t, i):
    """The turn passes clockwise to the next player still in (eliminated players only refute);
    a game reaching ``max_turns`` turns is truncated instead."""
    player = g.turn_player[i]
    g.summoned[i, player] = False
    g.may_suggest[i] = False
    g.dice[i] = -1
    g.suggestion[i] = -1
    g.turn[i] += 1
    if g.turn[i] >= t.max_turns:
        _game_over(g, i, NOBODY, ev.END_TRUNCATED, False)
        return
    nxt = player
    for k in range(1, t.P + 1):  # (the player itself when all the others are out)
        nxt = (player + k) % t.P
        if not g.eliminated[i, nxt]:
            break
    g.turn_player[i] = nxt
    g.current_player[i] = nxt
    g.phase[i] = TURN
    _event(g.events, g.num_events, i, ev.TURN, nxt, g.turn[i])


@njit(cache=True, nogil=True, inline="always")
def _game_over(g, i, winner, reason, terminated):
    g.terminated[i] = terminated
    g.truncated[i] = not terminated
    g.phase[i] = OVER
    g.current_player[i] = NOBODY
    _event(
        g.events,
        g.num_events,
        i,
        ev.GAME_OVER,
        winner,
        g.envelope[i, 0],
        g.envelope[i, 1],
        g.envelope[i, 2],
        reason,
    )


@njit(cache=True, nogil=True, inline="always")
def play(g, t, i, action):
    """Game ``i`` plays ``action`` (checked by ``batched.step_games``): a roll, a move, a suggestion, the
    choice not to suggest, a card shown, an accusation, or the end of the turn."""
    kind, arg = t.action_kind[action], t.action_arg[action]
    if kind == KIND_ROLL:
        roll(g, t, i)
    elif kind <= KIND_SQUARE:
        move(g, t, i, kind, arg)
    elif kind == KIND_SUGGEST:
        suggest(g, t, i, arg)
    elif kind == KIND_NO_SUGGESTION:
        g.phase[i] = ACCUSE
    elif kind == KIND_SHOW:
        show(g, t, i, arg)
    elif kind == KIND_ACCUSE:
        accuse(g, t, i, arg)
    else:  # end the turn
        next_turn(g, t, i)


@njit(cache=True, nogil=True, inline="always")
def legal(g, t, i, mask):
    """Write game ``i``'s legal actions into ``mask`` (``bool[A]``); none once the game is over."""
    phase = g.phase[i]
    player = g.turn_player[i]
    location = g.location[i, player]
    in_room = location < t.R
    may_accuse = 1 if in_room or t.accuse_anywhere else 0
    _copy(mask, t.mask_rows[2 * phase + may_accuse], 0)
    if phase == TURN and t.classic and in_room:
        mask[t.PASSAGE] = t.passages[location] >= 0
        mask[t.STAY] = t.stay_in_room != 0 or g.summoned[i, player]
    elif phase == MOVE:
        any_room = False
        for r in range(t.R):
            mask[t.ENTER + r] = g.enterable[i, r]
            any_room |= g.enterable[i, r]
        reachable = g.reachable[i]
        any_square = False
        for square in range(t.N):
            any_square |= reachable[square]
        if t.compact:
            if any_square:
                for r in range(t.R):
                    mask[t.TOWARD + r] = not g.enterable[i, r] and not (in_room and r == location)
        else:
            _copy(mask, reachable, t.SQUARE)
        mask[t.NO_MOVE] = not any_square and not any_room
    elif phase == REFUTE:
        for c in range(3):
            card = g.suggestion[i, c]
            mask[t.SHOW + card] = g.owner[i, card] == g.current_player[i]


@njit(cache=True, nogil=True, inline="always")
def _copy(to, source, start):
    """``to[start : start + len(source)] = source`` as a plain loop: numba's slice assignment of
    one array to another takes a general path that costs about 15 times more for a row of a few
    hundred entries (a mask row), which would be most of a step."""
    for k in range(len(source)):
        to[start + k] = source[k]
