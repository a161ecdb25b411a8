from django.contrib import admin

from ratings.models import PlayerRating, RatingChange, RatingRefund


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
        "weight",
    )
    list_filter = ("forfeit",)
    search_fields = ("user__username",)
    raw_id_fields = ("game", "user")
    readonly_fields = ("discounts",)


@admin.register(RatingRefund)
class RatingRefundAdmin(admin.ModelAdmin):
    # Written only by a marking (ratings.services.refund_opponents): editing one would break the
    # once-only bookkeeping, so the admin shows them and nothing more.
    list_display = ("game", "user", "points", "marked", "created_at")
    search_fields = ("user__username", "marked__username")
    raw_id_fields = ("game", "user", "marked")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
