from django.apps import AppConfig


class DicegameConfig(AppConfig):
    name = "dicegame"
    verbose_name = "Penta"

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from core import versions
        from dicegame import events

        # What the pages cache moves on with every finished game and every claim of a guest's games.
        events.subscribe(events.GameFinished, versions.on_game_finished)
        events.subscribe(events.GuestGamesClaimed, versions.on_guest_games_claimed)
