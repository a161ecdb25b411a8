import pytest

from tests.support.push_service import PushService


@pytest.fixture
def push_service():
    """A push service on this machine for the test's devices."""
    with PushService() as service:
        yield service
