"""Dutch: "1 dec 2026"; "1 dec 2026, 20:14 CET" where a time stands alone, "1 dec 2026, 20:14" in lists
(penta.formats; Dutch writes the month in lower case)."""

DATE_FORMAT = "j b Y"
SHORT_DATE_FORMAT = "j b Y"
DATETIME_FORMAT = "j b Y, H:i T"
SHORT_DATETIME_FORMAT = "j b Y, H:i"
TIME_FORMAT = "H:i"
