from django.contrib.auth.forms import UserCreationForm
from django.db import IntegrityError, transaction

from core import versions


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)

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
