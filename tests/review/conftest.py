import pytest

from tests.support.environment import forget_cached


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Statistics are cached by what they depend on; ids repeat between tests, so start empty."""
    forget_cached()
