"""The daily challenge's public page: the commitments of the days ahead and the seeds of days gone."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from daily import selectors, services


@require_GET
def commitments(request: HttpRequest) -> HttpResponse:
    # Publishing here keeps the next week committed even if the daily command did not run; a day's
    # commitment is then still out a week before its game (publish_daily is the guarantee).
    services.publish_commitments()
    ahead, past = selectors.commitments()
    context = {"ahead": ahead, "past": past, "today": services.today(), "zone": services.DAILY_ZONE.key}
    return TemplateResponse(request, "daily/commitments.html", context)
