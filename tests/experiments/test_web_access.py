"""The web page for people who use a keyboard or a screen reader, or tell colours apart poorly, in a real
browser (Debian's Chromium, driven by Playwright, on the real server; skipped without them, as
``test_web_browser.py``, whose fixtures these tests use): focus after each move, what the live region
says, the board's pieces in words, players out in words, pawns numbered with a colour key, the heat
cells' contrast, the replay bar on a phone.
"""

from __future__ import annotations

import re

import numpy as np

from cluedo_env import core
from cluedo_env.core.state import ENVELOPE
from cluedo_env.replay import record_random_game
from tests.experiments import test_web_browser as browser
from tests.experiments.test_web_browser import WAIT_MS, deal, next_click

# its fixtures: the served app behind its gate, Chromium on the page
gate, served, server, chromium = browser.gate, browser.served, browser.server, browser.chromium

# The status line's text (the page's live region: a screen reader says each change).
LIVE = "[...document.querySelectorAll('[aria-live], [role=status], [role=alert]')].map((n) => n.textContent).join(' ')"
# Where focus is: 'actions' (a choice), 'result', 'setup-title', another id, or the tag of what has it.
FOCUS = """(() => { const a = document.activeElement;
  if (a.closest('#actions') && (a.tagName === 'BUTTON' || a.tagName === 'SELECT')) return 'actions';
  return a.id || a.tagName.toLowerCase(); })()"""
# The contrast (WCAG 2) of an element's text with its background laid over the panels' white.
CONTRAST = """(node) => {
  const rgba = (s) => { const v = s.match(/[\\d.]+/g).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = (rgb) => { const [r, g, b] = rgb.map((v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const s = getComputedStyle(node), [r, g, b, a] = rgba(s.backgroundColor);
  const back = lum([r, g, b].map((v) => 255 + (v - 255) * a)), text = lum(rgba(s.color).slice(0, 3));
  return (Math.max(back, text) + 0.05) / (Math.min(back, text) + 0.05); }"""
# Each heat cell with a number: its table, its red's opacity (the chance) and its contrast.
HEAT_CELLS = f"""() => [...document.querySelectorAll('#notepad td.heat, #heatmap td.heat')].filter((td) => td.textContent)
  .map((td) => {{ const rgba = td.style.backgroundColor.split(',');
    return [td.closest('table').id, rgba.length > 3 ? parseFloat(rgba[3]) : 1, ({CONTRAST})(td)]; }})"""


def drawn(page, action) -> None:
    """Do ``action`` (a click, a key) and wait for the view it brings."""
    before = int(page.get_attribute("#game", "data-renders") or 0)
    action()
    page.wait_for_function(
        f"Number(document.getElementById('game').dataset.renders || 0) > {before}", timeout=WAIT_MS
    )


def accuse_wrongly(page, served) -> None:
    """Make an accusation naming a suspect not in the envelope (read from the server's game)."""
    game = served[1].state.games[page.evaluate("view.game")]
    envelope = set(np.flatnonzero(game.state._owner[0] == ENVELOPE).tolist())
    wrong = page.evaluate(
        f"view.legal.find((a) => a.kind === 'accuse' && !{sorted(envelope)}.includes(a.suspect))"
    )
    for part in ("suspect", "weapon", "room"):
        page.select_option(f"[data-form=accuse] [data-part={part}]", str(wrong[part]))
    drawn(page, lambda: page.click("[data-form=accuse] [data-submit=accuse]"))


