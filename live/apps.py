from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    label = "live"
    verbose_name = "Penta live play"

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from dicegame.play import sweeper
        from live import presence, pushes

        events.subscribe(events.GameChanged, pushes.on_game_changed)
        # First in every sweep: a seat that a dead process held may owe its turn an absence grace period.
        sweeper.register(presence.forget_dead_processes, every=1.0, before_settling=True)
