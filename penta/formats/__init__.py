"""Date formats that read the same everywhere (FORMAT_MODULE_PATH): the day, the month's short name and
the year, and a 24-hour clock ("1 Dec 2026, 20:14", "1 dec 2026, 20:14"), never "12/01/2026 7 p.m."
(December the first or the twelfth of January?). Times are in the person's zone
(penta.middleware.TimeZoneMiddleware)."""
