"""The account's own pages: where you are logged in (and logging out the others), export my data,
delete my account; and the privacy page, linked from every page's foot."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import deletion, export, logins
from accounts.selectors import deletion_pending, login_sessions

# -- sessions ---------------------------------------------------------------------------------------------


def _sessions_page(request: HttpRequest, *, status: int = 200, error: str = "") -> HttpResponse:
    logins.record(request, request.user)  # this one is on the list, seen now
    context = {
        "sessions": login_sessions(user_id=request.user.pk),
        "current": request.session.session_key,
        "error": error,
    }
    return TemplateResponse(request, "accounts/sessions.html", context, status=status)


@require_GET
@login_required
def sessions(request: HttpRequest) -> HttpResponse:
    return _sessions_page(request)


@require_POST
@login_required
def sessions_end_others(request: HttpRequest) -> HttpResponse:
    ended = logins.end_others(user_id=request.user.pk, keep=request.session.session_key)
    messages.success(request, _("Logged out everywhere else (%(n)d sessions).") % {"n": ended})
    return redirect("accounts:sessions")


@require_POST
@login_required
def session_end(request: HttpRequest, session_id: int) -> HttpResponse:
    if not logins.end_one(user_id=request.user.pk, session_id=session_id):
        return _sessions_page(request, status=404, error=_("There is no such session of yours."))
    messages.success(request, _("That session is logged out."))
    return redirect("accounts:sessions")


# -- export -----------------------------------------------------------------------------------------------


def _export_page(request: HttpRequest, *, status: int = 200, error: str = "") -> HttpResponse:
    rows = [
        {"export": e, "token": export.link_token(e) if e.ready_at else ""}
        for e in export.exports_of(user_id=request.user.pk)
    ]
    context = {
        "exports": rows,
        "waiting": any(e.ready_at is None and not e.error for e in (r["export"] for r in rows)),
        "per_day": export.EXPORTS_A_DAY,
        "kept_days": export.KEPT_FOR.days,
        "error": error,
    }
    template = "accounts/export.html"
    if request.htmx and not request.htmx.boosted and not request.htmx.history_restore_request:
        template += "#export-list"
    return TemplateResponse(request, template, context, status=status)


@require_GET
@login_required
def export_page(request: HttpRequest) -> HttpResponse:
    return _export_page(request)


@require_POST
@login_required
def export_request(request: HttpRequest) -> HttpResponse:
    try:
        export.export_request(user=request.user)
    except export.ExportError as exc:
        return _export_page(request, status=exc.status, error=exc.message)
    messages.success(request, _("Your export is being made: it is listed here in a minute or so."))
    return redirect("accounts:export")


@require_GET
@login_required
def export_download(request: HttpRequest, token: str) -> HttpResponse:
    """The zip, for its own person only (another's link, a forged or an old one: 404)."""
    try:
        found = export.export_for_link(token=token, user_id=request.user.pk)
    except export.ExportError as exc:
        return _export_page(request, status=exc.status, error=exc.message)
    response = HttpResponse(bytes(found.content), content_type="application/zip")
    stamp = found.ready_at.strftime("%Y%m%d")
    response["Content-Disposition"] = f'attachment; filename="penta-data-{stamp}.zip"'
    response["Cache-Control"] = "private, no-store"
    return response


# -- deletion ---------------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    """The password again; then the account waits 7 days (logging in cancels it) and every session of
    it ends, this one too."""
    context = {"grace_days": deletion.GRACE.days, "pending": deletion_pending(user_id=request.user.pk)}
    if request.method == "GET":
        return TemplateResponse(request, "accounts/delete.html", context)
    try:
        done = deletion.deletion_request(user=request.user, password=request.POST.get("password", ""))
    except deletion.DeletionError as exc:
        return TemplateResponse(
            request, "accounts/delete.html", {**context, "error": exc.message}, status=exc.status
        )
    when = deletion.due_date_text(done)
    logout(request)
    messages.success(
        request,
        _("Your account will be deleted on %(date)s. Log in before then if you change your mind.")
        % {"date": when},
    )
    return redirect("dicegame:home")


# -- the privacy page -------------------------------------------------------------------------------------


@require_GET
def privacy(request: HttpRequest) -> HttpResponse:
    context = {
        "grace_days": deletion.GRACE.days,
        "exports_a_day": export.EXPORTS_A_DAY,
        "export_days": export.KEPT_FOR.days,
    }
    return TemplateResponse(request, "accounts/privacy.html", context)
