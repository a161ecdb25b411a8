"""{{ moment|time_left }}: the time left until a moment in words, "less than a minute" at the last
(core.times)."""

from django import template

from core.times import time_left as _time_left

register = template.Library()


@register.filter
def time_left(moment):
    return _time_left(moment) if moment else ""
