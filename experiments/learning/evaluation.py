"""The learner against a fixed evaluation set: win rates on fixed deals, seats rotated.

``evaluate`` plays a network as agent 0 against ``num_players - 1`` agents of each kind of an
evaluation set (``experiments.learning.league.OpponentSettings``), on the deals
``EVAL_SEED_BASE + i`` (far from every training deal) with the seats rotated; ``play_against``
plays any learner so (``train_sb3``'s model). ``train_ppo``'s periodic ratings and final
evaluation, and the evaluations of ``imitate``, ``train_sb3`` and ``train_rllib``, are on these
deals; ``append_evaluation`` adds one to a run's ``evaluations.json``. ``with_intervals`` adds 95% Wilson intervals;
``final_evaluation`` writes a run's ``evaluation.json`` (with the package version that wrote it).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm import tqdm

from agents.arena import play_batch
from agents.base import Agent
from agents.ppo.agent import PPOAgent
from agents.ppo.network import ActorCritic
from agents.registry import make_agent
from cluedo_env import __version__, core
from cluedo_env.intervals import wilson_interval
from experiments.common.labels import label_refusal
from experiments.learning.league import OpponentSettings

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter

EVAL_SEED_BASE = 10**15  # evaluation deals: far from every training deal
EVAL_BATCH = 500


def evaluate(
    network: ActorCritic,
    game: core.GameConfig,
    opponents: list[OpponentSettings],
    num_games: int,
    deterministic: bool,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, dict[str, float]]:
    """The network (a ``PPOAgent``) against num_players - 1 agents of each kind, on fixed deals, seats
    rotated (``play_against``)."""
    frozen = copy.deepcopy(network).eval()
    return play_against(
        lambda: PPOAgent.from_network(frozen, seed=seed, deterministic=deterministic),
        game,
        opponents,
        num_games,
        seed=seed,
        progress=progress,
    )


def play_against(
    learner: Callable[[], Agent],
    game: core.GameConfig,
    opponents: Sequence[Any],
    num_games: int,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, dict[str, Any]]:
    """The learner (``learner()``, a fresh one for each batch of games) as agent 0 against
    num_players - 1 agents of each kind of ``opponents`` (``name``, ``options``, ``display``), on
    fixed deals, seats rotated; results by the kind's ``display``.

    A game is played until the learner's result is known: it stops as soon as the learner is
    out (a wrong accusation), since it can no longer win. Against opponents that never
    accuse, the rest of such a game would run to ``max_turns`` and cost most of the time.

    Raises:
        ValueError: two kinds of ``opponents`` share a ``display`` (one's results would replace the other's),
            or one's ``display`` is not a label (``experiments.common.labels.label_refusal``).
    """
    labels = [spec.display for spec in opponents]
    refused = next(filter(None, map(label_refusal, labels)), None)
    if refused:
        raise ValueError(f"an evaluation opponent's {refused}")
    if len(set(labels)) != len(labels):
        raise ValueError(
            f"the evaluation opponents need distinct labels (their results are kept by label), got {labels}"
        )
    P = game.num_players
    results = {}
    bar = tqdm(total=num_games * len(opponents), disable=not progress, unit=" games", desc="evaluation")
    for spec in opponents:
        wins = wrong = truncated = turns = stopped = 0
        for lo in range(0, num_games, EVAL_BATCH):
            n = min(EVAL_BATCH, num_games - lo)
            agent = learner()
            others = [make_agent(spec.name, seed=seed + k, **spec.options) for k in range(1, P)]
            result = play_batch(
                game,
                [agent, *others],
                EVAL_SEED_BASE + lo + np.arange(n),
                rotation=(lo + np.arange(n)) % P,
                stop=learner_out,
            )
            wins += int((result.winner == 0).sum())
            wrong += int((result.wrong_accusations[:, 0] > 0).sum())
            truncated += int(result.truncated.sum())
            turns += int(result.turns[~result.stopped].sum())
            stopped += int(result.stopped.sum())
            bar.update(n)
        finished = num_games - stopped
        results[spec.display] = {
            "games": num_games,
            "wins": wins,
            "win_rate": wins / num_games,
            "wrong_accusations": wrong,
            "wrong_accusation_rate": wrong / num_games,
            "truncated": truncated,
            "mean_turns": turns / finished if finished else None,  # of the games played to their end
        }
    bar.close()
    return results


def learner_out(state: core.State, seats: np.ndarray) -> np.ndarray:
    """Games where the learner (agent 0) accused wrongly: its result is known, a loss."""
    return state.eliminated[np.arange(len(seats)), seats[:, 0]]


def win_rate_line(
    agent_steps: int, num_opponents: int, label: str, result: dict[str, Any], wrong_accusations: bool = False
) -> str:
    """One evaluation's line for the console: the win rate against ``num_opponents`` of ``label`` with its
    95% interval (``win_low``, ``win_high``) and game count; with ``wrong_accusations``, their rate too."""
    line = (
        f"{agent_steps:>11,} agent-steps: vs {num_opponents} x {label} win rate "
        f"{result['win_rate']:.3f} [{result['win_low']:.3f}, {result['win_high']:.3f}] over {result['games']} games"
    )
    if wrong_accusations:
        line += f"; wrong accusations {result['wrong_accusation_rate']:.3f}"
    return line


def with_intervals(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``evaluate``'s results (updated in place; returned) with 95% Wilson intervals of the win and
    wrong-accusation rates: ``win_low``, ``win_high``, ``wrong_accusation_low``, ``wrong_accusation_high``."""
    for result in results.values():
        low, high = wilson_interval(result["wins"], result["games"])
        result.update(win_low=low, win_high=high)
        low, high = wilson_interval(result["wrong_accusations"], result["games"])
        result.update(wrong_accusation_low=low, wrong_accusation_high=high)
    return results


