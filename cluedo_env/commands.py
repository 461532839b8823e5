"""Actions as words: canonical commands, the legal ones listed, and replies parsed back to actions.

Every action id of ``core.ActionLayout`` has one canonical command, in English
words and the card names of the game's edition:

=================  ===================================================
range              command
=================  ===================================================
``roll``           ``roll``
``passage``        ``take the passage``
``stay``           ``stay in the room``
``no_move``        ``stay put``
``enter``          ``enter the Kitchen``
``toward``         ``head toward the Hall``
``square``         ``move to square 7,16`` (row, column)
``suggest``        ``suggest Colonel Mustard with the Rope``
``no_suggestion``  ``make no suggestion``
``show``           ``show the Rope`` / ``show Colonel Mustard``
``accuse``         ``accuse Professor Plum with the Rope in the Hall``
``end_turn``       ``end turn``
=================  ===================================================

``parse_command`` reads a free-text reply against the legal actions of the
decision. It is tolerant where a reader would be: case, punctuation (that of other scripts read as ASCII: "？", "。",
"，", the Greek and Arabic question marks: ``reply_words.fold_punctuation``), articles (but
the word of a custom edition's card name made of articles alone, a room "Den" or "The Den":
``reply_words.kept_articles``; a card named by "a", "an" or "the" alone, or two cards that read the same
without their articles, cannot be named, and their edition is refused: ``reply_words.card_names``), accents
(``Veranda`` is ``Véranda``, ``Weiss`` is ``Weiß``), a card's unique short name (``Mustard``, ``Plum``,
``Pipe``), UK Cluedo's and later US Clue's spellings of the classic names (``Miss Scarlett``, ``Spanner``,
``Lead Piping``, ``Knife``, ``Billiards Room``:
``reply_words.SPELLINGS``), a title that is not the card's (``Miss Peacock``), synonyms of the verbs
("go to", "head towards", "pass", "don't suggest"), and a reply that reasons
first and ends with a line ``Final answer: <command>`` (only that line is
read; a ``<think>...</think>`` block is dropped). It is strict about meaning: a reply that could mean two legal actions,
asks for two, names two suspects, or asks for an illegal one raises ``CommandError`` saying why and
listing what is legal now. An accusation put as a request in its own part of a sentence, from the "and" or
"then" after another command to the one before the next ("go to the Kitchen and accuse Plum with the Rope
in the Hall", "Suggest Plum with the Rope and then accuse Plum with the Rope in the Kitchen"), asks for
two, whether or not the rest of the reply hedges it and wherever its cards sit; one only mentioned ("Suggest ... before accusing",
"I'll hold off on the accusation and ...", "... and accuse ... if nobody refutes") leaves the other
command's reading and its own refusals. A negation ("don't", "not", "no", ...) reaches the three
words before a verb in its own clause ("No, roll." rolls; "why not" is none). An accusation, which
puts the player out when wrong, is made only when asked plainly: its clause opens plainly ("accuse
Plum with the Rope in the Hall", "so I accuse ...", "I'd like to accuse ...": ``reply_words.ACCUSE_OPENINGS``)
and holds nothing but the cards (and joining words and titles), outside a question, with no hedge, condition or negation before it in its
sentence, in the reply's other sentences, nor after its ``Final answer:`` line, in a reply that does not end by
asking back ("... in the Hall... right?", "... How does that sound?": ``reply_words.asks_back``); a reply that names one
otherwise ("I could accuse ...", "If I'm right, I accuse ...", "Accusing ... is a mistake") is refused,
saying how to accuse, and one that declines it ("I won't accuse yet") ends the turn. A question asks
for nothing ("Roll? No."; "why not roll?" proposes). For the other verbs the last mention counts, and a verb only
declined ("Don't roll", "Not the Ballroom") is refused, as nothing says what to do instead. Nothing is guessed: every canonical command
of a legal action parses back to that action (tested for every phase, player
count and edition).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from cluedo_env import reply_words
from cluedo_env.core.actions import ActionLayout
from cluedo_env.core.board import classic_board
from cluedo_env.core.config import CONFIGS_KEPT, GameConfig

__all__ = [
    "CommandError",
    "command",
    "final_answer_complete",
    "legal_actions",
    "legal_commands_text",
    "parse_command",
]

# "Final answer:" with its separator (":", "-", "=", markup around it); prose such as "my final answer depends"
# or "before my final answer, ..." is no marker.
FINAL_ANSWER = re.compile(r"final\s+answer\s*\**\s*[:\-=]+\**", re.IGNORECASE)
THINKING = re.compile(r"<think>.*?(</think>|$)", re.IGNORECASE | re.DOTALL)
COORDINATES = re.compile(r"(\d{1,2})\s*[, ]\s*(\d{1,2})")


class CommandError(ValueError):
    """A reply that is not one legal action: ``reason`` says why, the message also lists what is legal.

    Attributes:
        reason: Why the reply was refused (one sentence).
        reply: The reply as given.
    """

    def __init__(self, reason: str, reply: str, legal_text: str) -> None:
        super().__init__(f"{reason}. Legal commands now:\n{legal_text}")
        self.reason = reason
        self.reply = reply


def _card(config: GameConfig, card: int, article: bool = True) -> str:
    """A card's name, with "the" before weapons and rooms."""
    name = config.cards.cards[card]
    return f"the {name}" if article and card >= config.cards.num_suspects else name


