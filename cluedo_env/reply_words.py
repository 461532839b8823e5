"""How the words of a reply are read (``cluedo_env.commands.parse_command``'s reading): the card names
it uses (full names and unique short names, a name with an umlaut also in its ae/oe/ue spelling), its
sentences and clauses, the questions it asks, the negations and hedges, and the verbs it asks for or
declines.

Articles ("the", "la", "den", ...) are dropped from replies and card names alike, except the one word of
a custom edition's card name made of articles alone ("Den", "The Den", "La": ``kept_articles``), which
is a word in that edition's card names and replies; no built-in edition keeps one. The English articles
"a", "an" and "the" are never kept (the game's own words and most replies have them), so an edition whose
card name reads as no word ("A", "The") or as another card's ("Study" and "The Study") is refused
(``card_names`` raises ``ValueError``): its cards could not all be named in a reply.

A word is a run of letters and digits of any script, accents dropped (``Véranda`` is ``veranda``, ``Σαλόνι``
is ``σαλονι``, ``й`` is ``и`` in names and replies alike), and a run of the letters a-z and digits is a word
of its own beside other letters (``Plum先生`` is ``plum`` and ``先生``). The words the reading knows are
English, French and German ones, in the letters a-z, so a word in other letters is read only where it is a
word of the edition's card names (``script_words``: a custom room "Кухня" is named by "go to the Кухня");
any other ("我", "谢谢") is dropped, as it was before other scripts were read, and weighs or negates nothing.
A card name in a script written without spaces (Chinese, Japanese, Thai) is named where the reply sets it
apart by a space or punctuation ("go to the キッチン", not "キッチンに行く"). The Latin letters that no accent
makes (ı ł ø æ œ đ ð þ ħ ŧ) are read as the letters a-z they stand for (``LETTERS``: "Kış Bahçesi" is ``kis
bahcesi``, "Køkken" is ``kokken``), and the invisible characters inside a word (zero-width joiners, the soft
hyphen, the Arabic tatweel) are dropped: a soft hyphen in "Ballroom" parts no word; a zero-width space does.

The punctuation of other scripts is read as its ASCII counterpart (``fold_punctuation``): the full-width and
CJK ？！；，：．。、 (and a space after them before a word: these scripts put none), the Greek question mark
";", the Arabic ؟ ، ؛, the Devanagari danda, quotes and brackets, so "Roll？No。" is a question and "No，roll。"
rolls.

The rules these follow are ``cluedo_env.commands``' (its docstring): a negation reaches the three words
before a verb in its clause; an accusation is asked only with the verb, outside a question and any
hedge, and any negation of its clause declines it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

from cluedo_env.core.config import CONFIGS_KEPT, GameConfig

__all__ = [
    "ACCUSATION_WORDS",
    "NEGATIONS",
    "SPELLINGS",
    "VERBS",
    "Names",
    "card_names",
    "find_cards",
    "fold_punctuation",
    "kept_articles",
    "negated",
    "negates_a_card",
    "normalise",
    "script_words",
    "verbs",
    "weighs",
    "without_questions",
]

# Words that are dropped from replies and card names alike before matching (but ``kept_articles``).
ARTICLES = frozenset(
    {"the", "a", "an", "le", "la", "les", "l", "de", "du", "des", "der", "die", "das", "den"}
)
# Articles no card name keeps: the game's own text and most replies are English, and have them everywhere.
ENGLISH_ARTICLES = frozenset({"the", "a", "an"})
# Titles are not short names: "Mrs" or "Colonel" alone does not name a suspect.
TITLES = frozenset(
    {
        "miss", "mrs", "mr", "ms", "colonel", "reverend", "professor", "dr", "doctor", "madame",
        "mademoiselle", "monsieur", "professeur", "lady", "oberst", "von",
        "kochin", "burgermeister", "anwaltin", "koechin", "buergermeister", "anwaeltin", "room", "salle",
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
# Words that weigh an accusation instead of asking for it ("I could accuse ...", "If I'm right, I accuse
# ...", "Accuse ..., but not yet"): one in an accusation's sentence before its clause, or in the reply's other
# sentences, and the accusation is not asked (a wrong accusation puts the player out).
WEIGHING = frozenset(
    {
        "could", "would", "might", "d", "if", "whether", "unless", "until", "maybe", "perhaps", "possibly",
        "suppose", "guess", "refuse", "avoid", "wait", "premature", "hesitant", "tempted", "tempting",
        "eventually", "soon", "hypothetically", "theory", "once", "when", "after", "assuming", "case",
        "provided", "providing", "supposing", "should", "were", "may", "probably", "likely", "later",
        "risky", "gamble", "but", "however", "though", "yet", "first", "next",
    }
)  # fmt: skip
# A negation before "accuse" declines it back to one of these ("There is no other way, so I accuse ..."
# is not declined).
DECIDING = frozenset({"so", "therefore", "thus", "hence"})
# An accusation is asked only plainly: its clause opens with one of these, then "accuse" (or "accusing"),
# the cards and ACCUSATION_WORDS; with nothing that weighs it (WEIGHING, NEGATIONS) before it in its
# sentence or in the reply's other sentences ("I'm sure. I accuse ..." and "Nobody refuted, so I accuse ..."
# ask; "Assuming nobody has the Rope, accuse ..." does not: the refusal says how to accuse).
ACCUSE_OPENINGS = frozenset(
    tuple(opening.split())
    for opening in (
        "", "i", "i ll", "i will", "i shall", "i now", "i will now", "i ll now", "now i", "so i", "then i",
        "i hereby", "i d like to", "i would like to", "let me", "i want to", "i choose to", "i am going to",
        "i m going to", "time to", "i m", "i am", "and", "i therefore", "therefore", "so", "then", "now",
        "finally", "yes", "ok", "okay", "let s", "it s time to", "it is time to", "i am ready to",
        "i m ready to", "i can now",
    )
)  # fmt: skip
# Words an accusation's sentence may hold after the verb besides the cards (titles written short too).
ACCUSE_JOINING = frozenset(
    {"with", "in", "and", "now", "please", "using", "by", "at", "prof", "col", "rev", "dr", "mr", "mrs", "ms",
     "mme", "mlle", "m"}
)  # fmt: skip
# ... and the titles, written out ("Accuse Miss Peacock ..." where the card is Mrs Peacock).
ACCUSATION_WORDS = ACCUSE_JOINING | TITLES
# Words that join two commands in a sentence ("go to the Kitchen and accuse ...", "Suggest ..., then I
# accuse ..."), and the words that ask to move besides ``VERBS`` ("move to square 7,16").
JOINERS = frozenset({"and", "then"})
MOVING = frozenset({"move", "walk"})
# Other spellings of the classic English names (UK Cluedo's, later US Clue's): a reply's word that stands
# for a word of a card name, where the edition has that word in one card name and the other in none.
SPELLINGS = {
    "scarlett": "scarlet",
    "spanner": "wrench",
    "knife": "dagger",
    "piping": "pipe",
    "billiards": "billiard",
}
# The keyboard spellings of the umlauts: a card name with one is also read with these ("Gruen", "Kueche").
UMLAUTS = {"ä": "ae", "ö": "oe", "ü": "ue"}
PARAGRAPH = re.compile(r"\n\s*\n")  # a blank line ends a sentence too
# Abbreviations whose "." ends no sentence ("Accuse Mrs. White ..., if ...").
ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "col", "prof", "rev", "st", "mme", "mlle", "m"})
# Where a negation's (and a hedge's) reach ends inside a sentence: "No, roll." rolls.
CLAUSE_END = re.compile(r"[,:\n]+")
# A part before a ";" asks with the question that ends after it only if it is put as one itself: "Should I
# accuse ...; or wait?", not "I accuse ...; who else could it be?"
ASKING_AUXILIARIES = frozenset(
    {"should", "shall", "can", "could", "may", "might", "must", "do", "does", "is", "are", "am", "will",
     "would"}
)  # fmt: skip
ASKING_SUBJECTS = frozenset({"i", "we", "it", "this", "that", "now", "there"})
# A reply whose last sentence (sign-offs such as "Thanks!" left out) is a question of at most TAG_LENGTH words,
# or one that weighs (``weighs``), asks back whether what it said holds ("Right?", "Am I right about the Rope?",
# "How does that sound?", "Should I accuse now or wait for more evidence?"): an accusation before it is not asked
# plainly. "Who else?" ("what else", "where else", ...) does not by itself ask back, nor does a question answered
# after it ("Right? Yes.") or put before the accusation ("Am I sure? Yes. Accuse ...").
TAG_LENGTH = 10
SIGN_OFFS = frozenset({"thanks", "thank", "you", "cheers", "please", "let", "me", "know", "merci", "danke"})
# Where a negation's reach ends (the end kept; markup closing the sentence, as in "?**", is dropped)
SENTENCE_END = re.compile(r"([.!?;]+)[*_\"'`)\]]*(?:\s+|$)")
ASCII_WORD = re.compile(r"[a-z0-9]+")  # a word of a reply in ASCII (``_all_words``)
# Letters read as others before the accents are dropped (``_all_words``): "ß" as "ss", the Latin letters no
# accent makes as the letters a-z they stand for ("ı" of Turkish, "ł" of Polish, "ø" of Danish, ...), "’" as
# "'", and the invisible characters a word may hold deleted (zero-width non-joiner and joiner, soft hyphen,
# word joiner, byte-order mark, Arabic tatweel); a zero-width space (U+200B) still parts two words.
LETTERS = str.maketrans(
    {
        "ß": "ss", "ı": "i", "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe",
        "Œ": "OE", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ħ": "h", "Ħ": "H",
        "ŧ": "t", "Ŧ": "T", "’": "'", "\u200c": None, "\u200d": None, "\u00ad": None, "\u2060": None,
        "\ufeff": None, "\u0640": None,
    }
)  # fmt: skip
# The punctuation of other scripts as its ASCII counterpart (``fold_punctuation``); the Greek question mark
# (U+037E, ";" once normalised) is a "?", as the Arabic "؟" is; quotes and brackets as ASCII's, which may
# close a sentence ("「...？」" asks as '"...?"' does).
PUNCTUATION = str.maketrans(
    {
        "？": "?", "！": "!", "；": ";", "，": ",", "：": ":", "．": ".", "。": ".", "｡": ".", "、": ",",
        "､": ",", "\u037e": "?", "\u0387": ";", "؟": "?", "،": ",", "؛": ";", "۔": ".", "।": ".", "॥": ".",
        "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "«": '"', "»": '"', "‹": "'", "›": "'",
        "「": '"', "」": '"', "『": '"', "』": '"', "（": "(", "）": ")", "【": "[", "】": "]", "〔": "[", "〕": "]",
    }
)  # fmt: skip
# The full-width and CJK marks and closing brackets, which those scripts write with no space after them: given
# one before a word, so that "。" ends a sentence as ". " does, and "？」" as '?" ' does.
PICTOGRAPHS = "\u2190"  # the arrows and after: the symbols of which emoji and dingbats are (not "№", "°")
UNSPACED = re.compile("([？！；，：．。｡、､」』）】〕])(?=[^\\s*_\"'`)\\]”’」』）】〕])")


def fold_punctuation(text: str) -> str:
    """``text`` with the punctuation of other scripts in ASCII (``PUNCTUATION``), a space after a full-width
    or CJK mark before a word ("Roll？No。" is "Roll? No."), and a space for a pictograph (an emoji, a
    dingbat: "Hall?🤔" ends its sentence as "Hall? " does). ``parse_command`` reads a reply so, before its
    ``Final answer:``, sentences and clauses."""
    if text.isascii():
        return text
    text = UNSPACED.sub(r"\1 ", text).translate(PUNCTUATION)
    return "".join(" " if _pictograph(ch) else ch for ch in text)


@lru_cache(maxsize=4096)
def _pictograph(ch: str) -> bool:
    """Whether ``ch`` is a pictograph (``PICTOGRAPHS``; not the replacement character U+FFFD, which stands
    for bytes that were no text and is quoted back as it is)."""
    return ch >= PICTOGRAPHS and ch != "\ufffd" and unicodedata.category(ch) == "So"


def normalise(text: str, config: GameConfig | None = None) -> list[str]:
    """The words of ``text``: case-folded, accents and punctuation removed, articles dropped (but, given
    the game's ``config``, those its card names keep: ``kept_articles``), and words in other letters than
    a-z dropped (but, given ``config``, those of its card names: ``script_words``)."""
    kept = kept_articles(config) if config is not None else frozenset()
    script = script_words(config) if config is not None else frozenset()
    return [w for w in _all_words(text) if (w.isascii() and (w not in ARTICLES or w in kept)) or w in script]


def _all_words(text: str) -> list[str]:
    """The words of ``text``, articles and all: case-folded, accents dropped (``é`` is ``e``, Greek ``ά`` is
    ``α``, Cyrillic ``й`` is ``и``), the letters of ``LETTERS`` read as theirs (``ı`` is ``i``, ``ø`` is
    ``o``, a soft hyphen is gone), each a run of the letters a-z and digits 0-9 or a run of other letters,
    digits and marks (``_kind``: ``Plum先生`` is ``plum`` and ``先生``)."""
    text = text.translate(LETTERS)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    if text.isascii():  # most replies: the same words, faster
        return ASCII_WORD.findall(text)
    return ["".join(run) for kind, run in groupby(text, _kind) if kind]


def _kind(ch: str) -> int:
    """0 for a character between words, 1 for a letter a-z or digit 0-9, 2 for another letter or digit
    (``str.isalnum``: any script's) or a mark left after the accents are dropped (a Devanagari vowel sign,
    which stays in its word)."""
    if "a" <= ch <= "z" or "0" <= ch <= "9":
        return 1
    return 2 if ch.isalnum() or unicodedata.category(ch).startswith("M") else 0


@lru_cache(maxsize=CONFIGS_KEPT)
def script_words(config: GameConfig) -> frozenset[str]:
    """The words of ``config``'s card names in other letters than a-z and digits (``кухня`` of a custom room
    "Кухня"): a reply's word in other letters is read only where it is one of these. The reading knows
    English, French and German words, all in the letters a-z once accents are dropped, so a word it does not
    know in another script ("我", "谢谢") is dropped as it was, not counted among the words of an accusation
    or between a negation and its verb. Empty for the built-in editions."""
    return frozenset(
        w
        for name in config.cards.cards
        for spelling in (name, _without_umlauts(name))
        for w in _all_words(spelling)
        if not w.isascii()
    )


@lru_cache(maxsize=CONFIGS_KEPT)
def kept_articles(config: GameConfig) -> frozenset[str]:
    """The articles that are words in ``config``'s card names and replies: the last word but "a", "an" and
    "the" (``ENGLISH_ARTICLES``, never kept) of each card name made of articles alone (a custom room "Den"
    or "The Den" keeps "den", a weapon "La" keeps "la"), which would otherwise name no word. None for the
    built-in editions. A kept word is one wherever a reply of that edition has it: there a German article
    "den" names the card "Den"."""
    kept = set()
    for name in config.cards.cards:
        own = [w for w in _all_words(name) if w not in ENGLISH_ARTICLES]
        if own and ARTICLES.issuperset(own):
            kept.add(own[-1])
    return frozenset(kept)


@dataclass(frozen=True)
class Names:
    """The card names of an edition as word sequences: full names and unique short names."""

    aliases: dict[tuple[str, ...], int]
    longest: int


@lru_cache(maxsize=CONFIGS_KEPT)
def card_names(config: GameConfig) -> Names:
    """The names of ``config``'s cards as a reply may write them (with ``SPELLINGS``' other words, and a
    name with an umlaut also in its ae/oe/ue spelling: ``Gruen`` is ``Grün``).

    Raises:
        ValueError: a card of the edition cannot be named in a reply: its name reads as no word ("A", "The",
            a name of punctuation or emoji alone: ``normalise`` drops it all), or as another card's
            ("Study" and "The Study").
    """
    cards = config.cards.cards
    words = [normalise(name, config) for name in cards]
    _check_nameable(cards, words)
    spelled = [normalise(_without_umlauts(name), config) for name in cards]  # as many words as ``words``
    aliases: dict[tuple[str, ...], int] = {tuple(w): card for card, w in enumerate(words)}
    for card, w in enumerate(spelled):
        aliases.setdefault(tuple(w), card)
    counts: dict[str, int] = {}
    for w, other in zip(words, spelled, strict=True):
        for word in set(w) | set(other):
            counts[word] = counts.get(word, 0) + 1
    for card, (w, other) in enumerate(zip(words, spelled, strict=True)):
        for word, title in [*zip(w, w), *zip(other, w)]:  # a title's other spelling is a title too
            if counts[word] == 1 and title not in TITLES and not word.isdigit():
                aliases.setdefault((word,), card)
    for other, word in SPELLINGS.items():
        if counts.get(word) == 1 and other not in counts:
            card = next(card for card, w in enumerate(words) if word in w)
            aliases.setdefault(tuple(other if x == word else x for x in words[card]), card)
            aliases.setdefault((other,), card)
    return Names(aliases, max(len(a) for a in aliases))


def _check_nameable(cards: tuple[str, ...], words: list[list[str]]) -> None:
    """Refuse (``ValueError``) card names of which one reads as no word or two read the same (``words``:
    each name's own words, as ``normalise`` reads it)."""
    read: dict[tuple[str, ...], str] = {}
    for name, w in zip(cards, words, strict=True):
        if not w:
            raise ValueError(
                f"card name {name!r} reads as no word in a reply (a reply is read by its letters and digits, "
                "in any script, accents dropped, and without the articles 'a', 'an' and 'the'): give it a name "
                "with another word"
            )
        if tuple(w) in read:
            raise ValueError(
                f"cards {read[tuple(w)]!r} and {name!r} read the same in a reply once articles, case, accents "
                "and punctuation are dropped: give one of them another name"
            )
        read[tuple(w)] = name


def _without_umlauts(name: str) -> str:
    """``name`` with ä, ö and ü written ae, oe and ue (``Bürgermeister Grün``: ``bürgermeister`` lower-cased
    first, so ``buergermeister gruen``)."""
    name = unicodedata.normalize("NFC", name).casefold()
    for umlaut, spelling in UMLAUTS.items():
        name = name.replace(umlaut, spelling)
    return name


def find_cards(config: GameConfig, words: list[str]) -> tuple[list[int], list[str]]:
    """The cards a reply's ``words`` (``normalise(reply, config)``) name (longest names first, in order,
    without repeats) and its other words."""
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
    for sentence, _, _ in _sentences(config, text):
        for clause in CLAUSE_END.split(sentence):
            words = normalise(clause, config)
            if any(card is not None and negated(words, i) for i, card in _read_cards(config, words)):
                return True
    return False


def _sentences(config: GameConfig, text: str) -> list[tuple[str, str, bool]]:
    """``(sentence, its end, whether it asks)`` of each sentence of ``text`` (the end: its punctuation, in
    ASCII: ``fold_punctuation``; "" for the last one). A ";" ends a sentence (a negation does not reach past
    it); the part before it asks with the question after it when it is put as a question too: "Should I
    accuse Plum with the Rope in the Hall; or wait?" asks in both its parts, "I accuse Plum with the Rope in
    the Hall; who else could it be?" only in its second."""
    text = PARAGRAPH.sub(".\n", fold_punctuation(text))
    parts = SENTENCE_END.split(text)  # sentence, its end, sentence, its end, ...
    pairs: list[tuple[str, str]] = []
    for sentence, end in zip(parts[::2], [*parts[1::2], ""], strict=True):
        if (
            pairs
            and pairs[-1][1].strip() == "."
            and normalise(pairs[-1][0], config)[-1:] in ([a] for a in ABBREVIATIONS)
        ):
            sentence, end = pairs.pop()[0] + ". " + sentence, end  # "Mrs. White" goes on
        pairs.append((sentence, end))
    asks, question = [], False
    for sentence, end in reversed(pairs):
        if set(end) & set(".!?"):
            question = "?" in end
        else:  # ";" or the last part: asks with what follows only if put as a question
            words = normalise(sentence, config)
            question &= bool(words) and (
                words[0] == "or"
                or (words[0] in ASKING_AUXILIARIES and len(words) > 1 and words[1] in ASKING_SUBJECTS)
            )
        asks.append(question)
    return [(sentence, end, ask) for (sentence, end), ask in zip(pairs, reversed(asks), strict=True)]


def without_questions(config: GameConfig, text: str) -> str:
    """``text`` less its sentences that only weigh an action in a question ("Should I accuse Plum with the
    Rope in the Hall?", "Roll? No."): a question asks for nothing, and the cards it names are not the reply's
    either. A question that declines ("..., I won't accuse, or should I?") or proposes ("It's too early to
    accuse, so why not suggest Mustard with the Rope?") stays; ``verbs`` reads no accusation in it."""
    kept = []
    for sentence, end, asks in _sentences(config, text):
        words = find_cards(config, normalise(sentence, config))[1]
        named = [i for i, w in enumerate(words) if w in VERBS]
        declined = any(VERBS[words[i]] == "accuse" and negated(words, i) for i in named)
        proposed = any(words[max(0, i - 2) : i] == ["why", "not"] for i in named)
        if not asks or not named or declined or proposed:
            kept.append(sentence + end)
    return " ".join(kept)


def negated(words: list[str], i: int, reach: int = NEGATION_REACH) -> bool:
    """Whether a negation in the ``reach`` words before ``words[i]`` negates it ("why not" does not)."""
    before = words[max(0, i - reach) : i]
    return any(
        w in NEGATIONS and not (w == "not" and j and before[j - 1] == "why") for j, w in enumerate(before)
    )


def weighs(text: str, config: GameConfig | None = None) -> bool:
    """Whether ``text`` (a reply of the game of ``config``) has a word that weighs an accusation
    (``WEIGHING``, ``NEGATIONS``; "no doubt" and "without a doubt" are none)."""
    return _weighing(normalise(text, config))


def _weighing(words: list[str]) -> bool:
    """``weighs`` of words."""
    return any(
        w in WEIGHING or (w in NEGATIONS and not {"doubt", "doubts"} & set(words[j + 1 : j + 3]))
        for j, w in enumerate(words)
    )


def _declined(before: list[str]) -> bool:
    """Whether a negation in ``before``, an accusation's sentence's words before it back to a word of
    ``DECIDING``, declines it ("no doubt" and "without any doubt" are none; "why not" is none)."""
    before = before[max((j + 1 for j, w in enumerate(before) if w in DECIDING), default=0) :]
    return any(
        w in NEGATIONS
        and "doubt" not in before[j + 1 : j + 4]
        and not (w == "not" and j and before[j - 1] == "why")
        for j, w in enumerate(before)
    )


def asks_back(config: GameConfig, text: str) -> bool:
    """Whether ``text`` (of a reply of the game of ``config``) ends by asking back: its last sentence with a
    word, sign-offs left out (``SIGN_OFFS``), is a question of at most ``TAG_LENGTH`` words, or one that weighs,
    other than "who else ...", "what else ..." and the like."""
    lines = text.replace("\n", ".\n")  # a line ends a sentence here: "... shown to me\nRight?" asks back
    worded = [
        (words, asks)
        for sentence, _, asks in _sentences(config, lines)
        if (words := normalise(sentence, config))
    ]
    while worded and SIGN_OFFS.issuperset(worded[-1][0]):
        worded.pop()
    if not worded or not worded[-1][1]:
        return False
    words = worded[-1][0]
    return words[1:2] != ["else"] and (len(words) <= TAG_LENGTH or _weighing(words))


def _clauses(config: GameConfig, sentence: str) -> list[list[str]]:
    """The words of each clause of a sentence (split at ``CLAUSE_END``), card names left out."""
    return [find_cards(config, normalise(clause, config))[1] for clause in CLAUSE_END.split(sentence)]


def _joins(config: GameConfig, sentence: str) -> list[bool]:
    """For each word of a sentence as ``_clauses`` reads it (card names left out), whether it joins two
    commands: a word of ``JOINERS`` not between two card names ("Plum and Mustard" joins none)."""
    joins = []
    for clause in CLAUSE_END.split(sentence):
        words = normalise(clause, config)
        read = _read_cards(config, words)
        card = [c is not None for _, c in read] + [False]
        for k, (i, c) in enumerate(read):
            if c is None:
                joins.append(words[i] in JOINERS and not (k and card[k - 1] and card[k + 1]))
    return joins


def _requested(words: list[str], joins: list[bool], first: int, at: int) -> bool:
    """Whether the accusation at ``words[at]`` (its clause starting at ``first``) is put as a request in its
    own part of the sentence: from the joining word after the command before it ("go to the Kitchen and
    ...") to the joining word before the command after it ("... and go to the Kitchen"), it would be a
    plain accusation (``verbs``), whatever the rest of the reply says."""
    others = [k for k, w in enumerate(words) if k != at and (w in VERBS or w in MOVING)]
    start, end = 0, len(words)
    if before := [k for k in others if k < at]:
        start = next((k + 1 for k in range(before[-1] + 1, at) if joins[k]), before[-1])
    if after := [k for k in others if k > at]:
        end = max((k for k in range(at + 1, after[0]) if joins[k]), default=after[0])
    return (
        tuple(words[max(start, first) : at]) in ACCUSE_OPENINGS
        and ACCUSATION_WORDS.issuperset(words[at + 1 : end])
        and not _weighing(words[start:first])
    )


def verbs(config: GameConfig, text: str) -> tuple[set[str], set[str], set[str], set[str]]:
    """The verbs a reply asks for, those it declines, whether it only weighs an accusation, and whether one
    it weighs is put as a request in its own part of a sentence (``_requested``).

    A negation in the three words before a verb, in its clause, declines it ("I'm not sure. Suggest ..."
    and "No, roll." ask; "why not suggest" is no negation). An accusation is asked only plainly
    (its clause's opening in ``ACCUSE_OPENINGS``, then cards and ``ACCUSATION_WORDS``), outside a question,
    with nothing that weighs it (``weighs``) before its clause or in the reply's other sentences; a
    negation before it declines it (``_declined``); otherwise it is only weighed. A verb both asked and declined is what its
    last mention says ("I won't suggest that again, so I suggest ..." asks), but an accusation both asked
    and declined is both, and refused (a wrong accusation puts the player out). An accusation weighed
    only because of what lies outside its part of the sentence ("I'll roll and accuse Plum with the Rope
    in the Hall", "I'm not sure. Suggest ... and accuse ...") is still requested: beside another command
    the reply asks for several things; one only mentioned ("before accusing", "I could accuse ...", the
    noun "accusation") is not."""
    mentions: dict[str, list[bool]] = {}  # verb -> asked (True) or declined at each mention, in order
    weighed: set[str] = set()  # accusations named but neither asked nor declined
    requested: set[str] = set()  # ... of which one is put as a request in its own part of a sentence
    sentences = _sentences(config, text)
    doubtful = [weighs(sentence, config) for sentence, _, _ in sentences]
    for n, (sentence, _, asks) in enumerate(sentences):
        clauses = _clauses(config, sentence)
        words = [w for clause in clauses for w in clause]
        joins = _joins(config, sentence)
        first = 0
        for clause in clauses:
            for i, word in enumerate(clause):
                verb = VERBS.get(word)
                if verb is None:
                    continue
                if verb == "accuse":
                    at = first + i
                    declines = _declined(words[:at])
                    plain = (  # its clause opens plainly, the earlier clauses and other sentences weigh nothing
                        tuple(clause[:i]) in ACCUSE_OPENINGS
                        and ACCUSATION_WORDS.issuperset(words[at + 1 :])
                        and not _weighing(words[:first])
                        and not any(doubtful[:n] + doubtful[n + 1 :])
                    )
                    if not declines and (asks or not plain):
                        weighed.add(verb)
                        if not asks and word != "accusation" and _requested(words, joins, first, at):
                            requested.add(verb)
                        continue  # a question or more than a plain request asks for no accusation
                else:
                    declines = negated(clause, i)
                    if asks and not declines and clause[max(0, i - 2) : i] != ["why", "not"]:
                        continue  # "Roll? No.": a question asks for nothing ("why not roll?" does)
                if word == "accusation" and not declines:
                    continue  # the noun alone asks for none: "I'll hold off on the accusation" ("no accusation" declines)
                mentions.setdefault(verb, []).append(not declines)
            first += len(clause)
    asked = {v for v, m in mentions.items() if (any(m) if v == "accuse" else m[-1])}
    declined = {v for v, m in mentions.items() if (not all(m) if v == "accuse" else not m[-1])}
    return asked, declined, weighed - asked - declined, requested - asked - declined