def test_focus_moves_to_the_next_choice_through_a_keyboard_game_in_chromium(chromium):
    """Each move redrew the choices and hid what had focus (the setup, the Leave button): focus fell to the
    page's body, and a screen reader lost its place."""
    page, errors = chromium
    for menu in page.locator("#agent-choices select").all():
        menu.select_option("notepad")
    page.fill("#seed", "4")
    page.focus("#start")
    drawn(page, lambda: page.keyboard.press("Enter"))
    decisions = 0
    while page.locator("#end[hidden]").count():
        assert page.evaluate(FOCUS) == "actions", (decisions, page.inner_text("#now"))
        # the next choice (after 8, the accusation, once offered): reached by Tab from the first, chosen by Enter
        accuse = decisions >= 8 and page.locator("[data-form=accuse]").count()
        wanted = (
            "#actions [data-submit=accuse]"
            if accuse
            else "#actions :is(button[data-action-id]:not([data-kind=accuse]), button[data-submit=suggest])"
        )
        for _ in range(60):
            if page.evaluate(f"document.activeElement === document.querySelector('{wanted}')"):
                break
            page.keyboard.press("Tab")
        else:
            raise AssertionError(f"Tab did not reach {wanted}")
        drawn(page, lambda: page.keyboard.press("Enter"))
        decisions += 1
    assert page.evaluate(FOCUS) == "result"
    page.keyboard.press("Tab")  # from the result's heading, past the reveal, to New game
    assert page.evaluate("document.activeElement.id") == "again"
    page.keyboard.press("Enter")
    page.wait_for_selector("#setup:not([hidden])")
    assert page.evaluate(FOCUS) == "setup-title"
    assert errors == []


def test_the_live_region_says_the_card_shown_the_cards_to_show_and_who_won_in_chromium(chromium, served):
    """The status line, the page's only live region, said "your move" and "game over": never the card shown
    to the person, the cards it was asked to show, nor who won."""
    page, errors = chromium
    deal(page)
    dealt = page.evaluate(LIVE)
    shown, asked = None, False
    while shown is None or not asked:
        drawn(page, next_click(page).click)
        said = page.evaluate(LIVE)
        new = page.evaluate(
            "view.story.filter((line) => / shows .* to P0 /.test(line) && !line.includes('a card'))"
        )
        if new and shown is None:
            shown = new[0]
            assert shown in said, (shown, said)
        if page.locator("#actions button[data-kind=show]").count():
            asked = True
            for card in page.locator("#actions button[data-kind=show]").all_inner_texts():
                assert card.removeprefix("show ") in said.partition("You may show")[2], (card, said)
    assert "You play P0 (Miss Scarlet); your cards: " in dealt, dealt
    page.click("#leave")
    assert page.evaluate(FOCUS) == "setup-title"
    deal(page)
    drawn(page, lambda: page.click("#actions button[data-kind=roll]"))
    while not page.locator("[data-form=accuse]").count():
        drawn(page, next_click(page).click)
    accuse_wrongly(page, served)
    said = page.evaluate(LIVE)
    assert page.inner_text("#result") in said and "The envelope: " in said, said
    assert errors == []


def test_a_player_out_is_said_in_words_and_pawns_carry_their_number_in_chromium(chromium, served):
    """Who was out showed only as grey struck text (3.54:1); pawns were coloured circles named on hover."""
    page, errors = chromium
    deal(page)
    while not page.locator("[data-form=accuse]").count():
        drawn(page, next_click(page).click)
    accuse_wrongly(page, served)
    rows = page.locator("#players-table tr").all_inner_texts()[1:]
    assert re.search(r"\bout\b", rows[0]), rows  # P0, the person
    grey = page.eval_on_selector_all("#players-table tr.out td", f"(tds) => tds.map({CONTRAST})")
    assert min(grey) >= 4.5, grey
    keys = page.eval_on_selector_all(
        "#players-table .swatch", "(s) => s.map((n) => [n.textContent, getComputedStyle(n).backgroundColor])"
    )
    pawns = page.eval_on_selector_all(
        "#pieces g[data-suspect]",
        "(g) => g.map((n) => [n.dataset.suspect, n.querySelector('text').textContent,"
        " getComputedStyle(n.querySelector('circle')).fill])",
    )
    assert sorted(number for _, number, _ in pawns) == ["0", "1", "2", "3", "4", "5"]
    assert all(suspect == number for suspect, number, _ in pawns)
    assert [number for number, _ in keys] == ["0", "1", "2", "3"]
    assert {number: fill for _, number, fill in pawns if int(number) < 4} == dict(keys)
    assert errors == []