def command(config: GameConfig, action: int) -> str:
    """The canonical command of an action id (see the module docstring)."""
    layout = _layout(config)
    kind, args = layout.decode(int(action))
    e = config.cards
    S, W = e.num_suspects, e.num_weapons
    if kind == "enter":
        return f"enter {_card(config, S + W + args[0])}"
    if kind == "toward":
        return f"head toward {_card(config, S + W + args[0])}"
    if kind == "square":
        row, col = classic_board().squares[args[0]]
        return f"move to square {row},{col}"
    if kind == "suggest":
        return f"suggest {e.suspects[args[0]]} with the {e.weapons[args[1]]}"
    if kind == "show":
        return f"show {_card(config, args[0])}"
    if kind == "accuse":
        s, w, r = args
        return f"accuse {e.suspects[s]} with the {e.weapons[w]} in the {e.rooms[r]}"
    return SIMPLE_COMMANDS[kind]


SIMPLE_COMMANDS = {
    "roll": "roll",
    "passage": "take the passage",
    "stay": "stay in the room",
    "no_move": "stay put",
    "no_suggestion": "make no suggestion",
    "end_turn": "end turn",
}


@lru_cache(maxsize=CONFIGS_KEPT)
def _layout(config: GameConfig) -> ActionLayout:
    return ActionLayout(config)


@lru_cache(maxsize=CONFIGS_KEPT)
def _canonical(config: GameConfig) -> dict[tuple[str, ...], int]:
    """Every action by the words of its canonical command."""
    actions = range(_layout(config).num_actions)
    return {tuple(reply_words.normalise(command(config, a), config)): a for a in actions}


def legal_actions(mask: np.ndarray | Sequence[int]) -> list[int]:
    """Action ids from a boolean mask row, or a sequence of ids as they are."""
    array = np.asarray(mask)
    if array.dtype == bool or (array.ndim == 1 and array.dtype == np.int8):
        return np.flatnonzero(array).tolist()
    return [int(a) for a in array]


def legal_commands_text(config: GameConfig, mask: np.ndarray | Sequence[int]) -> str:
    """The legal commands, one per line ("- roll"); full sets of suggestions or accusations as one form.

    When every suggestion (or every accusation) is legal, as in the game, the
    line is a form with the names to fill in, not 36 (or 324) lines.
    """
    layout = _layout(config)
    e = config.cards
    actions = legal_actions(mask)
    kinds = [layout.decode(a)[0] for a in actions]
    forms = []
    for form in ("suggest", "accuse"):
        members = {a for a, k in zip(legal_actions(mask), kinds) if k == form}
        if members and len(members) == layout.sizes[form]:
            where = " in the <room>" if form == "accuse" else ""
            forms.append(
                f"- {form} <suspect> with the <weapon>{where}"
                f"\n    suspects: {', '.join(e.suspects)}\n    weapons: {', '.join(e.weapons)}"
                + (f"\n    rooms: {', '.join(e.rooms)}" if form == "accuse" else "")
            )
            actions = [a for a in actions if a not in members]
    lines = [f"- {command(config, a)}" for a in actions] + forms
    return "\n".join(lines) if lines else "(none: it is not your decision)"


def _read(reply: str) -> str:
    """A reply as it is read: a reasoning model's ``<think>...</think>`` block dropped, and the punctuation
    of other scripts in ASCII (``reply_words.fold_punctuation``: "Final answer：" is "Final answer: ")."""
    return reply_words.fold_punctuation(THINKING.sub(" ", reply))


def final_answer(reply: str) -> str:
    """What follows the last ``Final answer:`` of a reply (on its line, or the next one), else the whole reply.

    A reasoning model's ``<think>...</think>`` block is dropped first, and the punctuation of other scripts
    read as ASCII (``_read``).
    """
    reply = _read(reply)
    matches = list(FINAL_ANSWER.finditer(reply))
    if not matches:
        return reply
    for line in reply[matches[-1].end() :].splitlines():
        if line.strip(" \t\r*`'\""):
            return line
    return ""


