"""Problem reports in the admin: newest first, filterable by status, each linked to its game."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from feedback.models import Report


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("id", "created_at", "status", "summary", "reporter", "game_links", "page", "language")
    list_filter = ("status", "language")
    list_editable = ("status",)
    list_display_links = ("id", "summary")
    search_fields = ("message", "email", "user__username", "page")
    list_select_related = ("user", "game")
    date_hierarchy = "created_at"
    readonly_fields = (
        "message",
        "email",
        "user",
        "client_address",
        "page",
        "game_links",
        "game_version",
        "language",
        "user_agent",
        "created_at",
        "updated_at",
    )
    fields = ("status", *readonly_fields)
    actions = ["mark_seen", "mark_fixed"]

    @admin.display(description=_("Message"))
    def summary(self, report: Report) -> str:
        return report.message if len(report.message) <= 80 else report.message[:79] + "…"

    @admin.display(description=_("From"))
    def reporter(self, report: Report) -> str:
        if report.user_id:
            return report.user.get_username()
        return report.email or _("guest")

    @admin.display(description=_("Game"))
    def game_links(self, report: Report) -> str:
        if report.game_id is None:
            return "-"
        return format_html(
            '<a href="{}" data-game-admin>{}</a> · <a href="{}" data-game-review>{}</a>{}',
            reverse("admin:dicegame_game_change", args=[report.game_id]),
            _("Game %(id)s") % {"id": report.game_id},
            reverse("review:review", args=[report.game_id]),
            _("review"),
            f" (v{report.game_version})" if report.game_version is not None else "",
        )

    @admin.action(description=_("Mark as seen"))
    def mark_seen(self, request, queryset):
        queryset.update(status=Report.Status.SEEN)

    @admin.action(description=_("Mark as fixed"))
    def mark_fixed(self, request, queryset):
        queryset.update(status=Report.Status.FIXED)
