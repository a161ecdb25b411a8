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
        from notifications import challenges, chatlines, notices, people, services

        events.subscribe(events.PersonNotified, notices.on_person_notified)
        events.subscribe(events.TurnStarted, services.on_turn_started)
        events.subscribe(events.ChallengeSent, challenges.on_challenge_sent)
        events.subscribe(events.ChatLineWaiting, chatlines.on_chat_line_waiting)
        events.subscribe(events.InboxChanged, services.on_inbox_changed)
        events.subscribe(events.GameFinished, services.on_game_finished)
        events.subscribe(events.AccountErased, people.on_account_erased)
        # Apart from the games' own sweep: a slow mail server never delays the clock; the pushes in a
        # loop of their own, so that a slow or hostile push service delays nothing else either.
        sweeper.register(services.send_push_due, every=services.SEND_EVERY_SECONDS, apart="pushes")
        sweeper.register(services.send_mail_due, every=services.SEND_EVERY_SECONDS, apart=True)
        sweeper.register(services.queue_digests, every=services.DIGEST_EVERY_SECONDS, apart=True)
        sweeper.register(people.forget_old_resets, every=people.FORGET_RESETS_EVERY_SECONDS, apart=True)
