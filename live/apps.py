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
        from notifications import challenges

        events.subscribe(events.GameChanged, pushes.on_game_changed)
        # A challenge's push goes to a person who is away: no page of theirs holds a socket.
        challenges.register_online_check(presence.is_online)
        # First in every sweep: a seat that a dead process held may owe its turn an absence grace period.
        sweeper.register(presence.forget_dead_processes, every=1.0, before_settling=True)
