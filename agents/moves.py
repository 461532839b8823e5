"""Walking toward the most valuable room: the movement decision shared by the reasoning agents.

An agent values every room (what a suggestion there is worth to it) and this
module turns the values into one legal movement action: enter a room, stay,
take a secret passage, roll, head toward a room or step to a square. A room
``d`` moves away is worth its value times ``(1 - move_discount) ** d``, which
is the trade-off between what a room offers and the walking it costs (on the
classic board two dice carry a pawn about seven moves a turn).

The moves are counted around the pawns that stand still (``agents.routes``;
in the duel only): where one is in some way, a move toward a room is valued by
where it ends, and a passage by the rooms beyond the corner it leads to.

A roll at the start of a turn is worth the best room it leads to. By default
the room the pawn stands in counts among them, at what staying there is worth,
though a roll never comes back into the room it leaves: where that room is the
one it values most, rolling ties with staying and the pawn rolls away half the
time (ties are broken at random). ``stay_in_best_room=True`` values a roll by
the other rooms only, so the pawn stays. The default is kept because every
published figure of the SAT and belief agents was measured with it, and replays
so.
"""

from __future__ import annotations

import numpy as np

from agents.routes import Routes
from cluedo_env import core

__all__ = ["choose_move"]


def choose_move(
    state: core.State,
    game: int,
    seat: int,
    legal: np.ndarray,
    room_value: np.ndarray,
    stay_value: np.ndarray,
    move_discount: float,
    routes: Routes | None,
    rng: np.random.Generator,
    stay_in_best_room: bool = False,
) -> int:
    """The legal movement action of highest discounted room value (ties at random).

    Args:
        state: The batch's state (the board's public fields are read).
        game: The game of the batch.
        seat: The mover.
        legal: ``bool[A]``, the legal actions now.
        room_value: ``float[R]``, what arriving in each room is worth.
        stay_value: ``float[R]``, what staying in each room is worth (differs from arriving
            where arriving does something more, such as looking at a face-down card).
        move_discount: Fraction of a room's value lost per move needed to get there.
        routes: ``Routes`` of the classic board; None on ``board="none"``.
        rng: Tie-breaking.
        stay_in_best_room: Value a roll by the rooms it can reach, leaving out the room the pawn
            stands in, so it stays where that room is worth most. False (as the published figures
            were measured): that room counts for the roll at what staying is worth, so where it is
            worth most a roll ties with staying and is chosen half the time.

    Returns:
        An action; a random legal non-accusation when no valued action is legal.
    """
    config = state.config
    rules = core.rules_for(config)
    lay, R = rules.layout, rules.R
    here = int(state.location[game, seat])
    # A roll never re-enters the room it leaves. By default that room still counts for it, at what
    # staying is worth (the published figures' behaviour: a tie with staying where it is the best);
    # with stay_in_best_room it does not.
    roll_value = room_value.copy()
    if here < R:
        roll_value[here] = stay_value[here]

    def square_value(into: np.ndarray) -> float:  # the best room from a location
        return float((room_value * (1.0 - move_discount) ** into).max())

    options: dict[int, float] = {}
    if config.board == "none":
        for r in range(R):
            options[lay.encode("enter", r)] = room_value[r]
    else:
        # Moves from each location into each room, around the pawns that stand still.
        into, lengthened = routes.around(routes.standing(state, game, seat))
        discount = (1.0 - move_discount) ** into[here]
        for r in np.flatnonzero(legal[lay.ENTER : lay.ENTER + R]):
            options[lay.ENTER + int(r)] = room_value[r]
        if legal[lay.STAY]:
            options[lay.STAY] = stay_value[here]
        if legal[lay.PASSAGE]:
            there = int(rules.passages[here])
            # Past standing pawns the far corner may also be the way on: value the rooms from there.
            options[lay.PASSAGE] = square_value(into[there]) if lengthened else room_value[there]
        if legal[lay.ROLL]:
            reach = roll_value * discount
            if stay_in_best_room and here < R:
                reach[here] = -np.inf  # the rooms a roll can reach: not the one it leaves
            options[lay.ROLL] = float(reach.max())
        if lay.sizes["toward"]:
            for r in np.flatnonzero(legal[lay.TOWARD : lay.TOWARD + R]):
                if lengthened:  # a standing pawn is in some way: value where the move ends
                    stop = routes.toward_stop(state, game, int(r))
                    options[lay.TOWARD + int(r)] = square_value(into[R + stop]) * 0.999
                else:
                    options[lay.TOWARD + int(r)] = room_value[r] * discount[r] * 0.999
        elif lay.sizes["square"]:
            squares = np.flatnonzero(legal[lay.SQUARE : lay.SQUARE + rules.N])
            if len(squares):
                to_rooms = into[R + squares]  # [k, R]
                value = (room_value[None, :] * (1.0 - move_discount) ** to_rooms).max(axis=1) * 0.999
                best = int(np.argmax(value))
                options[lay.SQUARE + int(squares[best])] = float(value[best])
    options = {a: v for a, v in options.items() if legal[a]}
    if not options:  # nothing valued is legal: a random legal non-accusation
        legal_now = (
            np.flatnonzero(legal[: lay.ACCUSE]) if legal[: lay.ACCUSE].any() else np.flatnonzero(legal)
        )
        return int(rng.choice(legal_now))
    best_value = max(options.values())
    best = [a for a, v in options.items() if v >= best_value - 1e-12]
    return int(best[rng.integers(len(best))])
