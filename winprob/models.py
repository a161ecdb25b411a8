"""A player's choice to see the winning chances bar in their own casual game."""

from django.db import models


class WinBarChoice(models.Model):
    """The seat's player asked to see every seat's chance of winning (a row per seat that did; none:
    the bar stays off). Only ever honoured in a game that is not rated (winprob.views, winprob.live)."""

    player = models.OneToOneField("dicegame.Player", on_delete=models.CASCADE, related_name="win_bar_choice")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"winning chances for {self.player}"


class GameWinCourse(models.Model):
    """Every seat's chance of winning through a finished game, for its review (winprob.review): worked
    out once, in the background, when the game ends (or when its review is first opened)."""

    game = models.OneToOneField("dicegame.Game", on_delete=models.CASCADE, related_name="win_course")
    version = models.PositiveSmallIntegerField(default=1)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"winning chances through game {self.game_id}"
