"""Walking toward the most valuable room: the movement decision shared by the reasoning agents.

An agent values every room (what a suggestion there is worth to it) and this
module turns the values into one legal movement action: enter a room, stay,
take a secret passage, roll, head toward a room or step to a square. A room
``d`` moves away is worth its value times ``(1 - move_discount) ** d``, which
is the trade-off between what a room offers and the walking it costs (on the
classic board two dice carry a pawn about seven moves a turn).
"""

from __future__ import annotations

import numpy as np

from cluedo_env.core.game import Rules

__all__ = ["move_toward"]


def move_toward(
    rules: Rules,
    board: str,
    here: int,
    legal: np.ndarray,
    room_value: np.ndarray,
    move_discount: float,
    rng: np.random.Generator,
) -> int:
    """The legal movement action of highest discounted room value (ties at random).

    Args:
        rules: The game's rule tables (``core.rules_for(config)``).
        board: ``"classic"`` or ``"none"`` (``GameConfig.board``).
        here: The player's location (rooms first, then squares).
        legal: ``bool[A]``, the legal actions now.
        room_value: ``float[R]``, what being in each room is worth.
        move_discount: Fraction of a room's value lost per move needed to get there.
        rng: Tie-breaking.

    Returns:
        An action; a random legal non-accusation when no valued action is legal.
    """
    lay, R = rules.layout, rules.R
    options: dict[int, float] = {}
    if board == "none":
        for r in range(R):
            options[lay.encode("enter", r)] = room_value[r]
    else:
        distance = rules.location_room_distance[here]  # moves into each room
        discount = (1.0 - move_discount) ** distance
        for r in np.flatnonzero(legal[lay.ENTER : lay.ENTER + R]):
            options[lay.ENTER + int(r)] = room_value[r]
        if legal[lay.STAY]:
            options[lay.STAY] = room_value[here]
        if legal[lay.PASSAGE]:
            options[lay.PASSAGE] = room_value[rules.passages[here]]
        if legal[lay.ROLL]:
            options[lay.ROLL] = float((room_value * discount).max())
        if lay.sizes["toward"]:
            for r in np.flatnonzero(legal[lay.TOWARD : lay.TOWARD + R]):
                options[lay.TOWARD + int(r)] = room_value[r] * discount[r] * 0.999
        elif lay.sizes["square"]:
            squares = np.flatnonzero(legal[lay.SQUARE : lay.SQUARE + rules.N])
            if len(squares):
                to_rooms = rules.location_room_distance[R + squares]  # [k, R]
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
