"""An agent's label is checked once (``experiments.common.labels``), wherever a line-up's labels are read.

A line-up file may come from elsewhere (``--config-dir``), and a label of it reached the results as it
was: ``$`` made matplotlib read mathematics (an unpaired one stopped the report after every game was
played), ``|`` and a newline broke ``report.md``'s tables, ``=`` first made a CSV cell a spreadsheet's
formula and ESC sequences reached the terminal. (A ``games.jsonl`` record's labels:
``test_results_validation``.)
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

from agents.registry import AGENTS
from experiments.common.labels import label_refusal
from experiments.common.settings import AgentSpec, LineupConfig, TournamentConfig, load_config
from experiments.common.value_checks import ConfigError
from tests.conftest import ROOT

# Each kind of label refused: [the label, what the message says of it (after the label's repr)].
REFUSED = {
    "a newline": ["random\n## Injected heading", "holds the control character '\\n'"],
    "ESC": ["random\x1b[2J", "holds the control character '\\x1b'"],
    "a bidi override": ["random\u202eexe.txt", "holds the control character '\\u202e'"],
    "a zero-width space": ["ran\u200bdom", "holds the control character '\\u200b'"],
    "a lone surrogate": ["random\ud83d", "holds the control character '\\ud83d'"],
    "'|'": ["sat|fast", "holds '|'"],
    "'$'": ["random_$x$", "holds '$'"],
    "'+'": ["a+b", "holds '+'"],
    "'=' first": ['=HYPERLINK("http://evil.example/?x","click")', "starts with '='"],
    "HTML": ["<img src=x onerror=alert(1)>", "holds '<'"],
    "a Markdown link": ["[notepad](https://evil.example/)", "holds '['"],
    "a Markdown image": ["!x](http://evil.example/t.png)", "holds ']'"],
    "a backtick": ["sat`", "holds '`'"],
    "'-' first": ["-2", "starts with '-'"],
    "'@' first": ["@SUM(A1)", "starts with '@'"],
    "a space first": [" random", "starts with ' '"],
}
RULE = (
    "a label is a non-empty name with no control character, '|', '<', '>', '[', ']', '`', '$' or '+', "
    "starting with none of"
)


def lineup(label: str) -> TournamentConfig:
    agents = [AgentSpec("random", label=label), AgentSpec("sat")]
    return TournamentConfig(lineup=LineupConfig(agents=agents), plots=False)


@pytest.mark.parametrize("kind", REFUSED)
def test_a_lineups_label_is_refused_in_one_line_naming_it(kind):
    label, says = REFUSED[kind]
    with pytest.raises(ConfigError) as refused:
        load_config(lineup(label), build_agents=False)
    message = str(refused.value)
    assert message.startswith(f"lineup.agents[0]: label {label!r} {says}; {RULE}")
    assert message.isprintable()  # one line, no ESC: the label as its repr


def test_a_long_label_is_quoted_cut_short():
    message = label_refusal("x" * 100_000 + "|")
    assert message is not None and len(message) < 300 and "holds '|'" in message


def test_names_and_labels_that_read_as_they_are_pass():
    for label in (
        "random",
        "belief_hazard_x1.5",
        "gemma3-270m",
        "random never",
        "Plum (ISMCTS)",
        "Ève",
        "می\u200cخواهم",
    ):
        assert label_refusal(label) is None, label
    load_config(lineup("belief_no_risk"), build_agents=False)


def test_every_shipped_agent_name_and_label_passes():
    """The built-in agents' names (a label by default) and every label of the shipped configs."""
    labels = [*AGENTS]
    for path in sorted((ROOT / "configs").rglob("*.yaml")):

        def walk(value):
            if isinstance(value, dict):
                labels.extend(value[k] for k in ("label",) if isinstance(value.get(k), str))
                for inner in value.values():
                    walk(inner)
            elif isinstance(value, list):
                for inner in value:
                    walk(inner)

        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    assert {"random", "sat", "belief_no_risk", "gemma3-270m", "random_never"} <= set(labels)
    assert [(label, label_refusal(label)) for label in labels if label_refusal(label)] == []


