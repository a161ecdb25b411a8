from django.apps import AppConfig


class CoreConfig(AppConfig):
    """An app only so that its template tags (`versioned`) are found."""

    name = "core"
    verbose_name = "Core"
