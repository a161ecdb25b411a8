"""The final tables already written, written again by the rules of issue 38 (findings 4 and 5): an entrant
who started no game is no player (unplaced, in no round's field, in nobody's "of N"), and a withdrawn
player keeps a place, every round not played scored as not started. Without this, the "1 of 4" that
idle accounts made would stay on the player pages (which count the placed entries).

Self-contained on purpose: the historical models and the pure scoring (`tournaments.scoring`), not the
selectors, whose models may have moved on by the time a database meets this migration. The players'
cached pages are told through their versions (`core.versions.bump`, one statement)."""

from django.db import migrations

OFF_BOARD = ("review", "marked")  # accounts.Profile.Standing: under review, marked (fair play)


def rescore(apps, schema_editor):
    from core import versions
    from tournaments import scoring

    Tournament = apps.get_model("tournaments", "Tournament")
    Round = apps.get_model("tournaments", "Round")
    Entry = apps.get_model("tournaments", "Entry")
    RoundGame = apps.get_model("tournaments", "RoundGame")
    Profile = apps.get_model("accounts", "Profile")
    off_board = set(Profile.objects.filter(standing__in=OFF_BOARD).values_list("user_id", flat=True))
    touched = set()
    for t in Tournament.objects.filter(finished_at__isnull=False).iterator():
        rounds = list(Round.objects.filter(tournament_id=t.pk, settled_at__isnull=False).order_by("number"))
        entries = list(Entry.objects.filter(tournament_id=t.pk).order_by("pk"))
        games = {
            (g["entry_id"], g["round_id"]): g["total"]
            for g in RoundGame.objects.filter(round__tournament_id=t.pk).values("entry_id", "round_id", "total")
        }
        started = {entry_id for entry_id, _round_id in games}
        players = [e.pk for e in entries if e.pk in started and e.user_id not in off_board]
        fields = [
            {
                pk: None if (pk, r.pk) not in games else games[(pk, r.pk)] or 0
                for pk in players
            }
            for r in rounds
        ]
        lines = {line.entrant: line for line in scoring.standings(fields, players, players)}
        changed = []
        for e in entries:
            line = lines.get(e.pk)
            place = line.place if line is not None and fields else None
            score = round(line.percent, 2) if place is not None else None
            if (e.place, e.score) != (place, score):
                e.place, e.score = place, score
                changed.append(e)
        Entry.objects.bulk_update(changed, ["place", "score"])
        if changed:
            touched.update(e.user_id for e in entries)
    if touched:
        versions.bump(*(versions.user(user_id) for user_id in touched))


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_initial"),
        ("accounts", "0002_standing"),
        ("dicegame", "0014_cache_versions"),
    ]

    operations = [migrations.RunPython(rescore, migrations.RunPython.noop)]
