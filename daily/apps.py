from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DailyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "daily"
    verbose_name = _("Daily challenge")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from daily import services
        from dicegame import events
        from dicegame.play import sweeper

        events.subscribe(events.GuestGamesClaimed, services.on_guest_games_claimed)
        # Daily games left unfinished when their day ended close with what was written (one indexed query
        # when there are none; an action or a view of such a game closes it at once too).
        sweeper.register(services.close_ended, every=sweeper.EXPIRY_SWEEP_SECONDS)
