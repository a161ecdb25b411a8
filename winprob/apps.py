from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WinprobConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "winprob"
    verbose_name = _("Winning chances")
