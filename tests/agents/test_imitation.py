"""Imitation (agents.ppo.imitation, experiments.imitate): the recorder plays exactly as its teacher and
keeps what a learner in its seat would read, and an IS-MCTS teacher's visit shares as policy targets;
fitting the decisions makes the network choose them (fitting the shares, play by them); the run writes
its batches as they end and a second start reuses them."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.arena import play_batch  # noqa: E402
from agents.baselines.random_agent import RandomAgent  # noqa: E402
from agents.ppo.features import learner_observation_size  # noqa: E402
from agents.ppo.imitation import Recorder, imitate, one_hot_targets, stack_targets  # noqa: E402
from agents.ppo.network import ActorCritic, NetworkSettings  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from cluedo_env import core  # noqa: E402
from cluedo_env.table import IllegalAction  # noqa: E402
from experiments.imitate import load_decisions, run  # noqa: E402
from experiments.learning.league import OpponentSettings  # noqa: E402
from experiments.learning.ppo_training import train_config  # noqa: E402
from tests.conftest import config_without_deal  # noqa: E402

CONFIG = core.GameConfig()
SEEDS = np.arange(6)


def test_recorder_plays_as_its_teacher_and_records_each_decision():
    recorder = Recorder(make_agent("notepad", seed=3))
    alone = play_batch(
        CONFIG, [make_agent("notepad", seed=3), *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS
    )
    recorded = play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS)
    np.testing.assert_array_equal(recorded.winner, alone.winner)
    np.testing.assert_array_equal(recorded.turns, alone.turns)
    observations, masks, actions = recorder.decisions()
    assert observations.shape == (len(actions), learner_observation_size(CONFIG, True))
    assert masks[np.arange(len(actions)), actions].all()  # every recorded action was legal where taken


def test_a_teachers_float_actions_are_refused_not_recorded_truncated():
    """The Recorder cast its teacher's actions to integers before the table saw them: a teacher returning
    floats (a policy's output) played and was recorded, its actions truncated, where seated alone it is refused."""

    class FloatTeacher(RandomAgent):
        def act(self, state: core.State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
            return np.asarray(super().act(state, games, mask), dtype=float) + 0.9

    recorder = Recorder(FloatTeacher(seed=0), belief_features=False)
    field = [make_agent("random", seed=k) for k in (1, 2)]
    with pytest.raises(IllegalAction, match=r"returned float64 actions .*, not integers"):
        play_batch(core.GameConfig(num_players=3), [recorder, *field], SEEDS[:2])
    assert recorder.actions == []


def test_an_ismcts_teacher_is_recorded_with_its_visit_shares_where_it_searched():
    def field():
        return [make_agent("sat", seed=k) for k in (1, 2, 3)]

    alone = play_batch(CONFIG, [make_agent("ismcts", seed=3, iterations=8, wave=4), *field()], SEEDS[:2])
    teacher = make_agent("ismcts", seed=3, iterations=8, wave=4)
    recorder = Recorder(teacher)
    recorded = play_batch(CONFIG, [recorder, *field()], SEEDS[:2])
    np.testing.assert_array_equal(recorded.winner, alone.winner)  # recording changes no decision
    np.testing.assert_array_equal(recorded.turns, alone.turns)
    _observations, masks, actions = recorder.decisions()
    target_actions, weights = recorder.policy_targets()
    assert target_actions.shape == weights.shape and len(weights) == len(actions)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-6)
    searched = weights[:, 0] < 1
    assert 0 < searched.sum() < len(actions)  # some decisions were searched, most were not
    rows = np.arange(len(actions))[:, None]
    assert masks[rows, target_actions].all()  # every target is a legal action, padding included
    for i in np.flatnonzero(searched):  # the action played is the candidate visited most
        assert actions[i] == target_actions[i, np.argmax(weights[i])]
        assert np.allclose(weights[i] * 8, np.round(weights[i] * 8))  # shares of the 8 iterations
    unsearched = ~searched
    assert (target_actions[unsearched, 0] == actions[unsearched]).all()
    assert (weights[unsearched, 1:] == 0).all()


def test_a_teacher_without_search_is_its_own_target():
    recorder = Recorder(make_agent("notepad", seed=3))
    play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS[:2])
    _observations, _masks, actions = recorder.decisions()
    target_actions, weights = recorder.policy_targets()
    np.testing.assert_array_equal(target_actions, actions[:, None])
    np.testing.assert_array_equal(weights, np.ones((len(actions), 1), dtype=np.float32))
    wide, narrow = one_hot_targets(np.array([5, 6]), 3), one_hot_targets(np.array([7]))
    stacked_actions, stacked_weights = stack_targets([wide, narrow])  # padded with its action at weight 0
    np.testing.assert_array_equal(stacked_actions, [[5, 5, 5], [6, 6, 6], [7, 7, 7]])
    np.testing.assert_array_equal(stacked_weights, [[1, 0, 0], [1, 0, 0], [1, 0, 0]])


