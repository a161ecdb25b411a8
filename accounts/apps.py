from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self):
        from accounts.selectors import time_zone_on_login

        user_logged_in.connect(time_zone_on_login, dispatch_uid="accounts.time_zone_on_login")
