from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from ratings import services

        # In the finishing transaction, under the game's row lock: the ratings move with the end, once.
        events.subscribe(events.GameFinished, services.on_game_finished)
        # In the marking transaction: the marked account's rated opponents get their losses back with
        # the mark, once.
        events.subscribe(events.AccountMarked, services.on_account_marked)
