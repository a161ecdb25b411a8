"""A device's name for the settings page: the namer is shared with the sessions page (core.devices)."""

from core.devices import device_name

__all__ = ["device_name"]
