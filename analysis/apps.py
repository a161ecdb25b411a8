from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = _("Analysis")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from analysis import services
        from dicegame import events
        from dicegame.play import sweeper

        events.subscribe(events.GameFinished, services.on_game_finished)
        sweeper.register(services.analyse_finished, every=services.ANALYSE_EVERY_SECONDS, apart=True)
