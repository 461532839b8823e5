"""What a tournament folder's ``config.yaml`` says of its games: the rules, the agent behind each label, how
its line-ups are formed and its deals seeded, and the line-ups it plans.

``experiments.compare`` refuses to pair runs of other rules with it, and ``cluedo-stats`` to pool runs in
which a player count's rules or a label's agent differ; ``cluedo-stats`` rebuilds from it a run's report
whose ``stats.json`` is not the run's own. The file is read with ``yaml.safe_load`` (a folder
may come from elsewhere); one that is missing or unreadable says nothing (None). It is UTF-8; one that is
not is read in the locale's encoding, in which versions before 0.2 wrote it (cp1252 on Windows, where a path
or a label with an accent would otherwise make the file say nothing, and runs of other rules be pooled).
"""

from __future__ import annotations

import locale
from pathlib import Path

from cluedo_env.core.config import read_fields
from experiments.common.extras import missing_extra

__all__ = ["run_agents", "run_lineups", "run_plan", "run_rules"]


def _config(folder: Path) -> dict | None:
    try:  # pyyaml comes with an extra: a core-only install is told which to install
        import yaml
    except ModuleNotFoundError as error:
        raise missing_extra(error, command=True) from error
    try:
        data = (folder / "config.yaml").read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:  # written by an earlier version in the locale's encoding
            text = data.decode(locale.getpreferredencoding(False))
        config = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, LookupError, yaml.YAMLError):
        return None
    return config if isinstance(config, dict) else None


def run_rules(folder: Path) -> dict | None:
    """The ``game`` section of a run's ``config.yaml`` (its rules), or None where the folder has none."""
    game = (_config(folder) or {}).get("game")
    return read_fields(game) if isinstance(game, dict) else None  # a rule added since, at its old meaning


def run_agents(folder: Path) -> dict[str, dict] | None:
    """Each label of a run's line-up and its agent (``name`` and ``options``), or None where the folder's
    ``config.yaml`` does not say."""
    lineup = (_config(folder) or {}).get("lineup")
    agents = lineup.get("agents") if isinstance(lineup, dict) else None
    if not isinstance(agents, list) or not all(isinstance(a, dict) and "name" in a for a in agents):
        return None
    # The label as results give it (``experiments.common.settings.AgentSpec.display``): an import path's
    # agent is its class name.
    return {
        str(a.get("label") or str(a["name"]).rpartition(":")[2]): {
            "name": a["name"],
            "options": a.get("options") or {},
        }
        for a in agents
    }


def run_plan(folder: Path) -> dict:
    """How a run's ``config.yaml`` forms its line-ups and seeds its deals: ``{"mode": ..., "seed": ...}``
    (``lineup.mode``, a name, and ``seed``, a whole number), each only where the file gives one."""
    config = _config(folder) or {}
    lineup = config.get("lineup")
    mode, seed = lineup.get("mode") if isinstance(lineup, dict) else None, config.get("seed")
    return ({"mode": mode} if isinstance(mode, str) else {}) | ({"seed": seed} if type(seed) is int else {})


def run_lineups(folder: Path) -> list[str] | None:
    """The line-ups a run's ``config.yaml`` plans, named and ordered as the tournament's report lists them
    (``experiments.common.chunks.lineups``), those without games too; None where the file does not say its
    entrants, player count, ``lineup.mode`` and ``lineup.field``."""
    try:  # the tournament's settings need Hydra, which comes with an extra (``compare`` reads rules without)
        from experiments.common.chunks import lineup_id, lineups
        from experiments.common.settings import (
            LINEUP_MODES,
            AgentSpec,
            GameSettings,
            LineupConfig,
            TournamentConfig,
        )
    except ModuleNotFoundError as error:
        raise missing_extra(error, command=True) from error
    lineup, labels = (_config(folder) or {}).get("lineup"), list(run_agents(folder) or {})
    players = (run_rules(folder) or {}).get("num_players")
    mode, field = (lineup.get("mode"), lineup.get("field")) if isinstance(lineup, dict) else (None, None)
    if (
        len(labels) < 2
        or type(players) is not int
        or players < 2
        or mode not in LINEUP_MODES
        or not isinstance(field, list)
        or not all(label in labels for label in field)
    ):
        return None
    entrants = LineupConfig([AgentSpec(label=label) for label in labels], mode, list(field))
    plan = TournamentConfig(game=GameSettings(num_players=players), lineup=entrants)
    return [lineup_id(planned) for planned in lineups(plan)]
