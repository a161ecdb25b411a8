"""Report a problem from a game page in Chromium; the report appears in the admin with the game linked."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from feedback.models import Report
from tests.browser.pages import WAIT_MS, roll_button, rolls_field, start_solo
from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_report_from_a_game_page_reaches_the_admin_with_the_game_linked(page: Page, live_server_url: str):
    expect.set_options(timeout=WAIT_MS)
    game_id = start_solo(page, live_server_url)
    roll_button(page).click()
    expect(rolls_field(page)).to_have_value("1")

    page.locator(".game-header [data-report-problem]").click()
    expect(page.get_by_role("heading", name="Report a problem")).to_be_visible()
    expect(page.locator("[data-report-game]")).to_have_attribute("data-report-game", str(game_id))
    expect(page.locator("[data-report-page]")).to_have_text(f"/games/{game_id}/")

    # Nothing written: a clear message, and the form again.
    page.get_by_role("button", name="Send the report").click()
    expect(page.get_by_text("Write a few words about the problem.")).to_be_visible()
    assert not Report.objects.exists()

    page.get_by_label("What went wrong?").fill("The Roll button looked greyed out after my second roll.")
    page.get_by_label(re.compile("Your e-mail address")).fill("guest@example.com")
    page.get_by_role("button", name="Send the report").click()
    expect(page.locator("[data-report-sent]")).to_be_visible()
    report = Report.objects.get()
    assert report.game_id == game_id and report.email == "guest@example.com"
    assert "Chrom" in report.user_agent and report.language == "en"

    UserFactory(username="admin", is_staff=True, is_superuser=True)
    page.goto(f"{live_server_url}/admin/login/?next=/admin/feedback/report/")
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    row = page.locator("#result_list tbody tr").filter(has_text="Roll button looked greyed out")
    expect(row).to_have_count(1)
    # Filter by status: the new report is among the new ones, not among the fixed.
    page.goto(f"{live_server_url}/admin/feedback/report/?status__exact=fixed")
    expect(page.locator("#result_list")).to_have_count(0)
    page.goto(f"{live_server_url}/admin/feedback/report/?status__exact=new")
    expect(row).to_have_count(1)
    expect(row.locator("[data-game-review]")).to_have_attribute("href", f"/games/{game_id}/review/")
    row.locator("[data-game-admin]").click()
    expect(page).to_have_url(re.compile(rf"/admin/dicegame/game/{game_id}/change/$"))
