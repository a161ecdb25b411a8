from django.contrib import admin

from ratings.models import PlayerRating, RatingChange


@admin.register(PlayerRating)
class PlayerRatingAdmin(admin.ModelAdmin):
    list_display = ("user", "rating", "rd", "volatility", "games", "updated_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = (
        "game",
        "user",
        "rating_before",
        "rating_after",
        "rd_after",
        "score",
        "opponents",
        "forfeit",
    )
    list_filter = ("forfeit",)
    search_fields = ("user__username",)
    raw_id_fields = ("game", "user")
