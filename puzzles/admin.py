from django.contrib import admin

from puzzles.models import Attempt, DailyPuzzle, Puzzle, PuzzleRating, PuzzleReveal, PuzzleSource


@admin.register(Puzzle)
class PuzzleAdmin(admin.ModelAdmin):
    list_display = ("pk", "rolls_left", "margin", "rating", "attempts", "solved", "created_at")
    list_filter = ("theme_upper", "theme_straights", "theme_penta", "theme_endgame", "rolls_left")


@admin.register(PuzzleSource)
class PuzzleSourceAdmin(admin.ModelAdmin):
    list_display = ("puzzle", "game", "player", "turn_number", "rolls_left", "loss")
    raw_id_fields = ("puzzle", "game", "player")


@admin.register(PuzzleRating)
class PuzzleRatingAdmin(admin.ModelAdmin):
    list_display = ("user", "rating", "rd", "attempts", "solved")
    raw_id_fields = ("user",)


@admin.register(PuzzleReveal)
class PuzzleRevealAdmin(admin.ModelAdmin):
    list_display = ("puzzle", "user", "device", "created_at")
    raw_id_fields = ("puzzle", "user")


admin.site.register(Attempt)
admin.site.register(DailyPuzzle)
