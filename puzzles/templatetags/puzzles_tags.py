"""The daily puzzle's card for the home page: {% load puzzles_tags %}{% daily_puzzle_card %}."""

from django import template
from django.utils import timezone

from dicegame.rules import days
from puzzles import services
from puzzles.models import THEME_LABELS

register = template.Library()


@register.inclusion_tag("puzzles/daily_card.html")
def daily_puzzle_card():
    puzzle = services.daily_puzzle(days.today(timezone.now()))
    themes = [THEME_LABELS[t] for t in puzzle.themes] if puzzle else []
    return {"puzzle": puzzle, "themes": themes}
