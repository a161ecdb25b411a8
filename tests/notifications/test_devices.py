"""A device's name on the settings page, from its browser's User-Agent."""

import pytest

from notifications.devices import device_name

CHROME_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 "
    "Safari/537.36"
)


@pytest.mark.parametrize(
    ("user_agent", "name"),
    [
        (CHROME_WINDOWS, "Chrome, Windows"),
        (CHROME_WINDOWS + " Edg/131.0.0.0", "Edge, Windows"),  # the same computer, told apart
        (CHROME_WINDOWS + " OPR/115.0.0.0", "Opera, Windows"),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Mobile Safari/537.36",
            "Chrome, Android",
        ),
        (
            "Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) "
            "SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
            "Samsung Internet, Android",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            "Version/18.1 Mobile/15E148 Safari/604.1",
            "Safari, iOS",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Firefox, macOS",
        ),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox, Linux"),
        ("curl/8.5.0", ""),
        ("", ""),
    ],
)
def test_a_device_is_named_by_its_browser_and_system(user_agent, name):
    assert device_name(user_agent) == name
