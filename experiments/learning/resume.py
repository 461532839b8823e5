"""What a resumed PPO run is: its checkpoint's config, with only the values that may change changed.

``resume=<checkpoint or run dir>`` continues a run exactly as it would have gone on (to the bit with
the same threads and compilation: another thread count or ``compile`` sums in another order, a
difference of about 1e-6 in the weights after a few updates, which then grows as any rounding does). The
run's config comes from the checkpoint; of the command line's other values only those that change how
the run goes on are applied (``RESUMABLE``: the budget ``total_timesteps``, threads, compilation,
logging, checkpoints, how often it evaluates and the final evaluation's size); any other changed
value stops the resume with a message. A new budget re-times what follows the fraction of training
done (the learning rate's annealing, the opponents' windows, ``snapshot_start``, the anchor's fade);
the size of the evaluations during training (``eval_games``) is kept, so that the learning curves,
which read it from the run's ``config.yaml``, count every point's games right. A checkpoint is
plain data, but the agents it names are code and options: an agent named
by import path, or an option that reaches the network or files, is used only if the command line
names it too (or gives ``trust_files=true``). So is the model file it starts from (``init_from``,
which the resumed run reads again): resuming a run started with ``init_from=FILE`` takes
``init_from=FILE`` again on the command line, or ``trust_files=true``. A checkpoint's config is bounded
before anything walks or merges it (``MAX_CONFIG_VALUES`` values, each counted as often as the file's
shared references reach it, ``MAX_CONFIG_DEPTH`` deep, keys that are strings): a small file of shared
references would otherwise expand into millions of values. The whole checkpoint is bounded so, more
loosely, when it is read (``experiments.learning.checkpoints.MAX_CHECKPOINT_VALUES``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from agents.ppo.games import RETIRED
from agents.ppo.wiring import SHIPPED, model_path
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.trust import refuse_untrusted_options
from experiments.common.value_checks import ConfigError, first_interpolation
from experiments.learning.checkpoints import exceeds, load_checkpoint

# What a resume may change: how the run goes on (budget, threads, compilation, logging, checkpoints, how often
# it evaluates, the final evaluation), never what it learns from (every other field is the checkpoint's).
RESUMABLE = (
    "total_timesteps",
    "progress",
    "torch_threads",
    "update_threads",
    "compile",
    "checkpoint_every",
    "keep_checkpoints",
    "eval_every",
    "final_eval_games",
)
# The settings of a checkpoint's config that name a file the resumed run reads: taken only when the config
# given now names the same file (on the command line), or with trust_files.
# What a run is told when another process trains the run folder it would write (lock_folder's advice)
IN_TRAINING = "Wait for it to finish, or stop it, before resuming"
CHECKPOINT_READS = ("init_from",)
# The values a checkpoint of an older version, saved before a setting existed, gets for it.
SHIPPED_CONFIG = SHIPPED_CONFIGS / "train_ppo.yaml"
# Bounds of a checkpoint's config, far above any run's (the shipped configs hold about 100 values, 4 deep):
# a file of shared references is small, and each value they reach, once walked, counts.
MAX_CONFIG_VALUES = 10_000
MAX_CONFIG_DEPTH = 32


def _reads_nothing_from_elsewhere(args: Any, given: Any, key: str) -> bool:
    """Whether the checkpoint's file setting ``key`` reads no file the checkpoint chose: none, the one the
    command line gives, or a shipped model by its name (``cluedo_ppo_4p.pt``, read from the package when
    no file of that name stands here: ``agents.ppo.wiring.model_path``)."""
    value = getattr(args, key)
    return value in (None, getattr(given, key)) or model_path(value).resolve().parent == SHIPPED


def resume_run(given: Any, overrides: Iterable[str] | None) -> tuple[Any, Path, dict[str, Any]]:
    """The config of the run that ``given.resume`` continues, its checkpoint file and the checkpoint.

    Args:
        given: The config given now (``experiments.train_ppo.TrainConfig``), ``resume`` set.
        overrides: The keys whose values in ``given`` are meant (``resumed_config``).

    Raises:
        FileNotFoundError, ValueError: No readable checkpoint (``load_checkpoint``), a change a
            resume may not make (``resumed_config``), code only the checkpoint names
            (``check_named_code``), or a budget that ends before the checkpoint.
        experiments.common.trust.UntrustedOption: Options only the checkpoint names that reach
            outside the game, or an ``init_from`` other than null that ``given`` does not name too
            (without ``trust_files``).
    """
    try:
        checkpoint_path, checkpoint = load_checkpoint(given.resume)
    except (FileNotFoundError, ValueError) as error:  # nothing there, or nothing readable as a checkpoint
        raise ConfigError(str(error)) from error
    args = resumed_config(checkpoint["config"], given, overrides)
    check_named_code(args, given, checkpoint["games"])
    if not given.trust_files:
        reads = [key for key in CHECKPOINT_READS if not _reads_nothing_from_elsewhere(args, given, key)]
        refuse_untrusted_options(
            checkpoint_agents(args, checkpoint["games"]),
            checkpoint_path,
            confirmed=named_by(given),
            how="give the same opponents, eval_opponents and init_from on the command line"
            + "".join(f" (this run's {key}={getattr(args, key)})" for key in reads),
            settings=reads,
        )
    args.trust_files = given.trust_files
    args.resume = str(checkpoint_path)
    if args.num_updates < checkpoint["update"]:
        raise ConfigError(
            f"resume: total_timesteps={args.total_timesteps} makes {args.num_updates} updates, "
            f"but the checkpoint is at update {checkpoint['update']}"
        )
    return args, checkpoint_path, checkpoint


def _refuse_oversized(saved: Any) -> None:
    """Raise ``ConfigError`` where a checkpoint's config holds more than ``MAX_CONFIG_VALUES`` values (each
    counted as often as the file's shared references reach it: ``checkpoints.exceeds``), is nested more
    than ``MAX_CONFIG_DEPTH`` deep, or has a key that is not a string."""
    if exceeds(saved, MAX_CONFIG_VALUES, MAX_CONFIG_DEPTH):
        raise ConfigError(
            f"resume: the checkpoint's config holds more than {MAX_CONFIG_VALUES:,} values or is nested "
            f"more than {MAX_CONFIG_DEPTH} deep (a run's config holds about 100, 4 deep; a value counts "
            "as often as it is reached), so it is no run's saved config"
        )
    stack = [saved]  # bounded now: a walk is short
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            if not all(isinstance(key, str) for key in value):
                raise ConfigError(
                    f"resume: the checkpoint's config has a key that is not a string: "
                    f"{next(repr(key)[:80] for key in value if not isinstance(key, str))} (a run's config has "
                    "names only), so it is no run's saved config"
                )
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)


def _refuse_interpolations(value: Any, key: str) -> None:
    """Raise ``ValueError`` naming the first string of ``value`` (a checkpoint's plain data) that
    OmegaConf would resolve as an interpolation."""
    found = first_interpolation(value, key)
    if found is not None:
        raise ConfigError(
            f"the checkpoint's {found[0]} is an interpolation ({found[1][:80]!r}): a saved config holds only "
            "resolved values, so this one was not saved by train_ppo"
        )


def resumed_config(
    saved: Mapping[str, Any],
    args: Any,
    overrides: Iterable[str] | None,
    resumable: Sequence[str] = RESUMABLE,
    shipped_config: Path = SHIPPED_CONFIG,
) -> Any:
    """The config of a resumed run: the checkpoint's, with the overrides that may change applied.

    Args:
        saved: The checkpoint's config.
        args: The config given now (a ``TrainConfig``, or another command's: the resumed config is of
            its type). A value the checkpoint lacks (saved before the setting existed) is
            ``shipped_config``'s.
        overrides: The keys (dotted, as on the command line) whose values in ``args`` are meant;
            None: every value where ``args`` differs from ``saved``.
        resumable: The keys a resume may change (``train_ppo``'s ``RESUMABLE`` by default).
        shipped_config: The command's shipped YAML.

    Raises:
        ValueError: A config of more than ``MAX_CONFIG_VALUES`` values (each counted as often as it is
            reached) or nested more than ``MAX_CONFIG_DEPTH`` deep, checked before anything walks or
            merges it; an override of a value that would change what the run learns (not in
            ``resumable``), naming it, both values and what may change; or an interpolation
            (``${...}``) in the checkpoint's config, which a saved config never holds (it is saved
            resolved) and which could read an environment variable (``oc.env``).
    """
    _refuse_oversized(saved)
    _refuse_interpolations(saved, "config")
    schema = type(args)
    shipped = OmegaConf.masked_copy(
        OmegaConf.load(shipped_config), [f.name for f in dataclasses.fields(schema) if f.name != "game"]
    )
    run = OmegaConf.merge(OmegaConf.structured(schema), shipped, saved)
    given = OmegaConf.structured(args)
    if overrides is None:
        keys = [f.name for f in dataclasses.fields(schema)]
    else:
        keys = [o.partition("=")[0].lstrip("+~") for o in overrides]
    changes, refused = {}, []
    for key in keys:
        if key in ("resume", "trust_files"):  # about this command, not the run
            continue
        before, after = _plain(OmegaConf.select(run, key)), _plain(OmegaConf.select(given, key))
        if before == after:
            continue
        if key in resumable:
            changes[key] = after
        else:
            refused.append(f"{key} (the run has {before!r}, got {after!r})")
    if refused:
        raise ConfigError(
            f"resume: cannot change {', '.join(refused)}: the run would no longer be the one checkpointed. "
            f"A resume may change only {', '.join(resumable)}; start a new run to change the rest"
        )
    for key, value in changes.items():
        print(f"resume: {key} {_plain(OmegaConf.select(run, key))!r} -> {value!r}")
        OmegaConf.update(run, key, value)
    return OmegaConf.to_object(run)


def check_named_code(run: Any, given: Any, games: Mapping[str, Any]) -> None:
    """Refuse to import code that only a checkpoint names (an agent given as ``module:Class``).

    Tensors and plain data cannot run code, but an opponent named by import path is imported
    and run: a checkpoint's config may name one only if the config given now names it too, and
    its games may hold opponents of the configured kinds (and snapshots of the learner) only.

    Raises:
        ValueError: Naming the agents that only the checkpoint names.
    """
    named = {o.name for o in [*given.opponents, *given.eval_opponents]}
    unconfirmed = sorted({o.name for o in [*run.opponents, *run.eval_opponents] if ":" in o.name} - named)
    if unconfirmed:
        raise ConfigError(
            f"resume: the checkpoint's config names agents by import path {unconfirmed}; resuming would "
            "import and run that code. If you trust the checkpoint, give the same opponents and "
            "eval_opponents on the command line"
        )
    configured = {o.display: (o.name, dict(o.options)) for o in run.opponents}
    for kind in games["table"]["kinds"]:
        if (
            kind["network"] is None
            and kind["name"] != RETIRED
            and configured.get(kind["label"])
            != (
                kind["name"],
                dict(kind["options"]),
            )
        ):
            raise ConfigError(
                f"resume: the checkpoint's games hold opponents {kind['label']!r} ({kind['name']!r} with "
                f"{kind['options']}) that its config does not name"
            )


def checkpoint_agents(run: Any, games: Mapping[str, Any]) -> list[tuple[str, str, dict]]:
    """``(where, name, options)`` of every agent a checkpoint names: its config's opponents and
    evaluation opponents, and the kinds of its games' opponent table (snapshots aside)."""
    agents = [
        (f"{group}.{index}", o.name, dict(o.options))
        for group in ("opponents", "eval_opponents")
        for index, o in enumerate(getattr(run, group))
    ]
    agents += [
        (f"games.table.kinds.{kind['label']}", kind["name"], dict(kind["options"]))
        for kind in games["table"]["kinds"]
        if kind["network"] is None and kind["name"] != RETIRED
    ]
    return agents


def named_by(given: Any) -> Callable[[str, str, str, Any], bool]:
    """Whether the config given now (the command line's) names an agent's value: the same agent with
    the same option (``experiments.common.trust.refuse_untrusted_options``'s ``confirmed``)."""
    named = [*given.opponents, *given.eval_opponents]

    def confirmed(where: str, name: str, key: str, value: Any) -> bool:
        option = key.partition(".")[2]
        return any(
            o.name == name and (key == "name" or (option in o.options and _plain(o.options[option]) == value))
            for o in named
        )

    return confirmed


def _plain(value: Any) -> Any:
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
