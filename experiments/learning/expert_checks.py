"""Checks of an expert-games dataset: its files against the card's checksums, its games against the core.

``checksum_problems`` compares each file the card lists with its sha256 (a changed, missing or
unlisted file is a problem). ``replay_problems`` plays every game of the decision rows again
through the core from its seed, with the recorded actions: at each step the deciding seat, the
legal mask and the core's part of the observation must be those recorded, and at the end the
winner, the truncation, the turns and each seat's summed reward those of the games table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cluedo_env import core

__all__ = ["checksum_problems", "list_matrix", "replay_problems", "sha256_of"]


def sha256_of(path: Path) -> str:
    """The sha256 of a file, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checksum_problems(folder: Path, files: Mapping[str, str], skip: tuple[str, ...] = ()) -> list[str]:
    """What differs between ``folder``'s files and ``files`` (relative path -> sha256).

    ``skip``: files not checksummed (the card itself, the lock file). A name that leads out of
    ``folder`` (absolute, or through ``..``) is a problem, and no file is read for it.
    """
    problems = []
    for name, expected in sorted(files.items()):
        path = folder / name
        if Path(name).is_absolute() or ".." in Path(name).parts:  # a downloaded card names only its own files
            problems.append(f"{name}: not a path inside the dataset folder (not read)")
        elif not path.is_file():
            problems.append(f"{name}: missing")
        elif sha256_of(path) != expected:
            problems.append(f"{name}: sha256 differs from the card's (the file changed or is corrupt)")
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    for name in sorted(present - set(files) - set(skip)):
        problems.append(f"{name}: not listed in the card")
    return problems


def list_matrix(column: pa.ChunkedArray | pa.Array, dtype: type) -> np.ndarray:
    """A column of equal-length lists as a ``[rows, width]`` array."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    values = column.flatten().to_numpy(zero_copy_only=False).astype(dtype)
    rows = len(column)
    return values.reshape(rows, -1) if rows else values.reshape(0, 0)


def replay_problems(config: core.GameConfig, decisions: pa.Table, games: pa.Table) -> list[str]:
    """Replay every game of ``games`` with the actions of ``decisions`` (rows in ``(game, step)`` order).

    Returns:
        One line per disagreement (empty: the recorded games are what the core plays).
    """
    game_ids = games["game"].to_numpy()
    count = games["decisions"].to_numpy().astype(np.int64)
    rows_game = decisions["game"].to_numpy()
    steps = decisions["step"].to_numpy().astype(np.int64)
    out_of_order = [
        "the decision rows are not every decision of the games table's games in (game, step) order"
    ]
    if (count < 0).any() or count.sum() != len(rows_game):  # (before np.repeat allocates what count says)
        return out_of_order
    starts = np.cumsum(count) - count
    if not (rows_game == np.repeat(game_ids, count)).all() or not (
        steps == np.arange(len(steps)) - np.repeat(starts, count)
    ).all():  # fmt: skip
        return out_of_order
    seats = decisions["seat"].to_numpy().astype(np.int64)
    actions = decisions["action"].to_numpy().astype(np.int64)
    if ((seats < 0) | (seats >= config.num_players)).any():
        return [f"a decision's seat is not a player of the game (0 to {config.num_players - 1})"]
    widths = {
        name: set(pc.list_value_length(decisions[name]).to_numpy(zero_copy_only=False).tolist())
        for name in ("legal_mask", "observation")
    }
    actions_count, seen_size = core.ActionLayout(config).num_actions, core.observation_size(config)
    if (
        widths["legal_mask"] - {actions_count}
        or len(widths["observation"]) > 1
        or min(widths["observation"], default=seen_size) < seen_size
    ):
        return [
            f"the legal masks are not {actions_count} wide or the observations not of one width of at least "
            f"{seen_size} (the game's actions and observation)"
        ]
    seeds = games["game_seed"]
    if seeds.null_count or (seeds.to_numpy() < 0).any():
        return ["a game's seed is missing or negative (the core's seeds are in [0, 2**63))"]
    if set(pc.list_value_length(games["rewards"]).to_numpy(zero_copy_only=False).tolist()) - {
        config.num_players
    }:
        return [f"a game's rewards are not {config.num_players}, one a player"]
    masks = list_matrix(decisions["legal_mask"], bool)
    observations = list_matrix(decisions["observation"], np.float32)
    state = core.init(config, games["game_seed"].to_numpy().astype(np.int64))
    rewards = np.zeros((len(game_ids), config.num_players))
    problems: list[str] = []
    for step in range(int(count.max(initial=0))):
        live = np.flatnonzero(count > step)
        rows = starts[live] + step
        if (state.done[live]).any():
            bad = live[state.done[live]][0]
            problems.append(f"game {game_ids[bad]}: over after {step} steps, recorded {count[bad]}")
            break
        bad = np.flatnonzero(state.current_player[live] != seats[rows])
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: another seat decides than recorded")
        mask = core.legal_action_mask(state)[live]
        bad = np.flatnonzero((mask != masks[rows]).any(axis=1))
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: the legal mask differs")
        seen = core.observe(state, seats[rows], live)  # the learner observation starts with the core's
        bad = np.flatnonzero((seen != observations[rows, : seen.shape[1]]).any(axis=1))
        if len(bad):
            problems.append(f"game {game_ids[live[bad[0]]]} step {step}: the core's observation differs")
        moves = np.zeros(len(game_ids), dtype=np.int64)
        moves[live] = actions[rows]
        try:
            core.step(state, moves, games=live)
        except ValueError as error:
            problems.append(f"game {game_ids[live[0]]} step {step}: a recorded action is refused ({error})")
            break
        rewards[live] += state.rewards[live]
        if len(problems) > 20:
            break
    if problems:
        return problems
    truth = {
        "winner": state.winner.astype(np.int64),
        "truncated": state.truncated.astype(bool),
        "turns": np.asarray(state.turns_played).astype(np.int64),
    }
    for name, replayed in truth.items():
        recorded = games[name].to_numpy().astype(replayed.dtype)
        for g in np.flatnonzero(replayed != recorded)[:5]:
            problems.append(f"game {game_ids[g]}: {name} {recorded[g]} recorded, {replayed[g]} replayed")
    if not state.done.all():
        problems.append(f"games {game_ids[~state.done][:5].tolist()} are not over after their recorded steps")
    recorded = list_matrix(games["rewards"], np.float64)
    for g in np.flatnonzero(~np.isclose(recorded, rewards).all(axis=1))[:5]:
        problems.append(
            f"game {game_ids[g]}: rewards {recorded[g].tolist()} recorded, {rewards[g].tolist()} replayed"
        )
    row_reward = decisions["reward"].to_numpy()
    if not np.isclose(row_reward, rewards[np.repeat(np.arange(len(game_ids)), count), seats]).all():
        problems.append("a decision row's reward is not its seat's reward of the game")
    return problems
