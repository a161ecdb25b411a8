from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"
    verbose_name = _("Chat at the table")

    def ready(self):
        from chat import services
        from dicegame import events

        events.subscribe(events.AccountErased, services.on_account_erased)
