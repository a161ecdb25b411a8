from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DailyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "daily"
    verbose_name = _("Daily challenge")
