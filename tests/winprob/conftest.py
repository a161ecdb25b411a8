"""Each test of the winning chances starts with none worked out: a position's figures are shared by
every game that reaches it (every game of two starts at the same position), so one test's would
otherwise be another's."""

import pytest

from tests.support.environment import forget_cached


@pytest.fixture(autouse=True)
def _no_chances_worked_out():
    forget_cached(key="winprob:*")
    yield
    forget_cached(key="winprob:*")
