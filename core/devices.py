"""A device's name for the notification settings and the sessions page, from its browser's User-Agent:
"Edge, Windows", so that two browsers of one computer can be told apart (the raw string starts alike for
every Chromium browser)."""

from __future__ import annotations

import re

# The first that matches names the browser: Chromium's offshoots say "Chrome" too, Chrome says "Safari".
BROWSERS = (
    (r"\bEdg(?:e|A|iOS)?/", "Edge"),
    (r"\b(?:OPR|Opera)/", "Opera"),
    (r"\bSamsungBrowser/", "Samsung Internet"),
    (r"\bVivaldi/", "Vivaldi"),
    (r"\b(?:Firefox|FxiOS)/", "Firefox"),
    (r"\b(?:Chrome|CriOS|Chromium)/", "Chrome"),
    (r"\bSafari/", "Safari"),
)
SYSTEMS = (
    (r"\bAndroid\b", "Android"),
    (r"\b(?:iPhone|iPad|iPod)\b", "iOS"),
    (r"\bWindows\b", "Windows"),
    (r"\bCrOS\b", "ChromeOS"),
    (r"\bMac OS X\b|\bMacintosh\b", "macOS"),
    (r"\bLinux\b", "Linux"),
)


def _first(patterns, text: str) -> str:
    return next((name for pattern, name in patterns if re.search(pattern, text)), "")


def device_name(user_agent: str) -> str:
    """ "Firefox, Android"; the browser or the system alone when only one is known; "" for neither."""
    return ", ".join(part for part in (_first(BROWSERS, user_agent), _first(SYSTEMS, user_agent)) if part)
