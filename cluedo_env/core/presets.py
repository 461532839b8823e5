"""Named rule presets: the editions as their booklets play them.

A preset is a set of ``GameConfig`` fields, each decided by a rule booklet of
``docs/RULES.md`` (its section "Editions and presets" quotes the passages):
``GameConfig.preset(name, **changes)`` builds the config, a change overriding
the preset (``GameConfig.preset("de_2023", num_players=3)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["PRESETS", "Preset"]


@dataclass(frozen=True)
class Preset:
    """One rule preset.

    Attributes:
        name: Key of the preset in ``PRESETS``.
        fields: The ``GameConfig`` fields it sets; the others keep their defaults.
        source: The booklet and the passages that decide each field.
    """

    name: str
    fields: MappingProxyType = field(repr=False)
    source: str


def _preset(name: str, source: str, **fields: object) -> Preset:
    return Preset(name=name, fields=MappingProxyType(fields), source=source)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _preset(
            "classic",
            "Waddingtons/Hasbro 1996 booklet (the French rules page of 2026, 'Waddingtons/Hasbro 1996: "
            "deux dés, sans bonus, possibilité de rester dans une pièce'), in English card names: two "
            "dice, may stay in a room, accuse from anywhere, the highest starting roll begins; "
            "GameConfig's defaults.",
        ),
        _preset(
            "fr_1996",
            "The same 1996 booklet with its French cards (Mademoiselle Rose ... Clé anglaise): two dice "
            "('lance les deux dés'), may stay ('La version 1996 autorise à rester dans une pièce'), "
            "accuse without going to the room ('tu peux accuser sans devoir te rendre dans la pièce "
            "accusée'), the highest roll starts, ties rolled again.",
            edition="classic_fr",
        ),
        _preset(
            "de_2023",
            "Hasbro 2023 German booklet (F6420): two dice ('wirfst du beide Würfel'), may stay ('kannst "
            "du dort bleiben'), accuse only from a room ('Du musst dafür in einem Raum stehen, aber "
            "nicht in dem, den du anklagst'), the starting roll decides who begins. Its evidence cards "
            "are left out (their texts are not in the booklet).",
            edition="de_2023",
            accuse_anywhere=False,
        ),
        _preset(
            "de_2023_duel",
            "The 2023 German booklet's duel for two ('Cluedo-Duell zu zweit'): four cards face down on "
            "the corner rooms ('Für eine schnellere Partie nimmt man die Eckräume'), looked at by "
            "whoever enters; otherwise as de_2023.",
            edition="de_2023",
            accuse_anywhere=False,
            num_players=2,
            duel=True,
        ),
    )
}
