"""The "Report a problem" form: a plain form (it works without JavaScript), reached from the footer of
every page and from every game page with the page, the game and its version in the link."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from dicegame.actors import actor_from_request
from feedback import services
from feedback.forms import ReportForm

FORM_TEMPLATE = "feedback/report.html"


def _referer_path(request: HttpRequest) -> str:
    """The page the reporter came from, when the link did not say (only a path on this site)."""

    referer = urlsplit(request.headers.get("Referer", ""))
    if referer.netloc and referer.netloc != request.get_host():
        return ""
    return referer.path + (f"?{referer.query}" if referer.query else "")


def _context(request: HttpRequest, data) -> services.Context:
    return services.report_context(
        actor=actor_from_request(request),
        page=data.get("page") or _referer_path(request),
        game=data.get("game") or "",
        version=data.get("v") or "",
        language=getattr(request, "LANGUAGE_CODE", ""),
        user_agent=request.headers.get("User-Agent", ""),
    )


def _page(
    request: HttpRequest, form: ReportForm, context: services.Context, *, error: str = "", status: int = 200
):
    return TemplateResponse(
        request, FORM_TEMPLATE, {"form": form, "report": context, "error": error}, status=status
    )


@require_http_methods(["GET", "POST"])
def report(request: HttpRequest) -> HttpResponse:
    ask_email = not request.user.is_authenticated
    if request.method == "GET":
        context = _context(request, request.GET)
        initial = {
            "page": context.page,
            "game": context.game_id or "",
            "v": "" if context.game_version is None else context.game_version,
        }
        return _page(request, ReportForm(initial=initial, ask_email=ask_email), context)
    form = ReportForm(request.POST, ask_email=ask_email)
    context = _context(request, request.POST)
    if not form.is_valid():
        return _page(request, form, context, status=400)
    message = form.cleaned_data["message"].strip()
    if not message:
        form.add_error("message", ReportForm.base_fields["message"].error_messages["required"])
        return _page(request, form, context, status=400)
    try:
        services.report_submit(
            actor=actor_from_request(request, create_guest=True),
            address=services.clean_address(request.META.get("REMOTE_ADDR")),
            message=message,
            email=form.cleaned_data.get("email", ""),
            context=context,
        )
    except services.ReportRefused as exc:
        return _page(request, form, context, error=exc.message, status=exc.status)
    thanks_url = reverse("feedback:thanks")
    return redirect(f"{thanks_url}?{urlencode({'page': context.page})}" if context.page else thanks_url)


@require_GET
def thanks(request: HttpRequest) -> HttpResponse:
    # Back to the page the report came from (a path on this site only, as the report keeps it).
    return TemplateResponse(
        request, "feedback/thanks.html", {"came_from": services.clean_page(request.GET.get("page"))}
    )
