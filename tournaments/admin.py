from django.contrib import admin

from tournaments.models import Entry, Round, Tournament


class RoundInline(admin.TabularInline):
    # The seed is not shown: an admin page is no place for a secret that deals a round's dice.
    model = Round
    fields = ("number", "commitment", "opens_at", "closes_at", "settled_at", "par")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "access",
        "rounds",
        "entrant_count",
        "max_entrants",
        "starts_at",
        "finished_at",
    )
    list_filter = ("access", "rated")
    readonly_fields = ("invite_token", "entrant_count", "created_at", "finished_at", "cancelled_at")
    inlines = [RoundInline]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("__str__", "joined_at", "withdrawn_at", "place", "score")
    raw_id_fields = ("tournament", "user")
