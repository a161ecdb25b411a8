"""The daily challenge's commitments: published a week ahead, drawn with secrets, seeds shown only after
their (Europe/Amsterdam) day has ended."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.core.management import call_command

from daily import selectors, services
from daily.models import DailySeed

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def test_today_is_the_amsterdam_date():
    assert services.today(dt.datetime(2026, 7, 1, 21, 59, tzinfo=UTC)) == dt.date(2026, 7, 1)
    assert services.today(dt.datetime(2026, 7, 1, 22, 0, tzinfo=UTC)) == dt.date(2026, 7, 2)  # summer: +2
    assert services.today(dt.datetime(2026, 12, 1, 23, 0, tzinfo=UTC)) == dt.date(2026, 12, 2)  # winter: +1


def test_a_week_ahead_is_committed_once_and_never_redrawn():
    now = dt.datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert services.publish_commitments(now) == services.DAYS_AHEAD + 1
    rows = {r.date: r for r in DailySeed.objects.all()}
    assert sorted(rows) == [dt.date(2026, 11, 30) + dt.timedelta(days=d) for d in range(8)]
    for row in rows.values():
        assert len(row.seed) == 64 and row.commitment == hashlib.sha256(bytes.fromhex(row.seed)).hexdigest()
    assert len({r.seed for r in rows.values()}) == 8
    assert services.publish_commitments(now) == 0
    assert services.publish_commitments(now + dt.timedelta(days=1)) == 1  # one more day comes into view
    assert {r.date: r.seed for r in DailySeed.objects.filter(date__in=rows)} == {
        d: r.seed for d, r in rows.items()
    }


def test_a_seed_is_revealed_only_when_its_amsterdam_day_has_ended():
    services.publish_commitments(dt.datetime(2026, 7, 1, 12, tzinfo=UTC))
    row = DailySeed.objects.get(date=dt.date(2026, 7, 1))
    assert selectors.revealed_seed(row, dt.datetime(2026, 7, 1, 21, 59, 59, tzinfo=UTC)) is None
    assert selectors.revealed_seed(row, dt.datetime(2026, 7, 1, 22, 0, tzinfo=UTC)) == row.seed
    ahead, past = selectors.commitments(dt.datetime(2026, 7, 1, 21, 59, tzinfo=UTC))
    assert ahead[0].date == dt.date(2026, 7, 1) and ahead[0].is_today and not past
    ahead, past = selectors.commitments(dt.datetime(2026, 7, 1, 22, 1, tzinfo=UTC))
    assert [c.seed for c in past] == [row.seed] and all(c.seed is None for c in ahead)


def test_the_page_lists_the_commitments_and_no_secret_seed(client):
    yesterday = services.today() - dt.timedelta(days=1)
    old = DailySeed.objects.create(
        date=yesterday, seed="ab" * 32, commitment=hashlib.sha256(b"\xab" * 32).hexdigest()
    )
    response = client.get("/daily/commitments/")
    html = response.content.decode()
    assert response.status_code == 200
    ahead = DailySeed.objects.filter(date__gte=services.today())
    assert ahead.count() == services.DAYS_AHEAD + 1
    for row in ahead:
        assert row.commitment in html and row.seed not in html
    assert html.count("data-commitment>") == services.DAYS_AHEAD + 1
    assert f'<code class="hash" data-seed>{old.seed}</code>' in html  # yesterday's day is over
    assert 'aria-current="date"' in html and "style=" not in html


def test_the_page_only_reads(client):
    response = client.post("/daily/commitments/")
    assert response.status_code == 405 and DailySeed.objects.count() == 0


def test_the_admin_never_shows_a_seed(admin_client):
    services.publish_commitments()
    row = DailySeed.objects.get(date=services.today())
    for url in ("/admin/daily/dailyseed/", f"/admin/daily/dailyseed/{row.pk}/change/"):
        response = admin_client.get(url)
        assert response.status_code == 200
        assert row.commitment[:20] in response.content.decode() or url.endswith("/change/")
        assert row.seed not in response.content.decode()


def test_the_page_speaks_dutch(client):
    client.cookies["django_language"] = "nl"
    html = client.get("/daily/commitments/").content.decode()
    assert "Dagelijkse uitdaging" in html and "vandaag" in html


def test_the_command_publishes(capsys):

    call_command("publish_daily")
    assert DailySeed.objects.count() == services.DAYS_AHEAD + 1
    assert "8 new daily commitment(s) published." in capsys.readouterr().out