def _network():
    torch.manual_seed(0)
    return ActorCritic(CONFIG, NetworkSettings(hidden=[32, 32], card_hidden=8, belief_features=True))


def test_fitting_visit_shares_makes_the_network_play_by_them():
    """Cross-entropy with soft targets is least where the policy equals the targets: on one decision
    repeated, the fitted probabilities are the shares (a fit of the action alone, the control, puts
    nearly all on it)."""
    recorder = Recorder(make_agent("notepad", seed=0))
    play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS[:1])
    observations, masks, _actions = recorder.decisions()
    row = int(np.flatnonzero(masks.sum(axis=1) >= 3)[0])  # a decision with three legal actions or more
    legal = np.flatnonzero(masks[row])[:3]
    n = 256
    obs, mask = (np.repeat(x[row : row + 1], n, axis=0) for x in (observations, masks))
    shares = np.array([0.6, 0.3, 0.1], dtype=np.float32)
    targets = (np.repeat(legal[None], n, axis=0), np.repeat(shares[None], n, axis=0))
    fits = {}
    for name, given in (("shares", targets), ("action", None)):
        network = _network()
        list(imitate(network, obs, mask, np.full(n, legal[0]), epochs=150, batch_size=64, learning_rate=1e-3,
                     holdout=0.0, targets=given))  # fmt: skip
        with torch.no_grad():
            probs = network.policy(torch.as_tensor(obs[:1]), torch.as_tensor(mask[:1]))[0].probs[0].numpy()
        fits[name] = probs[legal]
    np.testing.assert_allclose(fits["shares"], shares, atol=0.03)
    assert fits["action"][0] > 0.95


def test_one_hot_targets_fit_exactly_as_the_actions():
    recorder = Recorder(make_agent("notepad", seed=0))
    play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS[:2])
    observations, masks, actions = recorder.decisions()
    runs = [
        list(
            imitate(_network(), observations, masks, actions, epochs=2, batch_size=64, holdout=0.2, targets=t)
        )
        for t in (None, one_hot_targets(actions, 3))
    ]
    assert runs[0] == runs[1]


def test_imitation_learns_the_recorded_choices():
    recorder = Recorder(make_agent("notepad", seed=0))
    play_batch(CONFIG, [recorder, *[make_agent("random", seed=k) for k in (1, 2, 3)]], SEEDS)
    observations, masks, actions = recorder.decisions()
    torch.manual_seed(0)
    network = ActorCritic(CONFIG, NetworkSettings(hidden=[32, 32], card_hidden=8, belief_features=True))
    history = list(
        imitate(
            network, observations, masks, actions, epochs=40, batch_size=64, learning_rate=3e-3, holdout=0.0
        )
    )
    assert history[-1]["loss"] < 0.5 * history[0]["loss"]
    with torch.no_grad():
        chosen = network.policy(torch.as_tensor(observations), torch.as_tensor(masks))[0].mode().numpy()
    assert (chosen == actions).mean() > 0.8


