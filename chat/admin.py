"""Staff's side of chat: the queue of reported lines (each with the lines around it), hiding lines,
time-outs (15 minutes, 24 hours or for good, with a reason), and panic mode (free text for established
accounts only, for a while)."""

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from chat import services
from chat.models import ChatLine, ChatPanic, ChatReport, ChatTimeout


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    list_display = ("id", "created_at", "game", "sender", "room", "kind", "text", "hidden")
    list_filter = ("room", "kind", "hidden")
    search_fields = ("text", "sender__username")
    list_select_related = ("sender",)
    raw_id_fields = ("game", "sender")
    actions = ["hide"]

    @admin.action(description=_("Hide the chosen lines"))
    def hide(self, request, queryset):
        n = services.lines_hide(queryset.values_list("pk", flat=True))
        self.message_user(request, _("%(n)d lines hidden.") % {"n": n}, messages.SUCCESS)


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    list_display = ("id", "created_at", "status", "line", "sender", "reporter")
    list_filter = ("status",)
    list_editable = ("status",)
    list_display_links = ("id", "line")
    list_select_related = ("line__sender", "reporter")
    readonly_fields = ("line", "reporter", "context", "created_at")
    fields = ("status", *readonly_fields)
    actions = ["hide_lines"]

    @admin.display(description=_("Sender"))
    def sender(self, report: ChatReport):
        return report.line.sender

    @admin.action(description=_("Hide the reported lines"))
    def hide_lines(self, request, queryset):
        n = services.lines_hide(queryset.values_list("line_id", flat=True))
        queryset.update(status=ChatReport.Status.HANDLED)
        self.message_user(request, _("%(n)d lines hidden.") % {"n": n}, messages.SUCCESS)


class TimeoutForm(forms.ModelForm):
    length = forms.ChoiceField(
        label=_("Length"),
        choices=[("15m", _("15 minutes")), ("24h", _("24 hours")), ("ever", _("For good"))],
    )

    class Meta:
        model = ChatTimeout
        fields = ("user", "length", "reason")


@admin.register(ChatTimeout)
class ChatTimeoutAdmin(admin.ModelAdmin):
    form = TimeoutForm
    list_display = ("user", "until", "reason", "by", "created_at")
    raw_id_fields = ("user",)
    search_fields = ("user__username", "reason")

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        made = services.timeout_set(
            user_id=form.cleaned_data["user"].pk,
            length=form.cleaned_data["length"],
            reason=form.cleaned_data["reason"],
            by=request.user,
        )
        obj.pk = made.pk


class PanicForm(forms.ModelForm):
    hours = forms.TypedChoiceField(
        label=_("Length"),
        coerce=float,
        choices=[(1, _("1 hour")), (6, _("6 hours")), (24, _("24 hours")), (72, _("3 days"))],
    )

    class Meta:
        model = ChatPanic
        fields = ("hours", "reason")


@admin.register(ChatPanic)
class ChatPanicAdmin(admin.ModelAdmin):
    form = PanicForm
    list_display = ("started_at", "until", "reason", "by")
    actions = ["end_now"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        try:
            made = services.panic_start(
                hours=form.cleaned_data["hours"], reason=form.cleaned_data["reason"], by=request.user
            )
        except services.ChatRefused as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return
        obj.pk = made.pk

    @admin.action(description=_("End panic mode now"))
    def end_now(self, request, queryset):
        services.panic_end()
        self.message_user(request, _("Panic mode is off."), messages.SUCCESS)