def append_evaluation(run_dir: Path, line: dict[str, Any]) -> None:
    """Add one evaluation (``line``: its counters and results) to ``run_dir/evaluations.json``, a JSON
    object a line."""
    with open(run_dir / "evaluations.json", "a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")


def final_evaluation(
    network: ActorCritic,
    game: core.GameConfig,
    args: Any,
    run_dir: Path,
    writer: SummaryWriter,
    step: int,
) -> dict[str, Any]:
    """``final_eval_games`` games against each evaluation opponent -> ``evaluation.json``
    (``{"cluedo_env_version", "game", "results"}``) with Wilson intervals.

    ``args`` is the run's config (``experiments.train_ppo.TrainConfig``: its ``eval_opponents``,
    ``final_eval_games``, ``eval_deterministic``, ``progress`` and ``game``); the win rates are also
    logged to ``writer`` at ``step``, and printed a line per opponent (mean turns n/a where no game was
    played to its end).
    """
    results = evaluate(
        network,
        game,
        args.eval_opponents,
        args.final_eval_games,
        args.eval_deterministic,
        seed=1,
        progress=args.progress,
    )
    for label, result in with_intervals(results).items():
        writer.add_scalar(f"eval/final_win_rate/{label}", result["win_rate"], step)
        turns = result["mean_turns"]  # None: no game played to its end
        print(
            f"  vs {game.num_players - 1} x {label:14s} win rate {result['win_rate']:.3f} "
            f"[{result['win_low']:.3f}, {result['win_high']:.3f}] over {result['games']} games; "
            f"wrong accusations {result['wrong_accusation_rate']:.3f}; "
            f"mean turns {'n/a' if turns is None else f'{turns:.1f}'}"
        )
    (run_dir / "evaluation.json").write_text(
        json.dumps(
            {"cluedo_env_version": __version__, "game": asdict(args.game), "results": results}, indent=2
        ),
        encoding="utf-8",
    )
    return results
