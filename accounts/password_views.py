"""A forgotten password: Django's reset views and tokens, with a request that tells nothing.

"Forgot password" answers the same page, in about the same time, for any address: the view only counts
it and queues it (notifications.people.password_reset_ask: one insert either way); the clock's mail
sweep finds whether it is any account's confirmed address and sends the link. The link (Django's token,
made from the password's hash and the last login) works once: the new password spends it. Setting it
ends every other session of the account, and logs this one in unless the account asks for a second
factor, which the log-in then asks for as usual.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import logins
from accounts.throttle import client_address
from accounts.views import log_in_keeping_guest_games
from dicegame.errors import GameActionError
from notifications.people import password_reset_ask


class ForgotForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("The e-mail address you confirmed for your account"),
        max_length=254,
        error_messages={
            "required": gettext_lazy("Type your e-mail address."),
            "invalid": gettext_lazy("That is not an e-mail address."),
        },
    )


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "accounts/password_reset.html"
    form_class = ForgotForm
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form):
        try:
            password_reset_ask(address=form.cleaned_data["email"], client=client_address(self.request))
        except GameActionError as exc:
            context = self.get_context_data(form=form, error=exc.message)
            return TemplateResponse(self.request, self.template_name, context, status=exc.status)
        return redirect(self.success_url)

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("dicegame:history")

    def dispatch(self, *args, **kwargs):
        response = super().dispatch(*args, **kwargs)
        # A link that does not work (used, expired, altered, another's): the page says so, with a 400.
        if not getattr(self, "validlink", False) and response.status_code == 200:
            response.status_code = 400
        return response

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response

    def form_valid(self, form):
        user = form.save()
        del self.request.session[auth_views.INTERNAL_RESET_SESSION_TOKEN]
        # Every session of the account ends (Django's session hash would refuse them at their next
        # request anyway: this also takes them off the sessions page).
        logins.end_all(user_id=user.pk)
        if logins.has_two_factor(user):
            messages.success(self.request, _("Your password has been changed: log in with it and your code."))
            return redirect("accounts:login")
        log_in_keeping_guest_games(self.request, user)
        messages.success(self.request, _("Your password has been changed, and you are logged in."))
        return redirect(self.success_url)
