"""Game.win_bar_wanted, from the choices already made (it replaces a hint kept in the cache)."""

from django.db import migrations


def note(apps, schema_editor):
    Game = apps.get_model("dicegame", "Game")
    WinBarChoice = apps.get_model("winprob", "WinBarChoice")
    games = WinBarChoice.objects.values("player__game_id")
    Game.objects.filter(pk__in=games).update(win_bar_wanted=True)


class Migration(migrations.Migration):
    dependencies = [
        ("winprob", "0001_initial"),
        ("dicegame", "0016_game_win_bar_wanted"),
    ]

    operations = [migrations.RunPython(note, migrations.RunPython.noop)]