def test_your_place_and_each_piece_s_are_said_in_words_in_chromium(chromium):
    """Where the pawns and weapons stood was drawn only: Now did not name the person's room, nor did the
    suggestion's controls."""
    page, errors = chromium
    deal(page)
    assert "You are on square " in page.inner_text("#now")
    while not page.locator("[data-form=suggest]").count():
        drawn(page, next_click(page).click)
    room = page.evaluate("catalogue.rooms[view.pawns[view.seat].room]")
    assert f"You are in the {room}." in page.inner_text("#now")
    assert page.inner_text("#actions legend:has(+ [data-form=suggest])") == f"Suggest in the {room}"
    places = page.locator("#places li").all_text_contents()
    assert any(line.startswith(f"{room}: ") and "Miss Scarlet (pawn 0, you)" in line for line in places), (
        places
    )
    weapons = page.evaluate("view.weapons.map((room, w) => [catalogue.rooms[room], catalogue.weapons[w]])")
    for where, weapon in weapons:
        assert any(line.startswith(f"{where}: ") and f"the {weapon}" in line for line in places), (
            weapon,
            places,
        )
    assert errors == []


def open_replay(page, name: str, seat: str) -> None:
    """Open replay ``name`` seen by ``seat`` (a seat number or "all") from the start page."""
    page.select_option("#replay-name", name)
    page.select_option("#replay-seat", seat)
    page.click("#open")
    page.wait_for_selector("#replay-bar:not([hidden])")


def go_to_step(page, step: int) -> None:
    page.eval_on_selector(
        "#step", "(el, v) => { el.value = v; el.dispatchEvent(new Event('change')); }", step
    )
    page.wait_for_function(
        f"document.getElementById('step-text').textContent.startsWith('step {step} of')", timeout=WAIT_MS
    )


def test_every_heat_cell_s_text_contrasts_4_5_to_1_in_chromium(chromium, tmp_path):
    """The notepad's envelope cells kept #222 text on the red (2.77:1 at 100%); the heat map's turned white
    above 60% (3.03:1 at 61%)."""
    page, errors = chromium
    folder = tmp_path / "replays"
    folder.mkdir(exist_ok=True)
    record = record_random_game(
        core.GameConfig(num_players=3), seed=21, path=folder / "game.jsonl", rng_seed=4
    )
    page.reload()
    page.wait_for_selector("#replay-name option[value='game.jsonl']", state="attached")
    cells, focused = [], []
    for seat in ("0", "1", "2"):
        open_replay(page, "game.jsonl", seat)
        for step in (record.num_steps // 4, record.num_steps // 2, record.num_steps - 1):
            go_to_step(page, step)
            cells += page.evaluate(HEAT_CELLS)
        page.click("#close-replay")
        page.wait_for_selector("#saved:not([hidden])")
        focused.append(page.evaluate(FOCUS))
    low = [cell for cell in cells if cell[2] < 4.5]
    assert not low, low[:5]
    # the cells read cover the chances that were too pale: the heat map's above 60%, the notepad's above 70%
    assert any(table == "heatmap" and 0.6 < chance < 0.8 for table, chance, _ in cells)
    assert any(table == "notepad" and chance > 0.7 for table, chance, _ in cells)
    assert focused == ["setup-title"] * 3  # the replay bar, hidden, had it
    assert errors == []


def test_the_replay_bar_fits_a_phone_s_width_in_chromium(chromium, tmp_path):
    """On a phone (390 px) the replay bar did not wrap: its Close button stood at x=606, off the screen."""
    page, errors = chromium
    folder = tmp_path / "replays"
    folder.mkdir(exist_ok=True)
    record_random_game(core.GameConfig(num_players=3), seed=21, path=folder / "game.jsonl", rng_seed=4)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("#replay-name option[value='game.jsonl']", state="attached")
    open_replay(page, "game.jsonl", "0")
    focused = page.evaluate(FOCUS)
    bar = page.eval_on_selector(
        "#replay-bar",
        "(b) => [b.scrollWidth, b.getBoundingClientRect().right,"
        " document.getElementById('close-replay').getBoundingClientRect().right]",
    )
    assert max(bar) <= 390, bar
    assert focused == "step-on"  # the Open button, hidden, had it
    page.click("#close-replay")
    assert errors == []
