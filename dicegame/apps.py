from django.apps import AppConfig


class DicegameConfig(AppConfig):
    name = "dicegame"
    verbose_name = "Penta"
