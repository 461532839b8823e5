"""How the words of a reply are read (``cluedo_env.commands.parse_command``'s reading): the card names
it uses (full names and unique short names), its sentences and clauses, the questions it asks, the
negations and hedges, and the verbs it asks for or declines.

The rules these follow are ``cluedo_env.commands``' (its docstring): a negation reaches the three words
before a verb in its clause; an accusation is asked only with the verb, outside a question and any
hedge, and any negation of its clause declines it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from cluedo_env.core.config import GameConfig

__all__ = [
    "NEGATIONS",
    "VERBS",
    "Names",
    "card_names",
    "find_cards",
    "negates_a_card",
    "normalise",
    "verbs",
    "without_accusation_questions",
]

# Words that are dropped from replies and card names alike before matching.
ARTICLES = frozenset(
    {"the", "a", "an", "le", "la", "les", "l", "de", "du", "des", "der", "die", "das", "den"}
)
# Titles are not short names: "Mrs" or "Colonel" alone does not name a suspect.
TITLES = frozenset(
    {
        "miss", "mrs", "mr", "ms", "colonel", "reverend", "professor", "dr", "doctor", "madame",
        "mademoiselle", "monsieur", "professeur", "lady", "oberst", "von",
        "kochin", "burgermeister", "anwaltin", "room", "salle",
    }
)  # fmt: skip
# Verb words of the reply (after normalisation) and the action kinds they ask for.
VERBS = {
    "roll": "roll",
    "rolls": "roll",
    "dice": "roll",
    "passage": "passage",
    "stay": "stay",
    "remain": "stay",
    "enter": "enter",
    "go": "enter",
    "goes": "enter",
    "head": "toward",
    "toward": "toward",
    "towards": "toward",
    "approach": "toward",
    "square": "square",
    "suggest": "suggest",
    "suggestion": "suggest",
    "show": "show",
    "reveal": "show",
    "refute": "show",
    "accuse": "accuse",
    "accusation": "accuse",
    "end": "end_turn",
    "pass": "pass",
    "done": "end_turn",
    "finish": "end_turn",
    # -ing forms, as in "end my turn without accusing"
    "rolling": "roll", "staying": "stay", "entering": "enter", "heading": "toward", "suggesting": "suggest",
    "showing": "show", "accusing": "accuse", "ending": "end_turn", "passing": "pass",
}  # fmt: skip
# Words that negate a verb just after them ("no suggestion", "don't accuse", "without accusing"):
# "t" is what is left of "n't" once the apostrophe is gone.
NEGATIONS = frozenset({"no", "not", "don", "dont", "t", "cannot", "without", "skip", "never"})
NEGATION_REACH = 3  # words before a verb that can negate it (in its clause)
# Words before "accuse" in its sentence that make it a thought, not a request ("I could accuse ...", "If I
# were sure I would accuse ...", "too risky to accuse ...", "I refuse to accuse ..."): a hedged accusation
# asks for nothing and declines nothing (a wrong accusation puts the player out).
# Its clause's words before it count ("Considering the evidence, I accuse ..." asks; "would like" is a
# request), and a condition anywhere after it in its sentence ("Accuse ..., if I were sure").
HEDGES = frozenset(
    {
        "could", "would", "might", "d", "if", "whether", "unless", "refuse", "avoid", "too", "risky",
        "before", "until", "consider", "considering", "tempted", "tempting", "maybe", "perhaps", "wait",
        "premature", "hesitant",
    }
)  # fmt: skip
CONDITIONS = frozenset(
    {"if", "unless", "later", "would", "risky", "gamble"}
)  # after it: "..., if I were sure"
# Where a negation's (and a hedge's) reach ends inside a sentence: "No, roll." rolls.
CLAUSE_END = re.compile(r"[,:\n]+")
# A part before a ";" asks with the question that ends after it only if it is put as one itself: "Should I
# accuse ...; or wait?", not "I accuse ...; who else could it be?"
ASKING_AUXILIARIES = frozenset(
    {"should", "shall", "can", "could", "may", "might", "must", "do", "does", "is", "are", "am", "will",
     "would"}
)  # fmt: skip
ASKING_SUBJECTS = frozenset({"i", "we", "it", "this", "that", "now", "there"})
# Where a negation's reach ends (the end kept; markup closing the sentence, as in "?**", is dropped)
SENTENCE_END = re.compile(r"([.!?;]+)[*_\"'`)\]]*(?:\s+|$)")


def normalise(text: str) -> list[str]:
    """The words of ``text``: case-folded, accents and punctuation removed, articles dropped."""
    text = text.replace("ß", "ss").replace("’", "'")
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    words = re.sub(r"[^a-z0-9]+", " ", text).split()
    return [w for w in words if w not in ARTICLES]


@dataclass(frozen=True)
class Names:
    """The card names of an edition as word sequences: full names and unique short names."""

    aliases: dict[tuple[str, ...], int]
    longest: int


@cache
def card_names(config: GameConfig) -> Names:
    """The names of ``config``'s cards as a reply may write them."""
    cards = config.cards.cards
    words = [normalise(name) for name in cards]
    aliases: dict[tuple[str, ...], int] = {tuple(w): card for card, w in enumerate(words)}
    counts: dict[str, int] = {}
    for w in words:
        for word in set(w):
            counts[word] = counts.get(word, 0) + 1
    for card, w in enumerate(words):
        for word in w:
            if counts[word] == 1 and word not in TITLES and not word.isdigit():
                aliases.setdefault((word,), card)
    return Names(aliases, max(len(a) for a in aliases))


