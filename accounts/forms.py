from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from accounts.blocks import DELETED_PREFIX
from core import versions


class SignupForm(UserCreationForm):
    # Optional, confirmed by a link sent to it: what "forgot password" needs (notifications.people).
    email = forms.EmailField(
        label=_("E-mail address (optional)"),
        required=False,
        max_length=254,
        help_text=_(
            "Only to reset a forgotten password, and for the daily digest if you want it. Without one, a "
            "forgotten password cannot be reset. You can add it later on the notifications page."
        ),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def clean_username(self):
        username = super().clean_username()
        if username and username.lower().startswith(DELETED_PREFIX):
            raise forms.ValidationError(_("Names beginning with “deleted-” are kept for deleted accounts."))
        return username

    def save_unless_taken(self):
        """Save the new account; or, when another sign-up took the name between this form's check and
        its insert (the unique index refused it), give the form the usual "already exists" error and
        return None."""
        try:
            with transaction.atomic():
                user = self.save()
                # Their pages (and their friends' boards) are cached from the start (core.versions).
                versions.bump(versions.user(user.pk))
                return user
        except IntegrityError:
            model = self._meta.model
            if not model.objects.filter(username__iexact=self.cleaned_data["username"]).exists():
                raise  # some other constraint: not a race for the name
            self.add_error("username", self.instance.unique_error_message(model, ["username"]))
            return None
