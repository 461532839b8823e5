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
            "The Waddingtons/Hasbro 1996 rules, in English card names: two dice, may stay in a room, "
            "accuse from anywhere, the highest starting roll begins (GameConfig's defaults).",
        ),
        _preset(
            "fr_1996",
            "The same 1996 rules with their French cards: 'deux dés', 'possibilité de rester dans une "
            "pièce', 'tu peux accuser sans devoir te rendre dans la pièce accusée'.",
            edition="classic_fr",
        ),
        _preset(
            "de_2023",
            "Hasbro's 2023 German booklet (F6420): 'wirfst du beide Würfel', 'kannst du dort bleiben', "
            "accuse only from a room: 'Du musst dafür in einem Raum stehen, aber nicht in dem, den du "
            "anklagst'. Its evidence cards are left out (the booklet gives no texts).",
            edition="de_2023",
            accuse_anywhere=False,
        ),
        _preset(
            "de_2023_duel",
            "The 2023 German booklet's 'Cluedo-Duell zu zweit': four cards face down on the corner "
            "rooms ('Für eine schnellere Partie nimmt man die Eckräume'); otherwise as de_2023.",
            edition="de_2023",
            accuse_anywhere=False,
            num_players=2,
            duel=True,
        ),
    )
}
