"""Report a problem: the form from every page and every game page, the context the server fills in
(and drops when it may not be trusted), the rate limits, and the admin's list."""

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from dicegame import play
from feedback.models import Report
from tests.support.environment import forget_cached
from tests.support.factories import UserFactory, client_for
from tests.support.games import race

pytestmark = pytest.mark.django_db
REPORT = "/report/"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


def forget_report_counters() -> None:
    """Delete the report limits' counters ("penta:reports:*"), and only them: a shared Redis also
    carries the channel layer and the other tests' keys."""
    forget_cached(cache, "penta:reports:*")


@pytest.fixture(autouse=True)
def _fresh_counters():
    forget_report_counters()
    yield
    forget_report_counters()


@pytest.fixture
def my_game(user_actor):
    return play.game_create_vs_computer(actor=user_actor, strengths=["easy"])


def test_every_page_has_the_link_in_its_footer(client):
    page = client.get(reverse("dicegame:home")).content.decode()
    assert '<footer class="site-footer">' in page and f'href="{REPORT}?page=/"' in page


def test_a_game_page_links_with_the_game_and_its_version(user_client, my_game):
    page = user_client.get(reverse("dicegame:game", args=[my_game.pk])).content.decode()
    my_game.refresh_from_db()
    assert f"{REPORT}?page=/games/{my_game.pk}/&amp;game={my_game.pk}&amp;v={my_game.version}" in page


def test_a_report_from_a_game_page_is_stored_with_its_context(user_client, user, my_game):
    form = user_client.get(
        f"{REPORT}?page=/games/{my_game.pk}/&game={my_game.pk}&v=7", HTTP_USER_AGENT=FIREFOX
    )
    body = form.content.decode()
    assert form.status_code == 200
    assert f'data-report-game="{my_game.pk}"' in body and "Firefox/140.0" in body
    # Written for the person reporting, not a developer's "Game 14 (v7)" (issue 40).
    assert f"Game {my_game.pk}, as it was after 7 moves" in body and "(v7)" not in body
    assert 'name="email"' not in body  # a user is known: no e-mail asked
    response = user_client.post(
        REPORT,
        {"message": "The dice froze.", "page": f"/games/{my_game.pk}/", "game": str(my_game.pk), "v": "7"},
        HTTP_USER_AGENT=FIREFOX,
    )
    thanks = f"{reverse('feedback:thanks')}?page=%2Fgames%2F{my_game.pk}%2F"
    assert response.status_code == 302 and response["Location"] == thanks
    # The thanks page leads back to the page the report came from.
    assert f'href="/games/{my_game.pk}/" data-report-back' in user_client.get(thanks).content.decode()
    report = Report.objects.get()
    assert (report.message, report.user_id, report.page, report.game_id, report.game_version) == (
        "The dice froze.",
        user.pk,
        f"/games/{my_game.pk}/",
        my_game.pk,
        7,
    )
    assert report.language == "en" and report.user_agent == FIREFOX and report.status == Report.Status.NEW
    assert report.client_address == "127.0.0.1"


