"""Path converters for the numbers in URLs (HTTP and WebSocket routes).

Django's ``int`` takes any run of digits: an id beyond 64 bits reached the database (SQLite raised
OverflowError: a 500). ``id`` only matches 1 .. 2**63-1 (a primary key), ``index`` 0 .. 2**63-1 (a
die, a seat); anything else is no match, so a 404. Registered once here: every urls module imports
this module before its patterns.
"""

from django.urls import register_converter

INT64_MAX = 2**63 - 1


class IdConverter:
    """A database id: 1 .. 2**63-1, written without leading zeros."""

    regex = "[1-9][0-9]{0,18}"
    minimum = 1

    def to_python(self, value: str) -> int:
        number = int(value)
        if not self.minimum <= number <= INT64_MAX:
            raise ValueError(f"{value} is out of range")
        return number

    def to_url(self, value) -> str:
        number = int(value)
        if not self.minimum <= number <= INT64_MAX:
            raise ValueError(f"{value} is out of range")
        return str(number)


class IndexConverter(IdConverter):
    """A small position (a die, a seat) that may be 0, within the same 64-bit bounds."""

    regex = "0|[1-9][0-9]{0,18}"
    minimum = 0


register_converter(IdConverter, "id")
register_converter(IndexConverter, "index")
