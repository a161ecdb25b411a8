from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WinprobConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "winprob"
    verbose_name = _("Winning chances")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from winprob import hints, live

        # The bar and the hint "best to win" come after the board of the same change, off the action's path.
        events.subscribe(events.BoardPushed, live.on_board_pushed)
        events.subscribe(events.BoardPushed, hints.on_board_pushed)
