from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = _("Review")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from dicegame.play import sweeper
        from review import services

        events.subscribe(events.GameFinished, services.on_game_finished)
        sweeper.register(services.analyse_finished, every=services.ANALYSE_EVERY_SECONDS, apart=True)