def test_a_guest_may_leave_an_e_mail_address_and_the_language_is_recorded(client):
    body = client.get(REPORT, HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert 'name="email"' in body
    response = client.post(
        REPORT,
        {"message": "Knop doet niets", "email": "gast@example.com", "page": "/"},
        HTTP_ACCEPT_LANGUAGE="nl",
    )
    assert response.status_code == 302
    report = Report.objects.get()
    assert report.email == "gast@example.com" and report.user_id is None and report.language == "nl"
    assert report.guest_key


def test_a_game_the_reporter_may_not_see_is_dropped_and_other_sites_are_not_pages(client, my_game):
    response = client.post(
        REPORT, {"message": "look", "game": str(my_game.pk), "v": "3", "page": "https://evil.example/x"}
    )
    assert response.status_code == 302
    report = Report.objects.get()
    assert report.game_id is None and report.game_version is None and report.page == ""


def test_a_malformed_game_or_version_is_dropped_not_refused(client):
    assert client.post(REPORT, {"message": "m", "game": "9" * 30, "v": "-1"}).status_code == 302
    report = Report.objects.get()
    assert report.game_id is None and report.game_version is None


@pytest.mark.parametrize("page", ["//evil.example/", "javascript:alert(1)", "/\\evil", "x" * 10])
def test_only_paths_on_this_site_are_kept(client, page):
    client.post(REPORT, {"message": "m", "page": page})
    assert Report.objects.get().page == ""


def test_the_page_defaults_to_the_referer_on_this_site(client):
    client.post(REPORT, {"message": "m"}, HTTP_REFERER="http://testserver/games/")
    client.post(REPORT, {"message": "m"}, HTTP_REFERER="https://elsewhere.example/games/")
    assert sorted(Report.objects.values_list("page", flat=True)) == ["", "/games/"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"message": ""}, "Write a few words about the problem."),
        ({"message": "   \n  "}, "Write a few words about the problem."),
        ({"message": "x" * 2001}, "Keep it under 2000 characters"),
        ({"message": "ok", "email": "not-an-address"}, "valid email"),
    ],
)
def test_bad_input_gets_a_clear_message_and_stores_nothing(client, data, message):
    response = client.post(REPORT, data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Report.objects.exists()


def test_the_form_works_without_javascript(client):
    body = client.get(REPORT).content.decode()
    assert '<form method="post" action="/report/"' in body and "<script>" not in body
    assert 'name="csrfmiddlewaretoken"' in body


def test_csrf_is_required(db):
    client = Client(enforce_csrf_checks=True)
    assert client.post(REPORT, {"message": "m"}).status_code == 403
    assert not Report.objects.exists()


def test_a_person_is_limited_and_the_excess_is_refused(user_client, settings):
    settings.PENTA_REPORTS_PER_PERSON = 3
    for n in range(3):
        assert user_client.post(REPORT, {"message": f"report {n}"}).status_code == 302
    response = user_client.post(REPORT, {"message": "one too many"})
    assert response.status_code == 429
    assert "several reports in a short time" in response.content.decode()
    assert Report.objects.count() == 3
    # Another person from the same address is not held back by this one's limit.
    other = Client()
    other.force_login(UserFactory(username="other"))
    assert other.post(REPORT, {"message": "mine"}).status_code == 302


def test_an_address_is_limited_whoever_sends(settings):
    settings.PENTA_REPORTS_PER_ADDRESS = 4
    settings.PENTA_REPORTS_PER_PERSON = 100
    codes = [Client().post(REPORT, {"message": f"flood {n}"}).status_code for n in range(6)]
    assert codes == [302] * 4 + [429] * 2
    assert Report.objects.count() == 4
    assert Client(REMOTE_ADDR="203.0.113.9").post(REPORT, {"message": "elsewhere"}).status_code == 302


@pytest.mark.parametrize("message", ["\u200b\u200b\u200b", "\u2063 \u00a0\t", "\ufeff\u202e\u2060"])
def test_a_report_with_nothing_visible_is_refused(client, message):
    answer = client.post(REPORT, {"message": message})
    assert answer.status_code == 400 and "Write a few words about the problem." in answer.content.decode()
    assert not Report.objects.exists()


def test_a_report_of_one_emoji_is_a_report(client):
    assert client.post(REPORT, {"message": "\U0001f3b2"}).status_code == 302
    assert Report.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_reports_sent_at_once_cannot_pass_the_limits(settings):
    settings.PENTA_REPORTS_PER_PERSON = 5
    settings.PENTA_REPORTS_PER_ADDRESS = 100
    user = UserFactory(username="flooder")
    clients = [client_for(user) for _ in range(12)]
    answers = race(12, lambda: clients.pop().post(REPORT, {"message": "at once"}))
    codes = sorted(a.status_code for a in answers)
    assert codes == [302] * 5 + [429] * 7
    assert Report.objects.count() == 5
    # A refusal gave its count back: the address's count is the reports stored.
    settings.PENTA_REPORTS_PER_ADDRESS = 6
    assert client_for(UserFactory(username="next")).post(REPORT, {"message": "one more"}).status_code == 302
    assert client_for(UserFactory(username="last")).post(REPORT, {"message": "too many"}).status_code == 429


@pytest.mark.parametrize(
    "page", ["https://evil.example/", "//evil.example/", "javascript:alert(1)", "/\\evil"]
)
def test_the_thanks_page_leads_back_to_this_site_only(client, page):
    body = client.get(reverse("feedback:thanks"), {"page": page}).content.decode()
    assert "data-report-back" not in body


def test_the_form_is_in_dutch(client):
    body = client.get(REPORT, HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "Een probleem melden" in body and "Wat ging er mis?" in body


# -- the admin ---------------------------------------------------------------------------------------


@pytest.fixture
def admin_client(db):
    admin = UserFactory(username="admin", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    return client


def test_reports_are_listed_in_the_admin_by_status_with_the_game_linked(admin_client, user_client, my_game):
    user_client.post(REPORT, {"message": "Stuck on the countdown", "game": str(my_game.pk), "v": "2"})
    Report.objects.create(message="Old news", status=Report.Status.FIXED)
    listing = admin_client.get(reverse("admin:feedback_report_changelist")).content.decode()
    assert "Stuck on the countdown" in listing and "Old news" in listing
    assert reverse("admin:dicegame_game_change", args=[my_game.pk]) in listing
    assert reverse("review:review", args=[my_game.pk]) in listing
    new_only = admin_client.get(
        reverse("admin:feedback_report_changelist") + "?status__exact=new"
    ).content.decode()
    assert "Stuck on the countdown" in new_only and "Old news" not in new_only
    report = Report.objects.get(message="Stuck on the countdown")
    change = admin_client.get(reverse("admin:feedback_report_change", args=[report.pk])).content.decode()
    assert reverse("admin:dicegame_game_change", args=[my_game.pk]) in change


def test_the_admin_marks_reports_seen_and_fixed(admin_client):
    report = Report.objects.create(message="m")
    url = reverse("admin:feedback_report_changelist")
    admin_client.post(url, {"action": "mark_seen", "_selected_action": [report.pk]})
    report.refresh_from_db()
    assert report.status == Report.Status.SEEN
    admin_client.post(url, {"action": "mark_fixed", "_selected_action": [report.pk]})
    report.refresh_from_db()
    assert report.status == Report.Status.FIXED


def test_the_context_travels_in_hidden_fields_without_labels(client):
    body = client.get(f"{REPORT}?page=/games/&game=x&v=3").content.decode()
    assert '<input type="hidden" name="page" value="/games/"' in body
    assert ">Page</label>" not in body and ">V</label>" not in body
