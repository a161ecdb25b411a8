from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from puzzles import services

        events.subscribe(events.GamesAnalysed, services.on_games_analysed)
