from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "fairplay"
    verbose_name = _("Fair play")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from dicegame.play import sweeper
        from fairplay import reports, services

        events.subscribe(events.AccountErased, reports.on_account_erased)

        # In the clock process, apart from the games' own sweep: assessing a game replays its analysis,
        # which no player's action should wait for.
        sweeper.register(services.assess_pending, every=services.ASSESS_EVERY_SECONDS, apart=True)
