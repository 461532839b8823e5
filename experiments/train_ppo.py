"""PPO on the batched Cluedo core, in one readable script (CleanRL's ``ppo.py`` is the model).

    python -m experiments.train_ppo                                          # configs/train_ppo.yaml
    python -m experiments.train_ppo total_timesteps=400000 num_envs=128 final_eval_games=200 exp_name=smoke
    python -m experiments.train_ppo resume=runs/cluedo_v0__ppo__1__1764540000  # continue a killed run
    tensorboard --logdir runs

What one update does:

1. **Rollout.** ``num_envs`` games run on the batched core (``agents.ppo.games``):
   in each the learner holds one seat (rotated from deal to deal), the other
   seats are opponents of one kind drawn from the pool, and a game is dealt
   again as soon as it ends. ``num_steps`` core steps are taken; every step is
   one decision in every game (``num_envs`` agent-steps, the unit of
   ``total_timesteps`` and ``global_step``). Where the learner decides, the
   network acts on the batch of its observations and legal-action masks
   (the mask is stored with the sample); the opponents' decisions in
   between are part of the environment's transition.
2. **Advantages.** A learner step is one of its own decisions. GAE runs
   backwards over each game's decisions within the rollout; a game's last
   decision is bootstrapped with the value of the learner's observation at the
   rollout's end. Rewards are the learner's only: +1 win, -1 loss (someone
   else wins, or everyone accused wrongly), 0 truncated at ``max_turns``, given
   on its last decision before the game ends (where that decision is in the
   same rollout; else the bootstrap above stands for it). Shaping (documented in
   ``agents.ppo.games``): ``wrong_accusation_penalty`` is added on a wrong
   accusation, and ``end_episode_on_elimination`` (which must be true) makes the
   wrong accusation end the learner's episode at once with -1: played on, the
   eliminated learner's result would come only when the game ends, often in a
   later rollout, with no decision of its own there to receive it.
3. **Update.** Clipped PPO over ``update_epochs`` passes of ``num_minibatches``
   minibatches, with the stored masks, advantage normalisation, clipped value
   loss, entropy bonus, gradient clipping and linear learning-rate annealing by
   update index.

Opponents (``opponents``, ``snapshot_*``, ``pool_sampling``, ``pfsp_*``): the league of
``experiments.learning.league``, kinds of the agent registry in curriculum windows and frozen
snapshots of the learner, a newly dealt game's drawn by their weights or by prioritised fictitious
self-play (``pool_sampling=pfsp``: the opponents the learner beats least, most). The learner's
win-rate estimates are kept (and logged, ``league/win_rate/<opponent>`` and
``league/probability/<opponent>``, the chance that a newly dealt game is against it) with either
rule. With ``network.belief_features`` the learner observes the belief pieces too
(``agents.ppo.features``: exact marginals and entailed facts of every card's place), and so do its
snapshots.

Logs (TensorBoard, ``<runs_dir>/cluedo_v0__<exp_name>__<seed>__<time>``):
``charts/episodic_return``, ``charts/episodic_length`` (learner decisions),
``charts/game_turns``, ``charts/SPS`` (agent-steps/s), ``charts/learner_SPS``,
``charts/learning_rate``, ``charts/win_rate/<opponent>``,
``charts/wrong_accusation_rate``, ``league/*`` (above), ``losses/*`` as in CleanRL, and the rating:
``eval/win_rate/<opponent>`` every ``eval_every`` updates against the fixed
evaluation set (``eval_opponents``, ``eval_games`` games each on fixed deals,
seats rotated). Hyperparameters are logged as a text table.

Files: ``checkpoints/update_<n>.pt`` every ``checkpoint_every`` updates (the latest
``keep_checkpoints`` kept; ``experiments.learning.checkpoints``: tensors and plain data only, read
back with torch's ``weights_only=True``, so a checkpoint runs no code, whoever made it).
``resume=<checkpoint or run dir>`` continues from one exactly as the run would have gone on
(``experiments.learning.resume``: the run's config is the checkpoint's; of the command line's other
values only ``RESUMABLE`` ones, the budget, threads, compilation, logging, checkpoints, how often it
evaluates and the final evaluation's size, are applied, and any other changed value stops the resume
with a message). One process at a time trains a run folder (``tournament.lock``, an OS lock that ends
with its process, ``experiments.common.folder_lock``): a resume of a run still going on, or of one
another resume is continuing, is refused in one line before it changes anything. A run folder holding
symbolic links (``model.pt``, ``checkpoints/`` or a file in it) is refused before anything is written:
the run would write through them
(``output_folders.refuse_links``). ``init_from=<model file or
shipped model name>`` starts a new run's network from a trained one (``agents.ppo.warm_start``:
input columns it lacked, the belief pieces, start at zero), e.g. the learning agent of
``experiments/imitate.py``; with it, ``critic_warmup`` first trains the value head alone and
``anchor_coef`` keeps the policy near the one it started from (``configs/train_ppo_from_imitation.yaml``).
``model.pt`` at the end (weights, network settings, game config, sizes:
what ``agents.ppo.PPOAgent`` loads); with ``final_eval_games`` > 0 also ``evaluation.json`` (win
rates with 95% Wilson intervals, ``experiments.learning.evaluation``, and the package version,
``cluedo_env_version``). ``run.json`` records each session of the run, the run and each resume
(``experiments.learning.run_logs.record_session``): its start (UTC, ISO 8601 with the offset), the code
(package version, git revision and whether the tree had uncommitted changes) and the update it started
after; a resume on other code than the run's earlier sessions (or of a run older than ``run.json``) says
so in one warning line.

Settings: ``configs/train_ppo.yaml`` holds every default; ``TrainConfig`` declares the fields and
their types only (the schema ``train_ppo_schema`` the YAML starts from). The config and the rollout
and update loop are ``experiments.learning.ppo_training`` (``TrainConfig``, ``train``; in code,
``train_config(overrides, **values)`` composes the YAML as this command does); this script is the
command.
"""

from __future__ import annotations

import sys

try:  # modules of an extra: a core-only install is told which extra to install
    import hydra

    from experiments.learning.ppo_training import TrainConfig, train
except ModuleNotFoundError as error:
    from experiments.common.extras import missing_extra

    raise missing_extra(error, command=__name__ == "__main__") from error

from experiments.common.folder_lock import FolderRefused
from experiments.common.output_folders import refuse_links, refuse_unwritable
from experiments.common.shipped_configs import SHIPPED_CONFIGS
from experiments.common.trust import checked_main, command_settings
from experiments.common.value_checks import exit_on_config_error
from experiments.learning.checkpoints import run_folder


@checked_main
@hydra.main(config_path=str(SHIPPED_CONFIGS), config_name="train_ppo", version_base=None)
def main(cfg: TrainConfig) -> None:
    settings = ["init_from", "runs_dir", "resume"]
    args, hydra_config = command_settings(cfg, ["opponents", "eval_opponents"], settings)
    with exit_on_config_error():
        folder = {"resume": run_folder(args.resume)} if args.resume else {"runs_dir": args.runs_dir}
        refuse_unwritable(folder, utf8_writers=True)  # (TensorBoard logs)
        if args.resume:  # a run folder from elsewhere: its model.pt, checkpoints/, ... could be links
            refuse_links(folder)
        try:
            train(args, resume_overrides=list(hydra_config.overrides.task))
        except FolderRefused as error:  # the run, or another resume of it, still going on
            print(f"error: {error}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
