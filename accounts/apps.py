from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in, user_logged_out


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self):
        from accounts import deletion, erasure, export, logins
        from accounts.selectors import time_zone_on_login
        from dicegame.play import sweeper

        user_logged_in.connect(time_zone_on_login, dispatch_uid="accounts.time_zone_on_login")
        user_logged_in.connect(logins.on_logged_in, dispatch_uid="accounts.logins.on_logged_in")
        user_logged_out.connect(logins.on_logged_out, dispatch_uid="accounts.logins.on_logged_out")
        user_logged_in.connect(deletion.on_logged_in, dispatch_uid="accounts.deletion.on_logged_in")
        # The clock erases the accounts whose deletion is due and makes the exports asked for, apart
        # from the games' own sweep (an export of thousands of games never delays a move).
        sweeper.register(erasure.erase_due, every=erasure.ERASE_EVERY_SECONDS, apart=True)
        sweeper.register(export.build_due, every=export.BUILD_EVERY_SECONDS, apart=True)