def test_a_lineup_file_from_elsewhere_with_a_dollar_stops_the_run_before_any_game(tmp_path):
    """The reviewer's run: the games were played, then the report stopped on matplotlib's mathtext (exit
    1, no report.md and no plots)."""
    (tmp_path / "cfg" / "lineup").mkdir(parents=True)
    agents = [{"name": "random", "label": "llm_$5_budget_$10"}, {"name": "notepad"}]
    (tmp_path / "cfg" / "lineup" / "dollar.yaml").write_text(yaml.safe_dump({"agents": agents}))
    out = tmp_path / "out"
    command = ["-m", "experiments.tournament", "--config-dir", str(tmp_path / "cfg"), "lineup=dollar",
               "game=classic3", "games_per_lineup=1", "batch_size=1", "workers=0", "progress=false",
               f"output_dir={out}"]  # fmt: skip
    done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert re.fullmatch(
        r"config error: lineup.agents\[0\]: label 'llm_\$5_budget_\$10' holds '\$'; .*\n", done.stderr
    )
    assert not out.exists()  # nothing played, nothing written


# -- a training run's opponents ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["a newline", "'$'", "'=' first"])
def test_a_training_runs_opponent_label_is_refused(kind):
    pytest.importorskip("torch")
    import experiments.imitate  # noqa: F401  (registers imitate_schema)
    from experiments.learning.league import OpponentSettings
    from experiments.learning.ppo_training import train_config

    label, says = REFUSED[kind]
    bad = OpponentSettings("random", {"accuse": "never"}, label=label)
    for field, config in [
        ("opponents.1", train_config(opponents=[OpponentSettings("notepad"), bad])),
        ("eval_opponents.0", train_config(eval_opponents=[bad])),
        ("eval_opponents.0", train_config(config_name="imitate", eval_opponents=[bad])),
    ]:
        with pytest.raises(ConfigError, match=re.escape(f"{field}: label {label!r} {says}; ")):
            config.validate()


def test_the_evaluation_refuses_an_opponent_label_before_a_game():
    """train_sb3's and train_rllib's evaluations (their opponents are AgentSpecs) go through it too."""
    pytest.importorskip("torch")
    from agents.ppo.network import ActorCritic, NetworkSettings
    from experiments.common.settings import GameSettings
    from experiments.learning.evaluation import evaluate

    game = GameSettings(max_turns=6).to_game_config()
    network = ActorCritic(game, NetworkSettings(hidden=[16], card_hidden=8))
    with pytest.raises(ValueError, match=re.escape("opponent's label 'sat|fast' holds '|'")):
        evaluate(network, network.game, [AgentSpec("sat", label="sat|fast")], 2, deterministic=True)


def test_sb3_and_rllib_refuse_an_evaluation_opponents_label_before_training():
    """They checked it at their first evaluation only, after training (a traceback there)."""
    pytest.importorskip("sb3_contrib")
    import experiments.train_sb3  # noqa: F401  (registers train_sb3_schema)
    from experiments.learning.ppo_training import train_config

    config = train_config(config_name="train_sb3", eval_opponents=[AgentSpec("random", label="-never")])
    with pytest.raises(ConfigError, match=re.escape("eval_opponents.0: label '-never' starts with '-'; ")):
        config.validate()
    twice = train_config(config_name="train_sb3", eval_opponents=[AgentSpec("random"), AgentSpec("random")])
    with pytest.raises(ConfigError, match=re.escape("eval_opponents need distinct labels")):
        twice.validate()  # (evaluate's play_against refused them after training)
    odd = train_config(config_name="train_sb3", opponent=AgentSpec("random", label="rand[om]"))
    with pytest.raises(ConfigError, match=re.escape("opponent: label 'rand[om]' holds '['; ")):
        odd.validate()
    pytest.importorskip("ray")
    from experiments.train_rllib import check_command

    config = train_config(config_name="train_rllib", eval_opponents=[AgentSpec("sat", label="sat$")])
    with pytest.raises(ConfigError, match=re.escape("eval_opponents.0: label 'sat$' holds '$'; ")):
        check_command(config)
