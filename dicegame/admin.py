from django.contrib import admin

from dicegame.models import Game, GameAnalysis, Player, Turn


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    fields = ("seat", "name", "user", "bot_strength", "total", "rank")
    readonly_fields = fields
    can_delete = False


class TurnInline(admin.TabularInline):
    model = Turn
    extra = 0
    fields = (
        "number",
        "round",
        "player",
        "rolls",
        "box",
        "points",
        "bonus",
        "auto_committed",
        "completed_at",
    )
    readonly_fields = fields
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "created_at", "finished_at", "version")
    list_filter = ("kind", "status")
    date_hierarchy = "created_at"
    readonly_fields = ("seed_commitment", "version", "created_at", "updated_at", "finished_at")
    exclude = ("seed",)  # secret until the game is over; the game page reveals it then
    inlines = [PlayerInline, TurnInline]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "seat", "user", "bot_strength", "total", "rank")
    list_filter = ("bot_strength",)
    search_fields = ("name", "user__username")
    list_select_related = ("game", "user")
    raw_id_fields = ("game", "user")


@admin.register(GameAnalysis)
class GameAnalysisAdmin(admin.ModelAdmin):
    list_display = ("game", "version", "created_at")
    list_filter = ("version",)
    raw_id_fields = ("game",)
    readonly_fields = ("game", "version", "summary", "data", "created_at")
