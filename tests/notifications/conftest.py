import pytest

from tests.support.notifications import SITE
from tests.support.push_service import PushService
from tests.support.smtp import SmtpServer, mailers_for


@pytest.fixture
def push_service():
    """A push service on this machine for the test's devices."""
    with PushService() as service:
        yield service


@pytest.fixture
def smtp(settings):
    """An SMTP server on this machine for the test's mail (it can be stopped and started again, and its
    keeper refuses an address or is busy on demand). The test environment put locmem in MAILERS: this
    test's mail goes out through the SMTP backend. The site's address is given with a trailing slash:
    the links are absolute and have no double slash (`link_in` finds only such links)."""
    with SmtpServer() as server:
        settings.MAILERS = mailers_for(server.port)
        settings.PENTA_SITE_URL = SITE + "/"
        yield server