def _after_answer(reply: str) -> str:
    """What follows the line ``final_answer`` reads (nothing where the reply has no ``Final answer:``)."""
    reply = _read(reply)
    matches = list(FINAL_ANSWER.finditer(reply))
    if not matches:
        return ""
    lines = reply[matches[-1].end() :].splitlines()
    read = next((k for k, line in enumerate(lines) if line.strip(" \t\r*`'\"")), len(lines))
    return "\n".join(lines[read + 1 :])


def final_answer_complete(reply: str) -> bool:
    """Whether a reply that was cut off (at a token limit) had written its final answer whole: a
    ``Final answer:`` whose line of answer ends before the cut, with a line break. A cut reply
    without one may end mid-thought ("Before my final answer: I could accuse ..., but")."""
    reply = _read(reply)
    matches = list(FINAL_ANSWER.finditer(reply))
    if not matches:
        return False
    *ended, _cut = reply[matches[-1].end() :].split("\n")
    return any(line.strip(" \t\r*`'\"") for line in ended)


def parse_command(
    config: GameConfig, reply: str, mask: np.ndarray | Sequence[int], room: int | None = None
) -> int:
    """The one legal action a free-text reply asks for.

    Args:
        config: The game's rules (its edition names the cards).
        reply: The reply, e.g. ``"I'll suggest Mustard with the rope.\\nFinal answer: suggest Mustard with the Rope"``.
        mask: The legal actions: a boolean mask row, or action ids.
        room: The room the player's pawn is in (a suggestion that names another room is refused).

    Returns:
        The action id.

    Raises:
        CommandError: the reply names no action, could mean more than one legal action,
            or asks for an illegal one; the message says which and lists the legal commands.
        ValueError: a card of the edition cannot be named in a reply (``reply_words.card_names``).
    """
    if not isinstance(reply, str):
        raise TypeError(f"reply must be a str, got {type(reply).__name__}")
    reply_words.card_names(config)  # an edition with a card no reply can name is refused, whatever the reply
    legal = legal_actions(mask)
    legal_set = set(legal)

    def refuse(reason: str) -> CommandError:
        return CommandError(reason, reply, legal_commands_text(config, legal))

    answer = text = final_answer(reply)
    words = reply_words.normalise(text, config)
    if not words:
        raise refuse("The reply is empty: answer with one of the commands")
    text = reply_words.without_questions(config, text)
    words = reply_words.normalise(text, config)
    if not words:
        raise refuse("The reply only asks whether to accuse or what to do: give one command")
    exact = _canonical(config).get(tuple(words))
    if exact is None:
        cards, rest = reply_words.find_cards(config, words)
        candidates = _candidates(config, rest, cards, text, room, refuse)
    elif exact in legal_set:  # exact canonical commands first (a card called like a verb cannot confuse them)
        candidates = [exact]
    else:
        raise refuse(f"'{command(config, exact)}' is not legal now")
    chosen = [a for a in candidates if a in legal_set]
    if len(chosen) == 1:
        accusing = _layout(config).decode(chosen[0])[0] == "accuse"
        after = _after_answer(reply)
        if accusing and (  # "Final answer: accuse ...\n(only if nobody holds the Rope)", "accuse ... right?"
            reply_words.weighs(after, config)
            or reply_words.asks_back(config, answer)
            or reply_words.asks_back(config, after)
        ):
            raise refuse(
                "To accuse, give the accusation alone, with nothing that weighs it: 'accuse <suspect> with the "
                "<weapon> in the <room>' (a wrong accusation puts you out of the game)"
            )
        return chosen[0]
    if len(chosen) > 1:
        options = " or ".join(f"'{command(config, a)}'" for a in chosen[:4])
        raise refuse(f"The reply {text.strip()!r} could mean {options}: say which")
    if candidates:
        asked = " or ".join(f"'{command(config, a)}'" for a in candidates[:3])
        raise refuse(f"{asked[0].upper()}{asked[1:]} is not legal now")
    raise refuse(f"The reply {text.strip()[:200]!r} is not a command")


