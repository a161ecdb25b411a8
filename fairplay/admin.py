"""The review queue: flagged accounts, and accounts found fed by others, with their evidence; staff clear
or mark (nothing else changes a case here: every figure is the machine's). Beside it, the reports about
people, on which staff rename, mute or close an account."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from accounts.blocks import BlockError
from accounts.models import Profile
from fairplay import reports, selectors, services
from fairplay.models import WAITING_AS_FED, Case, PersonReport


class WaitingFilter(admin.SimpleListFilter):
    """Staff's queue: the flagged accounts, and those found fed by others (still on the boards)."""

    title = _("waiting for staff")
    parameter_name = "waiting"

    def lookups(self, request, model_admin):
        return [("yes", _("Yes"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=selectors.queue().values("pk"))
        return queryset


@admin.register(Case)
class CaseAdmin(admin.ModelAdmin):
    list_display = (
        "user",
        "status",
        "reason",
        "evidence",
        "games",
        "suspicious_games",
        "share",
        "flagged_at",
        "fed_at",
    )
    list_filter = (WaitingFilter, "status", "reason")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    ordering = ("status", "-evidence")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        own = [
            path(
                "<int:case_id>/evidence/",
                self.admin_site.admin_view(self.evidence_view),
                name="fairplay_case_evidence",
            ),
            path(
                "<int:case_id>/decide/",
                self.admin_site.admin_view(require_POST(self.decide_view)),
                name="fairplay_case_decide",
            ),
        ]
        return own + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # A case is read and decided, not edited: its page is the evidence.
        return HttpResponseRedirect(reverse("admin:fairplay_case_evidence", args=[object_id]))

    def evidence_view(self, request: HttpRequest, case_id: int):
        case = get_object_or_404(Case.objects.select_related("user", "reviewed_by"), pk=case_id)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        games = selectors.game_evidence(case)
        names = selectors.names([*case.feeders, *([case.fed_id] if case.fed_id else [])])
        cases = dict(Case.objects.filter(user_id__in=list(names)).values_list("user_id", "pk"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Fair play: %(user)s") % {"user": case.user.get_username()},
            "case": case,
            "games": games,
            "chart": selectors.accuracy_time_chart(games),
            "can_decide": self.has_change_permission(request, case),
            # The accounts that fed this one, and the one a feeder fed: (name, their case's id or None).
            "feeders": [(names.get(uid, uid), cases.get(uid)) for uid in case.feeders],
            "fed": (names.get(case.fed_id, case.fed_id), cases.get(case.fed_id)) if case.fed_id else None,
            "waiting_as_fed": Case.objects.filter(WAITING_AS_FED, pk=case.pk).exists(),
        }
        return TemplateResponse(request, "admin/fairplay/case_evidence.html", context)

    def decide_view(self, request: HttpRequest, case_id: int):
        case = get_object_or_404(Case, pk=case_id)
        if not self.has_change_permission(request, case):
            messages.error(request, _("You may not decide fair-play cases."))
            return HttpResponseRedirect(reverse("admin:fairplay_case_evidence", args=[case_id]))
        decision = request.POST.get("decision")
        note = request.POST.get("note", "").strip()[:2000]
        try:
            if decision == "clear":
                services.clear(case_id, by=request.user, note=note)
                messages.success(request, _("Cleared: the account is back on the boards."))
            elif decision == "mark":
                services.mark(case_id, by=request.user, note=note)
                messages.success(
                    request, _("Marked: the account is off every board and its rated opponents are refunded.")
                )
            else:
                messages.error(request, _("Choose to clear or to mark the account."))
        except services.FairPlayError as exc:
            messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("admin:fairplay_case_evidence", args=[case_id]))


@admin.register(PersonReport)
class PersonReportAdmin(admin.ModelAdmin):
    """Reports about people, beside the cases: staff read one, then rename the account (an offensive
    name), mute it (no friend requests, invitations, challenges or chat), close it, or close the
    report."""

    list_display = ("id", "created_at", "status", "reason", "reported_name", "reporter", "game")
    list_filter = ("status", "reason")
    search_fields = ("reported_name", "reported__username", "reporter__username", "message")
    list_select_related = ("reported", "reporter")
    ordering = ("status", "-created_at")

    def has_add_permission(self, request):
        return False

    def get_urls(self):
        own = [
            path(
                "<int:report_id>/handle/",
                self.admin_site.admin_view(self.handle_view),
                name="fairplay_personreport_handle",
            )
        ]
        return own + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return HttpResponseRedirect(reverse("admin:fairplay_personreport_handle", args=[object_id]))

    def handle_view(self, request: HttpRequest, report_id: int):
        report = get_object_or_404(PersonReport.objects.select_related("reported", "reporter"), pk=report_id)
        if not self.has_view_permission(request, report):
            raise PermissionDenied
        status = 200
        if request.method == "POST":
            if not self.has_change_permission(request, report):
                raise PermissionDenied
            try:
                done = reports.staff_act(
                    report,
                    by=request.user,
                    action=request.POST.get("action", ""),
                    name=request.POST.get("name", ""),
                    note=request.POST.get("note", ""),
                )
            except BlockError as exc:
                messages.error(request, exc.message)
                status = exc.status
            else:
                messages.success(request, done)
                return HttpResponseRedirect(reverse("admin:fairplay_personreport_handle", args=[report_id]))
        profile = Profile.objects.filter(user_id=report.reported_id).first()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Report about %(name)s") % {"name": report.reported_name},
            "report": report,
            "muted": bool(profile and profile.muted_at),
            "others": PersonReport.objects.filter(reported_id=report.reported_id).exclude(pk=report.pk)[:20],
            "case": Case.objects.filter(user_id=report.reported_id).first(),
            "can_act": self.has_change_permission(request, report),
        }
        return TemplateResponse(request, "admin/fairplay/person_report.html", context, status=status)
