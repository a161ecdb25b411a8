from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "dicegame.live"
    label = "live"
    verbose_name = "Penta live play"
