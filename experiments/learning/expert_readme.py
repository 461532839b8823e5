"""The expert-games dataset's ``README.md``: a Hugging Face dataset card, from the dataset's ``dataset.json``.

Its YAML header names the two Parquet tables as configurations, so ``datasets.load_dataset(folder)``
gives the decisions and ``datasets.load_dataset(folder, "games")`` the games (the Minari files
beside them are not read); the text says what the dataset is, its counts, its columns and how to
load it. The card ``dataset.json`` stays the complete record (settings, checksums).
"""

from __future__ import annotations

__all__ = ["readme_text"]

HEADER = """---
pretty_name: Cluedo expert games
license: mit
task_categories:
- reinforcement-learning
tags:
- cluedo
- imitation-learning
- offline-rl
configs:
- config_name: decisions
  data_files: decisions/*.parquet
  default: true
- config_name: games
  data_files: games/*.parquet
---
"""


def readme_text(card: dict) -> str:
    """The ``README.md`` of the dataset whose card is ``card``."""
    counts = card["counts"]
    lines = [
        HEADER,
        f"# Cluedo expert games, version {card['version']}",
        "",
        card["description"],
        "",
        f"Written by `{card['command']}` (cluedo-env {card['created_with']['cluedo_env']}); `dataset.json` "
        "holds the settings, the rules, the observation's index table and the sha256 of each of the dataset's files "
        "(`python -m experiments.expert_dataset --verify <folder>` checks them and replays every game).",
        "",
        f"- {counts['games']} games, {counts['decisions']} decisions "
        f"({', '.join(f'{name}: {n}' for name, n in counts['decisions_by_agent'].items())})",
        f"- Minari (`minari/`, dataset id `{card['minari']['dataset_id']}`): {counts['minari_episodes']} episodes, "
        f"{counts['minari_steps']} steps"
        if card["minari"]
        else "- no Minari part",
    ]
    for name, row in card["outcomes"]["by_agent"].items():
        low, high = row["ci95"]
        lines.append(
            f"- {name} won {row['wins']} of its {row['seats']} seats: {row['win_rate']:.1%} "
            f"[{low:.1%}, {high:.1%}] (95% Wilson interval)"
        )
    for table, schema in card["schema"].items():
        lines += ["", f"## `{table}`", "", "| column | type |", "|---|---|"]
        lines += [f"| `{column}` | {kind} |" for column, kind in schema.items()]
    lines += [
        "",
        "## Loading",
        "",
        "```python",
        "import datasets, minari, os, pandas",
        "",
        'decisions = datasets.load_dataset("FOLDER")["train"]  # the games: datasets.load_dataset("FOLDER", "games")',
        'frame = pandas.read_parquet("FOLDER/decisions")',
        'os.environ["MINARI_DATASETS_PATH"] = "FOLDER/minari"',
        f'episodes = minari.load_dataset("{card["minari"]["dataset_id"] if card["minari"] else "cluedo/expert-v1"}")',
        "```",
        "",
    ]
    return "\n".join(lines)
