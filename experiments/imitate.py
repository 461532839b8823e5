"""Behaviour cloning: a PPO network learns to play as the belief agent plays, then is evaluated.

    python -m experiments.imitate                                  # the shipped recipe (configs/imitate.yaml)
    python -m experiments.imitate games=400 epochs=2 final_eval_games=100 exp_name=smoke
    python -m experiments.imitate --config-name imitate_no_beliefs  # ablation: without belief features

Three stages, in one run folder (``runs/imitate__<exp_name>__<seed>``; the command refuses one that is,
or holds, a symbolic link, before anything is written: the run would write through it). One run at a
time holds the folder (``tournament.lock``, an OS lock that ends with its process,
``experiments.common.folder_lock``): a second run of the same ``exp_name`` and seed started while one
goes on is refused in one line before it writes anything.

1. **Decisions.** The teacher (``teacher``: the belief agent) plays ``games``
   games, four players, seats rotated, against ``num_players - 1`` agents of one
   kind from ``opponents`` (batch ``k`` of ``batch`` games takes kind ``k mod
   len(opponents)``). ``agents.ppo.imitation.Recorder`` keeps, at each of its
   decisions, the learner observation of its seat (with ``network.belief_features``
   the exact marginals and entailed facts too), the legal actions and the action.
   Batches run in ``workers`` processes and are written one file each as they end
   (``decisions/batch_#####.npz``, plain arrays, read back without pickle); a
   run started again with the same config skips the batches already written.
   Each batch is checked before its arrays are read (``read_batch``: the
   names, dtypes and shapes its headers declare, at most 5 decisions of the
   teacher a turn, ``game.max_turns`` turns a game), and then its values (legal
   actions, finite observations and targets, at most ``batch`` wins): a run
   folder from elsewhere cannot make the run read more, or report a record
   its games cannot have. ``run.json`` records each run in the folder
   (``experiments.learning.imitation_sessions``): its start (UTC, ISO 8601 with
   the offset), the code (package version, git revision and whether the tree had uncommitted changes)
   and the batches it found and had to play (their numbers: a batch deleted and played again is the
   later run's; an imitate that recorded only their count, after one that named them, is given that many
   of them). A run that reuses batches recorded by other code (``decisions_code``), or by an
   imitate that recorded none (one older than ``run.json``, as 0.1.0's), says so in one warning line
   naming each code with its number of batches and this run's: the teacher's play can change with any
   revision, and another ``exp_name`` records the decisions again under this code.
2. **Imitation.** The network (``network``; warm-started from ``init_from`` by
   ``agents.ppo.warm_start``) is fitted to the decisions by maximum likelihood
   (``agents.ppo.imitation.imitate``): ``epochs`` passes, the last ``holdout``
   share of the decisions kept apart to report held-out loss and agreement
   (the share of decisions where its most likely action is the teacher's), in
   TensorBoard and ``history.json`` (null there with ``holdout=0``: no decision kept apart). A run started again in the folder first moves the
   earlier run's results (``model.pt``, ``history.json``, ``evaluation.json``, with a copy of its
   ``config.yaml``) and its TensorBoard events into ``superseded_<time>_<random>/``
   (``set_aside_results``), which TensorBoard shows as a run of its own: a run stopped part-way leaves
   no results of another run beside its own. ``targets=visits`` fits instead, where an
   IS-MCTS teacher (``teacher={name: ismcts}``) searched, each root candidate
   at its share of the visits: expert iteration's policy target (the batches
   keep both). The result is ``model.pt``, which
   ``make_agent("ppo", checkpoint=...)`` loads, and which ``train_ppo`` can
   continue from (``init_from=<run>/model.pt``).
3. **Evaluation.** ``final_eval_games`` games against each of ``eval_opponents``
   (``experiments.learning.evaluation.evaluate``: fixed deals, seats rotated, the most likely
   action with ``eval_deterministic``), with Wilson intervals, in ``evaluation.json`` (with the
   package version, ``cluedo_env_version``, the teacher's record and the last epoch's fit).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

try:  # modules of extras: a core-only install is told which extra to install
    import hydra
    import torch
    import yaml
    from hydra.core.config_store import ConfigStore
    from omegaconf import MISSING, DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error, command=__name__ == "__main__") from error

from agents.arena import play_batch
from agents.ppo.features import learner_observation_size
from agents.ppo.imitation import Recorder, imitate, one_hot_targets, stack_targets
from agents.ppo.model import load_model, save_model
from agents.ppo.network import ActorCritic
from agents.ppo.numpy_network import NPZ_ERRORS, Headers, read_npz
from agents.ppo.warm_start import warm_start
from agents.reasoners.ismcts import ISMCTSAgent
from agents.registry import AGENTS, load_named, make_agent
from cluedo_env import __version__, core
from cluedo_env.core.config import read_fields
from cluedo_env.intervals import wilson_interval
from experiments.common.extras import WorkerLost, watch_parent
from experiments.common.folder_lock import FolderRefused, lock_folder
from experiments.common.labels import check_distinct_labels
from experiments.common.output_folders import refuse_links, refuse_unwritable
from experiments.common.report import json_ready
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.trust import checked_main, command_settings
from experiments.common.value_checks import ConfigError, check_agents, check_all_set, exit_on_config_error
from experiments.learning.evaluation import evaluate, with_intervals
from experiments.learning.imitation_sessions import record_session
from experiments.learning.init_from import check_init_from
from experiments.learning.league import OpponentSettings
from experiments.learning.run_settings import RunSettings

TARGETS = ("action", "visits")  # what the network is fitted to (ImitateConfig.targets)
DECISION_SEED_BASE = 10**13  # the teacher's deals: apart from training (small) and evaluation (10**15) deals
# The most decisions of one seat in a turn: core.Phase's turn, move, suggest, refute and accuse.
DECISIONS_PER_TURN = 5
# What a run refused a folder in use is told (lock_folder).
IN_USE = "Wait for it to finish, or give this run another exp_name"


@dataclass
class ImitateConfig(RunSettings):
    """Settings of ``experiments.imitate`` (documented in the module docstring): ``RunSettings``' and
    these; their values are those of ``configs/imitate.yaml``, the one place of the defaults
    (``train_config(config_name="imitate")``)."""

    teacher: OpponentSettings = MISSING
    """the agent imitated"""
    opponents: list[OpponentSettings] = MISSING
    """the kinds of agent the teacher plays against, batch by batch in turn"""
    games: int = MISSING
    """games the teacher plays"""
    batch: int = MISSING
    """games per batch (per file)"""
    workers: int = MISSING
    """processes playing the batches"""
    init_from: str | None = MISSING
    """a model file, or the name of a shipped one, to warm-start the network from (null: from scratch)"""
    epochs: int = MISSING
    """passes over the fitted decisions"""
    learning_rate: float = MISSING
    """Adam's learning rate"""
    minibatch: int = MISSING
    """decisions per gradient step"""
    holdout: float = MISSING
    """share of the decisions kept apart for the held-out figures: the last recorded, so the last batches
    and part of the batch before, whose games then have early decisions fitted and late ones held out"""
    targets: str = MISSING
    """what the network is fitted to (``TARGETS``): "action", the teacher's; "visits", an IS-MCTS
    teacher's root visit shares where it searched (its action elsewhere)"""
    eval_opponents: list[OpponentSettings] = MISSING
    """the final evaluation's set: the learner against num_players - 1 agents of each kind"""
    eval_deterministic: bool = MISSING
    """evaluate the most likely action (as the imitation fits the teacher's choice) instead of sampling"""

    def validate(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) naming a bad field, its value and what is accepted."""
        self.check_run()
        for name in ("games", "batch", "workers", "epochs", "minibatch"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.games % self.batch:
            raise ConfigError(
                f"games must be a multiple of batch (the games are played a batch at a time), got games="
                f"{self.games} and batch={self.batch}"
            )
        if not 0 <= self.holdout < 1:
            raise ConfigError(f"holdout must be in [0, 1), got {self.holdout!r}")
        if self.targets not in TARGETS:
            raise ConfigError(f"targets must be one of {TARGETS}, got {self.targets!r}")
        if self.targets == "visits" and not (
            self.teacher.name in AGENTS
            and issubclass(load_named(AGENTS[self.teacher.name], "the teacher"), ISMCTSAgent)
        ):
            raise ConfigError(
                f"targets=visits needs a searching teacher (ismcts, determinize), got teacher {self.teacher.name!r}"
            )
        if not self.opponents:
            raise ConfigError("opponents must name at least one kind of agent")
        if not 0 < self.learning_rate < math.inf:
            raise ConfigError(f"learning_rate must be a finite number > 0, got {self.learning_rate!r}")
        named = [
            ("teacher", self.teacher),
            *((f"opponents.{k}", o) for k, o in enumerate(self.opponents)),
            *((f"eval_opponents.{k}", o) for k, o in enumerate(self.eval_opponents)),
        ]
        # before the teacher's games, not after them
        check_agents(
            ((f"{where} ({spec.display})", spec.name, spec.options) for where, spec in named),
            self.game.to_game_config(),
        )
        check_distinct_labels("eval_opponents", self.eval_opponents)
        check_init_from(self.init_from, self.game, self.network)  # its sizes too, before the teacher's games


ConfigStore.instance().store(name="imitate_schema", node=ImitateConfig)


def play_batch_of_decisions(args: ImitateConfig, index: int, path: str) -> int:
    """Batch ``index``: the teacher's games, its decisions written to ``path``; returns the teacher's wins."""
    torch.set_num_threads(1)
    game = args.game.to_game_config()
    P, n = game.num_players, args.batch
    first = index * n
    teacher = make_agent(args.teacher.name, seed=args.seed + first, **args.teacher.options)
    recorder = Recorder(teacher, belief_features=args.network.belief_features)
    kind = args.opponents[index % len(args.opponents)]
    others = [make_agent(kind.name, seed=args.seed + first + k, **kind.options) for k in range(1, P)]
    result = play_batch(
        game,
        [recorder, *others],
        DECISION_SEED_BASE + args.seed * 10**9 + first + np.arange(n),
        rotation=(first + np.arange(n)) % P,
    )
    observations, masks, actions = recorder.decisions()
    target_actions, target_weights = recorder.policy_targets()
    temporary = f"{path}.{os.getpid()}.tmp.npz"
    np.savez_compressed(
        temporary,
        observations=observations,
        masks=masks,
        actions=actions,
        target_actions=target_actions,
        target_weights=target_weights,
        teacher_wins=int((result.winner == 0).sum()),
    )
    os.replace(temporary, path)  # whole or absent: a killed run leaves no half-written batch
    return int((result.winner == 0).sum())


def collect(args: ImitateConfig, folder: Path) -> None:
    """Play the batches not yet on disk.

    Raises:
        WorkerLost: A worker process died (killed, out of memory); the batches written are kept,
            and running the command again plays only the others.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths = batch_paths(folder, args)
    batches = len(paths)
    todo = [k for k, path in enumerate(paths) if not path.exists()]
    bar = tqdm(
        total=batches,
        initial=batches - len(todo),
        unit=" batches",
        desc="teacher games",
        disable=not args.progress,
    )
    # A worker exits when this process is gone, even killed (watch_parent): nobody else would stop it.
    # Forked, with torch run here (a ppo agent checked, init_from read): safe only because a worker sets
    # torch to one thread before anything else (play_batch_of_decisions), so it never waits on the OpenMP
    # threads the fork did not copy (experiments.common.extras.worker_pool).
    with ProcessPoolExecutor(args.workers, initializer=watch_parent, initargs=(os.getpid(),)) as pool:
        try:
            for future in as_completed(
                [pool.submit(play_batch_of_decisions, args, k, str(paths[k])) for k in todo]
            ):
                future.result()
                bar.update(1)
        except BrokenProcessPool:
            bar.close()
            written = sum(path.exists() for path in paths)
            raise WorkerLost(
                f"a worker process died (killed, or out of memory); {written} of the {batches} batches of "
                f"decisions are saved in {folder}: run the same command again to play the others"
            ) from None
    bar.close()


