"""The README's example, run exactly as printed, plays real games; its leaderboard and links hold;
``simple_actions`` plays by the rules. The guides' examples run in ``tests/test_docs.py``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.baselines.simple import simple_actions
from cluedo_env import core
from tests.conftest import ROOT

README = ROOT / "README.md"


def python_blocks(page: Path) -> list[str]:
    """Every python code block of a Markdown page, in order."""
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def page_block(page: Path, starting: str) -> str:
    """The page's one python block whose code contains ``starting``."""
    blocks = [b for b in python_blocks(page) if starting in b]
    assert len(blocks) == 1, f"one {page.name} python block with {starting!r}, found {len(blocks)}"
    return blocks[0]


def readme_block(starting: str) -> str:
    """The README's python block whose code contains ``starting``."""
    return page_block(README, starting)


def test_readme_env_loop_ends_with_a_winner():
    winners = []
    code = readme_block("cluedo_v0.env(")
    for seed in range(8):  # the printed seed and seven more
        namespace: dict = {}
        exec(code.replace("seed=42", f"seed={42 + seed}").replace("print(env.render())", ""), namespace)
        winners.append(int(namespace["env"].unwrapped.game_state.winner[0]))
    assert sum(w >= 0 for w in winners) >= 7, winners


def test_readme_core_loop_keeps_the_mask_and_ends_with_winners(capsys):
    """The README's core loop, as printed (1,024 games): the fused step, the mask it keeps."""
    code = readme_block("core.init(config")
    assert "check=False, mask=mask" in code and code.count("legal_action_mask") == 1
    namespace: dict = {}
    exec(code, namespace)
    assert (namespace["state"].winner >= 0).mean() > 0.9
    assert "of the games have a winner" in capsys.readouterr().out


def test_readme_reads_in_five_minutes_and_its_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    targets = re.findall(r"\]\((?!https?://)([^)#\s]+)", text)
    assert targets and [t for t in targets if not (ROOT / t).exists()] == []
    for extra, command in (
        ("experiments", "python -m experiments.tournament"),
        ("dev", "python -m pytest -n auto"),
    ):
        assert f'python -m pip install -e ".[{extra}]" && {command}\n' in text


def test_readme_leaderboard_is_the_default_tournaments_report():
    """Each agent's win share in the README's table is its report's, interval and all, over 1,600 seats."""
    text = README.read_text(encoding="utf-8")
    report = (ROOT / "docs/results/2026-12-04-learned/default/report.md").read_text(encoding="utf-8")
    leaderboard = report.split("### Leaderboard", 1)[1].split("###", 1)[0]
    reported = {
        cells[1].strip(): (cells[2].strip(), cells[4].strip())
        for cells in (row.split("|") for row in leaderboard.splitlines() if row.startswith("| "))
        if cells[1].strip() != "agent"
    }
    table = text.split("## The agents' leaderboard", 1)[1].split("\n\n")[2]
    rows = {
        cells[1].strip(" `"): cells[3].strip(" *")
        for cells in (r.split("|") for r in table.splitlines())
        if len(cells) > 3 and cells[1].startswith(" `")
    }
    assert set(rows) == set(reported)
    assert rows == {agent: share for agent, (_seats, share) in reported.items()}
    assert {seats for seats, _share in reported.values()} == {"1600"}
    assert "each agent sits in 1,600 of the 2,000 games" in " ".join(text.split())


@pytest.mark.parametrize("players", [2, 3, 6])
def test_simple_actions_plays_legal_games_to_a_winner(players):
    config = core.GameConfig(num_players=players, duel=players == 2)
    state = core.init(config, seeds=np.arange(64))
    rng = np.random.default_rng(1)
    while not state.done.all():
        mask = core.legal_action_mask(state)
        live = np.flatnonzero(~state.done)
        actions = np.zeros(len(mask), dtype=np.int64)
        obs = core.observe(state, state.current_player[live], games=live)
        actions[live] = simple_actions(obs, mask[live], config, rng)
        assert mask[live, actions[live]].all()
        core.step(state, actions)
    assert (state.winner >= 0).mean() > 0.75
    assert not state.eliminated.any()


def test_simple_actions_accuses_the_pinned_envelope_and_nothing_else():
    config = core.GameConfig(num_players=4)
    layout = core.ActionLayout(config)
    offset = next(o for name, _shape, o in core.observation_pieces(config) if name == "unseen")
    obs = np.zeros((2, core.observation_size(config)), dtype=np.float32)
    mask = np.zeros((2, layout.num_actions), dtype=bool)
    mask[:, layout.ACCUSE : layout.ACCUSE + layout.sizes["accuse"]] = True
    mask[:, layout.END_TURN] = True
    S, W = config.cards.num_suspects, config.cards.num_weapons
    obs[0, offset + np.array([2, S + 1, S + W + 4])] = 1  # one suspect, weapon, room unseen: pinned
    obs[1, offset + np.array([2, 3, S + 1, S + W + 4])] = 1  # two suspects unseen: not pinned
    actions = simple_actions(obs, mask, config, np.random.default_rng(0))
    assert actions[0] == layout.encode("accuse", 2, 1, 4)
    assert actions[1] == layout.END_TURN
    assert isinstance(simple_actions(obs[0], mask[0].astype(np.int8), config, np.random.default_rng(0)), int)


def test_simple_actions_rejects_mismatched_shapes():
    config = core.GameConfig(num_players=4)
    with pytest.raises(ValueError, match="one observation per mask row"):
        simple_actions(np.zeros((2, 10)), np.ones((3, 405), dtype=bool), config, np.random.default_rng(0))
