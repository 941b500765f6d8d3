"""rlscore.ui.shell.strategy_names: every registered strategy has a name and a help text on the
pages."""

from __future__ import annotations

from rlscore.query import STRATEGIES
from rlscore.ui.shell.strategy_names import STRATEGY_HELP, STRATEGY_LABELS


def test_every_registered_strategy_is_named_and_explained():
    # a strategy the CLI can save in a project's settings must not break a page's lookup
    assert set(STRATEGY_LABELS) == set(STRATEGIES)
    assert set(STRATEGY_HELP) == set(STRATEGIES)
    assert len(set(STRATEGY_LABELS.values())) == len(STRATEGY_LABELS)