def batch_paths(folder: Path, args: ImitateConfig) -> list[Path]:
    """The batch files of ``args``' recording in ``folder`` (its ``decisions``), written or not."""
    return [folder / f"batch_{k:05d}.npz" for k in range(-(-args.games // args.batch))]


def teacher_record(wins: int, games: int) -> dict[str, float]:
    """The teacher's record: its games, wins and win rate with its 95% Wilson interval."""
    low, high = wilson_interval(wins, games)
    return {"games": games, "teacher_wins": wins, "teacher_win_rate": wins / games, "ci95": [low, high]}


def read_batch(path: Path, args: ImitateConfig) -> dict[str, np.ndarray]:
    """A batch file's arrays, checked as ``play_batch_of_decisions`` writes them for ``args``' recording.

    Before any array is read, the names, dtypes and shapes its headers declare: the observations of
    ``args``' game and features, the game's actions, and at most ``DECISIONS_PER_TURN *
    game.max_turns`` decisions a game; then the values: every action legal where it was taken, finite
    observations, targets of the game's actions with finite weights >= 0 that add up to 1, and
    ``teacher_wins`` in ``[0, batch]``. (A batch written before the targets were kept has none.)

    Raises:
        ConfigError: naming the file and what is wrong.
    """
    game = args.game.to_game_config()
    width = learner_observation_size(game, args.network.belief_features)
    A = core.ActionLayout(game).num_actions
    most = args.batch * DECISIONS_PER_TURN * game.max_turns

    def check(headers: Headers) -> None:
        shapes = {name: tuple(shape) for name, (shape, _dtype) in headers.items()}
        targets = {"target_actions", "target_weights"} & set(shapes)
        if set(shapes) - targets != {"observations", "masks", "actions", "teacher_wins"} or len(targets) == 1:
            raise ValueError(
                f"it holds the arrays {sorted(shapes)}; a batch holds observations, masks, actions, "
                "teacher_wins (and target_actions with target_weights)"
            )
        n = shapes["actions"][0] if len(shapes["actions"]) == 1 else -1
        k = shapes["target_actions"][1] if len(shapes.get("target_actions", ())) == 2 else 1
        want = {
            "actions": ((n,), "int64"),
            "masks": ((n, A), "bool"),
            "observations": ((n, width), "float32"),
            "target_actions": ((n, k), "int64"),
            "target_weights": ((n, k), "float32"),
        }
        for name in [name for name in want if name in shapes]:
            if (shapes[name], headers[name][1].name) != want[name] or (
                name == "target_actions" and not 1 <= k <= A
            ):
                raise ValueError(
                    f"{name} is {headers[name][1].name} of shape {shapes[name]}; a batch of this run holds "
                    f"int64 actions [n], bool masks [n, {A}], float32 observations [n, {width}] and targets "
                    f"[n, 1 to {A}]"
                )
        if shapes["teacher_wins"] != () or headers["teacher_wins"][1].kind not in "iu":
            raise ValueError(
                f"teacher_wins is {headers['teacher_wins'][1].name} of shape {shapes['teacher_wins']}, not a whole number"
            )
        if n > most:
            raise ValueError(
                f"it holds {n:,} decisions, more than the {most:,} a batch can hold (batch={args.batch} games "
                f"of at most max_turns={game.max_turns} turns, at most {DECISIONS_PER_TURN} decisions a turn)"
            )

    try:
        part = read_npz(path, most * (4 * width + 13 * A + 8) + 8, "this run's batches may hold", check)
        actions, masks = part["actions"], part["masks"]
        legal = actions.min(initial=0) >= 0 and actions.max(initial=0) < A
        if not (legal and masks[np.arange(len(actions)), actions].all()):
            raise ValueError("it holds actions that were not legal where they were taken")
        if not np.isfinite(part["observations"]).all():
            raise ValueError("its observations hold a NaN or an infinity")
        if "target_actions" in part:
            chosen, weights = part["target_actions"], part["target_weights"]
            if chosen.min(initial=0) < 0 or chosen.max(initial=0) >= A:
                raise ValueError(f"its target_actions hold actions outside [0, {A})")
            sums = weights.sum(axis=1)
            if not (np.isfinite(weights).all() and (weights >= 0).all() and np.allclose(sums, 1, atol=1e-3)):
                raise ValueError("its target_weights are not weights >= 0 adding up to 1 a decision")
        wins = int(part["teacher_wins"])
        if not 0 <= wins <= args.batch:
            raise ValueError(f"its teacher_wins is {wins}, not in [0, {args.batch}] (the games of a batch)")
    except (ValueError, *NPZ_ERRORS) as error:
        raise ConfigError(
            f"{path} is not a batch of decisions of this run ({error}); give this run another exp_name "
            "(or remove that folder)"
        ) from None
    return part


def load_decisions(
    folder: Path, args: ImitateConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray], int]:
    """``folder``'s batch files, each checked (``read_batch``) and then stacked: ``(observations, masks,
    actions, policy targets, the teacher's wins)`` (a batch written before the targets were kept: its
    actions, ``one_hot_targets``).

    Raises:
        ConfigError: naming a batch file that is not one of ``args``' recording.
    """
    parts = [read_batch(path, args) for path in batch_paths(folder, args)]
    observations, masks, actions = (
        np.concatenate([part[key] for part in parts]) for key in ("observations", "masks", "actions")
    )
    targets = stack_targets(
        [
            (part["target_actions"], part["target_weights"])
            if "target_actions" in part
            else one_hot_targets(part["actions"])
            for part in parts
        ]
    )
    return observations, masks, actions, targets, sum(int(part["teacher_wins"]) for part in parts)


# What the recorded decisions depend on: a run folder's batches are reused only under the same values.
RECORDING = ("seed", "game", "teacher", "opponents", "games", "batch", "network.belief_features")


def _check_reuse(folder: Path, args: ImitateConfig) -> None:
    """Refuse to reuse ``folder``'s recorded batches when they were recorded under other settings."""
    if not (folder / "config.yaml").is_file():
        return
    try:
        before = OmegaConf.load(folder / "config.yaml")
        if not isinstance(before, DictConfig):
            raise ValueError("not a mapping of settings")
        recorded = [_recorded(before, key) for key in RECORDING]
    except (OSError, yaml.YAMLError, OmegaConfBaseException, TypeError, ValueError, AttributeError) as error:
        raise ConfigError(
            f"{folder / 'config.yaml'} cannot be read as a run's settings ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''}); give this run another exp_name (or remove that "
            "folder)"
        ) from None
    now = OmegaConf.structured(args)
    changed = [key for key, value in zip(RECORDING, recorded, strict=True) if value != _recorded(now, key)]
    if changed:
        raise ConfigError(
            f"{folder} holds decisions recorded with other {', '.join(changed)}; "
            "give this run another exp_name (or remove that folder)"
        )


def _recorded(config: DictConfig, key: str) -> object:
    """``key``'s value in a run's config; the game's as files write it (a folder recorded before a rule
    field of ``core.config.LATER_FIELDS`` existed has it at the value meant then)."""
    value = OmegaConf.select(config, key)
    return read_fields(OmegaConf.to_container(value)) if key == "game" and value is not None else value


# What a run writes in its folder after its config: an earlier run's are set aside when a run starts.
RESULTS = ("model.pt", "history.json", "evaluation.json")


def set_aside_results(folder: Path) -> Path | None:
    """Move what an earlier run in ``folder`` (a run started again under the same ``exp_name`` and seed)
    made, its ``RESULTS`` and TensorBoard events files, into a new subfolder
    ``superseded_<time>_<random>`` with a copy of its ``config.yaml`` (the folder keeps its own: it binds
    the decisions, ``_check_reuse``). TensorBoard shows the subfolder as a run of its own. Done before
    the run writes anything: the folder's files are then the current run's alone, and a run stopped
    part-way leaves no ``evaluation.json`` (``plot_imitation`` takes the folder as unfinished). Returns
    the subfolder (None: nothing to move)."""
    earlier = sorted(folder.glob("events.out.tfevents.*")) + [
        folder / name for name in RESULTS if (folder / name).is_file()
    ]
    if not earlier:
        return None
    aside = Path(tempfile.mkdtemp(prefix=f"superseded_{int(time.time())}_", dir=folder))  # one per run
    if (folder / "config.yaml").is_file():
        shutil.copy2(folder / "config.yaml", aside / "config.yaml")
    for path in earlier:
        path.replace(aside / path.name)
    return aside


def run_name(args: ImitateConfig) -> str:
    """The run folder's name in ``runs_dir``: ``imitate__<exp_name>__<seed>``, reused by a run started again."""
    return f"imitate__{args.exp_name}__{args.seed}"


def run(args: ImitateConfig) -> Path:
    """The three stages; returns the run folder.

    The folder is locked for the run (``experiments.common.folder_lock``: ``tournament.lock``, an OS lock
    that ends with the process): a second run of the same ``exp_name`` and seed is refused before it
    writes anything.

    Raises:
        FolderInUse: Another run holds the folder.
    """
    check_all_set(args, 'train_config(overrides, config_name="imitate", **values)')
    args.validate()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    folder = Path(args.runs_dir) / run_name(args)
    folder.mkdir(parents=True, exist_ok=True)
    with lock_folder(folder, advice=IN_USE):  # one run at a time, from its config to its evaluation
        return _run_locked(args, folder)


def _run_locked(args: ImitateConfig, folder: Path) -> Path:
    _check_reuse(folder, args)
    initial = load_model(args.init_from) if args.init_from else None  # (it may be the model set aside)
    aside = set_aside_results(folder)
    if aside is not None:
        print(f"the earlier run's results and events set aside in {aside} (TensorBoard shows them apart)")
    (folder / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.structured(args)), encoding="utf-8")
    print(f"run folder: {folder}")
    record_session(folder, batch_paths(folder / "decisions", args))
    start = time.time()
    collect(args, folder / "decisions")
    observations, masks, actions, targets, wins = load_decisions(folder / "decisions", args)
    teacher = teacher_record(wins, -(-args.games // args.batch) * args.batch)
    print(
        f"{len(actions)} decisions of the teacher in {teacher['games']} games "
        f"(it won {teacher['teacher_win_rate']:.1%}), {time.time() - start:.0f} s"
    )

    game = args.game.to_game_config()
    network = ActorCritic(game, args.network)
    if initial is not None:
        warm_start(network, initial)
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(folder))
    history = []
    epochs = imitate(
        network,
        observations,
        masks,
        actions,
        args.epochs,
        args.minibatch,
        args.learning_rate,
        args.seed,
        args.holdout,
        targets if args.targets == "visits" else None,
    )
    for row in tqdm(epochs, total=args.epochs, desc="imitation", unit=" epochs", disable=not args.progress):
        history.append(row)
        for key in ("loss", "holdout_loss", "holdout_agreement"):
            writer.add_scalar(f"imitation/{key}", row[key], row["epoch"])
    # (no holdout, holdout=0: its loss and agreement are NaN, written null: strict JSON has no NaN)
    (folder / "history.json").write_text(
        json.dumps(json_ready(history), indent=1, allow_nan=False), encoding="utf-8"
    )
    save_model(folder / "model.pt", network)
    report = {
        "cluedo_env_version": __version__,
        "teacher": teacher,
        "decisions": len(actions),
        "imitation": history[-1],
        "seconds_to_model": time.time() - start,
    }
    if args.final_eval_games:
        results = evaluate(
            network,
            game,
            args.eval_opponents,
            args.final_eval_games,
            args.eval_deterministic,
            progress=args.progress,
        )
        for name, result in with_intervals(results).items():
            writer.add_scalar(f"final_eval/win_rate/{name}", result["win_rate"], len(history))
        report["evaluation"] = results
    report["seconds"] = time.time() - start
    writer.close()
    (folder / "evaluation.json").write_text(
        json.dumps(json_ready(report), indent=1, allow_nan=False), encoding="utf-8"
    )
    print(json.dumps(report.get("evaluation", {}), indent=1))
    return folder


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="imitate", version_base=None)
def main(cfg: ImitateConfig) -> None:
    args, _ = command_settings(cfg, ["teacher", "opponents", "eval_opponents"], ["init_from", "runs_dir"])
    refuse_unwritable({"runs_dir": args.runs_dir}, utf8_writers=True)
    refuse_links({"runs_dir": args.runs_dir}, sub_folder=run_name(args))  # a reused folder from elsewhere
    try:
        with exit_on_config_error():
            run(args)
    except (WorkerLost, FolderRefused) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
