from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FeedbackConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "feedback"
    verbose_name = _("Problem reports")

    def ready(self):
        from dicegame import events
        from feedback import services

        events.subscribe(events.AccountErased, services.on_account_erased)
