from django.contrib import admin

from accounts.models import FriendRequest, Friendship, Profile
from core import versions


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "leaderboard_opt_in", "last_seen")
    list_filter = ("leaderboard_opt_in",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    # The person's own choices (staff mute through a report: fair play's queue). On the boards is on a
    # page for everyone: the model's save keeps the two together.
    readonly_fields = ("challenges_from", "games_visible_to", "findable", "muted_at")

    # Who shows on the site-wide boards and who is off them: the cached pages move on at once.
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        versions.bump(versions.PEOPLE)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        versions.bump(versions.PEOPLE)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        versions.bump(versions.PEOPLE)


@admin.register(FriendRequest)
class FriendRequestAdmin(admin.ModelAdmin):
    list_display = ("from_user", "to_user", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("from_user__username", "to_user__username")
    list_select_related = ("from_user", "to_user")
    raw_id_fields = ("from_user", "to_user")


@admin.register(Friendship)
class FriendshipAdmin(admin.ModelAdmin):
    list_display = ("user_low", "user_high", "created_at")
    search_fields = ("user_low__username", "user_high__username")
    list_select_related = ("user_low", "user_high")
    raw_id_fields = ("user_low", "user_high")
