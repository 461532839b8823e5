"""German names typed without umlauts: a card name with ä, ö or ü is also read in its ae/oe/ue spelling."""

from __future__ import annotations

import numpy as np
import pytest

from cluedo_env import core
from cluedo_env.commands import CommandError, parse_command
from cluedo_env.core.editions import EDITIONS

DE = core.GameConfig(num_players=3, edition="de_2023", board="none")
LAYOUT = core.ActionLayout(DE)
EVERYTHING = np.ones(LAYOUT.num_actions, dtype=bool)
CARD = {name: card for card, name in enumerate(DE.cards.cards)}


def spelled(name: str) -> str:
    return name.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("Ü", "Ue")


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_name_with_an_umlaut_is_read_in_its_keyboard_spelling(edition):
    config = core.GameConfig(num_players=3, edition=edition, board="none")
    layout = core.ActionLayout(config)
    everything = np.ones(layout.num_actions, dtype=bool)
    for card, name in enumerate(config.cards.cards):
        if spelled(name) != name:
            assert parse_command(config, f"show {spelled(name)}", everything) == layout.encode("show", card)


def test_german_replies_without_umlauts_name_the_cards():
    assert [n for n in DE.cards.cards if spelled(n) != n] == [
        "Köchin Weiß",
        "Bürgermeister Grün",
        "Anwältin Porz",
        "Küche",
    ]
    gruen, weiss, seil = CARD["Bürgermeister Grün"], CARD["Köchin Weiß"], CARD["Seil"] - 6
    kueche, halle = CARD["Küche"] - 12, CARD["Halle"] - 12
    suggest = np.zeros_like(EVERYTHING)
    suggest[LAYOUT.SUGGEST : LAYOUT.SUGGEST + LAYOUT.sizes["suggest"]] = True
    assert parse_command(DE, "suggest Gruen with the Seil", suggest, room=halle) == LAYOUT.encode(
        "suggest", gruen, seil
    )
    assert parse_command(DE, "show the Kueche", EVERYTHING) == LAYOUT.encode("show", CARD["Küche"])
    said = "accuse Gruen with the Seil in the Kueche"
    assert parse_command(DE, said, EVERYTHING) == LAYOUT.encode("accuse", gruen, seil, kueche)
    # a title in its keyboard spelling is a title, which a plain accusation may hold
    said = "accuse Koechin Weiss with the Seil in the Halle"
    assert parse_command(DE, said, EVERYTHING) == LAYOUT.encode("accuse", weiss, seil, halle)
    said = "accuse Buergermeister Gruen with the Seil in the Halle"
    assert parse_command(DE, said, EVERYTHING) == LAYOUT.encode("accuse", gruen, seil, halle)
    with pytest.raises(CommandError, match="exactly one card"):
        parse_command(DE, "show the Buergermeister", EVERYTHING)  # a title alone names no suspect