def find_cards(config: GameConfig, words: list[str]) -> tuple[list[int], list[str]]:
    """The cards a reply names (longest names first, in order, without repeats) and its other words."""
    cards: list[int] = []
    rest: list[str] = []
    for i, card in _read_cards(config, words):
        if card is None:
            rest.append(words[i])
        elif card not in cards:
            cards.append(card)
    return cards, rest


def _read_cards(config: GameConfig, words: list[str]) -> list[tuple[int, int | None]]:
    """``(where, card)`` of each card name in ``words`` (the longest first), ``(where, None)`` of each other word."""
    names = card_names(config)
    read: list[tuple[int, int | None]] = []
    i = 0
    while i < len(words):
        for length in range(min(names.longest, len(words) - i), 0, -1):
            card = names.aliases.get(tuple(words[i : i + length]))
            if card is not None:
                read.append((i, card))
                i += length
                break
        else:
            read.append((i, None))
            i += 1
    return read


def negates_a_card(config: GameConfig, text: str) -> bool:
    """Whether a negation reaches a card name in its clause ("Not the Ballroom"; see ``negated``)."""
    for sentence, _, _ in _sentences(text):
        for clause in CLAUSE_END.split(sentence):
            words = normalise(clause)
            if any(card is not None and _negated(words, i) for i, card in _read_cards(config, words)):
                return True
    return False


def _sentences(text: str) -> list[tuple[str, str, bool]]:
    """``(sentence, its end, whether it asks)`` of each sentence of ``text`` (the end: its punctuation, ""
    for the last one). A ";" ends a sentence (a negation does not reach past it); the part before it asks
    with the question after it when it is put as a question too: "Should I accuse Plum with the Rope in
    the Hall; or wait?" asks in both its parts, "I accuse Plum with the Rope in the Hall; who else could
    it be?" only in its second."""
    parts = SENTENCE_END.split(text)  # sentence, its end, sentence, its end, ...
    pairs = list(zip(parts[::2], [*parts[1::2], ""], strict=True))
    asks, question = [], False
    for sentence, end in reversed(pairs):
        if set(end) & set(".!?"):
            question = "?" in end
        else:  # ";" or the last part: asks with what follows only if put as a question
            words = normalise(sentence)
            question &= bool(words) and (
                words[0] == "or"
                or (words[0] in ASKING_AUXILIARIES and words[1:2] and words[1] in ASKING_SUBJECTS)
            )
        asks.append(question)
    return [(sentence, end, ask) for (sentence, end), ask in zip(pairs, reversed(asks), strict=True)]


