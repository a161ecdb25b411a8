"""Every rated live game not over yet gets a turn timer (issue 22, item 16): one made with the timer off
could be stalled for ever by a player who keeps the page open and never moves. The turn in play gets
its time from now (a person's turn; the computer's moves keep their own pace)."""

from datetime import timedelta

from django.db import migrations
from django.utils import timezone

# dicegame.rules.turn.RATED_TURN_SECONDS when this was written (a migration keeps its own copy).
RATED_TURN_SECONDS = 60


def give_rated_games_a_clock(apps, schema_editor):
    Game = apps.get_model("dicegame", "Game")
    Turn = apps.get_model("dicegame", "Turn")
    games = Game.objects.filter(
        rated=True, pace="live", status__in=["open", "active"], turn_seconds__isnull=True
    )
    ids = list(games.values_list("pk", flat=True))
    games.update(turn_seconds=RATED_TURN_SECONDS)
    Turn.objects.filter(
        game_id__in=ids,
        game__status="active",
        completed_at__isnull=True,
        deadline_at__isnull=True,
        player__bot_strength="",
        player__stand_in=False,
    ).update(deadline_at=timezone.now() + timedelta(seconds=RATED_TURN_SECONDS))


class Migration(migrations.Migration):
    dependencies = [
        ("dicegame", "0011_turn_times"),
    ]

    operations = [
        migrations.RunPython(give_rated_games_a_clock, migrations.RunPython.noop),
    ]
