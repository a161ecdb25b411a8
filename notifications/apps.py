from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from dicegame.play import sweeper
        from notifications import services

        events.subscribe(events.TurnStarted, services.on_turn_started)
        events.subscribe(events.GameFinished, services.on_game_finished)
        # Apart from the games' own sweep: a slow mail server never delays the clock; the pushes in a
        # loop of their own, so that a slow or hostile push service delays nothing else either.
        sweeper.register(services.send_push_due, every=services.SEND_EVERY_SECONDS, apart="pushes")
        sweeper.register(services.send_mail_due, every=services.SEND_EVERY_SECONDS, apart=True)
        sweeper.register(services.queue_digests, every=services.DIGEST_EVERY_SECONDS, apart=True)
