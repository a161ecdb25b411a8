import pytest

from tests.support.notifications import SITE
from tests.support.smtp import SmtpServer, mailers_for


@pytest.fixture
def smtp(settings):
    """An SMTP server on this machine for the test's mail (aiosmtpd), which the mail sweep sends to."""
    with SmtpServer() as server:
        settings.MAILERS = mailers_for(server.port)
        settings.PENTA_SITE_URL = SITE
        yield server