def test_run_writes_batches_as_they_end_and_reuses_them(tmp_path):
    args = train_config(
        config_name="imitate", exp_name="t", runs_dir=str(tmp_path), progress=False, teacher=OpponentSettings("notepad"),
        opponents=[OpponentSettings("random")], games=8, batch=4, workers=1, init_from=None,
        network=NetworkSettings(hidden=[16], card_hidden=4, belief_features=True), epochs=1,
        eval_opponents=[OpponentSettings("random")], final_eval_games=4,
    )  # fmt: skip
    folder = run(args)
    batches = sorted((folder / "decisions").glob("batch_*.npz"))
    assert [path.name for path in batches] == ["batch_00000.npz", "batch_00001.npz"]
    report = json.loads((folder / "evaluation.json").read_text())
    assert report["teacher"]["games"] == 8 and report["evaluation"]["random"]["games"] == 4
    stamps = [path.stat().st_mtime_ns for path in batches]
    run(args)  # started again: the batches on disk are not played again
    assert [path.stat().st_mtime_ns for path in batches] == stamps
    assert (folder / "model.pt").is_file()
    _, _, actions, targets, wins = load_decisions(folder / "decisions", args)
    assert wins == report["teacher"]["teacher_wins"]
    np.testing.assert_array_equal(targets[1], np.ones((len(actions), 1)))  # a notepad teacher: its actions
    with pytest.raises(ValueError, match="other teacher"):  # another teacher may not reuse these decisions
        run(dataclasses.replace(args, teacher=OpponentSettings("random")))
    assert [path.stat().st_mtime_ns for path in batches] == stamps


def test_a_reused_folders_batches_are_checked_before_and_after_they_are_read(tmp_path):
    """A downloaded run folder's batch of 1.45 MB held 1.5 GB of zeros and a forged teacher_wins: the run
    read it all and reported "400111 decisions of the teacher in 2 games (it won 50.0%)"."""
    from experiments.common.settings import GameSettings
    from experiments.common.value_checks import ConfigError

    args = train_config(
        config_name="imitate", exp_name="t", runs_dir=str(tmp_path), progress=False, teacher=OpponentSettings("notepad"),
        opponents=[OpponentSettings("random")], games=2, batch=2, workers=1, init_from=None,
        network=NetworkSettings(hidden=[16], card_hidden=4, belief_features=False), epochs=1, final_eval_games=0,
        game=GameSettings(num_players=3, max_turns=12),
    )  # fmt: skip
    path = run(args) / "decisions" / "batch_00000.npz"
    with np.load(path) as stored:
        genuine = {name: stored[name] for name in stored.files}
    n, most = len(genuine["actions"]), 2 * 5 * 12  # 2 games of at most 12 turns, 5 decisions a turn

    def more(count):
        return {name: np.resize(a, (count, *a.shape[1:])) if a.ndim else a for name, a in genuine.items()}

    illegal = {**genuine, "masks": genuine["masks"].copy()}
    illegal["masks"][0, genuine["actions"][0]] = False
    for arrays, said in [
        (more(most + 1), f"holds {most + 1:,} decisions, more than the {most:,} a batch can hold"),
        ({**genuine, "teacher_wins": np.int64(3)}, r"teacher_wins is 3, not in \[0, 2\]"),
        (illegal, "actions that were not legal"),
        ({**genuine, "observations": genuine["observations"].astype(np.float64)}, "observations is float64"),
        (
            {**genuine, "observations": genuine["observations"][:, :-1]},
            rf"observations is float32 of shape \({n}, ",
        ),
        ({k: v for k, v in genuine.items() if k != "masks"}, "it holds the arrays"),
        ({**genuine, "target_weights": genuine["target_weights"] * 2}, "target_weights are not weights"),
    ]:
        np.savez_compressed(path, **arrays)
        with pytest.MonkeyPatch.context() as patch:
            if "a batch can hold" in said:  # refused from its headers: no array is read
                patch.setattr(np.lib.format, "read_array", lambda *a, **k: pytest.fail("an array was read"))
            with pytest.raises(
                ConfigError,
                match=rf"^{re.escape(str(path))} is not a batch of decisions of this run \(.*{said}",
            ):
                run(args)
    np.savez_compressed(path, **genuine)
    run(args)  # the genuine batch is reused


@pytest.mark.parametrize(("deal", "refused"), [(None, False), ("uniform", True)])
def test_decisions_recorded_before_the_deal_field_are_reused_as_deal_keys(tmp_path, deal, refused):
    """A run folder written before ``GameConfig.deal`` existed has no ``game.deal``: it was dealt as
    "keys" is (the default), so its decisions are reused; a uniform one's are not."""
    from experiments.imitate import _check_reuse

    args = train_config(config_name="imitate", runs_dir=str(tmp_path))
    (tmp_path / "config.yaml").write_text(config_without_deal(args, deal))
    if refused:
        with pytest.raises(ValueError, match="other game"):
            _check_reuse(tmp_path, args)
    else:
        _check_reuse(tmp_path, args)