def _by_kind(config: GameConfig, cards: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The card ids named, split by kind: the suspects, then the weapons and the rooms as indices among theirs."""
    S, W = config.cards.num_suspects, config.cards.num_weapons
    return (
        [c for c in cards if c < S],
        [c - S for c in cards if S <= c < S + W],
        [c - S - W for c in cards if c >= S + W],
    )


def _candidates(config: GameConfig, words: list[str], cards: list[int], text: str, room, refuse) -> list[int]:
    """Every action the reply's words could mean (legal or not)."""
    e = config.cards
    suspects, weapons, rooms = _by_kind(config, cards)
    verbs, declined, weighed, requested = reply_words.verbs(config, text)
    kinds_of_card = {"suspect": e.suspects, "weapon": e.weapons, "room": e.rooms}

    def only(values: list[int], what: str) -> int:
        if len(values) != 1:
            named = "none" if not values else f"{len(values)}"
            cards = f"; the {what}s: {', '.join(kinds_of_card[what])}" if what in kinds_of_card else ""
            raise refuse(f"Name exactly one {what} (the reply names {named}{cards})")
        return values[0]

    if "accuse" in verbs & declined:  # "I won't accuse yet: a wrong accusation puts me out"
        raise refuse("The reply both asks for and declines to accuse: give one command")
    if not verbs and not declined and weighed and cards:  # "Considering the evidence, I accuse ..."
        # A plain accusation with a name it does not know ("Professor Pear") lacks a kind of card; two of a
        # kind are reasons given after it ("... since Mustard showed me the Rope"), which weigh it.
        if not reply_words.weighs(text, config):
            for values, what in ((suspects, "suspect"), (weapons, "weapon"), (rooms, "room")):
                if not values:
                    only(values, what)
        raise refuse(
            "To accuse, give the accusation alone, with nothing that weighs it: 'accuse <suspect> with the "
            "<weapon> in the <room>' (a wrong accusation puts you out of the game)"
        )
    if not verbs:  # only declined ones: "no suggestion", "I won't accuse" (with another verb: dropped)
        if declined - {"suggest", "accuse"}:  # "Don't roll": nothing says what to do instead
            said = ", ".join(sorted(v.replace("_", " ") for v in declined))
            raise refuse(f"The reply only declines ({said}): give the command to play")
        if "accuse" in declined and cards:
            raise refuse(
                "The reply declines to accuse but names cards: give one command, 'end turn' or an accusation"
            )
        verbs = {{"suggest": "no_suggestion", "accuse": "end_turn"}[verb] for verb in declined}
    if not verbs and cards and reply_words.negates_a_card(config, text):  # "Not the Ballroom"
        raise refuse("The reply names cards with a negation: give one command")
    if "stay" in verbs and "put" in words:
        verbs = (verbs - {"stay"}) | {"no_move"}
    moving = [k for k, word in enumerate(words) if word in reply_words.MOVING]
    if moving and not verbs:
        if reply_words.negated(words, moving[0]):  # "Don't move to 0,9"
            raise refuse("The reply only declines (move): give the command to play")
        verbs = {"square"} if COORDINATES.search(text) else {"enter"}
    if "pass" in verbs and len(verbs) > 1:  # "pass: end my turn"
        verbs.discard("pass")

    def several(verbs: set[str]) -> CommandError:
        asked = ", ".join(sorted(v.replace("_", " ") for v in verbs))
        return refuse(f"The reply asks for several things ({asked}): give one command")

    if len(verbs) > 1 and verbs != {"enter", "toward"}:
        raise several(verbs)
    if verbs == {"enter", "toward"}:
        verbs = {"toward"}
    # An accusation put as a request beside another command ("go to the Kitchen and accuse Plum with the
    # Rope in the Hall", "Suggest ... and then accuse ..."), hedged or not, asks for several things wherever
    # its cards sit; one only mentioned ("Suggest ... before accusing") leaves the other verb's reading.
    if requested and verbs - {"accuse"}:
        raise several(verbs | {"accuse"})
    return _verb_candidates(config, verbs, cards, text, room, refuse, only, accusing="accuse" in weighed)


def _verb_candidates(config, verbs, cards, text, room, refuse, only, accusing=False) -> list[int]:
    """The actions ``verbs`` (or, with none, the bare ``cards``) could mean; ``accusing``: the reply also
    names an accusation (a square then takes no suspect or weapon)."""
    layout = _layout(config)
    e = config.cards
    suspects, weapons, rooms = _by_kind(config, cards)

    def no_cards(kind: str) -> None:
        if cards:
            raise refuse(
                f"'{kind.replace('_', ' ')}' takes no card, but the reply names {', '.join(e.cards[c] for c in cards)}"
            )

    candidates: list[int] = []
    kinds = verbs or {"cards"}
    for kind in kinds:
        if (
            kind == "passage"
            and (to := _passage_to(config, room)) >= 0
            and cards == [e.num_suspects + e.num_weapons + to]
        ):
            candidates.append(layout.encode(kind))  # "take the passage to the Study": its own destination
        elif kind in ("roll", "passage", "end_turn"):
            no_cards(kind)
            candidates.append(layout.encode(kind))
        elif kind == "pass":
            no_cards(kind)
            candidates += [layout.encode("no_suggestion"), layout.encode("end_turn")]
        elif kind == "no_suggestion":
            if suspects and weapons:
                raise refuse(
                    "The reply declines to suggest but names a suspect and a weapon: give one command, a "
                    "suggestion or 'make no suggestion'"
                )
            candidates.append(layout.encode("no_suggestion"))
        elif kind in ("stay", "no_move"):
            if kind == "stay" and rooms and room is not None and rooms != [room]:
                here = (
                    f"the {e.rooms[room]}"
                    if room is not None and 0 <= room < e.num_rooms
                    else "none: you are not in one"
                )
                raise refuse(f"You can only stay in the room you are in ({here})")
            candidates += [layout.encode("stay"), layout.encode("no_move")] if kind == "stay" else []
            candidates += [layout.encode("no_move")] if kind == "no_move" else []
        elif kind in ("enter", "toward"):
            if suspects or weapons:
                raise refuse(f"'{kind}' takes a room only")
            if layout.sizes[kind]:
                candidates.append(layout.encode(kind, only(rooms, "room")))
        elif kind == "square":
            if accusing and (suspects or weapons):  # "move to square 7,16 and accuse Plum with ..."
                raise refuse("'square' takes no suspect or weapon")
            candidates += _square(config, text, refuse)
        elif kind == "suggest":
            candidates.append(_suggestion(config, suspects, weapons, rooms, room, refuse, only))
        elif kind == "show":
            candidates.append(layout.encode("show", only(cards, "card to show")))
        elif kind == "accuse":
            s, w, r = only(suspects, "suspect"), only(weapons, "weapon"), only(rooms, "room")
            candidates.append(layout.encode("accuse", s, w, r))
        else:  # cards without a verb: what those cards can mean
            candidates += _by_cards(config, suspects, weapons, rooms, room)
            if not cards and COORDINATES.search(text) and layout.sizes["square"]:
                candidates += _square(config, text, refuse)
    return list(dict.fromkeys(candidates))


def _square(config: GameConfig, text: str, refuse) -> list[int]:
    layout = _layout(config)
    if not layout.sizes["square"]:
        raise refuse("Squares are not chosen in this game (movement='compact')")
    found = COORDINATES.findall(text)
    if len(found) != 1:
        raise refuse("Name exactly one square as row,column (e.g. 'move to square 7,16')")
    spot = (int(found[0][0]), int(found[0][1]))
    squares = classic_board().squares
    if spot not in squares:
        raise refuse(f"({spot[0]},{spot[1]}) is not a square of the board")
    return [layout.encode("square", squares.index(spot))]


def _suggestion(config, suspects, weapons, rooms, room, refuse, only) -> int:
    e = config.cards
    if rooms and (room is None or rooms != [room]):
        here = (
            f"you are in the {e.rooms[room]}" if room is not None and room < e.num_rooms else "name no room"
        )
        raise refuse(f"A suggestion is made in the room your pawn is in ({here})")
    return _layout(config).encode("suggest", only(suspects, "suspect"), only(weapons, "weapon"))


def _by_cards(config: GameConfig, suspects, weapons, rooms, room) -> list[int]:
    """Actions a bare list of cards can mean: a card to show, a room to go to, a suggestion."""
    layout = _layout(config)
    S, W = config.cards.num_suspects, config.cards.num_weapons
    cards = [*suspects, *(S + w for w in weapons), *(S + W + r for r in rooms)]
    out = []
    if len(cards) == 1:
        out.append(layout.encode("show", cards[0]))
    if len(rooms) == 1 and not suspects and not weapons:
        out += [layout.encode(k, rooms[0]) for k in ("enter", "toward") if layout.sizes[k]]
    if len(suspects) == 1 and len(weapons) == 1 and (not rooms or rooms == [room]):
        out.append(layout.encode("suggest", suspects[0], weapons[0]))
    return out  # never an accusation: one that costs the game must say "accuse"


def _passage_to(config: GameConfig, room: int | None) -> int:
    """The room the secret passage from ``room`` leads to (-1: none, no board, or no room given)."""
    if config.board != "classic" or room is None or not 0 <= room < config.cards.num_rooms:
        return -1
    return int(classic_board().passages[room])
