"""An agent's label: the name the results give it (``report.md``, the CSV tables, the plots, the terminal).

A label comes from a line-up (``lineup.agents[k].label``, else the agent's name), from a training run's
opponents or from a ``games.jsonl`` record, and a line-up file or a results file may come from elsewhere.
``label_refusal`` is the one check of a label, made wherever one is read: ``experiments.common.settings``
(a tournament's line-up), ``experiments.common.games_file`` (a game record's line-up) and
``experiments.learning.league`` and ``evaluation`` (a training run's opponents). It refuses a label that
the results would show as something else, or that would act where it is shown:

- a control character (``cluedo_env.core.editions.control_character``: newlines, ESC, bidi overrides, lone
  surrogates, line separators): a newline starts a heading in ``report.md``, ESC sequences drive the
  terminal the leaderboard is printed on, a lone surrogate cannot be written in UTF-8;
- ``|``, which ends a cell of ``report.md``'s tables; ``<`` and ``>``, which make HTML of it where
  ``report.md`` is rendered (the documentation site passes HTML through); ``[``, ``]`` and a backtick,
  which make a Markdown link, a remote image or code of it;
- ``$``, which matplotlib reads as mathematics in a plot (an unpaired one stops the report);
- ``+``, which joins the labels of a line-up (``experiments.common.chunks.lineup_id``);
- ``=``, ``-`` or ``@`` first, which makes a CSV cell a formula in a spreadsheet; a space first.
"""

from __future__ import annotations

from typing import Any

from cluedo_env.core.editions import control_character
from experiments.common.value_checks import ConfigError

__all__ = ["LABEL_RULE", "MARKDOWN", "check_distinct_labels", "check_labels", "label_refusal"]

# What a label may be, as the messages say it.
LABEL_RULE = (
    "a label is a non-empty name with no control character, '|', '<', '>', '[', ']', '`', '$' or '+', "
    "starting with none of "
    "'=', '-', '@' or a space"
)
# What makes a table cell, HTML, a link or code of a text in report.md (a run's details too: stats).
MARKDOWN = "|<>[]`"
REFUSED_CHARACTERS = MARKDOWN + "$+"
REFUSED_FIRST = "=-@"
SHOWN_CHARS = 80  # of a label quoted in a message (one from a file may be long)


def label_refusal(label: object) -> str | None:
    """Why ``label`` cannot be an agent's label, in one line that names it (its ``repr``, cut to
    ``SHOWN_CHARS``) and says what a label may be; None where it can be one."""
    shown = repr(label)
    shown = shown if len(shown) <= SHOWN_CHARS else shown[: SHOWN_CHARS - 3] + "..."
    if not isinstance(label, str) or not label:
        return f"label {shown} is not a name; {LABEL_RULE}"
    position = control_character(label)
    if position is not None:
        return f"label {shown} holds the control character {label[position]!r}; {LABEL_RULE}"
    held = next((c for c in label if c in REFUSED_CHARACTERS), None)
    if held is not None:
        return f"label {shown} holds {held!r}; {LABEL_RULE}"
    if label[0] in REFUSED_FIRST or label[0].isspace():
        return f"label {shown} starts with {label[0]!r}; {LABEL_RULE}"
    return None


def check_labels(where: str, opponents: list[Any]) -> None:
    """Raise ``ConfigError`` naming the first of ``opponents`` (the config's field ``where``) whose display
    label (``label``, else ``name``) is not one (``experiments.common.labels.label_refusal``: it reaches
    the console, TensorBoard's tags and the plots)."""
    for k, o in enumerate(opponents):
        why = label_refusal(o.display)
        if why:
            raise ConfigError(f"{where}.{k}: {why}")


def check_distinct_labels(where: str, opponents: list[Any]) -> None:
    """Raise ``ConfigError`` (a ``ValueError``) if two kinds of ``opponents`` (the config's field ``where``)
    share a display label (``label``, else ``name``): their results are kept under it, and one would
    replace the other's; or if one's label is refused (``check_labels``)."""
    check_labels(where, opponents)
    labels = [o.display for o in opponents]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ConfigError(
            f"{where} need distinct labels (their results are kept by label), got {labels}: {twice} more than "
            "once; tell them apart with a label, e.g. {name: random, options: {accuse: never}, label: random_never}"
        )