@pytest.mark.parametrize(
    ("content", "said"),
    [("games: [unclosed", "cannot be read as a run's settings"), ("- a list", "cannot be read as a run's settings"),
     ("game: {num_players: x}", "holds decisions recorded with other seed, game")],
)  # fmt: skip
def test_a_run_folder_whose_config_cannot_be_read_is_refused_in_one_config_error(tmp_path, content, said):
    """It raised YAML's error, or a ValueError, as a traceback."""
    from experiments.common.value_checks import ConfigError
    from experiments.imitate import _check_reuse

    (tmp_path / "config.yaml").write_text(content)
    with pytest.raises(ConfigError, match=rf"{said}.*another exp_name"):
        _check_reuse(tmp_path, train_config(config_name="imitate", runs_dir=str(tmp_path)))


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="games must be >= 1"):
        train_config(config_name="imitate", games=0).validate()
    with pytest.raises(ValueError, match=r"games must be a multiple of batch .* got games=15 and batch=10"):
        train_config(config_name="imitate", games=15, batch=10).validate()  # it played and fitted 20
    with pytest.raises(ValueError, match=r"targets must be one of \('action', 'visits'\), got 'visit'"):
        train_config(config_name="imitate", targets="visit").validate()
    with pytest.raises(ValueError, match=r"targets=visits needs a searching teacher .*got teacher 'belief'"):
        train_config(config_name="imitate", targets="visits").validate()
    searching = train_config(config_name="imitate", targets="visits", teacher=OpponentSettings("ismcts"))
    searching.validate()  # accepted
    with pytest.raises(ValueError, match="init_from"):
        train_config(config_name="imitate", init_from="no_such_model.pt").validate()


def test_the_recorder_plays_only_the_rules_its_teacher_plays():
    """``check_config`` is the teacher's: the recorder's own (the base class's) took every rule, and an
    ismcts teacher refused auto_refute=True only when a worker reset it."""
    recorder = Recorder(make_agent("ismcts", seed=0, iterations=4))
    recorder.check_config(CONFIG)
    with pytest.raises(ValueError, match="ismcts needs auto_refute=False, got auto_refute=True"):
        recorder.check_config(core.GameConfig(auto_refute=True))


def test_an_agent_that_cannot_play_the_rules_is_refused_before_the_teachers_games():
    from experiments.common.settings import GameSettings
    from experiments.common.value_checks import ConfigError

    rules = GameSettings(auto_refute=True)
    teacher = OpponentSettings("ismcts", {"iterations": 4})
    with pytest.raises(
        ConfigError, match=r"^teacher \(ismcts\) cannot play these rules: ismcts needs auto_ref"
    ):
        train_config(config_name="imitate", game=rules, teacher=teacher).validate()
    opponents = [OpponentSettings("determinize")]
    with pytest.raises(ConfigError, match=r"^eval_opponents.0 \(determinize\) cannot play these rules"):
        train_config(config_name="imitate", game=rules, eval_opponents=opponents).validate()
    train_config(config_name="imitate", teacher=teacher, eval_opponents=opponents).validate()  # other rules


def test_the_shipped_learning_agent_loads_by_name_and_conforms():
    from agents.ppo.model import SHIPPED, model_path
    from agents.testing import check_agent

    torch.set_num_threads(1)
    assert model_path("cluedo_ppo_imitation_4p.pt") == SHIPPED / "cluedo_ppo_imitation_4p.pt"
    assert str(model_path("elsewhere/cluedo_ppo_imitation_4p.pt")) == "elsewhere/cluedo_ppo_imitation_4p.pt"
    agent = make_agent("ppo", checkpoint="cluedo_ppo_imitation_4p.pt", deterministic=True)
    assert agent.network.settings.belief_features
    check_agent("ppo", options={"checkpoint": "cluedo_ppo_imitation_4p.pt", "deterministic": True})
    with pytest.raises(FileNotFoundError, match="nor a shipped model of that name"):
        make_agent("ppo", checkpoint="no_such_model.pt")
