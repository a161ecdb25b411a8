"""English: "1 Dec 2026"; "1 Dec 2026, 20:14 CET" where a time stands alone (the zone said, for a reader
elsewhere); "1 Dec 2026, 20:14" in lists (penta.formats)."""

DATE_FORMAT = "j M Y"
SHORT_DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i T"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
