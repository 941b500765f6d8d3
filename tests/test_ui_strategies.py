"""rlscore.ui.shell.strategy_names: every registered strategy has a name and a help text on the
pages."""

from __future__ import annotations

from rlscore.query import STRATEGIES
from rlscore.ui.shell.strategy_names import STRATEGY_HELP, STRATEGY_LABELS, strategy_labels


def test_every_registered_strategy_is_named_and_explained():
    # a strategy the CLI can save in a project's settings must not break a page's lookup
    assert set(STRATEGY_LABELS) == set(STRATEGIES)
    assert set(STRATEGY_HELP) == set(STRATEGIES)
    assert len(set(STRATEGY_LABELS.values())) == len(STRATEGY_LABELS)


def test_each_kind_of_project_has_one_recommended_strategy_and_unique_names():
    single, multi = strategy_labels(), strategy_labels(multi_label=True)
    assert single == STRATEGY_LABELS and set(multi) == set(STRATEGIES)
    for labels in (single, multi):
        assert len(set(labels.values())) == len(labels)
    # docs/app.md: focused ARLS is the default, ARLS the multi-label projects' default
    assert [n for n, text in single.items() if "recommended" in text] == ["arls-focused"]
    assert [n for n, text in multi.items() if "recommended" in text] == ["arls"]
    assert multi["arls-focused"] == "Focused ARLS"
