"""Every package of the project logs to the console at the configured level (issue 38: `fairplay` and
`tournaments` were left out, so a fair-play flag was never logged)."""

from __future__ import annotations

import logging
import tomllib

import pytest
from django.conf import settings

from fairplay.models import Case
from tests.support import ROOT
from tests.support.factories import UserFactory
from tests.support.fairplay import assess, rated_games

PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]


def test_every_package_of_the_project_has_a_logger_writing_to_the_console():
    loggers = settings.LOGGING["loggers"]
    missing = [p for p in PACKAGES if "console" not in loggers.get(p, {}).get("handlers", [])]
    assert missing == []
    for package in PACKAGES:
        assert loggers[package]["level"] == loggers["dicegame"]["level"]  # the same PENTA_LOG_LEVEL
        assert loggers[package]["propagate"] is False  # as the others: not twice through daphne's root


def test_the_fair_play_and_tournament_loggers_write_warnings_to_the_console():
    for name in ("fairplay.services", "tournaments.rounds"):
        logger = logging.getLogger(name)
        assert logger.isEnabledFor(logging.WARNING)
        owner = logging.getLogger(name.partition(".")[0])
        assert "console" in [h.name for h in owner.handlers]  # the handler LOGGING configures


@pytest.mark.django_db
def test_a_fair_play_flag_is_logged_at_the_configured_level(strategy, caplog):
    """No caplog.at_level: the record must get through the levels the settings give."""
    cheat = UserFactory(username="cheat")
    rated_games(cheat, 8)
    assess()
    assert Case.objects.get(user=cheat).status == Case.Status.FLAGGED
    flags = [r for r in caplog.records if r.name == "fairplay.services" and "flagged account" in r.msg]
    assert [r.levelno for r in flags] == [logging.WARNING]
    assert str(cheat.pk) in flags[0].getMessage()
