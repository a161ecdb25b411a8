from django import forms
from django.utils.translation import gettext_lazy as _

from dicegame.rules.names import is_visible
from feedback.models import MESSAGE_MAX_LENGTH


class ReportForm(forms.Form):
    message = forms.CharField(
        label=_("What went wrong?"),
        max_length=MESSAGE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        error_messages={
            "required": _("Write a few words about the problem."),
            "max_length": _("Keep it under %(limit_value)d characters, please."),
        },
    )
    email = forms.EmailField(
        label=_("Your e-mail address, if you would like an answer (optional)"),
        required=False,
        max_length=254,
    )
    # The context, set by the link's query string. Never a reason to refuse a report: the server checks
    # each part and drops what it cannot trust (feedback.services.report_context).
    page = forms.CharField(required=False, widget=forms.HiddenInput)
    game = forms.CharField(required=False, widget=forms.HiddenInput)
    v = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_message(self) -> str:
        """Refuse a message with nothing to read: only spaces, zero-width or other invisible characters
        (format, control and separator categories) got through as a report before."""
        message = self.cleaned_data["message"]
        if not is_visible(message):
            raise forms.ValidationError(_("Write a few words about the problem."), code="required")
        return message

    def __init__(self, *args, ask_email: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        if not ask_email:
            del self.fields["email"]