def without_accusation_questions(config: GameConfig, text: str) -> str:
    """``text`` less its sentences that only weigh an accusation in a question ("Should I accuse Plum with
    the Rope in the Hall?"): a wrong accusation puts the player out, so a question asks for none, and the
    cards it names are not the reply's either. A question with another verb stays ("It's too early to
    accuse, so why not suggest Mustard with the Rope?"); ``verbs`` reads no accusation in it."""
    kept = []
    for sentence, end, asks in _sentences(text):
        words = find_cards(config, normalise(sentence))[1]
        verbs = {VERBS.get(w) for w in words} - {None}
        declined = any(VERBS.get(w) == "accuse" and _negated(words, i) for i, w in enumerate(words))
        if not asks or verbs != {"accuse"} or declined:  # "..., I won't accuse, or should I?" declines
            kept.append(sentence + end)
    return " ".join(kept)


def _negated(words: list[str], i: int, reach: int = NEGATION_REACH) -> bool:
    """Whether a negation in the ``reach`` words before ``words[i]`` negates it ("why not" does not)."""
    before = words[max(0, i - reach) : i]
    return any(
        w in NEGATIONS and not (w == "not" and j and before[j - 1] == "why") for j, w in enumerate(before)
    )


def _hedged(before: list[str], after: list[str]) -> bool:
    """Whether the words of a clause ``before`` an accusation, or those of its sentence ``after`` it,
    make it a thought (``HEDGES``, ``CONDITIONS``); "would like" / "'d like" is a request."""
    hedges = [
        j
        for j, w in enumerate(before)
        if w in HEDGES and not (w in ("would", "d") and before[j + 1 : j + 2] == ["like"])
    ]
    return bool(hedges) or bool(CONDITIONS.intersection(after))


def _clauses(config: GameConfig, sentence: str) -> list[list[str]]:
    """The words of each clause of a sentence (split at ``CLAUSE_END``), card names left out."""
    return [find_cards(config, normalise(clause))[1] for clause in CLAUSE_END.split(sentence)]


def verbs(config: GameConfig, text: str) -> tuple[set[str], set[str]]:
    """The verbs a reply asks for, and those it declines (a negation in the words before the verb, in
    the same clause: "I'm not sure. Suggest ..." and "No, roll." ask; "why not suggest" is no negation;
    before "accuse" any negation of its clause declines it). An accusation in a question or hedged
    (``hedged``) is neither. A verb both asked and declined is what its last mention says
    ("I won't suggest that again, so I suggest ..." asks), but an accusation both asked and declined is
    both, and refused ("I won't accuse yet: a wrong accusation puts me out" names it again without
    asking: a wrong accusation puts the player out)."""
    mentions: dict[str, list[bool]] = {}  # verb -> asked (True) or declined at each mention, in order
    for sentence, _, asks in _sentences(text):
        clauses = _clauses(config, sentence)
        for k, words in enumerate(clauses):
            for i, word in enumerate(words):
                verb = VERBS.get(word)
                if verb is None:
                    continue
                if (
                    verb == "accuse"
                ):  # any negation before it in its clause declines it ("I don't think I should")
                    negated = _negated(words, i, reach=i)
                    after = [*words[i + 1 :], *(w for later in clauses[k + 1 :] for w in later)]
                    if not negated and (asks or _hedged(words[:i], after)):
                        continue  # a question or a hedge asks for no accusation (declining counts, asked or not)
                else:
                    negated = _negated(words, i)
                if word == "accusation" and not negated:
                    continue  # the noun alone asks for none: "I'll hold off on the accusation" ("no accusation" declines)
                mentions.setdefault(verb, []).append(not negated)
    asked = {v for v, m in mentions.items() if (any(m) if v == "accuse" else m[-1])}
    declined = {v for v, m in mentions.items() if (not all(m) if v == "accuse" else not m[-1])}
    return asked, declined
