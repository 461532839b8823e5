"""Agents' options from a command line arrive as words: every switch and number is checked, never read
as truthy (``deterministic=off`` played the most likely action, as ``true`` does)."""

import pytest

from agents.registry import make_agent


@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("ppo", "deterministic"),
        ("learned", "deterministic"),
        ("sat", "gamble_at_truncation"),
        ("sat", "stay_in_best_room"),
        ("llm", "notepad"),  # (notepad="off" showed the model the notepad: an ablation's condition)
    ],
)
@pytest.mark.parametrize("word", ["off", "no", "false", "", 1, None])
def test_a_switch_is_true_or_false_not_any_truthy_word(name: str, option: str, word: object) -> None:
    with pytest.raises(ValueError, match=f"{option} must be True or False, got {word!r}"):
        make_agent(name, **{option: word})


@pytest.mark.parametrize(("name", "option"), [("sat", "move_discount"), ("random", "accuse_probability")])
@pytest.mark.parametrize("word", ["abc", "0.5", True])
def test_a_number_is_a_number_not_a_word_or_a_bool(name: str, option: str, word: object) -> None:
    with pytest.raises(ValueError, match=f"{option} must be a number, got {word!r}"):
        make_agent(name, **{option: word})


def test_switches_and_numbers_of_the_right_kind_are_taken() -> None:
    assert make_agent("learned", deterministic=False).deterministic is False
    assert make_agent("ppo", deterministic=True).deterministic is True
    assert make_agent("random", accuse_probability=1).accuse_probability == 1
    assert make_agent("sat", move_discount=0.1).move_discount == 0.1
